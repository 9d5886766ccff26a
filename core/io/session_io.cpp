#include "core/io/session_io.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/io/json_fields.hpp"
#include "core/io/json_text.hpp"
#include "core/io/model_io.hpp"
#include "core/io/presets.hpp"
#include "core/io/train_record_json.hpp"
#include "core/io/training_json.hpp"

namespace rbm {

namespace {

using json_text::type_name;
using nlohmann::json;

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
            throw InputError(at + " must be a number, a string or true/false (no nested arrays), got " +
                             type_name(j[i]));
        items.push_back(scalar_of(j[i], at));
    }
    return SessionValue::list(std::move(items));
}

const json* find(const json& obj, const char* key) {
    const auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
}

// A settings object {"key": value, ...}; `prefix` leads each key in messages ("views.samples.").
std::map<std::string, SessionValue> settings_of(const json& j, const std::string& where, const std::string& prefix) {
    if (!j.is_object()) throw InputError(where + " must be an object {\"key\": value, ...}, got " + type_name(j));
    if (j.size() > kMaxSessionSettings)
        throw InputError(where + " has " + std::to_string(j.size()) + " entries, more than the limit " +
                         std::to_string(kMaxSessionSettings));
    std::map<std::string, SessionValue> out;
    for (const auto& [key, value] : j.items()) out[key] = setting_of(value, prefix + key);
    return out;
}

std::string limited_string(const json& obj, const char* key, const std::string& path) {
    const std::string s = json_fields::string_at(obj, key, path);
    if (s.size() > kMaxSessionStringBytes)
        throw InputError(json_fields::join(path, key) + " is a string of " + std::to_string(s.size()) +
                         " bytes, more than the limit " + std::to_string(kMaxSessionStringBytes));
    return s;
}

// Rows of `cols` finite numbers each (at most the model loaders' element limit).
RowMat rows_of(const json& j, const std::string& path, Index cols) {
    namespace f = json_fields;
    f::array(j, path);
    if (static_cast<double>(j.size()) * static_cast<double>(cols) > static_cast<double>(kMaxFileElements))
        throw InputError(path + " has " + std::to_string(j.size()) + " rows of " + std::to_string(cols) +
                         " values, more than the limit of " + std::to_string(kMaxFileElements) + " elements");
    RowMat M(static_cast<Index>(j.size()), cols);
    for (std::size_t r = 0; r < j.size(); ++r) {
        const std::string row = f::at(path, r);
        if (!j[r].is_array() || j[r].size() != static_cast<std::size_t>(cols))
            f::refuse(row, "an array of " + std::to_string(cols) + " finite numbers (one per visible unit)", j[r]);
        for (Index c = 0; c < cols; ++c)
            M(static_cast<Index>(r), c) =
                f::number(j[r][static_cast<std::size_t>(c)], f::at(row, static_cast<std::size_t>(c)));
    }
    return M;
}

SessionTrainingRun training_run_of(const json& j, const std::string& path, const std::string& origin) {
    namespace f = json_fields;
    constexpr std::int64_t kBig = std::int64_t{1} << 53;  // counts a double still holds exactly
    if (!j.is_object()) f::refuse(path, "an object {\"label\": ..., \"log\": [...], \"model\": {...}, ...}", j);
    SessionTrainingRun r;
    // The model first: the negatives' width is its visible units.
    const json& m = f::member(j, "model", path);
    if (!m.is_object()) f::refuse(f::join(path, "model"), "a model object (as in a model file)", m);
    r.model = model_from_json_text(m.dump(), origin + ": in '" + f::join(path, "model") + "'");
    r.label = limited_string(j, "label", path);
    r.settings = settings_of(f::member(j, "settings", path), "'" + f::join(path, "settings") + "'",
                             f::join(path, "settings") + ".");
    r.status = f::choice(f::member(j, "status", path), f::join(path, "status"), {"finished", "cancelled", "diverged"});
    r.message = limited_string(j, "message", path);
    r.total_updates = f::integer_at(j, "total_updates", path, 0, kBig);
    r.updates_done = f::integer_at(j, "updates_done", path, 0, r.total_updates);
    r.projections = f::integer_at(j, "projections", path, 0, r.updates_done);
    r.image_rows = f::integer_at(j, "image_rows", path, 0, 1 << 20);
    r.image_cols = f::integer_at(j, "image_cols", path, 0, 1 << 20);
    r.seconds = f::number_at(j, "seconds", path, 0.0);
    const std::string log_path = f::join(path, "log");
    const json& log = f::array(f::member(j, "log", path), log_path);
    if (log.size() > kMaxSessionListItems)
        throw InputError(log_path + " has " + std::to_string(log.size()) + " records, more than the limit " +
                         std::to_string(kMaxSessionListItems));
    for (std::size_t i = 0; i < log.size(); ++i)
        r.log.push_back(train_record_from_json(log[i], f::at(log_path, i), r.updates_done));
    r.negatives = rows_of(f::member(j, "negatives", path), f::join(path, "negatives"), r.model.n_visible());
    return r;
}

