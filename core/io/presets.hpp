#pragma once
// The papers' toy models, compiled into the library (resources/presets/*.json) so the app and
// the CLI can load them by name from anywhere.
#include <string>
#include <vector>

#include "core/models/models.hpp"

namespace rbm {

struct PresetInfo {
    std::string name;   // e.g. "four-mode"
    std::string title;  // the model's "name"
    std::string notes;
};

std::vector<PresetInfo> list_presets();
std::string default_preset_name();  // "four-mode"
// InputError listing the known names when `name` is not one of them.
Model load_preset(const std::string& name);
std::string preset_json_text(const std::string& name);

// A MODEL argument: an existing file path, "preset:NAME", or a bare preset name. A file whose
// numbers the computations cannot hold is refused (require_computable, core/models/models.hpp).
Model resolve_model_argument(const std::string& arg);

}  // namespace rbm
