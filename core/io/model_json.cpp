#include "core/io/model_json.hpp"

#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "core/io/input_context.hpp"
#include "core/io/json_text.hpp"
#include "core/io/model_io.hpp"
#include "core/io/training_json.hpp"

namespace rbm {

namespace {

using json_text::type_name;
using nlohmann::json;

// Kinds accepted in files, in the order the messages list them.
const char* const kKindList = "grbm, brbm, leaky or gaussian";

std::string size_text(double count) {
    std::ostringstream os;
    os.precision(15);
    os << count;
    return os.str();
}

void check_element_count(double count, const std::string& key) {
    if (count > static_cast<double>(kMaxFileElements))
        throw InputError("'" + key + "' has " + size_text(count) +
                         " elements, more than the limit 2^28 = " + std::to_string(kMaxFileElements));
}

// ---------------------------------------------------------------- JSON reading

// JSON has no NaN or Inf; tools that have them write null instead.
double number_at(const json& v, const std::string& where) {
    if (v.is_number()) return v.get<double>();
    if (v.is_null())
        throw InputError(where +
                         " is null, i.e. a non-finite value (NaN or Inf written as null); expected a finite number");
    throw InputError(where + " must be a number, got " + type_name(v));
}

Vec vector_of(const json& j, const std::string& key) {
    if (!j.is_array()) throw InputError("'" + key + "' must be an array of numbers, got " + type_name(j));
    check_element_count(static_cast<double>(j.size()), key);
    Vec v(static_cast<Index>(j.size()));
    for (std::size_t i = 0; i < j.size(); ++i)
        v(static_cast<Index>(i)) = number_at(j[i], "'" + key + "'[" + std::to_string(i) + "]");
    return v;
}

Mat matrix_of(const json& j, const std::string& key) {
    const std::string expected = "'" + key + "' must be an array of rows of numbers";
    if (!j.is_array()) throw InputError(expected + ", got " + type_name(j));
    const std::size_t rows = j.size();
    std::size_t cols = 0;
    for (std::size_t r = 0; r < rows; ++r) {
        if (!j[r].is_array()) throw InputError(expected + ", but row " + std::to_string(r) + " is " + type_name(j[r]));
        if (r == 0) cols = j[r].size();
        if (j[r].size() != cols)
            throw InputError("'" + key + "' row " + std::to_string(r) + " has " + std::to_string(j[r].size()) +
                             " numbers, expected " + std::to_string(cols) + " like row 0");
    }
    check_element_count(static_cast<double>(rows) * static_cast<double>(cols), key);
    Mat m(static_cast<Index>(rows), static_cast<Index>(cols));
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c)
            m(static_cast<Index>(r), static_cast<Index>(c)) =
                number_at(j[r][c], "'" + key + "' row " + std::to_string(r) + ", column " + std::to_string(c));
    return m;
}

const json* find(const json& obj, const char* key) {
    const auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
}

const json& require(const json& obj, const char* key, const std::string& kind, const std::string& shape) {
    const json* v = find(obj, key);
    if (!v)
        throw InputError(std::string("'") + key + "' is missing: a " + kind + " model needs '" + key + "' (" + shape +
                         ")");
    return *v;
}

std::string string_of(const json& obj, const char* key) {
    const json* v = find(obj, key);
    if (!v) return {};
    if (!v->is_string()) throw InputError(std::string("'") + key + "' must be a string, got " + type_name(*v));
    return v->get<std::string>();
}

Model model_from_json_object(const json& obj, bool nested) {
    if (!obj.is_object()) throw InputError("expected a JSON object with the model's keys, got " + type_name(obj));
    if (const json* f = find(obj, "format"); f && !(f->is_string() && f->get<std::string>() == "rbmscope-model"))
        throw InputError("'format' is " + (f->is_string() ? "'" + f->get<std::string>() + "'" : type_name(*f)) +
                         ", expected \"rbmscope-model\"");
    if (const json* v = find(obj, "version"); v && !(v->is_number() && v->get<double>() == 1.0))
        throw InputError("'version' is " + (v->is_number() ? v->dump() : type_name(*v)) +
                         ", this program reads version 1");
    const json* k = find(obj, "kind");
    if (!k) throw InputError(std::string("'kind' is missing (expected ") + kKindList + ")");
    if (!k->is_string())
        throw InputError(std::string("'kind' must be a string (") + kKindList + "), got " + type_name(*k));
    const std::string kind = k->get<std::string>();

    Model model;
    model.name = string_of(obj, "name");
    model.notes = string_of(obj, "notes");
    const ModelKind mk = parse_model_kind(kind);
    switch (mk) {
        case ModelKind::Gaussian: {
            Gaussian g;
            g.mean = vector_of(require(obj, "mean", kind, "[n]"), "mean");
            g.cov = matrix_of(require(obj, "cov", kind, "[[n x n]]"), "cov");
            model.params = std::move(g);
            break;
        }
        default: {
            RbmArrays a;
            a.W = matrix_of(require(obj, "W", kind, "n rows of m numbers"), "W");
            // "b" and "c" are optional and default to zeros (docs/reference/model-files.md lists them, many
            // exported models leave a zero bias out).
            if (const json* jb = find(obj, "b")) a.b = vector_of(*jb, "b");
            if (const json* jc = find(obj, "c")) a.c = vector_of(*jc, "c");
            if (mk == ModelKind::Leaky) {
                if (const json* jl = find(obj, "leakiness")) {
                    if (!jl->is_number())
                        throw InputError("'leakiness' must be a number in (0, 1], got " + type_name(*jl));
                    a.leakiness = jl->get<double>();
                }
            } else if (mk == ModelKind::Grbm) {
                if (const json* js = find(obj, "sigma")) a.sigma = vector_of(*js, "sigma");
                if (const json* jh = find(obj, "hidden_values")) a.hidden_values = vector_of(*jh, "hidden_values");
            }
            model.params = rbm_params(mk, std::move(a));
        }
    }
    if (const json* a = find(obj, "anneal_from")) {
        if (nested) throw InputError("'anneal_from' cannot itself have an 'anneal_from'");
        if (!a->is_object())
            throw InputError("'anneal_from' must be a model object (like the file itself), got " + type_name(*a));
        model.anneal_from = std::make_shared<const Model>(
            with_context("in 'anneal_from': ", [&] { return model_from_json_object(*a, true); }));
    }
    if (const json* t = find(obj, "training"); t && !nested) model.training = training_from_json(*t, model.n_visible());
    return model;
}

// ---------------------------------------------------------------- JSON writing

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json vec_json(const Vec& v) { return json(std::vector<double>(v.data(), v.data() + v.size())); }

// One key per line and one matrix row per line: readable, and numbers are printed with the
// shortest text that reads back to the same double.
void write_object(std::string& out, const Model& m, const std::string& indent) {
    std::vector<std::pair<std::string, std::string>> items;
    const std::string inner = indent + " ";
    auto matrix = [&](const Mat& W) {
        std::string s = "[";
        for (Index r = 0; r < W.rows(); ++r) {
            const Vec row = W.row(r).transpose();
            s += (r ? ",\n" : "\n") + inner + " " + dump(vec_json(row));
        }
        return s + (W.rows() ? "\n" + inner : "") + "]";
    };
    items.emplace_back("format", dump("rbmscope-model"));
    items.emplace_back("version", "1");
    items.emplace_back("kind", dump(kind_name(m.kind())));
    if (!m.name.empty()) items.emplace_back("name", dump(m.name));
    if (!m.notes.empty()) items.emplace_back("notes", dump(m.notes));
    std::visit(
        [&](const auto& p) {
            using T = std::decay_t<decltype(p)>;
            if constexpr (std::is_same_v<T, Gaussian>) {
                items.emplace_back("mean", dump(vec_json(p.mean)));
                items.emplace_back("cov", matrix(p.cov));
            } else {
                items.emplace_back("W", matrix(p.W));
                items.emplace_back("b", dump(vec_json(p.b)));
                items.emplace_back("c", dump(vec_json(p.c)));
                if constexpr (std::is_same_v<T, Grbm>) {
                    items.emplace_back("sigma", dump(vec_json(p.sigma)));
                    items.emplace_back("hidden_values", dump(json(p.hidden_values)));
                }
                if constexpr (std::is_same_v<T, Leaky>) items.emplace_back("leakiness", dump(json(p.leakiness)));
            }
        },
        m.params);
    if (m.anneal_from) {
        std::string nested;
        write_object(nested, *m.anneal_from, inner);
        items.emplace_back("anneal_from", nested);
    }
    if (m.training) items.emplace_back("training", dump(training_to_json(*m.training)));
    out += "{\n";
    for (std::size_t i = 0; i < items.size(); ++i)
        out += inner + dump(items[i].first) + ": " + items[i].second + (i + 1 < items.size() ? ",\n" : "\n");
    out += indent + "}";
}

}  // namespace

