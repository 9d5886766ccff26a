// Geometric AIS paths (docs/methods/annealing-paths.md#geometric-grbm, annealing-paths.md#moment-averaging) against
// exact answers: log Z of small GRBMs ({0,1} and {-1,1} hidden) and BRBMs, unbiasedness of perfect transitions, the
// forward/reverse sandwich, the exact intermediate sampler against the kernel, and the two-Gaussians toy.
#include <cmath>

#include "check.hpp"
#include "core/ais/paths.hpp"
#include "core/ais/runner.hpp"
#include "core/exact/exact.hpp"
#include "core/io/presets.hpp"
#include "core/numerics/parallel.hpp"
#include "test_random_models.hpp"
#include "test_support.hpp"

using namespace rbm;

namespace {

Model wrap(auto params) { return test::as_model(std::move(params)); }

AisResult run(const PathPtr& p, const Schedule& s, Index chains, std::uint64_t seed, bool perfect = false,
              bool reverse = false) {
    AisOptions o;
    o.chains = chains;
    o.seed = seed;
    o.perfect = perfect;
    o.reverse = reverse;
    o.bootstrap_resamples = 300;
    return run_ais(*p, s, o);
}

PathPtr build(const Model& m, const std::string& path, const std::string& base) {
    PathRequest r;
    r.path = path;
    r.base = base;
    return build_path(m, r);
}

// Forward AIS estimate within max(4 bootstrap sd, floor) of the truth.
void check_estimate(const AisResult& r, double truth, double floor, const std::string& what) {
    const double tol = std::max(4 * r.estimate.bootstrap_sd, floor);
    std::printf("  %-40s log Zhat %.4f  exact %.4f  boot sd %.4f  ESS %.0f/%lld\n", what.c_str(), r.estimate.log_z,
                truth, r.estimate.bootstrap_sd, r.estimate.ess, static_cast<long long>(r.estimate.n));
    CHECK_MSG(std::fabs(r.estimate.log_z - truth) <= tol,
              what << ": " << r.estimate.log_z << " vs " << truth << " tol " << tol);
}

// Column means and variances of the rows.
void moments(const RowMat& X, Vec& mean, Vec& var) {
    mean = X.colwise().mean().transpose();
    var = ((X.rowwise() - mean.transpose()).array().square().colwise().sum() / static_cast<double>(X.rows() - 1))
              .transpose();
}

}  // namespace

TEST_CASE("GRBM geometric AIS (AIS and AISM bases) matches exact log Z, {0,1} and {-1,1} hidden") {
    struct Case {
        unsigned seed;
        std::vector<double> hidden;
    };
    for (const Case& c : {Case{6, {0, 1}}, Case{4, {-1, 1}}, Case{6, {-1, 0, 1}}}) {
        // b = 0 and c = -diag(W'W)/2 ({0,1}) or 0 (symmetric sets) balance the hidden states, so
        // the target is a genuine mixture (variances well above sigma^2) and the bases differ.
        Grbm g = test::random_grbm(c.seed, 4, 5, c.hidden, 1.0);
        g.b.setZero();
        g.c = c.hidden[0] == 0 ? Vec(-0.5 * (g.W.transpose() * g.W).diagonal()) : Vec::Zero(5);
        const Model m = wrap(g);
        const Moments mo = exact_visible_moments(m);
        CHECK((mo.cov.diagonal().array() / g.sigma.array().square()).maxCoeff() > 1.5);
        const double exact = exact_log_z(m);
        for (const char* base : {"moment", "sigma"}) {
            const AisResult r = run(build(m, "geometric", base), linear_schedule(500), 500, 7);
            check_estimate(r, exact, 0.02, std::string("grbm X=") + std::to_string(c.hidden.size()) + " " + base);
            CHECK(r.complete);
        }
    }
}

