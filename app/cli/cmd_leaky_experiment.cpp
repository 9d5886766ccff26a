// rbmscope-cli leaky-table: the partition-function experiment of Li, Ravanbakhsh & Poczos
// (2017, Tables 1-2; docs/methods/annealing-paths.md#leakiness): leaky RBMs with mutually orthogonal weight columns of
// norm 0.9, c = 0, cL = 0.01, whose exact log Z has a closed form, estimated by AIS-Leaky (leakiness
// annealed from 1) and AIS-Energy (energy annealed from N(0, I)), both on linear schedules.
//
// The paper ran AIS-Energy with 1e5 chains x 1e5 steps and AIS-Leaky with 1e4 x 1e3 at n = 3072;
// that is days of work on two cores. The defaults here (n = 3072, AIS-Leaky 200 chains x 500
// steps, AIS-Energy 200 x 2000) take about three to four minutes on two idle cores. The problem
// separates into m one-dimensional ones (the other n - m directions are N(0, I) along both
// paths), so n sets only the cost, not the difficulty.
#include <Eigen/QR>
#include <chrono>
#include <iostream>

#include "ais_cli.hpp"
#include "cli_command.hpp"
#include "core/ais/paths.hpp"
#include "core/ais/runner.hpp"
#include "core/ais/schedules.hpp"
#include "core/exact/exact.hpp"
#include "core/numerics/parallel.hpp"
#include "interrupt.hpp"

