// log Z from parallel tempering (docs/methods/tempering.md#log-z): BAR and stepping stone on
// i.i.d. draws with a known ratio, then from PT runs against exact enumeration -- two Gaussians,
// a random BRBM, a GRBM with three hidden values, a leaky RBM, and a BRBM trained on the 8x8 digits
// with well-separated modes -- with batch-means errors small enough that a missing ratio is caught;
// a thinned trace; thread-count independence; the exact pseudo-likelihood against brute force
// (training/heldout.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "check.hpp"
#include "core/exact/exact.hpp"
#include "core/io/model_io.hpp"
#include "core/numerics/parallel.hpp"
#include "core/tempering/logz.hpp"
#include "core/tempering/pt.hpp"
#include "core/training/heldout.hpp"
#include "test_random_models.hpp"

using namespace rbm;

namespace {

PtOptions logz_options(std::vector<double> betas, Index chains, Index scans, std::uint64_t seed) {
    PtOptions o;
    o.scheme = PtScheme::Deo;
    o.betas = std::move(betas);
    o.chains = chains;
    o.scans = scans;
    o.seed = seed;
    o.sample_chains = 0;
    o.history_chains = 0;
    o.window = 0;
    o.log_z = true;
    return o;
}

// Both estimators within k standard errors of the truth, the errors small enough to catch an error
// of `power` nats, and the sum without pair 0's ratio outside k standard errors (a missing ratio
// would be caught).
void check_against(const PtLogZ& z, double exact, double k, double power, const char* what,
                   bool missing_ratio_caught = true) {
    for (const LogZEstimate* e : {&z.stepping_stone, &z.bar}) {
        const char* name = e == &z.bar ? "BAR" : "stepping stone";
        std::printf("  %s %s: %.4f +- %.4f (exact %.4f, %.1f se)\n", what, name, e->log_z, e->se, exact,
                    (e->log_z - exact) / e->se);
        CHECK_MSG(std::fabs(e->log_z - exact) < k * e->se, what << ' ' << name << ' ' << e->log_z << " vs " << exact);
        CHECK_MSG(k * e->se < power, what << ' ' << name << " se " << e->se);
        CHECK_MSG(e->se > 0, what);
        const double without_first = e->log_z - e->log_ratio.front();
        if (missing_ratio_caught)
            CHECK_MSG(std::fabs(without_first - exact) > k * e->se, what << " a missing ratio goes unnoticed");
    }
}

}  // namespace

TEST_CASE("BAR and stepping stone recover a known ratio from i.i.d. draws") {
    // q0(x) = exp(-x^2/2), q1(x) = exp(-(x - 0.7)^2 / (2 * 1.3^2)): log Z1/Z0 = log 1.3.
    const double mu = 0.7, s = 1.3, truth = std::log(s);
    auto l = [&](double x) { return -(x - mu) * (x - mu) / (2 * s * s) + 0.5 * x * x; };
    std::mt19937_64 g(11);
    std::normal_distribution<double> N(0, 1);
    const int n = 40000;
    std::vector<double> lo(n), up(n), neg_lo(n), neg_up(n);
    for (int i = 0; i < n; ++i) {
        lo[i] = l(N(g));
        up[i] = l(mu + s * N(g));
    }
    const double bar = bar_log_ratio(lo, up), ss = stepping_stone_log_ratio(lo);
    std::printf("  BAR %.5f, stepping stone %.5f, truth %.5f\n", bar, ss, truth);
    CHECK_NEAR(bar, truth, 0.01);
    CHECK_NEAR(ss, truth, 0.02);
    // Swapping the rungs negates BAR exactly (the equation is symmetric).
    for (int i = 0; i < n; ++i) neg_lo[i] = -up[i], neg_up[i] = -lo[i];
    CHECK_NEAR(bar_log_ratio(neg_lo, neg_up), -bar, 1e-10);
    // A shift of l by a constant shifts both by that constant.
    for (int i = 0; i < n; ++i) lo[i] += 2.5, up[i] += 2.5;
    CHECK_NEAR(bar_log_ratio(lo, up), bar + 2.5, 1e-10);
    CHECK_NEAR(stepping_stone_log_ratio(lo), ss + 2.5, 1e-10);
}

