// Numerical extremes: weights and biases up to ±50 (biases ±500 for the log-sum-exps,
// docs/methods/models.md#conventions), σ from 1e-3 to 1e3, β at exactly 0 and 1, one chain, one step, 10^5 steps,
// leakiness 1e-4 and 1, enumeration at its limit and one past it. Every estimate must be finite
// (and, where a closed form or an independent enumeration exists, right), or the call must
// refuse with an InputError that says why.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "check.hpp"
#include "core/ais/paths.hpp"
#include "core/ais/runner.hpp"
#include "core/ais/schedules.hpp"
#include "core/exact/exact.hpp"
#include "core/kernels/gibbs.hpp"
#include "core/meanfield/meanfield.hpp"
#include "core/tempering/pt.hpp"
#include "test_support.hpp"

using namespace rbm;

namespace {

bool is_finite(double x) { return std::isfinite(x); }
template <class M>
bool all_finite(const M& m) {
    return m.size() == 0 || m.allFinite();
}

// ±scale in a fixed, sign-mixed pattern (no two neighbours alike), so both softplus tails occur.
Mat pattern(Index rows, Index cols, double scale) {
    Mat W(rows, cols);
    for (Index i = 0; i < rows; ++i)
        for (Index j = 0; j < cols; ++j)
            W(i, j) = ((i * 7 + j * 3) % 4 < 2 ? 1 : -1) * scale * (1.0 - 0.1 * ((i + j) % 3));
    return W;
}
Vec pattern(Index n, double scale) { return pattern(n, 1, scale).col(0); }

Brbm extreme_brbm(Index n, Index m, double w, double bias) {
    return Brbm{pattern(n, m, w), pattern(n, bias), -pattern(m, bias)};
}

Grbm extreme_grbm(Index n, Index m, double w, double bias, const Vec& sigma, std::vector<double> hidden = {0, 1}) {
    Grbm g;
    g.W = pattern(n, m, w);
    g.b = pattern(n, bias);
    g.c = -pattern(m, bias);
    g.sigma = sigma;
    g.hidden_values = std::move(hidden);
    return g;
}

using Vec2 = Eigen::Vector2d;

// A valid leaky RBM at the edge of validity: singular values of W are top_sv (0.999) and 0.5.
Leaky extreme_leaky(double leakiness, double bias, double top_sv = 0.999) {
    Leaky l;
    const double a = 0.6, s = 0.8;  // a rotation
    Mat U(2, 2), V(2, 2);
    U << a, -s, s, a;
    V << s, a, -a, s;
    l.W = U * Vec2(top_sv, 0.5).asDiagonal() * V.transpose();
    l.b = Vec::Constant(2, bias);
    l.c = Vec(2);
    l.c << -bias, bias;
    l.leakiness = leakiness;
    return l;
}
// Independent references, in long double with a max shift.
long double lse(const std::vector<long double>& x) {
    long double mx = -std::numeric_limits<long double>::infinity();
    for (auto v : x) mx = std::max(mx, v);
    long double s = 0;
    for (auto v : x) s += std::exp(v - mx);
    return mx + std::log(s);
}

// Sum over every (v, h) of exp(v'Wh + b'v + c'h).
double brute_brbm_log_z(const Brbm& m) {
    const Index n = m.W.rows(), k = m.W.cols();
    std::vector<long double> terms;
    for (long cfg = 0; cfg < (1L << (n + k)); ++cfg) {
        long double e = 0;
        for (Index i = 0; i < n; ++i) {
            if (!((cfg >> i) & 1)) continue;
            e += m.b(i);
            for (Index j = 0; j < k; ++j)
                if ((cfg >> (n + j)) & 1) e += m.W(i, j);
        }
        for (Index j = 0; j < k; ++j)
            if ((cfg >> (n + j)) & 1) e += m.c(j);
        terms.push_back(e);
    }
    return static_cast<double>(lse(terms));
}

// log Z = sum log(sqrt(2 pi) sigma) + lse_h [B.h + h'Jh/2], B = c + W'(b/sigma), J = W'W (docs/methods/models.md).
double brute_grbm_log_z(const Grbm& g) {
    const Index m = g.W.cols();
    const auto X = static_cast<long>(g.hidden_values.size());
    const Vec B = g.c + g.W.transpose() * g.b.cwiseQuotient(g.sigma);
    const Mat J = g.W.transpose() * g.W;
    std::vector<long double> terms;
    long total = 1;
    for (Index j = 0; j < m; ++j) total *= X;
    for (long cfg = 0; cfg < total; ++cfg) {
        Vec h(m);
        long rest = cfg;
        for (Index j = 0; j < m; ++j, rest /= X) h(j) = g.hidden_values[static_cast<std::size_t>(rest % X)];
        terms.push_back(static_cast<long double>(B.dot(h)) + 0.5L * static_cast<long double>(h.dot(J * h)));
    }
    long double c = 0;
    for (Index i = 0; i < g.W.rows(); ++i) c += std::log(std::sqrt(2 * M_PI) * g.sigma(i));
    return static_cast<double>(c + lse(terms));
}

Model wrap(auto params) { return test::as_model(std::move(params), true); }

void check_estimate(const AisResult& r, const std::string& label) {
    const AisEstimate& e = r.estimate;
    CHECK_MSG(r.complete, label);
    CHECK_MSG(all_finite(r.log_weights), label << ": non-finite log weight");
    CHECK_MSG(is_finite(e.log_z) && is_finite(e.log_z_high) && is_finite(e.ess) && is_finite(e.ess_fraction),
              label << ": log Z " << e.log_z << " high " << e.log_z_high << " ess " << e.ess);
    CHECK_MSG(is_finite(e.log_w_mean) && is_finite(e.log_w_var) && is_finite(e.ci95_low) && is_finite(e.ci95_high),
              label << ": log w mean " << e.log_w_mean << " var " << e.log_w_var << " ci " << e.ci95_low << ".."
                    << e.ci95_high);
    CHECK_MSG(!e.log_z_low || is_finite(*e.log_z_low), label << ": log_z_low " << *e.log_z_low);
    CHECK_MSG(e.ess >= 1 - 1e-9 && e.ess <= static_cast<double>(e.n) + 1e-9, label << ": ess " << e.ess);
    CHECK_MSG(is_finite(r.log_z0), label << ": log Z0 " << r.log_z0);
    if (r.reverse) {
        CHECK_MSG(r.reverse->complete && all_finite(r.reverse->log_weights), label << ": reverse weights");
        CHECK_MSG(r.reverse->log_z_upper && is_finite(*r.reverse->log_z_upper), label << ": reverse bound");
    }
}

AisResult run(const PathPtr& p, const Schedule& s, Index chains, bool perfect = false, bool reverse = false) {
    AisOptions o;
    o.chains = chains;
    o.seed = 7;
    o.perfect = perfect;
    o.reverse = reverse;
    o.bootstrap_resamples = 100;
    return run_ais(*p, s, o);
}

PathPtr build(const Model& m, const std::string& path, const std::string& base) {
    PathRequest r;
    r.path = path;
    r.base = base;
    r.moments.gibbs_chains = 20;
    r.moments.gibbs_steps = 200;
    r.moments.gibbs_burn_in = 20;
    r.mas.pcd_chains = 50;
    r.mas.pcd_steps = 5;
    r.mas.max_iterations = 100;
    return build_path(m, r);
}

Vec sigmas(double s0, double s1, double s2) {
    Vec s(3);
    s << s0, s1, s2;
    return s;
}

}  // namespace

