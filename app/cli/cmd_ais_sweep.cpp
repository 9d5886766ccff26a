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
#include "core/ais/runner.hpp"
#include "core/exact/exact.hpp"
#include "core/io/model_io.hpp"
#include "core/io/presets.hpp"
#include "core/io/provenance.hpp"
#include "core/io/sweep_checkpoint.hpp"
#include "core/kernels/build_info.hpp"
#include "core/numerics/parallel.hpp"
#include "interrupt.hpp"
#include "mpi/distributed_ais.hpp"
#include "mpi/world.hpp"

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
            throw InputError("--methods: unknown base '" + m.base + "' in '" + item +
                             "' (expected moment|sigma|uniform|data)");
        out.push_back(m);
    }
    return out;
}

struct Row {
    std::string method, path, base, path_name;
    Index steps = 0;
    double log_z_mean = 0, log_z_sd = 0, ci_low = 0, ci_high = 0, ess = 0, ess_fraction = 0, log_w_mean = 0,
           seconds = 0;
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

// The sweep's own options; ais_path_options() follow them.
std::vector<Args::Option> sweep_options() {
    return {{"methods", "LIST",
             "comma-separated path[:base], e.g. geometric:moment,geometric:sigma,cov (default geometric:moment)"},
            {"steps", "K1,K2,...", "numbers of steps (default 10,30,100,300,1000)"},
            {"chains", "N", "AIS chains per run (default 100)"},
            {"repeats", "R", "independent runs per method and K (default 10); run r uses seed S + r"},
            {"seed", "S", "seed (default 1)"},
            {"schedule", "S", "linear (default) | sigmoid | four-period | piecewise | binned | geometric"},
            {"perfect", "", "perfect transitions"},
            {"reverse", "", "also run reverse AIS (upper estimates)"},
            {"format", "json|csv", "output format (default json)"},
            {"threads", "T", "worker threads"},
            {"checkpoint", "FILE",
             "save the finished runs to FILE (atomically) every --checkpoint-every runs and at the end"},
            {"checkpoint-every", "N", "finished runs between checkpoints (default 1)"},
            {"resume", "FILE",
             "continue from a checkpoint: same MODEL and options; runs only the missing ones "
             "(and keeps saving to FILE unless --checkpoint is given)"},
            {"stop-after", "N", "(for tests) stop after N runs of this invocation, as an interrupted sweep would"},
            Progress::option()};
}

Args ais_sweep_args(const std::vector<Args::Option>& opts) {
    return Args("ais-sweep", {"MODEL"}, opts,
                "AIS over several methods and numbers of steps K, each repeated R times: mean and sd of\n"
                "log Zhat over the repeats, the mean bootstrap 95% interval and the mean ESS (the papers'\n"
                "log Z vs K and ESS vs K figures). Repeat r of every method uses seed S + r, so\n"
                "`rbmscope-cli ais MODEL --seed S+r ...` reproduces one run.\n"
                "Ctrl-C: the rows (method, K) whose repeats all finished, runs_done of runs, \"complete\": false,\n"
                "exit 130; the unfinished run is dropped, and --checkpoint is written so --resume continues.");
}

// For checkpoints, the options that decide the numbers: every option but the sweep's own output,
// threads, checkpointing and progress options, which change no number.
std::vector<std::string> decisive_options(const std::vector<Args::Option>& opts, std::size_t n_sweep_options) {
    std::vector<std::string> decisive;
    for (std::size_t i = 0; i < opts.size(); ++i)
        if (i >= n_sweep_options ||
            (opts[i].name != "format" && opts[i].name != "threads" && opts[i].name != "checkpoint" &&
             opts[i].name != "checkpoint-every" && opts[i].name != "resume" && opts[i].name != "stop-after" &&
             opts[i].name != "progress"))
            decisive.push_back(opts[i].name);
    return decisive;
}

struct SweepRequest {
    std::vector<Method> methods;
    std::vector<long long> ks;
    Index chains = 0;
    int repeats = 0;
    std::uint64_t seed = 0;
    std::string schedule, format;
    bool perfect = false, reverse = false;
};

SweepRequest read_sweep_request(const Args& a) {
    SweepRequest q;
    q.methods = parse_methods(a.get("methods", "geometric:moment"));
    q.ks = a.get_ints("steps", 1);
    if (q.ks.empty()) q.ks = {10, 30, 100, 300, 1000};
    q.chains = a.get_int("chains", 100, 1, 1LL << 31);
    q.repeats = static_cast<int>(a.get_int("repeats", 10, 1, 1'000'000));
    q.seed = a.get_seed("seed", 1);
    q.schedule =
        a.get_choice("schedule", "linear", {"linear", "sigmoid", "four-period", "piecewise", "binned", "geometric"});
    q.format = a.get_choice("format", "json", {"json", "csv"});
    q.perfect = a.flag("perfect");
    q.reverse = a.flag("reverse");
    return q;
}

struct SweepFiles {
    std::string resume, checkpoint;  // checkpoint: --checkpoint, else --resume's file
    Index every = 1;                 // finished runs between checkpoints
    Index stop_after = 0;            // 0: run to the end
};

SweepFiles read_sweep_files(const Args& a) {
    SweepFiles f;
    f.resume = a.get("resume", "");
    f.checkpoint = a.get("checkpoint", f.resume);
    f.every = a.get_int("checkpoint-every", 1, 1);
    f.stop_after = a.get_int("stop-after", 0, 1);
    if (a.has("checkpoint-every") && f.checkpoint.empty())
        throw InputError("--checkpoint-every needs --checkpoint FILE");
    if (a.has("stop-after") && f.checkpoint.empty()) throw InputError("--stop-after needs --checkpoint FILE");
    if (!f.checkpoint.empty())
        check_writable(f.checkpoint, a.has("checkpoint") ? "--checkpoint" : "--resume");  // before any run
    return f;
}

// The runs of one sweep, in order: for each method and K, repeats 0..R-1. A run already in the
// checkpoint is taken from it; a missing one is run and added (the checkpoint written every
// --checkpoint-every runs). Ctrl-C drops the unfinished run (interrupted()); --stop-after N ends
// the sweep before its (N+1)th run of this invocation (stopped()).
class SweepRuns {
public:
    SweepRuns(const Args& a, const Model& model, const SweepRequest& q, const SweepFiles& files, Checkpoint& ck,
              Progress& progress)
        : a_(a), model_(model), q_(q), files_(files), ck_(ck), progress_(progress),
          runs_total_(static_cast<Index>(q.methods.size() * q.ks.size()) * q.repeats) {}

