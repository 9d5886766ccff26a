// rbmscope-cli logz MODEL: one verdict on log Z from the estimators that apply, run side by side --
// forward AIS from every base the model has, reverse AIS, parallel tempering's BAR and stepping
// stone, the exact value when it is known (core/ais/log_z_verdict.hpp,
// docs/methods/log-z-verdict.md, docs/user/cli.md#logz).
//
// Each estimator is the CLI's own command run in this process with the arguments its entry of
// "estimates" prints as "command_line", so any one of them can be re-run and inspected alone.
#include <chrono>
#include <cmath>
#include <iostream>
#include <set>

#include "cli_command.hpp"
#include "core/ais/log_z_verdict.hpp"
#include "core/exact/exact.hpp"
#include "core/io/result_source.hpp"
#include "core/training/heldout.hpp"
#include "data_args.hpp"
#include "interrupt.hpp"
#include "progress.hpp"

namespace rbm::cli {
namespace {

struct Budget {
    long long steps, chains, sweeps;
};

Budget budget_of(const std::string& name) {
    if (name == "quick") return {1000, 100, 2000};
    if (name == "thorough") return {20000, 500, 32000};
    return {5000, 200, 8000};  // standard
}

Args logz_args() {
    std::vector<Args::Option> opts{
        {"budget", "B",
         "quick | standard (default) | thorough: AIS steps x chains 1000 x 100, 5000 x 200, 20000 x 500;\n"
         "      tempering scans 2000, 8000, 32000 (8 chains, 16 rungs)"},
        {"steps", "K", "AIS annealing steps (overrides the budget's)"},
        {"chains", "N", "AIS chains (overrides the budget's)"},
        {"sweeps", "T", "tempering scans of the final run (overrides the budget's)"},
        {"no-exact", "",
         "run the estimators as if the model were not enumerable (Gibbs moments, reverse chains from\n"
         "      tempering); the exact value then appears only as exact_log_z, for comparison"},
        {"seed", "S", "seed (default 1); estimate i runs with seed S + i"},
        {"threads", "T", "worker threads; results do not depend on it"},
        {"data", "SPEC", "data for the data base of forward AIS (default: the training data the model file records)"},
        {"held-out", "SPEC",
         "also the average log-likelihood of these rows (e.g. fashion-mnist:test) from the verdict's\n"
         "      log Z and from each estimate's, preprocessed as the training data (--data's options, else\n"
         "      the model file's record) without --limit and --shifts"},
        Progress::option()};
    for (const auto& o : data_options()) opts.push_back(o);
    return Args("logz", {"MODEL"}, opts,
                "One verdict on log Z. Runs the estimators that apply to MODEL -- forward AIS from each base\n"
                "(moment, uniform or sigma, data when there are data), reverse AIS from the moment base's path\n"
                "(chains started at exact samples when the model has at most 2^16 configurations, else at the\n"
                "target rung of parallel tempering), tempering's BAR and stepping stone, and the exact value\n"
                "when it is known -- and compares them: log_z and ci95 are the verdict's, agree is true only\n"
                "when at least two independent estimates are left and every two 95 % intervals overlap,\n"
                "trusted when they agree and nothing is doubtful; warnings say which estimate disagrees with\n"
                "which and by how much, which was set aside (Pareto k of its weights above its threshold, an\n"
                "interrupted run), and, with the exact value, which interval misses it. estimates: each\n"
                "method's log_z, ci95 and the command line that reproduces it; skipped: what did not apply.\n"
                "With --held-out SPEC, held_out: the rows' log_likelihood = mean log p*(v) - log Z with ci95\n"
                "from the verdict's (log Z's uncertainty only; data_se is the rows' own), trusted as the verdict,\n"
                "and by_estimate: the same from each estimate.\n"
                "Ctrl-C: the estimates finished so far, \"complete\": false, exit 130.");
}

// The arguments every estimator gets from the command's own: the model and how to read it.
std::vector<std::string> model_args(const Args& a) {
    std::vector<std::string> v{a.positional(0)};
    for (const char* o : {"map", "max-memory", "threads"})
        if (auto x = a.get(o)) v.insert(v.end(), {std::string("--") + o, *x});
    return v;
}

std::vector<std::string> data_args(const Args& a) {
    std::vector<std::string> v;
    if (auto d = a.get("data")) v.insert(v.end(), {"--data", *d});
    for (const auto& o : data_options())
        if (a.has(o.name)) {
            v.push_back("--" + o.name);
            if (!o.value.empty()) v.push_back(*a.get(o.name));
        }
    return v;
}

struct Run {
    json result;  // null when the estimator did not apply
    std::string refusal, command_line;
};

Run run_estimator(const std::string& name, std::vector<std::string> args) {
    Run r;
    std::vector<std::string> line = {"rbmscope-cli", name};
    line.insert(line.end(), args.begin(), args.end());
    r.command_line = shell_command_line(line);
    try {
        r.result = commands().at(name).run(args);
    } catch (const InputError& e) {
        r.refusal = e.what();
    }
    return r;
}

json interval(double low, double high) { return json::array({low, high}); }

// One estimate: the verdict's candidate `c` (method, source, side, Pareto k, complete set) and its
// "estimates" entry, from a sub-command's JSON `e` (value under `value_key`, interval in "ci95");
// `extra` adds that method's own numbers (ESS, se, seconds, warnings).
void add_estimate(std::vector<LogZCandidate>& cands, json& estimates, LogZCandidate c, const json& e,
                  const char* value_key, json extra, const std::string& command_line) {
    c.log_z = e.at(value_key);
    c.low = e.at("ci95")[0];
    c.high = e.at("ci95")[1];
    extra["method"] = c.method;
    extra["side"] = c.side == LogZSide::Lower ? "lower" : c.side == LogZSide::Upper ? "upper" : "two-sided";
    extra["log_z"] = c.log_z;
    extra["ci95"] = interval(c.low, c.high);
    extra["complete"] = c.complete;
    extra["command_line"] = command_line;
    if (c.pareto_k) extra["pareto_k"] = *c.pareto_k, extra["pareto_k_threshold"] = *c.pareto_threshold;
    estimates.push_back(std::move(extra));
    cands.push_back(std::move(c));
}

// The held-out rows as the model saw its training rows: --data's preprocessing when given, else the
// model file's record (its standardization statistics included), else the command's options. Never
// the training subset (--limit) or its augmentation (--shifts): held-out rows are taken as they are.
Dataset held_out_rows(const Args& a, const Model& model, const std::string& spec) {
    TrainingData t = a.has("data") || !model.training ? training_data_from_args(a, spec) : *model.training;
    if (!a.has("data") && model.training && has_data_transform(a))
        throw InputError(
            "--binarize, --scale, --standardize, --shifts, --limit and --csv-* describe --data SPEC; "
            "without it --held-out is preprocessed as the model's recorded training data");
    if (t.standardize && t.standardize_mean.size() == 0)
        throw InputError(
            "--held-out with --standardize needs the training rows' means and deviations, which only a "
            "model file that records them has (train --standardize writes them)");
    t.data = spec;
    t.limit = 0;
    t.shifts = false;
    Dataset d = load_training_data(t);
    if (d.dim() != model.n_visible())
        throw InputError("--held-out " + d.name + " has " + std::to_string(d.dim()) +
                         " values per example; the model has n = " + std::to_string(model.n_visible()) +
                         " visible units");
    if (d.X.rows() == 0) throw InputError("--held-out " + d.name + " has no rows");
    return d;
}

// held_out: mean log p*(v) over the rows minus log Z, for the verdict and for each estimate.
json held_out_json(const Model& model, const Dataset& d, const LogZVerdict& v, const json& estimates) {
    const Vec lp = log_unnorm_rows(model, d.X);
    const double n = static_cast<double>(d.X.rows()), mean = lp.mean();
    const double sd = d.X.rows() > 1 ? std::sqrt((lp.array() - mean).square().sum() / (n - 1.0)) : 0.0;
    json h;
    h["data"] = d.name;
    h["rows"] = d.X.rows();
    h["mean_log_unnormalized"] = mean;
    h["log_likelihood"] = mean - v.log_z;
    h["ci95"] = interval(mean - v.high, mean - v.low);
    h["trusted"] = v.trusted;
    h["data_se"] = sd / std::sqrt(n);
    json by = json::array();
    for (const json& e : estimates)
        by.push_back({{"method", e.at("method")},
                      {"log_likelihood", mean - e.at("log_z").get<double>()},
                      {"ci95", interval(mean - e.at("ci95")[1].get<double>(), mean - e.at("ci95")[0].get<double>())}});
    h["by_estimate"] = by;
    h["warnings"] = json::array();
    if (const auto* b = model.as<Brbm>()) {
        if (is_binary(d.X)) h["pseudo_log_likelihood"] = brbm_pseudo_log_likelihood(*b, d.X).mean();
        else
            h["warnings"].push_back("the rows are not 0/1: a BRBM's p*(v) is evaluated at fractional v (--binarize T)");
    }
    return h;
}

json run_logz(const std::vector<std::string>& argv) {
    Args a = logz_args();
    a.parse(argv);
    if (a.help_requested()) {
        std::cout << a.usage();
        return nullptr;
    }
    const std::string budget_name = a.get_choice("budget", "standard", {"quick", "standard", "thorough"});
    Budget b = budget_of(budget_name);
    b.steps = a.get_int("steps", b.steps, 1, 1'000'000'000);
    b.chains = a.get_int("chains", b.chains, 2, 100'000'000);
    b.sweeps = a.get_int("sweeps", b.sweeps, 10, 1'000'000'000);
    const std::uint64_t seed = a.get_seed("seed", 1);
    const bool no_exact = a.flag("no-exact");
    const Model model = a.model(0);
    const bool exact_known = has_exact_log_z(model);
    const bool has_data = a.has("data") || model.training.has_value();
    // Read before any estimator runs, so that a bad spec is refused at once.
    const std::optional<Dataset> held_out =
        a.has("held-out") ? std::optional<Dataset>(held_out_rows(a, model, *a.get("held-out"))) : std::nullopt;
    interrupt::watch();

    std::vector<LogZCandidate> cands;
    json estimates = json::array(), skipped = json::array();
    std::uint64_t next_seed = seed;
    bool complete = true;
    const std::vector<std::string> progress =
        a.has("progress") ? std::vector<std::string>{"--progress", *a.get("progress")} : std::vector<std::string>{};
    // One fraction for the whole command: each sub-run gets a share of it by its chain-sweeps
    // (AIS: steps x chains, twice for the moment base's reverse run; tempering: scans x 8 chains
    // x 16 rungs, half again for the adaptive ladder's rounds), and this command prints the final line.
    Progress overall(a);
    const auto started = std::chrono::steady_clock::now();
    std::vector<std::string> bases = {"moment"};
    bases.push_back(model.kind() == ModelKind::Brbm ? "uniform" : "sigma");
    if (has_data) bases.push_back("data");
    const double ais_cost = static_cast<double>(b.steps) * static_cast<double>(b.chains);
    const double pt_cost = 1.5 * static_cast<double>(b.sweeps) * 8 * 16;
    const double total_cost = ais_cost * static_cast<double>(bases.size() + 1) + pt_cost;
    double done_cost = 0;
    const auto share = [&](double cost) {
        const double begin = done_cost / total_cost;
        done_cost += cost;
        return Progress::Span(begin, cost / total_cost, started);
    };
    const auto finish = [&](json& out) {
        overall.finish(out.value("complete", true));
        return out;
    };

    // Forward AIS from each base (and reverse AIS along the moment base's path).
    for (const std::string& base : bases) {
        if (interrupt::requested()) break;
        std::vector<std::string> args = model_args(a);
        args.insert(args.end(), {"--base", base, "--steps", std::to_string(b.steps), "--chains",
                                 std::to_string(b.chains), "--seed", std::to_string(next_seed++)});
        if (base == "data") {
            const auto d = data_args(a);
            args.insert(args.end(), d.begin(), d.end());
        }
        if (base == "moment") {
            args.push_back("--reverse");
            if (no_exact) args.insert(args.end(), {"--moments", "gibbs", "--reverse-start", "pt"});
        }
        args.insert(args.end(), progress.begin(), progress.end());
        Run r;
        try {
            const Progress::Span span = share(base == "moment" ? 2 * ais_cost : ais_cost);
            r = run_estimator("ais", args);
        } catch (const Cancelled&) {
            complete = false;
            break;
        }
        if (r.result.is_null()) {
            skipped.push_back({{"method", "forward AIS, " + base + " base"}, {"reason", r.refusal}});
            continue;
        }
        const json& j = r.result;
        LogZCandidate c;
        c.method = "forward AIS, " + base + " base";
        c.source = "ais-" + base;
        c.side = LogZSide::Lower;
        if (j.contains("pareto_k")) {  // absent below 25 chains: no tail to fit, nothing to judge by
            c.pareto_k = j["pareto_k"].get<double>();
            c.pareto_threshold = j.at("pareto_k_threshold").get<double>();
        }
        c.complete = j.value("complete", true);
        json extra = {{"ess", j.at("ess")}, {"seconds", j.at("seconds")}};
        if (j.contains("warnings")) extra["warnings"] = j["warnings"];
        add_estimate(cands, estimates, c, j, "log_z", extra, r.command_line);
        if (j.contains("reverse") && j["reverse"].contains("log_z_upper") && j["reverse"]["log_z_upper"].is_number()) {
            const json& rv = j["reverse"];
            const std::string start = j.value("reverse_start", std::string());
            LogZCandidate u;
            u.method = "reverse AIS, moment base, from " + std::string(start == "exact" ? "exact target samples"
                                                                       : start == "pt"  ? "tempering samples"
                                                                                        : "data rows");
            u.source = "ais-reverse";
            u.side = LogZSide::Upper;
            u.complete = rv.value("complete", true);
            add_estimate(cands, estimates, u, rv, "log_z_upper", {{"ess", rv.at("ess")}}, r.command_line);
        }
        if (!c.complete) {
            complete = false;
            break;
        }
    }

    // Parallel tempering: BAR and stepping stone from one run (one source).
    if (complete && !interrupt::requested()) {
        std::vector<std::string> args = model_args(a);
        args.insert(args.end(), {"--ladder", "linear", "--replicas", "16", "--adaptive", "3", "--sweeps",
                                 std::to_string(b.sweeps), "--seed", std::to_string(next_seed++)});
        args.insert(args.end(), progress.begin(), progress.end());
        Run r;
        try {
            const Progress::Span span = share(pt_cost);
            r = run_estimator("pt", args);
        } catch (const Cancelled&) {
            complete = false;
        }
        if (complete && r.result.is_null())
            skipped.push_back({{"method", "tempering (BAR, stepping stone)"}, {"reason", r.refusal}});
        else if (complete && r.result.contains("log_z") && r.result["log_z"].is_object()) {
            const json& z = r.result["log_z"];
            const bool done = r.result.value("complete", true);
            for (const char* key : {"bar", "stepping_stone"}) {
                if (!z.contains(key)) continue;
                LogZCandidate c;
                c.method = std::string("tempering ") + (std::string(key) == "bar" ? "BAR" : "stepping stone");
                c.source = "pt";
                c.complete = done;
                add_estimate(cands, estimates, c, z[key], "estimate",
                             {{"se", z[key].at("se")},
                              {"round_trips", r.result.at("round_trips")},
                              {"seconds", r.result.at("seconds")}},
                             r.command_line);
            }
            if (!done) complete = false;
        }
    }

    json j;
    j["kind"] = kind_name(model.kind());
    j["budget"] = budget_name;
    j["steps"] = b.steps;
    j["chains"] = b.chains;
    j["sweeps"] = b.sweeps;
    j["seed"] = seed;
    j["no_exact"] = no_exact;
    std::optional<double> exact;
    if (exact_known) {
        const double ex = exact_log_z(model);
        j["exact_log_z"] = ex;
        if (!no_exact) {
            exact = ex;
            estimates.push_back({{"method", "exact"},
                                 {"side", "exact"},
                                 {"log_z", ex},
                                 {"ci95", interval(ex, ex)},
                                 {"command_line", shell_command_line({"rbmscope-cli", "exact", a.positional(0)})}});
        }
    }
    j["estimates"] = estimates;
    j["skipped"] = skipped;
    j["complete"] = complete && !interrupt::requested();
    if (cands.empty()) {
        if (!j["complete"].get<bool>()) return finish(j);  // interrupted before any estimate finished
        throw InputError("no estimator of log Z applies to this model: " +
                         (skipped.empty() ? std::string("nothing ran") : skipped[0]["reason"].get<std::string>()));
    }
    const LogZVerdict v = judge_log_z(cands, exact);
    j["log_z"] = v.log_z;
    j["ci95"] = interval(v.low, v.high);
    j["agree"] = v.agree;
    j["trusted"] = v.trusted;
    j["warnings"] = v.warnings;
    j["verdict"] = exact       ? (v.trusted ? "exact; the estimates agree with it"
                                            : "exact; the estimates do not all agree with it (see warnings)")
                   : v.trusted ? "the independent estimates agree"
                               : "do not trust this interval (see warnings)";
    if (held_out) j["held_out"] = held_out_json(model, *held_out, v, estimates);
    return finish(j);
}

}  // namespace

REGISTER_COMMAND("logz", "one verdict on log Z: forward and reverse AIS, tempering, exact, side by side", run_logz);

}  // namespace rbm::cli