// ------------------------------------------------------------------------------ exact

TEST_CASE("exact log Z, BRBM with |W| = 50 and |bias| up to 500: finite and equal to brute force") {
    for (double bias : {0.0, 50.0, 500.0}) {
        const Brbm m = extreme_brbm(4, 3, 50, bias);
        const double ref = brute_brbm_log_z(m);
        for (auto layer : {ExactOptions::Layer::Visible, ExactOptions::Layer::Hidden}) {
            ExactOptions o;
            o.brbm_layer = layer;
            const double got = exact_log_z(wrap(m), o);
            CHECK_MSG(is_finite(got), "bias " << bias);
            CHECK_CLOSE(got, ref, 1e-12);
        }
        const Moments mo = exact_visible_moments(wrap(m));
        CHECK_MSG(all_finite(mo.mean) && all_finite(mo.cov), "bias " << bias);
        const HiddenMoments hm = exact_hidden_moments(wrap(m));
        CHECK_MSG(all_finite(hm.mean) && all_finite(hm.cov), "bias " << bias);
        const RowMat S = exact_samples(wrap(m), 50, 3);
        CHECK(all_finite(S));
    }
}

TEST_CASE("exact log Z, GRBM with |W| = 50, |bias| = 50, sigma 1e-3 .. 1e3, hidden sets {0,1} {-1,1} {-1,0,1}") {
    for (const Vec& s : {sigmas(1e-3, 1e-3, 1e-3), sigmas(1e3, 1e3, 1e3), sigmas(1e-3, 1, 1e3)})
        for (const auto& X : std::vector<std::vector<double>>{{0, 1}, {-1, 1}, {-1, 0, 1}}) {
            const Grbm g = extreme_grbm(3, 3, 50, 50, s, X);
            const double ref = brute_grbm_log_z(g);
            const double got = exact_log_z(wrap(g));
            CHECK_MSG(is_finite(got), "sigma " << s.transpose() << " X size " << X.size());
            CHECK_CLOSE(got, ref, 1e-12);
            const Moments mo = exact_visible_moments(wrap(g));
            CHECK_MSG(all_finite(mo.mean) && all_finite(mo.cov), "sigma " << s.transpose());
            CHECK(all_finite(exact_samples(wrap(g), 50, 3)));
        }
}

