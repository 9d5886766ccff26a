// "AISC", the full-covariance base for GRBMs (docs/methods/annealing-paths.md#aisc, Kiwaki & Aihara eq. 10-14): base
// and log Z0 against quadrature, the auxiliary-variable kernel against quadrature of f_beta,
// unbiased estimates on random enumerable GRBMs, and the paper's effect (ESS AISC > AIS > AISM).
#include <cmath>
#include <random>

#include "check.hpp"
#include "core/ais/paths.hpp"
#include "core/ais/runner.hpp"
#include "core/ais/schedules.hpp"
#include "core/exact/exact.hpp"
#include "core/numerics/parallel.hpp"
#include "core/numerics/scalar.hpp"
#include "test_random_models.hpp"
#include "test_support.hpp"

using namespace rbm;

namespace {

PathPtr cov_path(const Grbm& g, double floor_scale = 1e-3) {
    const Moments mo = exact_visible_moments(Model{g, {}, {}, {}, {}});
    return make_grbm_cov_path(g, mo.mean, mo.cov, floor_scale);
}

AisResult run(const AnnealingPath& p, const Schedule& s, Index chains, std::uint64_t seed) {
    AisOptions o;
    o.chains = chains;
    o.seed = seed;
    return run_ais(p, s, o);
}

void check_agrees(const AisResult& r, double truth, const std::string& what) {
    const double tol = 4.0 * r.estimate.bootstrap_sd + 1e-3;
    CHECK_MSG(std::fabs(r.estimate.log_z - truth) <= tol, what << ": estimate " << r.estimate.log_z << " vs exact "
                                                               << truth << " (tol " << tol << ", ESS " << r.estimate.ess
                                                               << ")");
}

// Normalizer, mean and covariance of p ∝ exp(log_f(beta, .)) on a 2-D grid (midpoint rule).
struct Quad2 {
    double log_z;
    Vec mean;
    Mat cov;
};
Quad2 quadrature(const AnnealingPath& p, double beta, const Vec& center, double half_width, int n = 500) {
    RowMat X(n * n, 2);
    const double h = 2 * half_width / n;
    for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) {
            X(a * n + b, 0) = center(0) - half_width + (a + 0.5) * h;
            X(a * n + b, 1) = center(1) - half_width + (b + 0.5) * h;
        }
    Vec lf(X.rows());
    p.log_f(beta, X, 0, X.rows(), lf);
    const double mx = lf.maxCoeff();
    const Vec w = (lf.array() - mx).exp().matrix();
    const double z = w.sum();
    Quad2 q;
    q.log_z = mx + std::log(z * h * h);
    q.mean = (X.transpose() * w) / z;
    const RowMat D = X.rowwise() - q.mean.transpose();
    q.cov = (D.transpose() * w.asDiagonal() * D) / z;
    return q;
}

// Each moment of the rows of X within 5 standard errors of N independent draws.
void check_moments(const RowMat& X, const Vec& mean, const Mat& cov, const std::string& what) {
    const double N = static_cast<double>(X.rows());
    const Vec m = X.colwise().mean().transpose();
    const RowMat D = X.rowwise() - m.transpose();
    const Mat c = (D.transpose() * D) / N;
    for (Index i = 0; i < mean.size(); ++i) {
        CHECK_MSG(std::fabs(m(i) - mean(i)) <= 5 * std::sqrt(cov(i, i) / N),
                  what << ": mean[" << i << "] " << m(i) << " vs " << mean(i));
        for (Index j = 0; j < mean.size(); ++j) {
            const double se = std::sqrt((cov(i, i) * cov(j, j) + cov(i, j) * cov(i, j)) / N);
            CHECK_MSG(std::fabs(c(i, j) - cov(i, j)) <= 5 * se,
                      what << ": cov[" << i << "," << j << "] " << c(i, j) << " vs " << cov(i, j));
        }
    }
}

