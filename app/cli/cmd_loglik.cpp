// rbmscope-cli loglik: the average log-likelihood of a data set, mean_v log p*(v) - log Z, with log Z
// exact when it is known and else from parallel tempering (stepping stone and BAR), and the exact
// pseudo-log-likelihood of a BRBM (docs/methods/training.md#held-out-likelihood, docs/user/cli.md).
#include <cmath>
#include <iostream>

#include "cli_command.hpp"
#include "core/exact/exact.hpp"
#include "core/numerics/parallel.hpp"
#include "core/tempering/pt.hpp"
#include "core/training/heldout.hpp"
#include "data_args.hpp"
#include "logz_json.hpp"
#include "progress.hpp"

namespace rbm::cli {
namespace {

Args loglik_args() {
    std::vector<Args::Option> opts{
        {"data", "SPEC", "the rows to score, as for train (bars:D, digits, fashion-mnist:test, a CSV or IDX file)"},
        {"no-exact", "", "estimate log Z by tempering even when it is known exactly (then only exact_log_z)"},
        {"seed", "S", "random seed of the tempering run (default 1)"},
        {"chains", "N", "tempering: independent PT runs, each a full ladder (default 8)"},
        {"sweeps", "T", "tempering: scans of the final run (default 4000)"},
        {"replicas", "R", "tempering: rungs of the ladder, beta_0 = 0 ... beta_N = 1 (default 16)"},
        {"adaptive", "ROUNDS", "tempering: rounds that tune the ladder before the final run (default 3)"},
        {"log-z-batches", "B", "tempering: batches per chain of the batch-means standard error (default 20)"},
        {"threads", "T", "worker threads; results do not depend on it"},
        Progress::option()};
    for (const auto& o : data_options()) opts.push_back(o);
    return Args("loglik", {"MODEL"}, opts,
                "Average log-likelihood of the rows of --data (train's data options and preprocessing; without\n"
                "--data the training data the model file records): log_likelihood = mean_v log p*(v) - log Z.\n"
                "log Z is exact when the model is enumerable (or has a closed form), else (and with --no-exact)\n"
                "BAR over a parallel-tempering ladder from the reference (beta = 0) to the model, adaptive,\n"
                "DEO swaps; log_z_estimates then holds BAR and stepping stone with their batch-means errors.\n"
                "ci95 carries log Z's uncertainty only (it is [ll, ll] with exact log Z); data_se is the\n"
                "spread of log p*(v) over the rows / sqrt(rows). pseudo_log_likelihood: the exact\n"
                "pseudo-log-likelihood (BRBM, 0/1 data), sum over every visible unit, averaged over the rows.\n"
                "warnings: what makes the number doubtful (the estimators disagree, a rung pair that\n"
                "rarely swaps, no round trip, non-binary data for a BRBM); empty otherwise.");
}

struct PtLogZRun {
    PtResult result;
    std::vector<std::string> warnings;
};

PtLogZRun tempering_log_z(const Args& a, const Model& m, Progress& progress) {
    PtOptions o;
    o.scheme = PtScheme::Deo;
    o.chains = a.get_int("chains", 8, 1, 1'000'000);
    o.scans = a.get_int("sweeps", 4000, 10, 1'000'000'000);
    o.seed = a.get_seed("seed", 1);
    o.betas = linear_ladder(a.get_int("replicas", 16, 2, 65535), 0.0);
    o.adaptive_rounds = static_cast<int>(a.get_int("adaptive", 3, 0, 30));
    o.log_z = true;
    o.log_z_batches = a.get_int("log-z-batches", 20, 2, 1'000'000);
    o.sample_chains = 0;
    o.history_chains = 0;
    o.window = 0;
    validate(o);
    PtControl control;
    if (progress.mode() != Progress::Mode::Off) {
        const double per_scan = static_cast<double>(o.chains) * static_cast<double>(o.betas.size());
        control.on_progress = [&progress, per_scan](const PtSnapshot& s) {
            progress.update("tempering", static_cast<double>(s.scans_done) / static_cast<double>(s.scans_total),
                            per_scan * static_cast<double>(s.scans_done));
        };
    }
    PtLogZRun run{run_pt(m, o, control), {}};
    const PtResult& r = run.result;
    if (!r.log_z) throw InputError("log Z from tempering failed: " + r.log_z_error);
    if (!std::isfinite(r.log_z->bar.se))
        throw InputError(
            "log Z from tempering: two adjacent rungs share no samples in common (BAR has no error bar); "
            "more --replicas");
    const LogZEstimate &ss = r.log_z->stepping_stone, &bar = r.log_z->bar;
    const double gap = std::fabs(ss.log_z - bar.log_z), allowed = 1.96 * std::hypot(ss.se, bar.se);
    if (!(gap <= allowed))
        run.warnings.push_back("stepping stone and BAR disagree by " + std::to_string(gap) +
                               " nats, more than 1.96 combined standard errors (" + std::to_string(allowed) +
                               "): the chains have not mixed, log Z is doubtful; more --sweeps or --replicas");
    const std::vector<double> acc = r.stats.acceptance();
    for (std::size_t k = 0; k < acc.size(); ++k)
        if (acc[k] < 0.05) {
            run.warnings.push_back("rungs " + std::to_string(k) + " and " + std::to_string(k + 1) +
                                   " swap with probability " + std::to_string(acc[k]) +
                                   ": too few replicas for this model; more --replicas");
            break;
        }
    if (r.stats.total_round_trips() == 0)
        run.warnings.push_back(
            "no replica went from the reference to the model and back: the modes may not be explored; "
            "more --sweeps");
    return run;
}

json run_loglik_command(const std::vector<std::string>& argv) {
    Args a = loglik_args();
    a.parse(argv);
    if (a.help_requested()) {
        std::cout << a.usage();
        return nullptr;
    }
    ThreadLimit limit(static_cast<int>(a.get_int("threads", 0, 0, 1024)));
    const Model m = a.model(0);
    Progress progress(a);
    const std::optional<InspectionData> data = inspection_data(a, m, a.positional(0));
    if (!data) throw InputError("loglik needs --data SPEC (the model file records no training data)");
    const RowMat& X = data->data.X;
    const bool no_exact = a.flag("no-exact");
    for (const char* pt_only : {"chains", "sweeps", "replicas", "adaptive", "log-z-batches"})
        if (a.has(pt_only) && !no_exact && has_exact_log_z(m))
            throw InputError(std::string("--") + pt_only +
                             " sets the tempering run, which an exact log Z does not need; " + "add --no-exact");

    json j;
    j["kind"] = kind_name(m.kind());
    j["data"] = data->data.name;
    j["rows"] = X.rows();
    std::vector<std::string> warnings;
    const bool binary = is_binary(X);
    if (m.kind() == ModelKind::Brbm && !binary)
        warnings.push_back("the data are not 0/1: a BRBM's p*(v) is evaluated at fractional v (use --binarize T)");

    const Vec lp = log_unnorm_rows(m, X);
    const double n = static_cast<double>(X.rows());
    const double mean_lp = lp.mean();
    const double sd = X.rows() > 1 ? std::sqrt((lp.array() - mean_lp).square().sum() / (n - 1.0)) : 0.0;

    double log_z = 0, low = 0, high = 0;
    if (!no_exact && has_exact_log_z(m)) {
        log_z = low = high = exact_log_z(m);
        j["log_z_method"] = "exact";
    } else {
        const PtLogZRun run = tempering_log_z(a, m, progress);
        const PtLogZ& z = *run.result.log_z;
        log_z = z.bar.log_z;
        low = z.bar.ci95_low();
        high = z.bar.ci95_high();
        j["log_z_method"] = "pt-bar";
        json est = pt_log_z_json(run.result);
        est["swap_acceptance"] = run.result.stats.acceptance();
        est["round_trips"] = run.result.stats.total_round_trips();
        est["sweeps"] = run.result.stats.scans;
        est["seed"] = a.get_seed("seed", 1);
        j["log_z_estimates"] = est;
        warnings.insert(warnings.end(), run.warnings.begin(), run.warnings.end());
        if (has_exact_log_z(m)) j["exact_log_z"] = exact_log_z(m);
    }
    progress.finish(true);
    j["log_z"] = log_z;
    j["log_z_ci95"] = {low, high};
    j["mean_log_unnormalized"] = mean_lp;
    j["log_likelihood"] = mean_lp - log_z;
    j["ci95"] = {mean_lp - high, mean_lp - low};
    j["data_se"] = sd / std::sqrt(n);
    if (const auto* b = m.as<Brbm>(); b && binary)
        j["pseudo_log_likelihood"] = brbm_pseudo_log_likelihood(*b, X).mean();
    else j["pseudo_log_likelihood"] = nullptr;
    j["warnings"] = warnings;
    return j;
}

}  // namespace

REGISTER_COMMAND("loglik", "average log-likelihood of a data set (exact or tempering log Z), pseudo-likelihood",
                 run_loglik_command);

}  // namespace rbm::cli