// The Samples view's data: a model file's "training" object. Its standardization (if any) has
// one mean per value of the data, which need not be the model's width: the mean array says it.
TrainingData samples_data_of(const json& j) {
    Index n = 0;
    if (j.is_object()) {
        const auto p = j.find("preprocessing");
        if (p != j.end() && p->is_object()) {
            const auto st = p->find("standardize");
            if (st != p->end() && st->is_object()) {
                const auto mean = st->find("mean");
                if (mean != st->end() && mean->is_array()) n = static_cast<Index>(mean->size());
            }
        }
    }
    try {
        return training_from_json(j, n);
    } catch (const InputError& e) {
        throw InputError(std::string("in 'samples_data': ") + e.what());
    }
}

Session session_from_object(const json& obj, const std::string& origin) {
    if (!obj.is_object())
        throw InputError("expected a JSON object {\"format\": \"rbmscope-session\", ...} at the top level, got " +
                         type_name(obj));
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
        throw InputError("'version' is " + (v->is_number() ? v->dump() : type_name(*v)) +
                         ", this program reads version 1");

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

    if (const json* st = find(obj, "settings")) s.settings = settings_of(*st, "'settings'", "");
    if (const json* view = find(obj, "view")) {
        if (!view->is_string())
            throw InputError("'view' must be a string (a view name such as \"density\"), got " + type_name(*view));
        check_string_size(*view, "'view'");
        s.view = view->get<std::string>();
    }
    if (const json* views = find(obj, "views")) {
        if (!views->is_object())
            throw InputError("'views' must be an object {\"view name\": {settings}, ...}, got " + type_name(*views));
        if (views->size() > kMaxSessionSettings)
            throw InputError("'views' has " + std::to_string(views->size()) + " entries, more than the limit " +
                             std::to_string(kMaxSessionSettings));
        for (const auto& [name, settings] : views->items())
            s.views[name] = settings_of(settings, "'views." + name + "'", "views." + name + ".");
    }
    if (const json* b = find(obj, "build"); b && b->is_object()) s.build = b->dump();
    if (const json* data = find(obj, "samples_data")) s.samples_data = samples_data_of(*data);
    if (const json* runs = find(obj, "training_runs")) {
        if (!runs->is_array())
            throw InputError("'training_runs' must be an array of training runs, got " + type_name(*runs));
        if (runs->size() > kMaxSessionTrainingRuns)
            throw InputError("'training_runs' has " + std::to_string(runs->size()) + " runs, more than the limit " +
                             std::to_string(kMaxSessionTrainingRuns));
        for (std::size_t i = 0; i < runs->size(); ++i)
            s.training_runs.push_back(training_run_of((*runs)[i], "training_runs[" + std::to_string(i) + "]", origin));
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
            if constexpr (std::is_same_v<T, std::string>)
                return json(x).dump(-1, ' ', false, json::error_handler_t::replace);
            else if constexpr (std::is_same_v<T, bool>) return x ? "true" : "false";
            else return json(x).dump();
        },
        s);
}

Session session_from_json_text(const std::string& text, const std::string& origin) {
    try {
        static const std::vector<std::string> known{"format", "version",      "model",         "settings", "view",
                                                    "views",  "samples_data", "training_runs", "build"};
        return session_from_object(json_text::parse(text, "a session's numbers must be finite", &known), origin);
    } catch (const InputError& e) {
        const std::string what = e.what();
        // The embedded model's messages already start with the origin.
        if (what.rfind(origin + ": ", 0) == 0) throw;
        throw InputError(origin + ": " + what);
    }
}