TEST_CASE("BRBM geometric AIS (uniform and base-rate) matches exact log Z") {
    for (unsigned seed : {21u, 22u}) {
        const Model m = wrap(test::random_brbm(seed, 9, 7, 1.0));
        const double exact = exact_log_z(m);
        for (const char* base : {"uniform", "moment"}) {
            const AisResult r = run(build(m, "geometric", base), linear_schedule(500), 500, 9);
            check_estimate(r, exact, 0.02, std::string("brbm ") + base);
        }
    }
    // n < m: perfect transitions enumerate the visible layer instead.
    const Model wide = wrap(test::random_brbm(23, 5, 12, 1.0));
    const AisResult r = run(build(wide, "geometric", "uniform"), linear_schedule(50), 1000, 3, true);
    check_estimate(r, exact_log_z(wide), 0.02, "brbm 5x12 perfect");
}

TEST_CASE("float32 products: same answer within Monte Carlo error, different bits") {
    const Brbm b = test::random_brbm(24, 20, 12, 0.6);
    const Grbm g = test::random_grbm(25, 6, 8);
    const double exb = exact_log_z(wrap(b)), exg = exact_log_z(wrap(g));
    const Vec a = Vec::Zero(20);
    const AisResult b64 = run(make_brbm_geometric_path(b, a, "uniform"), linear_schedule(300), 500, 4);
    const AisResult b32 = run(make_brbm_geometric_path(b, a, "uniform", true), linear_schedule(300), 500, 4);
    check_estimate(b32, exb, 0.02, "brbm float32");
    CHECK(b32.log_weights != b64.log_weights);
    CHECK(std::fabs(b32.estimate.log_z - b64.estimate.log_z) < 1e-3);
    const DiagGaussianBase base{g.b, g.sigma};
    const AisResult g32 = run(make_grbm_geometric_path(g, base, "sigma", true), linear_schedule(300), 500, 4);
    check_estimate(g32, exg, 0.02, "grbm float32");
    CHECK(g32.notes.find("float32") != std::string::npos);
}

TEST_CASE("advance() = log f difference + transition(), in both directions") {
    const Model g = wrap(test::random_grbm(8, 3, 4, {-1, 1}));
    const Model b = wrap(test::random_brbm(9, 5, 3));
    const Model toy = load_preset("two-gaussians");
    for (const PathPtr& p : {build(g, "geometric", "moment"), build(b, "geometric", "moment"),
                             build(toy, "geometric", "moment"), build(toy, "moments", "moment")}) {
        test::check_advance_is_increment_then_transition(*p, 40, 5, {{0.3, 0.45}, {0.7, 0.2}}, 1e-10);
    }
}

TEST_CASE("exact intermediate samples agree with the kernel and with exact target moments") {
    // At beta = 0.4 the exact sampler integrates v out analytically (B_beta, J_beta) while the
    // kernel uses the conditionals: 30 kernel sweeps from exact samples must not move the moments.
    const Model m = wrap(test::random_grbm(12, 3, 4, {-1, 1}, 1.0));
    const PathPtr p = build(m, "geometric", "sigma");
    const Index n = 20000;
    ChainRngs rngs(3, n);
    RowMat X(n, 3);
    p->sample_exact(0.4, X, 0, n, rngs);
    Vec m0, v0, m1, v1;
    moments(X, m0, v0);
    for (int t = 0; t < 30; ++t) p->transition(0.4, X, 0, n, rngs);
    moments(X, m1, v1);
    for (Index i = 0; i < 3; ++i) {
        const double se = std::sqrt(2 * v0(i) / n);
        CHECK_MSG(std::fabs(m0(i) - m1(i)) <= 5 * se, "mean " << i << ": " << m0(i) << " vs " << m1(i));
        CHECK_MSG(std::fabs(v0(i) - v1(i)) <= 5 * v0(i) * std::sqrt(4.0 / n),
                  "var " << i << ": " << v0(i) << " vs " << v1(i));
    }
    // At beta = 1 the exact sampler's moments match exact enumeration (independent code).
    p->sample_exact(1.0, X, 0, n, rngs);
    moments(X, m1, v1);
    const Moments ex = exact_visible_moments(m);
    for (Index i = 0; i < 3; ++i) {
        CHECK_MSG(std::fabs(m1(i) - ex.mean(i)) <= 5 * std::sqrt(ex.cov(i, i) / n), "target mean " << i);
        CHECK_MSG(std::fabs(v1(i) - ex.cov(i, i)) <= 5 * ex.cov(i, i) * std::sqrt(2.0 / n), "target var " << i);
    }
    // knots(): exact moments at beta = 1 are the target's.
    const auto knots = p->knots();
    CHECK(knots.size() == 10 && knots.front().beta == 0.0 && knots.back().beta == 1.0);
    for (Index i = 0; i < 3; ++i) {
        CHECK_NEAR(knots.back().s(3 + i), ex.mean(i), 1e-9);
        CHECK_NEAR(knots.back().s(i), ex.cov(i, i) + ex.mean(i) * ex.mean(i), 1e-9);
    }
    // Same check for a BRBM (both layers enumerated in turn): E[v] at beta = 1.
    const Model b = wrap(test::random_brbm(13, 6, 4, 1.2));
    const auto bk = build(b, "geometric", "uniform")->knots();
    const Moments bex = exact_visible_moments(b);
    for (Index i = 0; i < 6; ++i) CHECK_NEAR(bk.back().s(6 * 4 + i), bex.mean(i), 1e-9);
}

