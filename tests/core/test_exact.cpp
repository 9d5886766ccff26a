// Exact answers (docs/methods/models.md) against independent computations: brute-force quadrature of p*(v),
// joint enumeration through the energy, closed forms, the leaky paper's Table 1, and Monte
// Carlo checks of the exact samplers.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <numbers>
#include <random>

#include "check.hpp"
#include "core/exact/exact.hpp"
#include "core/io/presets.hpp"
#include "core/numerics/parallel.hpp"
#include "core/numerics/scalar.hpp"
#include "test_quadrature.hpp"
#include "test_support.hpp"

using namespace rbm;

namespace {

// ---------------- independent quadrature helpers ----------------

// log of the integral of exp(logf) over a tensor grid (1-D or 2-D), with the mean and second
// moment of v. logf takes a batch of points (rows).
struct QuadMoments {
    double log_z = 0;
    Vec mean;
    Mat second;
    Mat cov() const { return second - mean * mean.transpose(); }
};
template <class F>
QuadMoments tensor_quadrature(const std::vector<std::vector<double>>& xs, const std::vector<std::vector<double>>& ws,
                              F logf) {
    const Index n = static_cast<Index>(xs.size());
    const Index n0 = static_cast<Index>(xs[0].size());
    const Index n1 = n == 2 ? static_cast<Index>(xs[1].size()) : 1;
    std::vector<Vec> rows(static_cast<std::size_t>(n0));
    double mx = -INFINITY;
    for (Index a = 0; a < n0; ++a) {
        RowMat P(n1, n);
        for (Index b = 0; b < n1; ++b) {
            P(b, 0) = xs[0][static_cast<std::size_t>(a)];
            if (n == 2) P(b, 1) = xs[1][static_cast<std::size_t>(b)];
        }
        rows[static_cast<std::size_t>(a)] = logf(P);
        mx = std::max(mx, rows[static_cast<std::size_t>(a)].maxCoeff());
    }
    double s0 = 0;
    Vec s1 = Vec::Zero(n);
    Mat s2 = Mat::Zero(n, n);
    for (Index a = 0; a < n0; ++a)
        for (Index b = 0; b < n1; ++b) {
            Vec v(n);
            v(0) = xs[0][static_cast<std::size_t>(a)];
            double w = ws[0][static_cast<std::size_t>(a)];
            if (n == 2) {
                v(1) = xs[1][static_cast<std::size_t>(b)];
                w *= ws[1][static_cast<std::size_t>(b)];
            }
            w *= std::exp(rows[static_cast<std::size_t>(a)](b) - mx);
            s0 += w;
            s1 += w * v;
            s2 += w * v * v.transpose();
        }
    return {mx + std::log(s0), s1 / s0, s2 / s0};
}

// ---------------- random models ----------------

std::mt19937_64& gen() {
    static std::mt19937_64 g(20240611);
    return g;
}
double normal() { return std::normal_distribution<double>(0, 1)(gen()); }
double uniform(double a, double b) { return std::uniform_real_distribution<double>(a, b)(gen()); }
Mat random_mat(Index r, Index c, double scale) {
    Mat M(r, c);
    for (Index i = 0; i < M.size(); ++i) M.data()[i] = scale * normal();
    return M;
}
Vec random_vec(Index n, double scale) { return random_mat(n, 1, scale); }

Grbm random_grbm(Index n, Index m, std::vector<double> values, double wscale = 1.0) {
    Grbm g;
    g.W = random_mat(n, m, wscale);
    g.b = random_vec(n, 1.0);
    g.c = random_vec(m, 1.0);
    g.sigma = Vec(n);
    for (Index i = 0; i < n; ++i) g.sigma(i) = uniform(0.5, 2.0);
    g.hidden_values = std::move(values);
    return g;
}
Brbm random_brbm(Index n, Index m) {
    Brbm b;
    b.W = random_mat(n, m, 1.0);
    b.b = random_vec(n, 0.7);
    b.c = random_vec(m, 0.7);
    return b;
}
// Leaky with W scaled so its largest singular value is `smax`.
Leaky random_leaky(Index n, Index m, double smax, double cl, double bias_scale) {
    Leaky l;
    l.W = random_mat(n, m, 1.0);
    l.W *= smax / l.max_singular_value();
    l.b = random_vec(n, bias_scale);
    l.c = random_vec(m, bias_scale);
    l.leakiness = cl;
    return l;
}
Model wrap(auto params) { return test::as_model(std::move(params), true); }

const std::vector<std::vector<double>> kHiddenSets{{0.0, 1.0}, {-1.0, 1.0}, {-1.0, 0.0, 1.0}};

// Every mode centre b + sigma∘(W h) of a small GRBM, for the quadrature box.
void grbm_box(const Grbm& g, Index i, double& lo, double& hi) {
    const Index m = g.n_hidden();
    const auto r = static_cast<Index>(g.hidden_values.size());
    Index total = 1;
    for (Index j = 0; j < m; ++j) total *= r;
    lo = INFINITY;
    hi = -INFINITY;
    for (Index k = 0; k < total; ++k) {
        Index rest = k;
        double u = 0;
        for (Index j = 0; j < m; ++j) {
            u += g.W(i, j) * g.hidden_values[static_cast<std::size_t>(rest % r)];
            rest /= r;
        }
        lo = std::min(lo, g.b(i) + g.sigma(i) * u);
        hi = std::max(hi, g.b(i) + g.sigma(i) * u);
    }
    lo -= 12 * g.sigma(i);
    hi += 12 * g.sigma(i);
}

QuadMoments grbm_quadrature(const Grbm& g) {
    std::vector<std::vector<double>> xs(static_cast<std::size_t>(g.n_visible())), ws(xs.size());
    for (Index i = 0; i < g.n_visible(); ++i) {
        double lo, hi;
        grbm_box(g, i, lo, hi);
        test::composite_nodes(lo, hi, g.sigma(i), {}, 20, xs[static_cast<std::size_t>(i)],
                              ws[static_cast<std::size_t>(i)]);
    }
    return tensor_quadrature(xs, ws, [&](const RowMat& P) { return g.log_unnorm(P); });
}

// Sample mean and covariance (about the exact mean) within `k` standard errors of the exact ones.
void check_samples(const RowMat& V, const Moments& exact, double k, const char* label) {
    const Index N = V.rows(), n = V.cols();
    for (Index i = 0; i < n; ++i) {
        const double mean = V.col(i).mean();
        const double se = std::sqrt(exact.cov(i, i) / N);
        CHECK_MSG(std::fabs(mean - exact.mean(i)) <= k * se,
                  label << " mean[" << i << "] " << mean << " vs " << exact.mean(i) << " (se " << se << ")");
        for (Index j = 0; j <= i; ++j) {
            const Vec prod = ((V.col(i).array() - exact.mean(i)) * (V.col(j).array() - exact.mean(j))).matrix();
            const double c = prod.mean();
            const double sd = std::sqrt((prod.array() - c).square().sum() / (N - 1));
            const double se_c = sd / std::sqrt(static_cast<double>(N));
            CHECK_MSG(std::fabs(c - exact.cov(i, j)) <= k * se_c, label << " cov(" << i << "," << j << ") " << c
                                                                        << " vs " << exact.cov(i, j) << " (se " << se_c
                                                                        << ")");
        }
    }
}

void check_moments_close(const Moments& a, const Vec& mean, const Mat& cov, double tol, const char* label) {
    for (Index i = 0; i < mean.size(); ++i) {
        CHECK_MSG(test::close_rel(a.mean(i), mean(i), tol),
                  label << " mean[" << i << "] " << a.mean(i) << " vs " << mean(i));
        for (Index j = 0; j < mean.size(); ++j)
            CHECK_MSG(test::close_rel(a.cov(i, j), cov(i, j), tol),
                      label << " cov(" << i << "," << j << ") " << a.cov(i, j) << " vs " << cov(i, j));
    }
}

}  // namespace

