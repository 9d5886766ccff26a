// Single-site distributions of the mean-field methods, q(x) ∝ exp(a x + quad x^2 / 2) over a
// finite value set X, and the three free-energy functionals evaluated on products of them.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/meanfield/meanfield.hpp"
#include "core/numerics/scalar.hpp"

namespace rbm {

namespace {

double score(double x, double a, double quad) { return a * x + 0.5 * quad * x * x; }

double max_score(const std::vector<double>& values, double a, double quad) {
    double mx = -std::numeric_limits<double>::infinity();
    for (double x : values) mx = std::max(mx, score(x, a, quad));
    return mx;
}

// d Var / d mean as Var -> 0: the site sits on its best value x* with a vanishing mass on the
// runner-up x2, so Var ≈ p (x2-x*)^2 and the third cumulant ≈ p (x2-x*)^3.
double saturated_k3_over_var(const std::vector<double>& values, double a, double quad) {
    std::size_t best = 0;
    for (std::size_t k = 1; k < values.size(); ++k)
        if (score(values[k], a, quad) > score(values[best], a, quad)) best = k;
    std::size_t second = best == 0 ? 1 : 0;
    for (std::size_t k = 0; k < values.size(); ++k)
        if (k != best && score(values[k], a, quad) > score(values[second], a, quad)) second = k;
    return values[second] - values[best];
}

}  // namespace

SiteStats site_stats(const std::vector<double>& values, double a, double quad) {
    const double mx = max_score(values, a, quad);
    double z = 0, sx = 0, sd = 0;
    for (double x : values) {
        const double d = score(x, a, quad) - mx;  // <= 0
        const double w = std::exp(d);
        z += w;
        sx += w * x;
        sd += w * d;
    }
    SiteStats s;
    s.mean = sx / z;
    // H = -sum p log p with log p = d - log z.
    s.entropy = std::max(0.0, std::log(z) - sd / z);
    double c2 = 0, c3 = 0, m2 = 0;
    for (double x : values) {
        const double p = std::exp(score(x, a, quad) - mx) / z;
        const double e = x - s.mean;
        c2 += p * e * e;
        c3 += p * e * e * e;
        m2 += p * x * x;
    }
    s.var = c2;
    s.second = m2;
    s.k3_over_var = c2 > 1e-300 ? c3 / c2 : saturated_k3_over_var(values, a, quad);
    return s;
}

void site_probabilities(const std::vector<double>& values, double a, double quad, double* out) {
    const double mx = max_score(values, a, quad);
    double z = 0;
    for (std::size_t k = 0; k < values.size(); ++k) z += (out[k] = std::exp(score(values[k], a, quad) - mx));
    for (std::size_t k = 0; k < values.size(); ++k) out[k] /= z;
}

double site_natural_parameter(const std::vector<double>& values, double mu, double quad, double lo, double hi) {
    const auto [lo_it, hi_it] = std::minmax_element(values.begin(), values.end());
    const double range = *hi_it - *lo_it;
    // Newton on mean(a) - mu (its derivative is the variance), kept inside the bracket.
    double a = 0.5 * (lo + hi);
    for (int it = 0; it < 300; ++it) {
        const SiteStats s = site_stats(values, a, quad);
        const double f = s.mean - mu;
        if (std::fabs(f) <= 4 * std::numeric_limits<double>::epsilon() * range) break;
        (f > 0 ? hi : lo) = a;
        const double newton = s.var > 0 ? a - f / s.var : std::numeric_limits<double>::quiet_NaN();
        a = (newton > lo && newton < hi) ? newton : 0.5 * (lo + hi);
        if (hi - lo <= 1e-15 * std::max(1.0, std::fabs(a))) break;
    }
    return a;
}

double site_natural_parameter(const std::vector<double>& values, double mu, double quad) {
    const auto [lo_it, hi_it] = std::minmax_element(values.begin(), values.end());
    if (!(mu > *lo_it && mu < *hi_it))
        throw InputError("a site mean must lie strictly between the smallest and largest hidden value (" +
                         std::to_string(*lo_it) + ", " + std::to_string(*hi_it) + "), got " + std::to_string(mu));
    // mean(a) increases with a: widen a bracket until it holds mu.
    double lo = -1, hi = 1;
    for (int k = 0; k < 2000 && site_stats(values, lo, quad).mean > mu; ++k) lo *= 2;
    for (int k = 0; k < 2000 && site_stats(values, hi, quad).mean < mu; ++k) hi *= 2;
    return site_natural_parameter(values, mu, quad, lo, hi);
}

// ---------------- functionals ----------------
namespace {

struct ProductMoments {
    Vec mean, second, var;
    double entropy = 0;
};

ProductMoments product_moments(const Grbm& model, const Mat& Q) {
    const Index m = model.n_hidden();
    const Index K = static_cast<Index>(model.hidden_values.size());
    if (Q.rows() != m || Q.cols() != K)
        throw InputError("site distributions have shape [" + std::to_string(Q.rows()) + " x " +
                         std::to_string(Q.cols()) + "], expected [" + std::to_string(m) + " x " + std::to_string(K) +
                         "] (hidden units x hidden values)");
    ProductMoments pm{Vec(m), Vec(m), Vec(m), 0.0};
    for (Index j = 0; j < m; ++j) {
        double total = 0, mean = 0, second = 0;
        for (Index a = 0; a < K; ++a) {
            const double p = Q(j, a), x = model.hidden_values[static_cast<std::size_t>(a)];
            if (!(p >= 0) || !std::isfinite(p))
                throw InputError("mean field: the distribution of hidden unit " + std::to_string(j) +
                                 " became negative or not a number (the fixed-point equations overflowed); use a model "
                                 "within the supported range (|W| <= 50, |bias| <= 500)");
            total += p;
            mean += p * x;
            second += p * x * x;
            if (p > 0) pm.entropy -= p * std::log(p);
        }
        if (std::fabs(total - 1) > 1e-9)
            throw InputError("site distribution " + std::to_string(j) + " sums to " + std::to_string(total) +
                             ", expected 1");
        pm.mean(j) = mean;
        pm.second(j) = second;
        double var = 0;
        for (Index a = 0; a < K; ++a) {
            const double e = model.hidden_values[static_cast<std::size_t>(a)] - mean;
            var += Q(j, a) * e * e;
        }
        pm.var(j) = var;
    }
    return pm;
}

double log_norm_const(const Grbm& model) {
    double s = 0;
    for (Index i = 0; i < model.n_visible(); ++i) s += 0.5 * kLog2Pi + std::log(model.sigma(i));
    return s;
}

}  // namespace

double free_energy_type1(const Grbm& model, const Mat& Q) {
    const ProductMoments q = product_moments(model, Q);
    const Vec B = model.hidden_marginal_field();
    const Mat J = model.hidden_marginal_coupling();
    return -log_norm_const(model) - B.dot(q.mean) - 0.5 * q.mean.dot(J * q.mean) - q.entropy;
}

double free_energy_type2(const Grbm& model, const Mat& Q) {
    const ProductMoments q = product_moments(model, Q);
    const Vec B = model.hidden_marginal_field();
    const Mat J = model.hidden_marginal_coupling();
    // sum_{j<k} J_jk mu_j mu_k = (mu'J mu - sum_j J_jj mu_j^2) / 2
    const double pairs = 0.5 * (q.mean.dot(J * q.mean) - (J.diagonal().array() * q.mean.array().square()).sum());
    const double diag = 0.5 * (J.diagonal().array() * q.second.array()).sum();
    return -log_norm_const(model) - B.dot(q.mean) - pairs - diag - q.entropy;
}

double free_energy_tap(const Grbm& model, const Mat& Q) {
    const ProductMoments q = product_moments(model, Q);
    const Mat J = model.hidden_marginal_coupling();
    const Mat J2 = J.cwiseAbs2();
    // sum_{j<k} J_jk^2 V_j V_k = (V'J2 V - sum_j J_jj^2 V_j^2) / 2
    const double onsager = 0.5 * (q.var.dot(J2 * q.var) - (J2.diagonal().array() * q.var.array().square()).sum());
    return free_energy_type2(model, Q) - 0.5 * onsager;
}

}  // namespace rbm
