#pragma once
// The AIS step of the GRBM geometric path with hidden units in {0,1} (docs/methods/annealing-paths.md#geometric-grbm,
// ais/path_grbm.cpp) as one kernel per block of chains, on per-thread buffers (nothing allocated once they have grown):
//   L = c + W'(v/s)                        (one product; plain loops when the model is tiny)
//   lw += (beta-beta')(Q_A - Q_B) + sum_j [softplus(beta L_j) - softplus(beta' L_j)]
//   h ~ Bernoulli(sigmoid(beta L))         (same exp as the increment)
//   v ~ N((l + beta (W h)/s) / P, 1/P)     (W h as a sum of the columns of W where h is on)
// Every chain takes m words for its hidden draws, then 2 ceil(n/2) words for its visible normals
// (Box-Muller on pairs of words, kernels/vector_math.hpp), from its own stream, so results do not depend
// on the blocking or the thread count. All elementwise work runs as flat loops over the block
// (chains x units), which vectorize.
// The step itself is compiled once per instruction set (kernels/simd.hpp); this class holds the
// one built for the active path.
#include <memory>

#include "core/kernels/simd.hpp"

namespace rbm::detail {

class GrbmKernel {
public:
    GrbmKernel() = default;
    // base: N(a, sA^2) per visible unit; float32: both products with W in single precision.
    GrbmKernel(const Grbm& m, const Vec& a, const Vec& sa, bool float32)
        : impl_(kernel_table().grbm(m, a, sa, float32)) {}
    // One transition at beta on rows [begin, end) of X; with lw, first the increment
    // log f_beta(x) - log f_beta_prev(x) at the state before it.
    void step(double beta_prev, double beta, RowMat& X, Index begin, Index end, Vec* lw, ChainRngs& rngs) const {
        impl_->step(beta_prev, beta, X, begin, end, lw, rngs);
    }

private:
    std::shared_ptr<const BlockStep> impl_;
};

}  // namespace rbm::detail
