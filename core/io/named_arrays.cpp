#include "core/io/named_arrays.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "core/io/model_io.hpp"

namespace rbm {

namespace {

template <class F>
auto with_prefix(const std::string& prefix, F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const InputError& e) {
        throw InputError(prefix + e.what());
    }
}

std::string shape_of(const NpyArray& a) { return array_shape_text(a.shape); }

void require_numeric(const NpyArray& a, const std::string& key) {
    if (a.is_string) throw InputError("'" + key + "' must hold numbers, got a string array");
}

Mat matrix_of(const NpyArray& a, const std::string& key) {
    require_numeric(a, key);
    if (a.shape.size() != 2)
        throw InputError("'" + key + "' must be a 2-D array (rows x columns), got shape " + shape_of(a));
    // Before anything is sized from it: an empty (0, 10^8) W would make 10^8 default biases.
    if (a.shape[0] == 0 || a.shape[1] == 0)
        throw InputError("'" + key + "' has shape " + shape_of(a) + ": it has no " +
                         (a.shape[0] == 0 ? "rows" : "columns"));
    Mat m(a.shape[0], a.shape[1]);
    for (Index r = 0; r < m.rows(); ++r)
        for (Index c = 0; c < m.cols(); ++c) m(r, c) = a.data[static_cast<std::size_t>(r * m.cols() + c)];
    return m;
}

Vec vector_of(const NpyArray& a, const std::string& key, bool matlab) {
    require_numeric(a, key);
    // A MATLAB vector is 1 x n or n x 1 (Hinton's code keeps biases as 1 x n rows).
    const bool ok =
        a.shape.size() == 1 || (matlab && a.shape.size() == 2 && (a.shape[0] == 1 || a.shape[1] == 1) && a.size() > 0);
    if (!ok)
        throw InputError("'" + key + "' must be a " + (matlab ? "vector (1 x n or n x 1)" : "1-D array") +
                         ", got shape " + shape_of(a));
    return Eigen::Map<const Vec>(a.data.data(), static_cast<Index>(a.data.size()));
}

double scalar_of(const NpyArray& a, const std::string& key, bool matlab) {
    require_numeric(a, key);
    if (a.size() != 1 || (!matlab && a.shape.size() > 1))
        throw InputError("'" + key + "' must be a single number (a 0-d array), got shape " + shape_of(a));
    return a.data[0];
}

std::string string_of(const NpyArray& a, const std::string& key) {
    if (!a.is_string || a.strings.size() != 1 || a.shape.size() > 1)
        throw InputError("'" + key + "' must be a string (a 0-d or 1-element '<U' array), got " +
                         (a.is_string ? "shape " + shape_of(a) : std::string("numbers")));
    return a.strings[0];
}

std::string transposed_warning(Index rows, Index cols, bool has_b, bool has_c) {
    return "'W' was stored hidden x visible (" + std::to_string(rows) + " x " + std::to_string(cols) +
           ", i.e. m x n, by the lengths of " +
           (has_b && has_c ? "'b' and 'c'"
            : has_b        ? "'b'"
                           : "'c'") +
           "); transposed";
}

// A listed array as a vector: 1-D, or in MATLAB 1 x n / n x 1. -1 when it is not one.
Index listed_vector_length(const ArrayInfo& a, bool matlab) {
    if (a.shape.size() == 1) return a.shape[0];
    if (matlab && a.shape.size() == 2 && (a.shape[0] == 1 || a.shape[1] == 1)) return a.shape[0] * a.shape[1];
    return -1;
}

bool numeric_type(const ArrayInfo& a) { return a.type != "char" && a.type != "cell" && a.type != "string"; }

// +1 for a name that says visible (vbias, visbiases, v_bias, bv), -1 for hidden, 0 for neither or both.
int side_hint(std::string name) {
    for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const auto says = [&](char letter, const char* word) {
        return name.find(word) != std::string::npos || name.front() == letter || name.back() == letter;
    };
    if (name.empty()) return 0;
    const bool v = says('v', "vis"), h = says('h', "hid");
    return v == h ? 0 : v ? 1 : -1;
}

}  // namespace

