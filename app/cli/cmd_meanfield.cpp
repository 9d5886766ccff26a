// rbmscope-cli meanfield: naive mean field (types I, II) and its TAP correction, GRBM (docs/methods/mean-field.md).
#include <iostream>

#include "cli_command.hpp"
#include "core/io/presets.hpp"
#include "core/meanfield/meanfield.hpp"
#include "core/numerics/parallel.hpp"

namespace rbm::cli {
namespace {

const char* method_label(MeanFieldType t) {
    switch (t) {
        case MeanFieldType::TypeI: return "type I naive mean field (all variables factorized)";
        case MeanFieldType::TypeII: return "type II naive mean field (v integrated out, hidden units factorized)";
        case MeanFieldType::Tap: return "TAP: type II sites plus the second-order Plefka (Onsager) term";
    }
    return "?";
}

Args meanfield_args() {
    return Args("meanfield", {"MODEL"},
                {{"type", "1|2|tap",
                  "1: factorize v and h; 2: integrate v, factorize h (default); tap: 2 plus the Onsager term"},
                 {"damping", "D", "mu <- (1-D) mu + D f(mu), D in (0,1] (default 1)"},
                 {"update", "U", "sequential (default) or parallel"},
                 {"restarts", "R", "restarts (default 10): the first from the uncoupled solution, the rest random"},
                 {"tol", "T", "converged when no mean moves more than T in a sweep (default 1e-10)"},
                 {"max-iterations", "I", "sweeps per restart before giving up (default 10000)"},
                 {"seed", "S", "seed of the random restarts (default 1)"},
                 {"max-configurations", "N", "compare with exact answers when |X|^m <= N (default 16777216 = 2^24)"},
                 {"trace", "",
                  "add \"trace\": free energy, residual and largest move after each sweep of the reported restart"},
                 {"threads", "T", "worker threads; results do not depend on it"}},
                "Naive mean field for a Gaussian RBM (kind grbm). Prints the best (lowest free energy)\n"
                "converged fixed point, every distinct end point of the restarts, and, when the hidden\n"
                "configurations can be enumerated, the exact -log Z and moments with the errors.\n"
                "Free energies estimate -log Z: types 1 and 2 are upper bounds (-log Z <= F_2 <= F_1);\n"
                "the TAP free energy is a truncated series and is not a bound.");
}

MeanFieldOptions read_meanfield_options(const Args& a) {
    MeanFieldOptions o;
    const std::string type = a.get_choice("type", "2", {"1", "2", "tap"});
    o.type = type == "1" ? MeanFieldType::TypeI : type == "2" ? MeanFieldType::TypeII : MeanFieldType::Tap;
    o.damping = a.get_double("damping", 1.0);
    if (!(o.damping > 0 && o.damping <= 1))
        throw InputError("--damping must be in (0, 1], got " + a.get("damping", ""));
    o.update = a.get_choice("update", "sequential", {"sequential", "parallel"}) == "parallel"
                   ? MeanFieldUpdate::Parallel
                   : MeanFieldUpdate::Sequential;
    o.restarts = static_cast<int>(a.get_int("restarts", 10, 1, 1000000));
    o.tol = a.get_double("tol", 1e-10);
    if (!(o.tol > 0)) throw InputError("--tol must be a positive number, got " + a.get("tol", ""));
    o.max_iterations = a.get_int("max-iterations", 10000, 1, 1'000'000'000);
    o.seed = a.get_seed("seed", 1);
    o.exact.max_configurations = static_cast<double>(a.get_int("max-configurations", 16777216, 1, 1LL << 40));
    o.record_trace = a.flag("trace");
    return o;
}

json meanfield_json(const Model& m, const MeanFieldOptions& o, const MeanFieldResult& r) {
    json j;
    j["type"] = mean_field_type_name(r.type);
    j["method"] = method_label(r.type);
    j["free_energy"] = r.free_energy;
    j["free_energy_is_bound"] = r.type != MeanFieldType::Tap;
    if (r.type == MeanFieldType::Tap)
        j["note"] =
            "the TAP free energy is a truncated Plefka series, not a variational bound: it may lie below -log Z";
    j["mean_v"] = to_json(r.mean_v);
    j["mean_h"] = to_json(r.mean_h);
    j["mean_h2"] = to_json(r.mean_h2);
    j["var_v"] = to_json(r.var_v);
    if (r.type != MeanFieldType::TypeI) j["cov_v"] = to_json(r.cov_v);
    j["iterations"] = r.iterations;
    j["converged"] = r.converged;
    j["residual"] = r.residual;
    json points = json::array();
    for (const auto& p : r.fixed_points)
        points.push_back({{"free_energy", p.free_energy},
                          {"iterations", p.iterations},
                          {"converged", p.converged},
                          {"restarts", p.hits},
                          {"first_restart", p.first_restart},
                          {"mean_h", to_json(p.mean_h)}});
    j["fixed_points"] = points;
    if (o.record_trace)
        j["trace"] = {{"free_energy", r.trace.free_energy}, {"residual", r.trace.residual}, {"change", r.trace.change}};
    j["options"] = {{"damping", o.damping},
                    {"update", o.update == MeanFieldUpdate::Parallel ? "parallel" : "sequential"},
                    {"restarts", o.restarts},
                    {"tol", o.tol},
                    {"max_iterations", o.max_iterations},
                    {"seed", o.seed}};
    if (r.exact) {
        const MeanFieldExact& e = *r.exact;
        j["exact"] = {{"free_energy", e.free_energy},
                      {"free_energy_error", e.free_energy_error},
                      {"mean_v", to_json(e.mean_v)},
                      {"mean_h", to_json(e.mean_h)},
                      {"var_v", to_json(e.var_v)},
                      {"mse_h", e.mse_h},
                      {"mse_v", e.mse_v}};
    } else {
        const EnumerationSize size = enumeration_size(m);
        j["exact_skipped"] = size.what + " exceed --max-configurations";
    }
    return j;
}

json run_meanfield(const std::vector<std::string>& argv) {
    Args a = meanfield_args();
    a.parse(argv);
    if (a.help_requested()) {
        std::cout << a.usage();
        return nullptr;
    }
    ThreadLimit limit(static_cast<int>(a.get_int("threads", 0, 0, 1024)));
    const MeanFieldOptions o = read_meanfield_options(a);
    const Model m = a.model(0);
    return meanfield_json(m, o, mean_field(m, o));
}

}  // namespace

REGISTER_COMMAND("meanfield", "naive mean field (type I/II) and TAP for a GRBM, with exact errors", run_meanfield);

}  // namespace rbm::cli