TEST_CASE("perfect transitions are unbiased for Z; forward below and reverse above log Z") {
    // Each chain's weight is an independent unbiased estimate of Z/Z0, so 20000 chains are
    // 20000 repeats with N = 1: mean of exp(l_i + log Z0 - log Z) must be 1 within its standard
    // error, while the mean log weight is visibly below log Z - log Z0 at K = 5 (so the check
    // has power: a sampler for the wrong beta, or the increment taken after the draw, fails it).
    const Model m = wrap(test::random_brbm(31, 12, 10, 1.0));
    const double exact = exact_log_z(m);
    const PathPtr p = build(m, "geometric", "uniform");
    const AisResult r = run(p, linear_schedule(5), 20000, 17, true);
    const Vec ratio = (r.log_weights.array() + r.log_z0 - exact).exp().matrix();
    const double mean = ratio.mean();
    const double se = std::sqrt((ratio.array() - mean).square().sum() / (ratio.size() - 1) / ratio.size());
    const double log_bias = r.estimate.log_w_mean + r.log_z0 - exact;
    std::printf("  perfect K=5: mean Zhat/Z = %.4f +- %.4f, mean log w - log(Z/Z0) = %.3f, ESS %.0f\n", mean, se,
                log_bias, r.estimate.ess);
    CHECK(std::fabs(mean - 1) <= 4 * se);
    CHECK(se < 0.05);
    CHECK(log_bias < -0.3);

    // Sandwich at small K with the Gibbs kernel: few chains and K = 2 on a strongly coupled
    // BRBM make log Zhat heavy-tailed, so the Jensen gaps dominate the spread.
    const Model hard = wrap(test::random_brbm(31, 12, 10, 2.0));
    const double hard_exact = exact_log_z(hard);
    const PathPtr hp = build(hard, "geometric", "uniform");
    int below = 0, above = 0;
    const int repeats = 50;
    for (int rep = 0; rep < repeats; ++rep) {
        const AisResult h = run(hp, linear_schedule(2), 4, 500 + rep, false, true);
        below += h.estimate.log_z < hard_exact;
        above += h.reverse && h.reverse->log_z_upper && *h.reverse->log_z_upper > hard_exact;
    }
    std::printf("  sandwich K=2, 4 chains: forward below %d/%d, reverse above %d/%d\n", below, repeats, above, repeats);
    CHECK(below >= 40 && above >= 40);
}