bool w_stored_transposed(Index rows, Index cols, Index b_length, Index c_length) {
    return rows != cols && (b_length >= 0 || c_length >= 0) && (b_length < 0 || b_length == cols) &&
           (c_length < 0 || c_length == rows);
}

ArrayNameMap guess_array_map(const std::vector<ArrayInfo>& arrays, bool matlab_shapes) {
    std::vector<std::string> available;
    for (const auto& a : arrays) available.push_back(a.name);
    ArrayNameMap out = choose_arrays(available, {}, true);
    const auto taken = [&](const std::string& name) {
        return std::any_of(out.begin(), out.end(), [&](const auto& kv) { return kv.second == name; });
    };
    if (!out.count("W")) {
        const ArrayInfo* only = nullptr;
        int count = 0;
        for (const auto& a : arrays)
            if (a.shape.size() == 2 && a.shape[0] > 1 && a.shape[1] > 1 && numeric_type(a) && !taken(a.name)) {
                only = &a;
                ++count;
            }
        if (count == 1) out["W"] = only->name;
    }
    const auto w = std::find_if(arrays.begin(), arrays.end(),
                                [&](const ArrayInfo& a) { return out.count("W") && a.name == out.at("W"); });
    if (w == arrays.end() || w->shape.size() != 2) return out;
    for (const auto& [key, hint] : {std::pair<std::string, int>{"b", 1}, {"c", -1}}) {
        if (out.count(key)) continue;
        const ArrayInfo* pick = nullptr;
        int count = 0;
        for (const auto& a : arrays) {
            const Index len = listed_vector_length(a, matlab_shapes);
            if (taken(a.name) || !numeric_type(a) || (len != w->shape[0] && len != w->shape[1])) continue;
            if (side_hint(a.name) == hint) {
                pick = &a;
                ++count;
            }
        }
        if (count == 1) out[key] = pick->name;
    }
    return out;
}

ArrayMapCheck check_array_map(const std::vector<ArrayInfo>& arrays, const ArrayNameMap& names, bool matlab_shapes) {
    ArrayMapCheck out;
    const auto find = [&](const char* key) -> const ArrayInfo* {
        const auto it = names.find(key);
        if (it == names.end()) return nullptr;
        for (const auto& a : arrays)
            if (a.name == it->second) return &a;
        return nullptr;
    };
    const ArrayInfo* w = find("W");
    if (!w) {
        out.error = "no array is chosen for W";
        return out;
    }
    if (w->shape.size() != 2 || w->shape[0] == 0 || w->shape[1] == 0 || !numeric_type(*w)) {
        out.error = "W ('" + w->name + "', shape " + array_shape_text(w->shape) + ") is not a matrix of numbers";
        return out;
    }
    Index len[3] = {-1, -1, -1};
    const char* keys[3] = {"b", "c", "sigma"};
    for (int k = 0; k < 3; ++k) {
        const ArrayInfo* a = find(keys[k]);
        if (!a) continue;
        len[k] = listed_vector_length(*a, matlab_shapes);
        if (len[k] < 0 || !numeric_type(*a)) {
            out.error = std::string(keys[k]) + " ('" + a->name + "', shape " + array_shape_text(a->shape) +
                        ") is not a vector of numbers";
            return out;
        }
    }
    const Index rows = w->shape[0], cols = w->shape[1];
    out.transposed = w_stored_transposed(rows, cols, len[0], len[1]);
    out.n = out.transposed ? cols : rows;
    out.m = out.transposed ? rows : cols;
    if (out.transposed) out.warnings.push_back(transposed_warning(rows, cols, len[0] >= 0, len[1] >= 0));
    const Index want[3] = {out.n, out.m, out.n};
    const char* side[3] = {"n (visible)", "m (hidden)", "n (visible)"};
    for (int k = 0; k < 3; ++k)
        if (len[k] >= 0 && len[k] != want[k]) {
            out.error = std::string(keys[k]) + " ('" + names.at(keys[k]) + "') has length " + std::to_string(len[k]) +
                        ", but W ('" + w->name + "', " + std::to_string(rows) + " x " + std::to_string(cols) +
                        ") makes " + side[k] + " = " + std::to_string(want[k]);
            return out;
        }
    return out;
}

