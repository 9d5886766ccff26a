// The moment-averaged spline path (docs/methods/annealing-paths.md#mas): knot fits reproduce the averaged moments, the
// AIS estimate is unbiased, and the cost functional is the geometric path's (Grosse et al. Theorem 2),
// measured through the exact bias K * delta of AIS with perfect transitions.
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

// ---- sufficient statistics g = (v, h, vec(v h')) computed here by brute force, independently
//      of the path's own enumeration ----

// Every configuration of `units` units over `values`.
std::vector<Vec> configurations(const std::vector<double>& values, Index units) {
    std::vector<Vec> out{Vec(units)};
    out.clear();
    const Index k = static_cast<Index>(values.size());
    Index total = 1;
    for (Index j = 0; j < units; ++j) total *= k;
    for (Index c = 0; c < total; ++c) {
        Vec x(units);
        Index rest = c;
        for (Index j = 0; j < units; ++j, rest /= k) x(j) = values[static_cast<std::size_t>(rest % k)];
        out.push_back(x);
    }
    return out;
}

Vec pack(const Vec& ev, const Vec& eh, const Mat& evh) {
    Vec s(ev.size() + eh.size() + evh.size());
    s << ev, eh, Eigen::Map<const Vec>(evh.data(), evh.size());
    return s;
}

// GRBM: p(h) ∝ exp(B.h + h'Jh/2), v | h ~ N(b + sigma∘(Wh), sigma^2).
Vec grbm_stats(const Grbm& g) {
    const Vec B = g.hidden_marginal_field();
    const Mat J = g.hidden_marginal_coupling();
    const auto hs = configurations(g.hidden_values, g.n_hidden());
    Vec lw(static_cast<Index>(hs.size()));
    for (std::size_t k = 0; k < hs.size(); ++k) lw(static_cast<Index>(k)) = B.dot(hs[k]) + 0.5 * hs[k].dot(J * hs[k]);
    const Vec p = (lw.array() - log_sum_exp(lw)).exp().matrix();
    Vec ev = Vec::Zero(g.n_visible()), eh = Vec::Zero(g.n_hidden());
    Mat evh = Mat::Zero(g.n_visible(), g.n_hidden());
    for (std::size_t k = 0; k < hs.size(); ++k) {
        const Vec mv = g.b + g.sigma.cwiseProduct(g.W * hs[k]);
        const double w = p(static_cast<Index>(k));
        ev += w * mv;
        eh += w * hs[k];
        evh += w * mv * hs[k].transpose();
    }
    return pack(ev, eh, evh);
}

// BRBM by enumerating both layers.
Vec brbm_stats(const Brbm& r, double* log_z = nullptr) {
    const auto vs = configurations({0, 1}, r.n_visible()), hs = configurations({0, 1}, r.n_hidden());
    std::vector<double> lw;
    for (const Vec& v : vs)
        for (const Vec& h : hs) lw.push_back(r.b.dot(v) + r.c.dot(h) + v.dot(r.W * h));
    const double lz = log_sum_exp(std::span<const double>(lw));
    if (log_z) *log_z = lz;
    Vec ev = Vec::Zero(r.n_visible()), eh = Vec::Zero(r.n_hidden());
    Mat evh = Mat::Zero(r.n_visible(), r.n_hidden());
    std::size_t k = 0;
    for (const Vec& v : vs)
        for (const Vec& h : hs) {
            const double w = std::exp(lw[k++] - lz);
            ev += w * v;
            eh += w * h;
            evh += w * v * h.transpose();
        }
    return pack(ev, eh, evh);
}

// eta -> RBM parameters (eta of docs/methods/annealing-paths.md#mas): GRBM (b/sigma^2, c, W/sigma), BRBM (b, c, W).
Grbm grbm_from_eta(const Grbm& like, const Vec& eta) {
    const Index n = like.n_visible(), m = like.n_hidden();
    Grbm g = like;
    g.b = eta.head(n).cwiseProduct(like.sigma.cwiseAbs2());
    g.c = eta.segment(n, m);
    g.W = like.sigma.asDiagonal() * Eigen::Map<const Mat>(eta.data() + n + m, n, m);
    return g;
}
Brbm brbm_from_eta(const Brbm& like, const Vec& eta) {
    const Index n = like.n_visible(), m = like.n_hidden();
    return Brbm{Eigen::Map<const Mat>(eta.data() + n + m, n, m), eta.head(n), eta.segment(n, m)};
}

