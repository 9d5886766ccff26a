#include "core/io/result_file.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <new>

#include "core/io/json_fields.hpp"
#include "core/io/json_text.hpp"
#include "core/io/model_io.hpp"

namespace rbm {
namespace result_reading {  // named, not anonymous: the core is built as unity batches

using nlohmann::json;
namespace jf = json_fields;

// Bounded previews of what the app shows (laying out a 60 KB path_name took it 26 s and 2.66 GB):
// names keep kResultNameBytes, texts kResultTextBytes, cut at a UTF-8 character boundary.
std::string preview(std::string s, std::size_t limit) {
    if (s.size() <= limit) return s;
    std::size_t cut = limit;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    const std::size_t more = s.size() - cut;
    s.resize(cut);
    return s + "\u2026 (" + std::to_string(more) + " more bytes)";
}
std::string name_at(const json& j, const char* key, const std::string& p) {
    return preview(jf::string_at(j, key, p), kResultNameBytes);
}
// A file path the app opens: never cut (the file would not be found), refused when no file can have it.
std::string file_path_at(const json& j, const char* key, const std::string& p) {
    std::string s = jf::string_at(j, key, p);
    if (s.size() > 4096)
        throw InputError(jf::join(p, key) + " is a path of " + std::to_string(s.size()) +
                         " bytes; a file path holds at most 4096");
    return s;
}

// The top-level keys any result reader below uses; the others (log weights, trajectories) are
// skipped unbuilt by the parser.
const std::vector<std::string>& known_keys() {
    static const std::vector<std::string> k{
        "argv", "command_line", "model_file", "warnings", "complete", "format", "build",
        // ais
        "log_z", "log_z_low", "log_z_high", "ci95", "ess", "ess_fraction", "log_w_mean", "log_w_var", "log_z0",
        "exact_log_z", "path", "path_name", "base", "kernel", "schedule", "steps", "chains", "seed", "perfect", "notes",
        "beta_reached", "steps_done", "cost_functional", "histogram", "running", "seconds", "reverse", "phase",
        // ais-sweep
        "repeats", "results",
        // pt
        "scheme", "kind", "family", "sweeps", "betas", "swap_acceptance", "rejection", "swaps_proposed",
        "swaps_accepted", "round_trips", "restarts", "round_trips_per_replica", "restarts_per_replica",
        "round_trip_rate", "predicted_round_trip_rate", "prediction", "barrier", "local_barrier", "scans_done",
        "lifted_round_trips",
        // meanfield
        "type", "method", "free_energy", "free_energy_is_bound", "mean_v", "mean_h", "var_v", "iterations", "converged",
        "residual", "fixed_points", "trace", "exact",
        // train
        "status", "model", "hidden", "visible", "data", "updates", "log"};
    return k;
}

// A number that may be written as null (nlohmann prints NaN so) or be absent: nullopt then.
std::optional<double> optional_number(const json& o, const std::string& key, const std::string& path) {
    const auto it = o.find(key);
    if (it == o.end() || it->is_null()) return std::nullopt;
    return jf::number(*it, jf::join(path, key));
}

std::vector<double> numbers(const json& j, const std::string& path) {
    jf::array(j, path);
    if (j.size() > kMaxResultArray)
        throw InputError(path + " has " + std::to_string(j.size()) + " entries, more than a result may hold (" +
                         std::to_string(kMaxResultArray) + ")");
    std::vector<double> out;
    out.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) out.push_back(jf::number(j[i], jf::at(path, i)));
    return out;
}
std::vector<double> numbers_at(const json& o, const std::string& key, const std::string& path) {
    return numbers(jf::member(o, key, path), jf::join(path, key));
}
std::vector<std::int64_t> counts_at(const json& o, const std::string& key, const std::string& path) {
    const std::string p = jf::join(path, key);
    const json& j = jf::array(jf::member(o, key, path), p);
    if (j.size() > kMaxResultArray)
        throw InputError(p + " has " + std::to_string(j.size()) + " entries, more than a result may hold (" +
                         std::to_string(kMaxResultArray) + ")");
    std::vector<std::int64_t> out;
    for (std::size_t i = 0; i < j.size(); ++i)
        out.push_back(jf::integer(j[i], jf::at(p, i), 0, std::numeric_limits<std::int64_t>::max()));
    return out;
}
Index count_at(const json& o, const std::string& key, const std::string& path) {
    return jf::integer_at(o, key, path, 0, std::numeric_limits<std::int64_t>::max());
}
std::string optional_string(const json& o, const std::string& key, const std::string& path) {
    const auto it = o.find(key);
    return it == o.end() ? std::string() : jf::string(*it, jf::join(path, key));
}
void same_size(const std::string& a, std::size_t na, const std::string& b, std::size_t nb) {
    if (na != nb)
        throw InputError(a + " has " + std::to_string(na) + " entries but " + b + " has " + std::to_string(nb) +
                         "; they must be as many");
}

ResultModelRef model_ref(const json& j) {
    const std::string p = "model_file";
    ResultModelRef r;
    r.kind = jf::choice(jf::member(j, "kind", p), "model_file.kind", {"grbm", "brbm", "leaky", "gaussian"});
    r.n = jf::integer_at(j, "n", p, 1, kMaxFileElements);
    r.m = jf::integer_at(j, "m", p, 0, kMaxFileElements);
    if (j.contains("preset")) {
        // The MODEL argument as given: "four-mode" or "preset:four-mode" (resolve_model_argument).
        r.preset = name_at(j, "preset", p);
        if (r.preset.rfind("preset:", 0) == 0) r.preset.erase(0, 7);
        return r;
    }
    r.path = file_path_at(j, "path", p);
    if (r.path.empty()) throw InputError("model_file.path must name a file, got \"\"");
    if (j.contains("map")) r.map = file_path_at(j, "map", p);  // as long as a path at most
    r.fnv1a64 = jf::string_at(j, "fnv1a64", p);
    bool hex = r.fnv1a64.size() == 16;
    for (char c : r.fnv1a64) hex = hex && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    if (!hex) jf::refuse("model_file.fnv1a64", "16 lower-case hex digits", j.at("fnv1a64"));
    return r;
}

AisFileResult ais(const json& j) {
    AisFileResult r;
    r.log_z = jf::number_at(j, "log_z", "");
    r.log_z_low = optional_number(j, "log_z_low", "");
    r.log_z_high = jf::number_at(j, "log_z_high", "");
    const json& ci = jf::array_of_size(jf::member(j, "ci95", ""), "ci95", 2);
    r.ci95_low = jf::number(ci[0], "ci95[0]");
    r.ci95_high = jf::number(ci[1], "ci95[1]");
    r.ess = jf::number_at(j, "ess", "", 0);
    r.ess_fraction = jf::number_at(j, "ess_fraction", "", 0, 1);
    r.log_w_mean = jf::number_at(j, "log_w_mean", "");
    r.log_w_var = optional_number(j, "log_w_var", "").value_or(0.0);
    r.log_z0 = jf::number_at(j, "log_z0", "");
    r.exact_log_z = optional_number(j, "exact_log_z", "");
    r.cost_functional = optional_number(j, "cost_functional", "");
    r.path = name_at(j, "path", "");
    r.path_name = name_at(j, "path_name", "");
    r.base = name_at(j, "base", "");
    r.kernel = name_at(j, "kernel", "");
    r.schedule = name_at(j, "schedule", "");
    r.notes = preview(optional_string(j, "notes", ""), kResultTextBytes);
    r.steps = jf::integer_at(j, "steps", "", 0, std::numeric_limits<std::int64_t>::max());
    r.steps_done = r.steps;
    r.chains = jf::integer_at(j, "chains", "", 1, std::numeric_limits<std::int64_t>::max());
    r.seed = jf::unsigned64(jf::member(j, "seed", ""), "seed");
    r.perfect = jf::boolean_at(j, "perfect", "");
    r.seconds = optional_number(j, "seconds", "").value_or(0.0);
    if (j.contains("beta_reached")) {
        r.beta_reached = jf::number_at(j, "beta_reached", "", 0, 1);
        r.steps_done = jf::integer_at(j, "steps_done", "", 0, r.steps);
    }
    const json& h = jf::member(j, "histogram", "");
    r.hist_lo = jf::number_at(h, "lo", "histogram");
    r.hist_hi = jf::number_at(h, "hi", "histogram");
    r.hist_counts = counts_at(h, "counts", "histogram");
    const json& run = jf::array(jf::member(j, "running", ""), "running");
    if (run.size() > kMaxResultArray) throw InputError("running has more entries than a result may hold");
    for (std::size_t i = 0; i < run.size(); ++i) {
        const std::string p = jf::at("running", i);
        const json& pt = jf::array_of_size(run[i], p, 2);
        r.running.emplace_back(jf::number(pt[0], p + "[0]", 0, 1), jf::number(pt[1], p + "[1]"));
    }
    if (j.contains("reverse")) {
        const json& v = jf::member(j, "reverse", "");
        AisFileReverse rv;
        rv.complete = jf::boolean_at(v, "complete", "reverse");
        rv.log_z_upper = optional_number(v, "log_z_upper", "reverse");
        if (rv.log_z_upper) {
            const json& rci = jf::array_of_size(jf::member(v, "ci95", "reverse"), "reverse.ci95", 2);
            rv.ci95_low = jf::number(rci[0], "reverse.ci95[0]");
            rv.ci95_high = jf::number(rci[1], "reverse.ci95[1]");
            rv.ess = jf::number_at(v, "ess", "reverse", 0);
            rv.ess_fraction = jf::number_at(v, "ess_fraction", "reverse", 0, 1);
            rv.log_w_mean = jf::number_at(v, "log_w_mean", "reverse");
            rv.log_w_var = optional_number(v, "log_w_var", "reverse").value_or(0.0);
        }
        r.reverse = rv;
    }
    return r;
}

SweepFileResult sweep(const json& j) {
    SweepFileResult s;
    s.exact_log_z = optional_number(j, "exact_log_z", "");
    s.chains = jf::integer_at(j, "chains", "", 1, std::numeric_limits<std::int64_t>::max());
    s.repeats = jf::integer_at(j, "repeats", "", 1, std::numeric_limits<std::int64_t>::max());
    s.seed = jf::unsigned64(jf::member(j, "seed", ""), "seed");
    s.schedule = name_at(j, "schedule", "");
    s.perfect = jf::boolean_at(j, "perfect", "");
    const json& rows = jf::array(jf::member(j, "results", ""), "results");
    if (rows.size() > kMaxResultArray) throw InputError("results has more entries than a result may hold");
    std::size_t methods = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const std::string p = jf::at("results", i);
        const json& x = rows[i];
        SweepFileRow r;
        r.method = name_at(x, "method", p);
        r.path = name_at(x, "path", p);
        r.base = name_at(x, "base", p);
        r.path_name = name_at(x, "path_name", p);
        r.steps = jf::integer_at(x, "steps", p, 1, std::numeric_limits<std::int64_t>::max());
        r.log_z_mean = jf::number_at(x, "log_z_mean", p);
        r.log_z_sd = jf::number_at(x, "log_z_sd", p, 0);
        r.ci95_low_mean = jf::number_at(x, "ci95_low_mean", p);
        r.ci95_high_mean = jf::number_at(x, "ci95_high_mean", p);
        r.ess_mean = jf::number_at(x, "ess_mean", p, 0);
        r.ess_fraction_mean = jf::number_at(x, "ess_fraction_mean", p, 0, 1);
        r.log_w_mean = jf::number_at(x, "log_w_mean", p);
        r.seconds = optional_number(x, "seconds", p).value_or(0.0);
        r.log_z_upper_mean = optional_number(x, "log_z_upper_mean", p);
        r.log_z_upper_sd = optional_number(x, "log_z_upper_sd", p);
        if (std::none_of(s.rows.begin(), s.rows.end(), [&](const SweepFileRow& o) { return o.method == r.method; }) &&
            ++methods > kMaxResultMethods)
            throw InputError(p + ".method: the sweep holds more than " + std::to_string(kMaxResultMethods) +
                             " methods; a result shows at most that many");
        s.rows.push_back(std::move(r));
    }
    return s;
}

