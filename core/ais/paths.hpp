#pragma once
// Factories for every annealing path of docs/methods/annealing-paths.md, and build_path(), which turns the CLI/GUI
// request (path, base, model, optional start model) into one of them.
#include <atomic>
#include <functional>
#include <optional>
#include <string>

#include "core/ais/path.hpp"
#include "core/kernels/gibbs.hpp"
#include "core/models/models.hpp"

namespace rbm {

// Where target moments come from (docs/methods/annealing-paths.md#target-moments).
struct MomentSource {
    enum class Kind { Auto, Exact, Gibbs, Data } kind = Kind::Auto;     // Auto: exact when enumerable, else Gibbs
    Index gibbs_chains = 100, gibbs_steps = 5000, gibbs_burn_in = 100;  // Kiwaki's setting
    std::uint64_t seed = 1;
    RowMat data;  // Kind::Data: rows are visible vectors
    // False when only the mean is used (a BRBM's base rate): the covariance, n^2 per sample or per
    // enumerated configuration, is then not accumulated (cov is left empty). The mean is the same bits.
    bool need_cov = true;
    // Auto only: the work (multiply-adds) of the run these moments serve, e.g. AIS chains x steps x
    // 2 n m. Exact enumeration is taken only when it costs at most max(Gibbs estimate, this run,
    // kExactMomentsFloor); otherwise the Gibbs estimate. 0: exact whenever enumerable.
    double run_work = 0;
    // Gibbs chains only (the long phase: minutes on a large BRBM). `cancel` is read between pieces
    // of every sweep, tens of milliseconds of work each however many chains (the app's quit, the
    // CLI's Ctrl-C); raised, target_moments (and so build_path) throws Cancelled. `on_sweep(done,
    // total)` is called on the calling thread after every sweep, total = burn-in + steps sweeps of
    // gibbs_chains chains; `on_partial(sweeps, total)` after every piece but a sweep's last when a
    // sweep takes several pieces (sweeps: fractional, e.g. 0.25 a quarter into the first). None
    // changes the numbers.
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(Index done, Index total)> on_sweep;
    std::function<void(double sweeps, Index total)> on_partial;
};
struct VisibleMoments {
    Vec mean;
    Mat cov;
    std::string source;  // "exact enumeration", "Gibbs chains (100 x 5000, burn-in 100)", "data (N rows)"
};
VisibleMoments target_moments(const Model& model, const MomentSource& src);
// Below this many multiply-adds (a few seconds) exact moments are always taken when enumerable.
inline constexpr double kExactMomentsFloor = 2e10;
// The multiply-adds of exact visible moments / of the Gibbs estimate of `src`
// (docs/methods/annealing-paths.md#target-moments).
double exact_moments_work(const Model& model);
double gibbs_moments_work(const Model& model, const MomentSource& src);

// ---- geometric paths on the joint energy (docs/methods/annealing-paths.md#geometric) ----
// float32: the two products with W per step in single precision (weights still accumulate in double).
PathPtr make_grbm_geometric_path(const Grbm& m, const DiagGaussianBase& base, const std::string& base_label,
                                 bool float32 = false);
PathPtr make_brbm_geometric_path(const Brbm& m, const Vec& base_visible_bias, const std::string& base_label,
                                 bool float32 = false);
// Two normalized Gaussians (the moment-averaging toy). Intermediate distributions are Gaussian,
// so perfect transitions are exact draws; the MCMC kernel is a coordinate-wise Gibbs sweep.
enum class GaussianPathKind { Geometric, MomentAveraging };
PathPtr make_gaussian_path(const Gaussian& from, const Gaussian& to, GaussianPathKind kind);

// ---- full-covariance base for GRBMs, "AISC" (docs/methods/annealing-paths.md#aisc) ----
// target_cov: the covariance to match; the eigenvalues of C - diag(sigma^2) are floored at
// floor_scale * mean(sigma^2), and notes() reports how many were.
PathPtr make_grbm_cov_path(const Grbm& m, const Vec& base_mean, const Mat& target_cov, double floor_scale = 1e-3);

// ---- moment averaging, moments-averaged spline "MAS" (docs/methods/annealing-paths.md#mas) for GRBM and BRBM ----
struct MasOptions {
    std::vector<double> knots{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
    int max_iterations = 500;                 // moment-matching ascent per knot
    double tolerance = 1e-8;                  // gradient norm
    Index pcd_chains = 1000, pcd_steps = 20;  // when moments are not enumerable
    std::uint64_t seed = 1;
    const std::atomic<bool>* cancel = nullptr;  // raised -> throws Cancelled between fits and sweeps
};
PathPtr make_mas_path(const Model& target, const Model& base, const MasOptions& opts);

// ---- leaky RBM paths (docs/methods/annealing-paths.md#leakiness) ----
// "AIS-Leaky": leakiness annealed from 1 down to the model's cL; beta maps to c(beta) = 1 - beta (1 - cL).
PathPtr make_leaky_leakiness_path(const Leaky& m, LeakyKernel kernel);
// "AIS-Energy": geometric path on the joint energy from E_0 = |v - b|^2/2.
PathPtr make_leaky_energy_path(const Leaky& m, LeakyKernel kernel);

// ---- the request as the CLI and the GUI state it ----
struct PathRequest {
    std::string path = "geometric";  // geometric | cov | moments | leaky | energy
    std::string base = "moment";     // moment | sigma | uniform | data
    std::optional<Model> from;       // explicit start model (--from), overrides base/anneal_from
    MomentSource moments;            // for moment-matched bases and MAS
    MasOptions mas;
    LeakyKernel leaky_kernel = LeakyKernel::ExactMH;
    double cov_floor_scale = 1e-3;
    bool float32 = false;  // --precision float32: geometric GRBM/BRBM paths only
};
// InputError for every combination that makes no sense (e.g. cov on a BRBM), naming it.
PathPtr build_path(const Model& target, const PathRequest& request);

}  // namespace rbm