// AISM-type base for a GRBM: zero weights, b = target mean, sigma = target sigma, c = 0.
Model grbm_base(const Grbm& g) {
    Grbm b = g;
    b.W.setZero();
    b.b = exact_visible_moments(Model{g, {}, {}, {}, {}}).mean;
    b.c.setZero();
    return Model{b, {}, {}, {}, {}};
}
// Base-rate model for a BRBM: zero weights, visible bias logit of the target mean, hidden bias 0.
Model brbm_base(const Brbm& r) {
    Brbm b = r;
    b.W.setZero();
    const Vec mean = exact_visible_moments(Model{r, {}, {}, {}, {}}).mean;
    for (Index i = 0; i < mean.size(); ++i) b.b(i) = logit(std::clamp(mean(i), 1e-3, 1 - 1e-3));
    b.c.setZero();
    return Model{b, {}, {}, {}, {}};
}

AisResult run(const AnnealingPath& p, Index chains, Index steps, std::uint64_t seed, bool perfect = false) {
    AisOptions o;
    o.chains = chains;
    o.seed = seed;
    o.perfect = perfect;
    return run_ais(p, linear_schedule(steps), o);
}

void check_agrees(const AisResult& r, double truth, const std::string& what) {
    const double tol = 4.0 * r.estimate.bootstrap_sd + 1e-3;
    CHECK_MSG(std::fabs(r.estimate.log_z - truth) <= tol, what << ": estimate " << r.estimate.log_z << " vs exact "
                                                               << truth << " (tol " << tol << ", ESS " << r.estimate.ess
                                                               << ")");
}

// Every interior knot: eta's exact moments (by this file's enumeration) equal (1-beta) s_A + beta s_B.
template <class M, class StatsFn, class FromEta>
void check_knots(const AnnealingPath& p, const M& target, const M& base, StatsFn stats, FromEta from_eta) {
    const Vec s_a = stats(base), s_b = stats(target);
    const auto knots = p.knots();
    CHECK(knots.size() == 11);
    CHECK(knots.front().beta == 0.0 && knots.back().beta == 1.0);
    CHECK((knots.front().s - s_a).cwiseAbs().maxCoeff() < 1e-9);
    CHECK((knots.back().s - s_b).cwiseAbs().maxCoeff() < 1e-9);
    for (std::size_t r = 1; r + 1 < knots.size(); ++r) {
        const double beta = knots[r].beta;
        CHECK_NEAR(beta, 0.1 * static_cast<double>(r), 1e-12);
        const Vec want = (1 - beta) * s_a + beta * s_b;
        CHECK((knots[r].s - want).cwiseAbs().maxCoeff() < 1e-12);
        const double err = (stats(from_eta(target, knots[r].eta)) - want).cwiseAbs().maxCoeff();
        CHECK_MSG(err < 1e-6, "knot " << beta << ": |E_eta[g] - s(beta)| = " << err);
    }
}

// Exact bias delta = sum_k KL(p_{k-1} || p_k) of AIS with perfect transitions on the JOINT
// (v, h) of a small BRBM, p_k ∝ exp(eta(beta_k)'g), with eta(beta) piecewise linear through the
// knots and beta_k = k/K. Theorem 1: K delta -> F = (1/2) int eta'(beta)' G eta'(beta) d beta.
// (The paths' own log_f is the v-marginal, whose KL divergences are smaller; Theorem 2 is about
// the joint family.)
double joint_k_delta(const std::vector<AnnealingPath::Knot>& knots, Index n, Index m, Index K) {
    const auto vs = configurations({0, 1}, n), hs = configurations({0, 1}, m);
    Mat G(static_cast<Index>(vs.size() * hs.size()), n + m + n * m);  // g of every joint state
    Index row = 0;
    for (const Vec& v : vs)
        for (const Vec& h : hs) {
            const Mat vh = v * h.transpose();
            G.row(row++) = pack(v, h, vh).transpose();
        }
    auto eta_at = [&](double beta) {
        std::size_t r = 0;
        while (r + 2 < knots.size() && knots[r + 1].beta <= beta) ++r;
        const double t = (beta - knots[r].beta) / (knots[r + 1].beta - knots[r].beta);
        return Vec((1 - t) * knots[r].eta + t * knots[r + 1].eta);
    };
    Vec prev_eta = eta_at(0.0);
    Vec prev = G * prev_eta;
    double delta = 0;
    for (Index k = 1; k <= K; ++k) {
        const Vec eta = eta_at(static_cast<double>(k) / static_cast<double>(K));
        const Vec cur = G * eta;
        const double lz0 = log_sum_exp(prev), lz1 = log_sum_exp(cur);
        const Vec w = (prev.array() - lz0).exp().matrix();
        delta += w.dot(prev - cur) + lz1 - lz0;  // KL(p_{k-1} || p_k)
        prev = cur;
    }
    return static_cast<double>(K) * delta;
}

