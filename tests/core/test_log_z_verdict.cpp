// Pareto k-hat (core/ais/pareto_khat.hpp) on weights whose tail is known, and the log Z verdict
// (core/ais/log_z_verdict.hpp) on candidates built to agree, to disagree, to break the sandwich
// and to be set aside.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "check.hpp"
#include "core/ais/log_z_verdict.hpp"
#include "core/ais/pareto_khat.hpp"

using namespace rbm;

namespace {

// N weights at the quantiles (i - 1/2)/N of a generalized Pareto with shape k and scale 1, as log
// weights: a sample with exactly that tail and no sampling noise.
Vec gpd_log_weights(double k, Index n) {
    Vec l(n);
    for (Index i = 0; i < n; ++i) {
        const double u = (i + 0.5) / n;
        l[i] = std::log((std::pow(1 - u, -k) - 1) / k);
    }
    return l;
}

bool mentions(const LogZVerdict& v, const std::string& what) {
    for (const auto& w : v.warnings)
        if (w.find(what) != std::string::npos) return true;
    return false;
}

LogZCandidate cand(std::string method, std::string source, double z, double half, LogZSide side) {
    LogZCandidate c;
    c.method = std::move(method);
    c.source = std::move(source);
    c.log_z = z;
    c.low = z - half;
    c.high = z + half;
    c.side = side;
    return c;
}

}  // namespace

TEST_CASE("Pareto k-hat recovers the shape of a generalized Pareto tail") {
    // M = ceil(min(N / 5, 3 sqrt N)) = 95 at N = 1000; the prior pulls k towards 0.5 by 10 / (M + 10).
    for (double k : {0.2, 0.5, 0.8, 1.2}) {
        const ParetoK p = pareto_k_hat(gpd_log_weights(k, 1000));
        std::printf("  k = %.2f: k-hat %.3f (tail %lld, threshold %.3f)\n", k, p.k, static_cast<long long>(p.tail),
                    p.threshold);
        CHECK(std::abs(p.k - k) < 0.12);
        CHECK(p.tail == 95);
    }
    CHECK_CLOSE(pareto_k_hat(gpd_log_weights(0.3, 1000)).threshold, 1 - 1 / 3.0, 1e-12);
    CHECK_CLOSE(pareto_k_hat(gpd_log_weights(0.3, 100)).threshold, 0.5, 1e-12);
    // Light tails read reliable, heavy ones not.
    CHECK(pareto_k_hat(gpd_log_weights(0.2, 1000)).reliable());
    CHECK(!pareto_k_hat(gpd_log_weights(1.2, 1000)).reliable());
    // A shift of every log weight (log Z0) changes nothing.
    Vec l = gpd_log_weights(0.6, 400);
    const double k0 = pareto_k_hat(l).k;
    l.array() += 123.0;
    CHECK_CLOSE(pareto_k_hat(l).k, k0, 1e-9);
}

TEST_CASE("Pareto k-hat: ties, tiny samples and bad input") {
    CHECK(pareto_k_hat(Vec::Constant(100, -3.0)).k == 0.0);  // perfect transitions: equal weights
    CHECK(std::isinf(pareto_k_hat(Vec::Constant(3, 1.0)).k));
    CHECK_THROWS_WITH(pareto_k_hat(Vec()), InputError, "no log weights");
    Vec bad = Vec::Zero(10);
    bad[4] = std::nan("");
    CHECK_THROWS_WITH(pareto_k_hat(bad), InputError, "chain 4 is not a finite number");
}

TEST_CASE("verdict: independent estimates that agree give their weighted mean and the hull") {
    const std::vector<LogZCandidate> c = {cand("forward AIS, moment base", "ais-moment", 10.00, 0.10, LogZSide::Lower),
                                          cand("tempering BAR", "pt", 10.05, 0.05, LogZSide::TwoSided)};
    const LogZVerdict v = judge_log_z(c);
    CHECK(v.agree);
    CHECK(v.trusted);
    CHECK(v.warnings.empty());
    // se 0.1/1.96 and 0.05/1.96: weights 1 and 4.
    CHECK_CLOSE(v.log_z, (10.00 + 4 * 10.05) / 5, 1e-9);
    CHECK_CLOSE(v.low, 9.90, 1e-12);
    CHECK_CLOSE(v.high, 10.10, 1e-12);
}

