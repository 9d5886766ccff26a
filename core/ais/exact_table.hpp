#pragma once
// Private helpers of the AIS paths that draw exact samples from an intermediate distribution by enumerating a small
// layer (perfect transitions, docs/methods/ais-estimates.md#perfect-transitions): the configuration list, a categorical
// sampler from log weights, and a per-beta cache shared by all chain blocks of a step.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

#include "core/ais/path.hpp"
#include "core/numerics/scalar.hpp"
#include "core/numerics/types.hpp"
#include "core/random/rng.hpp"

namespace rbm::detail {

// Perfect transitions rebuild a table of this many configurations at every step.
inline constexpr double kPerfectMaxConfigurations = 65536.0;  // 2^16

inline double count_configurations(std::size_t values, Index units) {
    return std::pow(static_cast<double>(values), static_cast<double>(units));
}

// Every configuration of `units` units taking `values`: row c holds digit j of c in base
// |values| at column j.
inline RowMat enumerate_configurations(const std::vector<double>& values, Index units) {
    const auto k = static_cast<Index>(values.size());
    const auto count = static_cast<Index>(count_configurations(values.size(), units));
    RowMat H(count, units);
    for (Index c = 0; c < count; ++c) {
        Index rest = c;
        for (Index j = 0; j < units; ++j) {
            H(c, j) = values[static_cast<std::size_t>(rest % k)];
            rest /= k;
        }
    }
    return H;
}

// A finite distribution from unnormalized log weights.
struct CategoricalTable {
    std::vector<double> cdf;  // increasing, last entry 1
    Vec prob;                 // normalized probabilities
    double log_sum = 0;       // log sum exp(log weights)

    static CategoricalTable from_log_weights(const Vec& lw) {
        CategoricalTable t;
        t.log_sum = log_sum_exp(lw);
        t.prob = (lw.array() - t.log_sum).exp().matrix();
        t.cdf.resize(static_cast<std::size_t>(lw.size()));
        double acc = 0;
        for (Index i = 0; i < lw.size(); ++i) t.cdf[static_cast<std::size_t>(i)] = (acc += t.prob(i));
        for (double& c : t.cdf) c /= acc;
        return t;
    }
    Index draw(Rng& rng) const {
        const double u = rng.uniform();
        const auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
        return std::min<Index>(static_cast<Index>(it - cdf.begin()), static_cast<Index>(cdf.size()) - 1);
    }
};

// The last value built for a beta, shared by the chain blocks of one step. build(beta) must be
// a pure function of beta, so which block builds it does not matter.
template <class T>
class BetaCache {
public:
    template <class F>
    std::shared_ptr<const T> get(double beta, F&& build) const {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!value_ || beta_ != beta) {
            value_ = std::make_shared<const T>(build(beta));
            beta_ = beta;
        }
        return value_;
    }

private:
    mutable std::mutex mutex_;
    mutable double beta_ = 0;
    mutable std::shared_ptr<const T> value_;
};

// knots() and cost_functional() of a path whose intermediate distributions are enumerable:
// knot(beta) gives the exact natural parameters and moments at beta; nothing when not enumerable.
template <class KnotFn>
std::vector<AnnealingPath::Knot> exact_knots(bool enumerable, KnotFn&& knot) {
    std::vector<AnnealingPath::Knot> out;
    if (!enumerable) return out;
    for (int r = 0; r <= 9; ++r) out.push_back(knot(r == 9 ? 1.0 : r / 9.0));
    return out;
}
// F = (eta_1 - eta_0)'(s_1 - s_0) / 2 (Theorem 2); NaN when not enumerable.
template <class KnotFn>
double exact_cost_functional(bool enumerable, KnotFn&& knot) {
    if (!enumerable) return std::numeric_limits<double>::quiet_NaN();
    const AnnealingPath::Knot a = knot(0.0), b = knot(1.0);
    return 0.5 * (b.eta - a.eta).dot(b.s - a.s);
}

}  // namespace rbm::detail