// log Z - E[log w] of AIS on the v-marginal with perfect transitions, by enumerating v.
double marginal_k_delta(const AnnealingPath& p, Index n, Index K, double log_z1) {
    const auto vs = configurations({0, 1}, n);
    RowMat X(static_cast<Index>(vs.size()), n);
    for (std::size_t k = 0; k < vs.size(); ++k) X.row(static_cast<Index>(k)) = vs[k].transpose();
    Vec prev(X.rows()), cur(X.rows());
    p.log_f(0.0, X, 0, X.rows(), prev);
    double expected = 0;
    for (Index k = 1; k <= K; ++k) {
        p.log_f(static_cast<double>(k) / static_cast<double>(K), X, 0, X.rows(), cur);
        const Vec w = (prev.array() - log_sum_exp(prev)).exp().matrix();
        expected += w.dot(cur - prev);
        prev = cur;
    }
    return static_cast<double>(K) * (log_z1 - p.log_z0() - expected);
}

}  // namespace

TEST_CASE("MAS on a GRBM: knots reproduce the averaged moments, estimate agrees with exact log Z") {
    const Grbm g = test::random_grbm(11, 5, 4, {0, 1}, 0.9);
    const Model target{g, {}, {}, {}, {}}, base = grbm_base(g);
    const PathPtr p = make_mas_path(target, base, {});
    CHECK(p->notes().find("exact enumeration") != std::string::npos);
    CHECK(p->notes().find("converged") != std::string::npos && p->notes().find("NOT") == std::string::npos);
    check_knots(*p, g, std::get<Grbm>(base.params), grbm_stats, grbm_from_eta);
    // The knots' endpoint eta follow docs/methods/annealing-paths.md#mas (b/sigma^2, c, W/sigma).
    const Vec eta1 = p->knots().back().eta;
    CHECK_NEAR(eta1(0), g.b(0) / (g.sigma(0) * g.sigma(0)), 1e-12);
    CHECK_NEAR(eta1(5 + 4 + 1), g.W(1, 0) / g.sigma(1), 1e-12);
    // E[v] of the independent enumeration agrees with exact.cpp's.
    CHECK((grbm_stats(g).head(5) - exact_visible_moments(target).mean).cwiseAbs().maxCoeff() < 1e-10);
    const double truth = exact_log_z(target);
    check_agrees(run(*p, 1000, 200, 1), truth, "MAS GRBM");
    check_agrees(run(*p, 1000, 50, 2, true), truth, "MAS GRBM perfect");
}

TEST_CASE("MAS on a GRBM with hidden values {-1, 0, 1}") {
    const Grbm g = test::random_grbm(12, 4, 3, {-1, 0, 1}, 0.7);
    const Model target{g, {}, {}, {}, {}}, base = grbm_base(g);
    const PathPtr p = make_mas_path(target, base, {});
    check_knots(*p, g, std::get<Grbm>(base.params), grbm_stats, grbm_from_eta);
    check_agrees(run(*p, 1000, 200, 3), exact_log_z(target), "MAS GRBM {-1,0,1}");
}

TEST_CASE("MAS on BRBMs (hidden and visible layer enumerated)") {
    for (const auto& [n, m] : std::vector<std::pair<Index, Index>>{{7, 3}, {3, 6}}) {
        const Brbm r = test::random_brbm(20 + static_cast<unsigned>(n), n, m, 1.2);
        const Model target{r, {}, {}, {}, {}}, base = brbm_base(r);
        const PathPtr p = make_mas_path(target, base, {});
        check_knots(
            *p, r, std::get<Brbm>(base.params), [](const Brbm& x) { return brbm_stats(x); }, brbm_from_eta);
        double log_z = 0;
        brbm_stats(r, &log_z);
        CHECK_CLOSE(log_z, exact_log_z(target), 1e-10);
        check_agrees(run(*p, 1000, 200, 4), log_z, "MAS BRBM");
        check_agrees(run(*p, 1000, 50, 5, true), log_z, "MAS BRBM perfect");
    }
}

