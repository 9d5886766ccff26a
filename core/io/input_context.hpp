#pragma once
// Private to core/io: an InputError thrown inside `f` gets a prefix saying where it happened
// ("m.json: ", "in 'anneal_from': "), so a message names the file and the key whichever reader
// found the problem.
//   Model m = with_context(origin + ": ", [&] { return parse(bytes); });
#include <string>

#include "core/numerics/types.hpp"

namespace rbm {

template <class F>
auto with_context(const std::string& prefix, F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const InputError& e) {
        throw InputError(prefix + e.what());
    }
}

}  // namespace rbm