PtFileResult pt(const json& j) {
    PtFileResult r;
    r.scheme = jf::choice(jf::member(j, "scheme", ""), "scheme", {"reversible", "deo", "lifted"});
    r.kind = name_at(j, "kind", "");
    r.family = name_at(j, "family", "");
    r.kernel = name_at(j, "kernel", "");
    r.prediction = preview(optional_string(j, "prediction", ""), kResultTextBytes);
    r.chains = jf::integer_at(j, "chains", "", 1, std::numeric_limits<std::int64_t>::max());
    r.sweeps = count_at(j, "sweeps", "");
    r.seed = jf::unsigned64(jf::member(j, "seed", ""), "seed");
    r.betas = numbers_at(j, "betas", "");
    if (r.betas.size() < 2)
        throw InputError("betas must be an array of at least 2 rungs, got " + std::to_string(r.betas.size()));
    const std::size_t pairs = r.betas.size() - 1;
    r.swap_acceptance = numbers_at(j, "swap_acceptance", "");
    r.rejection = numbers_at(j, "rejection", "");
    r.swaps_proposed = counts_at(j, "swaps_proposed", "");
    r.swaps_accepted = counts_at(j, "swaps_accepted", "");
    same_size("swap_acceptance", r.swap_acceptance.size(), "the pairs of betas", pairs);
    same_size("rejection", r.rejection.size(), "the pairs of betas", pairs);
    same_size("swaps_proposed", r.swaps_proposed.size(), "the pairs of betas", pairs);
    same_size("swaps_accepted", r.swaps_accepted.size(), "the pairs of betas", pairs);
    r.round_trips = count_at(j, "round_trips", "");
    r.restarts = count_at(j, "restarts", "");
    r.round_trips_per_replica = counts_at(j, "round_trips_per_replica", "");
    r.restarts_per_replica = counts_at(j, "restarts_per_replica", "");
    same_size("round_trips_per_replica", r.round_trips_per_replica.size(), "betas", r.betas.size());
    same_size("restarts_per_replica", r.restarts_per_replica.size(), "betas", r.betas.size());
    r.round_trip_rate = jf::number_at(j, "round_trip_rate", "", 0);
    r.predicted_round_trip_rate = jf::number_at(j, "predicted_round_trip_rate", "", 0);
    r.barrier = jf::number_at(j, "barrier", "", 0);
    const json& lb = jf::member(j, "local_barrier", "");
    r.local_beta = numbers_at(lb, "beta", "local_barrier");
    r.local_lambda = numbers_at(lb, "lambda", "local_barrier");
    same_size("local_barrier.lambda", r.local_lambda.size(), "local_barrier.beta", r.local_beta.size());
    if (j.contains("scans_done")) r.scans_done = count_at(j, "scans_done", "");
    if (j.contains("lifted_round_trips")) r.lifted_round_trips = count_at(j, "lifted_round_trips", "");
    return r;
}

