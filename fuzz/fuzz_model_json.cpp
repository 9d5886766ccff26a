// Model files in JSON (docs/reference/model-files.md), through the same entry point load_model uses.
#include "fuzz_target.hpp"

RBM_FUZZ_TARGET(bytes) { rbm::fuzz::check_round_trip(rbm::model_from_file_bytes(bytes, ".json", "fuzz.json")); }