TEST_CASE("two Gaussians (Grosse et al. 5.1): MA lands near log Z = 0, GA far below, same cost") {
    const Model toy = load_preset("two-gaussians");
    const PathPtr ga = build(toy, "geometric", "moment"), ma = build(toy, "moments", "moment");
    const AisResult g = run(ga, linear_schedule(25), 5000, 1, true), a = run(ma, linear_schedule(25), 5000, 1, true);
    std::printf("  K=25 perfect: GA log Zhat %.2f (mean log w %.2f, ESS %.1f), MA %.2f (mean log w %.2f, ESS %.1f)\n",
                g.estimate.log_z, g.estimate.log_w_mean, g.estimate.ess, a.estimate.log_z, a.estimate.log_w_mean,
                a.estimate.ess);
    std::printf("  cost functional GA %.3f MA %.3f\n", ga->cost_functional(), ma->cost_functional());
    CHECK(std::fabs(a.estimate.log_z) < 2.0);
    CHECK(g.estimate.log_z < -5.0);
    CHECK_NEAR(g.estimate.log_w_mean, -29, 3);
    CHECK_NEAR(a.estimate.log_w_mean, -29, 3);
    CHECK_CLOSE(ga->cost_functional(), ma->cost_functional(), 1e-9);
    // Theorem 1: K * (bias of the mean log weight) -> F; at K = 200 within a few percent.
    const AisResult g200 = run(ga, linear_schedule(200), 2000, 2, true);
    std::printf("  K=200: -K mean log w = %.1f vs F = %.1f\n", -200 * g200.estimate.log_w_mean, ga->cost_functional());
    CHECK_CLOSE(-200 * g200.estimate.log_w_mean, ga->cost_functional(), 0.05);
    // With the coordinate-Gibbs kernel and many steps both paths get there.
    const AisResult gg = run(ga, linear_schedule(1000), 1000, 3), mg = run(ma, linear_schedule(1000), 1000, 3);
    std::printf("  K=1000 Gibbs: GA %.3f (boot sd %.3f), MA %.3f (boot sd %.3f)\n", gg.estimate.log_z,
                gg.estimate.bootstrap_sd, mg.estimate.log_z, mg.estimate.bootstrap_sd);
    CHECK(std::fabs(gg.estimate.log_z) < std::max(0.5, 4 * gg.estimate.bootstrap_sd));
    CHECK(std::fabs(mg.estimate.log_z) < std::max(0.5, 4 * mg.estimate.bootstrap_sd));
}

TEST_CASE("binned schedule on the Gaussian MA path puts more steps where the path moves fast") {
    const Model toy = load_preset("two-gaussians");
    const PathPtr ma = build(toy, "moments", "moment");
    ScheduleRequest req;
    req.kind = "binned";
    req.steps = 25;
    const Schedule s = make_schedule(req, ma.get());
    validate_schedule(s);
    CHECK(s.size() == 26);
    const AisResult lin = run(ma, linear_schedule(25), 5000, 4, true), bin = run(ma, s, 5000, 4, true);
    std::printf("  MA K=25 perfect: linear mean log w %.2f, binned %.2f\n", lin.estimate.log_w_mean,
                bin.estimate.log_w_mean);
    CHECK(bin.estimate.log_w_mean > lin.estimate.log_w_mean);  // Theorem 3: smaller cost
}