MeanFieldFileResult meanfield(const json& j, const std::optional<ResultModelRef>& model) {
    MeanFieldFileResult r;
    r.type = jf::choice(jf::member(j, "type", ""), "type", {"1", "2", "tap"});
    r.method = name_at(j, "method", "");
    r.free_energy = jf::number_at(j, "free_energy", "");
    r.free_energy_is_bound = jf::boolean_at(j, "free_energy_is_bound", "");
    r.mean_v = numbers_at(j, "mean_v", "");
    r.mean_h = numbers_at(j, "mean_h", "");
    r.var_v = numbers_at(j, "var_v", "");
    same_size("var_v", r.var_v.size(), "mean_v", r.mean_v.size());
    if (model) {  // the shapes the model file recorded
        same_size("mean_v", r.mean_v.size(), "the model's visible units (model_file.n)",
                  static_cast<std::size_t>(model->n));
        same_size("mean_h", r.mean_h.size(), "the model's hidden units (model_file.m)",
                  static_cast<std::size_t>(model->m));
    }
    r.iterations = count_at(j, "iterations", "");
    r.converged = jf::boolean_at(j, "converged", "");
    r.residual = optional_number(j, "residual", "").value_or(0.0);
    const json& fps = jf::array(jf::member(j, "fixed_points", ""), "fixed_points");
    for (std::size_t i = 0; i < fps.size() && i < kMaxResultArray; ++i) {
        const std::string p = jf::at("fixed_points", i);
        MeanFieldFilePoint f;
        f.free_energy = jf::number_at(fps[i], "free_energy", p);
        f.iterations = count_at(fps[i], "iterations", p);
        f.converged = jf::boolean_at(fps[i], "converged", p);
        f.restarts = count_at(fps[i], "restarts", p);
        f.mean_h = numbers_at(fps[i], "mean_h", p);
        same_size(p + ".mean_h", f.mean_h.size(), "mean_h", r.mean_h.size());
        r.fixed_points.push_back(std::move(f));
    }
    if (j.contains("trace")) {
        const json& t = jf::member(j, "trace", "");
        r.trace_free_energy = numbers_at(t, "free_energy", "trace");
        r.trace_residual = numbers_at(t, "residual", "trace");
        same_size("trace.residual", r.trace_residual.size(), "trace.free_energy", r.trace_free_energy.size());
    }
    if (j.contains("exact")) {
        const json& e = jf::member(j, "exact", "");
        r.exact_free_energy = jf::number_at(e, "free_energy", "exact");
        r.exact_mse_v = optional_number(e, "mse_v", "exact");
        r.exact_mean_v = numbers_at(e, "mean_v", "exact");
        r.exact_mean_h = numbers_at(e, "mean_h", "exact");
        same_size("exact.mean_v", r.exact_mean_v.size(), "mean_v", r.mean_v.size());
        same_size("exact.mean_h", r.exact_mean_h.size(), "mean_h", r.mean_h.size());
    }
    return r;
}

