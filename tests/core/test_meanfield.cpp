// Naive mean field (types I, II) and the TAP correction for GRBMs (docs/methods/mean-field.md): the functionals
// against direct integration, the fixed-point equations, Proposition 2 on hundreds of random
// models, accuracy against enumeration, and the options' failure modes.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <random>
#include <vector>

#include "check.hpp"
#include "core/meanfield/meanfield.hpp"
#include "core/numerics/parallel.hpp"
#include "core/numerics/scalar.hpp"
#include "test_random_models.hpp"

using namespace rbm;

namespace {

const std::vector<double> kBinary{0, 1}, kSpin{-1, 1}, kTernary{-1, 0, 1};

Grbm random_model(unsigned seed, Index n, Index m, const std::vector<double>& X, double scale,
                  bool unit_sigma = false) {
    return test::random_grbm(seed, n, m, X, scale, 0.5, unit_sigma);
}

// Brute force straight from docs/methods/models.md#grbm, written out here so it shares no code with the library:
// enumerate h in X^m with weight exp(B.h + h'Jh/2), B = c + W'(b/sigma), J = W'W.
struct Brute {
    double neg_log_z = 0;
    Vec mean_h, mean_v, var_v;
};
Brute brute_force(const Grbm& g) {
    const Index n = g.W.rows(), m = g.W.cols();
    const Index K = static_cast<Index>(g.hidden_values.size());
    Vec B = g.c;
    for (Index j = 0; j < m; ++j)
        for (Index i = 0; i < n; ++i) B(j) += g.W(i, j) * g.b(i) / g.sigma(i);
    Mat J = Mat::Zero(m, m);
    for (Index j = 0; j < m; ++j)
        for (Index k = 0; k < m; ++k)
            for (Index i = 0; i < n; ++i) J(j, k) += g.W(i, j) * g.W(i, k);
    Index total = 1;
    for (Index j = 0; j < m; ++j) total *= K;
    std::vector<double> lw(static_cast<std::size_t>(total));
    std::vector<Vec> hs;
    for (Index code = 0; code < total; ++code) {
        Vec h(m);
        Index r = code;
        for (Index j = 0; j < m; ++j, r /= K) h(j) = g.hidden_values[static_cast<std::size_t>(r % K)];
        lw[static_cast<std::size_t>(code)] = B.dot(h) + 0.5 * h.dot(J * h);
        hs.push_back(h);
    }
    double mx = -1e300;
    for (double x : lw) mx = std::max(mx, x);
    double z = 0;
    for (double x : lw) z += std::exp(x - mx);
    const double lse = mx + std::log(z);
    Brute out;
    out.mean_h = Vec::Zero(m);
    Mat Ehh = Mat::Zero(m, m);
    for (Index code = 0; code < total; ++code) {
        const double p = std::exp(lw[static_cast<std::size_t>(code)] - lse);
        out.mean_h += p * hs[static_cast<std::size_t>(code)];
        Ehh += p * hs[static_cast<std::size_t>(code)] * hs[static_cast<std::size_t>(code)].transpose();
    }
    double cst = 0;
    for (Index i = 0; i < n; ++i) cst += 0.5 * std::log(2 * M_PI) + std::log(g.sigma(i));
    out.neg_log_z = -(lse + cst);
    const Mat SW = g.sigma.asDiagonal() * g.W;
    out.mean_v = g.b + SW * out.mean_h;
    const Mat C = SW * (Ehh - out.mean_h * out.mean_h.transpose()) * SW.transpose();
    out.var_v = C.diagonal() + g.sigma.cwiseAbs2();
    return out;
}

// A random product distribution over X (every entry positive).
Mat random_sites(unsigned seed, Index m, Index K) {
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> U(0.05, 1.0);
    Mat Q(m, K);
    for (Index j = 0; j < m; ++j) {
        for (Index a = 0; a < K; ++a) Q(j, a) = U(g);
        Q.row(j) /= Q.row(j).sum();
    }
    return Q;
}

Vec site_means(const Mat& Q, const std::vector<double>& X) {
    return Q * Eigen::Map<const Vec>(X.data(), static_cast<Index>(X.size()));
}
Vec site_vars(const Mat& Q, const std::vector<double>& X) {
    const Vec mu = site_means(Q, X);
    Vec v = Vec::Zero(Q.rows());
    for (Index j = 0; j < Q.rows(); ++j)
        for (Index a = 0; a < Q.cols(); ++a) v(j) += Q(j, a) * std::pow(X[static_cast<std::size_t>(a)] - mu(j), 2);
    return v;
}

MeanFieldOptions opts_for(MeanFieldType t, int restarts = 5, double tol = 1e-12) {
    MeanFieldOptions o;
    o.type = t;
    o.restarts = restarts;
    o.tol = tol;
    o.max_iterations = 100000;
    o.seed = 7;
    return o;
}

// Two anti-aligned +-1 units (J_12 = -9) with a common positive field: from the symmetric start,
// undamped parallel updates flip both units together forever.
Grbm two_cycle_model() {
    Grbm g;
    g.W = Mat(1, 2);
    g.W << 3, -3;
    g.b = Vec::Zero(1);
    g.c = Vec::Ones(2);
    g.sigma = Vec::Ones(1);
    g.hidden_values = kSpin;
    return g;
}

}  // namespace

