// HDF5 model files through libhdf5; the bytes go through a temporary file.
#include "fuzz_target.hpp"

RBM_FUZZ_TARGET(bytes) { rbm::fuzz::check_round_trip(rbm::model_from_file_bytes(bytes, ".h5", "fuzz.h5")); }