namespace {

json settings_json(const std::map<std::string, SessionValue>& map, const std::string& prefix) {
    json settings = json::object();
    for (const auto& [name, value] : map) {
        const std::string key = prefix + name;
        if (!value.is_list) {
            if (value.items.size() != 1)
                throw InputError("setting " + quoted(key) + " is a scalar with " + std::to_string(value.items.size()) +
                                 " values");
            settings[name] = scalar_json(value.items.front(), key);
            continue;
        }
        json list = json::array();
        for (const SessionScalar& item : value.items) list.push_back(scalar_json(item, key));
        settings[name] = std::move(list);
    }
    return settings;
}

std::string dump(const json& j, int indent) { return j.dump(indent, ' ', false, json::error_handler_t::replace); }

// A model object as model files write it, without its last newline.
std::string model_text(const Model& m) {
    std::string model = model_to_json_text(m);
    while (!model.empty() && model.back() == '\n') model.pop_back();
    return model;
}

// One run, a record or a row per line (a long run stays readable and diffable).
std::string training_run_text(const SessionTrainingRun& r, const std::string& path) {
    if (r.negatives.rows() > 0 && r.negatives.cols() != r.model.n_visible())
        throw InputError(path + ".negatives has " + std::to_string(r.negatives.cols()) + " columns, the model has " +
                         std::to_string(r.model.n_visible()) + " visible units");
    validate(r.model);
    std::string out = "{\n";
    const auto item = [&](const char* key, const std::string& text) {
        out += "  \"" + std::string(key) + "\": " + text + ",\n";
    };
    item("label", dump(json(r.label), -1));
    item("settings", dump(settings_json(r.settings, path + ".settings."), -1));
    item("status", dump(json(r.status), -1));
    item("message", dump(json(r.message), -1));
    item("updates_done", std::to_string(r.updates_done));
    item("total_updates", std::to_string(r.total_updates));
    item("projections", std::to_string(r.projections));
    item("image_rows", std::to_string(r.image_rows));
    item("image_cols", std::to_string(r.image_cols));
    if (!std::isfinite(r.seconds)) throw InputError(path + ".seconds is not a finite number");
    item("seconds", dump(json(r.seconds), -1));
    std::string log = "[";
    for (std::size_t i = 0; i < r.log.size(); ++i)
        log += (i ? ",\n   " : "\n   ") + dump(train_record_to_json(r.log[i]), -1);
    item("log", log + (r.log.empty() ? "]" : "\n  ]"));
    std::string neg = "[";
    for (Index i = 0; i < r.negatives.rows(); ++i) {
        json row = json::array();
        for (Index j = 0; j < r.negatives.cols(); ++j) {
            if (!std::isfinite(r.negatives(i, j)))
                throw InputError(path + ".negatives holds a value that is not finite");
            row.push_back(r.negatives(i, j));
        }
        neg += (i ? ",\n   " : "\n   ") + dump(row, -1);
    }
    item("negatives", neg + (r.negatives.rows() == 0 ? "]" : "\n  ]"));
    out += "  \"model\": " + indented(model_text(r.model), "  ") + "\n }";
    return out;
}

}  // namespace

std::string session_to_json_text(const Session& s) {
    const json settings = settings_json(s.settings, "");
    std::string out = "{\n";
    out += " \"format\": \"" + std::string(kSessionFormat) + "\",\n";
    out += " \"version\": 1,\n";
    out += " \"view\": " + dump(json(s.view), -1) + ",\n";
    out += " \"settings\": " + indented(dump(settings, 1), " ") + ",\n";
    if (!s.views.empty()) {
        json views = json::object();
        for (const auto& [name, map] : s.views) views[name] = settings_json(map, "views." + name + ".");
        out += " \"views\": " + indented(dump(views, 1), " ") + ",\n";
    }
    if (s.samples_data) out += " \"samples_data\": " + dump(training_to_json(*s.samples_data), -1) + ",\n";
    if (!s.training_runs.empty()) {
        out += " \"training_runs\": [";
        for (std::size_t i = 0; i < s.training_runs.size(); ++i)
            out += (i ? ",\n " : "\n ") +
                   training_run_text(s.training_runs[i], "training_runs[" + std::to_string(i) + "]");
        out += "\n ],\n";
    }
    if (!s.build.empty()) out += " \"build\": " + dump(json::parse(s.build), -1) + ",\n";
    const std::string model = s.preset.empty() ? model_text(s.model) : dump(json(s.preset), -1);
    out += " \"model\": " + indented(model, " ") + "\n}\n";
    return out;
}

Session load_session(const std::filesystem::path& path) {
    const std::string origin = path.string();
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > kMaxSessionBytes)
        throw InputError(origin + ": file is " + std::to_string(size) +
                         " bytes, more than any session file may be (limit " + std::to_string(kMaxSessionBytes) + ")");
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
