#include "core/models/training_data.hpp"

#include <sstream>

namespace rbm {

std::string describe(const TrainingData& t) {
    std::ostringstream os;
    os << t.data;
    if (t.limit > 0) os << ", first " << t.limit;
    if (t.shifts) os << " + one-pixel shifts";
    if (t.binarize) os << ", binarized at " << *t.binarize;
    if (t.scale) os << ", scaled to [0,1]";
    if (t.standardize) os << ", standardized";
    return os.str();
}

}  // namespace rbm