TEST_CASE("exact log Z, leaky RBM with leakiness 1e-4 and 1, singular value 0.999, |bias| = 50") {
    for (double cl : {1e-4, 1.0}) {
        const Leaky l = extreme_leaky(cl, 50);
        const double z = exact_log_z(wrap(l));
        CHECK_MSG(is_finite(z), "leakiness " << cl);
        if (cl == 1.0) CHECK_CLOSE(z, leaky_log_z_gaussian_case(l), 1e-9);
        // Shrinking the leakiness removes mass from the eta <= 0 half-spaces only.
        CHECK_MSG(z <= leaky_log_z_gaussian_case(l) + 1e-9, "leakiness " << cl);
        const Moments mo = exact_visible_moments(wrap(l));
        CHECK_MSG(all_finite(mo.mean) && all_finite(mo.cov), "leakiness " << cl);
    }
    // Orthogonal closed form at the smallest leakiness.
    Leaky o;
    o.W = Mat::Zero(3, 2);
    o.W(0, 0) = 0.999;
    o.W(1, 1) = 0.999;
    o.b = Vec::Zero(3);
    o.c = Vec::Zero(2);
    o.leakiness = 1e-4;
    const double want =
        1.5 * std::log(2 * M_PI) +
        2 * std::log(0.5 * (1 / std::sqrt(1 - 0.999 * 0.999) + 1 / std::sqrt(1 - 1e-4 * 0.999 * 0.999)));
    CHECK_CLOSE(exact_log_z(wrap(o)), want, 1e-12);
}

