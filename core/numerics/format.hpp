#pragma once
// Numbers in messages: 10 significant digits, the shortest form the stream gives ("0.25", "1e-12").
#include <sstream>
#include <string>

namespace rbm {

inline std::string format_number(double x) {
    std::ostringstream os;
    os.precision(10);
    os << x;
    return os.str();
}

}  // namespace rbm