// A number of a log record: null is a value not measured (NaN), absent is an error.
double record_number(const json& o, const std::string& key, const std::string& path) {
    const json& v = jf::member(o, key, path);
    if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
    return jf::number(v, jf::join(path, key));
}

std::vector<TrainFileRecord> train_records(const json& a, const std::string& path) {
    jf::array(a, path.empty() ? "the training log" : path);
    if (a.size() > kMaxResultArray) throw InputError("the training log has more records than a result may hold");
    std::vector<TrainFileRecord> out;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::string p = jf::at(path.empty() ? "record" : path, i);
        const json& x = a[i];
        if (!x.is_object()) jf::refuse(p, "an object (one record of a training log)", x);
        TrainFileRecord r;
        r.update = count_at(x, "update", p);
        r.epoch = record_number(x, "epoch", p);
        r.learning_rate = record_number(x, "learning_rate", p);
        r.log_likelihood = record_number(x, "log_likelihood", p);
        r.log_likelihood_method = name_at(x, "log_likelihood_method", p);
        r.log_likelihood_low = record_number(x, "log_likelihood_low", p);
        r.log_likelihood_high = record_number(x, "log_likelihood_high", p);
        r.log_z = record_number(x, "log_z", p);
        r.reconstruction_error = record_number(x, "reconstruction_error", p);
        r.seconds = record_number(x, "seconds", p);
        if (!out.empty() && r.update < out.back().update)
            throw InputError(p + ".update is " + std::to_string(r.update) + ", before the previous record's " +
                             std::to_string(out.back().update) + "; a log's records are in order of updates");
        out.push_back(std::move(r));
    }
    return out;
}