TEST_CASE("enumeration at its limit works, one past it is refused naming the size") {
    ExactOptions o;
    o.max_configurations = 1024;
    const Brbm at = extreme_brbm(12, 10, 1, 1);    // 2^10 hidden configurations: exactly the limit
    const Brbm past = extreme_brbm(12, 11, 1, 1);  // 2^11
    CHECK(is_finite(exact_log_z(wrap(at), o)));
    CHECK_THROWS_WITH(exact_log_z(wrap(past), o), InputError, "2^11 hidden configurations");
    const Grbm g3 = extreme_grbm(2, 6, 1, 1, Vec::Ones(2), {-1, 0, 1});  // 3^6 = 729
    o.max_configurations = 729;
    CHECK(is_finite(exact_log_z(wrap(g3), o)));
    o.max_configurations = 728;
    CHECK_THROWS_WITH(exact_log_z(wrap(g3), o), InputError, "729");
    // The default limit 2^24 itself: 24 hidden units pass the check, 25 on both layers do not.
    CHECK(has_exact_log_z(wrap(extreme_brbm(30, 24, 1, 1))));
    require_enumerable(wrap(extreme_brbm(30, 24, 1, 1)));
    CHECK_THROWS_WITH(require_enumerable(wrap(extreme_brbm(25, 25, 1, 1))), InputError, "2^25 hidden configurations");
    CHECK(!has_exact_log_z(wrap(extreme_brbm(25, 25, 1, 1))));
    CHECK_THROWS_WITH(exact_samples(wrap(extreme_brbm(25, 25, 1, 1)), 1, 1), InputError,
                      "more than the limit 16777216");
}

TEST_CASE("exact log Z at the default limit: 2^24 hidden configurations of a GRBM, finite and refused one past it") {
    // 3^15 = 14348907 <= 2^24 < 3^16: the largest ternary GRBM enumeration allowed.
    const Grbm g = extreme_grbm(2, 15, 0.05, 0.5, Vec::Ones(2), {-1, 0, 1});
    const double z = exact_log_z(wrap(g));
    CHECK(is_finite(z));
    // With J tiny the log-sum-exp nearly factorizes: log Z ~ const + sum_j log sum_x exp(B_j x).
    const Vec B = g.c + g.W.transpose() * g.b;
    double approx = std::log(2 * M_PI);
    for (Index j = 0; j < 15; ++j) approx += std::log(std::exp(-B(j)) + 1 + std::exp(B(j)));
    CHECK_NEAR(z, approx, 0.2);
    CHECK_THROWS_WITH(exact_log_z(wrap(extreme_grbm(2, 16, 0.05, 0.5, Vec::Ones(2), {-1, 0, 1}))), InputError,
                      "3^16 hidden configurations");
}

// ------------------------------------------------------------------------------ Gibbs

TEST_CASE("Gibbs: one chain, one sweep and 10^5 sweeps at |W| = 50, sigma 1e-3/1e3, leakiness 1e-4/1: finite states") {
    std::vector<Model> models = {wrap(extreme_brbm(4, 3, 50, 500)),
                                 wrap(extreme_grbm(3, 3, 50, 50, sigmas(1e-3, 1e-3, 1e-3))),
                                 wrap(extreme_grbm(3, 3, 50, 50, sigmas(1e3, 1e3, 1e3))),
                                 wrap(extreme_grbm(3, 3, 50, 50, sigmas(1e-3, 1, 1e3), {-1, 0, 1})),
                                 wrap(extreme_leaky(1e-4, 50)),
                                 wrap(extreme_leaky(1.0, 50))};
    for (const Model& m : models) {
        for (long sweeps : {1L, 100000L}) {
            ChainRngs rngs(5, 1);
            RowMat V = initial_states(m, 1, rngs);
            CHECK(all_finite(V));
            for (long t = 0; t < sweeps; ++t) {
                SweepOptions so;
                gibbs_sweep(m, V, rngs, so);
                if (!V.allFinite()) break;
            }
            CHECK_MSG(all_finite(V), kind_name(m.kind()) << " after " << sweeps << " sweeps: " << V);
        }
    }
    // The paper's leaky kernel too, and beta exactly 0 and 1 on every family's kernel.
    const Leaky l = extreme_leaky(1e-4, 50);
    for (double beta : {0.0, 1.0}) {
        ChainRngs r(6, 1);
        RowMat V = RowMat::Zero(1, 2);
        for (int t = 0; t < 1000; ++t) leaky_sweep(l, V, r, LeakyKernel::PaperGibbs, beta);
        CHECK_MSG(all_finite(V), "paper gibbs beta " << beta);
        const Grbm g = extreme_grbm(3, 3, 50, 50, sigmas(1e-3, 1, 1e3));
        const DiagGaussianBase base{g.b, g.sigma};
        RowMat G = RowMat::Zero(1, 3);
        for (int t = 0; t < 1000; ++t) gibbs_sweep(g, G, r, beta, &base);
        CHECK_MSG(all_finite(G), "grbm beta " << beta);
        const Brbm b = extreme_brbm(4, 3, 50, 500);
        const Vec bias = Vec::Constant(4, -500);
        RowMat B = RowMat::Zero(1, 4);
        for (int t = 0; t < 1000; ++t) gibbs_sweep(b, B, r, beta, &bias);
        CHECK_MSG(all_finite(B), "brbm beta " << beta);
    }
}

