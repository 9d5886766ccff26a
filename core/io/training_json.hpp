#pragma once
// Private to core/io: the model file's "training" object (core/models/training_data.hpp) as JSON.
//   "training": {"data": "digits",
//                "csv": {"header": "auto"|"yes"|"no", "label": null | 1-based column | "last"},   (optional)
//                "preprocessing": {"limit": null | N, "shifts": false,
//                                  "binarize": null | T in (0,1], "scale": false,
//                                  "standardize": null | {"mean": [n], "sd": [n]}}}
// Missing members of "preprocessing" mean "not applied"; unknown members are ignored (docs/reference/model-files.md).
#include <nlohmann/json.hpp>

#include "core/models/training_data.hpp"

namespace rbm {

nlohmann::json training_to_json(const TrainingData& t);
// InputError naming the key ("'training.preprocessing.binarize' must be ...") on any problem;
// n_visible: the model's, which a standardization's mean and sd must match.
TrainingData training_from_json(const nlohmann::json& j, Index n_visible);

}  // namespace rbm
