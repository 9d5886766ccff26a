#pragma once
// The model file's JSON schema (docs/reference/model-files.md): one object
//   {"format": "rbmscope-model", "version": 1, "kind": "grbm" | "brbm" | "leaky" | "gaussian",
//    "name": "...", "notes": "...",                        (optional)
//    "W": [[m numbers] x n], "b": [n], "c": [m],           (b, c optional: zeros)
//    "sigma": [n], "hidden_values": [values a hidden unit takes],  (grbm; optional: ones, [0, 1])
//    "leakiness": number in (0, 1],                        (leaky; optional: 0.01)
//    "mean": [n], "cov": [[n] x n],                        (gaussian instead of W, b, c)
//    "anneal_from": {...a model object without its own anneal_from...},
//    "training": {...core/io/training_json.hpp...}}
// read strictly (every problem an InputError naming the key, the row and column, and what was
// expected) and written one key and one matrix row per line, every double in the shortest text
// that reads back to the same bits. Unknown keys are skipped unread.
//
// Typical use:
//   const Model m = model_from_json_text(read_file(path), path.string());
//   write_file_atomically(path, model_to_json_text(m));   // what save_model does for .json
#include <string>

#include "core/models/models.hpp"

namespace rbm {

// Parse and validate (validate_model_file) a model from JSON text; `origin` names the source in
// messages (a path or "preset X").
Model model_from_json_text(const std::string& text, const std::string& origin = "model");
std::string model_to_json_text(const Model& model);

// validate(model), and the rules of its nested "anneal_from": no deeper nesting, the same number
// of visible units. What every model file must satisfy, whichever format holds it.
void validate_model_file(const Model& model);

// "grbm", "brbm", "leaky", "gaussian"; anything else is an InputError listing them.
ModelKind parse_model_kind(const std::string& kind);

}  // namespace rbm