TEST_CASE("Theorem 2: MAS and the geometric path share the cost functional, and K delta -> F for both") {
    const Brbm r = test::random_brbm(31, 6, 3, 1.5);
    const Model target{r, {}, {}, {}, {}}, base = brbm_base(r);
    const PathPtr mas = make_mas_path(target, base, {});
    const PathPtr geo = make_brbm_geometric_path(r, std::get<Brbm>(base.params).b, "base rate");
    double log_z1 = 0;
    brbm_stats(r, &log_z1);
    // F = (eta_1 - eta_0)'(s_1 - s_0)/2 from this file's own moments; eta as in docs/methods/annealing-paths.md#mas.
    const Brbm& b0 = std::get<Brbm>(base.params);
    Vec eta0(6 + 3 + 18), eta1(6 + 3 + 18);
    eta0 << b0.b, b0.c, Eigen::Map<const Vec>(b0.W.data(), 18);
    eta1 << r.b, r.c, Eigen::Map<const Vec>(r.W.data(), 18);
    const double F = 0.5 * (eta1 - eta0).dot(brbm_stats(r) - brbm_stats(b0));
    CHECK_CLOSE(mas->cost_functional(), F, 1e-10);
    CHECK_CLOSE(geo->cost_functional(), F, 1e-10);
    const Index K = 2000;
    // The geometric path is eta linear from eta0 to eta1 (geo->knots() may order eta differently).
    const std::vector<AnnealingPath::Knot> line{{0.0, eta0, {}}, {1.0, eta1, {}}};
    const double kd_mas = joint_k_delta(mas->knots(), 6, 3, K), kd_geo = joint_k_delta(line, 6, 3, K);
    std::printf(
        "  F = %.5f; joint K delta at K = %ld: MAS %.5f, geometric %.5f; v-marginal AIS K delta: MAS %.5f, "
        "geometric %.5f\n",
        F, static_cast<long>(K), kd_mas, kd_geo, marginal_k_delta(*mas, 6, K, log_z1),
        marginal_k_delta(*geo, 6, K, log_z1));
    CHECK_CLOSE(kd_mas, F, 0.01);
    CHECK_CLOSE(kd_geo, F, 0.01);
    // Not a tautology: a spline whose knots miss the averaged moments has another cost.
    auto bent = mas->knots();
    bent[5].eta = 0.5 * (bent[4].eta + bent[6].eta) + 0.3 * (bent[6].eta - bent[4].eta).cwiseAbs();
    CHECK(std::fabs(joint_k_delta(bent, 6, 3, K) - F) > 0.05 * F);
}

TEST_CASE("MAS perfect transitions draw from p_beta exactly (BRBM, enumerated)") {
    const Brbm r = test::random_brbm(41, 4, 3, 1.5);
    const Model target{r, {}, {}, {}, {}}, base = brbm_base(r);
    const PathPtr p = make_mas_path(target, base, {});
    CHECK(p->can_sample_exactly());
    const auto vs = configurations({0, 1}, 4);
    RowMat all(16, 4);
    for (Index k = 0; k < 16; ++k) all.row(k) = vs[static_cast<std::size_t>(k)].transpose();
    for (double beta : {0.0, 0.25, 0.55, 1.0}) {
        Vec lf(16);
        p->log_f(beta, all, 0, 16, lf);
        const Vec prob = (lf.array() - log_sum_exp(lf)).exp().matrix();
        const Index N = 40000;
        RowMat X(N, 4);
        ChainRngs rngs(7, N);
        for_each_block(N, [&](Index b, Index e) { p->sample_exact(beta, X, b, e, rngs); });
        Vec count = Vec::Zero(16);
        for (Index i = 0; i < N; ++i) {
            Index idx = 0;
            for (Index j = 3; j >= 0; --j) idx = 2 * idx + static_cast<Index>(X(i, j));
            count(idx) += 1;
        }
        for (Index k = 0; k < 16; ++k) {
            const double se = std::sqrt(prob(k) * (1 - prob(k)) / N);
            CHECK_MSG(std::fabs(count(k) / N - prob(k)) <= 5 * se + 1e-4,
                      "beta " << beta << " state " << k << ": " << count(k) / N << " vs " << prob(k));
        }
    }
}

