#include "core/io/session_io.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/io/json_text.hpp"
#include "core/io/model_io.hpp"
#include "core/io/presets.hpp"

namespace rbm {

namespace {

using nlohmann::json;
using json_text::type_name;

const char* const kSessionFormat = "rbmscope-session";
const char* const kValueShape = "a number, a string, true/false or an array of numbers and strings";

std::string quoted(const std::string& key) { return "'" + key + "'"; }

void check_string_size(const json& j, const std::string& where) {
    const std::size_t n = j.get_ref<const std::string&>().size();
    if (n > kMaxSessionStringBytes)
        throw InputError(where + " is a string of " + std::to_string(n) + " bytes, more than the limit " +
                         std::to_string(kMaxSessionStringBytes));
}

SessionScalar scalar_of(const json& j, const std::string& where) {
    switch (j.type()) {
        case json::value_t::boolean: return j.get<bool>();
        case json::value_t::number_integer: return j.get<std::int64_t>();
        case json::value_t::number_unsigned: {
            const auto u = j.get<std::uint64_t>();
            if (u <= static_cast<std::uint64_t>(INT64_MAX)) return static_cast<std::int64_t>(u);
            return u;
        }
        case json::value_t::number_float: return j.get<double>();  // the parser refuses non-finite numbers
        case json::value_t::string: check_string_size(j, where); return j.get<std::string>();
        case json::value_t::null:
            throw InputError(where + " is null (a NaN or Inf written as null?); expected " + kValueShape);
        default: throw InputError(where + " must be " + kValueShape + ", got " + type_name(j));
    }
}

SessionValue setting_of(const json& j, const std::string& key) {
    const std::string where = "setting " + quoted(key);
    if (!j.is_array()) return SessionValue::scalar(scalar_of(j, where));
    if (j.size() > kMaxSessionListItems)
        throw InputError(where + " has " + std::to_string(j.size()) + " items, more than the limit " +
                         std::to_string(kMaxSessionListItems));
    std::vector<SessionScalar> items;
    items.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) {
        const std::string at = where + "[" + std::to_string(i) + "]";
        if (j[i].is_array() || j[i].is_object())
            throw InputError(at + " must be a number, a string or true/false (no nested arrays), got " + type_name(j[i]));
        items.push_back(scalar_of(j[i], at));
    }
    return SessionValue::list(std::move(items));
}

const json* find(const json& obj, const char* key) {
    const auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
}

Session session_from_object(const json& obj, const std::string& origin) {
    if (!obj.is_object())
        throw InputError("expected a JSON object {\"format\": \"rbmscope-session\", ...} at the top level, got " + type_name(obj));
    const json* f = find(obj, "format");
    if (!f) throw InputError("'format' is missing (expected \"rbmscope-session\")");
    if (!(f->is_string() && f->get<std::string>() == kSessionFormat)) {
        const std::string got = f->is_string() ? "'" + f->get<std::string>() + "'" : type_name(*f);
        const std::string hint = f->is_string() && f->get<std::string>() == "rbmscope-model"
                                     ? " (this is a model file: open it as a model, not as a session)"
                                     : "";
        throw InputError("'format' is " + got + ", expected \"rbmscope-session\"" + hint);
    }
    const json* v = find(obj, "version");
    if (!v) throw InputError("'version' is missing (expected 1)");
    if (!(v->is_number() && v->get<double>() == 1.0))
        throw InputError("'version' is " + (v->is_number() ? v->dump() : type_name(*v)) + ", this program reads version 1");

    Session s;
    const json* m = find(obj, "model");
    if (!m) throw InputError("'model' is missing (expected a model object as in a model file, or a preset name)");
    if (m->is_string()) {
        s.preset = m->get<std::string>();
        check_string_size(*m, "'model'");
        try {
            s.model = load_preset(s.preset);
        } catch (const InputError& e) {
            throw InputError(std::string("'model' names no model: ") + e.what());
        }
    } else if (m->is_object()) {
        // The model-file parser, so an embedded model's problems read as in a model file.
        s.model = model_from_json_text(m->dump(), origin + ": in 'model'");
    } else {
        throw InputError("'model' must be a model object (as in a model file) or a preset name, got " + type_name(*m));
    }

    if (const json* st = find(obj, "settings")) {
        if (!st->is_object()) throw InputError("'settings' must be an object {\"key\": value, ...}, got " + type_name(*st));
        if (st->size() > kMaxSessionSettings)
            throw InputError("'settings' has " + std::to_string(st->size()) + " entries, more than the limit " +
                             std::to_string(kMaxSessionSettings));
        for (const auto& [key, value] : st->items()) s.settings[key] = setting_of(value, key);
    }
    if (const json* view = find(obj, "view")) {
        if (!view->is_string()) throw InputError("'view' must be a string (a view name such as \"density\"), got " + type_name(*view));
        check_string_size(*view, "'view'");
        s.view = view->get<std::string>();
    }
    return s;
}

json scalar_json(const SessionScalar& v, const std::string& key) {
    return std::visit(
        [&](const auto& x) -> json {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, double>)
                if (!std::isfinite(x)) throw InputError("setting " + quoted(key) + " is not a finite number");
            return json(x);
        },
        v);
}

