#pragma once
// Private to the MAS path. The knots of the moment-averaged spline (docs/methods/annealing-paths.md#mas): the moments
// E_eta[g] of the family (exactly by enumeration, or Rao-Blackwellized over Gibbs chains) and the fit of
// eta_r to the averaged moments s_r = (1 - beta_r) s_A + beta_r s_B (L-BFGS with exact moments,
// preconditioned PCD otherwise).
#include <vector>

#include "core/ais/mas_family.hpp"

namespace rbm::mas {

// Log weight of each configuration in [begin, end) of the enumerated layer (see mas_knots.cpp).
void config_log_weights(const Family& f, const Params& p, const Vec& B, const Mat& J, Index begin, Index end,
                        std::vector<double>& lw);

struct EnumMoments {
    double log_z = 0;  // of the RBM form (the model's own log Z)
    Vec s;             // E[g]
};
EnumMoments enumerate_moments(const Family& f, const Params& p);

// `sweeps` block-Gibbs sweeps of the chains V at parameters p.
void sweep(const Family& f, const Params& p, RowMat& V, ChainRngs& rngs, int sweeps);

// Mean over chains of g with h replaced by E[h | v] (Rao-Blackwellized); var / q_out as in mas_knots.cpp.
Vec rb_moments(const Family& f, const Params& p, const RowMat& V, Vec* var = nullptr, RowMat* q_out = nullptr);

struct FitResult {
    Vec eta;
    double grad_norm = 0;  // |s - E_eta[g]| (Euclidean) at the returned eta
    int iterations = 0;
    bool converged = false;
};
FitResult fit_exact(const Family& f, const Vec& s, const Vec& eta0, const MasOptions& opts);
FitResult fit_pcd(const Family& f, const Vec& s, const Vec& eta0, const MasOptions& opts, RowMat& V, ChainRngs& rngs);

}  // namespace rbm::mas
