// The leaky-RBM annealing paths (docs/methods/annealing-paths.md#leakiness): AIS-Leaky (leakiness annealed from 1) and
// AIS-Energy, checked against the closed forms and quadrature of exact.hpp.
#include <Eigen/QR>
#include <cmath>

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

// Li et al.'s test model scaled down: orthogonal columns of norm `norm`, b = c = 0.
Leaky orthogonal_leaky(Index n, Index m, double norm, double cl, unsigned seed) {
    std::mt19937_64 g(seed);
    std::normal_distribution<double> N(0, 1);
    Mat G(n, m);
    for (Index i = 0; i < n; ++i)
        for (Index j = 0; j < m; ++j) G(i, j) = N(g);
    const Eigen::HouseholderQR<Mat> qr(G);
    Leaky l;
    l.W = norm * (qr.householderQ() * Mat::Identity(n, m));
    l.b = Vec::Zero(n);
    l.c = Vec::Zero(m);
    l.leakiness = cl;
    return l;
}

// A 2-D leaky RBM with biases and three hidden units, valid (singular values 0.8).
Leaky toy2d(double cl) { return test::random_leaky(7, 2, 3, cl, 0.8, true); }

AisResult run(const AnnealingPath& p, Index chains, Index steps, std::uint64_t seed, bool perfect = false) {
    AisOptions o;
    o.chains = chains;
    o.seed = seed;
    o.perfect = perfect;
    return run_ais(p, linear_schedule(steps), o);
}

// |estimate - truth| within 4 bootstrap standard deviations (plus rounding slack).
void check_agrees(const AisResult& r, double truth, const char* what) {
    const double tol = 4.0 * r.estimate.bootstrap_sd + 1e-3;
    CHECK_MSG(std::fabs(r.estimate.log_z - truth) <= tol, what << ": estimate " << r.estimate.log_z << " vs exact "
                                                               << truth << " (tol " << tol << ", ESS " << r.estimate.ess
                                                               << ")");
}

// Moments of p ∝ exp(log_f(beta, .)) on a 2-D grid (midpoint rule; the box holds all the mass).
struct Quad2 {
    double log_z;
    Vec mean;
    Mat cov;
};
Quad2 quadrature(const AnnealingPath& p, double beta, double half_width = 9.0, int n = 500) {
    RowMat X(n * n, 2);
    const double h = 2 * half_width / n;
    for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) {
            X(a * n + b, 0) = -half_width + (a + 0.5) * h;
            X(a * n + b, 1) = -half_width + (b + 0.5) * h;
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

// Sample mean and covariance of the rows of X.
std::pair<Vec, Mat> sample_moments(const RowMat& X) {
    const Vec mean = X.colwise().mean().transpose();
    const RowMat D = X.rowwise() - mean.transpose();
    return {mean, (D.transpose() * D) / static_cast<double>(X.rows())};
}

// Each moment within 5 standard errors of N independent draws.
void check_moments(const RowMat& X, const Vec& mean, const Mat& cov, const char* what) {
    const auto [m, c] = sample_moments(X);
    const double N = static_cast<double>(X.rows());
    for (Index i = 0; i < mean.size(); ++i) {
        const double se = std::sqrt(cov(i, i) / N);
        CHECK_MSG(std::fabs(m(i) - mean(i)) <= 5 * se, what << ": mean[" << i << "] " << m(i) << " vs " << mean(i));
        for (Index j = 0; j < mean.size(); ++j) {
            const double se_c = std::sqrt((cov(i, i) * cov(j, j) + cov(i, j) * cov(i, j)) / N);
            CHECK_MSG(std::fabs(c(i, j) - cov(i, j)) <= 5 * se_c,
                      what << ": cov[" << i << "," << j << "] " << c(i, j) << " vs " << cov(i, j));
        }
    }
}

}  // namespace

