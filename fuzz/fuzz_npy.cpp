// A single .npy array: the raw parser (any dtype and shape it accepts), then the lone-W model.
#include "core/io/npy.hpp"
#include "fuzz_target.hpp"

RBM_FUZZ_TARGET(bytes) {
    const rbm::NpyArray a = rbm::parse_npy(bytes, "fuzz.npy");
    // The parser's promise: as many values as the shape says, in the right vector.
    const auto n = static_cast<std::size_t>(a.size());
    if ((a.is_string ? a.strings.size() : a.data.size()) != n) __builtin_trap();
    rbm::fuzz::check_round_trip(rbm::model_from_file_bytes(bytes, ".npy", "fuzz.npy"));
}