TrainFileResult train(const json& j) {
    TrainFileResult t;
    t.status = name_at(j, "status", "");
    t.model = file_path_at(j, "model", "");
    t.kind = name_at(j, "kind", "");
    t.method = name_at(j, "method", "");
    t.data = name_at(j, "data", "");
    t.hidden = count_at(j, "hidden", "");
    t.visible = count_at(j, "visible", "");
    t.updates = count_at(j, "updates", "");
    t.log = optional_string(j, "log", "");
    if (t.log.size() > 4096)
        throw InputError("log is a path of " + std::to_string(t.log.size()) + " bytes; a file path holds at most 4096");
    return t;
}

ResultFile from_object(const json& j) {
    ResultFile f;
    if (j.contains("format"))
        throw InputError("this is a file of format " + jf::shown(j.at("format")) +
                         ", not a result of rbmscope-cli (a result names its command in \"argv\")");
    if (!j.contains("argv"))
        throw InputError("argv is missing: a result of rbmscope-cli names the command that wrote it there");
    const json& argv = jf::array(j.at("argv"), "argv");
    if (argv.empty()) throw InputError("argv must be an array of at least 1 entry (the command), got []");
    if (argv.size() > kMaxResultArray) throw InputError("argv has more entries than a result may hold");
    for (std::size_t i = 0; i < argv.size(); ++i)
        f.argv.push_back(preview(jf::string(argv[i], jf::at("argv", i)), kResultTextBytes));
    const std::string& cmd = f.argv[0];
    if (cmd == "ais") f.command = ResultCommand::Ais;
    else if (cmd == "ais-sweep") f.command = ResultCommand::AisSweep;
    else if (cmd == "pt") f.command = ResultCommand::Pt;
    else if (cmd == "meanfield") f.command = ResultCommand::MeanField;
    else if (cmd == "train") f.command = ResultCommand::Train;
    else
        throw InputError("argv[0] is '" + cmd +
                         "': the app reopens results of ais, ais-sweep, pt, meanfield and train");
    f.command_line = preview(jf::string_at(j, "command_line", ""), kResultTextBytes);
    if (j.contains("model_file")) f.model = model_ref(j.at("model_file"));
    else if (f.command != ResultCommand::Train)
        throw InputError("model_file is missing: the result does not say which model it is of");
    if (j.contains("warnings")) {
        const json& w = jf::array(j.at("warnings"), "warnings");
        for (std::size_t i = 0; i < w.size() && i < kMaxResultWarnings; ++i)
            f.warnings.push_back(preview(jf::string(w[i], jf::at("warnings", i)), kResultTextBytes));
        if (w.size() > kMaxResultWarnings)
            f.warnings.push_back("\u2026 and " + std::to_string(w.size() - kMaxResultWarnings) +
                                 " more warnings, not shown");
    }
    f.build = build_record_of(j);
    if (j.contains("complete")) f.complete = jf::boolean_at(j, "complete", "");
    if (!f.complete && j.contains("phase") && !j.contains("log_z"))
        throw InputError("the run was interrupted in phase " + jf::shown(j.at("phase")) +
                         ", before it had an estimate: there is nothing to show");
    switch (f.command) {
        case ResultCommand::Ais: f.ais = ais(j); break;
        case ResultCommand::AisSweep: f.sweep = sweep(j); break;
        case ResultCommand::Pt: f.pt = pt(j); break;
        case ResultCommand::MeanField: f.meanfield = meanfield(j, f.model); break;
        case ResultCommand::Train: f.train = train(j); break;
        case ResultCommand::TrainLog: break;
    }
    return f;
}