// ======================= GRBM =======================

TEST_CASE("grbm log Z and moments of v match brute-force quadrature of p*(v), every hidden set, n = 1 and 2") {
    int models = 0;
    for (const auto& values : kHiddenSets)
        for (Index n = 1; n <= 2; ++n)
            for (Index m : {1, 3, 4}) {
                const Model model = wrap(random_grbm(n, m, values));
                const QuadMoments q = grbm_quadrature(*model.as<Grbm>());
                CHECK_CLOSE(exact_log_z(model), q.log_z, 1e-8);
                check_moments_close(exact_visible_moments(model), q.mean, q.cov(), 1e-8, "grbm");
                ++models;
            }
    CHECK(models == 18);
}

TEST_CASE("grbm log Z equals the joint sum over h of the v-integral of exp(-E(v,h))") {
    // Another form: enumerate h by hand, integrate exp(-E(v,h)) over v by quadrature (energy(),
    // not the free energy), and compare E[h], Cov[h] too.
    for (const auto& values : kHiddenSets) {
        const Grbm g = random_grbm(2, 2, values);
        const Model model = wrap(g);
        const auto r = static_cast<Index>(values.size());
        std::vector<std::vector<double>> xs(2), ws(2);
        for (Index i = 0; i < 2; ++i) {
            double lo, hi;
            grbm_box(g, i, lo, hi);
            test::composite_nodes(lo, hi, g.sigma(i), {}, 20, xs[static_cast<std::size_t>(i)],
                                  ws[static_cast<std::size_t>(i)]);
        }
        std::vector<double> log_w;
        std::vector<Vec> hs;
        for (Index k = 0; k < r * r; ++k) {
            Vec h(2);
            h << values[static_cast<std::size_t>(k % r)], values[static_cast<std::size_t>(k / r)];
            const QuadMoments q = tensor_quadrature(xs, ws, [&](const RowMat& P) {
                const RowMat H = h.transpose().replicate(P.rows(), 1);
                return Vec(-g.energy(P, H));
            });
            log_w.push_back(q.log_z);
            hs.push_back(h);
        }
        const double lz = log_sum_exp(std::span<const double>(log_w));
        CHECK_CLOSE(exact_log_z(model), lz, 1e-8);
        Vec mh = Vec::Zero(2);
        Mat sh = Mat::Zero(2, 2);
        for (std::size_t k = 0; k < hs.size(); ++k) {
            const double p = std::exp(log_w[k] - lz);
            mh += p * hs[k];
            sh += p * hs[k] * hs[k].transpose();
        }
        const HiddenMoments hm = exact_hidden_moments(model);
        const Mat ch = sh - mh * mh.transpose();
        for (Index i = 0; i < 2; ++i) {
            CHECK_NEAR(hm.mean(i), mh(i), 1e-9);
            for (Index j = 0; j < 2; ++j) CHECK_NEAR(hm.cov(i, j), ch(i, j), 1e-9);
        }
    }
}

