// rbmscope-cli bench: chain-sweeps per second of the AIS engine on fixed benchmark cases (a
// 784x500 BRBM, a 108x200 GRBM, a 3072x30 leaky RBM and the two 2-D toy presets), next to the
// matrix-multiply rate measured in the same run (same scalar type, same thread count), so every
// figure says how close the kernel is to the two-products-per-sweep bound.
//
// Output: one JSON object {"cases": [...], ...} (the CLI contract); with --jsonl instead one
// JSON line per case as soon as it finishes, and nothing else (for scripts that stream).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>

#include "cli_command.hpp"
#include "core/ais/paths.hpp"
#include "core/ais/runner.hpp"
#include "core/io/model_io.hpp"
#include "core/io/presets.hpp"
#include "core/kernels/simd.hpp"
#include "core/numerics/parallel.hpp"

namespace rbm::cli {

namespace {

using Clock = std::chrono::steady_clock;

struct Case {
    std::string name;
    Model model;
    PathPtr path;
    Index chains = 1000, steps = 100;
    Index gemm_n = 0, gemm_m = 0;  // the two products per sweep are chains x n times n x m (0: none)
};

// Normal entries with the given mean and sd, from a fixed stream (the bench models are synthetic).
Vec normals(Rng& rng, Index size, double mean, double sd) {
    Vec v(size);
    for (Index i = 0; i < size; ++i) v(i) = mean + sd * rng.normal();
    return v;
}
Mat normal_matrix(Rng& rng, Index rows, Index cols, double sd) {
    Mat w(rows, cols);
    for (Index j = 0; j < cols; ++j)
        for (Index i = 0; i < rows; ++i) w(i, j) = sd * rng.normal();
    return w;
}

// The peer's model (ais_peer.py make_model: W ~ N(0, 0.05^2), b ~ N(-1, 0.5^2), c ~ N(-0.5, 0.5^2)),
// drawn from our own generator unless the peer's file is given.
Brbm bench_brbm(const std::string& file) {
    if (!file.empty()) {
        const Model m = load_model(file);
        const Brbm* b = m.as<Brbm>();
        if (!b)
            throw InputError("--model: the BRBM benchmark needs a brbm model file, '" + file + "' holds a " +
                             kind_name(m.kind()));
        return *b;
    }
    ChainRngs rngs(8, 1, StreamPurpose::Misc);
    Brbm b;
    b.W = normal_matrix(rngs[0], 784, 500, 0.05);
    b.b = normals(rngs[0], 784, -1.0, 0.5);
    b.c = normals(rngs[0], 500, -0.5, 0.5);
    return b;
}

Grbm bench_grbm() {
    ChainRngs rngs(8, 2, StreamPurpose::Misc);
    Grbm g;
    g.W = normal_matrix(rngs[1], 108, 200, 0.05);
    g.b = normals(rngs[1], 108, 0.0, 1.0);
    g.c = normals(rngs[1], 200, -1.0, 0.5);
    g.sigma = Vec::Ones(108);
    return g;
}

Leaky bench_leaky() {
    ChainRngs rngs(8, 3, StreamPurpose::Misc);
    Leaky l;
    l.W = normal_matrix(rngs[2], 3072, 30, 0.5 / std::sqrt(3072.0));  // singular values ~0.5 +- 0.05
    l.b = Vec::Zero(3072);
    l.c = normals(rngs[2], 30, 0.0, 0.1);
    l.leakiness = 0.01;
    l.project(0.95);
    return l;
}

// GFLOP/s of chains x n times n x m products over the same chain blocks and threads as AIS, with
// the instruction set the kernels dispatch to (core/kernels/gemm_probe.cpp): the machine's bound.
double gemm_gflops(Index chains, Index n, Index m, bool f32, double min_seconds) {
    return detail::kernel_table().gemm_gflops(chains, n, m, ais_block_size(n), f32, min_seconds);
}

json run_case(const Case& c, const std::string& precision, int threads, int repeats, double gemm_seconds) {
    AisOptions o;
    o.cost_functional = false;  // not in the output: spare its enumeration
    o.chains = c.chains;
    o.seed = 1;
    o.checkpoints = 1;
    o.bootstrap_resamples = 200;
    // Warm-up: threads started, per-thread buffers grown.
    run_ais(*c.path, linear_schedule(std::max<Index>(2, c.steps / 20)), o);
    std::vector<double> rates;
    AisResult last;
    for (int r = 0; r < repeats; ++r) {
        last = run_ais(*c.path, linear_schedule(c.steps), o);
        rates.push_back(static_cast<double>(c.chains * c.steps) / last.seconds);
    }
    std::vector<double> sorted = rates;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted[sorted.size() / 2];
    json j;
    j["case"] = c.name;
    j["precision"] = precision;
    j["threads"] = threads;
    j["chains"] = c.chains;
    j["steps"] = c.steps;
    j["kernel"] = last.kernel;
    j["simd_path"] = simd_name(simd_active());
    j["path"] = last.path_name;
    j["chain_sweeps_per_s"] = median;
    j["chain_sweeps_per_s_all"] = rates;
    j["log_z"] = last.estimate.log_z;
    j["ci95"] = {last.estimate.ci95_low, last.estimate.ci95_high};
    if (c.gemm_n > 0) {
        const double gemm = gemm_gflops(c.chains, c.gemm_n, c.gemm_m, precision == "float32", gemm_seconds);
        const double flops_per_sweep = 4.0 * static_cast<double>(c.gemm_n) * static_cast<double>(c.gemm_m);
        j["gemm_gflops"] = gemm;
        j["nominal_gflops"] = median * flops_per_sweep * 1e-9;
        j["gemm_bound_chain_sweeps_per_s"] = gemm * 1e9 / flops_per_sweep;
        j["fraction_of_gemm_bound"] = median * flops_per_sweep * 1e-9 / gemm;
    } else {
        j["gemm_gflops"] = nullptr;
        j["fraction_of_gemm_bound"] = nullptr;
    }
    return j;
}

const std::vector<std::string> kCases = {"brbm-784x500", "grbm-108x200", "leaky-3072x30", "four-mode", "two-gaussians"};

Args bench_args() {
    return Args("bench", {},
                {{"case", "NAME|all",
                  "brbm-784x500 | grbm-108x200 | leaky-3072x30 | four-mode | two-gaussians | all (default)"},
                 {"precision", "float32|float64|both",
                  "scalar type of the products (default both; leaky and the 2-D toys: float64)"},
                 {"threads", "T", "worker threads (default: all cores)"},
                 {"chains", "N", "chains (default 1000; 2-D toys 100000)"},
                 {"steps", "K", "annealing steps per timed run (default per case, ~1-3 s each)"},
                 {"repeats", "R", "timed runs per case; the median is reported (default 3, --quick 1)"},
                 {"model", "FILE", "the BRBM benchmark model (e.g. written by ais_peer.py --save-model)"},
                 {"quick", "", "short runs (a smoke test, not a measurement)"},
                 {"jsonl", "", "print one JSON line per case as it finishes instead of one object at the end"}},
                "Chain-sweeps per second of AIS (one Gibbs transition of one chain at one intermediate\n"
                "distribution, with its weight update) on the benchmark cases (--case), and the\n"
                "matrix-multiply rate measured in the same run with the same scalar type and threads.\n"
                "fraction_of_gemm_bound = chain_sweeps_per_s / (gemm rate / (two products of 2nm flops));\n"
                "the binary kernels skip units that are off, so it can exceed 1.");
}

struct BenchRequest {
    std::string which, precision;
    int threads = 0, repeats = 1;
    bool quick = false, jsonl = false;
    std::string model_file;
};

BenchRequest read_bench_request(const Args& a) {
    BenchRequest q;
    std::vector<std::string> choices = kCases;
    choices.push_back("all");
    q.which = a.get_choice("case", "all", choices);
    q.precision = a.get_choice("precision", "both", {"float32", "float64", "both"});
    q.threads = static_cast<int>(a.get_int("threads", 0, 0, 1024));
    q.quick = a.flag("quick");
    q.jsonl = a.flag("jsonl");
    q.repeats = static_cast<int>(a.get_int("repeats", q.quick ? 1 : 3, 1, 1000));
    q.model_file = a.get("model", "");
    return q;
}

// The case `name` in precision f32 or float64, its chains and steps from --chains and --steps
// (read only here, so a bad value is reported when the first case is built).
Case make_case(const Args& a, const BenchRequest& q, const std::string& name, bool f32) {
    const double scale = q.quick ? 0.05 : 1.0;
    auto steps_for = [&](Index full) {
        return a.has("steps") ? static_cast<Index>(a.get_int("steps", 1, 1))
                              : std::max<Index>(2, static_cast<Index>(full * scale));
    };
    auto chains_for = [&](Index dflt) { return static_cast<Index>(a.get_int("chains", dflt, 1, 1LL << 31)); };
    Case c;
    c.name = name;
    if (name == "brbm-784x500") {
        const Brbm b = bench_brbm(q.model_file);
        c.path = make_brbm_geometric_path(b, b.b, "base rate = target visible bias", f32);
        c.chains = chains_for(1000);
        c.steps = steps_for(300);
        c.gemm_n = b.n_visible();
        c.gemm_m = b.n_hidden();
    } else if (name == "grbm-108x200") {
        const Grbm g = bench_grbm();
        c.path = make_grbm_geometric_path(g, DiagGaussianBase{g.b, g.sigma}, "N(b, sigma^2)", f32);
        c.chains = chains_for(1000);
        c.steps = steps_for(300);
        c.gemm_n = 108;
        c.gemm_m = 200;
    } else if (name == "leaky-3072x30") {
        const Leaky l = bench_leaky();
        c.path = make_leaky_leakiness_path(l, LeakyKernel::ExactMH);
        c.chains = chains_for(1000);
        c.steps = steps_for(100);
        c.gemm_n = 3072;
        c.gemm_m = 30;
    } else {
        const Model m = load_preset(name);
        PathRequest req;
        c.path = build_path(m, req);
        c.chains = chains_for(100000);
        c.steps = steps_for(100);
    }
    return c;
}

json run(const std::vector<std::string>& argv) {
    Args a = bench_args();
    a.parse(argv);
    if (a.help_requested()) {
        std::cout << a.usage();
        return nullptr;
    }
    const BenchRequest q = read_bench_request(a);
    ThreadLimit limit(q.threads);

    std::vector<std::string> precisions;
    if (q.precision != "float64") precisions.push_back("float32");
    if (q.precision != "float32") precisions.push_back("float64");

    json cases = json::array();
    auto emit = [&](json j) {
        if (q.jsonl) std::cout << j.dump() << std::endl;
        else cases.push_back(std::move(j));
    };
    const double gemm_seconds = q.quick ? 0.05 : 0.5;
    for (const std::string& name : kCases) {
        if (q.which != "all" && q.which != name) continue;
        // The leaky and 2-D toy paths have no float32 variant: they run in float64 only.
        const bool toy = name == "four-mode" || name == "two-gaussians" || name == "leaky-3072x30";
        for (const std::string& p : precisions) {
            if (toy && p == "float32" && q.precision == "both") continue;
            emit(run_case(make_case(a, q, name, p == "float32"), toy ? "float64" : p, q.threads, q.repeats,
                          gemm_seconds));
        }
    }
    if (q.jsonl) return nullptr;
    json out;
    out["cases"] = cases;
    out["threads"] = q.threads;
    out["quick"] = q.quick;
    out["simd_path"] = simd_name(simd_active());  // kernels and GEMM bound alike
    out["cpu_features"] = cpu_features();
    return out;
}

REGISTER_COMMAND("bench", "chain-sweeps per second of the AIS kernels, next to the machine's GEMM rate", run);

}  // namespace

}  // namespace rbm::cli