TEST_CASE("verdict: a confident miss is named and the higher estimate kept") {
    // The trained-model case: forward AIS from the uniform base 9.5 nats low with a narrow interval.
    const std::vector<LogZCandidate> c = {
        cand("forward AIS, uniform base", "ais-uniform", 100.0, 0.07, LogZSide::Lower),
        cand("forward AIS, moment base", "ais-moment", 109.5, 0.05, LogZSide::Lower),
        cand("tempering BAR", "pt", 109.45, 0.2, LogZSide::TwoSided)};
    const LogZVerdict v = judge_log_z(c);
    CHECK(!v.agree);
    CHECK(!v.trusted);
    CHECK(mentions(v, "forward AIS, uniform base"));
    CHECK(mentions(v, "missed probability mass"));
    CHECK_CLOSE(v.log_z, 109.5, 1e-12);
    CHECK_CLOSE(v.low, 99.93, 1e-12);
    CHECK_CLOSE(v.high, 109.65, 1e-12);
}

TEST_CASE("verdict: forward above reverse is a broken sandwich") {
    const std::vector<LogZCandidate> c = {cand("forward AIS", "ais", 5.0, 0.1, LogZSide::Lower),
                                          cand("reverse AIS", "ais-reverse", 4.0, 0.1, LogZSide::Upper)};
    const LogZVerdict v = judge_log_z(c);
    CHECK(!v.agree);
    CHECK(mentions(v, "broken sandwich"));
}

TEST_CASE("verdict: heavy-tailed weights and interrupted runs are set aside") {
    auto heavy = cand("forward AIS, data base", "ais-data", 3.0, 0.1, LogZSide::Lower);
    heavy.pareto_k = 0.9;
    heavy.pareto_threshold = 0.5;
    auto cut = cand("tempering BAR", "pt", 8.0, 0.1, LogZSide::TwoSided);
    cut.complete = false;
    const std::vector<LogZCandidate> c = {heavy,
                                          cand("forward AIS, moment base", "ais-moment", 5.0, 0.1, LogZSide::Lower),
                                          cand("reverse AIS", "ais-reverse", 5.05, 0.1, LogZSide::Upper), cut};
    const LogZVerdict v = judge_log_z(c);
    CHECK(!v.used[0] && v.used[1] && v.used[2] && !v.used[3]);
    CHECK(v.agree);     // the two kept agree
    CHECK(!v.trusted);  // but something was doubtful
    CHECK(mentions(v, "heavy tail"));
    CHECK(mentions(v, "interrupted"));
    CHECK_CLOSE(v.log_z, 5.025, 1e-12);
}

TEST_CASE("verdict: one source is not an agreement; BAR and stepping stone share one") {
    const std::vector<LogZCandidate> c = {cand("tempering BAR", "pt", 5.0, 0.1, LogZSide::TwoSided),
                                          cand("tempering stepping stone", "pt", 5.02, 0.1, LogZSide::TwoSided)};
    const LogZVerdict v = judge_log_z(c);
    CHECK(!v.agree);
    CHECK(mentions(v, "one independent estimate only"));
}

TEST_CASE("verdict: with the exact value, misses are named and the exact value is the verdict") {
    const std::vector<LogZCandidate> c = {cand("forward AIS, uniform base", "a", 4.0, 0.1, LogZSide::Lower),
                                          cand("forward AIS, moment base", "b", 4.05, 0.1, LogZSide::Lower)};
    const LogZVerdict v = judge_log_z(c, 5.0);
    CHECK(v.agree);     // they agree with each other ...
    CHECK(!v.trusted);  // ... and both miss the truth
    CHECK(mentions(v, "misses the exact log Z"));
    CHECK(v.log_z == 5.0 && v.low == 5.0 && v.high == 5.0);
    CHECK_THROWS_WITH(judge_log_z({}), InputError, "no estimates");
    auto nan = cand("x", "x", std::nan(""), 0.1, LogZSide::Lower);
    CHECK_THROWS_WITH(judge_log_z({nan}), InputError, "x has no finite interval");
}

RBM_TEST_MAIN