TEST_CASE("grbm enumeration across many chunks (m = 20 binary, m = 12 ternary) matches 1-D quadrature") {
    // n = 1 keeps the brute-force quadrature cheap while the enumeration spans 2^20 and 3^12
    // configurations, i.e. many chunks with high units set (the split B.h + h'Jh/2 formula).
    for (const auto& [values, m] :
         std::vector<std::pair<std::vector<double>, Index>>{{{0.0, 1.0}, 20}, {{-1.0, 0.0, 1.0}, 12}}) {
        const Model model = wrap(random_grbm(1, m, values, 0.35));
        const auto t0 = std::chrono::steady_clock::now();
        const double lz = exact_log_z(model);
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("  |X|^m = %zu^%ld: exact log Z %.12f in %.3f s\n", values.size(), static_cast<long>(m), lz, secs);
        // (No bound on secs: a verdict on the clock depends on the machine's load.)
        const QuadMoments q = grbm_quadrature(*model.as<Grbm>());
        CHECK_CLOSE(lz, q.log_z, 1e-8);
        check_moments_close(exact_visible_moments(model), q.mean, q.cov(), 1e-8, "big grbm");
        // The hidden-only part plus the Gaussian constant is log Z.
        const Grbm& g = *model.as<Grbm>();
        CHECK_CLOSE(grbm_hidden_log_z(g) + std::log(g.sigma(0)) + 0.5 * kLog2Pi, lz, 1e-12);
    }
}

TEST_CASE("grbm exact answers are bitwise identical at 1 and 2 threads") {
    const Model model = wrap(random_grbm(3, 18, {0.0, 1.0}, 0.4));
    double lz1, lz2;
    Moments m1, m2;
    {
        ThreadLimit one(1);
        lz1 = exact_log_z(model);
        m1 = exact_visible_moments(model);
    }
    {
        ThreadLimit two(2);
        lz2 = exact_log_z(model);
        m2 = exact_visible_moments(model);
    }
    CHECK(lz1 == lz2);
    CHECK(m1.mean == m2.mean);
    CHECK(m1.cov == m2.cov);
}

TEST_CASE("the enumeration limit refuses big models and names the size") {
    const Model big = wrap(random_grbm(2, 30, {0.0, 1.0}));
    CHECK(!has_exact_log_z(big));
    CHECK(enumeration_size(big).configurations == std::pow(2.0, 30));
    CHECK_THROWS_WITH(require_enumerable(big), InputError, "2^30 hidden configurations");
    CHECK_THROWS_WITH(exact_log_z(big), InputError, "2^30 hidden configurations");
    CHECK_THROWS_WITH(exact_log_z(big), InputError, "16777216");
    CHECK_THROWS_WITH(exact_samples(big, 10, 1), InputError, "2^30");
    const Model ternary = wrap(random_grbm(2, 20, {-1.0, 0.0, 1.0}));
    CHECK_THROWS_WITH(exact_visible_moments(ternary), InputError,
                      "3^20 hidden configurations (hidden values {-1, 0, 1})");
    // A lower limit applies too; the BRBM names the layer it would enumerate.
    ExactOptions small;
    small.max_configurations = 1000;
    const Model brbm = wrap(random_brbm(12, 10));
    CHECK_THROWS_WITH(exact_log_z(brbm, small), InputError, "2^10 hidden configurations");
    CHECK(has_exact_log_z(brbm));
    CHECK(!has_exact_log_z(brbm, small));
}