TEST_CASE("batch-means errors: the spread of independent runs matches the reported se") {
    // Two Gaussians, exact draws at every rung: log Z = 0. 60 independent runs; the standard
    // deviation of their estimates over the mean reported se is near 1 (its sampling spread is about
    // 1/sqrt(2 x 59) = 0.09, so 0.7 .. 1.3 is over 3 of those; 300 runs gave 1.02 (SS) and 1.01
    // (BAR)). An se from the scans alone, ignoring chains, or a wrong linearization would miss.
    Model m;
    Vec mu1(2);
    mu1 << 3, -2;
    Mat c1(2, 2);
    c1 << 0.5, 0.3, 0.3, 0.8;
    m.params = Gaussian{mu1, c1};
    auto from = std::make_shared<Model>();
    from->params = Gaussian{Vec::Zero(2), Mat::Identity(2, 2)};
    m.anneal_from = from;
    for (bool use_bar : {false, true}) {
        double sum = 0, sum2 = 0, se = 0;
        const int runs = 60;
        for (int r = 0; r < runs; ++r) {
            const PtResult res = run_pt(m, logz_options(linear_ladder(6), 2, 400, 100 + r));
            CHECK(res.log_z.has_value());
            if (!res.log_z) return;
            const LogZEstimate& e = use_bar ? res.log_z->bar : res.log_z->stepping_stone;
            sum += e.log_z;
            sum2 += e.log_z * e.log_z;
            se += e.se / runs;
        }
        const double mean = sum / runs, sd = std::sqrt((sum2 - runs * mean * mean) / (runs - 1));
        std::printf("  %s: mean %.4f, sd of runs %.4f, mean se %.4f\n", use_bar ? "BAR" : "SS", mean, sd, se);
        CHECK(sd / se > 0.7 && sd / se < 1.3);
        CHECK(std::fabs(mean) < 4 * sd / std::sqrt(runs));
    }
}

TEST_CASE("log Z from PT on a random BRBM and with reference draws below a geometric ladder") {
    Model m;
    m.params = test::random_brbm(7, 10, 6, 1.0);
    const double exact = exact_log_z(m);
    const PtResult lin = run_pt(m, logz_options(linear_ladder(8), 8, 3000, 3));
    CHECK(lin.log_z.has_value());
    if (lin.log_z) {
        CHECK(lin.log_z->betas.size() == 8);  // the ladder starts at 0: no extra rung
        check_against(*lin.log_z, exact, 4.0, 0.1, "linear");
    }
    // beta_0 = 0.7^6 > 0: rung 0 comes from exact reference draws.
    const PtResult geo = run_pt(m, logz_options(geometric_ladder(7), 8, 3000, 4));
    CHECK(geo.log_z.has_value());
    if (geo.log_z) {
        CHECK(geo.log_z->betas.size() == 8 && geo.log_z->betas[0] == 0.0);
        check_against(*geo.log_z, exact, 4.0, 0.1, "geometric");
    }
}

TEST_CASE("log Z from PT on a trained multimodal BRBM (digits, 64 x 16) within its errors") {
    // tests/data/models/digits-brbm16.json (how it was made: tests/data/models/README.md): PCD on
    // the binarized 8x8 digits; its digit classes are well-separated modes.
    const Model m = load_model(RBMSCOPE_TEST_DATA "/models/digits-brbm16.json");
    const double exact = exact_log_z(m);
    // float32: the sweeps' products and draws in single precision (its hidden draws in float,
    // kernels/brbm_block.hpp), the rows at beta = 0 without hidden sums.
    for (bool f32 : {false, true}) {
        PtOptions o = logz_options(linear_ladder(16), 8, 4000, 5);
        o.adaptive_rounds = 3;
        o.reference.brbm_float32 = f32;
        const PtResult r = run_pt(m, o);
        CHECK(r.log_z.has_value());
        if (!r.log_z) return;
        const std::vector<double> acc = r.stats.acceptance();
        std::printf("  %s: round trips %lld, min acceptance %.3f\n", f32 ? "float32" : "float64",
                    static_cast<long long>(r.stats.total_round_trips()), *std::min_element(acc.begin(), acc.end()));
        check_against(*r.log_z, exact, 4.0, 0.25, f32 ? "digits float32" : "digits");
    }
}

TEST_CASE("log Z from PT: the reference constants of the GRBM (three hidden values) and leaky families") {
    // A wrong log Z_ref (|X| = 2 assumed for three hidden values, the leaky |b|^2/2 left out) shifts
    // the estimate by m log 1.5 = 1.2 or |b|^2/2 (= 0.16 here), far outside 4 se.
    Model g;
    g.params = test::random_grbm(21, 3, 3, {-1.0, 0.0, 1.0}, 0.6);
    PtOptions o = logz_options(linear_ladder(10), 8, 2000, 6);
    const PtResult rg = run_pt(g, o);
    CHECK(rg.log_z.has_value());
    if (rg.log_z) check_against(*rg.log_z, exact_log_z(g), 4.0, 0.1, "GRBM X = {-1,0,1}");
    Model l;
    l.params = test::random_leaky(22, 3, 2, 1.0, 0.8);
    std::printf("  leaky |b|^2/2 = %.3f\n", 0.5 * l.as<Leaky>()->b.squaredNorm());
    const PtResult rl = run_pt(l, logz_options(geometric_ladder(6), 8, 2000, 7));
    CHECK(rl.log_z.has_value());
    if (rl.log_z) check_against(*rl.log_z, exact_log_z(l), 4.0, 0.1, "leaky at leakiness 1");
}