TEST_CASE("F_I - F_II = 1/2 sum_j J_jj Var_j and the Onsager term, at shared random sites") {
    int checked = 0;
    for (const auto* X : {&kBinary, &kSpin, &kTernary})
        for (unsigned s = 0; s < 10; ++s) {
            const Grbm g = random_model(100 + s, 5, 4, *X, 0.9);
            const Mat Q = random_sites(200 + s, 4, static_cast<Index>(X->size()));
            const Vec var = site_vars(Q, *X);
            const Mat J = g.W.transpose() * g.W;
            double half_diag = 0, onsager = 0;
            for (Index j = 0; j < 4; ++j) {
                half_diag += 0.5 * J(j, j) * var(j);
                for (Index k = j + 1; k < 4; ++k) onsager += 0.5 * J(j, k) * J(j, k) * var(j) * var(k);
            }
            CHECK_NEAR(free_energy_type1(g, Q) - free_energy_type2(g, Q), half_diag, 1e-10);
            CHECK_NEAR(free_energy_type2(g, Q) - free_energy_tap(g, Q), onsager, 1e-10);
            // The gap is real (not a vacuous 0 = 0) for the binary sets with these couplings.
            CHECK(half_diag > 0.05);
            ++checked;
        }
    CHECK(checked == 30);
}

// Independent check of the formulas of docs/methods/mean-field.md: E_q[E(v,h)] - H[q] by direct 2-D quadrature of the
// energy and of the Gaussian entropies (n = 2, m = 2), at arbitrary sites q(h).
TEST_CASE("F_I and F_II equal E_q[E] - H[q] by direct integration (n=2, m=2)") {
    for (const auto* X : {&kBinary, &kTernary}) {
        const Grbm g = random_model(31, 2, 2, *X, 1.1);
        const Index K = static_cast<Index>(X->size());
        const Mat Q = random_sites(32, 2, K);
        const Vec mu = site_means(Q, *X);
        auto energy = [&](double v0, double v1, double h0, double h1) {
            const double v[2] = {v0, v1}, h[2] = {h0, h1};
            double e = 0;
            for (int i = 0; i < 2; ++i) e += std::pow(v[i] - g.b(i), 2) / (2 * g.sigma(i) * g.sigma(i));
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 2; ++j) e -= v[i] / g.sigma(i) * g.W(i, j) * h[j];
            return e - g.c(0) * h0 - g.c(1) * h1;
        };
        auto gauss = [](double x, double mean, double sd) {
            const double z = (x - mean) / sd;
            return std::exp(-0.5 * z * z) / (std::sqrt(2 * M_PI) * sd);
        };
        double H_h = 0;
        for (Index j = 0; j < 2; ++j)
            for (Index a = 0; a < K; ++a) H_h -= Q(j, a) * std::log(Q(j, a));
        // Integrate over a box of +-12 sd around every mean that occurs; trapezoid on a uniform
        // grid is spectrally accurate for Gaussian integrands.
        const int N = 801;
        auto integrate = [&](double c0, double c1, auto&& f) {
            const double L0 = 12 * g.sigma(0), L1 = 12 * g.sigma(1);
            const double d0 = 2 * L0 / (N - 1), d1 = 2 * L1 / (N - 1);
            double s = 0;
            for (int a = 0; a < N; ++a)
                for (int b = 0; b < N; ++b) s += f(c0 - L0 + a * d0, c1 - L1 + b * d1);
            return s * d0 * d1;
        };
        // Type I: q(v) = prod N(m_i, sigma_i^2), m = b + sigma * (W mu).
        const Vec m = g.b + g.sigma.cwiseProduct(g.W * mu);
        double F1 = integrate(m(0), m(1), [&](double v0, double v1) {
            const double qv = gauss(v0, m(0), g.sigma(0)) * gauss(v1, m(1), g.sigma(1));
            double e = 0;
            for (Index a0 = 0; a0 < K; ++a0)
                for (Index a1 = 0; a1 < K; ++a1)
                    e += Q(0, a0) * Q(1, a1) *
                         energy(v0, v1, (*X)[static_cast<std::size_t>(a0)], (*X)[static_cast<std::size_t>(a1)]);
            return qv * e + qv * std::log(qv);  // E[E] - H[q(v)]
        });
        F1 -= H_h;
        // Type II: q(v,h) = p(v|h) q(h), p(v|h) = N(b + sigma * W h, sigma^2).
        double F2 = -H_h;
        for (Index a0 = 0; a0 < K; ++a0)
            for (Index a1 = 0; a1 < K; ++a1) {
                const double h0 = (*X)[static_cast<std::size_t>(a0)], h1 = (*X)[static_cast<std::size_t>(a1)];
                const double c0 = g.b(0) + g.sigma(0) * (g.W(0, 0) * h0 + g.W(0, 1) * h1);
                const double c1 = g.b(1) + g.sigma(1) * (g.W(1, 0) * h0 + g.W(1, 1) * h1);
                F2 += Q(0, a0) * Q(1, a1) * integrate(c0, c1, [&](double v0, double v1) {
                          const double p = gauss(v0, c0, g.sigma(0)) * gauss(v1, c1, g.sigma(1));
                          return p * energy(v0, v1, h0, h1) + p * std::log(p);
                      });
            }
        CHECK_NEAR(free_energy_type1(g, Q), F1, 1e-8);
        CHECK_NEAR(free_energy_type2(g, Q), F2, 1e-8);
        CHECK(F1 - F2 > 0.1);  // the two functionals really differ here
    }
}