    // The rows of the (method, K) whose repeats all finished.
    std::vector<Row> run() {
        std::vector<Row> rows;
        for (const Method& m : q_.methods) {
            PathPtr p;  // built only when one of the method's runs is missing
            for (long long k : q_.ks) {
                std::optional<Row> row = row_of(m, k, p);
                if (!row) return rows;  // an unfinished (method, K) gives no row
                rows.push_back(*row);
            }
        }
        return rows;
    }

    bool interrupted() const { return interrupted_; }
    bool stopped() const { return stopped_; }
    Index ran() const { return ran_; }              // runs done by this invocation
    Index runs_seen() const { return runs_seen_; }  // runs finished, from the checkpoint or here
    Index runs_total() const { return runs_total_; }

private:
    std::optional<Row> row_of(const Method& m, long long k, PathPtr& p) {
        std::optional<Schedule> schedule;
        std::vector<double> lz, lo, hi, ess, essf, lwm, up;
        double secs = 0;
        std::string path_name;
        for (int r = 0; r < q_.repeats; ++r) {
            const RunResult* x = result_of(m, k, r, p, schedule);
            if (!x) return std::nullopt;
            ++runs_seen_;
            // Each finished run as it comes (a follower shows the estimates live).
            progress_.result("sweep", {{"point",
                                        {{"method", m.spec},
                                         {"k", k},
                                         {"repeat", r},
                                         {"log_z", x->log_z},
                                         {"ci95_low", x->ci_low},
                                         {"ci95_high", x->ci_high},
                                         {"ess", x->ess}}},
                                       {"runs_done", runs_seen_},
                                       {"runs", runs_total_}});
            path_name = x->path_name;
            lz.push_back(x->log_z);
            lo.push_back(x->ci_low);
            hi.push_back(x->ci_high);
            ess.push_back(x->ess);
            essf.push_back(x->ess_fraction);
            lwm.push_back(x->log_w_mean);
            if (x->upper) up.push_back(*x->upper);
            secs += x->seconds;
        }
        Row row{m.spec,      m.path,      m.base,       path_name,     static_cast<Index>(k), mean_of(lz), sd_of(lz),
                mean_of(lo), mean_of(hi), mean_of(ess), mean_of(essf), mean_of(lwm),          secs};
        if (!up.empty()) {
            row.upper_mean = mean_of(up);
            row.upper_sd = sd_of(up);
        }
        return row;
    }