TEST_CASE("log Z from PT: a memory cap keeps every s-th scan, and the estimate stays right") {
    Model m;
    m.params = test::random_brbm(7, 10, 6, 1.0);
    PtOptions o = logz_options(linear_ladder(8), 8, 3000, 3);
    o.max_log_z_bytes = 8 * 8 * 8 * 700;  // 8 chains x 8 rungs x 8 bytes: room for 700 of 2700 scans
    const PtResult r = run_pt(m, o);
    CHECK(r.log_z_stride == 4 && r.log_z_burn_in == 300);
    CHECK(r.log_z.has_value());
    if (!r.log_z) return;
    CHECK(r.log_z->scans_used == 660);  // 675 kept, 20 batches of 33
    check_against(*r.log_z, exact_log_z(m), 4.0, 0.15, "every 4th scan", false);
}

TEST_CASE("log Z from PT: same seed, same bits at any thread count") {
    Model m;
    m.params = test::random_brbm(8, 12, 5, 1.0);
    // float64 on a geometric ladder; float32 (its own hidden draws) on a linear one from beta = 0.
    for (bool f32 : {false, true}) {
        PtOptions o = logz_options(f32 ? linear_ladder(6) : geometric_ladder(6), 64, 300, 9);
        o.reference.brbm_float32 = f32;
        PtLogZ z1, z2;
        {
            ThreadLimit one(1);
            z1 = *run_pt(m, o).log_z;
        }
        {
            ThreadLimit two(2);
            z2 = *run_pt(m, o).log_z;
        }
        CHECK_MSG(z1.bar.log_z == z2.bar.log_z && z1.bar.se == z2.bar.se, (f32 ? "float32" : "float64"));
        CHECK_MSG(z1.stepping_stone.log_z == z2.stepping_stone.log_z && z1.stepping_stone.se == z2.stepping_stone.se,
                  (f32 ? "float32" : "float64"));
    }
}

TEST_CASE("log Z trace: bad input is refused") {
    PotentialTrace t;
    t.betas = {0.1, 1.0};
    t.chains = 1;
    CHECK_THROWS_WITH(estimate_pt_log_z(t, 0.0), InputError, "beta = 0");
    t.betas = {0.0, 1.0};
    const double row[2] = {0.0, 1.0};
    t.push_scan(row);
    CHECK_THROWS_WITH(estimate_pt_log_z(t, 0.0), InputError, "at least 2 batches");
    PtOptions o = logz_options(linear_ladder(3), 1, 10, 1);
    o.log_z_burn_in = 1.0;
    CHECK_THROWS_WITH(validate(o), InputError, "burn-in");
}

TEST_CASE("exact pseudo-log-likelihood equals the brute-force conditionals") {
    const Brbm b = test::random_brbm(3, 7, 4, 1.2);
    Model m;
    m.params = b;
    std::mt19937_64 g(5);
    RowMat V(9, 7);
    for (Index r = 0; r < V.rows(); ++r)
        for (Index i = 0; i < V.cols(); ++i) V(r, i) = (g() >> 11) % 2 ? 1.0 : 0.0;
    const Vec pll = brbm_pseudo_log_likelihood(b, V);
    const Vec lp = log_unnorm_rows(m, V);
    for (Index r = 0; r < V.rows(); ++r) {
        CHECK_NEAR(lp(r), m.log_unnorm(V.row(r))(0), 1e-12);
        double brute = 0;
        for (Index i = 0; i < V.cols(); ++i) {
            RowMat F = V.row(r);
            F(0, i) = 1.0 - F(0, i);
            const double a = m.log_unnorm(V.row(r))(0), f = m.log_unnorm(F)(0);
            brute += a - std::log(std::exp(a) + std::exp(f));
        }
        CHECK_NEAR(pll(r), brute, 1e-10);
    }
    RowMat bad = V;
    bad(2, 3) = 0.5;
    CHECK_THROWS_WITH(brbm_pseudo_log_likelihood(b, bad), InputError, "0/1");
}

RBM_TEST_MAIN
