// The sampling engine (sampling/runner.hpp) on the fused kernels: the final states of many
// independent chains reproduce the exact mean of v within their Monte Carlo error (BRBM float64
// and float32, at beta = 1 and at an intermediate beta; binary GRBM; leaky; gaussian), the BRBM
// conditional means average to the same mean, the states are bitwise the same at 1, 2 and 3
// threads and for any chain blocking of the BRBM kernel, and a cancelled run returns the states
// of the sweeps it did.
#include <cmath>
#include <cstdio>

#include "check.hpp"
#include "core/exact/exact.hpp"
#include "core/sampling/runner.hpp"
#include "test_random_models.hpp"
#include "test_support.hpp"

using namespace rbm;

namespace {

// |z| < 5 per coordinate: the chains are independent and (after the burn-in) close to exact draws,
// so the mean of N states has standard error sqrt(Var v_i / N) with the exact variance.
void check_mean(const RowMat& X, const Moments& exact, const char* what) {
    const double N = static_cast<double>(X.rows());
    double worst = 0;
    for (Index i = 0; i < X.cols(); ++i) {
        const double mean = X.col(i).mean();
        const double se = std::sqrt(exact.cov(i, i) / N);
        const double z = (mean - exact.mean(i)) / se;
        worst = std::max(worst, std::fabs(z));
        CHECK_MSG(std::fabs(z) < 5.0,
                  what << " unit " << i << ": " << mean << " vs exact " << exact.mean(i) << " (z " << z << ")");
    }
    std::printf("  %s: worst |z| %.2f over %ld units\n", what, worst, static_cast<long>(X.cols()));
}

SampleOptions options(Index chains, long long sweeps, std::uint64_t seed) {
    SampleOptions o;
    o.chains = chains;
    o.sweeps = sweeps;
    o.seed = seed;
    return o;
}

// The RBM of the BRBM tempered family at beta (reference: zero weights and biases).
Brbm scaled(Brbm m, double beta) {
    m.W *= beta;
    m.b *= beta;
    m.c *= beta;
    return m;
}

}  // namespace

TEST_CASE("BRBM: sample means against exact enumeration, float64, float32, beta < 1, conditional means") {
    const Brbm b = test::random_brbm(11, 8, 6, 1.0);
    const Model m = test::as_model(b, true);
    const Moments exact = exact_visible_moments(m);
    SampleOptions o = options(20000, 40, 5);
    o.brbm_means = true;
    const SampleResult r = run_sampling(m, o);
    CHECK(r.complete && r.sweeps_done == 40);
    check_mean(r.states, exact, "BRBM float64");
    // E[P(v = 1 | h)] = E[v]: the conditional means have at most the variance of v.
    check_mean(r.means, exact, "BRBM conditional means");
    o.brbm_means = false;
    o.float32 = true;
    check_mean(run_sampling(m, o).states, exact, "BRBM float32");
    o.float32 = false;
    o.beta = 0.4;
    const Moments exact_04 = exact_visible_moments(test::as_model(scaled(b, 0.4), true));
    check_mean(run_sampling(m, o).states, exact_04, "BRBM at beta 0.4");
    o.float32 = true;  // a float32 sweep draws its hidden units in float, at the row's beta
    check_mean(run_sampling(m, o).states, exact_04, "BRBM float32 at beta 0.4");
}

TEST_CASE("binary GRBM, leaky and gaussian: sample means against exact answers") {
    const Model g = test::as_model(test::random_grbm(3, 4, 5), true);
    check_mean(run_sampling(g, options(20000, 40, 9)).states, exact_visible_moments(g), "GRBM");
    const Model l = test::as_model(test::random_leaky(4, 2, 3, 1.0), true);
    const SampleResult rl = run_sampling(l, options(20000, 40, 9));
    check_mean(rl.states, exact_visible_moments(l), "leaky, exact-mh");
    CHECK(rl.leaky.proposed == 20000 * 40 && rl.leaky.accepted > 0);
    Gaussian gs;
    gs.mean = Vec::Zero(3);
    gs.mean << 1, -2, 0.5;
    gs.cov = Mat::Identity(3, 3);
    gs.cov(0, 1) = gs.cov(1, 0) = 0.3;
    const Model ga = test::as_model(gs, true);
    check_mean(run_sampling(ga, options(20000, 2, 9)).states, exact_visible_moments(ga), "gaussian");
}

TEST_CASE("same seed: bitwise the same states at 1, 2 and 3 threads, every kind") {
    std::vector<Model> models{test::as_model(test::random_brbm(2, 40, 30), true),
                              test::as_model(test::random_grbm(2, 20, 12), true),
                              test::as_model(test::random_grbm(2, 3, 2, {-1, 1}), true),
                              test::as_model(test::random_leaky(2, 5, 4, 0.5), true)};
    for (const Model& m : models) {
        for (bool f32 : {false, true}) {
            if (f32 && m.kind() != ModelKind::Brbm) continue;
            SampleOptions o = options(150, 7, 21);  // 3 chain blocks
            o.float32 = f32;
            o.brbm_means = m.kind() == ModelKind::Brbm;
            SampleResult r[3];
            for (int t = 1; t <= 3; ++t) r[t - 1] = test::at_threads(t, [&] { return run_sampling(m, o); });
            for (int t = 1; t < 3; ++t) {
                CHECK_MSG(r[t].states == r[0].states, kind_name(m.kind())
                                                          << " states differ at " << t + 1 << " threads");
                CHECK(r[t].means == r[0].means);
                CHECK(r[t].leaky.accepted == r[0].leaky.accepted);
            }
            ChainRngs start(21, 150, StreamPurpose::Chains);
            CHECK(r[0].states != initial_states(m, 150, start));
        }
    }
}

TEST_CASE("BRBM kernel: a chain's bits do not depend on the blocking (what PT's slot blocks rely on)") {
    const Model m = test::as_model(test::random_brbm(8, 50, 70), true);
    for (bool f32 : {false, true}) {
        SampleOptions o = options(100, 5, 3);
        o.float32 = f32;
        o.brbm_means = true;
        const SampleResult a = run_sampling(m, o);
        o.block = 7;
        const SampleResult b = run_sampling(m, o);
        CHECK(a.states == b.states);
        CHECK(a.means == b.means);
    }
}

TEST_CASE("cancel: the states after sweeps_done sweeps, complete = false") {
    const Model m = test::as_model(test::random_brbm(8, 20, 10), true);
    std::atomic<bool> cancel{false};
    SampleControl ctl;
    ctl.cancel = &cancel;
    ctl.progress_interval_s = 0;
    ctl.on_progress = [&](const SampleProgress& p) {
        if (p.sweeps_done == 6) cancel = true;
    };
    const SampleResult r = run_sampling(m, options(70, 50, 4), ctl);
    CHECK(!r.complete && r.sweeps_done == 6 && r.sweeps == 50);
    const SampleResult six = run_sampling(m, options(70, 6, 4));
    CHECK(six.complete && r.states == six.states);
    CHECK_THROWS_WITH(run_sampling(test::as_model(test::random_grbm(1, 3, 2), true),
                                   [] {
                                       SampleOptions o;
                                       o.beta = 0.5;
                                       return o;
                                   }()),
                      InputError, "reference");
}

RBM_TEST_MAIN