json parse_text(const std::string& text) {
    return json_text::parse(text, "a result's numbers are finite (a missing number is written null)", &known_keys());
}

std::string read_limited(const std::filesystem::path& path, const char* what) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > kMaxResultBytes)
        throw InputError(path.string() + ": file is " + std::to_string(size) + " bytes, more than any " + what +
                         " may be (limit " + std::to_string(kMaxResultBytes) + ")");
    return read_file(path);
}

}  // namespace result_reading

const char* result_command_name(ResultCommand c) {
    switch (c) {
        case ResultCommand::Ais: return "ais";
        case ResultCommand::AisSweep: return "ais-sweep";
        case ResultCommand::Pt: return "pt";
        case ResultCommand::MeanField: return "meanfield";
        case ResultCommand::Train: return "train";
        case ResultCommand::TrainLog: return "train --log";
    }
    return "?";
}

bool looks_like_result(const std::string& text) {
    try {
        static const std::vector<std::string> keys{"argv", "format"};
        const nlohmann::json j = json_text::parse(text, "", &keys);
        if (j.is_object()) return j.contains("argv") && !j.contains("format");
        // `[]` too: an empty training log (train --log of a run stopped before its first record)
        // is refused as a log, with its own message, not as a broken model file.
        return j.is_array() && (j.empty() || (j.front().is_object() && j.front().contains("update") &&
                                              j.front().contains("log_likelihood_method")));
    } catch (const std::exception&) {
        return false;
    }
}

ResultFile result_from_json_text(const std::string& text, const std::string& origin) {
    try {
        const nlohmann::json j = result_reading::parse_text(text);
        if (j.is_array()) {
            if (j.empty()) throw InputError("an empty training log ([]): it holds no records to show");
            ResultFile f;
            f.command = ResultCommand::TrainLog;
            f.train = TrainFileResult{};
            f.train->records = result_reading::train_records(j, "");
            return f;
        }
        if (!j.is_object())
            throw InputError(
                "expected a JSON object {\"argv\": [...], ...} at the top level (or a training log's array), got " +
                json_text::type_name(j));
        return result_reading::from_object(j);
    } catch (const InputError& e) {
        throw InputError(origin + ": " + e.what());
    } catch (const std::bad_alloc&) {
        throw InputError(origin + ": not enough memory to read this result");
    }
}

