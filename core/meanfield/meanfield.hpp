#pragma once
// Naive mean field for the Gaussian RBM (docs/methods/mean-field.md, Takahashi & Yasuda 2016) and, beyond the
// paper, the second-order Plefka (TAP) expansion of the hidden Boltzmann machine
//   p(h) ∝ exp(B.h + h'Jh/2),  B = c + W'(b/sigma),  J = W'W  (docs/methods/models.md#grbm-hidden-marginal),
// for any finite hidden value set X.
//
//   type I   q(v,h) = prod_i N(v_i; m_i, sigma_i^2) prod_j q_j(h_j),  q_j(x) ∝ exp(a_j x)
//   type II  q(v,h) = p(v|h) prod_j q_j(h_j),                      q_j(x) ∝ exp(a_j x + J_jj x^2/2)
//   tap      the type II sites plus the Onsager term -1/2 sum_{j<k} J_jk^2 Var_j Var_k
//
// Free energies are in nats and estimate -log Z. Types I and II are variational upper bounds
// (Proposition 2: -log Z <= F_II <= F_I at their minima); the TAP free energy is a truncated
// series and is NOT a bound: it may fall on either side of -log Z.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/exact/exact.hpp"
#include "core/models/models.hpp"

namespace rbm {

enum class MeanFieldType { TypeI, TypeII, Tap };
enum class MeanFieldUpdate { Sequential, Parallel };
const char* mean_field_type_name(MeanFieldType t);  // "1", "2", "tap"

struct MeanFieldOptions {
    MeanFieldType type = MeanFieldType::TypeII;
    // Sequential: unit j sees the units already updated in this sweep (Gauss-Seidel);
    // parallel: every unit sees the previous sweep (Jacobi).
    MeanFieldUpdate update = MeanFieldUpdate::Sequential;
    double damping = 1.0;              // mu <- (1-d) mu + d f(mu), d in (0,1]
    double tol = 1e-10;                // converged when max_j |change of mu_j| over a sweep < tol
    long long max_iterations = 10000;  // sweeps; reaching it is reported (converged = false)
    int restarts = 10;                 // restart 0 starts from the uncoupled solution, the rest at random
    std::uint64_t seed = 1;            // random restarts are drawn from it (deterministic)
    bool compare_exact = true;         // Model overload: attach exact answers when enumerable
    ExactOptions exact;
    // Record MeanFieldResult::trace. The reported restart is run a second time with recording on
    // (runs are deterministic, so it ends on the same point), so the other restarts cost nothing
    // extra; max_iterations must then be at most kMeanFieldMaxTraceIterations.
    bool record_trace = false;
    // Raised -> throws Cancelled before the next sweep (10^4 sweeps x 10 restarts of a large model
    // take seconds). Not owned; null: never. exact.cancel is separate.
    const std::atomic<bool>* cancel = nullptr;
};
inline constexpr long long kMeanFieldMaxTraceIterations = 1000000;  // 24 MB of trace at most

// Per-sweep record of the reported restart: entry t is taken after sweep t + 1, so every vector
// has MeanFieldResult::iterations entries and the last ones are the reported values.
struct MeanFieldTrace {
    std::vector<double> free_energy;  // the method's free energy at the current means
    std::vector<double> residual;     // max_j |f(mu)_j - mu_j|, as MeanFieldResult::residual
    std::vector<double> change;       // max_j |change of mu_j| during the sweep: converged when < tol
};

// One end point of the iteration (several restarts may reach the same one).
struct MeanFieldFixedPoint {
    double free_energy = 0;
    Vec mean_h;
    long long iterations = 0;  // of the first restart that reached it
    bool converged = false;
    int first_restart = 0;
    int hits = 0;  // restarts that ended here
};

// Exact answers by enumeration of X^m (docs/methods/models.md#grbm-hidden-marginal) and the mean-field answer's errors.
struct MeanFieldExact {
    double free_energy = 0;  // -log Z
    Vec mean_h, mean_v, var_v;
    double free_energy_error = 0;  // F_method - (-log Z)
    double mse_h = 0;              // mean_j (<h_j>_q - <h_j>)^2
    double mse_v = 0;              // mean_i (<v_i>_q - <v_i>)^2
};

struct MeanFieldResult {
    MeanFieldType type = MeanFieldType::TypeII;
    double free_energy = 0;  // of the best (lowest) converged fixed point
    Mat sites;               // m x |X|: q_j(X[a]) at that point
    Vec mean_h, mean_h2, var_h;
    Vec mean_v, var_v;
    Mat cov_v;  // type II / tap: sigma^2 + diag(sigma) W diag(Var h) W' diag(sigma); empty for type I
    long long iterations = 0;
    bool converged = false;  // false when no restart converged (then the lowest end point is reported)
    double residual = 0;     // max_j |f(mu)_j - mu_j| at the reported point
    std::vector<MeanFieldFixedPoint> fixed_points;  // distinct end points, converged first, by free energy
    std::optional<MeanFieldExact> exact;
    MeanFieldTrace trace;  // empty unless MeanFieldOptions::record_trace
};

// Runs every restart and keeps the best. Throws InputError for bad options or a bad model.
MeanFieldResult mean_field(const Grbm& model, const MeanFieldOptions& opts = {});
// Same, for any model: refuses non-GRBM kinds; attaches exact answers when opts.compare_exact
// and X^m is within opts.exact.max_configurations.
MeanFieldResult mean_field(const Model& model, const MeanFieldOptions& opts = {});

// Exact reference (InputError when not enumerable) and comparison of a result with it.
MeanFieldExact mean_field_exact_reference(const Grbm& model, const ExactOptions& opts = {});
MeanFieldExact compare_with_exact(const MeanFieldResult& result, const MeanFieldExact& reference);

// ---- The functionals and the fixed-point map, exposed so they can be checked on their own ----
// Q is m x |X| with Q(j, a) = q_j(hidden_values[a]) (rows are distributions). All three are
// E_q[energy] - H[q] of the method's trial distribution with the optimal visible part:
//   F_I  = -const - B.mu - mu'J mu/2 - sum_j H[q_j]
//   F_II = -const - B.mu - sum_{j<k} J_jk mu_j mu_k - sum_j J_jj <h_j^2>/2 - sum_j H[q_j]
//   F_TAP = F_II - sum_{j<k} J_jk^2 Var_j Var_k / 2
// with const = sum_i log(sqrt(2 pi) sigma_i).
double free_energy_type1(const Grbm& model, const Mat& Q);
double free_energy_type2(const Grbm& model, const Mat& Q);
double free_energy_tap(const Grbm& model, const Mat& Q);

// The site distribution q(x) ∝ exp(a x + quad x^2 / 2) over X, and its moments.
struct SiteStats {
    double mean = 0, second = 0, var = 0;
    double k3_over_var = 0;  // third cumulant / variance = d Var / d mean (limit when Var underflows)
    double entropy = 0;
};
SiteStats site_stats(const std::vector<double>& values, double a, double quad);
void site_probabilities(const std::vector<double>& values, double a, double quad, double* out);
// The natural parameter a with mean(a) = mu (mu strictly inside (min X, max X)).
double site_natural_parameter(const std::vector<double>& values, double mu, double quad);
// Same, searching only [lo, hi], which must hold the answer (mean(lo) <= mu <= mean(hi)).
double site_natural_parameter(const std::vector<double>& values, double mu, double quad, double lo, double hi);

// The undamped parallel map mu -> f(mu) of the method (type I: mu_j = E[x] under
// exp(x (B_j + sum_k J_jk mu_k)); type II: under exp(x (B_j + sum_{k!=j} J_jk mu_k) + J_jj x^2/2);
// tap: type II field plus the reaction term). A fixed point satisfies f(mu) = mu.
Vec mean_field_map(const Grbm& model, MeanFieldType type, const Vec& mu);
// The sites of the method's trial distribution whose means are mu.
Mat mean_field_sites(const Grbm& model, MeanFieldType type, const Vec& mu);

// ---- Random-model sweep (the paper's §4.2 experiment) ----
// Model t of every scale: W = scale * Z_t, Z_t ~ N(0,1) entries; b ~ N(0,1); c ~ N(0,1);
// sigma = 1. The same (Z_t, b_t, c_t) are used at every scale (common random numbers), drawn
// from Philox stream t of `seed`.
struct MeanFieldSweepOptions {
    Index visible = 24;
    Index hidden = 12;
    std::vector<double> scales{0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5};
    Index trials = 100;
    std::vector<double> hidden_values{0.0, 1.0};
    std::uint64_t seed = 1;
    MeanFieldOptions mean_field;      // type ignored (all three run); compare_exact ignored
    std::function<bool()> cancelled;  // raised -> throws Cancelled
    std::function<void()> on_trial;   // after every trial, from worker threads (progress; must be thread-safe)
};
extern const char* const kMeanFieldSweepDistribution;  // the sentence above, for --help and output

struct MeanFieldSweepMethod {
    double free_energy = 0;      // mean over trials
    double gap = 0, gap_se = 0;  // mean of F - (-log Z) and its standard error
    double mse_h = 0, mse_h_se = 0;
    double mse_v = 0, mse_v_se = 0;
    double converged_fraction = 0;
};
struct MeanFieldSweepRow {
    double scale = 0;
    double true_free_energy = 0;  // mean of -log Z
    MeanFieldSweepMethod type1, type2, tap;
};
std::vector<MeanFieldSweepRow> mean_field_sweep(const MeanFieldSweepOptions& opts);
// The random model of trial `trial` at `scale` (exactly the one the sweep uses).
Grbm mean_field_sweep_model(const MeanFieldSweepOptions& opts, double scale, Index trial);

}  // namespace rbm