TEST_CASE("target moments: Gibbs chains and data agree with exact; build_path refusals") {
    const Model m = wrap(test::random_grbm(51, 3, 4, {0, 1}, 1.0));
    const Moments ex = exact_visible_moments(m);
    MomentSource src;
    src.kind = MomentSource::Kind::Gibbs;
    src.gibbs_chains = 50;
    src.gibbs_steps = 2000;
    const VisibleMoments gm = target_moments(m, src);
    CHECK(gm.source == "Gibbs chains (50 x 2000, burn-in 100)");
    for (Index i = 0; i < 3; ++i) {
        // 100000 correlated draws; a generous 0.05 sd still catches a wrong stationary law.
        CHECK_NEAR(gm.mean(i), ex.mean(i), 0.05 * std::sqrt(ex.cov(i, i)));
        CHECK_NEAR(gm.cov(i, i), ex.cov(i, i), 0.05 * ex.cov(i, i));
    }
    CHECK(target_moments(m, MomentSource{}).source == "exact enumeration");
    src.kind = MomentSource::Kind::Data;
    src.data = RowMat(4, 3);
    src.data << 1, 2, 3, 3, 2, 1, 1, 2, 3, 3, 2, 1;
    const VisibleMoments dm = target_moments(m, src);
    CHECK(dm.source == "data (4 rows)");
    CHECK_NEAR(dm.mean(0), 2.0, 1e-12);
    CHECK_NEAR(dm.cov(0, 0), 1.0, 1e-12);  // divisor N
    CHECK_NEAR(dm.cov(0, 2), -1.0, 1e-12);
    CHECK_NEAR(dm.cov(1, 1), 0.0, 1e-12);
    // A constant data column would give a zero base variance: floored and said so.
    PathRequest dr;
    dr.base = "data";
    dr.moments = src;
    CHECK(build_path(m, dr)->notes().find("floored") != std::string::npos);

    PathRequest r;
    const Model b = wrap(test::random_brbm(52, 4, 3));
    Model nonzero = b;
    r.from = nonzero;
    CHECK_THROWS_WITH(build_path(b, r), InputError, "must be a BRBM with all weights and hidden biases zero");
    r.path = "moments";
    r.from = wrap(test::random_grbm(53, 4, 3));
    CHECK_THROWS_WITH(build_path(b, r), InputError, "anneals within one model family");
    r = PathRequest{};
    r.base = "sigma";
    CHECK_THROWS_WITH(build_path(b, r), InputError, "--base sigma is for GRBMs");
    r.base = "wobbly";
    CHECK_THROWS_WITH(build_path(b, r), InputError, "unknown base 'wobbly'");
    Model lone = load_preset("two-gaussians");
    lone.anneal_from.reset();
    CHECK_THROWS_WITH(build_path(lone, PathRequest{}), InputError, "needs a start distribution");
    r = PathRequest{};
    r.path = "energy";
    CHECK_THROWS_WITH(build_path(m, r), InputError, "needs a leaky RBM target, but the model is a grbm");
}

RBM_TEST_MAIN

TEST_CASE("Gibbs target moments: on_sweep counts every sweep, cancel stops within a sweep, numbers unchanged") {
    const Model m = wrap(test::random_brbm(53, 6, 4));
    MomentSource src;
    src.kind = MomentSource::Kind::Gibbs;
    src.gibbs_chains = 7;
    src.gibbs_steps = 40;
    src.gibbs_burn_in = 5;
    const VisibleMoments plain = target_moments(m, src);

    std::vector<Index> seen;
    src.on_sweep = [&](Index done, Index total) {
        CHECK(total == 45);
        seen.push_back(done);
    };
    const VisibleMoments watched = target_moments(m, src);
    CHECK(seen.size() == 45 && seen.front() == 1 && seen.back() == 45);
    CHECK(watched.mean == plain.mean && watched.cov == plain.cov);  // bitwise: the hook draws nothing

    // Raised after sweep 12 (from the callback, as a signal handler would between two sweeps):
    // the next check throws, so no 13th sweep is reported.
    std::atomic<bool> cancel{false};
    seen.clear();
    src.cancel = &cancel;
    src.on_sweep = [&](Index done, Index) {
        seen.push_back(done);
        if (done == 12) cancel = true;
    };
    CHECK_THROWS_WITH(target_moments(m, src), Cancelled, "cancelled");
    CHECK(seen.size() == 12);
    // Through build_path too (the moment-matched base of a BRBM is the GUI's and the CLI's way in).
    PathRequest r;
    r.moments = src;
    r.moments.on_sweep = {};
    CHECK_THROWS_WITH(build_path(m, r), Cancelled, "cancelled");
}