// ======================= BRBM =======================

namespace {
// Independent: sum over all (v, h) of exp(-E(v, h)) via Brbm::energy.
struct JointBrbm {
    double log_z;
    Moments v, h;
};
JointBrbm brbm_joint(const Brbm& b) {
    const Index n = b.n_visible(), m = b.n_hidden(), total = Index(1) << (n + m);
    RowMat V(total, n), H(total, m);
    for (Index k = 0; k < total; ++k) {
        for (Index i = 0; i < n; ++i) V(k, i) = static_cast<double>((k >> i) & 1);
        for (Index j = 0; j < m; ++j) H(k, j) = static_cast<double>((k >> (n + j)) & 1);
    }
    const Vec le = -b.energy(V, H);
    const double lz = log_sum_exp(le);
    const Vec p = (le.array() - lz).exp().matrix();
    auto moments = [&](const RowMat& X) {
        Moments mo;
        mo.mean = X.transpose() * p;
        mo.cov = X.transpose() * p.asDiagonal() * X - mo.mean * mo.mean.transpose();
        return mo;
    };
    return {lz, moments(V), moments(H)};
}
}  // namespace

TEST_CASE("brbm: enumerate h, enumerate v and the joint (v,h) sum agree, with moments of both layers") {
    int models = 0;
    for (const auto& [n, m] : std::vector<std::pair<Index, Index>>{{3, 5}, {5, 3}, {4, 4}, {6, 2}, {1, 7}, {7, 1}}) {
        const Model model = wrap(random_brbm(n, m));
        const JointBrbm joint = brbm_joint(*model.as<Brbm>());
        for (auto layer : {ExactOptions::Layer::Visible, ExactOptions::Layer::Hidden, ExactOptions::Layer::Auto}) {
            ExactOptions o;
            o.brbm_layer = layer;
            CHECK_CLOSE(exact_log_z(model, o), joint.log_z, 1e-10);
            check_moments_close(exact_visible_moments(model, o), joint.v.mean, joint.v.cov, 1e-10, "brbm v");
            const HiddenMoments hm = exact_hidden_moments(model, o);
            check_moments_close({hm.mean, hm.cov}, joint.h.mean, joint.h.cov, 1e-10, "brbm h");
        }
        ++models;
    }
    CHECK(models == 6);
}

TEST_CASE("brbm enumeration over many chunks (2^18 visible) agrees with enumerating the 3 hidden units") {
    const Model model = wrap(random_brbm(18, 3));
    ExactOptions ov, oh;
    ov.brbm_layer = ExactOptions::Layer::Visible;
    oh.brbm_layer = ExactOptions::Layer::Hidden;
    CHECK_CLOSE(exact_log_z(model, ov), exact_log_z(model, oh), 1e-10);
    const Moments a = exact_visible_moments(model, ov), b = exact_visible_moments(model, oh);
    check_moments_close(a, b.mean, b.cov, 1e-9, "brbm 18x3 v");
    const HiddenMoments ha = exact_hidden_moments(model, ov), hb = exact_hidden_moments(model, oh);
    check_moments_close({ha.mean, ha.cov}, hb.mean, hb.cov, 1e-9, "brbm 18x3 h");
}

// ======================= Leaky =======================

TEST_CASE("leaky: Table 1 of Li et al. (n = 3072, orthogonal columns of norm 0.9, cL = 0.01)") {
    const Index n = 3072;
    const std::vector<std::pair<Index, double>> table{{5, 2825.48}, {10, 2827.98}, {20, 2832.98}, {30, 2837.99}};
    for (const auto& [m, printed] : table) {
        Leaky l;
        // Random orthonormal columns (thin QR), scaled to norm 0.9.
        const Mat Q = Eigen::HouseholderQR<Mat>(random_mat(n, m, 1.0)).householderQ() * Mat::Identity(n, m);
        l.W = 0.9 * Q;
        l.b = Vec::Zero(n);
        l.c = Vec::Zero(m);
        l.leakiness = 0.01;
        const Model model = wrap(l);
        CHECK(leaky_is_orthogonal_case(l, 1e-10));
        CHECK(has_exact_log_z(model));
        const double lz = exact_log_z(model);
        std::printf("  m = %ld: log Z = %.4f (paper %.2f)\n", static_cast<long>(m), lz, printed);
        CHECK_NEAR(std::round(lz * 100) / 100, printed, 1e-9);
    }
}