TEST_CASE("returned points solve the mean-field equations and are stationary points of their functional") {
    for (auto type : {MeanFieldType::TypeI, MeanFieldType::TypeII, MeanFieldType::Tap})
        for (auto update : {MeanFieldUpdate::Sequential, MeanFieldUpdate::Parallel})
            for (const auto* X : {&kBinary, &kSpin, &kTernary}) {
                const Grbm g = random_model(7, 8, 5, *X, 0.35);
                MeanFieldOptions o = opts_for(type, 3, 1e-13);
                o.update = update;
                o.damping = update == MeanFieldUpdate::Parallel ? 0.5 : 1.0;
                const MeanFieldResult r = mean_field(g, o);
                CHECK(r.converged);
                const Vec f = mean_field_map(g, type, r.mean_h);
                CHECK_MSG((f - r.mean_h).cwiseAbs().maxCoeff() < 1e-10, "type " << mean_field_type_name(type));
                CHECK(r.residual < 1e-10);
                // d F / d mu = 0 by central differences on the functional itself (sites moved along
                // the method's own family). At a point 0.05 away the gradient is far from zero, so
                // this would catch an update rule that does not match its free energy.
                auto F = [&](const Vec& mu) {
                    const Mat Q = mean_field_sites(g, type, mu);
                    return type == MeanFieldType::TypeI    ? free_energy_type1(g, Q)
                           : type == MeanFieldType::TypeII ? free_energy_type2(g, Q)
                                                           : free_energy_tap(g, Q);
                };
                auto grad_norm = [&](const Vec& mu) {
                    double worst = 0;
                    const double lo = *std::min_element(X->begin(), X->end()),
                                 hi = *std::max_element(X->begin(), X->end());
                    for (Index j = 0; j < mu.size(); ++j) {
                        // step well inside the value range: the entropy's derivatives grow near its ends
                        const double h = 1e-4 * std::min({1.0, mu(j) - lo, hi - mu(j)});
                        Vec up = mu, dn = mu;
                        up(j) += h;
                        dn(j) -= h;
                        worst = std::max(worst, std::fabs((F(up) - F(dn)) / (2 * h)));
                    }
                    return worst;
                };
                CHECK_MSG(grad_norm(r.mean_h) < 1e-6,
                          "type " << mean_field_type_name(type) << " gradient " << grad_norm(r.mean_h));
                Vec off = r.mean_h;
                off(0) += off(0) > 0 ? -0.05 : 0.05;
                CHECK(grad_norm(off) > 1e-3);
                // The reported free energy is the functional at the reported sites.
                CHECK_NEAR(r.free_energy, F(r.mean_h), 1e-9);
            }
}