TEST_CASE("PartialSweep: a sweep cut at block boundaries gives every row bitwise what the whole sweep gives it") {
    Gaussian gauss;
    gauss.mean = Vec::LinSpaced(5, -1, 1);
    gauss.cov = Mat::Identity(5, 5) * 0.5;
    gauss.cov(0, 1) = gauss.cov(1, 0) = 0.2;
    const std::vector<Model> models{wrap(test::random_brbm(61, 7, 5)), wrap(test::random_grbm(62, 6, 4)),
                                    wrap(test::random_leaky(63, 5, 3, 0.3)), wrap(gauss)};
    const Index chains = 300;  // blocks of 64: the cuts below at 128 and 192 are block boundaries
    for (const Model& m : models) {
        ChainRngs whole_rngs(9, chains, StreamPurpose::Moments), piece_rngs(9, chains, StreamPurpose::Moments);
        RowMat whole = initial_states(m, chains, whole_rngs);
        (void)initial_states(m, chains, piece_rngs);
        RowMat pieces = whole;
        const PartialSweep sweeper(m);
        for (int t = 0; t < 3; ++t) {
            // The whole sweep: gibbs_sweep, or for a BRBM the fused kernel PartialSweep runs on
            // (kernels/gibbs.hpp), over every row at once.
            if (m.kind() == ModelKind::Brbm) sweeper.sweep_rows(whole, 0, chains, whole_rngs);
            else gibbs_sweep(m, whole, whole_rngs);
            sweeper.sweep_rows(pieces, 0, 128, piece_rngs);
            sweeper.sweep_rows(pieces, 128, 192, piece_rngs);
            sweeper.sweep_rows(pieces, 192, chains, piece_rngs);
        }
        CHECK_MSG(whole == pieces, kind_name(m.kind()));
        CHECK_THROWS_WITH(sweeper.sweep_rows(pieces, 100, 200, piece_rngs), std::logic_error, "block boundary");
    }
}

TEST_CASE("Gibbs target moments of many chains on a wide model: progress and a cancel inside a sweep") {
    // 2 x 65 x 4097 multiply-adds a chain: a piece is 7 blocks of 64 chains (one block per worker
    // thread when there are more than 7), so 1000 chains take 3 pieces a sweep.
    const ThreadLimit two(2);
    const Model m = wrap(test::random_brbm(64, 64, 4096, 0.05));
    MomentSource src;
    src.kind = MomentSource::Kind::Gibbs;
    src.gibbs_chains = 1000;
    src.gibbs_steps = 2;
    src.gibbs_burn_in = 0;
    std::vector<double> partial;
    std::vector<Index> sweeps;
    src.on_partial = [&](double s, Index total) {
        CHECK_MSG(total == 2, total);
        partial.push_back(s);
    };
    src.on_sweep = [&](Index done, Index) { sweeps.push_back(done); };
    const VisibleMoments watched = target_moments(m, src);
    CHECK((sweeps == std::vector<Index>{1, 2}));
    CHECK(partial.size() == 4);
    for (std::size_t i = 0; i < partial.size(); ++i) {
        CHECK(partial[i] > (i < partial.size() / 2 ? 0.0 : 1.0));
        CHECK(partial[i] < (i < partial.size() / 2 ? 1.0 : 2.0));
        if (i > 0) CHECK(partial[i] > partial[i - 1]);
    }
    src.on_partial = {};
    src.on_sweep = {};
    const VisibleMoments plain = target_moments(m, src);
    CHECK(watched.mean == plain.mean && watched.cov == plain.cov);

    // Raised at the first piece's end: the next piece is not begun, no sweep finishes.
    std::atomic<bool> cancel{false};
    src.cancel = &cancel;
    sweeps.clear();
    int pieces = 0;
    src.on_partial = [&](double, Index) {
        ++pieces;
        cancel = true;
    };
    src.on_sweep = [&](Index done, Index) { sweeps.push_back(done); };
    CHECK_THROWS_WITH(target_moments(m, src), Cancelled, "cancelled");
    CHECK(pieces == 1 && sweeps.empty());
}