TEST_CASE("AIS-Leaky base is the leakiness-1 Gaussian: closed-form log Z0 and exact draws") {
    Leaky m = test::random_leaky(3, 4, 3, 0.05, 0.85, true);
    const PathPtr p = make_leaky_leakiness_path(m, LeakyKernel::ExactMH);
    Leaky g = m;
    g.leakiness = 1.0;
    // exact.cpp's closed form for cL = 1 (with b and c) against the path's Woodbury form.
    CHECK_CLOSE(p->log_z0(), leaky_log_z_gaussian_case(g), 1e-10);
    // Draws: N((I - WW')^{-1}(b + Wc), (I - WW')^{-1}).
    const Mat P = Mat::Identity(4, 4) - m.W * m.W.transpose();
    const Mat cov = P.inverse();
    const Vec mean = cov * (m.b + m.W * m.c);
    const Index N = 40000;
    RowMat X(N, p->dim());  // v, then eta and |v - b|^2 (ais/path_leaky.cpp)
    ChainRngs rngs(5, N);
    for_each_block(N, [&](Index b, Index e) { p->sample_base(X, b, e, rngs); });
    check_moments(X.leftCols(4), mean, cov, "leakiness-1 base");
    // log f at beta = 0 is that Gaussian's log density + log Z0, at beta = 1 the model's marginal.
    Vec lf0(N), lf1(N);
    p->log_f(0.0, X, 0, 50, lf0);
    p->log_f(1.0, X, 0, 50, lf1);
    const Vec target = m.log_unnorm(X.topLeftCorner(50, 4));
    for (Index r = 0; r < 50; ++r) {
        const Vec d = X.row(r).head(4).transpose() - mean;
        CHECK_CLOSE(lf0(r) - p->log_z0(), -0.5 * d.dot(P * d) - 2 * kLog2Pi + 0.5 * std::log(P.determinant()), 1e-9);
        CHECK_CLOSE(lf1(r), target(r), 1e-12);
    }
}

TEST_CASE("AIS-Energy base is N(b, I) with log Z0 = n/2 log 2pi + |b|^2/2") {
    const Leaky m = toy2d(0.1);
    const PathPtr p = make_leaky_energy_path(m, LeakyKernel::ExactMH);
    const Quad2 q0 = quadrature(*p, 0.0);
    CHECK_CLOSE(p->log_z0(), q0.log_z, 1e-8);
    const Index N = 40000;
    RowMat X(N, p->dim());
    ChainRngs rngs(11, N);
    p->sample_base(X, 0, N, rngs);
    check_moments(X.leftCols(2), m.b, Mat::Identity(2, 2), "energy base");
}

TEST_CASE("advance() adds exactly log f_beta - log f_beta_prev, in both directions") {
    const Leaky m = test::random_leaky(4, 6, 4, 0.2, 0.9, true);
    for (const PathPtr& p :
         {make_leaky_leakiness_path(m, LeakyKernel::ExactMH), make_leaky_energy_path(m, LeakyKernel::PaperGibbs)})
        test::check_advance_is_increment_then_transition(*p, 100, 3, {{0.0, 0.3}, {0.3, 0.95}, {0.95, 1.0}, {1.0, 0.4}},
                                                         1e-9);
}

TEST_CASE("a chain's state carries eta = W'v + c and |v - b|^2, current after every move that sets v") {
    // The sweep reads both from the state instead of a product with W and a pass over v, so a
    // stale value would weigh or test the wrong state: check them after the base draw, advance,
    // transition (both kernels, beta 0 and 1 included) and perfect transitions.
    const Leaky m = test::random_leaky(6, 7, 3, 0.1, 0.9, true);
    const Index N = 64, n = m.n_visible(), k = m.n_hidden();
    auto check_eta = [&](const RowMat& X, const char* what) {
        const RowMat E = (X.leftCols(n) * m.W).rowwise() + m.c.transpose();
        const double err = (X.middleCols(n, k) - E).cwiseAbs().maxCoeff();
        CHECK_MSG(err < 1e-12, what << ": eta columns off by " << err);
        const Vec d = (X.leftCols(n).rowwise() - m.b.transpose()).rowwise().squaredNorm();
        const double err_d = (X.col(n + k) - d).cwiseAbs().maxCoeff() / d.maxCoeff();
        CHECK_MSG(err_d < 1e-14, what << ": |v - b|^2 column off by " << err_d << " (relative)");
    };
    for (LeakyKernel kernel : {LeakyKernel::ExactMH, LeakyKernel::PaperGibbs})
        for (const PathPtr& p : {make_leaky_leakiness_path(m, kernel), make_leaky_energy_path(m, kernel)}) {
            CHECK(p->dim() == n + k + 1 && p->visible_dim() == n);
            RowMat X(N, p->dim());
            ChainRngs rngs(41, N);
            p->sample_base(X, 0, N, rngs);
            check_eta(X, "sample_base");
            Vec lw = Vec::Zero(N);
            for (const auto& [from, to] : {std::pair{0.0, 0.0}, {0.0, 0.5}, {0.5, 1.0}, {1.0, 1.0}}) {
                p->advance(from, to, X, 0, N, lw, rngs);
                check_eta(X, "advance");
            }
            p->transition(0.3, X, 0, N, rngs);
            check_eta(X, "transition");
            if (p->can_sample_exactly()) {
                p->sample_exact(0.6, X, 0, N, rngs);
                check_eta(X, "sample_exact");
            }
        }
}