TEST_CASE("leaky: orthogonal closed form (log Z and moments) equals 2-D quadrature") {
    for (double cl : {0.01, 0.3, 0.9}) {
        const double th = uniform(0, std::numbers::pi);
        Leaky l;
        l.W = Mat(2, 2);
        l.W << 0.6 * std::cos(th), -0.95 * std::sin(th), 0.6 * std::sin(th), 0.95 * std::cos(th);
        l.b = Vec::Zero(2);
        l.c = Vec::Zero(2);
        l.leakiness = cl;
        const Model model = wrap(l);
        CHECK_CLOSE(leaky_log_z_orthogonal(l), leaky_log_z_quadrature(l), 1e-10);
        // Moments: exact_visible_moments takes the orthogonal closed form; a copy with c_0 = 1e-9
        // (moments move by O(1e-9)) is no longer orthogonal and goes through quadrature.
        Leaky q = l;
        q.c(0) = 1e-9;
        CHECK(!leaky_is_orthogonal_case(q));
        const Moments mo = exact_visible_moments(model);
        const Moments mq = exact_visible_moments(wrap(q));
        check_moments_close(mo, mq.mean, mq.cov, 1e-8, "orthogonal");
        // A single column (one line through the origin).
        Leaky one = l;
        one.W = l.W.leftCols(1);
        one.c = Vec::Zero(1);
        CHECK_CLOSE(leaky_log_z_orthogonal(one), leaky_log_z_quadrature(one), 1e-10);
    }
}

TEST_CASE("leaky: leakiness-1 closed form equals quadrature with random b and c (n = 1 and 2)") {
    for (Index n = 1; n <= 2; ++n)
        for (int rep = 0; rep < 3; ++rep) {
            const Leaky l = random_leaky(n, 3, 0.9, 1.0, 1.5);
            const Model model = wrap(l);
            const double closed = exact_log_z(model);
            CHECK_CLOSE(closed, leaky_log_z_gaussian_case(l), 0);
            CHECK_CLOSE(closed, leaky_log_z_quadrature(l), 1e-10);
        }
    // Moments at leakiness 1 vs a leakiness just below 1 through quadrature (continuous in cL).
    Leaky l = random_leaky(2, 3, 0.8, 1.0, 1.0);
    const Moments closed = exact_visible_moments(wrap(l));
    l.leakiness = 1.0 - 1e-12;
    const Moments quad = exact_visible_moments(wrap(l));
    check_moments_close(closed, quad.mean, quad.cov, 1e-9, "leakiness 1");
}

TEST_CASE("leaky n = 1: piecewise erfc closed form equals composite quadrature split at the kinks") {
    for (int rep = 0; rep < 6; ++rep) {
        const double cl = rep == 0 ? 0.01 : uniform(0.01, 0.99);
        const Leaky l = random_leaky(1, 4, uniform(0.3, 0.97), cl, 1.5);
        const Model model = wrap(l);
        const double lz = exact_log_z(model);
        // Envelope sd bounds the range.
        const double prec = 1.0 - l.W.squaredNorm(), mu = (l.b(0) + l.W.row(0).dot(l.c)) / prec;
        const double sd = 1.0 / std::sqrt(prec);
        std::vector<double> kinks;
        for (Index j = 0; j < 4; ++j) kinks.push_back(-l.c(j) / l.W(0, j));
        std::vector<std::vector<double>> xs(1), ws(1);
        test::composite_nodes(mu - 40 * sd, mu + 40 * sd, 0.5 * sd, kinks, 20, xs[0], ws[0]);
        const QuadMoments q = tensor_quadrature(xs, ws, [&](const RowMat& P) { return l.log_unnorm(P); });
        CHECK_CLOSE(lz, q.log_z, 1e-10);
        check_moments_close(exact_visible_moments(model), q.mean, q.cov(), 1e-9, "leaky 1-D");
    }
}

