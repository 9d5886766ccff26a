// Model families: the free energies agree with the joint energies they come from, and every
// invalid model is refused with a message naming the problem.
#include <cmath>

#include "check.hpp"
#include "core/models/models.hpp"
#include "core/numerics/scalar.hpp"
#include "test_random_models.hpp"
#include "test_support.hpp"

using namespace rbm;

// log p*(v) = log sum_h exp(-E(v,h)) over every hidden configuration (independent of the
// closed-form free energy in models.cpp).
template <class M>
double brute_free_energy(const M& m, const RowMat& v, const std::vector<double>& values) {
    const Index k = m.n_hidden();
    const std::size_t q = values.size();
    std::size_t total = 1;
    for (Index j = 0; j < k; ++j) total *= q;
    LogSumExp acc;
    for (std::size_t idx = 0; idx < total; ++idx) {
        RowMat h(1, k);
        std::size_t r = idx;
        for (Index j = 0; j < k; ++j) {
            h(0, j) = values[r % q];
            r /= q;
        }
        acc.add(-m.energy(v, h)(0));
    }
    return acc.value();
}

TEST_CASE("grbm free energy equals log-sum over hidden states of -E, every hidden set") {
    const std::vector<std::vector<double>> sets = {{0, 1}, {-1, 1}, {-1, 0, 1}, {-2, 0.5, 3}};
    for (std::size_t s = 0; s < sets.size(); ++s) {
        const Grbm g = test::random_grbm(11 + unsigned(s), 3, 4, sets[s]);
        RowMat V = RowMat::Random(5, 3) * 2;
        const Vec f = g.log_unnorm(V);
        for (Index r = 0; r < V.rows(); ++r) CHECK_CLOSE(f(r), brute_free_energy(g, V.row(r), sets[s]), 1e-12);
    }
}

TEST_CASE("brbm free energy equals log-sum over hidden states of -E") {
    const Brbm b = test::random_brbm(3, 5, 4);
    RowMat V(4, 5);
    V << 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0;
    const Vec f = b.log_unnorm(V);
    for (Index r = 0; r < V.rows(); ++r) CHECK_CLOSE(f(r), brute_free_energy(b, V.row(r), {0, 1}), 1e-12);
}

TEST_CASE("leaky marginal is the integral of exp(-E) over h, up to the paper's alpha factor") {
    // With E(v,h) = |v|^2/2 - b'v - v'Wh - c'h + sum h_j^2/(2 alpha_j), integrating h gives
    // exp(-|v|^2/2 + b'v + sum alpha eta^2/2) * prod sqrt(2 pi alpha_j). The model's marginal drops the
    // region-dependent prod sqrt(2 pi alpha_j) (that is why the paper's Gibbs kernel is not exact).
    const Leaky l = test::random_leaky(5, 3, 2, 0.2);
    RowMat V = RowMat::Random(6, 3);
    const Vec f = l.log_unnorm(V);
    for (Index r = 0; r < V.rows(); ++r) {
        // 1-D Gauss-Hermite-free check: integrate each h_j numerically on a fine grid.
        RowMat v = V.row(r);
        RowMat E = v * l.W;
        E.rowwise() += l.c.transpose();
        double log_int = -0.5 * v.squaredNorm() + (v * l.b)(0);
        double alpha_term = 0;
        for (Index j = 0; j < l.n_hidden(); ++j) {
            const double alpha = E(0, j) > 0 ? 1.0 : l.leakiness;
            double s = 0;
            const double dh = 1e-3;
            for (double h = -30; h <= 30; h += dh) s += std::exp(h * E(0, j) - h * h / (2 * alpha)) * dh;
            log_int += std::log(s);
            alpha_term += 0.5 * std::log(2 * M_PI * alpha);
        }
        CHECK_CLOSE(f(r), log_int - alpha_term, 1e-9);
    }
}

TEST_CASE("gaussian log density is normalized and matches the closed form") {
    Gaussian g;
    g.mean = Vec(2);
    g.mean << 1, -2;
    g.cov = Mat(2, 2);
    g.cov << 2, 0.6, 0.6, 1;
    RowMat V(1, 2);
    V << 0.5, -1;
    const double det = 2 * 1 - 0.36;
    const Eigen::Vector2d d(-0.5, 1);
    const double quad = d.dot(g.cov.inverse() * d);
    CHECK_CLOSE(g.log_density(V)(0), -0.5 * quad - 0.5 * std::log(det) - std::log(2 * M_PI), 1e-13);
    // Riemann sum of the density over a wide box is 1.
    double s = 0;
    const double h = 0.02;
    RowMat P(1, 2);
    for (double x = -12; x < 14; x += h)
        for (double y = -12; y < 8; y += h) {
            P << x, y;
            s += std::exp(g.log_density(P)(0)) * h * h;
        }
    CHECK_NEAR(s, 1.0, 1e-6);
}

