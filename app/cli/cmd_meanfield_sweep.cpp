// rbmscope-cli meanfield-sweep: the mean-field paper's comparison (Takahashi & Yasuda §4.2) on
// random enumerable GRBMs: -log Z, F_I, F_II, F_TAP and the MSE of <h> and <v> per coupling scale.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>

#include "cli_command.hpp"
#include "core/meanfield/meanfield.hpp"
#include "core/numerics/parallel.hpp"
#include "interrupt.hpp"
#include "progress.hpp"

namespace rbm::cli {
namespace {

json method_json(const MeanFieldSweepMethod& m) {
    return {{"free_energy", m.free_energy}, {"gap", m.gap},
            {"gap_se", m.gap_se},           {"mse_h", m.mse_h},
            {"mse_h_se", m.mse_h_se},       {"mse_v", m.mse_v},
            {"mse_v_se", m.mse_v_se},       {"converged_fraction", m.converged_fraction}};
}

Args meanfield_sweep_args() {
    const std::string help =
        std::string(
            "Random GRBMs (default: the paper's 24 visible, 12 hidden units; 2^12 hidden\n"
            "configurations, so exact answers are cheap). For each coupling scale, averaged over\n"
            "trials: the true free energy -log Z, F_I, F_II, F_TAP, their gaps F - (-log Z) with\n"
            "standard errors, and the mean squared errors of <h> and <v> for each method.\n"
            "Each method keeps its lowest converged fixed point over the restarts; a model on which\n"
            "no restart converged contributes its lowest end point and lowers converged_fraction.\n"
            "F_I and F_II are upper bounds on -log Z; F_TAP is a truncated series, not a bound.\n"
            "Model distribution (the paper's was lost; this is ours): ") +
        kMeanFieldSweepDistribution + ".";
    return Args("meanfield-sweep", {},
                {{"visible", "N", "visible units (default 24)"},
                 {"hidden", "M", "hidden units (default 12)"},
                 {"scales", "LIST", "coupling scales (default 0.05,0.1,0.15,0.2,0.25,0.3,0.4,0.5)"},
                 {"trials", "T", "random models per scale (default 100)"},
                 {"hidden-values", "LIST", "hidden value set X (default 0,1)"},
                 {"seed", "S", "seed of the models and restarts (default 1)"},
                 {"restarts", "R", "restarts per method and model (default 5)"},
                 {"damping", "D", "damping in (0,1] (default 1)"},
                 {"update", "U", "sequential (default) or parallel"},
                 {"tol", "T", "convergence tolerance on the means (default 1e-10)"},
                 {"max-iterations", "I", "sweeps per restart (default 10000)"},
                 {"threads", "T", "worker threads; results do not depend on it"},
                 {"format", "F", "json (default) or csv (one row per scale, with a header)"},
                 Progress::option()},
                help + "\nCtrl-C: the rows of the scales finished, \"complete\": false, exit 130.");
}

MeanFieldSweepOptions read_meanfield_sweep_options(const Args& a) {
    MeanFieldSweepOptions o;
    o.visible = a.get_int("visible", 24, 1, 100000);
    o.hidden = a.get_int("hidden", 12, 1, 64);
    if (a.has("scales")) o.scales = a.get_doubles("scales");
    o.trials = a.get_int("trials", 100, 1, 10'000'000);
    if (a.has("hidden-values")) {
        o.hidden_values = a.get_doubles("hidden-values");
        if (o.hidden_values.size() < 2)
            throw InputError("--hidden-values needs at least two distinct values, got '" + a.get("hidden-values", "") +
                             "'");
        for (std::size_t p = 0; p < o.hidden_values.size(); ++p)
            for (std::size_t q = p + 1; q < o.hidden_values.size(); ++q)
                if (o.hidden_values[p] == o.hidden_values[q])
                    throw InputError("--hidden-values lists " + std::to_string(o.hidden_values[p]) +
                                     " twice; values must be distinct");
    }
    o.seed = a.get_seed("seed", 1);
    o.mean_field.restarts = static_cast<int>(a.get_int("restarts", 5, 1, 1000000));
    o.mean_field.damping = a.get_double("damping", 1.0);
    if (!(o.mean_field.damping > 0 && o.mean_field.damping <= 1))
        throw InputError("--damping must be in (0, 1], got " + a.get("damping", ""));
    o.mean_field.update = a.get_choice("update", "sequential", {"sequential", "parallel"}) == "parallel"
                              ? MeanFieldUpdate::Parallel
                              : MeanFieldUpdate::Sequential;
    o.mean_field.tol = a.get_double("tol", 1e-10);
    if (!(o.mean_field.tol > 0)) throw InputError("--tol must be a positive number, got " + a.get("tol", ""));
    o.mean_field.max_iterations = a.get_int("max-iterations", 10000, 1, 1'000'000'000);
    return o;
}

// One scale at a time (a trial's model and restarts depend on the scale and trial index only,
// so the rows are those of one call), so that Ctrl-C keeps the finished scales. Returns whether
// every scale finished.
bool sweep_by_scale(MeanFieldSweepOptions o, Progress& progress, std::vector<MeanFieldSweepRow>& rows) {
    std::atomic<Index> trials_done{0};
    const double trials_total = static_cast<double>(o.trials) * static_cast<double>(o.scales.size());
    o.cancelled = [] { return interrupt::requested(); };
    o.on_trial = [&] {
        const Index done = ++trials_done;
        progress.update("trials", static_cast<double>(done) / trials_total, -1, {{"trials_done", done}});
    };
    progress.update("trials", 0, -1);
    for (double scale : o.scales) {
        MeanFieldSweepOptions one = o;
        one.scales = {scale};
        try {
            const auto r = mean_field_sweep(one);
            rows.insert(rows.end(), r.begin(), r.end());
        } catch (const Cancelled&) {
            return false;
        }
    }
    return true;
}

void print_meanfield_sweep_csv(const std::vector<MeanFieldSweepRow>& rows) {
    std::cout << "scale,true_free_energy,f1,f2,ftap,gap1,gap2,gaptap,mse_h1,mse_h2,mse_htap,"
                 "mse_v1,mse_v2,mse_vtap,converged1,converged2,convergedtap\n";
    std::cout.precision(10);
    for (const auto& r : rows) {
        const MeanFieldSweepMethod* m[3] = {&r.type1, &r.type2, &r.tap};
        std::cout << r.scale << ',' << r.true_free_energy;
        for (auto* x : m) std::cout << ',' << x->free_energy;
        for (auto* x : m) std::cout << ',' << x->gap;
        for (auto* x : m) std::cout << ',' << x->mse_h;
        for (auto* x : m) std::cout << ',' << x->mse_v;
        for (auto* x : m) std::cout << ',' << x->converged_fraction;
        std::cout << '\n';
    }
}

json meanfield_sweep_json(const MeanFieldSweepOptions& o, const std::vector<MeanFieldSweepRow>& rows, double seconds,
                          bool complete) {
    json out;
    out["distribution"] = kMeanFieldSweepDistribution;
    out["settings"] = {{"visible", o.visible},
                       {"hidden", o.hidden},
                       {"trials", o.trials},
                       {"hidden_values", o.hidden_values},
                       {"seed", o.seed},
                       {"restarts", o.mean_field.restarts},
                       {"damping", o.mean_field.damping},
                       {"update", o.mean_field.update == MeanFieldUpdate::Parallel ? "parallel" : "sequential"},
                       {"tol", o.mean_field.tol},
                       {"max_iterations", o.mean_field.max_iterations}};
    json list = json::array();
    for (const auto& r : rows)
        list.push_back({{"scale", r.scale},
                        {"true_free_energy", r.true_free_energy},
                        {"type1", method_json(r.type1)},
                        {"type2", method_json(r.type2)},
                        {"tap", method_json(r.tap)}});
    out["rows"] = list;
    out["seconds"] = seconds;
    out["complete"] = complete;
    if (!complete) out["scales_done"] = rows.size();
    return out;
}

json run_meanfield_sweep(const std::vector<std::string>& argv) {
    Args a = meanfield_sweep_args();
    a.parse(argv);
    if (a.help_requested()) {
        std::cout << a.usage();
        return nullptr;
    }
    ThreadLimit limit(static_cast<int>(a.get_int("threads", 0, 0, 1024)));
    const MeanFieldSweepOptions o = read_meanfield_sweep_options(a);
    const std::string format = a.get_choice("format", "json", {"json", "csv"});

    interrupt::watch();
    Progress progress(a);
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<MeanFieldSweepRow> rows;
    const bool complete = sweep_by_scale(o, progress, rows);
    progress.finish(complete);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (format == "csv") {
        print_meanfield_sweep_csv(rows);
        return nullptr;
    }
    return meanfield_sweep_json(o, rows, seconds, complete);
}

}  // namespace

REGISTER_COMMAND("meanfield-sweep", "mean-field accuracy on random enumerable GRBMs (the paper's experiment)",
                 run_meanfield_sweep);

}  // namespace rbm::cli
