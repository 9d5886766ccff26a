#pragma once
// Scalar helpers that must not overflow for |W| <= 50, |bias| <= 500 (docs/methods/models.md#conventions).
#include <cmath>
#include <limits>
#include <span>

#include "core/numerics/types.hpp"

namespace rbm {

inline constexpr double kLog2Pi = 1.8378770664093454836;  // log(2*pi)

inline double softplus(double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }
inline double sigmoid(double x) {
    if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
    const double e = std::exp(x);
    return e / (1.0 + e);
}
inline double logit(double p) { return std::log(p) - std::log1p(-p); }

// log(sum exp(x)) with the maximum shifted out; -inf for an empty or all -inf input.
inline double log_sum_exp(std::span<const double> x) {
    double m = -std::numeric_limits<double>::infinity();
    for (double v : x) m = std::max(m, v);
    if (!std::isfinite(m)) return m;
    double s = 0;
    for (double v : x) s += std::exp(v - m);
    return m + std::log(s);
}
inline double log_sum_exp(const Vec& x) {
    return log_sum_exp(std::span<const double>(x.data(), static_cast<std::size_t>(x.size())));
}
inline double log_mean_exp(const Vec& x) { return log_sum_exp(x) - std::log(static_cast<double>(x.size())); }

// Running log-sum-exp accumulator (for streaming enumeration).
struct LogSumExp {
    double max = -std::numeric_limits<double>::infinity();
    double sum = 0.0;  // sum of exp(x - max)
    void add(double x) {
        if (x <= max) {
            sum += std::exp(x - max);
        } else {
            sum = sum * std::exp(max - x) + 1.0;
            max = x;
        }
    }
    void merge(const LogSumExp& o) {
        if (o.sum == 0) return;
        if (sum == 0) {
            *this = o;
            return;
        }
        if (o.max <= max) sum += o.sum * std::exp(o.max - max);
        else {
            sum = sum * std::exp(max - o.max) + o.sum;
            max = o.max;
        }
    }
    double value() const { return sum == 0 ? -std::numeric_limits<double>::infinity() : max + std::log(sum); }
};

}  // namespace rbm