// A 2-D GRBM whose visible units are correlated (the first column of W points along (1, 1)).
Grbm correlated_2d() {
    Grbm g;
    g.W = Mat(2, 2);
    g.W << 1.4, -0.6, 1.2, 0.9;
    g.b = Vec(2);
    g.b << 0.3, -0.5;
    g.c = Vec(2);
    g.c << -1.0, 0.5;
    g.sigma = Vec(2);
    g.sigma << 0.7, 1.2;
    return g;
}

// 24 visible, 10 hidden units; every column of W is +-0.8 times one direction u plus a little
// noise, and c_j = -|W_j|^2/2 balances each hidden unit, so t = u'W h has a broad distribution and
// v is strongly correlated along u (the setting of the check in docs/methods/annealing-paths.md#aisc-floor).
Grbm correlated_grbm(unsigned seed) {
    std::mt19937_64 r(seed);
    std::normal_distribution<double> N(0, 1);
    const Index n = 24, m = 10;
    Vec u(n);
    for (Index i = 0; i < n; ++i) u(i) = N(r);
    u.normalize();
    Grbm g;
    g.W = Mat(n, m);
    for (Index j = 0; j < m; ++j) {
        const double a = (j % 2 ? -0.8 : 0.8) * (1.0 + 0.2 * N(r));
        for (Index i = 0; i < n; ++i) g.W(i, j) = a * u(i) + 0.1 * N(r);
    }
    g.b = Vec::Zero(n);
    g.sigma = Vec(n);
    for (Index i = 0; i < n; ++i) g.sigma(i) = 0.8 + 0.4 * std::fabs(N(r));
    g.c = Vec(m);
    for (Index j = 0; j < m; ++j) g.c(j) = -0.5 * g.W.col(j).squaredNorm() + 0.2 * N(r);
    return g;
}

}  // namespace

TEST_CASE("AISC base: N(b_A, Sigma_A), log Z0 = m log 2 + n/2 log 2pi + log det Sigma_A / 2 (quadrature)") {
    const Grbm g = correlated_2d();
    const Moments mo = exact_visible_moments(Model{g, {}, {}, {}, {}});
    const PathPtr p = cov_path(g);
    // The target covariance exceeds diag(sigma^2) by a rank-2 PSD part here, so nothing is floored
    // unless an eigenvalue is below 1e-3 mean sigma^2; the base then has the target's covariance.
    const Quad2 q0 = quadrature(*p, 0.0, mo.mean, 12.0);
    CHECK_CLOSE(p->log_z0(), q0.log_z, 1e-8);
    CHECK((q0.mean - mo.mean).cwiseAbs().maxCoeff() < 1e-8);
    CHECK((q0.cov - mo.cov).cwiseAbs().maxCoeff() < 1e-6);
    CHECK_MSG(p->notes().find("(0 of 2)") != std::string::npos, p->notes());
    const Index N = 40000;
    RowMat X(N, 2);
    ChainRngs rngs(1, N);
    for_each_block(N, [&](Index b, Index e) { p->sample_base(X, b, e, rngs); });
    check_moments(X, mo.mean, mo.cov, "AISC base draws");
    // At beta = 1, log f is the model's own marginal.
    Vec lf(N);
    p->log_f(1.0, X, 0, 100, lf);
    const Vec want = g.log_unnorm(X.topRows(100));
    for (Index r = 0; r < 100; ++r) CHECK_CLOSE(lf(r), want(r), 1e-12);
}

TEST_CASE("AISC floors the eigenvalues of C - diag(sigma^2) and says how many") {
    // Exact moments: C - diag(sigma^2) has rank <= m = 2, so n - m = 4 of 6 are floored.
    const Grbm g = test::random_grbm(3, 6, 2, {0, 1}, 1.0);
    const PathPtr p = cov_path(g);
    CHECK_MSG(p->notes().find("(4 of 6)") != std::string::npos, p->notes());
    // A huge floor floors everything and the base is diag(sigma^2) + floor I; log Z0 follows.
    const PathPtr big = cov_path(g, 10.0);
    CHECK_MSG(big->notes().find("(6 of 6)") != std::string::npos, big->notes());
    const double floor = 10.0 * g.sigma.cwiseAbs2().mean();
    double want = 2 * std::log(2.0) + 3 * kLog2Pi;
    for (Index i = 0; i < 6; ++i) want += 0.5 * std::log(g.sigma(i) * g.sigma(i) + floor);
    CHECK_CLOSE(big->log_z0(), want, 1e-10);
}