ModelKind parse_model_kind(const std::string& s) {
    if (s == "grbm") return ModelKind::Grbm;
    if (s == "brbm") return ModelKind::Brbm;
    if (s == "leaky") return ModelKind::Leaky;
    if (s == "gaussian") return ModelKind::Gaussian;
    throw InputError("unknown kind '" + s + "' (expected " + kKindList + ")");
}

void validate_model_file(const Model& m) {
    validate(m);
    if (m.anneal_from) {
        if (m.anneal_from->anneal_from) throw InputError("'anneal_from' cannot itself have an 'anneal_from'");
        with_context("in 'anneal_from': ", [&] { validate(*m.anneal_from); });
        if (m.anneal_from->n_visible() != m.n_visible())
            throw InputError("'anneal_from' has " + std::to_string(m.anneal_from->n_visible()) +
                             " visible dimensions, the model has " + std::to_string(m.n_visible()) +
                             "; annealing needs the same space");
    }
}

Model model_from_json_text(const std::string& text, const std::string& origin) {
    return with_context(origin + ": ", [&] {
        // Keys a model file may hold (docs/reference/model-files.md); others are skipped unread.
        static const std::vector<std::string> known{"format", "version",       "kind",      "name",        "notes",
                                                    "mean",   "cov",           "W",         "b",           "c",
                                                    "sigma",  "hidden_values", "leakiness", "anneal_from", "training"};
        const json j = json_text::parse(text, "a model's numbers must be finite", &known);
        if (!j.is_object())
            throw InputError("expected a JSON object {\"kind\": ..., \"W\": ...} at the top level, got " +
                             type_name(j));
        Model m = model_from_json_object(j, false);
        validate_model_file(m);
        return m;
    });
}

std::string model_to_json_text(const Model& model) {
    std::string out;
    write_object(out, model, "");
    return out + "\n";
}

}  // namespace rbm
