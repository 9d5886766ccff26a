#pragma once
// Pareto k-hat of importance weights: how heavy the right tail of w_i = exp(l_i) is
// (docs/methods/log-z-verdict.md#pareto-k).
//
// Vehtari, Simpson, Gelman, Yao & Gabry, "Pareto smoothed importance sampling" (JMLR 2024): fit a
// generalized Pareto distribution to the M = ceil(min(N / 5, 3 sqrt(N))) largest weights, as
// exceedances over the next largest one; its shape k says how many moments the weights have
// (1/k). With k > 1 - 1 / log10(N) (0.5 at N = 100, 0.67 at N = 1000, never above 0.7) the mean
// of the weights, and so log Z-hat, has a bias and a spread its own sample cannot show: the
// interval computed from the weights is not to be trusted. The fit is Zhang & Stephens' (2009)
// empirical-Bayes estimate with the weakly informative prior of the paper's reference code
// (k shrunk towards 0.5 with weight 10 / (M + 10)).
//
// It sees only the weights drawn: when no chain reached a mode, the weights are light-tailed and
// k-hat is small (the confident miss); comparing independent estimators catches that
// (core/ais/log_z_verdict.hpp).
#include "core/numerics/types.hpp"

namespace rbm {

struct ParetoK {
    double k = 0;          // the shape estimate; +infinity when the tail has fewer than 5 weights
    Index tail = 0;        // M, the weights the fit used
    double threshold = 0;  // 1 - 1 / log10(N), capped at 0.7: k above it = unreliable
    bool reliable() const { return k <= threshold; }
};

// InputError when log_w is empty or holds a non-finite value. Depends on log_w only (no random draws).
ParetoK pareto_k_hat(const Vec& log_w);

// The fit alone, for tests: x sorted ascending, every x > 0 (the exceedances); returns k.
double generalized_pareto_k(const std::vector<double>& x_sorted);

}  // namespace rbm
