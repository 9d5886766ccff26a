#pragma once
// Gauss-Legendre quadrature for the suites that check exact answers against an independent
// integration (written here, sharing no code with the library).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

namespace rbm::test {

// Gauss-Legendre nodes and weights on [-1, 1] (Newton on the Legendre recurrence).
struct GaussLegendre {
    std::vector<double> x, w;
    explicit GaussLegendre(int n) {
        x.resize(static_cast<std::size_t>(n));
        w.resize(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) {
            double z = std::cos(std::numbers::pi * (i + 0.75) / (n + 0.5)), dp = 0;
            for (int it = 0; it < 100; ++it) {
                double p0 = 1, p1 = z;
                for (int k = 2; k <= n; ++k) {
                    const double p2 = ((2.0 * k - 1) * z * p1 - (k - 1.0) * p0) / k;
                    p0 = p1;
                    p1 = p2;
                }
                dp = n * (z * p1 - p0) / (z * z - 1);
                const double dz = p1 / dp;
                z -= dz;
                if (std::fabs(dz) < 1e-16) break;
            }
            x[static_cast<std::size_t>(i)] = z;
            w[static_cast<std::size_t>(i)] = 2.0 / ((1 - z * z) * dp * dp);
        }
    }
};

// Composite Gauss-Legendre nodes over [lo, hi], panels no wider than `width`, split at `breaks`.
inline void composite_nodes(double lo, double hi, double width, std::vector<double> breaks, int order,
                            std::vector<double>& x, std::vector<double>& w) {
    static const GaussLegendre gl20(20);
    const GaussLegendre gl_other(order);
    const GaussLegendre& gl = order == 20 ? gl20 : gl_other;
    breaks.push_back(lo);
    breaks.push_back(hi);
    std::sort(breaks.begin(), breaks.end());
    x.clear();
    w.clear();
    for (std::size_t s = 0; s + 1 < breaks.size(); ++s) {
        const double a = std::max(lo, breaks[s]), b = std::min(hi, breaks[s + 1]);
        if (!(b > a)) continue;
        const int panels = std::max(1, static_cast<int>(std::ceil((b - a) / width)));
        const double h = (b - a) / panels;
        for (int p = 0; p < panels; ++p) {
            const double c = a + (p + 0.5) * h;
            for (std::size_t k = 0; k < gl.x.size(); ++k) {
                x.push_back(c + 0.5 * h * gl.x[k]);
                w.push_back(0.5 * h * gl.w[k]);
            }
        }
    }
}

}  // namespace rbm::test