const std::vector<std::string>& mappable_keys() {
    static const std::vector<std::string> keys = {"W",    "b",    "c",   "sigma", "hidden_values", "leakiness",
                                                  "kind", "mean", "cov", "name",  "notes"};
    return keys;
}

ArrayNameMap parse_array_map(const std::string& text) {
    ArrayNameMap out;
    std::string list;
    for (const auto& k : mappable_keys()) list += (list.empty() ? "" : ", ") + k;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        const auto eq = item.find('=');
        if (eq == std::string::npos)
            throw InputError("--map: '" + item + "' is not NAME=ARRAY (e.g. --map W=vishid,b=visbiases,c=hidbiases)");
        const std::string key = item.substr(0, eq), name = item.substr(eq + 1);
        if (std::find(mappable_keys().begin(), mappable_keys().end(), key) == mappable_keys().end())
            throw InputError("--map: unknown model name '" + key + "' (expected one of " + list + ")");
        if (name.empty()) throw InputError("--map: '" + key + "=' names no array");
        if (!out.emplace(key, name).second) throw InputError("--map: '" + key + "' is mapped twice");
    }
    if (out.empty()) throw InputError("--map: expected NAME=ARRAY pairs (e.g. --map W=vishid,b=visbiases,c=hidbiases)");
    return out;
}

ArrayNameMap choose_arrays(const std::vector<std::string>& available, const ModelLoadOptions& options,
                           bool hinton_names) {
    auto has = [&](const std::string& n) {
        return std::find(available.begin(), available.end(), n) != available.end();
    };
    ArrayNameMap chosen;
    for (const auto& [key, name] : options.names) {
        if (!has(name)) {
            std::string list;
            for (const auto& a : available) list += (list.empty() ? "'" : ", '") + a + "'";
            throw InputError("--map " + key + "=" + name + ": the file has no array '" + name + "' (it has " +
                             (list.empty() ? std::string("none") : list) + ")");
        }
        chosen[key] = name;
    }
    static const std::pair<const char*, const char*> kHinton[] = {
        {"W", "vishid"}, {"b", "visbiases"}, {"c", "hidbiases"}};
    for (const auto& key : mappable_keys()) {
        if (chosen.count(key)) continue;
        if (has(key)) {
            chosen[key] = key;
            continue;
        }
        if (hinton_names)
            for (const auto& [k, alias] : kHinton)
                if (key == k && has(alias)) chosen[key] = alias;
    }
    return chosen;
}

std::string array_shape_text(const std::vector<std::int64_t>& shape) {
    std::string s = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + (shape.size() == 1 ? ",)" : ")");
}

void check_declared_shape(const std::vector<std::int64_t>& shape, const std::string& what) {
    if (shape.size() > 2)
        throw InputError(what + " has " + std::to_string(shape.size()) + " dimensions (shape " +
                         array_shape_text(shape) + "); model arrays have at most 2");
    double count = 1;
    for (auto d : shape) {
        if (d < 0 || d > kMaxFileElements)
            throw InputError(what + " has shape " + array_shape_text(shape) + ", a dimension of " + std::to_string(d) +
                             ", more than the limit 2^28 = " + std::to_string(kMaxFileElements));
        count *= static_cast<double>(d);
    }
    if (count > static_cast<double>(kMaxFileElements)) {
        std::ostringstream os;
        os.precision(15);
        os << what << " has shape " << array_shape_text(shape) << ", " << count
           << " elements, more than the limit 2^28 = " << kMaxFileElements;
        throw InputError(os.str());
    }
}

