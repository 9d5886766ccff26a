#pragma once
// Block-Gibbs kernels over many chains at once (one chain per row of V), at an inverse
// temperature / path parameter beta between a tractable reference (beta = 0) and the model
// (beta = 1). Each sweep is one product with W per half-step and runs over fixed chain
// blocks in parallel; chain r always draws from rngs[r], so results do not depend on the
// number of threads.
//
// The half-step functions work on one block of rows; the AIS engine reuses them so that the
// weight increment and the transition share the same pre-activations.
#include <cstdint>
#include <memory>
#include <vector>

#include "core/models/models.hpp"
#include "core/random/rng.hpp"

namespace rbm {

namespace detail {
struct LeakyConstants;
class BlockStep;
}  // namespace detail

// Diagonal Gaussian reference for the GRBM geometric path (docs/methods/annealing-paths.md#geometric-grbm):
//   E_A(v) = sum_i (v_i - mean_i)^2 / (2 sigma_i^2)
struct DiagGaussianBase {
    Vec mean, sigma;
};

using RowBlock = Eigen::Block<RowMat>;
using ConstRowBlock = Eigen::Block<const RowMat>;

// ---- GRBM: p_beta ∝ exp(-beta E_B(v,h) - (1-beta) E_A(v)) ----
// Lambda = c + (V / sigma) W for rows [begin, end) of V; Lambda is (end-begin) x m.
void grbm_hidden_field(const Grbm& m, const RowMat& V, Index begin, Index end, RowMat& Lambda);
// h_j ~ p(x) ∝ exp(x * beta * lambda_j), rows of H aligned with Lambda; rngs indexed from `first`.
void grbm_sample_hidden(const Grbm& m, const RowMat& Lambda, double beta, RowMat& H, ChainRngs& rngs, Index first);
// v_i ~ N(mu_i, s_i^2) with 1/s^2 = beta/sigma^2 + (1-beta)/sigma_A^2 and mu = s^2 (beta (b + sigma*u)/sigma^2 +
// (1-beta) b_A/sigma_A^2), u = W h (docs/methods/annealing-paths.md#geometric-grbm, Kiwaki & Aihara eq. 9 corrected).
void grbm_sample_visible(const Grbm& m, const RowMat& H, double beta, const DiagGaussianBase* base, RowMat& V,
                         Index begin, ChainRngs& rngs);
// One full sweep v -> h -> v on every chain. base may be null only when beta == 1.
void gibbs_sweep(const Grbm& m, RowMat& V, ChainRngs& rngs, double beta = 1.0, const DiagGaussianBase* base = nullptr);

// ---- BRBM: intermediate model has weights beta W, visible bias (1-beta) b_A + beta b, hidden bias beta c ----
void gibbs_sweep(const Brbm& m, RowMat& V, ChainRngs& rngs, double beta = 1.0, const Vec* base_bias = nullptr);
// Same with the hidden states kept (H resized to N x m).
void gibbs_sweep(const Brbm& m, RowMat& V, RowMat& H, ChainRngs& rngs, double beta = 1.0,
                 const Vec* base_bias = nullptr);

// ---- Leaky RBM ----
// Two kernels for the family log f_{beta,cl}(v) = -|v|^2/2 + b'v + beta sum alpha_j(cl) eta_j^2/2:
//  PaperGibbs: the paper's block Gibbs (h ~ N(alpha eta, alpha/beta), v ~ N(b + beta W h, I)).
//    For cl < 1 it is NOT invariant for f (docs/methods/models.md#leaky-kernels): it samples a slightly different
//    distribution. Offered because it is what the paper does.
//  ExactMH: the same two-step move used as a Metropolis-Hastings proposal, with its Gaussian
//    proposal density q(v'|v) = N(b + beta W (alpha∘eta)(v), I + beta W diag(alpha(v)) W'),
//    so it leaves f invariant exactly.
enum class LeakyKernel { PaperGibbs, ExactMH };
const char* leaky_kernel_name(LeakyKernel k);  // "paper-gibbs", "exact-mh"

struct LeakySweepStats {
    std::int64_t proposed = 0;
    std::int64_t accepted = 0;
};
// cl < 0 means the model's own leakiness.
LeakySweepStats leaky_sweep(const Leaky& m, RowMat& V, ChainRngs& rngs, LeakyKernel kernel, double beta = 1.0,
                            double cl = -1.0);
// Rows [begin, end) only (for engines that already split the chains into blocks). V has n
// columns, or n + m + 1: then each row carries, after its visible units, its eta = W'v + c and
// |v - b|^2, which the sweep reads instead of a product with W and a pass over v, and keeps
// current (the AIS paths' state, ais/path_leaky.cpp).
LeakySweepStats leaky_sweep_block(const Leaky& m, RowMat& V, Index begin, Index end, ChainRngs& rngs,
                                  LeakyKernel kernel, double beta, double cl);

// ---- Gaussian: exact draws (the kernel of a normal target is its own sampler) ----
void gaussian_sample(const Gaussian& g, RowMat& V, ChainRngs& rngs);
void gaussian_sample(const Vec& mean, const Mat& chol_lower, RowMat& V, Index begin, Index end, ChainRngs& rngs);

// ---- Any model at beta = 1 (what `rbmscope-cli sample` runs) ----
struct SweepOptions {
    LeakyKernel leaky_kernel = LeakyKernel::ExactMH;
};
LeakySweepStats gibbs_sweep(const Model& model, RowMat& V, ChainRngs& rngs, const SweepOptions& opts = {});
// gibbs_sweep(model, V, rngs, opts) in pieces (a BRBM's on the dispatched fused kernel instead, the
// sampling engine's: the same conditionals, other random words): sweep_rows(V, begin, end, rngs),
// begin a multiple of kChainBlock, gives rows [begin, end) bitwise what a sweep of all rows gives
// them (the same fixed blocks, each on its own chains' streams), so a sweep over many chains of a
// large model (seconds to minutes) can report progress and stop on a cancel between pieces. Holds a
// reference to the model.
class PartialSweep {
public:
    explicit PartialSweep(const Model& model, const SweepOptions& opts = {});
    ~PartialSweep();
    PartialSweep(const PartialSweep&) = delete;
    PartialSweep& operator=(const PartialSweep&) = delete;
    void sweep_rows(RowMat& V, Index begin, Index end, ChainRngs& rngs) const;

private:
    const Model& model_;
    SweepOptions opts_;
    std::unique_ptr<const detail::LeakyConstants> leaky_;  // a leaky model's, computed once
    Mat gaussian_chol_;                                    // a Gaussian's Cholesky factor
    // A BRBM's sweep on the dispatched fused kernel (kernels/kernel_table.hpp), bitwise the same
    // on every instruction set: the moments of a 784 x 500 model took 5 s on the generic sweep.
    std::unique_ptr<const detail::BlockStep> brbm_;
};
// Starting states for chains of any model: v from the model's own reference (GRBM: N(b, sigma^2),
// BRBM: Bernoulli(sigm(b)), leaky: N(b, I), gaussian: exact).
RowMat initial_states(const Model& model, Index chains, ChainRngs& rngs);

}  // namespace rbm
