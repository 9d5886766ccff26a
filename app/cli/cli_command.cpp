#include "cli_command.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "core/io/named_arrays.hpp"
#include "core/io/presets.hpp"
#include "core/io/result_source.hpp"
#include "core/numerics/memory_budget.hpp"
#include "suggest.hpp"

namespace rbm::cli {

std::map<std::string, Command>& commands() {
    static std::map<std::string, Command> c;
    return c;
}

std::vector<json>& model_sources() {
    static std::vector<json> s;
    return s;
}

namespace {
json model_shape(const Model& m) {
    return json{{"kind", kind_name(m.kind())}, {"n", m.n_visible()}, {"m", m.n_hidden()}};
}
}  // namespace

std::vector<Model>& in_memory_models() {
    thread_local std::vector<Model> models;
    return models;
}

std::vector<std::string>& load_warnings() {
    static std::vector<std::string> w;
    return w;
}

Args::Args(std::string command, std::vector<std::string> positional_names, std::vector<Option> options,
           std::string summary)
    : command_(std::move(command)), summary_(std::move(summary)), positional_names_(std::move(positional_names)),
      options_(std::move(options)) {
    // Every command loads or allocates something: the memory budget (core/numerics/memory_budget.hpp).
    options_.push_back(
        {"max-memory", "SIZE",
         "memory budget for what a file, a data spec or a run may allocate, e.g. 4G or 512M (default: a quarter "
         "of this machine's memory, from 1G to 2G; now " +
             bytes_text(static_cast<double>(memory_budget())) + ")"});
    // Every command reading a model file takes --map (docs/reference/model-files.md), declared here once.
    for (const auto& p : positional_names_)
        if (p == "MODEL" || p == "IN") {
            options_.push_back({"map", "NAME=ARRAY,...",
                                "which array of a .npz/.mat/.h5 file holds each model array, e.g. "
                                "W=vishid,b=visbiases,c=hidbiases"});
            break;
        }
}

Model Args::model(std::size_t i) const {
    const std::string& arg = positional(i);
    ModelLoadOptions options;
    if (auto m = get("map")) options.names = parse_array_map(*m);
    if (arg.rfind(kInMemoryPrefix, 0) == 0 && !in_memory_models().empty()) {
        std::size_t k = 0;
        const std::string digits = arg.substr(std::char_traits<char>::length(kInMemoryPrefix));
        auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), k);
        if (ec != std::errc() || p != digits.data() + digits.size() || digits.empty() || k >= in_memory_models().size())
            throw InputError("no in-memory model '" + arg + "'");
        if (options.names.size()) throw InputError("--map names arrays of a model file; '" + arg + "' is in memory");
        json source = model_shape(in_memory_models()[k]);
        source["in_memory"] = arg;
        model_sources().push_back(std::move(source));
        return in_memory_models()[k];
    }
    std::error_code ec;
    if (arg.rfind("preset:", 0) == 0 || !std::filesystem::exists(arg, ec)) {
        if (!options.names.empty()) {
            (void)resolve_model_argument(arg);  // says "no such file" first when it is neither
            throw InputError("--map names arrays of a model file; '" + arg + "' is a preset");
        }
        Model preset = resolve_model_argument(arg);
        json source = model_shape(preset);
        source["preset"] = arg;
        model_sources().push_back(std::move(source));
        return preset;
    }
    LoadedModel loaded = load_model_file(arg, options);
    // Parameters beyond what a double can hold in energies and sums (kMaxParameter) are refused
    // here, before any command computes with them, instead of coming out as Inf/NaN.
    try {
        require_computable(loaded.model);
    } catch (const InputError& e) {
        throw InputError(arg + ": " + e.what());
    }
    for (auto& w : loaded.warnings) load_warnings().push_back(arg + ": " + w);
    json source = model_shape(loaded.model);
    source["path"] = arg;
    source["fnv1a64"] = file_fnv1a64(arg);
    if (auto m = get("map")) source["map"] = *m;
    model_sources().push_back(std::move(source));
    return std::move(loaded.model);
}

void Args::parse(const std::vector<std::string>& argv) {
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a == "--help" || a == "-h") {
            help_ = true;
            return;
        }
        if (a.size() > 2 && a.rfind("--", 0) == 0) {
            std::string name = a.substr(2), value;
            bool inline_value = false;
            if (auto eq = name.find('='); eq != std::string::npos) {
                value = name.substr(eq + 1);
                name = name.substr(0, eq);
                inline_value = true;
            }
            const Option* opt = nullptr;
            for (const auto& o : options_)
                if (o.name == name) opt = &o;
            if (!opt) {
                std::vector<std::string> names;
                for (const auto& o : options_) names.push_back(o.name);
                const std::string hint = did_you_mean(name, names, "--");
                throw UnknownOption(command_ + ": unknown option --" + name + (hint.empty() ? " (see --help)" : hint),
                                    name, closest_match(name, names));
            }
            // One value per option: a second one would silently replace the first.
            if (values_.count(name)) throw InputError(command_ + ": --" + name + " is given twice; give it once");
            if (opt->value.empty()) {
                if (inline_value) throw InputError("--" + name + " takes no value");
                values_[name] = std::string(1, '1');  // not = "1": GCC 12 -Wrestrict false positive
            } else {
                if (!inline_value) {
                    if (i + 1 >= argv.size()) throw InputError("--" + name + " needs a value (" + opt->value + ")");
                    value = argv[++i];
                }
                values_[name] = value;
            }
        } else {
            positional_values_.push_back(a);
        }
    }
    if (auto m = get("max-memory")) {
        const std::uint64_t bytes = parse_memory_size(*m);
        if (bytes == 0)
            throw InputError("--max-memory expects a size of at least 1M such as 4G, 512M or 1.5G, got '" + *m + "'");
        set_memory_budget(bytes);
    }
    if (positional_values_.size() < positional_names_.size())
        throw InputError(command_ + ": missing " + positional_names_[positional_values_.size()] + " (see --help)");
    if (positional_values_.size() > positional_names_.size())
        throw InputError(command_ + ": unexpected argument '" + positional_values_[positional_names_.size()] + "'");
}

