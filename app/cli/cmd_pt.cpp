// rbmscope-cli pt: parallel tempering with the reversible, single-pair, DEO and lifted schemes,
// fixed / user / adaptive ladders, round-trip rates against the theory (docs/methods/tempering.md, docs/user/cli.md).
#include <iostream>
#include <optional>
#include <sstream>

#include "cli_command.hpp"
#include "core/exact/exact.hpp"
#include "core/io/model_io.hpp"
#include "core/io/presets.hpp"
#include "core/numerics/parallel.hpp"
#include "core/tempering/pt.hpp"
#include "interrupt.hpp"
#include "logz_json.hpp"
#include "mpi/pt_exchange.hpp"
#include "mpi/world.hpp"
#include "progress.hpp"

namespace rbm::cli {
namespace {

const char* prediction_formula(PtScheme s) {
    switch (s) {
        case PtScheme::Deo: return "1/(2 + 2E), E = sum_k r_k/(1-r_k), all replicas (Syed et al. 2021)";
        case PtScheme::Reversible: return "1/(2N + 2E), E = sum_k r_k/(1-r_k), all replicas";
        case PtScheme::Single: return "1/(N^2 + N E), E = sum_k r_k/(1-r_k), all replicas";
        case PtScheme::Lifted:
            return "1/(2N (1 + E)), E = sum_k r_k/(1-r_k), the lifted replica alone (compare lifted_round_trip_rate)";
    }
    return "?";
}

std::vector<double> ladder_from_args(const Args& a) {
    if (a.has("betas")) {
        for (const char* other : {"ladder", "replicas", "gamma", "beta-min"})
            if (a.has(other)) throw InputError(std::string("--betas gives the ladder itself; drop --") + other);
        const std::vector<double> b = a.get_doubles("betas");
        validate_ladder(b);
        return b;
    }
    const std::string kind = a.get_choice("ladder", "geometric", {"geometric", "linear"});
    const Index replicas = a.get_int("replicas", 7, 2, 65535);
    if (kind == "geometric") {
        if (a.has("beta-min"))
            throw InputError("--beta-min applies to --ladder linear; the geometric ladder starts at gamma^N");
        return geometric_ladder(replicas, a.get_double("gamma", 0.7));
    }
    if (a.has("gamma")) throw InputError("--gamma applies to --ladder geometric only");
    return linear_ladder(replicas, a.get_double("beta-min", 0.0));
}

std::string trajectory_csv(const IndexHistory& h) {
    std::ostringstream os;
    os << "scan,chain";
    for (Index k = 0; k < h.rungs(); ++k) os << ",rung_" << k;
    os << '\n';
    for (Index i = 0; i < h.size(); ++i)
        for (Index c = 0; c < h.chains(); ++c) {
            os << h.scan(i) + 1 << ',' << c;
            for (Index k = 0; k < h.rungs(); ++k) os << ',' << h.replica_at(i, c, k);
            os << '\n';
        }
    return os.str();
}

Args pt_args() {
    return Args(
        "pt", {"MODEL"},
        {{"scheme", "S", "reversible | single | deo (default) | lifted (see below)"},
         {"chains", "N", "independent PT runs, each a full ladder; statistics are pooled (default 8)"},
         {"sweeps", "T", "scans of the (final) run: one Gibbs sweep per replica + one swap step (default 2000)"},
         {"seed", "S", "random seed (default 1)"},
         {"betas", "LIST", "the ladder itself: comma-separated, strictly increasing, ending at 1"},
         {"ladder", "L", "geometric (default: beta_k = gamma^(N-k), beta_0 = gamma^N) or linear"},
         {"replicas", "R", "replicas = ladder points beta_0..beta_N, R = N + 1 (default 7: the paper's N = 6)"},
         {"gamma", "G", "ratio of the geometric ladder, 0 < G < 1 (default 0.7)"},
         {"beta-min", "B", "first beta of the linear ladder (default 0: the reference itself)"},
         {"adaptive", "ROUNDS", "tune the ladder in ROUNDS rounds first (see below)"},
         {"kernel", "K", "leaky RBMs: exact-mh (default) or paper-gibbs (not exact for p*(v), SPEC 1.3)"},
         {"reference-scale", "S", "GRBM: multiply the reference standard deviations by S (default 1)"},
         {"precision", "float64|float32",
          "BRBMs: products with W and the draws in double (default) or single precision"},
         {"trajectory", "FILE", "write the replica index process as CSV (see below)"},
         {"trajectory-chains", "K", "chains written to --trajectory (default: all, at most 16)"},
         {"log-z-batches", "B", "batches per chain of log Z's batch-means standard error (default 20)"},
         {"log-z-burn-in", "F", "fraction of the final run's scans log Z leaves out first (default 0.1)"},
         {"threads", "T", "worker threads; results do not depend on it"},
         Progress::option()},
        "Parallel tempering between a tractable reference (beta = 0) and the model (beta = 1) on the\n"
        "joint (v,h), p_beta ∝ f_ref^(1-beta) f_model^beta (SPEC 2.5, 6). References: GRBM a diagonal\n"
        "Gaussian matched to the model with uniform hidden units; BRBM zero weights and biases (beta\n"
        "scales W, b, c); leaky N(b, I) (swaps on the v-marginal); gaussian its anneal_from Gaussian,\n"
        "else N(0, 25 I), with exact draws as local moves.\n"
        "Prints per pair the swap acceptance 1 - r_k (r_k = mean rejection probability, evaluated for\n"
        "every pair at every swap step), round trips (reference -> target -> reference) and restarts\n"
        "(reference -> target) of all replicas and chains, the measured round-trip rate (all replicas\n"
        "together, per scan and chain) next to the theory for the scheme, the barrier Lambda = sum r_k,\n"
        "the local barrier lambda(beta) (derivative of the monotone-cubic cumulative barrier) and the\n"
        "recommended N = ceil(2 Lambda).\n"
        "log_z: log Z of the model by stepping stone and by BAR (Bennett acceptance ratio) over the\n"
        "adjacent rungs, from the potentials of the final run's scans, + the reference's closed-form\n"
        "log Z (a ladder starting above 0 gets rung 0 from exact reference draws); se from batch\n"
        "means (B batches per chain), ci95 = +-1.96 se. exact_log_z is given when it is known.\n"
        "\n"
        "Schemes: reversible = stochastic even-odd (each swap step proposes all even or all odd pairs,\n"
        "drawn at random); single = one pair drawn at random per step; deo = deterministic even-odd\n"
        "(even pairs at even scans, odd at odd); lifted = one lifted replica (the one starting at the\n"
        "reference) proposes a swap in its direction, keeps it on acceptance and turns on rejection or\n"
        "at an end; the other replicas move only when it passes them (Kadan et al. 4.2.2).\n"
        "--adaptive R: R tuning rounds of doubling length (ceil(T/2^R) ... ceil(T/2) scans), each\n"
        "re-placing the betas at equal steps of the cumulative barrier (same number of replicas, same\n"
        "ends); every statistic then comes from a final run of T scans on the tuned ladder.\n"
        "--trajectory FILE: CSV with columns scan,chain,rung_0..rung_N; rung_k holds the id of the\n"
        "replica at beta_k after that scan (replica i starts at rung i; scans count from 1 over all\n"
        "rounds). Long runs keep every 2^j-th scan so that the record stays under 32 MB.\n"
        "Ctrl-C: the statistics of the scans so far (scans_done of all rounds), \"complete\": false, exit 130.");
}

struct PtRequest {
    PtOptions options;
    std::optional<std::string> trajectory;  // --trajectory FILE
};

PtRequest read_pt_request(const Args& a) {
    PtRequest q;
    PtOptions& o = q.options;
    o.scheme = parse_pt_scheme(a.get("scheme", "deo"));
    o.chains = a.get_int("chains", 8, 1, 1'000'000);
    o.scans = a.get_int("sweeps", 2000, 1, 1'000'000'000);
    o.seed = a.get_seed("seed", 1);
    o.betas = ladder_from_args(a);
    o.adaptive_rounds = static_cast<int>(a.get_int("adaptive", 0, 0, 30));
    o.reference.grbm_scale = a.get_double("reference-scale", 1.0);
    if (!(o.reference.grbm_scale > 0))
        throw InputError("--reference-scale must be > 0, got " + a.get("reference-scale", ""));
    o.reference.brbm_float32 = a.get_choice("precision", "float64", {"float64", "float32"}) == "float32";
    o.reference.leaky_kernel = a.get_choice("kernel", "exact-mh", {"exact-mh", "paper-gibbs"}) == "paper-gibbs"
                                   ? LeakyKernel::PaperGibbs
                                   : LeakyKernel::ExactMH;
    q.trajectory = a.get("trajectory");
    if (q.trajectory && q.trajectory->empty()) throw InputError("--trajectory needs a file name");
    if (q.trajectory) check_writable(*q.trajectory, "--trajectory");  // before the run, not after it
    o.history_chains = q.trajectory ? a.get_int("trajectory-chains", std::min<Index>(o.chains, 16), 1, o.chains) : 0;
    if (!q.trajectory && a.has("trajectory-chains")) throw InputError("--trajectory-chains needs --trajectory");
    o.sample_chains = 0;
    o.window = 0;
    o.log_z = true;
    o.log_z_batches = a.get_int("log-z-batches", 20, 2, 1'000'000);
    o.log_z_burn_in = a.get_double("log-z-burn-in", 0.1);
    validate(o);
    return q;
}

// Ctrl-C, the progress line (rank 0) and, under mpirun, the ranks sharing the rungs
// (mpi/pt_exchange.hpp).
PtControl pt_control(const PtOptions& o, Progress& progress, mpi::WorldPtExchange& exchange) {
    PtControl control;
    control.cancel = &interrupt::flag();
    mpi::World& world = mpi::world();
    if (world.distributed()) {
        const Index replicas = static_cast<Index>(o.betas.size());
        if (world.size() > replicas)
            throw InputError("mpirun -np " + std::to_string(world.size()) + ": more ranks than the " +
                             std::to_string(replicas) +
                             " replicas of the ladder (each rank runs whole rungs); use at most " +
                             std::to_string(replicas) + " ranks or more --replicas");
        control.exchange = &exchange;
        control.gather_states = false;  // the JSON has no states: nothing model-sized is ever sent
    }
    if (progress.mode() != Progress::Mode::Off && world.root()) {
        const double per_scan = static_cast<double>(o.chains) * static_cast<double>(o.betas.size());
        progress.update("tempering", 0, 0);
        control.on_progress = [&progress,
                               per_scan](const PtSnapshot& s) {  // per_scan by value: it ends with this block
            progress.update(
                "tempering", static_cast<double>(s.scans_done) / static_cast<double>(s.scans_total),
                per_scan * static_cast<double>(s.scans_done),
                {{"scans_done", s.scans_done}, {"scans", s.scans_total}, {"round", s.round}, {"rounds", s.rounds}});
        };
    }
    return control;
}

// The barrier Lambda, the local barrier lambda(beta) on 51 betas from beta_0 to 1, the cumulative
// barrier and the N it recommends.
void add_barrier(json& j, const PtResult& r) {
    const BarrierProfile profile = barrier_profile(r.betas, r.stats.rejection);
    j["barrier"] = profile.total();
    json grid_beta = json::array(), grid_lambda = json::array();
    const double b0 = r.betas.front();
    for (int i = 0; i <= 50; ++i) {
        const double beta = b0 + (1.0 - b0) * i / 50.0;
        grid_beta.push_back(beta);
        grid_lambda.push_back(profile.local(beta));
    }
    j["local_barrier"] = {{"beta", grid_beta}, {"lambda", grid_lambda}};
    j["cumulative_barrier"] = profile.cumulative.y();
    j["recommended_n"] = recommended_n(profile.total());
    j["recommended_replicas"] = recommended_n(profile.total()) + 1;
}

json pt_stats_json(const PtOptions& o, const Model& m, const PtResult& r) {
    const PtStats& s = r.stats;
    json j;
    j["scheme"] = pt_scheme_name(o.scheme);
    j["kind"] = kind_name(m.kind());
    j["family"] = r.description;
    j["kernel"] = r.kernel;
    j["chains"] = o.chains;
    j["sweeps"] = o.scans;
    j["seed"] = o.seed;
    j["replicas"] = r.betas.size();
    j["betas"] = r.betas;
    j["swap_acceptance"] = s.acceptance();
    j["rejection"] = s.rejection;
    j["swaps_proposed"] = s.proposed;
    j["swaps_accepted"] = s.accepted;
    j["round_trips"] = s.total_round_trips();
    j["restarts"] = s.total_restarts();
    j["round_trips_per_replica"] = s.round_trips;
    j["restarts_per_replica"] = s.restarts;
    j["round_trip_rate"] = s.round_trip_rate();
    j["predicted_round_trip_rate"] = s.predicted_round_trip_rate();
    j["prediction"] = prediction_formula(o.scheme);
    if (o.scheme == PtScheme::Lifted) {
        j["lifted_round_trips"] = s.lifted_round_trips;
        j["lifted_round_trip_rate"] = s.lifted_round_trip_rate();
    }
    add_barrier(j, r);
    if (o.adaptive_rounds > 0) {
        json rounds = json::array();
        for (const auto& rd : r.rounds)
            rounds.push_back(
                {{"betas", rd.betas}, {"rejection", rd.rejection}, {"barrier", rd.barrier}, {"sweeps", rd.scans}});
        j["adaptive_rounds"] = rounds;
    }
    return j;
}

json trajectory_json(const std::string& file, const IndexHistory& h) {
    return {{"file", file},
            {"format", "scan,chain,rung_0..rung_N (replica id at each rung)"},
            {"chains", h.chains()},
            {"scans_recorded", h.size()},
            {"stride", h.stride()}};
}

// Payload every rank handed to MPI during the scans, all ranks together: the potentials, stop
// flags and counts, 8 bytes per replica and scan to each other rank, whatever the model's size
// (swaps move rungs, never states).
json mpi_json(const std::vector<double>& bytes, const PtResult& r) {
    double total = 0;
    for (double b : bytes) total += b;
    const double scans = std::max<double>(1.0, static_cast<double>(r.scans_done));
    return {{"ranks", mpi::world().size()},
            {"bytes_sent", total},
            {"bytes_sent_per_scan", total / scans},
            {"potential_bytes_per_scan", total / scans}};
}

json run_pt_command(const std::vector<std::string>& argv) {
    Args a = pt_args();
    a.parse(argv);
    if (a.help_requested()) {
        std::cout << a.usage();
        return nullptr;
    }
    ThreadLimit limit(static_cast<int>(a.get_int("threads", 0, 0, 1024)));
    const PtRequest q = read_pt_request(a);
    const PtOptions& o = q.options;
    interrupt::watch();
    Progress progress(a);
    const Model m = a.model(0);
    mpi::World& world = mpi::world();
    mpi::WorldPtExchange exchange;
    const PtControl control = pt_control(o, progress, exchange);
    world.agree(0, /*start_work=*/true);
    const PtResult r = run_pt(m, o, control);
    // Every rank's bytes, summed on rank 0 (one gather: not counted in the figures).
    const double mine = static_cast<double>(exchange.bytes_sent());
    const std::vector<double> bytes = world.gather(&mine, 1);
    world.end_work();
    if (world.root()) progress.finish(!r.cancelled);

    json j = pt_stats_json(o, m, r);
    j["log_z"] = pt_log_z_json(r);
    if (!r.log_z) j["log_z_error"] = r.log_z_error;
    if (m.kind() == ModelKind::Leaky && o.reference.leaky_kernel == LeakyKernel::PaperGibbs)
        j["log_z_note"] = "the paper-gibbs kernel does not leave the tempered v-marginals invariant: log Z is biased";
    if (world.root() && has_exact_log_z(m)) j["exact_log_z"] = exact_log_z(m);
    if (q.trajectory) {
        if (world.root()) write_file_atomically(*q.trajectory, trajectory_csv(r.history));
        j["trajectory"] = trajectory_json(*q.trajectory, r.history);
    }
    if (world.distributed()) j["mpi"] = mpi_json(bytes, r);
    j["seconds"] = r.seconds;
    j["complete"] = !r.cancelled;
    if (r.cancelled) {  // the statistics above are of the scans of the last round so far
        j["scans_done"] = r.scans_done;
        j["round_scans_done"] = r.stats.scans;
    }
    return j;
}

}  // namespace

REGISTER_COMMAND("pt", "parallel tempering: swap rates, round trips vs theory, barrier, adaptive ladder",
                 run_pt_command);

}  // namespace rbm::cli
