#include "core/io/presets.hpp"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/io/model_io.hpp"

namespace rbm {
namespace detail {
const std::vector<std::pair<std::string, std::string>>& embedded_presets();
}

std::vector<PresetInfo> list_presets() {
    std::vector<PresetInfo> out;
    for (const auto& [name, text] : detail::embedded_presets()) {
        const auto j = nlohmann::json::parse(text);
        out.push_back({name, j.value("name", name), j.value("notes", std::string())});
    }
    return out;
}

std::string default_preset_name() { return "four-mode"; }

std::string preset_json_text(const std::string& name) {
    for (const auto& [n, text] : detail::embedded_presets())
        if (n == name) return text;
    std::string known;
    for (const auto& [n, text] : detail::embedded_presets()) known += (known.empty() ? "" : ", ") + n;
    throw InputError("unknown preset '" + name + "' (presets: " + known + ")");
}

Model load_preset(const std::string& name) {
    Model m = model_from_json_text(preset_json_text(name), "preset " + name);
    validate(m);
    return m;
}

Model resolve_model_argument(const std::string& arg) {
    if (arg.rfind("preset:", 0) == 0) return load_preset(arg.substr(7));
    std::error_code ec;
    if (std::filesystem::exists(arg, ec)) {
        Model m = load_model(arg);
        try {
            require_computable(m);
        } catch (const InputError& e) {
            throw InputError(arg + ": " + e.what());
        }
        return m;
    }
    for (const auto& [n, text] : detail::embedded_presets())
        if (n == arg) return load_preset(arg);
    std::string known;
    for (const auto& [n, text] : detail::embedded_presets()) known += (known.empty() ? "" : ", ") + n;
    throw InputError("cannot open model '" + arg + "': no such file, and not a preset name (presets: " + known + ")");
}

}  // namespace rbm
