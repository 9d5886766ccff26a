#pragma once
// The tempered family that PT moves through (docs/methods/annealing-paths.md#tempering-ladder, tempering.md):
//   p_beta(x) ∝ f_ref(x)^{1-beta} f_target(x)^beta,   beta in [0, 1],
// on the joint state x = (v, h) so that block Gibbs is available at every beta, and the
// swap potential V(x) = log f_target(x) - log f_ref(x), with which a swap of the states at
// ladder rungs k, k+1 is accepted with min(1, exp((beta_{k+1} - beta_k)(V(x_k) - V(x_{k+1})))).
//
// References (the beta = 0 end), one per model kind:
//  - GRBM: a diagonal Gaussian E_A(v) = sum (v_i - mean_i)^2 / (2 sigma_A,i^2) with the hidden
//    units uniform on X. Default: the moments of the GRBM with its hidden units uniform and
//    independent (c ignored), mean = b + sigma∘(W xbar), sigma_A^2 = sigma^2 (1 + sum_j W_ij^2 var_X),
//    xbar / var_X the mean / variance of the uniform law on X. Every mode centre b + sigma∘(W h)
//    lies within a few sigma_A of it whatever c is, and it needs no enumeration.
//  - BRBM: zero weights, visible bias b_A (default 0), hidden bias 0. With b_A = 0 the rung at
//    beta is the RBM with beta W, beta b, beta c: the tempering paper's "beta scales W and biases".
//  - Leaky: N(b, I); the family log f_beta(v) = -|v|^2/2 + b'v + beta sum_j alpha_j eta_j^2/2 is
//    geometric in v itself, so the state is v alone (see below).
//  - Gaussian: the model's "anneal_from" Gaussian when it has the same dimension, else N(0, 25 I);
//    every rung is Gaussian, and its local move is an exact draw ("exact local moves").
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/kernels/gibbs.hpp"
#include "core/models/models.hpp"

namespace rbm {

struct PtReference {
    std::optional<DiagGaussianBase> grbm;  // explicit GRBM reference; empty: the default above
    double grbm_scale = 1.0;               // multiplies the default sigma_A (> 0)
    std::optional<Vec> brbm_bias;          // BRBM reference visible bias b_A; empty: 0
    std::optional<Gaussian> gaussian;      // gaussian kind; empty: anneal_from or N(0, 25 I)
    LeakyKernel leaky_kernel = LeakyKernel::ExactMH;
    bool brbm_float32 = false;  // BRBM local moves: products with W in single precision
};

// One tempered model: const and thread-safe once the ladder is set; every method works on rows
// [begin, end) of the state matrices (one chain per row, row r draws only from rngs[r]).
class TemperedModel {
public:
    virtual ~TemperedModel() = default;
    virtual std::string description() const = 0;  // the family and its reference
    virtual std::string kernel_name() const = 0;  // the local move
    virtual Index visible_dim() const = 0;
    // Hidden units carried in the state (0 when the swap works on the v-marginal).
    virtual Index hidden_dim() const { return 0; }
    // Every local move afterwards uses betas[rung]. Not thread-safe: call between scans.
    virtual void set_ladder(const std::vector<double>& betas);
    const std::vector<double>& ladder() const { return betas_; }
    // Draws from the reference (beta = 0) into V (and zeros into H).
    virtual void initialize(RowMat& V, RowMat& H, Index begin, Index end, ChainRngs& rngs) const = 0;
    // One local move on rows [begin, end), row begin + r leaving p_{betas[rungs[r]]} invariant
    // (the rows of a block may sit at different rungs: PT moves the rungs, not the states), then
    // pot(r) = V(x_r) for the rows. The beta-independent products are computed once for the block,
    // so a row's bits depend on the block and the rungs, never on how the rungs were assigned.
    // At most kChainBlock rows (the engine's blocks).
    virtual void local_move(const Index* rungs, RowMat& V, RowMat& H, Index begin, Index end, ChainRngs& rngs,
                            Vec& pot) const = 0;
    // pot(r) = V(x_r) = log f_target(x_r) - log f_ref(x_r).
    virtual void potential(const RowMat& V, const RowMat& H, Index begin, Index end, Vec& pot) const = 0;
    // True when a row's local move and potential do not depend on the other rows of its block (the
    // fused BRBM kernel): the engine may then block the rows of several rungs together, which
    // changes no bit.
    virtual bool rows_independent() const { return false; }
    // True when the local move is an exact draw from p_beta (the "efficient local exploration"
    // under which the round-trip formulas of docs/methods/tempering.md#round-trip-theory are exact).
    virtual bool exact_local_moves() const { return false; }
    // log Z_ref, the log of the sum / integral of f_ref over the state, in closed form (log Z from
    // tempering, tempering/logz.hpp); NaN when the family does not know it.
    virtual double reference_log_z() const;
    // Independent exact draws from p_0 = f_ref / Z_ref into rows [begin, end) (row r from rngs[r]),
    // then pot(r) = V(x_r) for them. At most kChainBlock rows. InputError when the family has none.
    virtual void sample_reference(RowMat& V, RowMat& H, Index begin, Index end, ChainRngs& rngs, Vec& pot) const;

protected:
    std::vector<double> betas_;
};

// InputError when the reference does not fit the model (wrong length, sigma_A <= 0, ...).
std::unique_ptr<TemperedModel> make_tempered_model(const Model& model, const PtReference& reference = {});

// The default GRBM reference described above.
DiagGaussianBase default_grbm_reference(const Grbm& m, double scale = 1.0);

}  // namespace rbm