Model model_from_named_arrays(const NamedArrays& named, const std::string& prefix, std::vector<std::string>* warnings) {
    const auto& arrays = named.arrays;
    const bool matlab = named.matlab_shapes;
    auto get = [&](const char* key) -> const NpyArray* {
        const auto it = arrays.find(prefix + key);
        return it == arrays.end() ? nullptr : &it->second;
    };
    std::string kind;
    if (const NpyArray* k = get("kind")) {
        kind = string_of(*k, "kind");
    } else if (get("mean") || get("cov")) {
        kind = "gaussian";
    } else if (get("leakiness")) {
        if (get("sigma") || get("hidden_values"))
            throw InputError(
                "no 'kind' array, and 'leakiness' together with 'sigma'/'hidden_values' cannot tell "
                "a leaky RBM from a GRBM; add kind.npy");
        kind = "leaky";
    } else {
        kind = get("sigma") || get("hidden_values") ? "grbm" : "brbm";
    }
    const ModelKind mk = parse_model_kind(kind);
    Model model;
    if (const NpyArray* a = get("name")) model.name = string_of(*a, "name");
    if (const NpyArray* a = get("notes")) model.notes = string_of(*a, "notes");
    auto need = [&](const char* key) -> const NpyArray& {
        const NpyArray* a = get(key);
        if (a) return *a;
        if (named.format == "npz")
            throw InputError(std::string("no '") + key + "' array (" + prefix + key + ".npy): a " + kind +
                             " model needs it");
        const std::string k = key;
        const std::string alias = k == "W" ? " (nor 'vishid')" : "";
        throw InputError("no '" + k + "' " + (named.format == "h5" ? "dataset" : "variable") + alias + ": a " + kind +
                         " model needs it; name the array that holds it with --map " + k + "=NAME");
    };
    if (mk == ModelKind::Gaussian) {
        model.params = Gaussian{vector_of(need("mean"), "mean", matlab), matrix_of(need("cov"), "cov")};
    } else {
        Mat W = matrix_of(need("W"), "W");
        const NpyArray* ab = get("b");
        const NpyArray* ac = get("c");
        const Vec b = ab ? vector_of(*ab, "b", matlab) : Vec();
        const Vec c = ac ? vector_of(*ac, "c", matlab) : Vec();
        // W must be n x m with b of length n and c of length m; MATLAB's h5write and a
        // framework's hidden-major layout store it m x n.
        if (w_stored_transposed(W.rows(), W.cols(), ab ? b.size() : -1, ac ? c.size() : -1)) {
            if (warnings) warnings->push_back(transposed_warning(W.rows(), W.cols(), ab, ac));
            W = Mat(W.transpose());
        }
        RbmArrays arrays;
        arrays.W = std::move(W);
        if (ab) arrays.b = b;
        if (ac) arrays.c = c;
        if (mk == ModelKind::Leaky) {
            if (const NpyArray* a = get("leakiness")) arrays.leakiness = scalar_of(*a, "leakiness", matlab);
        } else if (mk == ModelKind::Grbm) {
            if (const NpyArray* a = get("sigma")) arrays.sigma = vector_of(*a, "sigma", matlab);
            if (const NpyArray* a = get("hidden_values")) arrays.hidden_values = vector_of(*a, "hidden_values", matlab);
        }
        model.params = rbm_params(mk, std::move(arrays));
    }
    if (prefix.empty()) {
        const bool has_nested = std::any_of(arrays.begin(), arrays.end(),
                                            [](const auto& kv) { return kv.first.rfind(kNestedPrefix, 0) == 0; });
        if (has_nested)
            model.anneal_from = std::make_shared<const Model>(with_prefix(
                "in 'anneal_from': ", [&] { return model_from_named_arrays(named, kNestedPrefix, warnings); }));
    }
    return model;
}

}  // namespace rbm
