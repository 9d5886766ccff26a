// Stepping stone and BAR over the rung pairs of a PT run, with batch-means standard errors
// (tempering/logz.hpp, docs/methods/tempering.md#log-z).
#include "core/tempering/logz.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/numerics/scalar.hpp"

namespace rbm {

Index PotentialTrace::scans() const {
    const Index per = chains * rungs();
    return per > 0 ? static_cast<Index>(values.size()) / per : 0;
}

void PotentialTrace::push_scan(const double* chain_major) {
    values.insert(values.end(), chain_major, chain_major + chains * rungs());
}

namespace {

// g(r) = mean s(a_i - r) - mean s(r - b_i) over [begin, end) and, with dg, its derivative.
double bar_g(const double* a, const double* b, Index begin, Index end, double r, double* dg = nullptr) {
    double sa = 0, sb = 0, da = 0, db = 0;
    for (Index i = begin; i < end; ++i) {
        const double p = sigmoid(a[i] - r), q = sigmoid(r - b[i]);
        sa += p;
        sb += q;
        da += p * (1.0 - p);
        db += q * (1.0 - q);
    }
    const double n = static_cast<double>(end - begin);
    if (dg) *dg = -(da + db) / n;
    return (sa - sb) / n;
}

// The root of the decreasing g: Newton steps kept inside a bracket that shrinks on every step
// (bisection whenever Newton would leave it). g(min - 1) > 0 > g(max + 1) brackets it.
double bar_root(const double* a, const double* b, Index n) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (Index i = 0; i < n; ++i) {
        lo = std::min({lo, a[i], b[i]});
        hi = std::max({hi, a[i], b[i]});
    }
    lo -= 1.0;
    hi += 1.0;
    double r = 0.5 * (lo + hi);
    for (int iter = 0; iter < 200; ++iter) {
        double dg = 0;
        const double g = bar_g(a, b, 0, n, r, &dg);
        if (g == 0) break;
        (g > 0 ? lo : hi) = r;
        double next = dg < 0 ? r - g / dg : 0.5 * (lo + hi);
        if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
        const bool done = std::fabs(next - r) <= 1e-14 * std::max(1.0, std::fabs(r)) || hi - lo <= 1e-14;
        r = next;
        if (done) break;
    }
    return r;
}

double check_finite(double x, const char* what) {
    if (!std::isfinite(x)) throw InputError(std::string("log Z from tempering: a non-finite ") + what);
    return x;
}

}  // namespace

double bar_log_ratio(const std::vector<double>& l_lower, const std::vector<double>& l_upper) {
    if (l_lower.empty() || l_lower.size() != l_upper.size())
        throw InputError("BAR needs the same number (> 0) of samples at both rungs");
    return bar_root(l_lower.data(), l_upper.data(), static_cast<Index>(l_lower.size()));
}

double stepping_stone_log_ratio(const std::vector<double>& l_lower) {
    if (l_lower.empty()) throw InputError("stepping stone needs samples at the lower rung");
    return log_sum_exp(std::span<const double>(l_lower.data(), l_lower.size())) -
           std::log(static_cast<double>(l_lower.size()));
}