// Proposition 2 over 300 random models: 3 value sets x 4 coupling scales x 25 models.
// Also the paper's numerical finding, MSE(type II) <= MSE(type I) on average, for <h> and <v>.
TEST_CASE("Proposition 2: -log Z <= F_II <= F_I, and type II is more accurate on average") {
    int models = 0, strict = 0;
    for (const auto* X : {&kBinary, &kSpin, &kTernary})
        for (double scale : {0.15, 0.35, 0.7, 1.2}) {
            double mse1_h = 0, mse2_h = 0, mse1_v = 0, mse2_v = 0;
            for (unsigned s = 0; s < 25; ++s) {
                const Grbm g = random_model(1000 + s, 7, 5, *X, scale);
                const Brute exact = brute_force(g);
                const MeanFieldResult r1 = mean_field(g, opts_for(MeanFieldType::TypeI, 6, 1e-11));
                const MeanFieldResult r2 = mean_field(g, opts_for(MeanFieldType::TypeII, 6, 1e-11));
                CHECK(r1.converged && r2.converged);
                CHECK_MSG(exact.neg_log_z <= r2.free_energy + 1e-9, exact.neg_log_z << " > " << r2.free_energy);
                CHECK_MSG(r2.free_energy <= r1.free_energy + 1e-9, r2.free_energy << " > " << r1.free_energy);
                if (r1.free_energy - r2.free_energy > 1e-6) ++strict;
                mse1_h += (r1.mean_h - exact.mean_h).squaredNorm() / 5;
                mse2_h += (r2.mean_h - exact.mean_h).squaredNorm() / 5;
                mse1_v += (r1.mean_v - exact.mean_v).squaredNorm() / 7;
                mse2_v += (r2.mean_v - exact.mean_v).squaredNorm() / 7;
                ++models;
            }
            std::printf("  X size %zu scale %.2f: mean MSE<h> I %.3g II %.3g; MSE<v> I %.3g II %.3g\n", X->size(),
                        scale, mse1_h / 25, mse2_h / 25, mse1_v / 25, mse2_v / 25);
            // Margin: type II's average MSE is below type I's for every set and scale; where
            // both are tiny (weak coupling) allow equality within 1e-12.
            CHECK(mse2_h <= mse1_h + 1e-12);
            CHECK(mse2_v <= mse1_v + 1e-12);
        }
    CHECK(models == 300);
    CHECK(strict > 250);  // F_II < F_I strictly, not by coincidence of equal numbers
}

TEST_CASE("one hidden unit or orthogonal columns: type II and TAP are exact, type I is not") {
    for (const auto* X : {&kBinary, &kTernary}) {
        const Grbm g = random_model(5, 4, 1, *X, 1.0);
        const Brute exact = brute_force(g);
        for (auto t : {MeanFieldType::TypeII, MeanFieldType::Tap}) {
            const MeanFieldResult r = mean_field(g, opts_for(t));
            CHECK_NEAR(r.free_energy, exact.neg_log_z, 1e-10);
            CHECK_NEAR(r.mean_h(0), exact.mean_h(0), 1e-10);
            CHECK((r.mean_v - exact.mean_v).cwiseAbs().maxCoeff() < 1e-10);
            CHECK((r.var_v - exact.var_v).cwiseAbs().maxCoeff() < 1e-10);
        }
        const MeanFieldResult r1 = mean_field(g, opts_for(MeanFieldType::TypeI));
        CHECK(r1.free_energy > exact.neg_log_z + 0.01);
        CHECK((r1.var_v - g.sigma.cwiseAbs2()).cwiseAbs().maxCoeff() == 0.0);
    }
    // W with orthogonal columns: J is diagonal, p(h) factorizes over the type II sites.
    Grbm g = random_model(6, 4, 3, kTernary, 1.0);
    g.W.setZero();
    g.W(0, 0) = 1.3, g.W(1, 0) = -0.4, g.W(2, 1) = 0.9, g.W(3, 2) = -1.1, g.W(1, 2) = 0.2;
    g.W(0, 2) = (0.4 * 0.2) / 1.3;  // makes column 0 orthogonal to column 2
    const Mat J = g.W.transpose() * g.W;
    CHECK(std::fabs(J(0, 2)) < 1e-15 && std::fabs(J(0, 1)) < 1e-15 && std::fabs(J(1, 2)) < 1e-15);
    const Brute exact = brute_force(g);
    const MeanFieldResult r = mean_field(g, opts_for(MeanFieldType::TypeII));
    CHECK_NEAR(r.free_energy, exact.neg_log_z, 1e-10);
    CHECK((r.mean_h - exact.mean_h).cwiseAbs().maxCoeff() < 1e-10);
}

