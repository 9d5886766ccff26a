#include "core/io/named_arrays.hpp"

#include <algorithm>
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

}  // namespace

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
        // W must be n x m with b of length n and c of length m. A W stored m x n (MATLAB's
        // h5write, a framework's hidden-major layout) is decidable only when the biases say so;
        // a square W, or b and c of one length, is taken as stored.
        if (W.rows() != W.cols() && (ab || ac) && (!ab || b.size() == W.cols()) && (!ac || c.size() == W.rows())) {
            if (warnings)
                warnings->push_back("'W' was stored hidden x visible (" + std::to_string(W.rows()) + " x " +
                                    std::to_string(W.cols()) + ", i.e. m x n, by the lengths of " +
                                    (ab && ac ? "'b' and 'c'"
                                     : ab     ? "'b'"
                                              : "'c'") +
                                    "); transposed");
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
