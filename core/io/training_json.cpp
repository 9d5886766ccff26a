#include "core/io/training_json.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

namespace rbm {

namespace {

using nlohmann::json;

json vec_json(const Vec& v) { return json(std::vector<double>(v.data(), v.data() + v.size())); }

[[noreturn]] void refuse(const std::string& key, const std::string& expected, const json& got) {
    std::string shown = got.dump(-1, ' ', false, json::error_handler_t::replace);
    if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
    throw InputError("'" + key + "' must be " + expected + ", got " + shown);
}

// A key that is absent or null (the writer puts null for "not applied").
const json* find_present(const json& obj, const char* key) {
    const auto it = obj.find(key);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
}

bool flag(const json& obj, const char* key, const std::string& path) {
    const json* v = find_present(obj, key);
    if (!v) return false;
    if (!v->is_boolean()) refuse(path + "." + key, "true or false", *v);
    return v->get<bool>();
}

Vec unit_values(const json& j, const std::string& key, Index n, bool positive) {
    const std::string want = "an array of " + std::to_string(n) +
                             (positive ? " finite numbers > 0" : " finite numbers") + " (one per visible unit)";
    if (!j.is_array() || j.size() != static_cast<std::size_t>(n)) refuse(key, want, j);
    Vec v(n);
    for (Index i = 0; i < n; ++i) {
        const json& x = j[static_cast<std::size_t>(i)];
        if (!x.is_number() || !std::isfinite(x.get<double>()) || (positive && !(x.get<double>() > 0)))
            refuse(key, want, j);
        v(i) = x.get<double>();
    }
    return v;
}

}  // namespace

json training_to_json(const TrainingData& t) {
    json pre = json::object();
    pre["limit"] = t.limit > 0 ? json(t.limit) : json(nullptr);
    pre["shifts"] = t.shifts;
    pre["binarize"] = t.binarize ? json(*t.binarize) : json(nullptr);
    pre["scale"] = t.scale;
    pre["standardize"] = t.standardize && t.standardize_mean.size() > 0
                             ? json{{"mean", vec_json(t.standardize_mean)}, {"sd", vec_json(t.standardize_sd)}}
                             : json(nullptr);
    json j = json::object();
    j["data"] = t.data;
    if (t.csv_header != TrainingData::CsvHeader::Auto || t.csv_label != -1) {
        const char* header = t.csv_header == TrainingData::CsvHeader::Yes  ? "yes"
                             : t.csv_header == TrainingData::CsvHeader::No ? "no"
                                                                           : "auto";
        j["csv"] = {{"header", header},
                    {"label", t.csv_label == -1   ? json(nullptr)
                              : t.csv_label == -2 ? json("last")
                                                  : json(t.csv_label + 1)}};
    }
    j["preprocessing"] = pre;
    return j;
}

TrainingData training_from_json(const json& j, Index n_visible) {
    if (!j.is_object()) refuse("training", "an object {\"data\": SPEC, \"preprocessing\": {...}}", j);
    TrainingData t;
    const json* d = find_present(j, "data");
    if (!d)
        throw InputError(
            "'training.data' is missing: the data spec the model was trained on (\"digits\", \"bars:4\", a file)");
    if (!d->is_string() || d->get<std::string>().empty())
        refuse("training.data", "a non-empty string (a data spec or path)", *d);
    t.data = d->get<std::string>();
    if (const json* csv = find_present(j, "csv")) {
        if (!csv->is_object()) refuse("training.csv", "an object {\"header\": ..., \"label\": ...}", *csv);
        if (const json* h = find_present(*csv, "header")) {
            const std::string s = h->is_string() ? h->get<std::string>() : "";
            if (s != "auto" && s != "yes" && s != "no")
                refuse("training.csv.header", "\"auto\", \"yes\" or \"no\"", *h);
            t.csv_header = s == "yes"  ? TrainingData::CsvHeader::Yes
                           : s == "no" ? TrainingData::CsvHeader::No
                                       : TrainingData::CsvHeader::Auto;
        }
        if (const json* l = find_present(*csv, "label")) {
            if (l->is_string() && l->get<std::string>() == "last") t.csv_label = -2;
            else if (l->is_number_integer() && l->get<std::int64_t>() >= 1 && l->get<std::int64_t>() <= (1 << 20))
                t.csv_label = static_cast<int>(l->get<std::int64_t>()) - 1;
            else refuse("training.csv.label", "null, \"last\" or a column number from 1 to 1048576", *l);
        }
    }
    const json* p = find_present(j, "preprocessing");
    if (!p) return t;
    if (!p->is_object())
        refuse("training.preprocessing", "an object (limit, shifts, binarize, scale, standardize)", *p);
    const std::string path = "training.preprocessing";
    if (const json* l = find_present(*p, "limit")) {
        if (!l->is_number_integer() || l->get<std::int64_t>() < 1)
            refuse(path + ".limit", "null or an integer >= 1", *l);
        t.limit = static_cast<Index>(l->get<std::int64_t>());
    }
    t.shifts = flag(*p, "shifts", path);
    if (const json* b = find_present(*p, "binarize")) {
        if (!b->is_number() || !(b->get<double>() > 0 && b->get<double>() <= 1))
            refuse(path + ".binarize", "null or a threshold in (0, 1] (a fraction of the format's largest value)", *b);
        t.binarize = b->get<double>();
    }
    t.scale = flag(*p, "scale", path);
    if (const json* s = find_present(*p, "standardize")) {
        if (!s->is_object()) refuse(path + ".standardize", "null or an object {\"mean\": [n], \"sd\": [n]}", *s);
        const json* mean = find_present(*s, "mean");
        const json* sd = find_present(*s, "sd");
        if (!mean) throw InputError("'" + path + ".standardize.mean' is missing (one mean per visible unit)");
        if (!sd) throw InputError("'" + path + ".standardize.sd' is missing (one standard deviation per visible unit)");
        t.standardize = true;
        t.standardize_mean = unit_values(*mean, path + ".standardize.mean", n_visible, false);
        t.standardize_sd = unit_values(*sd, path + ".standardize.sd", n_visible, true);
    }
    const int transforms = (t.binarize ? 1 : 0) + (t.scale ? 1 : 0) + (t.standardize ? 1 : 0);
    if (transforms > 1)
        throw InputError("'" + path +
                         "' applies more than one of binarize, scale and standardize; train applies one at most");
    return t;
}

}  // namespace rbm
