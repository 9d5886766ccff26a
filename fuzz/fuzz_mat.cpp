// MATLAB .mat files (v4, v5, v7.3) through libmatio; the bytes go through a temporary file,
// since libmatio reads files by name.
#include "fuzz_target.hpp"

RBM_FUZZ_TARGET(bytes) { rbm::fuzz::check_round_trip(rbm::model_from_file_bytes(bytes, ".mat", "fuzz.mat")); }