    // Repeat r of method m at K = k: from the checkpoint, or run now (building the method's path
    // and the schedule for this K on first use). Null when the sweep stops here.
    const RunResult* result_of(const Method& m, long long k, int r, PathPtr& p, std::optional<Schedule>& schedule) {
        const RunKey key{m.spec, k, r};
        if (auto it = ck_.runs.find(key); it != ck_.runs.end()) return &it->second;
        if (files_.stop_after > 0 && ran_ == files_.stop_after) {
            stopped_ = true;
            return nullptr;
        }
        const double run_lo = static_cast<double>(runs_seen_) / static_cast<double>(runs_total_);
        AisWork work(progress_, q_.chains, static_cast<Index>(k), q_.reverse, run_lo,
                     static_cast<double>(runs_seen_ + 1) / static_cast<double>(runs_total_));
        if (!p) {
            PathRequest preq = ais_path_request(a_, model_, m.path, m.base, q_.seed);
            work.watch_moments(preq.moments);
            try {
                p = build_path(model_, preq);
            } catch (const Cancelled&) {
                interrupted_ = true;
                return nullptr;
            }
        }
        if (!schedule) {
            ScheduleRequest sreq;
            sreq.kind = q_.schedule;
            sreq.steps = k;
            schedule = make_schedule(sreq, p.get());
        }
        AisOptions o;
        o.chains = q_.chains;
        o.seed = q_.seed + static_cast<std::uint64_t>(r);
        o.perfect = q_.perfect;
        o.reverse = q_.reverse;
        o.cost_functional = false;  // not in the output: spare its enumeration
        o.checkpoints = 1;
        const AisResult res =
            mpi::run_ais_on_world(*p, *schedule, o, work.control(static_cast<Index>(schedule->size()) - 1));
        if (!res.complete) {  // interrupted: this run is dropped, the finished ones kept
            interrupted_ = true;
            return nullptr;
        }
        RunResult x{p->name(),
                    res.estimate.log_z,
                    res.estimate.ci95_low,
                    res.estimate.ci95_high,
                    res.estimate.ess,
                    res.estimate.ess_fraction,
                    res.estimate.log_w_mean,
                    res.seconds,
                    {}};
        if (res.reverse && res.reverse->log_z_upper) x.upper = *res.reverse->log_z_upper;
        const auto it = ck_.runs.emplace(key, x).first;
        if (++ran_ % files_.every == 0 && !files_.checkpoint.empty()) save_checkpoint(files_.checkpoint, ck_);
        return &it->second;
    }

