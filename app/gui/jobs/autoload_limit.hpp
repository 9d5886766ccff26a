#pragma once
// What the app loads by itself, unasked, of a model's recorded training data ("training"): when a
// model is opened (Samples view) and for the annealing methods whose base is the data's base rate.
// A 2 KB model recording bars:3:40000000:1 made the app peak at 11 GB; above this the model is
// shown without its data and the view says so. Applied with rbm::ScopedMemoryCap.
#include <cstdint>

namespace rbmscope {

inline constexpr std::uint64_t kAutoLoadDataBytes = std::uint64_t(256) << 20;

}  // namespace rbmscope