namespace rbm::cli {
namespace {

// n x m weights with orthogonal columns of norm `norm`: orthonormalize a Gaussian matrix (QR).
Leaky orthogonal_leaky(Index n, Index m, double norm, double leakiness, std::uint64_t seed) {
    ChainRngs rngs(seed, 1, StreamPurpose::Misc);
    Mat G(n, m);
    for (Index j = 0; j < m; ++j)
        for (Index i = 0; i < n; ++i) G(i, j) = rngs[0].normal();
    const Eigen::HouseholderQR<Mat> qr(G);
    Leaky l;
    l.W = norm * (qr.householderQ() * Mat::Identity(n, m));
    l.b = Vec::Zero(n);
    l.c = Vec::Zero(m);
    l.leakiness = leakiness;
    return l;
}

// Null when Ctrl-C stopped the run.
json run_one(const AnnealingPath& path, Index chains, Index steps, std::uint64_t seed, double truth, AisWork& work) {
    AisOptions o;
    o.cost_functional = false;  // not in the output: spare its enumeration
    o.chains = chains;
    o.seed = seed;
    const AisResult r = run_ais(path, linear_schedule(steps), o, work.control(steps));
    if (!r.complete) return nullptr;
    return {{"log_z", r.estimate.log_z},
            {"error", r.estimate.log_z - truth},
            {"ci95", {r.estimate.ci95_low, r.estimate.ci95_high}},
            {"ess", r.estimate.ess},
            {"seconds", r.seconds}};
}

Args leaky_table_args() {
    return Args("leaky-table", {},
                {{"n", "N", "visible units (default 3072, the paper's)"},
                 {"m", "LIST", "hidden-unit counts, comma-separated (default 5,10,20,30)"},
                 {"leaky-chains", "N", "AIS-Leaky chains (default 200; paper 10000)"},
                 {"leaky-steps", "K", "AIS-Leaky intermediate distributions (default 500; paper 1000)"},
                 {"energy-chains", "N", "AIS-Energy chains (default 200; paper 100000)"},
                 {"energy-steps", "K", "AIS-Energy intermediate distributions (default 2000; paper 100000)"},
                 {"leakiness", "C", "target leakiness cL (default 0.01)"},
                 {"norm", "X", "norm of every weight column, < 1 (default 0.9)"},
                 {"kernel", "K", "exact-mh (default: exactly invariant) or paper-gibbs (the paper's sampler)"},
                 {"seed", "S", "random seed for the weights and the chains (default 1)"},
                 {"threads", "T", "worker threads; results do not depend on it"},
                 Progress::option()},
                "Li et al.'s Table 2: AIS-Leaky vs AIS-Energy on leaky RBMs with orthogonal weight columns,\n"
                "against the closed-form log Z. Prints one row per hidden-unit count.\n"
                "Ctrl-C: the rows finished, \"complete\": false, exit 130.");
}

struct TableRequest {
    Index n = 0;
    std::vector<long long> ms;
    Index lc = 0, lk = 0, ec = 0, ek = 0;  // chains and steps of AIS-Leaky and AIS-Energy
    double cl = 0, norm = 0;
    std::uint64_t seed = 0;
    LeakyKernel kernel = LeakyKernel::ExactMH;
};

TableRequest read_table_request(const Args& a) {
    TableRequest q;
    q.n = a.get_int("n", 3072, 1, 1'000'000);
    q.ms = a.has("m") ? a.get_ints("m", 1) : std::vector<long long>{5, 10, 20, 30};
    q.lc = a.get_int("leaky-chains", 200, 1, 100'000'000);
    q.lk = a.get_int("leaky-steps", 500, 1, 100'000'000);
    q.ec = a.get_int("energy-chains", 200, 1, 100'000'000);
    q.ek = a.get_int("energy-steps", 2000, 1, 100'000'000);
    q.cl = a.get_double("leakiness", 0.01);
    q.norm = a.get_double("norm", 0.9);
    q.seed = a.get_seed("seed", 1);
    q.kernel = a.get_choice("kernel", "exact-mh", {"exact-mh", "paper-gibbs"}) == "paper-gibbs"
                   ? LeakyKernel::PaperGibbs
                   : LeakyKernel::ExactMH;
    if (!(q.cl > 0 && q.cl <= 1))
        throw InputError("--leakiness expects a number in (0, 1], got " + a.get("leakiness", ""));
    if (!(q.norm > 0 && q.norm < 1)) throw InputError("--norm expects a number in (0, 1), got " + a.get("norm", ""));
    for (long long m : q.ms)
        if (m > q.n)
            throw InputError("--m " + std::to_string(m) + " exceeds --n " + std::to_string(q.n) +
                             ": orthogonal columns need m <= n");
    return q;
}

// One row of the table: the model with m hidden units, its closed-form log Z and both estimates.
// Null when Ctrl-C stopped it. Progress fractions count chain-sweeps: every row costs
// lc x lk + ec x ek.
json table_row(const TableRequest& q, std::size_t row, Progress& progress) {
    const long long m = q.ms[row];
    const double per_row =
        static_cast<double>(q.lc) * static_cast<double>(q.lk) + static_cast<double>(q.ec) * static_cast<double>(q.ek);
    const double all = per_row * static_cast<double>(q.ms.size());
    const double at = per_row * static_cast<double>(row),
                 mid = at + static_cast<double>(q.lc) * static_cast<double>(q.lk);
    AisWork leaky_work(progress, q.lc, q.lk, false, at / all, mid / all),
        energy_work(progress, q.ec, q.ek, false, mid / all, (at + per_row) / all);
    const auto t0 = std::chrono::steady_clock::now();
    const Leaky model = orthogonal_leaky(q.n, m, q.norm, q.cl, q.seed);
    const double truth = leaky_log_z_orthogonal(model);
    const json leaky = run_one(*make_leaky_leakiness_path(model, q.kernel), q.lc, q.lk, q.seed, truth, leaky_work);
    const json energy = leaky.is_null()
                            ? json()
                            : run_one(*make_leaky_energy_path(model, q.kernel), q.ec, q.ek, q.seed, truth, energy_work);
    if (energy.is_null()) return nullptr;
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return {{"m", m},
            {"true_log_z", truth},
            {"ais_leaky", leaky["log_z"]},
            {"ais_leaky_error", leaky["error"]},
            {"ais_energy", energy["log_z"]},
            {"ais_energy_error", energy["error"]},
            {"seconds", secs},
            {"ais_leaky_detail", leaky},
            {"ais_energy_detail", energy}};
}

json table_json(const TableRequest& q, const json& rows, bool complete) {
    return {{"rows", rows},
            {"complete", complete},
            {"settings",
             {{"n", q.n},
              {"leakiness", q.cl},
              {"column_norm", q.norm},
              {"kernel", leaky_kernel_name(q.kernel)},
              {"schedule", "linear"},
              {"ais_leaky", {{"chains", q.lc}, {"steps", q.lk}}},
              {"ais_energy", {{"chains", q.ec}, {"steps", q.ek}}},
              {"seed", q.seed}}},
            {"paper",
             {{"note", "Li et al. 2017, n = 3072: AIS-Energy 1e5 chains x 1e5 steps, AIS-Leaky 1e4 x 1e3"},
              {"m", {5, 10, 20, 30}},
              {"true_log_z", {2825.48, 2827.98, 2832.98, 2837.99}},
              {"ais_energy_error", {1.76, 3.56, 7.95, 9.60}},
              {"ais_leaky_error", {0.02, 0.04, 0.08, 0.13}}}}};
}

json run_leaky_table(const std::vector<std::string>& argv) {
    Args a = leaky_table_args();
    a.parse(argv);
    if (a.help_requested()) {
        std::cout << a.usage();
        return nullptr;
    }
    ThreadLimit limit(static_cast<int>(a.get_int("threads", 0, 0, 1024)));
    const TableRequest q = read_table_request(a);
    interrupt::watch();
    Progress progress(a);
    progress.update("annealing", 0, 0);
    bool complete = true;
    json rows = json::array();
    for (std::size_t row = 0; row < q.ms.size(); ++row) {
        json r = table_row(q, row, progress);
        if (r.is_null()) {
            complete = false;
            break;
        }
        rows.push_back(std::move(r));
    }
    progress.finish(complete);
    return table_json(q, rows, complete);
}

}  // namespace

REGISTER_COMMAND("leaky-table", "Li et al.'s AIS-Leaky vs AIS-Energy experiment (orthogonal leaky RBMs)",
                 run_leaky_table);

}  // namespace rbm::cli
