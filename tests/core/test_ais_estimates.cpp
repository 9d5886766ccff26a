// AIS estimates from log weights (docs/methods/ais-estimates.md) on synthetic weights with known answers.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "check.hpp"
#include "core/ais/estimates.hpp"
#include "core/numerics/parallel.hpp"
#include "core/numerics/scalar.hpp"
#include "core/random/rng.hpp"
#include "simd_paths.hpp"

using namespace rbm;

TEST_CASE("equal weights: ESS = N, log Z exact, bounds collapse, interval is a point") {
    const Vec lw = Vec::Constant(500, -3.25);
    const AisEstimate e = estimate_log_z(lw, 1.5);
    CHECK_NEAR(e.log_z, -1.75, 1e-12);
    CHECK_NEAR(e.ess, 500.0, 1e-9);
    CHECK_NEAR(e.ess_fraction, 1.0, 1e-12);
    CHECK(e.log_z_low.has_value());
    CHECK_NEAR(*e.log_z_low, -1.75, 1e-12);
    CHECK_NEAR(e.log_z_high, -1.75, 1e-12);
    CHECK_NEAR(e.ci95_low, -1.75, 1e-12);
    CHECK_NEAR(e.ci95_high, -1.75, 1e-12);
    CHECK_NEAR(e.log_w_mean, -3.25, 1e-12);
    CHECK_NEAR(e.log_w_var, 0.0, 1e-20);
    Index total = 0;
    for (Index c : e.histogram.counts) total += c;
    CHECK(total == 500 && e.histogram.counts.size() == 40);
}

TEST_CASE("one dominant weight: ESS about 1, and huge log weights do not overflow") {
    Vec lw = Vec::Constant(1000, 800.0);
    lw(17) = 900.0;
    CHECK_NEAR(effective_sample_size(lw), 1.0, 1e-9);
    const AisEstimate e = estimate_log_z(lw, 0.0);
    CHECK_NEAR(e.log_z, 900.0 - std::log(1000.0), 1e-9);
    CHECK(std::isfinite(e.log_z_high));
    // Two equal dominant weights: ESS = 2. Kish: (sum w)^2 / sum w^2.
    lw(18) = 900.0;
    CHECK_NEAR(effective_sample_size(lw), 2.0, 1e-9);
    const Vec w = (Vec(5) << 1, 2, 3, 4, 10).finished();
    const Vec l = w.array().log().matrix();
    CHECK_NEAR(effective_sample_size(l), 400.0 / 130.0, 1e-12);
}

TEST_CASE("3-sigma bounds match the formula; the lower one can be absent") {
    // w = 1, 2, 3, 4, 10: mean 4, sd (N-1) = sqrt(12.5), N = 5.
    const Vec l = (Vec(5) << 1, 2, 3, 4, 10).finished().array().log().matrix();
    const SigmaBounds b = sigma_bounds(l, 0.7);
    const double half = 3 * std::sqrt(12.5) / std::sqrt(5.0);
    CHECK_NEAR(b.high, std::log(4 + half) + 0.7, 1e-12);
    CHECK(!b.low.has_value());  // 4 - 4.74 < 0
    const SigmaBounds one = sigma_bounds(l, 0.7, 1.0);
    CHECK(one.low.has_value());
    CHECK_NEAR(*one.low, std::log(4 - half / 3) + 0.7, 1e-12);
    const AisEstimate e = estimate_log_z(l, 0.7);
    CHECK(!e.log_z_low.has_value());
    CHECK(e.log_z_high > e.log_z);
}

TEST_CASE("bootstrap: deterministic, thread-count independent, and covers the truth ~95%") {
    std::mt19937_64 g(11);
    std::normal_distribution<double> N(0, 1);
    Vec lw(400);
    for (Index i = 0; i < lw.size(); ++i) lw(i) = 1.5 * N(g);
    BootstrapInterval a, b;
    {
        ThreadLimit one(1);
        a = bootstrap_log_mean_exp(lw, 5);
    }
    {
        ThreadLimit two(2);
        b = bootstrap_log_mean_exp(lw, 5);
    }
    CHECK(a.low == b.low && a.high == b.high && a.sd == b.sd);
    CHECK(a.low < log_mean_exp(lw) && log_mean_exp(lw) < a.high);
    const BootstrapInterval c = bootstrap_log_mean_exp(lw, 6);
    CHECK(c.low != a.low);

    // Coverage: log weights N(0, s^2) have E[w] = exp(s^2/2), so logmeanexp estimates s^2/2.
    // With s = 0.7 and N = 300 the interval should contain it in about 95% of repeats; a
    // wrong quantile (e.g. 68%) or an interval around the wrong centre fails this.
    const double s = 0.7, truth = 0.5 * s * s;
    int covered = 0;
    const int repeats = 200;
    for (int rep = 0; rep < repeats; ++rep) {
        Vec x(300);
        for (Index i = 0; i < x.size(); ++i) x(i) = s * N(g);
        const BootstrapInterval ci = bootstrap_log_mean_exp(x, 100 + rep);
        covered += ci.low <= truth && truth <= ci.high;
    }
    std::printf("  bootstrap coverage %d / %d\n", covered, repeats);
    CHECK(covered >= 176 && covered <= 198);  // 88% .. 99%
}