TEST_CASE("AISC kernel at beta = 0.3 and 0.6 keeps p_beta: long chains match quadrature of f_beta") {
    const Grbm g = correlated_2d();
    const Moments mo = exact_visible_moments(Model{g, {}, {}, {}, {}});
    // A base that is deliberately not the target's covariance (floor 0.5 mean sigma^2), so that
    // p_beta differs from both ends.
    const PathPtr p = make_grbm_cov_path(g, mo.mean + Vec::Constant(2, 0.7), mo.cov, 0.5);
    for (double beta : {0.3, 0.6}) {
        const Quad2 q = quadrature(*p, beta, mo.mean, 12.0);
        const Index N = 20000;
        RowMat X(N, 2);
        ChainRngs rngs(17, N);
        for_each_block(N, [&](Index b, Index e) {
            p->sample_base(X, b, e, rngs);
            for (int t = 0; t < 80; ++t) p->transition(beta, X, b, e, rngs);
        });
        check_moments(X, q.mean, q.cov, "AISC chains at beta " + std::to_string(beta));
    }
}

TEST_CASE("AISC perfect transitions: exact draws from p_beta (quadrature), unbiased AIS, BDMC sandwich") {
    const Grbm g = correlated_2d();
    const Moments mo = exact_visible_moments(Model{g, {}, {}, {}, {}});
    const PathPtr p = make_grbm_cov_path(g, mo.mean + Vec::Constant(2, 0.7), mo.cov, 0.5);
    CHECK(p->can_sample_exactly());
    for (double beta : {0.0, 0.45, 1.0}) {
        const Quad2 q = quadrature(*p, beta, mo.mean, 12.0);
        const Index N = 40000;
        RowMat X(N, 2);
        ChainRngs rngs(23, N);
        for_each_block(N, [&](Index b, Index e) { p->sample_exact(beta, X, b, e, rngs); });
        check_moments(X, q.mean, q.cov, "AISC exact draws at beta " + std::to_string(beta));
    }
    const Grbm g6 = test::random_grbm(24, 6, 4, {0, 1}, 1.0);
    const PathPtr p6 = cov_path(g6);
    const double truth = exact_log_z(Model{g6, {}, {}, {}, {}});
    AisOptions o;
    o.chains = 1000;
    o.seed = 3;
    o.perfect = true;
    check_agrees(run_ais(*p6, linear_schedule(50), o), truth, "AISC perfect");
    o.perfect = false;
    o.reverse = true;
    const AisResult r = run_ais(*p6, linear_schedule(30), o);
    CHECK(r.reverse && r.reverse->log_z_upper);
    const double lo = r.estimate.log_z, hi = *r.reverse->log_z_upper;
    std::printf("  BDMC (K = 30): forward %.4f, exact %.4f, reverse %.4f\n", lo, truth, hi);
    CHECK_NEAR(lo, truth, 4 * r.estimate.bootstrap_sd + 1e-3);
    CHECK_NEAR(hi, truth, 4 * (r.reverse->ci95_high - r.reverse->ci95_low) / 3.92 + 1e-3);
}

TEST_CASE("AISC advance() adds exactly log f_beta - log f_beta_prev") {
    const Grbm g = test::random_grbm(5, 7, 3, {-1, 0, 1});
    test::check_advance_is_increment_then_transition(*cov_path(g), 64, 2,
                                                     {{0.0, 0.2}, {0.2, 0.9}, {0.9, 1.0}, {1.0, 0.5}}, 1e-9);
}

