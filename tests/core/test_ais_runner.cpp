// The AIS engine: determinism across thread counts, cancel/pause/progress behaviour, running
// estimates, and refusals.
#include <chrono>
#include <cstdlib>
#include <thread>

#include "check.hpp"
#include "core/ais/paths.hpp"
#include "core/ais/runner.hpp"
#include "core/io/presets.hpp"
#include "core/numerics/parallel.hpp"
#include "test_random_models.hpp"
#include "test_support.hpp"

using namespace rbm;
using Clock = std::chrono::steady_clock;

namespace {

Model wrap(auto params) { return test::as_model(std::move(params)); }
PathPtr build(const Model& m, const std::string& path, const std::string& base) {
    PathRequest r;
    r.path = path;
    r.base = base;
    return build_path(m, r);
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace

TEST_CASE("same seed -> bitwise identical log weights at 1 and 2 threads (forward, reverse, perfect)") {
    const Model g = wrap(test::random_grbm(41, 5, 6, {-1, 1}));
    const Model b = wrap(test::random_brbm(42, 10, 7));
    const Model toy = load_preset("two-gaussians");
    const Brbm bf = test::random_brbm(47, 10, 7);
    for (const PathPtr& p :
         {build(g, "geometric", "moment"), build(b, "geometric", "uniform"), build(toy, "moments", "moment"),
          make_brbm_geometric_path(bf, Vec::Zero(10), "f32", true)}) {
        for (bool perfect : {false, true}) {
            AisOptions o;
            o.chains = 300;  // several blocks
            o.seed = 99;
            o.perfect = perfect;
            o.reverse = true;
            o.bootstrap_resamples = 200;
            const AisResult one = test::at_threads(1, [&] { return run_ais(*p, linear_schedule(40), o); });
            const AisResult two = test::at_threads(2, [&] { return run_ais(*p, linear_schedule(40), o); });
            CHECK_MSG(one.log_weights == two.log_weights, p->name() << " perfect " << perfect);
            CHECK_MSG(one.reverse->log_weights == two.reverse->log_weights, p->name() << " reverse");
            CHECK(one.estimate.ci95_low == two.estimate.ci95_low);
            // A different seed gives different weights (the streams are really keyed by it).
            o.seed = 100;
            CHECK(run_ais(*p, linear_schedule(40), o).log_weights != one.log_weights);
        }
    }
}

TEST_CASE("progress: checkpoints, running estimate, rate limit, snapshot contents") {
    const Model b = wrap(test::random_brbm(43, 10, 8));
    const PathPtr p = build(b, "geometric", "uniform");
    AisOptions o;
    o.chains = 200;
    o.checkpoints = 20;
    o.snapshot_chains = 7;
    o.reverse = true;
    std::vector<AisSnapshot> snaps;
    AisControl ctl;
    ctl.on_progress = [&](const AisSnapshot& s) { snaps.push_back(s); };
    const auto t0 = Clock::now();
    const AisResult r = run_ais(*p, linear_schedule(2000), o, ctl);
    const double secs = seconds_since(t0);
    CHECK(r.complete && r.steps_done == 2000);
    CHECK(r.running.size() == 20);
    CHECK_NEAR(r.running.back().beta, 1.0, 0);
    CHECK_NEAR(r.running.back().log_z, r.estimate.log_z, 1e-12);
    CHECK_NEAR(r.running[9].beta, 0.5, 1e-12);  // checkpoint 10 of 20 at step 1000
    Index checkpoints = 0, others = 0;
    double last_fraction = -1;
    bool monotone = true, shaped = true;
    for (const auto& s : snaps) {
        checkpoints += s.at_checkpoint;
        others += !s.at_checkpoint;
        monotone = monotone && s.fraction >= last_fraction;
        last_fraction = s.fraction;
        shaped = shaped && s.particles.rows() == 7 && s.particles.cols() == 10 && s.steps == 2000;
    }
    std::printf("  %zu snapshots (%lld at checkpoints) in %.2f s\n", snaps.size(), static_cast<long long>(checkpoints),
                secs);
    CHECK(checkpoints == 20);
    CHECK(others <= static_cast<Index>(secs / 0.03) + 3);  // at most every ~30 ms (+ the two phase ends)
    CHECK(monotone && shaped);
    CHECK(snaps.back().phase == AisPhase::Reverse && snaps.back().fraction == 1.0);
    CHECK_NEAR(snaps.back().log_z, *r.reverse->log_z_upper, 1e-12);
    CHECK(snaps[5].running.size() <= 20 && snaps.back().running.size() == 20);
    CHECK(r.particles.rows() == 7);
}

TEST_CASE("cancel during a long run returns after the step under way with an incomplete partial result") {
    const Grbm g = test::random_grbm(44, 400, 400, {0, 1}, 0.05);
    const PathPtr p = make_grbm_geometric_path(g, DiagGaussianBase{g.b, g.sigma}, "test base");
    AisOptions o;
    o.chains = 2000;
    o.bootstrap_resamples = 100;
    o.progress_interval_s = 0;  // a report after every step
    std::atomic<bool> cancel{false};
    AisControl ctl;
    ctl.cancel = &cancel;
    std::atomic<Index> last_step{0}, raised_at{-1};
    Clock::time_point cancelled_at;
    // The flag is raised from the worker's own report after step 3: where the run stands when it
    // is raised is known by construction, not by timing.
    ctl.on_progress = [&](const AisSnapshot& s) {
        last_step = s.step;
        if (s.step >= 3 && raised_at < 0) {
            raised_at = s.step;
            cancelled_at = Clock::now();
            cancel = true;
        }
    };
    const AisResult r = run_ais(*p, linear_schedule(100000), o, ctl);
    const double latency = seconds_since(cancelled_at);
    std::printf("  cancelled after %lld steps, returned %.1f ms after the flag (incl. the estimate)\n",
                static_cast<long long>(r.steps_done), latency * 1e3);
    // Cancel is checked inside every step: no step after the one under way when it was raised.
    CHECK(raised_at >= 3);
    CHECK(r.steps_done <= raised_at + 1);
    CHECK(!r.complete);
    CHECK(r.steps_done >= 1 && r.steps_done < 100000);
    CHECK(r.steps_done >= last_step);
    CHECK_NEAR(r.beta_reached, r.steps_done / 100000.0, 1e-15);
    CHECK(std::isfinite(r.estimate.log_z) && r.log_weights.size() == 2000);

    // Cancelled before the first step: the estimate is log Z0 itself, and with 200000 chains
    // the bootstrap is capped (2e6 / 200000 = 10 -> the floor of 20 resamples) to stay prompt.
    const PathPtr toy = build(load_preset("two-gaussians"), "moments", "moment");
    o.chains = 200000;
    o.bootstrap_resamples = 1000;
    const auto t1 = Clock::now();
    const AisResult none = run_ais(*toy, linear_schedule(10), o, ctl);
    std::printf("  cancelled-before-start run with 200000 chains returned in %.1f ms\n", seconds_since(t1) * 1e3);
    CHECK(!none.complete && none.steps_done == 0 && none.beta_reached == 0.0);
    CHECK_NEAR(none.estimate.log_z, 0.0, 1e-12);
    CHECK(none.estimate.bootstrap_resamples == 20);
}

TEST_CASE("pause holds the chains, resumes, and paused time is not counted") {
    const Model b = wrap(test::random_brbm(45, 30, 20));
    const PathPtr p = build(b, "geometric", "uniform");
    AisOptions o;
    o.chains = 500;
    std::atomic<bool> pause{true};
    std::atomic<Index> steps{0};
    AisControl ctl;
    ctl.pause = &pause;
    o.progress_interval_s = 0;
    ctl.on_progress = [&](const AisSnapshot& s) { steps = s.step; };
    AisResult r;
    const auto t0 = Clock::now();
    std::thread worker([&] { r = run_ais(*p, linear_schedule(300), o, ctl); });
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    const Index held = steps;
    pause = false;
    worker.join();
    const double wall = seconds_since(t0);
    std::printf("  paused 400 ms; run reports %.3f s of %.3f s wall\n", r.seconds, wall);
    CHECK(held == 0);
    CHECK(r.complete);
    CHECK(r.seconds <= wall - 0.35);
    // Same numbers as an unpaused run.
    CHECK(run_ais(*p, linear_schedule(300), o).log_weights == r.log_weights);
}

TEST_CASE("shares of a run (chain_begin/chain_end at block boundaries) concatenated and summarized = the whole run") {
    // What an MPI rank runs (app/cli/mpi/distributed_ais.cpp): chains [begin, end) on their own streams.
    const Model b = wrap(test::random_brbm(42, 10, 7));
    const Model g = wrap(test::random_grbm(41, 5, 6, {-1, 1}));
    for (const PathPtr& p : {build(b, "geometric", "uniform"), build(g, "geometric", "moment")}) {
        AisOptions o;
        o.chains = 300;  // blocks of 64: 5 blocks, the last of 44
        o.seed = 17;
        o.reverse = true;
        o.checkpoints = 4;
        o.bootstrap_resamples = 200;
        const Schedule s = linear_schedule(30);
        const AisResult whole = run_ais(*p, s, o);
        const Index block = ais_block_size(p->dim());
        CHECK(block == 64);
        const std::vector<Index> cuts{0, block, 3 * block, o.chains};  // shares of 1, 2 and 2 blocks
        AisResult merged;
        std::vector<Vec> running(3, Vec(o.chains));
        Vec fwd(o.chains), rev(o.chains);
        for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
            AisOptions share = o;
            share.chain_begin = cuts[i];
            share.chain_end = cuts[i + 1];
            AisResult r = run_ais(*p, s, share);
            const Index n = cuts[i + 1] - cuts[i];
            CHECK(r.log_weights.size() == n && r.running_log_weights.size() == 3);
            fwd.segment(cuts[i], n) = r.log_weights;
            rev.segment(cuts[i], n) = r.reverse->log_weights;
            for (std::size_t k = 0; k < 3; ++k) running[k].segment(cuts[i], n) = r.running_log_weights[k];
            if (i == 0) merged = std::move(r);
        }
        merged.log_weights = fwd;
        merged.reverse->log_weights = rev;
        merged.running_log_weights = running;
        summarize_ais(merged, o);
        CHECK_MSG(merged.log_weights == whole.log_weights, p->name());
        CHECK(merged.reverse->log_weights == whole.reverse->log_weights);
        CHECK(merged.estimate.log_z == whole.estimate.log_z && merged.estimate.ci95_low == whole.estimate.ci95_low &&
              merged.estimate.ci95_high == whole.estimate.ci95_high && merged.estimate.ess == whole.estimate.ess);
        CHECK(merged.estimate.histogram.counts == whole.estimate.histogram.counts);
        CHECK(merged.running.size() == whole.running.size());
        for (std::size_t k = 0; k < whole.running.size(); ++k)
            CHECK(merged.running[k].log_z == whole.running[k].log_z && merged.running[k].ess == whole.running[k].ess);
        CHECK(*merged.reverse->log_z_upper == *whole.reverse->log_z_upper &&
              merged.reverse->ci95_low == whole.reverse->ci95_low);
    }
    const PathPtr p = build(b, "geometric", "uniform");
    AisOptions bad;
    bad.chains = 100;
    bad.chain_begin = 64;
    bad.chain_end = 101;
    CHECK_THROWS_WITH(run_ais(*p, linear_schedule(5), bad), InputError, "chain range [64, 101) is not a nonempty part");
}

TEST_CASE("refusals: zero chains, bad schedule, perfect/reverse without an exact sampler") {
    const Grbm g = test::random_grbm(46, 3, 20);  // 2^20 hidden states: no perfect transitions
    const PathPtr p = make_grbm_geometric_path(g, DiagGaussianBase{g.b, g.sigma}, "test base");
    AisOptions o;
    o.chains = 0;
    CHECK_THROWS_WITH(run_ais(*p, linear_schedule(5), o), InputError, "at least one chain, got 0");
    o.chains = 10;
    CHECK_THROWS_WITH(run_ais(*p, {0, 0.5, 0.4, 1}, o), InputError, "not increasing at step 2: 0.5 then 0.4");
    o.perfect = true;
    CHECK_THROWS_WITH(run_ais(*p, linear_schedule(5), o), InputError, "perfect transitions need exact samples");
    o.perfect = false;
    o.reverse = true;
    CHECK_THROWS_WITH(run_ais(*p, linear_schedule(5), o), InputError, "reverse AIS need");
}

RBM_TEST_MAIN