TEST_CASE("AIS-Leaky and AIS-Energy (exact-mh) agree with quadrature on a 2-D leaky RBM") {
    for (double cl : {0.05, 0.5}) {
        const Leaky m = toy2d(cl);
        const double truth = leaky_log_z_quadrature(m);
        check_agrees(run(*make_leaky_leakiness_path(m, LeakyKernel::ExactMH), 2000, 100, 1), truth, "AIS-Leaky 2-D");
        check_agrees(run(*make_leaky_energy_path(m, LeakyKernel::ExactMH), 2000, 100, 2), truth, "AIS-Energy 2-D");
    }
}

TEST_CASE("Leaky kernels at an intermediate beta: exact-mh keeps p_beta, moments match quadrature") {
    const Leaky m = toy2d(0.05);
    const PathPtr p = make_leaky_leakiness_path(m, LeakyKernel::ExactMH);
    const double beta = 0.7;  // leakiness 0.335
    const Quad2 q = quadrature(*p, beta);
    const Index N = 20000;
    RowMat X(N, p->dim());
    ChainRngs rngs(21, N);
    for_each_block(N, [&](Index b, Index e) {
        p->sample_base(X, b, e, rngs);
        for (int t = 0; t < 60; ++t) p->transition(beta, X, b, e, rngs);
    });
    check_moments(X.leftCols(2), q.mean, q.cov, "exact-mh chains at leakiness 0.335");
}

TEST_CASE("exact-mh keeps p_beta with more visible than hidden units (the sweep's k-dimensional algebra)") {
    // The sweep evaluates both proposal densities from W'x and |x|^2 written through eta (no
    // n-dimensional product per chain), identities that only bite when n > m. Start N chains at
    // exact draws of p_beta (perfect transitions), run 30 sweeps, and compare each coordinate's
    // mean and second moment with an independent set of exact draws: a kernel that does not keep
    // p_beta drifts away from them.
    const Leaky m = test::random_leaky(8, 7, 3, 0.05, 0.9, true);
    const Index N = 20000, n = m.n_visible();
    // (Named variables, not a structured binding: clang before 16 cannot capture those in a lambda.)
    for (const auto& path_beta : {std::pair{make_leaky_leakiness_path(m, LeakyKernel::ExactMH), 0.6},
                                  std::pair{make_leaky_energy_path(m, LeakyKernel::ExactMH), 0.8}}) {
        const PathPtr& p = path_beta.first;
        const double beta = path_beta.second;
        CHECK(p->can_sample_exactly());
        RowMat X(N, p->dim()), Y(N, p->dim());
        ChainRngs rx(51, N), ry(52, N);
        for_each_block(N, [&](Index b, Index e) {
            p->sample_exact(beta, X, b, e, rx);
            for (int t = 0; t < 30; ++t) p->transition(beta, X, b, e, rx);
            p->sample_exact(beta, Y, b, e, ry);
        });
        double worst = 0;
        for (Index i = 0; i < n; ++i)
            for (int power : {1, 2}) {
                const Vec x = X.col(i).array().pow(power), y = Y.col(i).array().pow(power);
                const double vx = (x.array() - x.mean()).square().mean(), vy = (y.array() - y.mean()).square().mean();
                const double z = std::fabs(x.mean() - y.mean()) / std::sqrt((vx + vy) / static_cast<double>(N));
                worst = std::max(worst, z);
            }
        std::printf("  %s at beta %.1f: largest |z| over %ld means and second moments %.2f\n", p->name().c_str(), beta,
                    static_cast<long>(2 * n), worst);
        // 14 z-scores of N(0, 1) under a correct kernel: all below 4.5 with probability > 0.9999.
        CHECK(worst < 4.5);
    }
}

TEST_CASE("Perfect transitions: rejection from the leakiness-1 envelope samples p_beta exactly") {
    const Leaky m = toy2d(0.05);
    for (const PathPtr& p :
         {make_leaky_leakiness_path(m, LeakyKernel::ExactMH), make_leaky_energy_path(m, LeakyKernel::ExactMH)}) {
        CHECK(p->can_sample_exactly());
        for (double beta : {0.4, 1.0}) {
            const Quad2 q = quadrature(*p, beta);
            const Index N = 20000;
            RowMat X(N, p->dim());
            ChainRngs rngs(31, N);
            for_each_block(N, [&](Index b, Index e) { p->sample_exact(beta, X, b, e, rngs); });
            check_moments(X.leftCols(2), q.mean, q.cov, p->name().c_str());
        }
        // and AIS with perfect transitions is unbiased too
        check_agrees(run(*p, 2000, 50, 4, true), leaky_log_z_quadrature(m), "perfect AIS");
    }
}