TEST_CASE("Gibbs at sigma = 1e-3 and 1e3 keeps the exact moments (10^5 sweeps, one chain)") {
    // Mild weights so one chain mixes; sigma sets the scale of v. A wrong scale handling
    // (sigma vs sigma^2, or the base in the wrong place) moves the mean or variance by far more
    // than 5 standard errors.
    for (double s : {1e-3, 1e3}) {
        Grbm g = extreme_grbm(2, 2, 0.5, 0.5, Vec::Constant(2, s));
        g.b *= s;  // bias on the scale of v
        const Moments mo = exact_visible_moments(wrap(g));
        ChainRngs rngs(9, 1);
        RowMat V = initial_states(wrap(g), 1, rngs);
        Vec sum = Vec::Zero(2), sum2 = Vec::Zero(2);
        const long T = 100000;
        for (long t = 0; t < T; ++t) {
            gibbs_sweep(g, V, rngs);
            sum += V.row(0).transpose();
            sum2 += V.row(0).transpose().cwiseAbs2();
        }
        for (Index i = 0; i < 2; ++i) {
            const double mean = sum(i) / T, var = sum2(i) / T - mean * mean;
            // Block Gibbs on a 2x2 GRBM at this coupling is nearly independent sweep to sweep;
            // allow autocorrelation time 4.
            const double se = std::sqrt(mo.cov(i, i) * 4 / T);
            CHECK_MSG(std::fabs(mean - mo.mean(i)) < 5 * se, "sigma " << s << " mean " << mean << " vs " << mo.mean(i));
            CHECK_MSG(std::fabs(var / mo.cov(i, i) - 1) < 0.05,
                      "sigma " << s << " var " << var << " vs " << mo.cov(i, i));
        }
    }
}

// ------------------------------------------------------------------------------ AIS

TEST_CASE("AIS, every path: one chain, one step (beta 0 then 1) on extreme models: finite estimates") {
    struct Case {
        Model model;
        std::string path, base;
    };
    const Model toy_far = [] {
        Gaussian a{Vec::Constant(2, -50), Mat::Identity(2, 2) * 1e-6};
        Gaussian b{Vec::Constant(2, 50), Mat::Identity(2, 2) * 1e6};
        Model m = wrap(b);
        m.anneal_from = std::make_shared<const Model>(wrap(a));
        return m;
    }();
    const std::vector<Case> cases = {
        {wrap(extreme_brbm(4, 3, 50, 500)), "geometric", "uniform"},
        {wrap(extreme_brbm(4, 3, 50, 50)), "geometric", "moment"},
        {wrap(extreme_brbm(4, 3, 50, 50)), "moments", "uniform"},
        {wrap(extreme_grbm(3, 3, 50, 50, sigmas(1e-3, 1, 1e3))), "geometric", "moment"},
        {wrap(extreme_grbm(3, 3, 50, 50, sigmas(1e-3, 1, 1e3))), "geometric", "sigma"},
        {wrap(extreme_grbm(3, 3, 50, 50, sigmas(1e-3, 1, 1e3))), "cov", "moment"},
        {wrap(extreme_grbm(3, 3, 50, 50, sigmas(1e-3, 1e-3, 1e-3))), "moments", "moment"},
        {wrap(extreme_grbm(3, 3, 50, 50, sigmas(1e3, 1e3, 1e3), {-1, 0, 1})), "geometric", "moment"},
        {toy_far, "geometric", "moment"},
        {toy_far, "moments", "moment"},
        {wrap(extreme_leaky(1e-4, 50)), "leaky", "moment"},
        {wrap(extreme_leaky(1e-4, 50)), "energy", "moment"},
        {wrap(extreme_leaky(1.0, 50)), "leaky", "moment"},
        {wrap(extreme_leaky(1.0, 50)), "energy", "moment"},
    };
    for (const auto& c : cases) {
        const std::string label = std::string(kind_name(c.model.kind())) + " " + c.path + "/" + c.base;
        const PathPtr p = build(c.model, c.path, c.base);
        check_estimate(run(p, {0.0, 1.0}, 1), label + " 1 chain 1 step");
        check_estimate(run(p, linear_schedule(20), 3), label + " 3 chains 20 steps");
        if (p->can_sample_exactly()) check_estimate(run(p, {0.0, 1.0}, 2, true, true), label + " perfect+reverse");
    }
}