TEST_CASE("leaky projection clips singular values and only when needed") {
    Leaky l = test::random_leaky(7, 4, 3, 0.1, 0.5);
    CHECK(!l.project());
    l.W *= 4;  // largest singular value now 2
    CHECK(l.project(0.99));
    CHECK_NEAR(l.max_singular_value(), 0.99, 1e-12);
}

namespace {
Model wrap(auto m) { return test::as_model(std::move(m)); }
}  // namespace

TEST_CASE("validate refuses every invalid model with a message naming the problem") {
    Grbm g = test::random_grbm(1, 2, 2);
    validate(wrap(g));
    Grbm bad = g;
    bad.sigma(1) = 0;
    CHECK_THROWS_WITH(validate(wrap(bad)), InputError, "'sigma' must be > 0");
    bad = g;
    bad.sigma(0) = -1;
    CHECK_THROWS_WITH(validate(wrap(bad)), InputError, "sigma[0]");
    bad = g;
    bad.W(0, 1) = std::nan("");
    CHECK_THROWS_WITH(validate(wrap(bad)), InputError, "'W' contains a non-finite value");
    bad = g;
    bad.b = Vec::Zero(3);
    CHECK_THROWS_WITH(validate(wrap(bad)), InputError, "'b' has length 3, expected 2");
    bad = g;
    bad.c = Vec::Zero(5);
    CHECK_THROWS_WITH(validate(wrap(bad)), InputError, "'c' has length 5, expected 2");
    bad = g;
    bad.hidden_values = {1, 1};
    CHECK_THROWS_WITH(validate(wrap(bad)), InputError, "distinct");
    bad = g;
    bad.hidden_values = {1};
    CHECK_THROWS_WITH(validate(wrap(bad)), InputError, "at least two");

    Leaky l = test::random_leaky(2, 3, 2, 0.1);
    validate(wrap(l));
    Leaky lb = l;
    lb.W *= 3;
    CHECK_THROWS_WITH(validate(wrap(lb)), InputError, "singular values < 1");
    lb = l;
    lb.leakiness = 0;
    CHECK_THROWS_WITH(validate(wrap(lb)), InputError, "'leakiness' must be in (0, 1]");
    lb = l;
    lb.leakiness = 1.5;
    CHECK_THROWS_WITH(validate(wrap(lb)), InputError, "'leakiness'");

    Gaussian ga;
    ga.mean = Vec::Zero(2);
    ga.cov = Mat::Identity(2, 2);
    validate(wrap(ga));
    ga.cov(0, 1) = ga.cov(1, 0) = 2;  // not PD
    CHECK_THROWS_WITH(validate(wrap(ga)), InputError, "positive definite");
    ga.cov = Mat::Identity(3, 3);
    CHECK_THROWS_WITH(validate(wrap(ga)), InputError, "'cov' has shape");

    Brbm e;
    e.W = Mat(0, 0);
    CHECK_THROWS_WITH(validate(wrap(e)), InputError, "at least one visible unit");
}

TEST_CASE("numerics: softplus, sigmoid and log-sum-exp do not overflow at the SPEC's extremes") {
    CHECK_CLOSE(softplus(800.0), 800.0, 1e-15);
    CHECK_NEAR(softplus(-800.0), 0.0, 1e-300);
    CHECK(std::isfinite(sigmoid(-800.0)) && std::isfinite(sigmoid(800.0)));
    CHECK_NEAR(sigmoid(800.0), 1.0, 0);
    Vec x(3);
    x << 1000, 1000, 999;
    CHECK_CLOSE(log_sum_exp(x), 1000 + std::log(2 + std::exp(-1.0)), 1e-15);
    LogSumExp a, b;
    for (double v : {-1000.0, 3.0, 2.0}) a.add(v);
    for (double v : {700.0, -5.0}) b.add(v);
    a.merge(b);
    CHECK_CLOSE(a.value(), 700.0, 1e-15);
}

RBM_TEST_MAIN