namespace {
// Independent 2-D check for m <= 2: every line eta_j = 0 passes through one point p (W'p = -c),
// so around p, in polar coordinates, alpha is constant along each ray and the radial integral
// is closed-form:  int_0^inf r exp(-A r^2/2 + B r) dr = (1 + B I)/A,
// I = sqrt(pi/(2A)) exp(B^2/(2A)) erfc(-B/sqrt(2A)). The angle is integrated by Gauss-Legendre
// split at the directions of the lines.
double leaky_log_z_polar(const Leaky& l) {
    const Index m = l.n_hidden();
    Vec p = Vec::Zero(2);
    if (m == 2) p = -l.W.transpose().partialPivLu().solve(l.c);
    else if (m == 1) p = -l.c(0) * l.W.col(0) / l.W.col(0).squaredNorm();
    const double k0 = -0.5 * p.squaredNorm() + l.b.dot(p);
    const Vec bb = l.b - p;
    std::vector<double> breaks;
    for (Index j = 0; j < m; ++j) {
        const double t = std::atan2(-l.W(0, j), l.W(1, j));  // direction where W_j . u = 0
        for (double s : {t, t + std::numbers::pi, t - std::numbers::pi})
            if (s > 0 && s < 2 * std::numbers::pi) breaks.push_back(s);
    }
    std::vector<double> th, w;
    test::composite_nodes(0, 2 * std::numbers::pi, 0.002, breaks, 20, th, w);
    double s = 0;
    for (std::size_t k = 0; k < th.size(); ++k) {
        const Vec u = (Vec(2) << std::cos(th[k]), std::sin(th[k])).finished();
        double A = 1;
        for (Index j = 0; j < m; ++j) {
            const double e = l.W.col(j).dot(u);
            A -= (e > 0 ? 1.0 : l.leakiness) * e * e;
        }
        const double B = bb.dot(u);
        const double I =
            std::sqrt(std::numbers::pi / (2 * A)) * std::exp(B * B / (2 * A)) * std::erfc(-B / std::sqrt(2 * A));
        s += w[k] * (1 + B * I) / A;
    }
    return k0 + std::log(s);
}
}  // namespace

TEST_CASE("leaky 2-D quadrature equals an independent polar integration (m = 1, 2; random b, c, cL)") {
    for (Index m = 1; m <= 2; ++m)
        for (int rep = 0; rep < 4; ++rep) {
            const Leaky l = random_leaky(2, m, uniform(0.5, 0.95), uniform(0.01, 0.5), 0.8);
            wrap(l);
            CHECK_CLOSE(leaky_log_z_quadrature(l), leaky_log_z_polar(l), 1e-10);
            // and the polar check itself is sharp enough to notice a wrong leakiness
            Leaky wrong = l;
            wrong.leakiness *= 1.01;
            CHECK(std::fabs(leaky_log_z_quadrature(l) - leaky_log_z_polar(wrong)) > 1e-6);
        }
}

TEST_CASE("leaky 2-D quadrature with three lines agrees with a fine brute-force grid") {
    Leaky l = random_leaky(2, 3, 0.9, 0.05, 1.0);
    const Model model = wrap(l);
    const double lz = exact_log_z(model);
    const Moments mo = exact_visible_moments(model);
    std::vector<std::vector<double>> xs(2), ws(2);
    for (Index i = 0; i < 2; ++i) {
        const double sd = std::sqrt(mo.cov(i, i));
        test::composite_nodes(mo.mean(i) - 14 * sd, mo.mean(i) + 14 * sd, 0.05 * sd, {}, 4,
                              xs[static_cast<std::size_t>(i)], ws[static_cast<std::size_t>(i)]);
    }
    const QuadMoments q = tensor_quadrature(xs, ws, [&](const RowMat& P) { return l.log_unnorm(P); });
    std::printf("  3-line leaky: quadrature %.12f, grid %.12f\n", lz, q.log_z);
    CHECK_NEAR(lz, q.log_z, 1e-6);
    check_moments_close(mo, q.mean, q.cov(), 1e-5, "3-line leaky");
}

TEST_CASE("leaky: no exact method beyond the closed forms and n <= 2 is refused clearly") {
    const Model model = wrap(random_leaky(3, 2, 0.8, 0.1, 1.0));
    CHECK(!has_exact_log_z(model));
    CHECK_THROWS_WITH(exact_log_z(model), InputError, "1 or 2 visible units (quadrature)");
    CHECK_THROWS_WITH(exact_log_z(model), InputError, "this model has 3 visible units");
    CHECK_THROWS_WITH(exact_visible_moments(model), InputError, "orthogonal");
    CHECK_THROWS_WITH(exact_hidden_moments(model), InputError, "not for a leaky model");
}

// ======================= Gaussian =======================

