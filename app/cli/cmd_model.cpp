// rbmscope-cli info / exact / sample / presets: the foundation commands (docs/user/cli.md).
#include <cstdlib>
#include <iostream>

#include "cli_command.hpp"
#include "core/exact/exact.hpp"
#include "core/io/presets.hpp"
#include "core/kernels/gibbs.hpp"
#include "core/kernels/simd.hpp"
#include "core/numerics/memory_budget.hpp"
#include "core/numerics/parallel.hpp"
#include "core/sampling/runner.hpp"
#include "data_args.hpp"
#include "interrupt.hpp"
#include "progress.hpp"

namespace rbm::cli {
namespace {

json model_summary(const Model& m) {
    json j;
    j["kind"] = kind_name(m.kind());
    j["name"] = m.name;
    j["n_visible"] = m.n_visible();
    j["n_hidden"] = m.n_hidden();
    if (const auto* g = m.as<Grbm>()) j["hidden_values"] = g->hidden_values;
    if (const auto* l = m.as<Leaky>()) {
        j["leakiness"] = l->leakiness;
        j["max_singular_value"] = l->max_singular_value();
    }
    if (m.anneal_from) j["anneal_from"] = {{"kind", kind_name(m.anneal_from->kind())}, {"name", m.anneal_from->name}};
    return j;
}

// `info --cpu`: the instruction set the hot kernels run with, and what the processor offers.
json cpu_info() {
    json built = json::array(), supported = json::array();
    for (SimdPath p : simd_built()) built.push_back(simd_name(p));
    for (SimdPath p : simd_supported()) supported.push_back(simd_name(p));
    const char* env = std::getenv("RBMSCOPE_SIMD");
    // "forced_by" names the variable when it chose the path, else "" (the best supported path).
    return {{"simd_path", simd_name(simd_active())},
            {"simd_built", built},
            {"simd_supported", supported},
            {"cpu_features", cpu_features()},
            {"forced_by", env && *env ? "RBMSCOPE_SIMD=" + std::string(env) : std::string()}};
}

json run_info(const std::vector<std::string>& argv) {
    if (argv.size() == 1 && argv[0] == "--cpu") return cpu_info();
    Args a("info", {"MODEL"}, {},
           "Describe a model: kind, sizes, and whether an exact log Z is available.\n"
           "'rbmscope-cli info --cpu' instead names the instruction set the kernels use (sse2, avx2,\n"
           "avx512: the best this processor has, or the one the RBMSCOPE_SIMD environment variable forces).");
    a.parse(argv);
    if (a.help_requested()) {
        std::cout << a.usage();
        return nullptr;
    }
    const Model m = a.model(0);
    json j = model_summary(m);
    j["notes"] = m.notes;
    const EnumerationSize size = enumeration_size(m);
    j["enumeration"] = {{"configurations", size.configurations}, {"what", size.what}};
    j["exact_available"] = has_exact_log_z(m);
    return j;
}

json run_exact(const std::vector<std::string>& argv) {
    Args a("exact", {"MODEL"},
           {{"max-configurations", "N", "refuse enumerations larger than N (default 16777216 = 2^24)"},
            {"threads", "T", "worker threads (default: all cores); results do not depend on it"}},
           "Exact log Z, mean and covariance of v for a small model (enumeration, closed forms,\n"
           "or quadrature for 2-D leaky RBMs). Refuses, naming the size, when it cannot be done exactly.");
    a.parse(argv);
    if (a.help_requested()) {
        std::cout << a.usage();
        return nullptr;
    }
    ThreadLimit limit(static_cast<int>(a.get_int("threads", 0, 0, 1024)));
    ExactOptions opts;
    opts.max_configurations = static_cast<double>(a.get_int("max-configurations", 16777216, 1, 1LL << 40));
    const Model m = a.model(0);
    json j = model_summary(m);
    j["log_z"] = exact_log_z(m, opts);
    const Moments mo = exact_visible_moments(m, opts);
    j["mean_v"] = to_json(mo.mean);
    j["cov_v"] = to_json(mo.cov);
    return j;
}

Args sample_args() {
    std::vector<Args::Option> opts{
        {"chains", "N", "independent chains (default 10)"},
        {"sweeps", "T", "block-Gibbs sweeps per chain (default 1000); 0 with --exact"},
        {"seed", "S", "random seed (default 1)"},
        {"threads", "T", "worker threads; results do not depend on it"},
        {"kernel", "K", "leaky RBMs: exact-mh (default, exact for p*(v)) or paper-gibbs (the paper's kernel)"},
        {"precision", "float64|float32",
         "BRBMs: products with W and the draws in double (default) or single precision"},
        {"exact", "", "draw exact samples instead of running chains (small models)"},
        {"format", "F", "json (default) or csv (one row per chain, no header)"},
        {"data", "SPEC",
         "data shown next to the samples (\"data\": as many examples as chains), preprocessed with the\n"
         "      transforms below: bars:D, digits, FILE.csv[.gz], FILE-idx3-ubyte; default: the data the\n"
         "      model file records (key \"training\", written by train)"},
        Progress::option()};
    for (const auto& o : data_options()) opts.push_back(o);
    return Args("sample", {"MODEL"}, opts,
                "Samples of v: the final state of each chain after T sweeps from the model's reference\n"
                "distribution, or exact samples with --exact.\n"
                "Ctrl-C: the chains' states after sweeps_done sweeps, \"complete\": false, exit 130.");
}

// Data asked for (--data) must load; the file's record only adds to the samples, so when its
// data cannot be found the samples still come, with a warning saying why there is no "data".
std::optional<InspectionData> data_beside_samples(const Args& a, const Model& m, json& warnings) {
    if (a.has("data") || has_data_transform(a) || !m.training) return inspection_data(a, m, a.positional(0));
    try {
        return inspection_data(a, m, a.positional(0));
    } catch (const InputError& e) {
        warnings.push_back(e.what());
    }
    return std::nullopt;
}

// T block-Gibbs sweeps of every chain from the model's reference distribution (fewer after
// Ctrl-C), by the sampling engine (sampling/runner.hpp); adds the method, the sweeps and, for leaky
// RBMs, the kernel and its acceptance to `j`. Returns whether every sweep was done.
bool run_chains(const Args& a, const Model& m, Index chains, long long sweeps, std::uint64_t seed,
                const std::string& kernel, bool float32, RowMat& V, json& j) {
    interrupt::watch();
    Progress progress(a);
    progress.update("sampling", 0, 0);
    SampleOptions so;
    so.chains = chains;
    so.sweeps = sweeps;
    so.seed = seed;
    so.float32 = float32;
    so.leaky_kernel = kernel == "paper-gibbs" ? LeakyKernel::PaperGibbs : LeakyKernel::ExactMH;
    SampleControl ctl;
    ctl.cancel = &interrupt::flag();
    ctl.on_progress = [&](const SampleProgress& p) {
        progress.update("sampling", sweeps > 0 ? static_cast<double>(p.sweeps_done) / static_cast<double>(sweeps) : 1.0,
                        static_cast<double>(p.sweeps_done) * static_cast<double>(chains));
    };
    SampleResult r = run_sampling(m, so, ctl);
    progress.finish(r.complete);
    V = std::move(r.states);
    j["method"] = "gibbs";
    j["sweeps"] = sweeps;
    if (!r.complete) j["sweeps_done"] = r.sweeps_done;
    if (m.kind() == ModelKind::Leaky) {
        j["kernel"] = leaky_kernel_name(so.leaky_kernel);
        if (r.leaky.proposed > 0) j["acceptance"] = double(r.leaky.accepted) / double(r.leaky.proposed);
    }
    if (float32) j["precision"] = "float32";
    return r.complete;
}

void print_samples_csv(const RowMat& V) {
    std::cout.precision(17);
    for (Index r = 0; r < V.rows(); ++r) {
        for (Index i = 0; i < V.cols(); ++i) std::cout << (i ? "," : "") << V(r, i);
        std::cout << "\n";
    }
}

json run_sample(const std::vector<std::string>& argv) {
    Args a = sample_args();
    a.parse(argv);
    if (a.help_requested()) {
        std::cout << a.usage();
        return nullptr;
    }
    ThreadLimit limit(static_cast<int>(a.get_int("threads", 0, 0, 1024)));
    const Index chains = a.get_int("chains", 10, 1, 10'000'000);
    const long long sweeps = a.get_int("sweeps", 1000, 0, 100'000'000);
    const std::uint64_t seed = a.get_seed("seed", 1);
    const std::string format = a.get_choice("format", "json", {"json", "csv"});
    const std::string kernel = a.get_choice("kernel", "exact-mh", {"exact-mh", "paper-gibbs"});
    const std::string precision = a.get_choice("precision", "float64", {"float64", "float32"});
    const Model m = a.model(0);
    json warnings = json::array();
    const std::optional<InspectionData> inspect = format == "json" ? data_beside_samples(a, m, warnings) : std::nullopt;
    if (static_cast<double>(chains) * static_cast<double>(m.n_visible()) > 2e8)
        throw InputError("--chains " + std::to_string(chains) + " x " + std::to_string(m.n_visible()) +
                         " visible units is too many values to print");
    // The chains' states and random streams, and the samples as JSON (about 16 bytes a number).
    check_memory_budget(
        static_cast<double>(chains) * (8.0 * static_cast<double>(m.n_visible() + m.n_hidden() + 2) + sizeof(Rng) +
                                       (format == "json" ? 16.0 * static_cast<double>(m.n_visible()) : 0.0)),
        "sampling " + std::to_string(chains) + " chains of " + std::to_string(m.n_visible()) + " + " +
            std::to_string(m.n_hidden()) + " units");
    RowMat V;
    json j = model_summary(m);
    bool complete = true;
    if (a.flag("exact")) {
        V = exact_samples(m, chains, seed);
        j["method"] = "exact";
    } else {
        complete = run_chains(a, m, chains, sweeps, seed, kernel, precision == "float32", V, j);
    }
    if (format == "csv") {
        print_samples_csv(V);
        return nullptr;
    }
    j["chains"] = chains;
    j["seed"] = seed;
    j["samples"] = to_json(V);
    if (inspect) {  // the data in the model's preprocessing, for comparison with the samples
        const RowMat X = inspect->data.X.topRows(std::min<Index>(chains, inspect->data.size()));
        j["data"] = {{"name", inspect->data.name},
                     {"spec", describe(inspect->spec)},
                     {"attached", inspect->attached},
                     {"examples", to_json(X)}};
    }
    if (!warnings.empty()) j["warnings"] = warnings;
    j["complete"] = complete;
    return j;
}

json run_presets(const std::vector<std::string>& argv) {
    Args a("presets", {}, {}, "List the bundled toy models (usable wherever a MODEL is expected).");
    a.parse(argv);
    if (a.help_requested()) {
        std::cout << a.usage();
        return nullptr;
    }
    json list = json::array();
    for (const auto& p : list_presets()) {
        const Model m = load_preset(p.name);
        json e = model_summary(m);
        e["preset"] = p.name;
        e["notes"] = p.notes;
        list.push_back(e);
    }
    return json{{"presets", list}, {"default", default_preset_name()}};
}

}  // namespace

REGISTER_COMMAND("info", "describe a model (kind, sizes, exact answers available)", run_info);
REGISTER_COMMAND("exact", "exact log Z, mean and covariance of v for small models", run_exact);
REGISTER_COMMAND("sample", "samples from block-Gibbs chains or exact draws", run_sample);
REGISTER_COMMAND("presets", "list the bundled toy models", run_presets);

}  // namespace rbm::cli