    const Args& a_;
    const Model& model_;
    const SweepRequest& q_;
    const SweepFiles& files_;
    Checkpoint& ck_;
    Progress& progress_;
    const Index runs_total_;
    Index ran_ = 0, runs_seen_ = 0;
    bool interrupted_ = false, stopped_ = false;
};

void print_sweep_csv(const std::vector<Row>& rows, const SweepRequest& q, double exact) {
    std::cout << "method,path,base,steps,chains,repeats,log_z_mean,log_z_sd,ci95_low_mean,ci95_high_mean,ess_mean,"
                 "ess_fraction_mean,log_w_mean,log_z_upper_mean,log_z_upper_sd,exact_log_z,seconds\n";
    for (const Row& r : rows)
        std::cout << r.method << ',' << r.path << ',' << r.base << ',' << r.steps << ',' << q.chains << ',' << q.repeats
                  << ',' << csv_number(r.log_z_mean) << ',' << csv_number(r.log_z_sd) << ',' << csv_number(r.ci_low)
                  << ',' << csv_number(r.ci_high) << ',' << csv_number(r.ess) << ',' << csv_number(r.ess_fraction)
                  << ',' << csv_number(r.log_w_mean) << ',' << csv_number(r.upper_mean) << ',' << csv_number(r.upper_sd)
                  << ',' << csv_number(exact) << ',' << csv_number(r.seconds) << '\n';
}

json ais_sweep_json(const std::string& model_name, const std::vector<Row>& rows, const SweepRequest& q,
                    const SweepRuns& sweep, std::optional<double> exact) {
    json j;
    j["model"] = model_name;
    if (exact) j["exact_log_z"] = *exact;
    j["chains"] = q.chains;
    j["repeats"] = q.repeats;
    j["seed"] = q.seed;
    j["schedule"] = q.schedule;
    j["perfect"] = q.perfect;
    json results = json::array(), warnings = json::array();
    for (const Row& r : rows) {
        json x{{"method", r.method},
               {"path", r.path},
               {"base", r.base},
               {"path_name", r.path_name},
               {"steps", r.steps},
               {"log_z_mean", r.log_z_mean},
               {"log_z_sd", r.log_z_sd},
               {"ci95_low_mean", r.ci_low},
               {"ci95_high_mean", r.ci_high},
               {"ess_mean", r.ess},
               {"ess_fraction_mean", r.ess_fraction},
               {"log_w_mean", r.log_w_mean},
               {"seconds", r.seconds}};
        if (std::isfinite(r.upper_mean)) {
            x["log_z_upper_mean"] = r.upper_mean;
            x["log_z_upper_sd"] = r.upper_sd;
        }
        results.push_back(x);
        // docs/methods/ais-estimates.md#interval-warnings: the rows whose (mean) ESS is too small for their interval.
        if (const std::string w = ess_warning(r.ess, "log Z for " + r.method + " at K = " + std::to_string(r.steps));
            !w.empty())
            warnings.push_back(w);
    }
    j["results"] = results;
    j["complete"] = !sweep.interrupted();
    if (sweep.interrupted()) {
        j["runs_done"] = sweep.runs_seen();
        j["runs"] = sweep.runs_total();
    }
    if (!warnings.empty()) j["warnings"] = warnings;
    return j;
}

json run_ais_sweep(const std::vector<std::string>& argv) {
    std::vector<Args::Option> opts = sweep_options();
    const std::size_t n_sweep_options = opts.size();
    for (auto& o : ais_path_options()) opts.push_back(o);
    Args a = ais_sweep_args(opts);
    a.parse(argv);
    if (a.help_requested()) {
        std::cout << a.usage();
        return nullptr;
    }
    ThreadLimit limit(static_cast<int>(a.get_int("threads", 0, 0, 1024)));
    const SweepRequest q = read_sweep_request(a);
    const Model model = a.model(0);
    check_ais_memory(q.chains, model.n_visible());  // every run's chains, before any moment phase
    const json options = sweep_options_json(a, model, decisive_options(opts, n_sweep_options));
    const SweepFiles files = read_sweep_files(a);
    Checkpoint ck = files.resume.empty() ? Checkpoint{options, {}, {}} : load_checkpoint(files.resume, options);
    // The checkpoint's build (--resume) against this one's; what is saved from now on records this one.
    std::string resumed_note;
    if (ck.build.is_object())
        if (const std::string d = build_difference(build_record(ck.build), build_record(build_json())); !d.empty())
            resumed_note = "--resume: the checkpoint was " + d;
    ck.build = provenance_json(threads_in_force(), mpi::world().size());

    interrupt::watch();
    Progress progress(a);
    SweepRuns sweep(a, model, q, files, ck, progress);
    progress.update("sweep", 0, 0);
    const std::vector<Row> rows = sweep.run();
    if (sweep.stopped()) {
        save_checkpoint(files.checkpoint, ck);
        return {{"stopped_after", sweep.ran()}, {"runs_done", ck.runs.size()}, {"checkpoint", files.checkpoint}};
    }
    if (!files.checkpoint.empty() &&
        (sweep.ran() == 0 ? files.resume != files.checkpoint : sweep.ran() % files.every != 0))
        save_checkpoint(files.checkpoint, ck);  // the complete sweep (or the runs finished before Ctrl-C)
    progress.finish(!sweep.interrupted(), {{"runs_done", sweep.runs_seen()}, {"runs", sweep.runs_total()}});
    const std::optional<double> exact =
        has_exact_log_z(model) ? std::optional<double>(exact_log_z(model)) : std::nullopt;
    if (q.format == "csv") {
        print_sweep_csv(rows, q, exact.value_or(NAN));
        return nullptr;
    }
    json out = ais_sweep_json(a.positional(0), rows, q, sweep, exact);
    if (!resumed_note.empty()) out["warnings"].push_back(resumed_note);
    return out;
}

}  // namespace

REGISTER_COMMAND("ais-sweep", "AIS log Z and ESS vs number of steps K for several methods (repeated runs)",
                 run_ais_sweep);

}  // namespace rbm::cli