// At weak coupling TAP should beat type II: its error is third order in the off-diagonal
// couplings, type II's second order. With W = eps Z and b = 0, J_jk ∝ eps^2, so halving eps
// divides type II's gap by about 2^4 = 16 and TAP's error by about 2^6 = 64. A wrong Onsager
// coefficient (e.g. summing over ordered pairs, twice the correct term) leaves TAP second
// order: its ratio would be about 16 too.
TEST_CASE("TAP: closer to -log Z than F_II at weak coupling; error third order in the couplings") {
    double gap2 = 0, gap_tap = 0;
    for (unsigned s = 0; s < 40; ++s) {
        const Grbm g = random_model(500 + s, 10, 6, kBinary, 0.2);
        const double f = brute_force(g).neg_log_z;
        gap2 += mean_field(g, opts_for(MeanFieldType::TypeII)).free_energy - f;
        gap_tap += std::fabs(mean_field(g, opts_for(MeanFieldType::Tap)).free_energy - f);
    }
    std::printf("  weak coupling (scale 0.2, 40 models): mean F_II gap %.3g, mean |F_TAP gap| %.3g\n", gap2 / 40,
                gap_tap / 40);
    CHECK(gap_tap < 0.5 * gap2);

    for (const auto* X : {&kBinary, &kSpin, &kTernary}) {
        Grbm base = random_model(77, 6, 4, *X, 1.0);
        base.b.setZero();
        base.c *= 2;
        auto errors = [&](double eps) {
            Grbm g = base;
            g.W *= eps;
            const double f = brute_force(g).neg_log_z;
            return std::pair{mean_field(g, opts_for(MeanFieldType::TypeII)).free_energy - f,
                             mean_field(g, opts_for(MeanFieldType::Tap)).free_energy - f};
        };
        const auto [e2a, eta] = errors(0.2);
        const auto [e2b, etb] = errors(0.1);
        std::printf("  X from %g, |X| = %zu: F_II gap %.3g -> %.3g (ratio %.1f), TAP error %.3g -> %.3g (ratio %.1f)\n",
                    X->front(), X->size(), e2a, e2b, e2a / e2b, eta, etb, eta / etb);
        CHECK(e2a / e2b > 12 && e2a / e2b < 20);
        CHECK(std::fabs(eta / etb) > 40);
    }
}

TEST_CASE("restarts: every distinct fixed point is reported, the lowest is kept") {
    // Two identical columns: strong ferromagnetic coupling between the two +-1 units; with no
    // field the states (+,+) and (-,-) are mirror images with equal free energy.
    Grbm g;
    g.W = Mat::Constant(3, 2, 1.5);
    g.b = Vec::Zero(3);
    g.c = Vec::Zero(2);
    g.sigma = Vec::Ones(3);
    g.hidden_values = kSpin;
    MeanFieldOptions o = opts_for(MeanFieldType::TypeII, 12);
    const MeanFieldResult r = mean_field(g, o);
    int converged = 0, hits = 0;
    bool plus = false, minus = false, zero = false;
    for (const auto& p : r.fixed_points) {
        hits += p.hits;
        if (!p.converged) continue;
        ++converged;
        if (p.mean_h.minCoeff() > 0.9) plus = true;
        if (p.mean_h.maxCoeff() < -0.9) minus = true;
        if (p.mean_h.cwiseAbs().maxCoeff() < 1e-12) zero = true;  // restart 0: the symmetric saddle
    }
    CHECK(hits == 12);
    CHECK(plus && minus && zero);
    CHECK(converged == 3);
    CHECK_NEAR(r.fixed_points[0].free_energy, r.fixed_points[1].free_energy, 1e-9);
    CHECK(r.fixed_points[2].free_energy > r.fixed_points[0].free_energy + 1);
    CHECK(r.free_energy == r.fixed_points[0].free_energy);
    CHECK(std::fabs(r.mean_h(0)) > 0.9);
}

TEST_CASE("iteration cap and update schemes: a parallel 2-cycle is reported, never a hang") {
    // Two anti-aligned columns (J_12 = -9) with a common positive field: from the symmetric
    // start, undamped parallel updates flip both units together forever.
    const Grbm g = two_cycle_model();
    MeanFieldOptions o = opts_for(MeanFieldType::TypeII, 1, 1e-10);
    o.max_iterations = 1000;
    o.update = MeanFieldUpdate::Parallel;
    const MeanFieldResult jacobi = mean_field(g, o);
    CHECK(!jacobi.converged);
    CHECK(jacobi.iterations == 1000);
    CHECK(jacobi.fixed_points.size() == 1 && !jacobi.fixed_points[0].converged);
    CHECK(jacobi.residual > 1);  // still flipping
    o.damping = 0.1;             // contracts along the symmetric direction (slope 1 - d(1 + 9(1-mu^2)))
    CHECK(mean_field(g, o).converged);
    o.damping = 1.0;
    o.update = MeanFieldUpdate::Sequential;
    const MeanFieldResult gs = mean_field(g, o);
    CHECK(gs.converged);
    CHECK(gs.mean_h(0) * gs.mean_h(1) < -0.9);  // the antiferromagnetic state
    o.max_iterations = 1;
    o.tol = 1e-300;
    const MeanFieldResult capped = mean_field(g, o);
    CHECK(!capped.converged && capped.iterations == 1);
}