TEST_CASE("AIS, 10^5 steps on a small model: finite and on the exact log Z") {
    // With 10^5 steps the forward estimate must land on the exact value within its own Monte
    // Carlo error; a step that mishandles tiny beta increments (1e-5) would drift.
    const Model b = wrap(extreme_brbm(5, 3, 2, 2));
    const AisResult r = run(build(b, "geometric", "uniform"), linear_schedule(100000), 4);
    check_estimate(r, "brbm 10^5 steps");
    CHECK_NEAR(r.estimate.log_z, exact_log_z(b), 0.02 + 5 * r.estimate.bootstrap_sd);
    const Model l = wrap(extreme_leaky(1e-4, 0, 0.9));
    const AisResult rl = run(build(l, "leaky", "moment"), linear_schedule(100000), 8);
    check_estimate(rl, "leaky 10^5 steps");
    CHECK_NEAR(rl.estimate.log_z, exact_log_z(l), 0.02 + 5 * rl.estimate.bootstrap_sd);
    // At the edge of validity (singular value 0.999) only finiteness is asked: mixing is slow.
    check_estimate(run(build(wrap(extreme_leaky(1e-4, 50)), "leaky", "moment"), linear_schedule(100000), 1),
                   "leaky sv 0.999, 10^5 steps, 1 chain");
}

TEST_CASE("AIS with biases of 500: perfect transitions agree with the exact log Z") {
    // Weights small, biases huge: log Z is about sum |bias|, and the path is easy. Catches a
    // softplus or log-sum-exp that loses the large part (an error of hundreds of nats). The
    // log-weight variance is about sum_i |b_i| / K, so K = 20000 keeps it near 0.1.
    const Model m = wrap(extreme_brbm(4, 3, 0.5, 500));
    const AisResult r = run(build(m, "geometric", "uniform"), linear_schedule(20000), 20, true);
    check_estimate(r, "brbm bias 500");
    CHECK_NEAR(r.estimate.log_z, exact_log_z(m), 0.02 + 5 * r.estimate.bootstrap_sd);
}

TEST_CASE("AIS estimates from log weights 1000 nats apart: finite bootstrap interval") {
    // exp(-1000) underflows: a bootstrap resample without the top chain used to give log(0)
    // and a NaN interval (found by the extreme cov-path case above).
    Vec lw(3);
    lw << 0, -1000, -1000;
    const AisEstimate e = estimate_log_z(lw, 5.0);
    CHECK(is_finite(e.ci95_low) && is_finite(e.ci95_high) && is_finite(e.bootstrap_sd));
    CHECK_NEAR(e.log_z, 5 + std::log(1.0 / 3), 1e-12);
    // The interval spans the resamples with and without the top chain: from log(1/3) - 1000 + 5 ...
    CHECK_NEAR(e.ci95_low, 5 - 1000 + 0.0, 1e-9);
    // ... to a resample holding the top chain two or three times.
    CHECK(e.ci95_high >= 5 + std::log(2.0 / 3) - 1e-9 && e.ci95_high <= 5 + 1e-9);
}

