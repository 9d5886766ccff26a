#pragma once
// What N AIS log weights l_i say about log Z (docs/methods/ais-estimates.md). Everything is computed in log space
// with the largest weight scaled out, so no weight ever overflows or underflows to NaN.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/numerics/types.hpp"

namespace rbm {

// logmeanexp(l) = log((1/N) sum_i exp(l_i)).
double log_mean_exp_weights(const Vec& log_w);

// ESS = N / (1 + s^2(w*)), w*_i = N w_i / sum w (Kiwaki eq. 6). With s^2 the variance of w*
// over the N weights (divisor N) this is exactly Kish's (sum w)^2 / sum w^2, so 1 <= ESS <= N:
// ESS = N when all weights are equal and -> 1 when one weight dominates.
double effective_sample_size(const Vec& log_w);

// Salakhutdinov's +-k sigma bounds: log(mean w +- k sd(w)/sqrt(N)) + log Z0, with sd the
// sample standard deviation (divisor N-1; 0 when N = 1). The lower bound does not exist when
// mean w - k sd(w)/sqrt(N) <= 0: `low` is then empty (never NaN).
struct SigmaBounds {
    double high = 0;
    std::optional<double> low;
};
SigmaBounds sigma_bounds(const Vec& log_w, double log_z0, double k = 3.0);

// Percentile bootstrap interval of logmeanexp(l): `resamples` resamples of size N with
// replacement, resample j drawing from its own stream (seed, StreamPurpose::Bootstrap, j), so
// the interval is a function of (log_w, seed) only. Parallel over resamples; same result at
// any thread count. sd is the standard deviation of the resampled logmeanexp values.
struct BootstrapInterval {
    double low = 0, high = 0, sd = 0;
};
BootstrapInterval bootstrap_log_mean_exp(const Vec& log_w, std::uint64_t seed, int resamples = 1000,
                                         double level = 0.95);
// The resampled logmeanexp values themselves, replicate j at index j (what the interval is the
// percentiles of).
std::vector<double> bootstrap_replicates(const Vec& log_w, std::uint64_t seed, int resamples);

// Histogram of the log weights over [lo, hi] = [min, max] (widened by 0.5 either side when all
// weights are equal); counts[b] covers [lo + b w, lo + (b+1) w), the last bin includes hi.
struct Histogram {
    double lo = 0, hi = 0;
    std::vector<Index> counts;
};
Histogram log_weight_histogram(const Vec& log_w, int bins = 40);

// The full report for one set of weights.
struct EstimateOptions {
    std::uint64_t seed = 1;  // bootstrap streams
    int bootstrap_resamples = 1000;
    int histogram_bins = 40;
    double sigma_k = 3.0;
};
struct AisEstimate {
    Index n = 0;
    double log_z0 = 0;
    double log_z = 0;                    // log Z0 + logmeanexp(l)
    double log_z_high = 0;               // +3 sigma
    std::optional<double> log_z_low;     // -3 sigma, absent when it does not exist
    double ci95_low = 0, ci95_high = 0;  // bootstrap, log Z0 added
    double bootstrap_sd = 0;             // sd of the bootstrap replicates of log Zhat
    int bootstrap_resamples = 0;         // how many replicates the interval used
    double ess = 0, ess_fraction = 0;
    double log_w_mean = 0, log_w_var = 0;  // of the l_i (variance with divisor N-1; 0 when N = 1)
    Histogram histogram;
};
// InputError when log_w is empty or holds a non-finite value (overflow upstream: nothing
// sensible can be said about Z then), naming the chain.
AisEstimate estimate_log_z(const Vec& log_w, double log_z0, const EstimateOptions& opts = {});

// Below this ESS the bootstrap interval is not to be trusted: the few weights drawn miss the heavy
// right tail that carries Z, so the interval misses low more often than 95 % says. Measured by
// scripts/ess_coverage.sh (coverage per ESS band against the exact log Z; figures in README's
// "A 15-minute tour for a class", step 4). A larger ESS is no guarantee: chains that never reach
// a mode give equal, wrong weights.
inline constexpr double kReliableEss = 30.0;
// The warning for an interval from weights with this ESS (docs/methods/ais-estimates.md#interval-warnings, "warnings");
// empty when ESS >= kReliableEss. `what` names the estimate ("log Z", "reverse log Z").
std::string ess_warning(double ess, const std::string& what = "log Z");

}  // namespace rbm