TEST_CASE("AISC agrees with exact log Z on random enumerable GRBMs") {
    int k = 0;
    for (const Grbm& g : {test::random_grbm(21, 6, 4), test::random_grbm(22, 8, 5, {-1, 1}, 0.6),
                          test::random_grbm(23, 5, 3, {-1, 0, 1}, 0.9)}) {
        const PathPtr p = cov_path(g);
        check_agrees(run(*p, linear_schedule(200), 1000, 10 + k), exact_log_z(Model{g, {}, {}, {}, {}}),
                     "AISC random GRBM " + std::to_string(k));
        ++k;
    }
}

TEST_CASE("Covariance effect (Kiwaki & Aihara): ESS AISC > AIS > AISM at K = 10, all unbiased") {
    const int repeats = 5;
    double ess_c = 0, ess_a = 0, ess_m = 0;
    for (int rep = 0; rep < repeats; ++rep) {
        const Grbm g = correlated_grbm(100 + rep);
        const Model model{g, {}, {}, {}, {}};
        const Moments mo = exact_visible_moments(model);
        const double truth = exact_log_z(model);
        const PathPtr aisc = make_grbm_cov_path(g, mo.mean, mo.cov);
        const PathPtr ais = make_grbm_geometric_path(g, {mo.mean, mo.cov.diagonal().cwiseSqrt()}, "AIS");
        const PathPtr aism = make_grbm_geometric_path(g, {mo.mean, g.sigma}, "AISM");
        const Schedule s = linear_schedule(10);
        const AisResult rc = run(*aisc, s, 1000, rep + 1), ra = run(*ais, s, 1000, rep + 1),
                        rm = run(*aism, s, 1000, rep + 1);
        std::printf("  model %d: ESS AISC %.0f, AIS %.0f, AISM %.0f; log Z %.3f: AISC %.3f, AIS %.3f, AISM %.3f\n", rep,
                    rc.estimate.ess, ra.estimate.ess, rm.estimate.ess, truth, rc.estimate.log_z, ra.estimate.log_z,
                    rm.estimate.log_z);
        check_agrees(rc, truth, "AISC");
        check_agrees(ra, truth, "AIS");
        check_agrees(rm, truth, "AISM");
        ess_c += rc.estimate.ess / repeats;
        ess_a += ra.estimate.ess / repeats;
        ess_m += rm.estimate.ess / repeats;
    }
    std::printf("  mean ESS (1000 chains, K = 10): AISC %.0f > AIS %.0f > AISM %.0f\n", ess_c, ess_a, ess_m);
    CHECK(ess_c > 1.1 * ess_a);
    CHECK(ess_a > 1.2 * ess_m);
}

TEST_CASE("AISC weights are bitwise identical on 1 and 2 threads") {
    const Grbm g = test::random_grbm(31, 10, 4);
    const PathPtr p = cov_path(g);
    const AisResult a = test::at_threads(1, [&] { return run(*p, linear_schedule(20), 300, 5); });
    const AisResult b = test::at_threads(2, [&] { return run(*p, linear_schedule(20), 300, 5); });
    CHECK(a.log_weights == b.log_weights);
}

TEST_CASE("AISC refuses malformed moments") {
    const Grbm g = test::random_grbm(41, 4, 2);
    const Moments mo = exact_visible_moments(Model{g, {}, {}, {}, {}});
    CHECK_THROWS_WITH(make_grbm_cov_path(g, Vec::Zero(3), mo.cov), InputError, "base mean has length 3");
    CHECK_THROWS_WITH(make_grbm_cov_path(g, mo.mean, Mat::Identity(4, 3)), InputError, "4 x 3");
    Mat nan_cov = mo.cov;
    nan_cov(1, 2) = std::nan("");
    CHECK_THROWS_WITH(make_grbm_cov_path(g, mo.mean, nan_cov), InputError, "non-finite");
    CHECK_THROWS_WITH(make_grbm_cov_path(g, mo.mean, mo.cov, 0.0), InputError, "floor scale");
}

RBM_TEST_MAIN
