#pragma once
// The AIS step of the BRBM geometric path (docs/methods/annealing-paths.md#geometric-brbm), one fused kernel per block:
//   lambda = c + W'v                       (sum of the rows of W where v is on: kernels/panels.hpp)
//   lw += (beta-beta')(b-a)'v + sum_j [softplus(beta lambda_j) - softplus(beta' lambda_j)]
//   h ~ Bernoulli(sigmoid(beta lambda))    (same exp as the increment)
//   v ~ Bernoulli(sigmoid(beta W h + (1-beta) a + beta b))
// so the increment costs no product of its own. S is the precision of W, lambda and the
// visible pre-activations; increments are in double, and so are the hidden probabilities of a
// step (they share exp(-beta|lambda|) with the increment); a float sweep (BlockStep::sweep: PT,
// sampling, training's negatives) draws its hidden units in float. Every Bernoulli
// decision takes one 32-bit word of the chain's stream (Rng::fill_u32), in the same order for
// float and double, so the two precisions differ only by rounding (of the probabilities, and of
// the uniform: 31 bits of the word in double, 24 in float).
// The step itself is compiled once per instruction set (kernels/simd.hpp); this class holds the
// one built for the active path.
#include <memory>

#include "core/kernels/simd.hpp"

namespace rbm::detail {

template <class S>
class BrbmKernel {
public:
    BrbmKernel() = default;
    BrbmKernel(const Brbm& m, const Vec& base_bias)
        : impl_(sizeof(S) == 4 ? kernel_table().brbm_float(m, base_bias) : kernel_table().brbm_double(m, base_bias)) {}
    // One transition at beta on rows [begin, end) of X; with lw, first the increment
    // log f_beta(x) - log f_beta_prev(x) at the state before it.
    void step(double beta_prev, double beta, RowMat& X, Index begin, Index end, Vec* lw, ChainRngs& rngs) const {
        impl_->step(beta_prev, beta, X, begin, end, lw, rngs);
    }

private:
    std::shared_ptr<const BlockStep> impl_;
};

}  // namespace rbm::detail
