#pragma once
// A training run's monitoring record (core/models/train_record.hpp) as JSON, shared by training
// checkpoints (core/training/checkpoint.cpp) and session files (session_io.cpp):
//   {"update": 100, "epoch": 1.5, "learning_rate": 0.01, "log_likelihood": -3.2 | null,
//    "log_likelihood_method": "exact", "log_likelihood_low": ..., "log_likelihood_high": ...,
//    "log_z": ..., "ais_ess": ..., "reconstruction_error": ..., "swap_acceptance": [a | null, ...],
//    "projections": 0, "max_singular_value": ..., "seconds": ...}
// A number that is not finite is written as null and read back as NaN ("not measured"); every
// finite double is written so that it reads back to the same bits (nlohmann's shortest
// round-trip form, the writer of model files).
#include <nlohmann/json.hpp>
#include <string>

#include "core/models/train_record.hpp"

namespace rbm {

nlohmann::json train_record_to_json(const TrainRecord& r);
// Every key is required and checked: an InputError names it by `path` ("log[3].epoch must be a
// finite number ..."); "update" and "projections" must lie in [0, max_update].
TrainRecord train_record_from_json(const nlohmann::json& j, const std::string& path, Index max_update);

}  // namespace rbm
