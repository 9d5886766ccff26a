#include "core/io/sweep_checkpoint.hpp"

#include <cmath>
#include <limits>

#include "core/io/json_fields.hpp"
#include "core/io/json_text.hpp"

namespace rbm {

using nlohmann::json;

namespace {

constexpr const char* kCheckpointFormat = "rbmscope-ais-sweep-checkpoint";

// Doubles at full precision; JSON has no NaN or infinities, so those become strings.
json number_json(double x) {
    if (std::isfinite(x)) return x;
    return std::isnan(x) ? "nan" : x > 0 ? "inf" : "-inf";
}
double number_from(const json& j, const std::string& path) {
    if (j.is_number()) return j.get<double>();
    if (j.is_string()) {
        const std::string s = j.get<std::string>();
        if (s == "nan") return NAN;
        if (s == "inf") return INFINITY;
        if (s == "-inf") return -INFINITY;
    }
    json_fields::refuse(path, "a number or \"nan\", \"inf\", \"-inf\"", j);
}

json run_json(const SweepRunKey& k, const SweepRunResult& r) {
    json j{{"method", std::get<0>(k)},
           {"steps", std::get<1>(k)},
           {"repeat", std::get<2>(k)},
           {"path_name", r.path_name},
           {"log_z", number_json(r.log_z)},
           {"ci95_low", number_json(r.ci_low)},
           {"ci95_high", number_json(r.ci_high)},
           {"ess", number_json(r.ess)},
           {"ess_fraction", number_json(r.ess_fraction)},
           {"log_w_mean", number_json(r.log_w_mean)},
           {"seconds", number_json(r.seconds)}};
    j["log_z_upper"] = r.upper ? number_json(*r.upper) : json(nullptr);
    return j;
}

// A finished run's numbers are finite (require_computable keeps models whose arithmetic
// overflows out) and its ESS fraction lies in [0, 1]; a record that is not would be averaged
// into rows printed as null, or as a mean ESS fraction above 1, with exit 0.
void check_finished_run(const SweepRunResult& x, const std::string& p) {
    const std::pair<const char*, double> numbers[] = {{"log_z", x.log_z},
                                                      {"ci95_low", x.ci_low},
                                                      {"ci95_high", x.ci_high},
                                                      {"ess", x.ess},
                                                      {"ess_fraction", x.ess_fraction},
                                                      {"log_w_mean", x.log_w_mean},
                                                      {"seconds", x.seconds},
                                                      {"log_z_upper", x.upper.value_or(0.0)}};
    for (const auto& [key, v] : numbers)
        if (!std::isfinite(v))
            throw InputError(p + "." + key + " is " + number_json(v).get<std::string>() +
                             "; a finished run records a finite number (remove the run to have it computed again)");
    if (!(x.ess_fraction >= 0 && x.ess_fraction <= 1))
        throw InputError(p + ".ess_fraction must lie in [0, 1], got " + json(x.ess_fraction).dump());
    if (x.ess < 0) throw InputError(p + ".ess must be >= 0, got " + json(x.ess).dump());
    if (x.seconds < 0) throw InputError(p + ".seconds must be >= 0, got " + json(x.seconds).dump());
}

std::string shown(const json& v) {
    return v.is_null() ? std::string("(not given)") : v.is_string() ? v.get<std::string>() : json_fields::shown(v);
}

}  // namespace

std::string sweep_checkpoint_json(const SweepCheckpoint& c) {
    json runs = json::array();
    for (const auto& [k, r] : c.runs) runs.push_back(run_json(k, r));
    json j{{"format", kCheckpointFormat}, {"version", 1}, {"options", c.options}, {"runs", runs}};
    if (c.build.is_object()) j["build"] = c.build;
    return j.dump(1);
}

SweepCheckpoint sweep_checkpoint_from_json(const std::string& text, const json& options, const std::string& origin) {
    namespace f = json_fields;
    json j;
    try {
        json_text::check_depth(text);  // nlohmann's parser nests without bound
        j = json::parse(text);
    } catch (const InputError& e) {
        throw InputError(origin + ": " + e.what());
    } catch (const json::exception& e) {
        throw InputError(origin + ": not JSON (" + json_text::json_problem(e.what()) + ")");
    }
    if (!j.is_object() || j.value("format", json()) != kCheckpointFormat)
        throw InputError(origin + ": not an ais-sweep checkpoint (expected \"format\": \"" + kCheckpointFormat + "\")");
    if (j.value("version", json()) != 1) throw InputError(origin + ": unsupported checkpoint version (expected 1)");
    SweepCheckpoint c;
    try {
        c.options = f::array(f::member(j, "options", ""), "options");
        // Matched by name, not position: an option added to ais-sweep since the checkpoint was
        // written is absent there, which equals "not given" here.
        const auto value_in = [](const json& list, const json& name) {
            for (const json& o : list)
                if (o.is_object() && o.value("option", json()) == name) return o.value("value", json());
            return json();
        };
        for (const json& want : options) {
            const json want_value = want.value("value", json());
            const json had = value_in(c.options, want.value("option", json()));
            if (had != want_value)
                throw InputError(shown(want.value("option", json())) + " differs from the checkpoint's (" + shown(had) +
                                 " there, " + shown(want_value) + " here); resume with the same options");
        }
        for (const json& had : c.options) {
            if (!had.is_object() || !had.contains("option"))
                throw InputError("made by another version (options differ)");
            if (!had.value("value", json()).is_null() && value_in(options, had["option"]).is_null())
                throw InputError("made by another version (option " + shown(had["option"]) +
                                 " is not one of this version's)");
        }
        const json& runs = f::array(f::member(j, "runs", ""), "runs");
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const json& r = runs[i];
            const std::string p = f::at("runs", i);
            SweepRunResult x;
            x.path_name = f::string_at(r, "path_name", p);
            x.log_z = number_from(f::member(r, "log_z", p), p + ".log_z");
            x.ci_low = number_from(f::member(r, "ci95_low", p), p + ".ci95_low");
            x.ci_high = number_from(f::member(r, "ci95_high", p), p + ".ci95_high");
            x.ess = number_from(f::member(r, "ess", p), p + ".ess");
            x.ess_fraction = number_from(f::member(r, "ess_fraction", p), p + ".ess_fraction");
            x.log_w_mean = number_from(f::member(r, "log_w_mean", p), p + ".log_w_mean");
            x.seconds = number_from(f::member(r, "seconds", p), p + ".seconds");
            if (const json& u = f::member(r, "log_z_upper", p); !u.is_null())
                x.upper = number_from(u, p + ".log_z_upper");
            check_finished_run(x, p);
            // The ranges of the command line: K >= 1, repeat from 0 to 999 999.
            const SweepRunKey key{f::string_at(r, "method", p),
                                  f::integer_at(r, "steps", p, 1, std::numeric_limits<std::int64_t>::max()),
                                  static_cast<int>(f::integer_at(r, "repeat", p, 0, 999999))};
            if (!c.runs.emplace(key, x).second)
                throw InputError(p + " repeats run (" + std::get<0>(key) + ", K = " + std::to_string(std::get<1>(key)) +
                                 ", repeat " + std::to_string(std::get<2>(key)) + ")");
        }
    } catch (const json::exception& e) {
        throw InputError(origin + ": malformed checkpoint (" + json_text::json_problem(e.what()) + ")");
    } catch (const InputError& e) {
        throw InputError(origin + ": " + e.what());
    }
    if (const auto b = j.find("build"); b != j.end() && b->is_object()) c.build = *b;
    return c;
}

}  // namespace rbm
