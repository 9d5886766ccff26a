#include "core/ais/pareto_khat.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace rbm {

double generalized_pareto_k(const std::vector<double>& x) {
    // Zhang & Stephens (2009): a posterior mean of theta = -k / sigma over a grid of m points
    // (quantiles of a prior built from the sample's first quartile), each weighted by its profile
    // likelihood; then k = mean log(1 - theta x). Written as the paper's reference code (sign of
    // k: positive for heavy tails).
    const auto n = static_cast<double>(x.size());
    const int m = 30 + static_cast<int>(std::sqrt(n));
    const double quartile = x[static_cast<std::size_t>(n / 4 + 0.5) - 1];
    std::vector<double> b(static_cast<std::size_t>(m)), len(b.size());
    for (int j = 0; j < m; ++j) {
        b[j] = (1 - std::sqrt(m / (j + 1 - 0.5))) / (3 * quartile) + 1 / x.back();
        double k = 0;
        for (double xi : x) k += std::log1p(-b[j] * xi);
        k /= n;
        len[j] = n * (std::log(-b[j] / k) - k - 1);
    }
    // weight_j = 1 / sum_i exp(len_i - len_j), normalized; the negligible ones left out.
    std::vector<double> w(b.size());
    double wsum = 0;
    for (std::size_t j = 0; j < b.size(); ++j) {
        double s = 0;
        for (std::size_t i = 0; i < b.size(); ++i) s += std::exp(len[i] - len[j]);
        w[j] = 1 / s;
        if (w[j] < 10 * std::numeric_limits<double>::epsilon()) w[j] = 0;
        wsum += w[j];
    }
    double b_post = 0;
    for (std::size_t j = 0; j < b.size(); ++j) b_post += b[j] * w[j] / wsum;
    double k = 0;
    for (double xi : x) k += std::log1p(-b_post * xi);
    k /= n;
    const double prior = 10;  // weakly informative prior: k shrunk towards 0.5
    return (n * k + prior * 0.5) / (n + prior);
}

ParetoK pareto_k_hat(const Vec& log_w) {
    const Index n = log_w.size();
    if (n == 0) throw InputError("Pareto k: no log weights");
    for (Index i = 0; i < n; ++i)
        if (!std::isfinite(log_w[i]))
            throw InputError("Pareto k: log weight of chain " + std::to_string(i) + " is not a finite number");
    ParetoK out;
    out.threshold = n > 1 ? std::min(1 - 1 / std::log10(static_cast<double>(n)), 0.7) : 0;
    std::vector<double> sorted(log_w.data(), log_w.data() + n);
    std::sort(sorted.begin(), sorted.end());
    const double top = sorted.back();
    const auto m = static_cast<Index>(std::ceil(std::min(0.2 * n, 3 * std::sqrt(static_cast<double>(n)))));
    if (m + 1 > n) {
        out.k = std::numeric_limits<double>::infinity();
        return out;
    }
    // The cutoff is the (M+1)-th largest weight; the tail the weights above it (ties left out).
    const double cutoff =
        std::max(sorted[static_cast<std::size_t>(n - m - 1)] - top, std::log(std::numeric_limits<double>::min()));
    std::vector<double> x;
    for (double l : sorted)
        if (l - top > cutoff) x.push_back(std::exp(l - top) - std::exp(cutoff));
    out.tail = static_cast<Index>(x.size());
    // Fewer than 5 weights strictly above the cutoff with M >= 5 of them at or above it: the
    // largest weights tie (perfect transitions give equal weights), a tail with no spread.
    out.k = out.tail > 4 ? generalized_pareto_k(x) : m >= 5 ? 0.0 : std::numeric_limits<double>::infinity();
    return out;
}

}  // namespace rbm