PtLogZ estimate_pt_log_z(const PotentialTrace& trace, double reference_log_z, Index batches) {
    const Index rungs = trace.rungs(), C = trace.chains, T = trace.scans();
    if (rungs < 2 || trace.betas.front() != 0.0)
        throw InputError("log Z from tempering needs a ladder that starts at beta = 0 (the reference)");
    for (Index k = 0; k + 1 < rungs; ++k)
        if (!(trace.betas[static_cast<std::size_t>(k + 1)] > trace.betas[static_cast<std::size_t>(k)]))
            throw InputError("log Z from tempering needs strictly increasing betas");
    if (batches < 1) throw InputError("log Z from tempering needs at least one batch");
    const Index B = std::min(batches, T), L = B > 0 ? T / B : 0, used = B * L, first = T - used, U = C * B;
    if (U < 2 || L < 1)
        throw InputError("log Z from tempering needs at least 2 batches of recorded scans (chains x batches), got " +
                         std::to_string(U));
    PtLogZ out;
    out.reference_log_z = reference_log_z;
    out.betas = trace.betas;
    out.chains = C;
    out.batches = B;
    out.batch_scans = L;
    out.scans_used = used;
    const Index pairs = rungs - 1, n = C * used;
    const double dU = static_cast<double>(U), dL = static_cast<double>(L);
    std::vector<double> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
    std::vector<double> psi_ss(static_cast<std::size_t>(U), 0.0), psi_bar(static_cast<std::size_t>(U), 0.0);
    std::vector<double> unit(static_cast<std::size_t>(U));
    for (LogZEstimate* e : {&out.stepping_stone, &out.bar}) {
        e->log_ratio.assign(static_cast<std::size_t>(pairs), 0.0);
        e->ratio_se.assign(static_cast<std::size_t>(pairs), 0.0);
    }
    // Unit u = c B + batch holds the contiguous samples [u L, (u + 1) L) of a and b.
    for (Index k = 0; k < pairs; ++k) {
        const double d = trace.betas[static_cast<std::size_t>(k + 1)] - trace.betas[static_cast<std::size_t>(k)];
        for (Index c = 0; c < C; ++c)
            for (Index t = 0; t < used; ++t) {
                const std::size_t i = static_cast<std::size_t>(c * used + t);
                a[i] = check_finite(d * trace.at(first + t, c, k), "potential");
                b[i] = check_finite(d * trace.at(first + t, c, k + 1), "potential");
            }
        const std::size_t ks = static_cast<std::size_t>(k);

        // Stepping stone: m_u = mean over unit u of exp(l - max l).
        const double M = *std::max_element(a.begin(), a.end());
        double m = 0;
        for (Index u = 0; u < U; ++u) {
            double s = 0;
            for (Index i = u * L; i < (u + 1) * L; ++i) s += std::exp(a[static_cast<std::size_t>(i)] - M);
            unit[static_cast<std::size_t>(u)] = s / dL;
            m += s / dL;
        }
        m /= dU;
        out.stepping_stone.log_ratio[ks] = M + std::log(m);
        double var = 0;
        for (Index u = 0; u < U; ++u) {
            const double psi = (unit[static_cast<std::size_t>(u)] - m) / m;
            psi_ss[static_cast<std::size_t>(u)] += psi;
            var += psi * psi;
        }
        out.stepping_stone.ratio_se[ks] = std::sqrt(var / (dU * (dU - 1.0)));

        // BAR: the root of g, then each unit's g at it over -g'.
        const double r = bar_root(a.data(), b.data(), n);
        double dg = 0;
        bar_g(a.data(), b.data(), 0, n, r, &dg);
        out.bar.log_ratio[ks] = r;
        var = 0;
        for (Index u = 0; u < U; ++u) {
            const double psi = bar_g(a.data(), b.data(), u * L, (u + 1) * L, r) / -dg;
            psi_bar[static_cast<std::size_t>(u)] += psi;
            var += psi * psi;
        }
        out.bar.ratio_se[ks] = dg < 0 ? std::sqrt(var / (dU * (dU - 1.0))) : std::numeric_limits<double>::infinity();
    }
    auto finish = [&](LogZEstimate& e, const std::vector<double>& psi) {
        e.log_z = reference_log_z;
        for (double r : e.log_ratio) e.log_z += r;
        double mean = 0;
        for (double p : psi) mean += p;
        mean /= dU;
        double var = 0;
        for (double p : psi) var += (p - mean) * (p - mean);
        e.se = std::sqrt(var / (dU * (dU - 1.0)));
        for (double s : e.ratio_se)
            if (!std::isfinite(s)) e.se = s;
    };
    finish(out.stepping_stone, psi_ss);
    finish(out.bar, psi_bar);
    return out;
}

}  // namespace rbm