std::string Args::usage() const {
    std::ostringstream os;
    os << "usage: rbmscope-cli " << command_;
    for (const auto& p : positional_names_) os << ' ' << p;
    if (!options_.empty()) os << " [options]";
    os << "\n\n" << summary_ << "\n";
    if (!options_.empty()) {
        os << "\noptions:\n";
        for (const auto& o : options_) {
            std::string left = "  --" + o.name + (o.value.empty() ? "" : " " + o.value);
            if (left.size() < 30) left.resize(30, ' ');
            else left.append("\n").append(30, ' ');  // not "\n" + string: GCC 12 warns falsely (-Warray-bounds)
            os << left << o.help << "\n";
        }
    }
    return os.str();
}

bool Args::has(const std::string& name) const { return values_.count(name) > 0; }

std::string Args::get(const std::string& name, const std::string& fallback) const {
    auto it = values_.find(name);
    return it == values_.end() ? fallback : it->second;
}
std::optional<std::string> Args::get(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end()) return std::nullopt;
    return it->second;
}

namespace {
bool parse_ll(const std::string& s, long long& out) {
    const char* b = s.data();
    const char* e = b + s.size();
    auto [p, ec] = std::from_chars(b, e, out);
    return ec == std::errc() && p == e && !s.empty();
}
bool parse_double(const std::string& s, double& out) {
    if (s.empty()) return false;
    std::size_t pos = 0;
    try {
        out = std::stod(s, &pos);
    } catch (...) {
        return false;
    }
    return pos == s.size() && std::isfinite(out);
}
std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::string cur;
    for (char ch : s) {
        if (ch == ',') {
            out.push_back(cur);
            cur.clear();
        } else if (ch != ' ') {
            cur += ch;
        }
    }
    out.push_back(cur);
    return out;
}
}  // namespace

long long Args::get_int(const std::string& name, long long fallback, long long min_value, long long max_value) const {
    auto v = get(name);
    if (!v) return fallback;
    long long x;
    if (!parse_ll(*v, x) || x < min_value || x > max_value)
        throw InputError("--" + name + " expects an integer from " + std::to_string(min_value) + " to " +
                         std::to_string(max_value) + ", got '" + *v + "'");
    return x;
}

double Args::get_double(const std::string& name, double fallback) const {
    auto v = get(name);
    if (!v) return fallback;
    double x;
    if (!parse_double(*v, x)) throw InputError("--" + name + " expects a finite number, got '" + *v + "'");
    return x;
}

std::uint64_t Args::get_seed(const std::string& name, std::uint64_t fallback) const {
    auto v = get(name);
    if (!v) return fallback;
    std::uint64_t x;
    const char* b = v->data();
    auto [p, ec] = std::from_chars(b, b + v->size(), x);
    if (ec != std::errc() || p != b + v->size() || v->empty())
        throw InputError("--" + name + " expects a non-negative integer seed, got '" + *v + "'");
    return x;
}

std::vector<double> Args::get_doubles(const std::string& name) const {
    std::vector<double> out;
    auto v = get(name);
    if (!v) return out;
    for (const auto& part : split(*v)) {
        double x;
        if (!parse_double(part, x))
            throw InputError("--" + name + " expects a comma-separated list of numbers, got '" + part + "'");
        out.push_back(x);
    }
    return out;
}

std::vector<long long> Args::get_ints(const std::string& name, long long min_value) const {
    std::vector<long long> out;
    auto v = get(name);
    if (!v) return out;
    for (const auto& part : split(*v)) {
        long long x;
        if (!parse_ll(part, x) || x < min_value)
            throw InputError("--" + name + " expects a comma-separated list of integers >= " +
                             std::to_string(min_value) + ", got '" + part + "'");
        out.push_back(x);
    }
    return out;
}

std::string Args::get_choice(const std::string& name, const std::string& fallback,
                             const std::vector<std::string>& choices) const {
    const std::string v = get(name, fallback);
    for (const auto& c : choices)
        if (c == v) return v;
    std::string list;
    for (const auto& c : choices) list += (list.empty() ? "" : "|") + c;
    throw InputError("--" + name + " must be one of " + list + ", got '" + v + "'");
}

json to_json(const Vec& v) { return json(std::vector<double>(v.data(), v.data() + v.size())); }
json to_json(const Mat& m) {
    json rows = json::array();
    for (Index r = 0; r < m.rows(); ++r) {
        json row = json::array();
        for (Index c = 0; c < m.cols(); ++c) row.push_back(m(r, c));
        rows.push_back(row);
    }
    return rows;
}
json to_json(const RowMat& m) { return to_json(Mat(m)); }

}  // namespace rbm::cli