TEST_CASE("gaussian kind: log Z 0, moments are its parameters, exact samples match them") {
    Gaussian g;
    g.mean = (Vec(3) << 1.0, -2.0, 0.5).finished();
    g.cov = (Mat(3, 3) << 2.0, 0.6, -0.3, 0.6, 1.0, 0.2, -0.3, 0.2, 0.5).finished();
    const Model model = wrap(g);
    CHECK(exact_log_z(model) == 0.0);
    const Moments mo = exact_visible_moments(model);
    CHECK(mo.mean == g.mean);
    CHECK(mo.cov == g.cov);
    check_samples(exact_samples(model, 40000, 3), mo, 4.5, "gaussian");
}

// ======================= exact samples =======================

TEST_CASE("exact samples reproduce the exact moments (grbm, brbm, leaky n = 2) within 4.5 standard errors") {
    const Index N = 40000;
    const Model grbm = wrap(random_grbm(2, 3, {-1.0, 0.0, 1.0}));
    check_samples(exact_samples(grbm, N, 11), exact_visible_moments(grbm), 4.5, "grbm");
    const Model grbm01 = wrap(random_grbm(3, 4, {0.0, 1.0}));
    check_samples(exact_samples(grbm01, N, 12), exact_visible_moments(grbm01), 4.5, "grbm01");
    const Model brbm_h = wrap(random_brbm(5, 3));  // enumerates h, v from its conditional
    check_samples(exact_samples(brbm_h, N, 13), exact_visible_moments(brbm_h), 4.5, "brbm (h enumerated)");
    const Model brbm_v = wrap(random_brbm(3, 6));  // enumerates v
    check_samples(exact_samples(brbm_v, N, 14), exact_visible_moments(brbm_v), 4.5, "brbm (v enumerated)");
    const Model leaky = wrap(random_leaky(2, 3, 0.95, 0.02, 0.8));
    check_samples(exact_samples(leaky, 4 * N, 15), exact_visible_moments(leaky), 4.5, "leaky");
    // The samplers are sharp enough to see a wrong model: the leaky samples against cL = 1 moments.
    Leaky other = *leaky.as<Leaky>();
    other.leakiness = 1.0;
    const Moments wrong = exact_visible_moments(wrap(other));
    const RowMat V = exact_samples(leaky, 4 * N, 15);
    const double se = std::sqrt(wrong.cov(0, 0) / (4 * N));
    CHECK(std::fabs(V.col(0).mean() - wrong.mean(0)) > 5 * se || std::fabs(V.col(1).mean() - wrong.mean(1)) > 5 * se);
}

TEST_CASE("exact samples are identical at 1 and 2 threads and differ between seeds") {
    const std::vector<Model> models{wrap(random_grbm(2, 3, {0.0, 1.0})), wrap(random_brbm(4, 6)),
                                    wrap(random_brbm(6, 4)), wrap(random_leaky(2, 3, 0.8, 0.2, 0.5))};
    for (const Model& model : models) {
        RowMat a, b;
        {
            ThreadLimit one(1);
            a = exact_samples(model, 1000, 7);
        }
        {
            ThreadLimit two(2);
            b = exact_samples(model, 1000, 7);
        }
        CHECK(a == b);
        CHECK(a.rows() == 1000);
        CHECK(!(a == exact_samples(model, 1000, 8)));
    }
}

TEST_CASE("leaky exact samples refuse when rejection would be hopeless") {
    // 30 orthogonal units of norm 0.9: acceptance Z/Z_1 = prod (s1+s2)/(2 s1) ~ 5e-5.
    const Index n = 40, m = 30;
    Leaky l;
    l.W = Mat::Zero(n, m);
    for (Index j = 0; j < m; ++j) l.W(j, j) = 0.9;
    l.b = Vec::Zero(n);
    l.c = Vec::Zero(m);
    l.leakiness = 0.01;
    CHECK_THROWS_WITH(exact_samples(wrap(l), 10, 1), InputError, "acceptance rate");
    // Without an exact log Z the rate is measured: n = 3, strongly negative c.
    Leaky hard = random_leaky(3, 3, 0.99, 0.001, 0.0);
    hard.c = Vec::Constant(3, -12.0);
    CHECK_THROWS_WITH(exact_samples(wrap(hard), 10, 1), InputError, "measured on");
}

// ======================= density grids =======================

