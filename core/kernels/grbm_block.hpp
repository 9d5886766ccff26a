#pragma once
// The AIS step of the GRBM geometric path with hidden units in {0,1} (SPEC §2.1, ais/path_grbm.cpp)
// as one kernel per block of chains, on per-thread buffers (nothing allocated once they have grown):
//   L = c + W'(v/s)                        (one product; plain loops when the model is tiny)
//   lw += (beta-beta')(Q_A - Q_B) + sum_j [softplus(beta L_j) - softplus(beta' L_j)]
//   h ~ Bernoulli(sigmoid(beta L))         (same exp as the increment)
//   v ~ N((l + beta (W h)/s) / P, 1/P)     (W h as a sum of the columns of W where h is on)
// Every chain takes m words for its hidden draws, then 2 ceil(n/2) words for its visible normals
// (Box-Muller on pairs of words, kernels/vector_math.hpp), from its own stream, so results do not depend
// on the blocking or the thread count. All elementwise work runs as flat loops over the block
// (chains x units), which vectorize.
#include "core/kernels/panels.hpp"
#include "core/models/models.hpp"
#include "core/random/rng.hpp"

namespace rbm::detail {

class GrbmKernel {
public:
    GrbmKernel() = default;
    // base: N(a, sA^2) per visible unit; float32: both products with W in single precision.
    GrbmKernel(const Grbm& m, const Vec& a, const Vec& sa, bool float32);
    // One transition at beta on rows [begin, end) of X; with lw, first the increment
    // log f_beta(x) - log f_beta_prev(x) at the state before it.
    void step(double beta_prev, double beta, RowMat& X, Index begin, Index end, Vec* lw, ChainRngs& rngs) const;

private:
    template <int N, int M>
    void step_sized(double beta_prev, double beta, RowMat& X, Index begin, Index end, Vec* lw, ChainRngs& rngs) const;

    Index n_ = 0, m_ = 0;
    bool f32_ = false, small_ = false;
    Mat w_;                       // n x m (the dense product)
    Eigen::MatrixXf wf_;          // the same in float
    std::vector<double> wr_;      // small models: W row-major
    RowPanels<double> wtd_;       // rows of W' for W h (float64)
    RowPanels<float> wtf_;        // the same in float
    Vec c_, b_, a_, inv_s_, inv_s2_, inv_sa2_;
};

}  // namespace rbm::detail