// The bootstrap's replicates as plain pseudocode, pick by pick: resample j draws its picks
// from stream (Bootstrap << 48) + j, two words (Rng::uniform) each, sums exp(l_i - max) in pick
// order, and falls back to its own maximum when that sum underflows. The library draws the same
// words for 8 resamples at once with the dispatched block Philox, 512 picks at a time.
std::vector<double> replicates_reference(const Vec& lw, std::uint64_t seed, int resamples, int* fallbacks) {
    const Index n = lw.size();
    const double mx = lw.maxCoeff();
    const Vec u = (lw.array() - mx).exp().matrix();  // the library's own expression, so its rounding
    std::vector<double> rep;
    for (int j = 0; j < resamples; ++j) {
        Rng rng(seed, (static_cast<std::uint64_t>(StreamPurpose::Bootstrap) << 48) + static_cast<std::uint64_t>(j));
        std::vector<Index> pick(static_cast<std::size_t>(n));
        double s = 0;
        for (auto& i : pick) {
            i = static_cast<Index>(rng.uniform() * static_cast<double>(n));
            if (i == n) i = 0;
            s += u(i);
        }
        if (s > 1e-250) {
            rep.push_back(mx + std::log(s / static_cast<double>(n)));
            continue;
        }
        ++*fallbacks;
        double m = lw(pick[0]);
        for (Index i : pick) m = std::max(m, lw(i));
        double t = 0;
        for (Index i : pick) t += std::exp(lw(i) - m);
        rep.push_back(m + std::log(t / static_cast<double>(n)));
    }
    return rep;
}

TEST_CASE("bootstrap: replicates bitwise the pick-by-pick reference on every instruction set, underflow branch too") {
    std::mt19937_64 g(23);
    std::normal_distribution<double> N(0, 1);
    // 1300 chains: two whole 512-pick chunks and a partial one; 203 resamples: a partial block of 8.
    Vec spread(1300);
    for (Index i = 0; i < spread.size(); ++i) spread(i) = 2.0 * N(g);
    // One weight 1000 nats above 39 others: a resample that misses it (about (39/40)^40 = 36 % of
    // them) sums only underflowed terms and takes the fallback.
    Vec gap = Vec::Constant(40, -1000.0);
    gap(17) = 0;
    const std::vector<SimdPath> paths = rbm::test::paths_to_test();
    auto check_all_paths = [&](const Vec& lw, std::uint64_t seed, int resamples) {
        int fallbacks = 0;
        const std::vector<double> ref = replicates_reference(lw, seed, resamples, &fallbacks);
        std::printf("  n %lld, %d resamples: %d took the fallback\n", static_cast<long long>(lw.size()), resamples,
                    fallbacks);
        for (SimdPath p : paths) {
            simd_force(p);
            for (int threads : {1, 2}) {
                ThreadLimit limit(threads);
                CHECK(bootstrap_replicates(lw, seed, resamples) == ref);
            }
        }
        simd_force(paths.back());
        return fallbacks;
    };
    CHECK(check_all_paths(spread, 41, 203) == 0);
    CHECK(check_all_paths(gap, 7, 64) > 0);
}

TEST_CASE("histogram and moments of the log weights; bad weights refused") {
    const Vec l = (Vec(4) << 0, 1, 2, 4).finished();
    const Histogram h = log_weight_histogram(l, 4);
    CHECK_NEAR(h.lo, 0, 0);
    CHECK_NEAR(h.hi, 4, 0);
    CHECK(h.counts == std::vector<Index>({1, 1, 1, 1}));
    // Zero weights (log w = -inf, as training's monitor AIS produced under UBSan): the range is
    // the finite weights', the zeros count in the lowest bin (every bin was NaN, cast to an integer).
    const double inf = std::numeric_limits<double>::infinity();
    const Histogram z = log_weight_histogram((Vec(4) << -inf, 0, 4, -inf).finished(), 4);
    CHECK(z.lo == 0 && z.hi == 4 && z.counts == std::vector<Index>({3, 0, 0, 1}));
    const Histogram all_zero = log_weight_histogram((Vec(2) << -inf, -inf).finished(), 2);
    CHECK(all_zero.counts == std::vector<Index>({2, 0}));
    const AisEstimate e = estimate_log_z(l, 0);
    CHECK_NEAR(e.log_w_mean, 1.75, 1e-12);
    CHECK_NEAR(e.log_w_var, (1.75 * 1.75 + 0.75 * 0.75 + 0.25 * 0.25 + 2.25 * 2.25) / 3, 1e-12);
    CHECK_THROWS_WITH(estimate_log_z(Vec(), 0), InputError, "zero chains");
    Vec bad = l;
    bad(2) = std::nan("");
    CHECK_THROWS_WITH(estimate_log_z(bad, 0), InputError, "log weight of chain 2");
}

TEST_CASE("ESS under 30 marks the interval unreliable; 30 and above does not") {
    CHECK(kReliableEss == 30.0);
    // One dominant weight among 1000: ESS about 1.
    Vec lw = Vec::Zero(1000);
    lw(7) = 40.0;
    const AisEstimate few = estimate_log_z(lw, 0.0);
    CHECK(few.ess < 2.0);
    const std::string w = ess_warning(few.ess);
    CHECK(w.find("unreliable") != std::string::npos);
    CHECK(w.find("log Z") != std::string::npos);
    CHECK(w.find("ESS = 1.0") != std::string::npos);
    CHECK(ess_warning(29.9, "the reverse log Z").find("the reverse log Z is unreliable") != std::string::npos);
    CHECK(ess_warning(30.0).empty());
    CHECK(ess_warning(500.0).empty());
    // Equal weights: ESS = N, nothing to say.
    CHECK(ess_warning(estimate_log_z(Vec::Constant(100, 1.0), 0.0).ess).empty());
}

RBM_TEST_MAIN