TEST_CASE("trace: one entry per sweep, ending on the reported free energy and residual") {
    // The trace is recorded by running the reported restart again; it must not change the answer.
    int runs = 0, unconverged = 0;
    for (const auto* X : {&kBinary, &kSpin, &kTernary})
        for (double scale : {0.3, 1.5})
            for (MeanFieldType t : {MeanFieldType::TypeI, MeanFieldType::TypeII, MeanFieldType::Tap})
                for (MeanFieldUpdate u : {MeanFieldUpdate::Sequential, MeanFieldUpdate::Parallel})
                    for (double d : {1.0, 0.5}) {
                        const Grbm g = random_model(2100 + runs, 6, 4, *X, scale);
                        MeanFieldOptions o = opts_for(t, 4, 1e-10);
                        o.update = u;
                        o.damping = d;
                        o.max_iterations = 400;
                        const MeanFieldResult plain = mean_field(g, o);
                        CHECK(plain.trace.free_energy.empty() && plain.trace.residual.empty() &&
                              plain.trace.change.empty());
                        o.record_trace = true;
                        const MeanFieldResult r = mean_field(g, o);
                        CHECK(r.free_energy == plain.free_energy && r.iterations == plain.iterations);
                        CHECK(r.mean_h == plain.mean_h && r.converged == plain.converged);
                        const auto n = static_cast<std::size_t>(r.iterations);
                        CHECK(r.trace.free_energy.size() == n && r.trace.residual.size() == n &&
                              r.trace.change.size() == n);
                        if (n == 0) continue;
                        CHECK(r.trace.free_energy.back() == r.free_energy);
                        CHECK(r.trace.residual.back() == r.residual);
                        // The stopping rule: every sweep but the last moved some mean by >= tol; the
                        // last one moved less than tol exactly when the run converged.
                        for (std::size_t i = 0; i + 1 < n; ++i) CHECK(r.trace.change[i] >= o.tol);
                        CHECK((r.trace.change.back() < o.tol) == r.converged);
                        if (!r.converged) {
                            ++unconverged;
                            CHECK(r.iterations == o.max_iterations);
                        }
                        ++runs;
                    }
    CHECK(runs == 72);
    std::printf("  %d of %d traced runs hit the cap\n", unconverged, runs);
}

TEST_CASE("trace: undamped parallel sweeps move the means by the previous residual") {
    // With d = 1 a parallel sweep sets mu <- f(mu), so its largest move is the residual of the
    // point it started from: change[t+1] = residual[t].
    for (MeanFieldType t : {MeanFieldType::TypeI, MeanFieldType::TypeII, MeanFieldType::Tap}) {
        const Grbm g = random_model(2300, 5, 4, kSpin, 0.5);
        MeanFieldOptions o = opts_for(t, 1, 1e-12);
        o.update = MeanFieldUpdate::Parallel;
        o.max_iterations = 2000;
        o.record_trace = true;
        const MeanFieldResult r = mean_field(g, o);
        CHECK(r.converged);
        const auto& tr = r.trace;
        CHECK(tr.change.size() >= 3);
        for (std::size_t i = 0; i + 1 < tr.change.size(); ++i)
            CHECK_NEAR(tr.change[i + 1], tr.residual[i], 1e-14 * (1 + tr.residual[i]));
        // Near a stable fixed point the map contracts: the final residual is below the last move.
        CHECK(r.residual <= tr.change.back());
        CHECK(r.residual < o.tol);
    }
}

TEST_CASE("trace: sequential type I and II sweeps never raise the free energy; parallel ones can") {
    // Sequential type II updates are exact coordinate minimization: F_II restricted to site j is
    // A_j*(mu_j) - mu_j (B_j + sum_{k!=j} J_jk mu_k) with A_j* the convex conjugate of the site's
    // log-partition function, so F_II falls at every unit, and a damped step (mu_j between the
    // old mean and the minimizer) falls too. Type I is block coordinate descent on
    // F(m, q) = E_q[E] - H[q] (F_I(q) = min_m F(m, q)): the update of unit j is the exact m-step
    // followed by the exact q_j-step. Neither holds for TAP (its reaction term uses the old Var_j,
    // so it is not the minimizer over q_j), nor for parallel (Jacobi) sweeps, which move every
    // unit against a stale field; nothing is claimed for them except the 2-cycle below.
    int checked = 0;
    for (const auto* X : {&kBinary, &kSpin, &kTernary})
        for (double scale : {0.3, 1.0, 2.0})
            for (MeanFieldType t : {MeanFieldType::TypeI, MeanFieldType::TypeII})
                for (double d : {1.0, 0.3})
                    for (unsigned s = 0; s < 4; ++s) {
                        const Grbm g = random_model(2400 + s, 6, 5, *X, scale);
                        MeanFieldOptions o = opts_for(t, 3, 1e-11);
                        o.damping = d;
                        o.max_iterations = 5000;
                        o.record_trace = true;
                        const MeanFieldResult r = mean_field(g, o);
                        CHECK(r.converged);
                        const auto& f = r.trace.free_energy;
                        for (std::size_t i = 0; i + 1 < f.size(); ++i)
                            CHECK_MSG(f[i + 1] <= f[i] + 1e-12 * (1 + std::fabs(f[i])),
                                      "type " << mean_field_type_name(t) << " d " << d << " sweep " << i + 2 << ": "
                                              << f[i] << " -> " << f[i + 1]);
                        ++checked;
                    }
    CHECK(checked == 144);

    // The parallel 2-cycle of the iteration-cap test: the free energy goes up and down forever.
    const Grbm g = two_cycle_model();
    MeanFieldOptions o = opts_for(MeanFieldType::TypeII, 1, 1e-10);
    o.update = MeanFieldUpdate::Parallel;
    o.max_iterations = 50;
    o.record_trace = true;
    const MeanFieldResult r = mean_field(g, o);
    CHECK(!r.converged && r.trace.free_energy.size() == 50);
    int rises = 0;
    for (std::size_t i = 0; i + 1 < r.trace.free_energy.size(); ++i)
        rises += r.trace.free_energy[i + 1] > r.trace.free_energy[i] + 1e-6;
    CHECK(rises >= 20);
    for (double x : r.trace.residual) CHECK(x > 1);
}