TEST_CASE("Orthogonal leaky RBM (Li et al. Table 2, scaled down): AIS-Leaky beats AIS-Energy") {
    // n = 64, m = 10, |W_j| = 0.9, c = 0, cL = 0.01. The problem is m independent 1-D ones (the
    // other n - m directions are N(0,1) all along), so n only sets the cost. Over eight models
    // at K = 10: AIS-Leaky has the smaller mean error and the larger ESS; its ESS is larger even
    // than AIS-Energy's with twice the steps.
    double err_leaky = 0, err_energy = 0, ess_leaky = 0, ess_energy = 0, err_energy2 = 0, ess_energy2 = 0;
    const int repeats = 8;
    for (int rep = 0; rep < repeats; ++rep) {
        const Leaky m = orthogonal_leaky(64, 10, 0.9, 0.01, 2017 + rep);
        const double truth = leaky_log_z_orthogonal(m);
        const PathPtr pe = make_leaky_energy_path(m, LeakyKernel::ExactMH);
        const AisResult leaky = run(*make_leaky_leakiness_path(m, LeakyKernel::ExactMH), 1000, 10, rep + 1);
        const AisResult energy = run(*pe, 1000, 10, rep + 1), energy2 = run(*pe, 1000, 20, rep + 1);
        err_leaky += std::fabs(leaky.estimate.log_z - truth) / repeats;
        err_energy += std::fabs(energy.estimate.log_z - truth) / repeats;
        err_energy2 += std::fabs(energy2.estimate.log_z - truth) / repeats;
        ess_leaky += leaky.estimate.ess / repeats;
        ess_energy += energy.estimate.ess / repeats;
        ess_energy2 += energy2.estimate.ess / repeats;
    }
    std::printf(
        "  n=64 m=10, 1000 chains, mean over 8 models: AIS-Leaky K=10 |err| %.4f ESS %.0f; AIS-Energy K=10 "
        "|err| %.4f ESS %.0f; AIS-Energy K=20 |err| %.4f ESS %.0f\n",
        err_leaky, ess_leaky, err_energy, ess_energy, err_energy2, ess_energy2);
    CHECK_MSG(err_leaky < err_energy / 2, "AIS-Leaky error " << err_leaky << " vs AIS-Energy " << err_energy);
    CHECK_MSG(ess_leaky > 2 * ess_energy, "AIS-Leaky ESS " << ess_leaky << " vs AIS-Energy " << ess_energy);
    CHECK_MSG(ess_leaky > 1.5 * ess_energy2, "AIS-Leaky ESS " << ess_leaky << " vs AIS-Energy (2K) " << ess_energy2);
    // With more steps AIS-Leaky (exact-mh) is unbiased: within its interval of the closed form.
    const Leaky m = orthogonal_leaky(128, 8, 0.9, 0.01, 99);
    check_agrees(run(*make_leaky_leakiness_path(m, LeakyKernel::ExactMH), 1000, 100, 1), leaky_log_z_orthogonal(m),
                 "AIS-Leaky exact-mh, orthogonal n=128 m=8");
}

TEST_CASE("Leaky AIS weights are bitwise identical on 1 and 2 threads") {
    const Leaky m = test::random_leaky(9, 16, 5, 0.1, 0.9, true);
    for (const PathPtr& p :
         {make_leaky_leakiness_path(m, LeakyKernel::ExactMH), make_leaky_energy_path(m, LeakyKernel::PaperGibbs)}) {
        const AisResult r1 = test::at_threads(1, [&] { return run(*p, 300, 20, 8); });
        const AisResult r2 = test::at_threads(2, [&] { return run(*p, 300, 20, 8); });
        CHECK(r1.log_weights == r2.log_weights);
    }
}

TEST_CASE("Leaky paths refuse invalid models and label their kernel") {
    Leaky bad = test::random_leaky(2, 3, 2, 0.1, 0.9, false);
    bad.W *= 2.0;  // singular values 1.8
    CHECK_THROWS_WITH(make_leaky_leakiness_path(bad, LeakyKernel::ExactMH), InputError, "singular");
    CHECK_THROWS_WITH(make_leaky_energy_path(bad, LeakyKernel::ExactMH), InputError, "singular");
    const Leaky m = toy2d(0.1);
    CHECK(make_leaky_leakiness_path(m, LeakyKernel::PaperGibbs)->kernel_name() == "paper-gibbs");
    CHECK(make_leaky_energy_path(m, LeakyKernel::ExactMH)->kernel_name() == "exact-mh");
}

RBM_TEST_MAIN
