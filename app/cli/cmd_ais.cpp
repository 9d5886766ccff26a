// rbmscope-cli ais: one AIS run with its estimates and diagnostics (docs/methods/ais-estimates.md, docs/user/cli.md).
#include <cmath>
#include <fstream>
#include <iostream>
#include <sstream>

#include "ais_cli.hpp"
#include "core/ais/pareto_khat.hpp"
#include "core/ais/runner.hpp"
#include "core/exact/exact.hpp"
#include "core/io/presets.hpp"
#include "core/numerics/memory_budget.hpp"
#include "core/numerics/parallel.hpp"
#include "core/tempering/target_states.hpp"
#include "data_args.hpp"
#include "interrupt.hpp"
#include "mpi/distributed_ais.hpp"
#include "progress.hpp"

namespace rbm::cli {

std::vector<Args::Option> ais_path_options() {
    std::vector<Args::Option> opts{
        {"from", "BASE_MODEL",
         "explicit start distribution (model file or preset), e.g. one gaussian annealed into another"},
        {"data", "SPEC",
         "data for the target moments / base rate: a CSV of visible vectors (one per row), or a data spec\n"
         "      as for train (bars:D, digits, FILE.csv[.gz], FILE-idx3-ubyte) with its transforms (--binarize T ...);\n"
         "      default: the data recorded in the model file by train (key \"training\"), used by --base data"},
        {"moments", "auto|exact|gibbs", "where target moments come from (default auto: exact when enumerable)"},
        {"moment-chains", "N", "Gibbs chains for target moments (default 100)"},
        {"moment-steps", "T", "Gibbs steps after burn-in for target moments (default 5000)"},
        {"moment-burn-in", "B", "Gibbs burn-in for target moments (default 100)"},
        {"kernel", "exact-mh|paper-gibbs", "transition kernel of the leaky paths (default exact-mh)"},
        {"knots", "b1,b2,...", "MAS knots strictly inside (0,1) (--path moments; default 0.1,...,0.9)"}};
    for (const auto& o : data_options()) opts.push_back(o);
    return opts;
}

RowMat read_data_rows(const std::string& file, Index n_visible, bool binary) {
    std::ifstream in(file);
    if (!in) throw InputError("cannot open data file '" + file + "'");
    std::vector<std::vector<double>> rows;
    std::string line;
    long long lineno = 0;
    bool first = true;
    while (std::getline(in, line)) {
        ++lineno;
        for (char& ch : line)
            if (ch == ',' || ch == ';' || ch == '\t' || ch == '\r') ch = ' ';
        std::istringstream ls(line);
        std::string tok;
        std::vector<double> row;
        bool numeric = true;
        while (ls >> tok) {
            if (tok[0] == '#') break;
            std::size_t pos = 0;
            double x = 0;
            try {
                x = std::stod(tok, &pos);
            } catch (...) {
                pos = 0;
            }
            if (pos != tok.size() || !std::isfinite(x)) {
                numeric = false;
                break;
            }
            row.push_back(x);
        }
        if (!numeric && first) {  // a header line
            first = false;
            continue;
        }
        if (!numeric)
            throw InputError("data file '" + file + "' line " + std::to_string(lineno) + ": '" + tok +
                             "' is not a number");
        if (row.empty()) continue;
        first = false;
        if (static_cast<Index>(row.size()) != n_visible)
            throw InputError("data file '" + file + "' line " + std::to_string(lineno) + " has " +
                             std::to_string(row.size()) + " values, the model " + std::to_string(n_visible) +
                             " visible units");
        if (binary)
            for (std::size_t i = 0; i < row.size(); ++i)
                if (row[i] != 0.0 && row[i] != 1.0) {
                    std::ostringstream os;
                    os << "data file '" << file << "' line " << lineno << " column " << i + 1 << " is " << row[i]
                       << "; a BRBM needs 0/1 values";
                    throw InputError(os.str());
                }
        rows.push_back(std::move(row));
    }
    if (rows.empty()) throw InputError("data file '" + file + "' has no data rows");
    RowMat X(static_cast<Index>(rows.size()), n_visible);
    for (std::size_t r = 0; r < rows.size(); ++r)
        for (Index i = 0; i < n_visible; ++i) X(static_cast<Index>(r), i) = rows[r][static_cast<std::size_t>(i)];
    return X;
}

// A plain file of visible vectors (read_data_rows, whitespace or commas, '#' comments) unless it
// is a data spec of train's or comes with train's transforms.
static bool is_rows_file(const Args& a, const std::string& d) {
    const auto ends = [&](const std::string& suffix) {
        return d.size() >= suffix.size() && d.compare(d.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    return !(has_data_transform(a) || d == "digits" || d.rfind("bars:", 0) == 0 || ends(".csv.gz") ||
             ends("idx3-ubyte"));
}

std::string default_ais_base(const Args& a, const Model& model) {
    return model.kind() == ModelKind::Brbm && (a.has("data") || model.training) ? "data" : "moment";
}

PathRequest ais_path_request(const Args& a, const Model& target, const std::string& path, const std::string& base,
                             std::uint64_t seed) {
    PathRequest req;
    req.path = path;
    req.base = base;
    if (auto f = a.get("from")) req.from = resolve_model_argument(*f);
    const std::string src = a.get_choice("moments", "auto", {"auto", "exact", "gibbs"});
    req.moments.kind = src == "exact"   ? MomentSource::Kind::Exact
                       : src == "gibbs" ? MomentSource::Kind::Gibbs
                                        : MomentSource::Kind::Auto;
    req.moments.gibbs_chains = a.get_int("moment-chains", 100, 1, 1'000'000);
    req.moments.gibbs_steps = a.get_int("moment-steps", 5000, 1, 1'000'000'000);
    req.moments.gibbs_burn_in = a.get_int("moment-burn-in", 100, 0, 1'000'000'000);
    req.moments.seed = seed;
    req.mas.seed = seed;
    if (req.moments.kind != MomentSource::Kind::Exact)  // the Gibbs chains of the target moments, if they run
        check_memory_budget(static_cast<double>(req.moments.gibbs_chains) *
                                (8.0 * static_cast<double>(target.n_visible() + target.n_hidden() + 2) + sizeof(Rng)),
                            "Gibbs target moments with " + std::to_string(req.moments.gibbs_chains) + " chains of " +
                                std::to_string(target.n_visible()) + " + " + std::to_string(target.n_hidden()) +
                                " units");
    if (auto d = a.get("data")) {
        if (a.has("moments"))
            throw InputError("--data and --moments both say where the target moments come from; give one");
        req.moments.kind = MomentSource::Kind::Data;
        if (is_rows_file(a, *d))
            req.moments.data = read_data_rows(*d, target.n_visible(), target.kind() == ModelKind::Brbm);
        else req.moments.data = inspection_data(a, target, a.positional(0))->data.X;
    } else if (base == "data" && target.training) {
        // The data the model was trained on, as recorded by train: the base rate only (the
        // moment source of other bases is unchanged).
        req.moments.data = inspection_data(a, target, a.positional(0))->data.X;
    } else if (has_data_transform(a)) {
        throw InputError("--binarize, --scale, --standardize, --shifts, --limit and --csv-* need --data SPEC");
    }
    const bool leaky_path = path == "leaky" || path == "energy" || target.kind() == ModelKind::Leaky;
    if (a.has("kernel")) {
        if (!leaky_path) throw InputError("--kernel chooses the leaky RBM kernel; it does not apply to --path " + path);
        req.leaky_kernel = a.get_choice("kernel", "exact-mh", {"exact-mh", "paper-gibbs"}) == "paper-gibbs"
                               ? LeakyKernel::PaperGibbs
                               : LeakyKernel::ExactMH;
    }
    if (a.has("knots")) {
        if (path != "moments") throw InputError("--knots are the MAS knots; they only apply to --path moments");
        req.mas.knots = a.get_doubles("knots");
        double prev = 0;
        for (std::size_t i = 0; i < req.mas.knots.size(); ++i) {
            const double k = req.mas.knots[i];
            if (!(k > prev && k < 1))
                throw InputError("--knots must increase strictly inside (0, 1); knot " + std::to_string(i + 1) +
                                 " is " + std::to_string(k));
            prev = k;
        }
    }
    return req;
}

AisWork::AisWork(Progress& progress, Index chains, Index steps_guess, bool reverse, double lo, double hi)
    : progress_(progress), chains_(chains),
      anneal_work_(static_cast<double>(chains) * static_cast<double>(std::max<Index>(steps_guess, 1)) *
                   (reverse ? 2 : 1)),
      phases_(reverse ? 2 : 1), lo_(lo), hi_(hi) {}

double AisWork::map(double done_work, double all_work) const {
    return lo_ + (hi_ - lo_) * (all_work > 0 ? done_work / all_work : 0.0);
}

void AisWork::watch_moments(MomentSource& src) {
    src.cancel = &interrupt::flag();
    moment_chains_ = src.gibbs_chains;
    src.on_sweep = [this](Index done, Index total) {
        moment_done_ = done;
        moment_total_ = total;
        const double per = static_cast<double>(moment_chains_);
        const double done_work = per * static_cast<double>(done);
        progress_.update("moments", map(done_work, per * static_cast<double>(total) + anneal_work_), done_work,
                         {{"sweep", done}, {"sweeps", total}});
    };
    // Within a sweep of many chains of a large model (seconds each): "sweep" counts the finished
    // ones, "sweep_fraction" how far the current one is.
    src.on_partial = [this](double sweeps, Index total) {
        moment_total_ = total;
        const double per = static_cast<double>(moment_chains_);
        const double done_work = per * sweeps;
        progress_.update("moments", map(done_work, per * static_cast<double>(total) + anneal_work_), done_work,
                         {{"sweep", static_cast<Index>(sweeps)},
                          {"sweeps", total},
                          {"sweep_fraction", sweeps - std::floor(sweeps)}});
    };
    progress_.update("moments", lo_, 0);
}

AisControl AisWork::control(Index steps) {
    anneal_work_ = static_cast<double>(chains_) * static_cast<double>(steps) * phases_;
    AisControl c;
    c.cancel = &interrupt::flag();
    if (progress_.mode() != Progress::Mode::Off)
        c.on_progress = [this](const AisSnapshot& s) {
            const double moments = static_cast<double>(moment_chains_) * static_cast<double>(moment_total_);
            progress_.update(s.phase == AisPhase::Forward ? "annealing" : "reverse",
                             map(moments + s.fraction * anneal_work_, moments + anneal_work_),
                             static_cast<double>(s.step) * static_cast<double>(chains_),
                             {{"beta", s.beta}, {"step", s.step}, {"steps", s.steps}});
        };
    return c;
}

namespace {

json histogram_json(const Histogram& h) { return {{"lo", h.lo}, {"hi", h.hi}, {"counts", h.counts}}; }

Args ais_args() {
    std::vector<Args::Option> opts{
        {"path", "P", "geometric (default) | cov | moments | leaky | energy"},
        {"base", "B", "moment (default) | sigma | uniform | data"},
        {"schedule", "S", "linear (default) | sigmoid | four-period | piecewise | binned | geometric | list"},
        {"steps", "K", "annealing steps (default 1000; piecewise: 14500 unless given)"},
        {"chains", "N", "AIS chains (default 100)"},
        {"seed", "S", "seed (default 1); results do not depend on --threads"},
        {"threads", "T", "worker threads"},
        {"perfect", "", "perfect transitions: exact draws from every intermediate distribution"},
        {"reverse", "", "also run reverse AIS (a stochastic upper bound when its chains start at the target)"},
        {"reverse-start", "exact|pt|data",
         "where the reverse chains start: exact target samples (needs at most 2^16 configurations),\n"
         "      pt: the target rung of parallel tempering (approximate samples, any size), data: data rows\n"
         "      (RAISE-style; not samples of the model). Default: exact when possible, else pt"},
        {"reverse-burn-in", "B", "--reverse-start pt: PT scans before the first state is taken (default 1000)"},
        {"reverse-spacing", "S", "--reverse-start pt: scans between two states of one ladder (default 20)"},
        {"precision", "float64|float32", "products with W (geometric GRBM/BRBM paths; weights always sum in double)"},
        {"betas", "b0,b1,...", "the schedule as a list (implies --schedule list): 0 first, 1 last, increasing"},
        {"geometric-start", "B1", "first nonzero beta of --schedule geometric (default 1e-4)"},
        {"checkpoints", "C", "betas at which the running estimate is recorded (default 50)"},
        {"log-weights", "", "also print every chain's log weight"},
        Progress::option()};
    for (auto& o : ais_path_options()) opts.push_back(o);
    return Args(
        "ais", {"MODEL"}, opts,
        "Annealed importance sampling estimate of log Z (docs/methods/ais-estimates.md): log_z with +-3 sigma bounds\n"
        "(log_z_low is null when it does not exist), a bootstrap 95% interval, the effective\n"
        "sample size, the log-weight histogram and the running estimate of log Z_beta. With\n"
        "--reverse also the reverse (upper) estimate. exact_log_z is given when it is known.\n"
        "Ctrl-C: the estimate of log Z at beta_reached so far, \"complete\": false, exit 130.");
}

// The options read before the model: the path (its base needs the model), the schedule and the run.
struct AisRequest {
    std::string path, precision;
    ScheduleRequest schedule;
    AisOptions run;
};

AisRequest read_ais_request(const Args& a) {
    AisRequest q;
    q.path = a.get_choice("path", "geometric", {"geometric", "cov", "moments", "leaky", "energy"});
    (void)a.get_choice("base", "moment", {"moment", "sigma", "uniform", "data"});  // checked before the model is read
    q.precision = a.get_choice("precision", "float64", {"float64", "float32"});
    const std::string kind = a.get("schedule", a.has("betas") ? "list" : "linear");
    ScheduleRequest& sreq = q.schedule;
    sreq.kind = kind;
    sreq.steps =
        a.get_int("steps", kind == "piecewise" || kind == "list" ? 0 : 1000, kind == "list" ? 0 : 1, 1LL << 40);
    if (a.has("betas") && kind != "list")
        throw InputError("--betas is the schedule itself: use it with --schedule list");
    if (kind == "list") {
        if (!a.has("betas")) throw InputError("--schedule list needs --betas b0,b1,...");
        sreq.list = a.get_doubles("betas");
    }
    sreq.geometric_start = a.get_double("geometric-start", 1e-4);
    AisOptions& o = q.run;
    o.chains = a.get_int("chains", 100, 1, 1LL << 31);
    o.seed = a.get_seed("seed", 1);
    o.perfect = a.flag("perfect");
    o.reverse = a.flag("reverse");
    o.checkpoints = static_cast<int>(a.get_int("checkpoints", 50, 1, 100000));
    return q;
}

// Which data the base rate came from: --data (a rows file as given, or the spec and its
// preprocessing), else the data the model records; null when there is none.
json base_data_json(const Args& a, const Model& model) {
    if (auto d = a.get("data")) {
        if (is_rows_file(a, *d)) return {{"rows_file", *d}};
        return describe(training_data_from_args(a, *d));
    }
    if (model.training) return describe(*model.training);
    return nullptr;
}

// Where the reverse chains started, and what that means for the bound.
struct ReverseStart {
    std::string kind;  // exact | pt | data
    std::string description, note;
    double seconds = 0;
    double min_swap_acceptance = -1;  // pt only
    Index data_rows = 0;              // data only: rows the chains were drawn from
};

json reverse_json(const ReverseAisResult& v, const AisEstimate& forward, const ReverseStart& start) {
    json rj;
    rj["start"] = start.kind;
    rj["start_description"] = start.description;
    if (!start.note.empty()) rj["start_note"] = start.note;
    if (start.kind == "pt") {
        rj["start_seconds"] = start.seconds;
        rj["start_min_swap_acceptance"] = start.min_swap_acceptance;
    }
    if (start.kind == "data") rj["start_data_rows"] = start.data_rows;
    rj["complete"] = v.complete;
    if (!v.complete) {
        rj["beta_reached"] = v.beta_reached;
        rj["steps_done"] = v.steps_done;
    }
    if (v.log_z_upper) {
        rj["log_z_upper"] = *v.log_z_upper;
        rj["ci95"] = {v.ci95_low, v.ci95_high};
        rj["ess"] = v.ess;
        rj["ess_fraction"] = v.ess_fraction;
        rj["log_w_mean"] = v.log_w_mean;
        rj["log_w_var"] = v.log_w_var;
        rj["sandwich"] = {forward.log_z, *v.log_z_upper};
    }
    return rj;
}

json ais_result_json(const Args& a, const Model& model, const AisRequest& q, const std::string& base,
                     const AisResult& r, const ReverseStart& start) {
    const AisEstimate& e = r.estimate;
    json j;
    j["log_z"] = e.log_z;
    j["log_z_low"] = e.log_z_low ? json(*e.log_z_low) : json(nullptr);
    j["log_z_low_exists"] = e.log_z_low.has_value();
    j["log_z_high"] = e.log_z_high;
    j["ci95"] = {e.ci95_low, e.ci95_high};
    j["bootstrap_sd"] = e.bootstrap_sd;
    j["ess"] = e.ess;
    j["ess_fraction"] = e.ess_fraction;
    if (r.log_weights.size() > 0) {  // the weights' tail (core/ais/pareto_khat.hpp); `logz` sets a run aside on it
        const ParetoK pk = pareto_k_hat(r.log_weights);
        if (std::isfinite(pk.k)) {  // absent when there are too few weights to fit a tail (fewer than 25 chains)
            j["pareto_k"] = pk.k;
            j["pareto_k_threshold"] = pk.threshold;
        }
    }
    j["log_w_mean"] = e.log_w_mean;
    j["log_w_var"] = e.log_w_var;
    j["log_z0"] = r.log_z0;
    if (has_exact_log_z(model)) {
        const double ex = exact_log_z(model);
        j["exact_log_z"] = ex;
        // A forward run stopped early estimates Z_beta_reached, not Z: no error then.
        if (r.steps_done == r.steps) j["error"] = e.log_z - ex;
    }
    j["path"] = q.path;
    j["path_name"] = r.path_name;
    j["base"] = base;
    if (base == "data")
        if (json d = base_data_json(a, model); !d.is_null()) j["base_data"] = d;
    j["kernel"] = r.kernel;
    j["schedule"] = q.schedule.kind;
    j["steps"] = r.steps;
    j["chains"] = q.run.chains;
    j["seed"] = q.run.seed;
    j["perfect"] = q.run.perfect;
    j["precision"] = q.precision;
    j["notes"] = r.notes;
    j["complete"] = r.complete;
    if (!r.complete) {  // how far the forward chains got: the estimate above is of log Z_beta_reached
        j["beta_reached"] = r.beta_reached;
        j["steps_done"] = r.steps_done;
    }
    if (std::isfinite(r.cost_functional)) j["cost_functional"] = r.cost_functional;
    j["histogram"] = histogram_json(e.histogram);
    json running = json::array();
    for (const auto& pt : r.running) running.push_back({pt.beta, pt.log_z});
    j["running"] = running;
    j["seconds"] = r.seconds;
    j["chain_sweeps_per_s"] = r.chain_sweeps_per_s;
    if (q.run.reverse) j["reverse_start"] = start.kind;
    if (r.reverse) j["reverse"] = reverse_json(*r.reverse, e, start);
    json warnings = json::array();  // too few effective samples: docs/methods/ais-estimates.md#interval-warnings
    if (const std::string w = ess_warning(e.ess); !w.empty()) warnings.push_back(w);
    if (r.reverse && r.reverse->log_z_upper)
        if (const std::string w = ess_warning(r.reverse->ess, "the reverse log Z"); !w.empty()) warnings.push_back(w);
    if (r.reverse && start.kind == "pt" && start.min_swap_acceptance < 0.01) {
        std::ostringstream os;
        os << "a pair of the PT ladder that drew the reverse start states accepted " << start.min_swap_acceptance
           << " of its swaps (< 0.01): the ladder is cut there, so the start states may miss modes of the target and "
              "the reverse estimate need not bound log Z from above";
        warnings.push_back(os.str());
    }
    if (r.reverse && start.kind == "data")
        warnings.push_back(
            "the reverse chains started at data rows (--reverse-start data), not at samples of the "
            "model: the reverse estimate is not an upper bound on log Z");
    if (!warnings.empty()) j["warnings"] = warnings;
    if (a.flag("log-weights")) j["log_weights"] = to_json(r.log_weights);
    return j;
}

// Exact target samples by enumeration: at most 2^16 configurations (the paths' perfect-transition
// limit); a leaky path decides from its rejection sampler's pilot acceptance once built.
bool exact_target_samples_possible(const Model& model) {
    if (model.kind() == ModelKind::Gaussian || model.kind() == ModelKind::Leaky) return true;
    return enumeration_size(model).configurations <= 65536.0;
}

ReverseStart read_reverse_start(const Args& a, const Model& model, const AisOptions& o) {
    ReverseStart s;
    const bool exact_ok = exact_target_samples_possible(model);
    if (!o.reverse) {
        for (const char* opt : {"reverse-start", "reverse-burn-in", "reverse-spacing"})
            if (a.has(opt)) throw InputError(std::string("--") + opt + " applies to --reverse only");
    } else {
        s.kind = a.get_choice("reverse-start", exact_ok ? "exact" : "pt", {"exact", "pt", "data"});
        if (s.kind != "pt")
            for (const char* opt : {"reverse-burn-in", "reverse-spacing"})
                if (a.has(opt)) throw InputError(std::string("--") + opt + " applies to --reverse-start pt only");
    }
    std::ostringstream configs_text;
    configs_text << enumeration_size(model).configurations;
    const std::string configs = configs_text.str();
    if ((o.perfect || s.kind == "exact") && !exact_ok)
        throw InputError(std::string(o.perfect ? "--perfect" : "--reverse-start exact") +
                         " needs exact samples of the target, drawn by enumerating its " + configs +
                         " configurations (at most 65536)" +
                         (o.perfect ? "" : ": use --reverse-start pt (parallel tempering) or data"));
    if (s.kind == "data" && !a.has("data") && !model.training)
        throw InputError(
            "--reverse-start data needs data rows: --data SPEC, or a model file that records its training data");
    if (s.kind == "exact") s.description = "exact samples of the target";
    return s;
}

// The reverse chains' start states (one row per chain): PT target-rung states or data rows.
RowMat reverse_start_states(const Args& a, const Model& model, const PathRequest& preq, const AisOptions& o,
                            Progress& progress, ReverseStart& s) {
    if (s.kind == "pt") {
        TargetStatesOptions t;
        t.burn_in = a.get_int("reverse-burn-in", 1000, 0, 1LL << 40);
        t.spacing = a.get_int("reverse-spacing", 20, 1, 1LL << 30);
        t.seed = o.seed ^ 0x5245565054ull;  // streams apart from the forward and reverse chains'
        t.cancel = &interrupt::flag();
        progress.update("reverse-start", 0, 0);
        const TargetStates ts = pt_target_states(model, o.chains, t);
        s.description = ts.description;
        s.seconds = ts.seconds;
        s.min_swap_acceptance = ts.min_acceptance;
        s.note =
            "approximate target samples: the reverse estimate is an upper bound in expectation only as far as the "
            "PT chains reached the target distribution";
        return ts.V;
    }
    // data: the chains start at rows drawn from the data without replacement (with, when fewer rows than chains).
    RowMat D = preq.moments.data;
    if (D.rows() == 0) {
        const auto d = a.get("data");
        if (d && is_rows_file(a, *d)) D = read_data_rows(*d, model.n_visible(), model.kind() == ModelKind::Brbm);
        else D = inspection_data(a, model, a.positional(0))->data.X;
    }
    if (D.cols() != model.n_visible())
        throw InputError("--reverse-start data: the rows have " + std::to_string(D.cols()) + " values, the model " +
                         std::to_string(model.n_visible()) + " visible units");
    const Index n = D.rows();
    std::vector<Index> idx(static_cast<std::size_t>(n));
    for (Index i = 0; i < n; ++i) idx[static_cast<std::size_t>(i)] = i;
    Rng rng(o.seed ^ 0x5241495345ull, static_cast<std::uint64_t>(StreamPurpose::Misc) << 48);
    RowMat V(o.chains, model.n_visible());
    for (Index r = 0; r < o.chains; ++r) {
        Index pick;
        if (n >= o.chains) {  // partial Fisher-Yates
            const Index j = r + static_cast<Index>(rng.below(static_cast<std::uint64_t>(n - r)));
            std::swap(idx[static_cast<std::size_t>(r)], idx[static_cast<std::size_t>(j)]);
            pick = idx[static_cast<std::size_t>(r)];
        } else {
            pick = static_cast<Index>(rng.below(static_cast<std::uint64_t>(n)));
        }
        V.row(r) = D.row(pick);
    }
    s.data_rows = n;
    s.description = "data rows (" + std::to_string(n) + " rows, " + std::to_string(o.chains) + " drawn)";
    s.note =
        "RAISE-style (Burda, Grosse & Salakhutdinov 2015): the reverse chains start at data rows, not at samples "
        "of the model, so the reverse estimate is not an upper bound on log Z unless the data are distributed as "
        "the model";
    return V;
}

json run_ais_command(const std::vector<std::string>& argv) {
    Args a = ais_args();
    a.parse(argv);
    if (a.help_requested()) {
        std::cout << a.usage();
        return nullptr;
    }
    ThreadLimit limit(static_cast<int>(a.get_int("threads", 0, 0, 1024)));
    const AisRequest q = read_ais_request(a);
    const AisOptions& o = q.run;

    interrupt::watch();
    Progress progress(a);
    const Model model = a.model(0);
    // A BRBM with data (recorded by train, or --data) anneals from the data's base rate
    // (Salakhutdinov & Murray) unless --base says otherwise; "base" in the output says which.
    const std::string base = a.get_choice("base", default_ais_base(a, model), {"moment", "sigma", "uniform", "data"});
    // Refused here, before any enumeration or moment phase, when the model cannot give what is asked.
    ReverseStart start = read_reverse_start(a, model, q.run);
    // The chains' states at least (run_ais checks the path's full state once it is built): refused
    // before the target-moment phase, not after it.
    check_ais_memory(o.chains, model.n_visible());
    PathRequest preq = ais_path_request(a, model, q.path, base, o.seed);
    preq.float32 = q.precision == "float32";
    // Exact target moments only when they do not cost more than the run (or a few seconds).
    preq.moments.run_work = static_cast<double>(o.chains) * static_cast<double>(std::max<Index>(1, q.schedule.steps)) *
                            2.0 * static_cast<double>(model.n_visible()) *
                            static_cast<double>(std::max<Index>(1, model.n_hidden())) * (o.reverse ? 2.0 : 1.0);
    AisWork work(progress, o.chains,
                 q.schedule.steps > 0 ? q.schedule.steps : static_cast<Index>(q.schedule.list.size()), o.reverse);
    work.watch_moments(preq.moments);
    PathPtr p;
    try {
        p = build_path(model, preq);
    } catch (const Cancelled&) {
        progress.finish(false);
        return {{"complete", false},
                {"phase", "moments"},
                {"moment_sweeps_done", work.moment_sweeps_done()},
                {"moment_sweeps", work.moment_sweeps()},
                {"moment_chains", preq.moments.gibbs_chains},
                {"path", q.path},
                {"base", base},
                {"chains", o.chains},
                {"seed", o.seed}};
    }
    const Schedule schedule = make_schedule(q.schedule, p.get());
    AisOptions run = o;
    if (o.reverse && start.kind != "exact") {
        if (p->dim() != p->visible_dim() && !p->log_f_on_visible())
            throw InputError(
                "--reverse-start " + start.kind + ": the " + p->name() +
                " path carries hidden state the given visible rows do not have; use --reverse-start exact");
        try {
            run.reverse_states = reverse_start_states(a, model, preq, o, progress, start);
        } catch (const Cancelled&) {
            progress.finish(false);
            return {{"complete", false},
                    {"phase", "reverse-start"},
                    {"reverse_start", start.kind},
                    {"path", q.path},
                    {"base", base},
                    {"chains", o.chains},
                    {"seed", o.seed}};
        }
    }
    // One process: run_ais; under mpirun each rank runs its share of the chains (app/cli/mpi/).
    const AisResult r = mpi::run_ais_on_world(*p, schedule, run, work.control(static_cast<Index>(schedule.size()) - 1));
    const AisEstimate& e = r.estimate;
    progress.finish(r.complete, r.complete
                                    ? json{{"log_z", e.log_z}, {"ci95_low", e.ci95_low}, {"ci95_high", e.ci95_high}}
                                    : json{{"beta_reached", r.beta_reached}});
    return ais_result_json(a, model, q, base, r, start);
}

}  // namespace

REGISTER_COMMAND("ais", "annealed importance sampling estimate of log Z (forward, reverse, perfect)", run_ais_command);

}  // namespace rbm::cli