TEST_CASE("bad input: non-GRBM, NaN parameters, damping, tolerance, caps") {
    Model brbm;
    brbm.params = Brbm{Mat::Ones(2, 2), Vec::Zero(2), Vec::Zero(2)};
    CHECK_THROWS_WITH(mean_field(brbm), InputError,
                      "mean field is defined for Gaussian RBMs (kind grbm); this model is brbm");
    Grbm g = random_model(1, 3, 2, kBinary, 0.5);
    Model model;
    model.params = g;
    MeanFieldOptions o;
    for (double d : {0.0, -0.5, 1.5, std::nan("")}) {
        o.damping = d;
        CHECK_THROWS_WITH(mean_field(model, o), InputError, "damping must be in (0, 1]");
    }
    o = MeanFieldOptions{};
    o.tol = 0;
    CHECK_THROWS_WITH(mean_field(g, o), InputError, "tolerance must be a positive");
    o = MeanFieldOptions{};
    o.max_iterations = 0;
    CHECK_THROWS_WITH(mean_field(g, o), InputError, "iteration cap");
    o = MeanFieldOptions{};
    o.restarts = 0;
    CHECK_THROWS_WITH(mean_field(g, o), InputError, "restarts");
    o = MeanFieldOptions{};
    o.record_trace = true;
    o.max_iterations = kMeanFieldMaxTraceIterations + 1;
    CHECK_THROWS_WITH(mean_field(g, o), InputError, "at most 1000000 with it");
    o.max_iterations = kMeanFieldMaxTraceIterations;
    CHECK(mean_field(g, o).trace.free_energy.size() >= 1);
    Grbm bad = g;
    bad.W(1, 0) = std::nan("");
    CHECK_THROWS_WITH(mean_field(bad), InputError, "'W' contains a non-finite value");
    model.params = bad;
    CHECK_THROWS_WITH(mean_field(model), InputError, "'W' contains a non-finite value");
    bad = g;
    bad.c(0) = std::numeric_limits<double>::infinity();
    CHECK_THROWS_WITH(mean_field(bad), InputError, "'c' contains a non-finite value");
    CHECK_THROWS_WITH(free_energy_type2(g, Mat::Constant(2, 2, 0.7)), InputError, "sums to");
    CHECK_THROWS_WITH(mean_field_map(g, MeanFieldType::Tap, Vec::Constant(2, 1.0)), InputError, "strictly between");
}

TEST_CASE("Model overload attaches exact answers and errors when enumerable") {
    const Grbm g = random_model(9, 6, 5, kTernary, 0.6);
    Model model;
    model.params = g;
    const MeanFieldResult r = mean_field(model, opts_for(MeanFieldType::TypeII));
    CHECK(r.exact.has_value());
    const Brute b = brute_force(g);
    CHECK_NEAR(r.exact->free_energy, b.neg_log_z, 1e-9);
    CHECK((r.exact->mean_h - b.mean_h).cwiseAbs().maxCoeff() < 1e-9);
    CHECK((r.exact->mean_v - b.mean_v).cwiseAbs().maxCoeff() < 1e-9);
    CHECK_NEAR(r.exact->mse_h, (r.mean_h - b.mean_h).squaredNorm() / 5, 1e-12);
    CHECK_NEAR(r.exact->mse_v, (r.mean_v - b.mean_v).squaredNorm() / 6, 1e-12);
    CHECK_NEAR(r.exact->free_energy_error, r.free_energy - b.neg_log_z, 1e-9);
    MeanFieldOptions o = opts_for(MeanFieldType::TypeII);
    o.exact.max_configurations = 100;  // 3^5 = 243 > 100: no exact answers, still a result
    CHECK(!mean_field(model, o).exact.has_value());
}

