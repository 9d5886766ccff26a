// Reverse AIS whose chains start from given target states (docs/methods/ais-estimates.md#reverse-start):
// parallel-tempering target-rung states and data rows, on enumerable models where log Z is exact.
#include <cmath>

#include "check.hpp"
#include "core/ais/paths.hpp"
#include "core/ais/runner.hpp"
#include "core/exact/exact.hpp"
#include "core/io/presets.hpp"
#include "core/tempering/target_states.hpp"
#include "test_random_models.hpp"
#include "test_support.hpp"

using namespace rbm;

namespace {

// Eight well-separated modes: hidden unit j switches block j (4 visible units) on; a mode change
// flips four visible units at once, which single-site Gibbs at beta = 1 practically never does.
Model blocks_model() {
    Brbm m;
    m.W = Mat::Zero(12, 3);
    for (Index i = 0; i < 12; ++i) m.W(i, i / 4) = 5.0;
    m.b = Vec::Constant(12, -2.5);
    m.c = Vec::Constant(3, -10.0);
    return test::as_model(m);
}

PathPtr uniform_path(const Model& m) {
    PathRequest r;
    r.path = "geometric";
    r.base = "uniform";
    return build_path(m, r);
}

struct Runs {
    double mean = 0, se = 0, forward_mean = 0;
};

// `runs` reverse runs, each from its own PT (or given) states; the mean of log_z_upper and its standard error.
Runs reverse_runs(const Model& model, int runs, Index chains, Index steps, bool from_pt, const RowMat* data = nullptr) {
    const PathPtr p = uniform_path(model);
    std::vector<double> up, fw;
    for (int k = 0; k < runs; ++k) {
        AisOptions o;
        o.chains = chains;
        o.seed = 1000 + static_cast<std::uint64_t>(k);
        o.reverse = true;
        o.bootstrap_resamples = 50;
        o.cost_functional = false;
        if (from_pt) {
            TargetStatesOptions t;
            t.burn_in = 300;
            t.spacing = 10;
            t.seed = 77 + static_cast<std::uint64_t>(k);
            o.reverse_states = pt_target_states(model, chains, t).V;
        } else {
            o.reverse_states = data->middleRows(k * chains, chains);
        }
        const AisResult r = run_ais(*p, linear_schedule(steps), o);
        CHECK(r.reverse && r.reverse->log_z_upper && std::isfinite(*r.reverse->log_z_upper));
        up.push_back(*r.reverse->log_z_upper);
        fw.push_back(r.estimate.log_z);
    }
    Runs out;
    for (double u : up) out.mean += u / runs;
    for (double f : fw) out.forward_mean += f / runs;
    double v = 0;
    for (double u : up) v += (u - out.mean) * (u - out.mean) / (runs - 1);
    out.se = std::sqrt(v / runs);
    return out;
}

}  // namespace

TEST_CASE("reverse AIS from PT target states lies above exact log Z on average (random, 8 modes, bars-and-stripes)") {
    struct Case {
        const char* name;
        Model model;
        Index steps;
    };
    for (const Case& c :
         {Case{"random 10x7", test::as_model(test::random_brbm(42, 10, 7)), 100}, Case{"8 blocks", blocks_model(), 100},
          Case{"bars-and-stripes", load_preset("bars-and-stripes"), 300}}) {
        const double exact = exact_log_z(c.model);
        const Runs r = reverse_runs(c.model, 8, 40, c.steps, true);
        std::printf("  %s: exact %.4f, reverse from PT %.4f (se %.4f), forward %.4f\n", c.name, exact, r.mean, r.se,
                    r.forward_mean);
        // An upper bound in expectation: the mean may fall below by its Monte Carlo error only.
        CHECK_MSG(r.mean >= exact - 3 * r.se - 1e-9, c.name << ": " << r.mean << " < " << exact << " - 3 x " << r.se);
        CHECK_MSG(r.mean - exact < 1.0, c.name);  // and close: the chains started at the target
    }
}

TEST_CASE("reverse AIS from data rows distributed as the model: above exact log Z on average") {
    const Model m = blocks_model();
    const double exact = exact_log_z(m);
    const RowMat data = exact_samples(m, 8 * 40, 11);
    const Runs r = reverse_runs(m, 8, 40, 100, false, &data);
    std::printf("  reverse from exact-sample data %.4f (se %.4f) vs exact %.4f\n", r.mean, r.se, exact);
    CHECK(r.mean >= exact - 3 * r.se - 1e-9);
    CHECK(r.mean - exact < 1.0);
}

TEST_CASE("PT target states and reverse AIS from them: the same numbers at 1 and 2 threads") {
    const Model m = load_preset("bars-and-stripes");
    TargetStatesOptions t;
    t.burn_in = 50;
    t.spacing = 5;
    t.seed = 3;
    const TargetStates a = test::at_threads(1, [&] { return pt_target_states(m, 130, t); });
    const TargetStates b = test::at_threads(2, [&] { return pt_target_states(m, 130, t); });
    CHECK(a.V == b.V);
    CHECK(a.V.rows() == 130 && a.ladders == 13);
    t.seed = 4;
    CHECK(pt_target_states(m, 130, t).V != a.V);
    const PathPtr p = uniform_path(m);
    AisOptions o;
    o.chains = 130;  // several blocks
    o.reverse = true;
    o.reverse_states = a.V;
    o.bootstrap_resamples = 50;
    const AisResult one = test::at_threads(1, [&] { return run_ais(*p, linear_schedule(30), o); });
    const AisResult two = test::at_threads(2, [&] { return run_ais(*p, linear_schedule(30), o); });
    CHECK(one.reverse->log_weights == two.reverse->log_weights);
    CHECK(*one.reverse->log_z_upper == *two.reverse->log_z_upper);
}

TEST_CASE("reverse start states: refused with the wrong shape; the exact-sample refusal names the way out") {
    const Model m = load_preset("bars-and-stripes");
    const PathPtr p = uniform_path(m);
    AisOptions o;
    o.chains = 10;
    o.reverse = true;
    o.reverse_states = RowMat::Zero(9, 16);
    CHECK_THROWS_WITH(run_ais(*p, linear_schedule(5), o), InputError, "10 x 16 finite values");
    o.reverse_states = RowMat::Zero(10, 15);
    CHECK_THROWS_WITH(run_ais(*p, linear_schedule(5), o), InputError, "10 x 16 finite values");
    // The cost functional is computed only when asked for.
    const PathPtr small = uniform_path(test::as_model(test::random_brbm(42, 10, 7)));
    o.reverse = false;
    o.reverse_states = RowMat();
    o.cost_functional = false;
    CHECK(std::isnan(run_ais(*small, linear_schedule(5), o).cost_functional));
    o.cost_functional = true;
    CHECK(std::isfinite(run_ais(*small, linear_schedule(5), o).cost_functional));
}

RBM_TEST_MAIN
