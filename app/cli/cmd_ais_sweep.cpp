// rbmscope-cli ais-sweep: log Zhat and ESS against the number of steps K for several methods,
// over repeated runs -- the data behind the papers' "log Z vs K" and "ESS vs K" figures.
// Long sweeps can be checkpointed (the finished runs' results at full precision and the sweep's
// options) and resumed: only the missing runs are done, and the output is that of an
// uninterrupted sweep (the "seconds" fields aside, which are measured).
#include <cmath>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

#include "ais_cli.hpp"
#include "interrupt.hpp"
#include "core/ais/runner.hpp"
#include "core/exact/exact.hpp"
#include "core/io/model_io.hpp"
#include "core/numerics/parallel.hpp"
#include "core/io/presets.hpp"
#include "mpi/distributed_ais.hpp"
#include "mpi/world.hpp"
#include "core/io/sweep_checkpoint.hpp"

namespace rbm::cli {
namespace {

struct Method {
    std::string spec, path, base;
};

std::vector<Method> parse_methods(const std::string& list) {
    static const std::vector<std::string> paths{"geometric", "cov", "moments", "leaky", "energy"};
    static const std::vector<std::string> bases{"moment", "sigma", "uniform", "data"};
    std::vector<Method> out;
    std::stringstream ss(list);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (item.empty()) throw InputError("--methods has an empty entry in '" + list + "'");
        Method m{item, item, "moment"};
        if (auto c = item.find(':'); c != std::string::npos) {
            m.path = item.substr(0, c);
            m.base = item.substr(c + 1);
        }
        if (std::find(paths.begin(), paths.end(), m.path) == paths.end())
            throw InputError("--methods: unknown path '" + m.path + "' in '" + item +
                             "' (expected geometric|cov|moments|leaky|energy, optionally :base)");
        if (std::find(bases.begin(), bases.end(), m.base) == bases.end())
            throw InputError("--methods: unknown base '" + m.base + "' in '" + item + "' (expected moment|sigma|uniform|data)");
        out.push_back(m);
    }
    return out;
}

struct Row {
    std::string method, path, base, path_name;
    Index steps = 0;
    double log_z_mean = 0, log_z_sd = 0, ci_low = 0, ci_high = 0, ess = 0, ess_fraction = 0, log_w_mean = 0, seconds = 0;
    double upper_mean = NAN, upper_sd = NAN;
};

double mean_of(const std::vector<double>& x) {
    double s = 0;
    for (double v : x) s += v;
    return s / static_cast<double>(x.size());
}
double sd_of(const std::vector<double>& x) {
    if (x.size() < 2) return 0.0;
    const double m = mean_of(x);
    double s = 0;
    for (double v : x) s += (v - m) * (v - m);
    return std::sqrt(s / static_cast<double>(x.size() - 1));
}

std::string csv_number(double x) {
    if (!std::isfinite(x)) return "";
    std::ostringstream os;
    os.precision(10);
    os << x;
    return os.str();
}

// ---- checkpoints (core/io/sweep_checkpoint.hpp) ----
using RunResult = SweepRunResult;
using RunKey = SweepRunKey;
using Checkpoint = SweepCheckpoint;

// The options that decide the sweep's numbers, in the order they are checked on --resume.
// Output format, threads (results do not depend on them) and the checkpoint options are left out.
json sweep_options_json(const Args& a, const Model& model, const std::vector<std::string>& argv_names) {
    json o = json::array();
    auto add = [&](const std::string& name, const json& value) { o.push_back({{"option", name}, {"value", value}}); };
    add("MODEL", a.positional(0));
    std::uint64_t h = 1469598103934665603ULL;  // FNV-1a: a changed model file under the same name is another sweep
    for (unsigned char ch : model_to_json_text(model)) h = (h ^ ch) * 1099511628211ULL;
    add("MODEL (contents)", std::to_string(h));
    for (const std::string& name : argv_names) add("--" + name, a.has(name) ? json(a.get(name, "")) : json(nullptr));
    return o;
}

void save_checkpoint(const std::string& file, const Checkpoint& c) {
    if (!mpi::world().root()) return;  // under mpirun every rank holds the same runs; one writes
    write_file_atomically(file, sweep_checkpoint_json(c));
    mpi::test_pause_after_checkpoint();
}

// Reads a checkpoint and refuses it when it was made with other options, naming the first one.
Checkpoint load_checkpoint(const std::string& file, const json& options) {
    return sweep_checkpoint_from_json(read_file(file), options, "--resume " + file);
}

json run_ais_sweep(const std::vector<std::string>& argv) {
    std::vector<Args::Option> opts{
        {"methods", "LIST", "comma-separated path[:base], e.g. geometric:moment,geometric:sigma,cov (default geometric:moment)"},
        {"steps", "K1,K2,...", "numbers of steps (default 10,30,100,300,1000)"},
        {"chains", "N", "AIS chains per run (default 100)"},
        {"repeats", "R", "independent runs per method and K (default 10); run r uses seed S + r"},
        {"seed", "S", "seed (default 1)"},
        {"schedule", "S", "linear (default) | sigmoid | four-period | piecewise | binned | geometric"},
        {"perfect", "", "perfect transitions"},
        {"reverse", "", "also run reverse AIS (upper estimates)"},
        {"format", "json|csv", "output format (default json)"},
        {"threads", "T", "worker threads"},
        {"checkpoint", "FILE", "save the finished runs to FILE (atomically) every --checkpoint-every runs and at the end"},
        {"checkpoint-every", "N", "finished runs between checkpoints (default 1)"},
        {"resume", "FILE", "continue from a checkpoint: same MODEL and options; runs only the missing ones "
                           "(and keeps saving to FILE unless --checkpoint is given)"},
        {"stop-after", "N", "(for tests) stop after N runs of this invocation, as an interrupted sweep would"},
        Progress::option()};
    const std::size_t n_sweep_options = opts.size();
    for (auto& o : ais_path_options()) opts.push_back(o);
    Args a("ais-sweep", {"MODEL"}, opts,
           "AIS over several methods and numbers of steps K, each repeated R times: mean and sd of\n"
           "log Zhat over the repeats, the mean bootstrap 95% interval and the mean ESS (the papers'\n"
           "log Z vs K and ESS vs K figures). Repeat r of every method uses seed S + r, so\n"
           "`rbmscope-cli ais MODEL --seed S+r ...` reproduces one run.\n"
           "Ctrl-C: the rows (method, K) whose repeats all finished, runs_done of runs, \"complete\": false,\n"
           "exit 130; the unfinished run is dropped, and --checkpoint is written so --resume continues.");
    a.parse(argv);
    if (a.help_requested()) {
        std::cout << a.usage();
        return nullptr;
    }
    ThreadLimit limit(static_cast<int>(a.get_int("threads", 0, 0, 1024)));
    const std::vector<Method> methods = parse_methods(a.get("methods", "geometric:moment"));
    std::vector<long long> ks = a.get_ints("steps", 1);
    if (ks.empty()) ks = {10, 30, 100, 300, 1000};
    const Index chains = a.get_int("chains", 100, 1, 1LL << 31);
    const int repeats = static_cast<int>(a.get_int("repeats", 10, 1, 1'000'000));
    const std::uint64_t seed = a.get_seed("seed", 1);
    const std::string kind = a.get_choice("schedule", "linear",
                                          {"linear", "sigmoid", "four-period", "piecewise", "binned", "geometric"});
    const std::string format = a.get_choice("format", "json", {"json", "csv"});
    const Model model = a.model(0);

    // Checkpoints: the options that decide the numbers are every option but these (output, threads,
    // checkpointing and progress reporting change no number).
    std::vector<std::string> decisive;
    for (std::size_t i = 0; i < opts.size(); ++i)
        if (i >= n_sweep_options ||
            (opts[i].name != "format" && opts[i].name != "threads" && opts[i].name != "checkpoint" &&
             opts[i].name != "checkpoint-every" && opts[i].name != "resume" && opts[i].name != "stop-after" &&
             opts[i].name != "progress"))
            decisive.push_back(opts[i].name);
    const json options = sweep_options_json(a, model, decisive);
    const std::string resume = a.get("resume", "");
    const std::string checkpoint_file = a.get("checkpoint", resume);
    const Index every = a.get_int("checkpoint-every", 1, 1);
    const Index stop_after = a.get_int("stop-after", 0, 1);
    if (a.has("checkpoint-every") && checkpoint_file.empty()) throw InputError("--checkpoint-every needs --checkpoint FILE");
    if (a.has("stop-after") && checkpoint_file.empty()) throw InputError("--stop-after needs --checkpoint FILE");
    Checkpoint ck = resume.empty() ? Checkpoint{options, {}} : load_checkpoint(resume, options);
    Index ran = 0;

    interrupt::watch();
    Progress progress(a);
    const Index runs_total = static_cast<Index>(methods.size() * ks.size()) * repeats;
    Index runs_seen = 0;  // runs finished, from the checkpoint or here
    bool interrupted = false;
    progress.update("sweep", 0, 0);

    std::vector<Row> rows;
    for (const Method& m : methods) {
        if (interrupted) break;
        PathPtr p;  // built only when one of the method's runs is missing
        for (long long k : ks) {
            if (interrupted) break;
            std::optional<Schedule> schedule;
            std::vector<double> lz, lo, hi, ess, essf, lwm, up;
            double secs = 0;
            std::string path_name;
            for (int r = 0; r < repeats; ++r) {
                const RunKey key{m.spec, k, r};
                auto it = ck.runs.find(key);
                if (it == ck.runs.end()) {
                    if (stop_after > 0 && ran == stop_after) {
                        save_checkpoint(checkpoint_file, ck);
                        return {{"stopped_after", ran}, {"runs_done", ck.runs.size()}, {"checkpoint", checkpoint_file}};
                    }
                    const double run_lo = static_cast<double>(runs_seen) / static_cast<double>(runs_total);
                    AisWork work(progress, chains, static_cast<Index>(k), a.flag("reverse"), run_lo,
                                 static_cast<double>(runs_seen + 1) / static_cast<double>(runs_total));
                    if (!p) {
                        PathRequest preq = ais_path_request(a, model, m.path, m.base, seed);
                        work.watch_moments(preq.moments);
                        try {
                            p = build_path(model, preq);
                        } catch (const Cancelled&) {
                            interrupted = true;
                            break;
                        }
                    }
                    if (!schedule) {
                        ScheduleRequest sreq;
                        sreq.kind = kind;
                        sreq.steps = k;
                        schedule = make_schedule(sreq, p.get());
                    }
                    AisOptions o;
                    o.chains = chains;
                    o.seed = seed + static_cast<std::uint64_t>(r);
                    o.perfect = a.flag("perfect");
                    o.reverse = a.flag("reverse");
                    o.checkpoints = 1;
                    const AisResult res = mpi::run_ais_on_world(*p, *schedule, o, work.control(static_cast<Index>(schedule->size()) - 1));
                    if (!res.complete) {  // interrupted: this run is dropped, the finished ones kept
                        interrupted = true;
                        break;
                    }
                    RunResult x{p->name(),         res.estimate.log_z, res.estimate.ci95_low,   res.estimate.ci95_high,
                                res.estimate.ess, res.estimate.ess_fraction, res.estimate.log_w_mean, res.seconds, {}};
                    if (res.reverse && res.reverse->log_z_upper) x.upper = *res.reverse->log_z_upper;
                    it = ck.runs.emplace(key, x).first;
                    if (++ran % every == 0 && !checkpoint_file.empty()) save_checkpoint(checkpoint_file, ck);
                }
                ++runs_seen;
                const RunResult& x = it->second;
                // Each finished run as it comes (a follower shows the estimates live).
                progress.result("sweep", {{"point", {{"method", m.spec}, {"k", k}, {"repeat", r}, {"log_z", x.log_z},
                                                     {"ci95_low", x.ci_low}, {"ci95_high", x.ci_high}, {"ess", x.ess}}},
                                          {"runs_done", runs_seen}, {"runs", runs_total}});
                path_name = x.path_name;
                lz.push_back(x.log_z);
                lo.push_back(x.ci_low);
                hi.push_back(x.ci_high);
                ess.push_back(x.ess);
                essf.push_back(x.ess_fraction);
                lwm.push_back(x.log_w_mean);
                if (x.upper) up.push_back(*x.upper);
                secs += x.seconds;
            }
            if (interrupted) break;  // an unfinished (method, K) gives no row
            Row row{m.spec, m.path, m.base, path_name, static_cast<Index>(k), mean_of(lz), sd_of(lz), mean_of(lo),
                    mean_of(hi), mean_of(ess), mean_of(essf), mean_of(lwm), secs};
            if (!up.empty()) {
                row.upper_mean = mean_of(up);
                row.upper_sd = sd_of(up);
            }
            rows.push_back(row);
        }
    }
    if (!checkpoint_file.empty() && (ran == 0 ? resume != checkpoint_file : ran % every != 0))
        save_checkpoint(checkpoint_file, ck);  // the complete sweep (or the runs finished before Ctrl-C)
    progress.finish(!interrupted, {{"runs_done", runs_seen}, {"runs", runs_total}});
    const bool exact_known = has_exact_log_z(model);
    const double exact = exact_known ? exact_log_z(model) : NAN;

    if (format == "csv") {
        std::cout << "method,path,base,steps,chains,repeats,log_z_mean,log_z_sd,ci95_low_mean,ci95_high_mean,ess_mean,"
                     "ess_fraction_mean,log_w_mean,log_z_upper_mean,log_z_upper_sd,exact_log_z,seconds\n";
        for (const Row& r : rows)
            std::cout << r.method << ',' << r.path << ',' << r.base << ',' << r.steps << ',' << chains << ',' << repeats << ','
                      << csv_number(r.log_z_mean) << ',' << csv_number(r.log_z_sd) << ',' << csv_number(r.ci_low) << ','
                      << csv_number(r.ci_high) << ',' << csv_number(r.ess) << ',' << csv_number(r.ess_fraction) << ','
                      << csv_number(r.log_w_mean) << ',' << csv_number(r.upper_mean) << ',' << csv_number(r.upper_sd) << ','
                      << csv_number(exact) << ',' << csv_number(r.seconds) << '\n';
        return nullptr;
    }
    json j;
    j["model"] = a.positional(0);
    if (exact_known) j["exact_log_z"] = exact;
    j["chains"] = chains;
    j["repeats"] = repeats;
    j["seed"] = seed;
    j["schedule"] = kind;
    j["perfect"] = a.flag("perfect");
    json results = json::array(), warnings = json::array();
    for (const Row& r : rows) {
        json x{{"method", r.method},         {"path", r.path},           {"base", r.base},
               {"path_name", r.path_name},   {"steps", r.steps},         {"log_z_mean", r.log_z_mean},
               {"log_z_sd", r.log_z_sd},     {"ci95_low_mean", r.ci_low}, {"ci95_high_mean", r.ci_high},
               {"ess_mean", r.ess},          {"ess_fraction_mean", r.ess_fraction},
               {"log_w_mean", r.log_w_mean}, {"seconds", r.seconds}};
        if (std::isfinite(r.upper_mean)) {
            x["log_z_upper_mean"] = r.upper_mean;
            x["log_z_upper_sd"] = r.upper_sd;
        }
        results.push_back(x);
        // SPEC §9: the rows whose (mean) ESS is too small for their interval.
        if (const std::string w = ess_warning(r.ess, "log Z for " + r.method + " at K = " + std::to_string(r.steps)); !w.empty())
            warnings.push_back(w);
    }
    j["results"] = results;
    j["complete"] = !interrupted;
    if (interrupted) {
        j["runs_done"] = runs_seen;
        j["runs"] = runs_total;
    }
    if (!warnings.empty()) j["warnings"] = warnings;
    return j;
}

}  // namespace

REGISTER_COMMAND("ais-sweep", "AIS log Z and ESS vs number of steps K for several methods (repeated runs)", run_ais_sweep);

}  // namespace rbm::cli