TEST_CASE("MAS falls back to PCD when the hidden layer is too large to enumerate, and stays unbiased") {
    // 2^17 hidden configurations: beyond MAS's enumeration limit, within exact_log_z's.
    const Grbm g = test::random_grbm(51, 4, 17, {0, 1}, 0.25);
    const Model target{g, {}, {}, {}, {}}, base = grbm_base(g);
    MasOptions o;
    o.knots = {0.25, 0.5, 0.75};
    o.max_iterations = 150;
    o.pcd_chains = 400;
    o.pcd_steps = 3;
    const PathPtr p1 = test::at_threads(1, [&] { return make_mas_path(target, base, o); });
    const PathPtr p2 = test::at_threads(2, [&] { return make_mas_path(target, base, o); });
    CHECK(p1->notes().find("PCD") != std::string::npos);
    CHECK(!p1->can_sample_exactly());
    // Same seed, same fit whatever the thread count.
    for (std::size_t r = 0; r < p1->knots().size(); ++r) CHECK(p1->knots()[r].eta == p2->knots()[r].eta);
    // The stochastic fit lands near the averaged moments: the target moments it used are within
    // a few hundredths of the exact ones, and so are the knots' exact moments of their targets.
    const Vec s_b = grbm_stats(g);
    const auto knots = p1->knots();
    const double target_err = (knots.back().s - s_b).cwiseAbs().maxCoeff();
    CHECK_MSG(target_err < 0.05, "PCD target moments off by " << target_err);
    for (std::size_t r = 1; r + 1 < knots.size(); ++r) {
        const double err = (grbm_stats(grbm_from_eta(g, knots[r].eta)) - knots[r].s).cwiseAbs().maxCoeff();
        std::printf("  PCD knot %.2f: max |E_eta[g] - s| = %.4f (target moments off by %.4f)\n", knots[r].beta, err,
                    target_err);
        CHECK_MSG(err < 0.05, "PCD knot " << knots[r].beta << ": |E_eta[g] - s| = " << err);
    }
    check_agrees(run(*p1, 1000, 200, 6), exact_log_z(target), "MAS GRBM with PCD knots");
}

TEST_CASE("MAS AIS weights are bitwise identical on 1 and 2 threads") {
    const Brbm r = test::random_brbm(61, 10, 4, 1.0);
    const PathPtr p = make_mas_path(Model{r, {}, {}, {}, {}}, brbm_base(r), {});
    const AisResult a = test::at_threads(1, [&] { return run(*p, 300, 30, 9); });
    const AisResult b = test::at_threads(2, [&] { return run(*p, 300, 30, 9); });
    CHECK(a.log_weights == b.log_weights);
}

TEST_CASE("MAS refuses bad knots and mismatched models") {
    const Brbm r = test::random_brbm(71, 4, 2, 1.0);
    const Model target{r, {}, {}, {}, {}}, base = brbm_base(r);
    auto with_knots = [&](std::vector<double> k) {
        MasOptions o;
        o.knots = std::move(k);
        return make_mas_path(target, base, o);
    };
    CHECK_THROWS_WITH(with_knots({0.5, 0.3}), InputError, "strictly increasing");
    CHECK_THROWS_WITH(with_knots({0.2, 0.2}), InputError, "strictly increasing");
    CHECK_THROWS_WITH(with_knots({0.0, 0.5}), InputError, "strictly inside (0, 1)");
    CHECK_THROWS_WITH(with_knots({0.5, 1.0}), InputError, "strictly inside (0, 1)");
    CHECK_THROWS_WITH(with_knots({std::nan("")}), InputError, "strictly inside (0, 1)");
    const Grbm g = test::random_grbm(72, 4, 2);
    CHECK_THROWS_WITH(make_mas_path(target, grbm_base(g), {}), InputError, "same kind");
    Grbm other_sigma = std::get<Grbm>(grbm_base(g).params);
    other_sigma.sigma *= 2;
    CHECK_THROWS_WITH(make_mas_path(Model{g, {}, {}, {}, {}}, Model{other_sigma, {}, {}, {}, {}}, {}), InputError,
                      "sigma");
    CHECK_THROWS_WITH(make_mas_path(Model{test::random_brbm(73, 5, 2), {}, {}, {}, {}}, base, {}), InputError,
                      "must match");
    const Leaky l = test::random_leaky(74, 3, 2, 0.1);
    CHECK_THROWS_WITH(make_mas_path(Model{l, {}, {}, {}, {}}, Model{l, {}, {}, {}, {}}, {}), InputError,
                      "grbm or brbm");
    // An empty knot list is the geometric path itself.
    CHECK(with_knots({})->knots().size() == 2);
}

RBM_TEST_MAIN
