// .npz archives (zip of .npy members, via libzip) holding a model's arrays.
#include "fuzz_target.hpp"

RBM_FUZZ_TARGET(bytes) { rbm::fuzz::check_round_trip(rbm::model_from_file_bytes(bytes, ".npz", "fuzz.npz")); }