// ------------------------------------------------------------------------------ PT

TEST_CASE("PT: ladder {0, 1}, one chain, one scan and 10^4 scans on extreme models: finite statistics") {
    const std::vector<Model> models = {wrap(extreme_brbm(4, 3, 50, 500)),
                                       wrap(extreme_grbm(3, 3, 50, 50, sigmas(1e-3, 1, 1e3))),
                                       wrap(extreme_grbm(3, 3, 50, 50, sigmas(1e3, 1e3, 1e3), {-1, 0, 1})),
                                       wrap(extreme_leaky(1e-4, 50)), wrap(extreme_leaky(1.0, 50))};
    for (const Model& m : models)
        for (PtScheme scheme : {PtScheme::Reversible, PtScheme::Deo, PtScheme::Lifted})
            for (Index scans : {Index(1), Index(10000)}) {
                PtOptions o;
                o.scheme = scheme;
                o.betas = {0.0, 1.0};
                o.chains = 1;
                o.scans = scans;
                o.seed = 3;
                const PtResult r = run_pt(m, o);
                const std::string label = std::string(kind_name(m.kind())) + " " + pt_scheme_name(scheme) + " " +
                                          std::to_string(scans) + " scans";
                CHECK_MSG(!r.cancelled && r.stats.scans == scans, label);
                CHECK_MSG(all_finite(r.states) && all_finite(r.target_samples), label << ": states");
                for (double x : r.stats.rejection) CHECK_MSG(is_finite(x) && x >= 0 && x <= 1, label << ": r " << x);
                CHECK_MSG(is_finite(r.stats.barrier()) && is_finite(r.stats.round_trip_rate()), label);
                CHECK_MSG(is_finite(r.stats.predicted_round_trip_rate()), label);
            }
}

TEST_CASE("PT on a geometric ladder down to beta_min = 0.7^30 with |W| = 50") {
    const Model m = wrap(extreme_grbm(3, 3, 50, 50, sigmas(1e-3, 1, 1e3)));
    PtOptions o;
    o.betas = geometric_ladder(31, 0.7);
    o.scans = 200;
    o.adaptive_rounds = 2;
    const PtResult r = run_pt(m, o);
    CHECK(all_finite(r.states));
    for (double b : r.betas) CHECK(is_finite(b));
    CHECK(is_finite(r.stats.barrier()));
}

// ------------------------------------------------------------------------------ mean field

TEST_CASE("mean field at |W| = 50 and sigma 1e-3 .. 1e3: finite, and types I/II stay upper bounds on -log Z") {
    for (const Vec& s : {sigmas(1e-3, 1e-3, 1e-3), sigmas(1e3, 1e3, 1e3), sigmas(1e-3, 1, 1e3)})
        for (const auto& X : std::vector<std::vector<double>>{{0, 1}, {-1, 0, 1}})
            for (MeanFieldType t : {MeanFieldType::TypeI, MeanFieldType::TypeII, MeanFieldType::Tap}) {
                const Grbm g = extreme_grbm(3, 3, 50, 50, s, X);
                MeanFieldOptions o;
                o.type = t;
                o.restarts = 3;
                o.max_iterations = 2000;
                const MeanFieldResult r = mean_field(wrap(g), o);
                const std::string label = std::string("type ") + mean_field_type_name(t) + " sigma " +
                                          std::to_string(s(0)) + " |X| " + std::to_string(X.size());
                CHECK_MSG(is_finite(r.free_energy), label << ": F " << r.free_energy);
                CHECK_MSG(all_finite(r.mean_h) && all_finite(r.mean_v) && all_finite(r.var_v), label);
                CHECK_MSG(r.exact.has_value(), label);
                if (r.exact && t != MeanFieldType::Tap)
                    CHECK_MSG(r.free_energy >= r.exact->free_energy - 1e-6 * std::fabs(r.exact->free_energy),
                              label << ": F " << r.free_energy << " below -log Z " << r.exact->free_energy);
            }
}
RBM_TEST_MAIN