TEST_CASE("same seed, same numbers with 1 and 2 threads (restarts and sweep)") {
    const Grbm g = random_model(3, 10, 7, kTernary, 0.8);
    MeanFieldOptions o = opts_for(MeanFieldType::Tap, 16, 1e-10);
    MeanFieldSweepOptions so;
    so.visible = 8;
    so.hidden = 6;
    so.scales = {0.1, 0.6};
    so.trials = 6;
    so.mean_field.restarts = 3;
    MeanFieldResult a, b;
    std::vector<MeanFieldSweepRow> sa, sb;
    {
        ThreadLimit one(1);
        a = mean_field(g, o);
        sa = mean_field_sweep(so);
    }
    {
        ThreadLimit two(2);
        b = mean_field(g, o);
        sb = mean_field_sweep(so);
    }
    CHECK(a.free_energy == b.free_energy);
    CHECK(a.mean_h == b.mean_h);
    CHECK(a.fixed_points.size() == b.fixed_points.size());
    CHECK(sa.size() == 2 && sb.size() == 2);
    for (std::size_t k = 0; k < sa.size() && k < sb.size(); ++k) {
        CHECK(sa[k].true_free_energy == sb[k].true_free_energy);
        CHECK(sa[k].tap.free_energy == sb[k].tap.free_energy);
        CHECK(sa[k].type1.mse_v == sb[k].type1.mse_v);
    }
}

TEST_CASE("sweep: rows follow from the stated model distribution; ordering of the free energies") {
    MeanFieldSweepOptions so;
    so.visible = 8;
    so.hidden = 5;
    so.scales = {0.1, 0.5};
    so.trials = 12;
    so.hidden_values = kTernary;
    so.mean_field.restarts = 4;
    const auto rows = mean_field_sweep(so);
    CHECK(rows.size() == 2);
    for (std::size_t k = 0; k < rows.size(); ++k) {
        double f = 0, f1 = 0;
        for (Index t = 0; t < so.trials; ++t) {
            const Grbm g = mean_field_sweep_model(so, so.scales[k], t);
            CHECK(g.sigma == Vec::Ones(8));
            f += brute_force(g).neg_log_z / static_cast<double>(so.trials);
            MeanFieldOptions o = so.mean_field;
            o.type = MeanFieldType::TypeI;
            o.seed = so.seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(t) + 1;
            f1 += mean_field(g, o).free_energy / static_cast<double>(so.trials);
        }
        CHECK_NEAR(rows[k].true_free_energy, f, 1e-9);
        CHECK_NEAR(rows[k].type1.free_energy, f1, 1e-9);
        CHECK(rows[k].type1.gap >= rows[k].type2.gap);
        CHECK(rows[k].type2.gap >= 0);
        CHECK(rows[k].type2.converged_fraction == 1.0);
    }
    // Common random numbers: the same draws at every scale, W scaled.
    const Grbm a = mean_field_sweep_model(so, 0.1, 3), b = mean_field_sweep_model(so, 0.5, 3);
    CHECK((5 * a.W - b.W).cwiseAbs().maxCoeff() < 1e-15 && a.b == b.b && a.c == b.c);
    so.hidden = 20;
    CHECK_THROWS_WITH(mean_field_sweep(so), InputError, "too many to enumerate");
    so.hidden = 5;
    so.scales = {-1};
    CHECK_THROWS_WITH(mean_field_sweep(so), InputError, "scales must be finite and >= 0");
}

TEST_CASE(
    "sweep: cancelling with several threads throws Cancelled (no crash); on_trial counts every trial; rows per scale") {
    MeanFieldSweepOptions so;
    so.scales = {0.1, 0.3};
    so.trials = 4000;  // far more trials than are run before the cancel
    std::atomic<int> polls{0};
    so.cancelled = [&] { return ++polls > 200; };
    {
        // Two workers: before the fix, the thread whose poll threw cancelled TBB's task group, and
        // with it mean_field's loop over restarts in the other thread, which crashed on restarts
        // never run.
        ThreadLimit two(2);
        CHECK_THROWS_WITH(mean_field_sweep(so), Cancelled, "cancelled");
    }
    // on_trial: once per trial; a sweep over two scales gives the rows of two one-scale sweeps
    // (the CLI runs one scale at a time so that Ctrl-C keeps the finished ones).
    so.cancelled = {};
    so.visible = 8;
    so.hidden = 5;
    so.trials = 7;
    std::atomic<int> trials{0};
    so.on_trial = [&] { ++trials; };
    const auto both = mean_field_sweep(so);
    CHECK(trials == 14);
    so.on_trial = {};
    for (std::size_t k = 0; k < 2; ++k) {
        MeanFieldSweepOptions one = so;
        one.scales = {so.scales[k]};
        const auto r = mean_field_sweep(one);
        CHECK(r.size() == 1 && r[0].true_free_energy == both[k].true_free_energy);
        CHECK(r[0].tap.free_energy == both[k].tap.free_energy && r[0].type2.mse_h == both[k].type2.mse_h);
    }
}

RBM_TEST_MAIN