namespace {
// resources/presets/four-mode.json: W = [[3,1],[1,3]], b = 0, c = -8, sigma = 1.
Model four_mode() {
    Model m = load_preset("four-mode");
    const Grbm& g = *m.as<Grbm>();
    CHECK(g.W.isApprox((Mat(2, 2) << 3.0, 1.0, 1.0, 3.0).finished()) && g.c.isApprox(Vec::Constant(2, -8.0)) &&
          g.b.isZero() && g.sigma.isOnes() && g.binary01());
    return m;
}
double riemann_mass(const DensityGrid& d) {
    const double cell = (d.spec.x1 - d.spec.x0) / d.spec.nx * (d.spec.y1 - d.spec.y0) / d.spec.ny;
    double s = 0;
    for (double l : d.log_density) s += std::exp(l);
    return s * cell;
}
}  // namespace

TEST_CASE("density grid of the four-mode GRBM integrates to 1 and peaks on a heavy mode") {
    const Model model = four_mode();
    GridSpec g;
    g.x0 = g.y0 = -7;
    g.x1 = g.y1 = 11;
    g.nx = g.ny = 360;
    const DensityGrid d = density_grid(model, g);
    CHECK_NEAR(riemann_mass(d), 1.0, 1e-3);
    CHECK_CLOSE(d.log_z, exact_log_z(model), 1e-14);
    // log p(h): 00 and 11 weigh 0, 10 and 01 weigh -3: the heavy modes are (0,0) and (4,4).
    const auto it = std::max_element(d.log_density.begin(), d.log_density.end());
    const auto k = static_cast<int>(it - d.log_density.begin());
    const double x = g.x0 + (k % g.nx + 0.5) * 0.05, y = g.y0 + (k / g.nx + 0.5) * 0.05;
    const double d00 = std::hypot(x, y), d44 = std::hypot(x - 4, y - 4);
    CHECK_MSG(std::min(d00, d44) < 0.1, "argmax at (" << x << ", " << y << ")");
    // The default view holds every mode with ~3.5 sd margin, and nearly all of the mass.
    const GridSpec view = default_view(model, 200, 200);
    CHECK_NEAR(view.x0, -3.5, 1e-12);
    CHECK_NEAR(view.x1, 7.5, 1e-12);
    CHECK_NEAR(view.y0, -3.5, 1e-12);
    CHECK_NEAR(view.y1, 7.5, 1e-12);
    CHECK(view.nx == 200 && view.ny == 200);
    CHECK(riemann_mass(density_grid(model, view)) > 0.995);
}

TEST_CASE("density grids of a leaky RBM and a gaussian integrate to 1; 2-D continuous models only") {
    Leaky l;
    l.W = (Mat(2, 3) << 0.0, -0.606217782649, 0.606217782649, 0.7, -0.35, -0.35).finished();
    l.b = Vec::Zero(2);
    l.c = Vec::Zero(3);
    l.leakiness = 0.05;
    Gaussian ga;
    ga.mean = (Vec(2) << 10.0, 0.0).finished();
    ga.cov = (Mat(2, 2) << 1.0, 0.85, 0.85, 1.0).finished();
    for (const Model& model : {wrap(l), wrap(ga)}) {
        GridSpec view = default_view(model, 300, 300);
        const Moments mo = exact_visible_moments(model);
        CHECK_NEAR(view.x1 - view.x0, 8 * std::sqrt(mo.cov(0, 0)), 1e-9);
        // widen to hold all the mass for the Riemann check
        const double wx = 0.5 * (view.x1 - view.x0), wy = 0.5 * (view.y1 - view.y0);
        view.x0 -= wx;
        view.x1 += wx;
        view.y0 -= wy;
        view.y1 += wy;
        CHECK_NEAR(riemann_mass(density_grid(model, view)), 1.0, 1e-3);
    }
    CHECK_THROWS_WITH(density_grid(wrap(random_brbm(2, 2)), GridSpec{}), InputError, "binary visible units");
    CHECK_THROWS_WITH(default_view(wrap(random_grbm(3, 2, {0.0, 1.0}))), InputError, "2 visible units");
    GridSpec bad;
    bad.x1 = bad.x0;
    CHECK_THROWS_WITH(density_grid(four_mode(), bad), InputError, "x1 > x0");
}

TEST_CASE("density grid is cancellable and identical at 1 and 2 threads") {
    const Model model = four_mode();
    GridSpec g;
    g.nx = g.ny = 64;
    std::atomic<int> calls{0};
    CHECK_THROWS_WITH(density_grid(model, g, {}, [&] { return ++calls > 10; }), Cancelled, "cancelled");
    CHECK(calls.load() < 64);
    DensityGrid a, b;
    {
        ThreadLimit one(1);
        a = density_grid(model, g);
    }
    {
        ThreadLimit two(2);
        b = density_grid(model, g);
    }
    CHECK(a.log_density == b.log_density);
}

RBM_TEST_MAIN