// Indent every line after the first by `pad`: the nested text stays readable inside the file.
std::string indented(const std::string& text, const std::string& pad) {
    std::string out;
    for (char ch : text) {
        out += ch;
        if (ch == '\n') out += pad;
    }
    return out;
}

}  // namespace

std::string session_scalar_text(const SessionScalar& s) {
    return std::visit(
        [](const auto& x) -> std::string {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::string>) return json(x).dump(-1, ' ', false, json::error_handler_t::replace);
            else if constexpr (std::is_same_v<T, bool>) return x ? "true" : "false";
            else return json(x).dump();
        },
        s);
}

Session session_from_json_text(const std::string& text, const std::string& origin) {
    try {
        static const std::vector<std::string> known{"format", "version", "model", "settings", "view"};
        return session_from_object(json_text::parse(text, "a session's numbers must be finite", &known), origin);
    } catch (const InputError& e) {
        const std::string what = e.what();
        // The embedded model's messages already start with the origin.
        if (what.rfind(origin + ": ", 0) == 0) throw;
        throw InputError(origin + ": " + what);
    }
}

std::string session_to_json_text(const Session& s) {
    json settings = json::object();
    for (const auto& [key, value] : s.settings) {
        if (!value.is_list) {
            if (value.items.size() != 1)
                throw InputError("setting " + quoted(key) + " is a scalar with " + std::to_string(value.items.size()) + " values");
            settings[key] = scalar_json(value.items.front(), key);
            continue;
        }
        json list = json::array();
        for (const SessionScalar& item : value.items) list.push_back(scalar_json(item, key));
        settings[key] = std::move(list);
    }
    const auto dump = [](const json& j, int indent) { return j.dump(indent, ' ', false, json::error_handler_t::replace); };
    std::string out = "{\n";
    out += " \"format\": \"" + std::string(kSessionFormat) + "\",\n";
    out += " \"version\": 1,\n";
    out += " \"view\": " + dump(json(s.view), -1) + ",\n";
    out += " \"settings\": " + indented(dump(settings, 1), " ") + ",\n";
    std::string model = s.preset.empty() ? model_to_json_text(s.model) : dump(json(s.preset), -1);
    while (!model.empty() && model.back() == '\n') model.pop_back();
    out += " \"model\": " + indented(model, " ") + "\n}\n";
    return out;
}

Session load_session(const std::filesystem::path& path) {
    const std::string origin = path.string();
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > kMaxSessionBytes)
        throw InputError(origin + ": file is " + std::to_string(size) + " bytes, more than any session file may be (limit " +
                         std::to_string(kMaxSessionBytes) + ")");
    try {
        return session_from_json_text(read_file(path), origin);
    } catch (const std::bad_alloc&) {
        throw InputError(origin + ": not enough memory to load this session file");
    }
}

void save_session(const Session& s, const std::filesystem::path& path) {
    const std::string where = "cannot save the session to '" + path.string() + "': ";
    std::string text;
    try {
        validate(s.model);
        text = session_to_json_text(s);
    } catch (const InputError& e) {
        throw InputError(where + e.what());
    }
    write_file_atomically(path, text);
}

}  // namespace rbm