ResultFile load_result_file(const std::filesystem::path& path) {
    return result_from_json_text(result_reading::read_limited(path, "result file"), path.string());
}

std::vector<TrainFileRecord> train_log_from_csv_text(const std::string& text) {
    // The columns of Trainer::log_csv (core/training/monitor.cpp), found by the header's names so a
    // log with more columns still reads; "nan" is a null of the JSON log.
    static const char* const kColumns[] = {"update",
                                           "epoch",
                                           "learning_rate",
                                           "log_likelihood",
                                           "log_likelihood_method",
                                           "log_likelihood_low",
                                           "log_likelihood_high",
                                           "log_z",
                                           "reconstruction_error",
                                           "seconds"};
    const auto split = [](const std::string& line) {
        std::vector<std::string> cells;
        std::size_t from = 0;
        for (;;) {
            const std::size_t comma = line.find(',', from);
            cells.push_back(line.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
            if (comma == std::string::npos) return cells;
            from = comma + 1;
        }
    };
    std::vector<std::string> lines;
    std::size_t from = 0;
    while (from < text.size()) {
        std::size_t end = text.find('\n', from);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(from, end - from);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!line.empty()) lines.push_back(std::move(line));
        from = end + 1;
    }
    if (lines.empty()) throw InputError("the training log is empty (expected a CSV header line)");
    if (lines.size() - 1 > kMaxResultArray)
        throw InputError("the training log has more records than a result may hold");
    const std::vector<std::string> header = split(lines[0]);
    std::size_t column[std::size(kColumns)];
    for (std::size_t k = 0; k < std::size(kColumns); ++k) {
        const auto it = std::find(header.begin(), header.end(), kColumns[k]);
        if (it == header.end())
            throw InputError(std::string("the training log's header has no column '") + kColumns[k] +
                             "' (is it a --log FILE.csv of rbmscope-cli train?)");
        column[k] = static_cast<std::size_t>(it - header.begin());
    }
    std::vector<TrainFileRecord> out;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        const std::vector<std::string> cells = split(lines[i]);
        const std::string where = "line " + std::to_string(i + 1);
        if (cells.size() != header.size())
            throw InputError(where + " has " + std::to_string(cells.size()) + " fields, the header " +
                             std::to_string(header.size()));
        const auto number = [&](std::size_t k) {
            const std::string& c = cells[column[k]];
            char* end = nullptr;
            const double v = c.empty() ? std::nan("") : std::strtod(c.c_str(), &end);
            if (!c.empty() && (end != c.c_str() + c.size()))
                throw InputError(where + ": " + kColumns[k] + " '" + result_reading::preview(c, kResultNameBytes) +
                                 "' is not a number");
            return v;
        };
        TrainFileRecord r;
        const double update = number(0);
        if (!(update >= 0 && update <= 9.0e15) || update != std::floor(update))
            throw InputError(where + ": update '" + result_reading::preview(cells[column[0]], kResultNameBytes) +
                             "' is not a count of updates");
        r.update = static_cast<Index>(update);
        r.epoch = number(1);
        r.learning_rate = number(2);
        r.log_likelihood = number(3);
        r.log_likelihood_method = result_reading::preview(cells[column[4]], kResultNameBytes);
        r.log_likelihood_low = number(5);
        r.log_likelihood_high = number(6);
        r.log_z = number(7);
        r.reconstruction_error = number(8);
        r.seconds = number(9);
        if (!out.empty() && r.update < out.back().update)
            throw InputError(where + ": update " + std::to_string(r.update) + " is before the previous record's " +
                             std::to_string(out.back().update) + "; a log's records are in order of updates");
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<TrainFileRecord> load_train_log(const std::filesystem::path& path) {
    const std::string origin = path.string();
    const std::string text = result_reading::read_limited(path, "training log");
    std::string ext = path.extension().string();
    for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    try {
        if (ext == ".csv") return train_log_from_csv_text(text);
        return result_reading::train_records(result_reading::parse_text(text), "");
    } catch (const InputError& e) {
        throw InputError(origin + ": " + e.what());
    }
}

}  // namespace rbm
