// Parallel tempering (docs/methods/tempering.md): ladders and the barrier interpolation, the lifted state machine,
// round-trip rates against the theory under exact local moves, mode weights of a multimodal
// GRBM against enumeration, targets of the BRBM and leaky families, the adaptive ladder,
// determinism across thread counts, records, cancellation and bad input.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include "check.hpp"
#include "core/kernels/gibbs.hpp"
#include "core/numerics/parallel.hpp"
#include "core/numerics/scalar.hpp"
#include "core/tempering/pt.hpp"
#include "test_random_models.hpp"

using namespace rbm;

namespace {

Model gaussian_pair(const Vec& mu0, const Mat& cov0, const Vec& mu1, const Mat& cov1) {
    Model m;
    m.params = Gaussian{mu1, cov1};
    auto from = std::make_shared<Model>();
    from->params = Gaussian{mu0, cov0};
    m.anneal_from = from;
    return m;
}

// Reference N(0, I) -> target N((3,-2), [[.5,.3],[.3,.8]]): every rung is Gaussian, every local
// move an exact draw, so the round-trip formulas hold exactly (efficient local exploration).
Model exact_moves_model() {
    Vec mu1(2);
    mu1 << 3, -2;
    Mat c1(2, 2);
    c1 << 0.5, 0.3, 0.3, 0.8;
    return gaussian_pair(Vec::Zero(2), Mat::Identity(2, 2), mu1, c1);
}

PtOptions options(PtScheme s, std::vector<double> betas, Index chains, Index scans, std::uint64_t seed) {
    PtOptions o;
    o.scheme = s;
    o.betas = std::move(betas);
    o.chains = chains;
    o.scans = scans;
    o.seed = seed;
    o.sample_chains = 0;
    return o;
}

double max_over_min(const std::vector<double>& r) {
    const auto mm = std::minmax_element(r.begin(), r.end());
    return *mm.second / *mm.first;
}

}  // namespace

// ---------------- ladders and interpolation ----------------
TEST_CASE("ladders: geometric is the paper's gamma^t renumbered, linear, user lists validated") {
    const auto g = geometric_ladder(7, 0.7);
    CHECK(g.size() == 7);
    CHECK_CLOSE(g[0], std::pow(0.7, 6), 1e-15);  // beta_min = gamma^N
    CHECK_CLOSE(g[5], 0.7, 1e-15);
    CHECK(g[6] == 1.0);
    const auto l = linear_ladder(5);
    CHECK(l[0] == 0.0 && l[4] == 1.0);
    CHECK_CLOSE(l[1], 0.25, 1e-15);
    validate_ladder({0.0, 0.3, 1.0});
    CHECK_THROWS_WITH(validate_ladder({0.0, 0.5, 0.5, 1.0}), InputError, "strictly increasing");
    CHECK_THROWS_WITH(validate_ladder({0.0, 0.6, 0.4, 1.0}), InputError, "beta_2 = 0.4 follows beta_1 = 0.6");
    CHECK_THROWS_WITH(validate_ladder({0.0, 0.5, 0.9}), InputError, "last beta must be 1");
    CHECK_THROWS_WITH(validate_ladder({1.0}), InputError, "at least 2");
    CHECK_THROWS_WITH(validate_ladder({-0.1, 1.0}), InputError, ">= 0");
    CHECK_THROWS_WITH(geometric_ladder(1, 0.7), InputError, "at least 2 replicas");
    CHECK_THROWS_WITH(geometric_ladder(5, 1.2), InputError, "gamma");
    CHECK_THROWS_WITH(parse_pt_scheme("metropolis"), InputError, "unknown tempering scheme 'metropolis'");
    CHECK(parse_pt_scheme("deo") == PtScheme::Deo && parse_pt_scheme("lifted") == PtScheme::Lifted);
}

TEST_CASE("monotone cubic: interpolates, never overshoots step data, inverse and derivative agree") {
    // Step-like data: an unlimited cubic spline overshoots here; Fritsch-Carlson must not.
    const MonotoneCubic f({0, 1, 2, 3, 4}, {0, 0, 1, 1, 3});
    double prev = -1;
    bool monotone = true, bounded = true;
    for (int i = 0; i <= 4000; ++i) {
        const double x = i * 1e-3, y = f.value(x);
        if (y < prev - 1e-14) monotone = false;
        if ((x <= 1 && std::fabs(y) > 1e-14) || (x >= 2 && x <= 3 && std::fabs(y - 1) > 1e-14)) bounded = false;
        prev = y;
        if (f.derivative(x) < -1e-12) monotone = false;
    }
    CHECK(monotone);
    CHECK(bounded);
    for (int k = 0; k <= 4; ++k) CHECK_NEAR(f.value(k), std::vector<double>({0, 0, 1, 1, 3})[k], 1e-15);
    for (double y : {0.1, 0.5, 0.9, 1.5, 2.9}) CHECK_NEAR(f.value(f.inverse(y)), y, 1e-10);
    // Derivative against a central difference.
    for (double x : {0.5, 1.3, 2.7, 3.4})
        CHECK_NEAR(f.derivative(x), (f.value(x + 1e-6) - f.value(x - 1e-6)) / 2e-6, 1e-5);
    // Linear data stay linear.
    const MonotoneCubic lin({0, 0.2, 0.5, 1}, {0, 0.4, 1.0, 2.0});
    CHECK_NEAR(lin.value(0.37), 0.74, 1e-12);
    CHECK_NEAR(lin.derivative(0.8), 2.0, 1e-12);
}

TEST_CASE("barrier profile and equalized ladder: equal barrier increments, same ends") {
    const std::vector<double> betas{0.0, 0.25, 0.5, 0.75, 1.0};
    const std::vector<double> r{0.8, 0.4, 0.2, 0.1};
    const BarrierProfile p = barrier_profile(betas, r);
    CHECK_NEAR(p.total(), 1.5, 1e-15);
    CHECK_NEAR(p.cumulative.value(0.5), 1.2, 1e-15);
    const auto nb = equalize_ladder(betas, r, 7);
    CHECK(nb.size() == 7 && nb.front() == 0.0 && nb.back() == 1.0);
    for (int j = 1; j < 6; ++j) CHECK_NEAR(p.cumulative.value(nb[static_cast<std::size_t>(j)]), 1.5 * j / 6.0, 1e-9);
    // More betas where the barrier is steep (low beta here).
    CHECK(nb[3] < 0.5);
    CHECK(recommended_n(1.5) == 3);
    CHECK(recommended_n(0.0) == 1);
    CHECK_THROWS_WITH(barrier_profile(betas, {0.1, 0.2}), InputError, "one rejection rate per pair");
}

// ---------------- lifted state machine ----------------
TEST_CASE("lifted direction: persists on acceptance, flips on rejection and at the ends") {
    const Index last = 4;
    LiftedState s;  // rung 0, heading up
    CHECK(s.pair() == 0);
    s.advance(true, last);
    CHECK(s.rung == 1 && s.direction == +1);
    s.advance(true, last);
    CHECK(s.rung == 2 && s.direction == +1);
    s.advance(false, last);  // rejected: stays, turns
    CHECK(s.rung == 2 && s.direction == -1);
    CHECK(s.pair() == 1);
    s.advance(true, last);
    CHECK(s.rung == 1 && s.direction == -1);
    s.advance(true, last);  // arrives at the reference: turns back up
    CHECK(s.rung == 0 && s.direction == +1);
    s.advance(false, last);  // rejected at the end: an outward direction is impossible
    CHECK(s.rung == 0 && s.direction == +1);
    for (int i = 0; i < 4; ++i) s.advance(true, last);
    CHECK(s.rung == 4 && s.direction == -1);  // arrives at the target: turns down
    CHECK(s.pair() == 3);
    s.advance(false, last);
    CHECK(s.rung == 4 && s.direction == -1);
}

// ---------------- round trips ----------------
TEST_CASE("round-trip counting: with every swap accepted DEO gives 1/2 and the lifted replica 1/(2N)") {
    // Target == reference: V = 0, every swap is accepted, the index process is deterministic.
    const Model m = gaussian_pair(Vec::Zero(2), Mat::Identity(2, 2), Vec::Zero(2), Mat::Identity(2, 2));
    const Index N = 4, T = 4000;
    const PtResult deo = run_pt(m, options(PtScheme::Deo, linear_ladder(N + 1), 1, T, 1));
    for (double r : deo.stats.rejection) CHECK(r == 0.0);
    CHECK_CLOSE(deo.stats.predicted_round_trip_rate(), 0.5, 1e-15);
    // Deterministic; a replica that starts away from the reference misses at most its first trip.
    CHECK_NEAR(deo.stats.round_trip_rate(), 0.5, double(N + 1) / T);
    CHECK(deo.stats.total_round_trips() < T / 2);
    const PtResult lifted = run_pt(m, options(PtScheme::Lifted, linear_ladder(N + 1), 1, T, 1));
    CHECK(lifted.stats.lifted_round_trips == T / (2 * N));  // 0 -> N in N steps, back in N
    CHECK(lifted.stats.total_restarts() >= lifted.stats.lifted_round_trips);
    CHECK_CLOSE(lifted.stats.predicted_round_trip_rate(), 1.0 / (2 * N), 1e-15);
}

TEST_CASE("exact local moves: DEO matches 1/(2+2E), reversible 1/(2N+2E) and is several times slower") {
    const Model m = exact_moves_model();
    const Index N = 16;
    const auto t0 = std::chrono::steady_clock::now();
    const PtResult deo = run_pt(m, options(PtScheme::Deo, linear_ladder(N + 1), 32, 4000, 11));
    const PtResult rev = run_pt(m, options(PtScheme::Reversible, linear_ladder(N + 1), 32, 6000, 12));
    const PtResult lif = run_pt(m, options(PtScheme::Lifted, linear_ladder(N + 1), 32, 6000, 13));
    const double d = deo.stats.round_trip_rate(), dp = deo.stats.predicted_round_trip_rate();
    const double r = rev.stats.round_trip_rate(), rp = rev.stats.predicted_round_trip_rate();
    const double l = lif.stats.lifted_round_trip_rate(), lp = lif.stats.predicted_round_trip_rate();
    std::printf(
        "  N=%ld Lambda=%.3f  DEO %.5f vs %.5f (%ld trips)  reversible %.5f vs %.5f (%ld)  lifted replica "
        "%.5f vs %.5f (%ld)  DEO/rev %.2f  [%.2fs]\n",
        (long)N, deo.stats.barrier(), d, dp, (long)deo.stats.total_round_trips(), r, rp,
        (long)rev.stats.total_round_trips(), l, lp, (long)lif.stats.lifted_round_trips, d / r,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    CHECK(deo.stats.total_round_trips() > 5000);
    CHECK_NEAR(d / dp, 1.0, 0.10);
    CHECK_NEAR(r / rp, 1.0, 0.15);  // diffusive: fewer trips, and the start weighs more
    CHECK_NEAR(l / lp, 1.0, 0.15);
    CHECK(d / r > 3.5);
    // The same r_k whatever the scheme (they estimate the same stationary quantity).
    for (Index k = 0; k < N; ++k)
        CHECK_NEAR(deo.stats.rejection[static_cast<std::size_t>(k)], rev.stats.rejection[static_cast<std::size_t>(k)],
                   0.02);
    // Empirical acceptance of the proposed swaps agrees with the Rao-Blackwellised 1 - r_k.
    for (Index k = 0; k < N; ++k) {
        const auto s = static_cast<std::size_t>(k);
        const double emp = double(deo.stats.accepted[s]) / double(deo.stats.proposed[s]);
        CHECK_NEAR(emp, 1.0 - deo.stats.rejection[s], 0.02);
    }
}

TEST_CASE("lifted PT: ballistic runs of the lifted replica, diffusive ones under reversible PT") {
    Vec mu1(2);
    mu1 << 1, 0;
    const Model m = gaussian_pair(Vec::Zero(2), Mat::Identity(2, 2), mu1, 0.5 * Mat::Identity(2, 2));
    PtOptions o = options(PtScheme::Lifted, linear_ladder(11), 1, 3000, 21);
    const PtResult lif = run_pt(m, o);
    o.scheme = PtScheme::Reversible;
    const PtResult rev = run_pt(m, o);
    CHECK(lif.history.stride() == 1 && rev.history.stride() == 1);
    const double run_l = mean_monotone_run(lif.history.trajectory(0, 0));
    const double run_r = mean_monotone_run(rev.history.trajectory(0, 0));
    std::printf("  mean monotone run: lifted %.2f, reversible %.2f (Lambda %.3f)\n", run_l, run_r, lif.stats.barrier());
    CHECK(run_l > 3.0 * run_r);
    CHECK(run_r < 3.0);
    // The lifted replica recorded by the sampler is the one the history shows at that rung.
    CHECK(lif.replica_at[static_cast<std::size_t>(lif.lifted[0].rung)] == 0);
}

// ---------------- targets ----------------
TEST_CASE("multimodal GRBM: PT mode weights match enumeration (chi-square), single-chain Gibbs does not") {
    // Four modes at (0,0), (10,0), (0,10), (10,10), sigma 1: Gibbs never crosses between them.
    // p(h) ∝ exp(B.h + h'Jh/2) with B = c, J = 100 I: log weights 0, 0.5, -0.7, -0.2.
    Grbm g;
    g.W = 10.0 * Mat::Identity(2, 2);
    g.b = Vec::Zero(2);
    g.c = Vec(2);
    g.c << -49.5, -50.7;
    g.sigma = Vec::Ones(2);
    Model m;
    m.params = g;
    const Vec B = g.hidden_marginal_field();
    const Mat J = g.hidden_marginal_coupling();
    double p[4], lw[4];
    for (int s = 0; s < 4; ++s) {
        Vec h(2);
        h << (s & 1), (s >> 1) & 1;
        lw[s] = B.dot(h) + 0.5 * h.dot(J * h);
    }
    const double lz = log_sum_exp(std::span<const double>(lw, 4));
    for (int s = 0; s < 4; ++s) p[s] = std::exp(lw[s] - lz);
    auto chi2 = [&](const RowMat& H) {
        double cnt[4] = {0, 0, 0, 0};
        for (Index i = 0; i < H.rows(); ++i) cnt[int(H(i, 0)) + 2 * int(H(i, 1))] += 1;
        const double n = double(H.rows());
        double x = 0;
        for (int s = 0; s < 4; ++s) x += (cnt[s] - n * p[s]) * (cnt[s] - n * p[s]) / (n * p[s]);
        return x;
    };
    // One sample per independent PT chain (its final target state): a multinomial sample.
    const Index C = 1500, T = 300;
    PtOptions o = options(PtScheme::Deo, geometric_ladder(11, 0.7), C, T, 3);
    o.sample_chains = C;
    o.burn_in = T - 1;
    const PtResult pt = run_pt(m, o);
    CHECK(pt.target_hidden.rows() == C);
    const double x_pt = chi2(pt.target_hidden);
    // An off-centre reference: the default one sits at equal distance from the four modes, so
    // only this run tests the reference term of the swap potential.
    o.reference.grbm = DiagGaussianBase{Vec::Constant(2, 1.0), Vec::Constant(2, 7.0)};
    o.seed = 4;
    const double x_pt_offset = chi2(run_pt(m, o).target_hidden);
    // Single-chain Gibbs from the same broad reference, same number of sweeps.
    const DiagGaussianBase base = default_grbm_reference(g);
    ChainRngs rngs(3, C);
    RowMat V(C, 2), Lambda, H;
    for (Index i = 0; i < C; ++i)
        for (Index d = 0; d < 2; ++d) V(i, d) = base.mean(d) + base.sigma(d) * rngs[i].normal();
    for (Index t = 0; t < T; ++t) {
        grbm_hidden_field(g, V, 0, C, Lambda);
        grbm_sample_hidden(g, Lambda, 1.0, H, rngs, 0);
        grbm_sample_visible(g, H, 1.0, nullptr, V, 0, rngs);
    }
    const double x_gibbs = chi2(H);
    std::printf(
        "  exact p(h) %.4f %.4f %.4f %.4f; chi2 (3 df, 1500 samples): PT %.2f, PT off-centre reference "
        "%.2f, single-chain Gibbs %.1f; Lambda %.3f\n",
        p[0], p[1], p[2], p[3], x_pt, x_pt_offset, x_gibbs, pt.stats.barrier());
    CHECK(x_pt < 16.27);  // p = 0.001
    CHECK(x_pt_offset < 16.27);
    CHECK(x_gibbs > 40.0);
}

TEST_CASE("BRBM and leaky families: PT target means match the exact ones within 5 standard errors") {
    // BRBM: strong weights, exact E[v] by enumerating v.
    const Brbm b = test::random_brbm(5, 6, 3, 2.0);
    Model mb;
    mb.params = b;
    RowMat all(64, 6);
    for (int s = 0; s < 64; ++s)
        for (int i = 0; i < 6; ++i) all(s, i) = (s >> i) & 1;
    const Vec lf = b.log_unnorm(all);
    const double lz = log_sum_exp(lf);
    const Vec exact_b = all.transpose() * (lf.array() - lz).exp().matrix();
    // Leaky at leakiness 1: Gaussian with mean (I - WW')^-1 (b + Wc).
    const Leaky l = test::random_leaky(8, 3, 2, 1.0, 0.95);
    Model ml;
    ml.params = l;
    const Mat P = Mat::Identity(3, 3) - l.W * l.W.transpose();
    const Vec exact_l = P.llt().solve(l.b + l.W * l.c);

    auto check_means = [](const Model& model, const Vec& exact, const char* what, const PtReference& ref) {
        const Index C = 200, T = 400, burn = 100;
        PtOptions o = options(PtScheme::Deo, geometric_ladder(6, 0.6), C, T, 9);
        o.reference = ref;
        o.sample_chains = C;
        o.burn_in = burn;
        const PtResult r = run_pt(model, o);
        const Index n = exact.size(), per = r.target_samples.rows() / C;
        // Chain means are independent: their spread gives an honest standard error.
        Mat means = Mat::Zero(C, n);
        for (Index i = 0; i < r.target_samples.rows(); ++i)
            means.row(r.sample_chains[static_cast<std::size_t>(i)]) += r.target_samples.row(i) / double(per);
        const Vec grand = means.colwise().mean();
        double worst = 0;
        for (Index d = 0; d < n; ++d) {
            const double sd = std::sqrt((means.col(d).array() - grand(d)).square().sum() / double(C - 1));
            const double z = (grand(d) - exact(d)) / (sd / std::sqrt(double(C)));
            worst = std::max(worst, std::fabs(z));
            CHECK_MSG(std::fabs(z) < 5.0, what << " coordinate " << d << ": " << grand(d) << " vs " << exact(d));
        }
        std::printf("  %s: worst |z| %.2f over %ld coordinates; Lambda %.3f\n", what, worst, (long)n,
                    r.stats.barrier());
    };
    check_means(mb, exact_b, "BRBM", {});
    PtReference biased;  // exercises the b_A term of the potential
    biased.brbm_bias = Vec(6);
    *biased.brbm_bias << 2, -2, 1, -1, 2, -2;
    check_means(mb, exact_b, "BRBM, reference bias b_A", biased);
    PtReference f32;  // the fused kernel's float32 products (--precision float32)
    f32.brbm_float32 = true;
    check_means(mb, exact_b, "BRBM, float32 products", f32);
    check_means(ml, exact_l, "leaky (cL = 1)", {});
}

// ---------------- adaptive ladder ----------------
TEST_CASE("adaptive ladder: rejection rates far more even than on a linear ladder") {
    // Broad reference N(0, 25 I), narrow target: a linear ladder puts nearly all the barrier in its
    // first pair.
    Mat c1(2, 2);
    c1 << 0.05, 0.02, 0.02, 0.05;
    Vec mu1(2);
    mu1 << 3, -2;
    const Model m = gaussian_pair(Vec::Zero(2), 25.0 * Mat::Identity(2, 2), mu1, c1);
    PtOptions o = options(PtScheme::Deo, linear_ladder(11), 16, 2000, 5);
    const PtResult lin = run_pt(m, o);
    o.adaptive_rounds = 4;
    const PtResult ada = run_pt(m, o);
    const double q_lin = max_over_min(lin.stats.rejection), q_ada = max_over_min(ada.stats.rejection);
    std::printf(
        "  max/min r_k: linear %.2f, adaptive %.2f; round trips per scan %.4f -> %.4f; Lambda %.3f; "
        "recommended N %ld\n",
        q_lin, q_ada, lin.stats.round_trip_rate(), ada.stats.round_trip_rate(), ada.stats.barrier(),
        (long)recommended_n(ada.stats.barrier()));
    CHECK(q_lin > 10.0);
    CHECK(q_ada < 2.0);
    CHECK(ada.stats.round_trip_rate() > 4.0 * lin.stats.round_trip_rate());
    CHECK(ada.rounds.size() == 4);
    CHECK(ada.rounds[0].scans == 125 && ada.rounds[3].scans == 1000 && ada.stats.scans == 2000);
    CHECK(ada.betas.front() == 0.0 && ada.betas.back() == 1.0 && ada.betas.size() == 11);
    CHECK(ada.scans_done == 125 + 250 + 500 + 1000 + 2000);
}

// ---------------- determinism and records ----------------
TEST_CASE("same seed: identical index process, states and statistics at 1 and 2 threads") {
    const Grbm g = test::random_grbm(4, 3, 2);
    Model m;
    m.params = g;
    for (PtScheme s : {PtScheme::Deo, PtScheme::Reversible, PtScheme::Single, PtScheme::Lifted}) {
        PtOptions o = options(s, geometric_ladder(7, 0.7), 150, 40, 77);  // 3 chain blocks per rung
        o.sample_chains = 5;
        o.history_chains = 150;
        PtResult a, b;
        {
            ThreadLimit one(1);
            a = run_pt(m, o);
        }
        {
            ThreadLimit two(2);
            b = run_pt(m, o);
        }
        bool same_history = a.history.size() == b.history.size() && a.history.size() == 40;
        for (Index i = 0; same_history && i < a.history.size(); ++i)
            for (Index c = 0; c < 150; ++c)
                for (Index k = 0; k < 7; ++k)
                    same_history = same_history && a.history.replica_at(i, c, k) == b.history.replica_at(i, c, k);
        CHECK_MSG(same_history, pt_scheme_name(s));
        CHECK(a.states == b.states);
        CHECK(a.hidden == b.hidden);
        CHECK(a.target_samples == b.target_samples);
        CHECK(a.stats.rejection == b.stats.rejection);
        CHECK(a.stats.round_trips == b.stats.round_trips);
        // A different seed gives a different process.
        o.seed = 78;
        const PtResult c = run_pt(m, o);
        CHECK(!(c.states == a.states));
    }
}

// P threads as the parts of one PtExchange: all_gather hands every part the concatenation of
// the parts' vectors in part order and or-s the stop flags.
class ThreadParts {
public:
    explicit ThreadParts(Index parts) : mine_(static_cast<std::size_t>(parts)) {
        for (Index q = 0; q < parts; ++q) parts_.push_back(std::make_unique<Part>(*this, q));
    }
    PtExchange& part(Index q) { return *parts_[static_cast<std::size_t>(q)]; }
    Index gathers() const { return gathers_; }

private:
    struct Part final : PtExchange {
        Part(ThreadParts& w, Index q) : w(w), q(q) {}
        Index parts() const override { return static_cast<Index>(w.mine_.size()); }
        Index part() const override { return q; }
        std::vector<double> all_gather(const std::vector<double>& mine, bool& stop) override {
            std::unique_lock<std::mutex> lock(w.m_);
            w.mine_[static_cast<std::size_t>(q)] = mine;
            w.stop_in_ = w.stop_in_ || stop;
            const Index gen = w.generation_;
            if (++w.arrived_ == parts()) {
                w.all_.clear();
                for (const auto& v : w.mine_) w.all_.insert(w.all_.end(), v.begin(), v.end());
                w.stop_out_ = w.stop_in_;
                w.stop_in_ = false;
                w.arrived_ = 0;
                ++w.generation_;
                ++w.gathers_;
                w.cv_.notify_all();
            } else {
                w.cv_.wait(lock, [&] { return w.generation_ != gen; });
            }
            stop = w.stop_out_;
            return w.all_;
        }
        ThreadParts& w;
        Index q;
    };
    std::mutex m_;
    std::condition_variable cv_;
    std::vector<std::vector<double>> mine_;
    std::vector<double> all_;
    bool stop_in_ = false, stop_out_ = false;
    Index arrived_ = 0, generation_ = 0, gathers_ = 0;
    std::vector<std::unique_ptr<Part>> parts_;
};

TEST_CASE("shared slots: 2 and 3 parts give bitwise the run of one process, every model kind and scheme") {
    std::vector<std::pair<std::string, Model>> models;
    models.push_back({"grbm", Model{}});
    models.back().second.params = test::random_grbm(5, 6, 4);
    models.push_back({"brbm", Model{}});
    models.back().second.params = test::random_brbm(6, 10, 7);
    models.push_back({"leaky", Model{}});
    models.back().second.params = test::random_leaky(7, 5, 3, 0.5);
    models.push_back({"gaussian", exact_moves_model()});
    const PtScheme schemes[] = {PtScheme::Deo, PtScheme::Reversible, PtScheme::Single, PtScheme::Lifted};
    int i = 0;
    for (const auto& entry : models) {
        const auto& name = entry.first;  // (clang 14 cannot capture a structured binding in a lambda)
        const Model& m = entry.second;
        const PtScheme scheme = schemes[i++ % 4];
        PtOptions o = options(scheme, geometric_ladder(7, 0.7), 150, 30, 11);  // 3 chain blocks per slot
        o.sample_chains = 0;
        o.history_chains = 150;
        const PtResult one = run_pt(m, o);
        for (Index P : {2, 3}) {
            ThreadParts world(P);
            std::vector<PtResult> res(static_cast<std::size_t>(P));
            std::vector<std::thread> threads;
            for (Index q = 0; q < P; ++q)
                threads.emplace_back([&, q] {
                    PtControl control;
                    control.exchange = &world.part(q);
                    res[static_cast<std::size_t>(q)] = run_pt(m, o, control);
                });
            for (auto& t : threads) t.join();
            // One potentials gather per scan, then the states once (V, and H when there is one).
            const Index state_gathers = one.hidden.cols() > 0 ? 2 : 1;
            CHECK_MSG(world.gathers() == 30 + state_gathers, name << ": " << world.gathers() << " gathers");
            for (Index q = 0; q < P; ++q) {
                const PtResult& r = res[static_cast<std::size_t>(q)];
                bool same_history = r.history.size() == one.history.size();
                for (Index h = 0; same_history && h < r.history.size(); ++h)
                    for (Index c = 0; c < 150; ++c)
                        for (Index k = 0; k < 7; ++k)
                            same_history =
                                same_history && r.history.replica_at(h, c, k) == one.history.replica_at(h, c, k);
                CHECK_MSG(same_history, name << " part " << q << " of " << P);
                CHECK_MSG(r.states == one.states && r.hidden == one.hidden, name << " part " << q << " of " << P);
                CHECK_MSG(r.replica_at == one.replica_at, name);
                CHECK_MSG(r.stats.rejection == one.stats.rejection && r.stats.accepted == one.stats.accepted, name);
                CHECK_MSG(r.stats.round_trips == one.stats.round_trips && r.stats.restarts == one.stats.restarts, name);
            }
        }
    }
    // Target samples would cross the parts every scan: refused before the first scan.
    ThreadParts world(2);
    PtControl control;
    control.exchange = &world.part(0);
    PtOptions o = options(PtScheme::Deo, geometric_ladder(7, 0.7), 8, 5, 1);
    o.sample_chains = 1;
    CHECK_THROWS_WITH(run_pt(models[0].second, o, control), InputError, "records no target samples");
}

TEST_CASE("checkpoint state is rung-major through the slot permutation; a restored sampler continues bitwise") {
    Model m;
    m.params = test::random_brbm(8, 9, 5);
    PtOptions o = options(PtScheme::Deo, geometric_ladder(6, 0.6), 70, 1, 21);
    const auto tm = make_tempered_model(m), tm2 = make_tempered_model(m);
    PtSampler a(*tm, o), b(*tm2, o);
    for (int t = 0; t < 25; ++t) a.scan();
    const PtSampler::State s = a.state();
    bool moved = false, rung_major = true;
    for (Index c = 0; c < 70; ++c)
        for (Index k = 0; k < 6; ++k) {
            const Index slot = a.replica_at()[static_cast<std::size_t>(c * 6 + k)];
            moved = moved || slot != k;
            rung_major = rung_major && s.V.row(k * 70 + c) == a.slot_states().row(slot * 70 + c) &&
                         s.H.row(k * 70 + c) == a.slot_hidden().row(slot * 70 + c) &&
                         a.states().row(k * 70 + c) == a.slot_states().row(a.row_at(k, c));
        }
    CHECK_MSG(moved, "no swap accepted in 25 scans: the test sees no permutation");
    CHECK(rung_major);
    b.set_state(s);
    CHECK(b.states() == a.states() && b.hidden() == a.hidden() && b.slot_states() == a.slot_states());
    for (int t = 0; t < 10; ++t) {
        a.reseed(100 + t);
        b.reseed(100 + t);
        a.scan();
        b.scan();
    }
    CHECK(a.states() == b.states() && a.replica_at() == b.replica_at());
}

TEST_CASE("decimated history keeps exactly the full history's records at multiples of its stride") {
    const Model m = exact_moves_model();
    PtOptions o = options(PtScheme::Deo, linear_ladder(5), 2, 1000, 2);
    const PtResult full = run_pt(m, o);
    o.max_history_bytes = 2 * 5 * 64;  // room for 64 records of 2 chains x 5 rungs
    const PtResult small = run_pt(m, o);
    CHECK(full.history.size() == 1000 && full.history.stride() == 1);
    CHECK(small.history.size() <= 64 && small.history.size() >= 32);
    CHECK(small.history.stride() == 16);
    bool ok = true;
    for (Index i = 0; i < small.history.size(); ++i) {
        const Index scan = small.history.scan(i);
        ok = ok && scan == i * small.history.stride();
        for (Index c = 0; c < 2; ++c)
            for (Index k = 0; k < 5; ++k)
                ok = ok && small.history.replica_at(i, c, k) == full.history.replica_at(scan, c, k);
    }
    CHECK(ok);
    // Every record is a permutation of the replicas.
    bool perm = true;
    for (Index i = 0; i < full.history.size(); i += 37) {
        std::vector<int> seen(5, 0);
        for (Index k = 0; k < 5; ++k) ++seen[static_cast<std::size_t>(full.history.replica_at(i, 1, k))];
        perm = perm && std::all_of(seen.begin(), seen.end(), [](int x) { return x == 1; });
    }
    CHECK(perm);
    // Samples decimate the same way.
    o.sample_chains = 1;
    o.max_samples = 100;
    const PtResult s = run_pt(m, o);
    CHECK(s.target_samples.rows() <= 100 && s.target_samples.rows() >= 50);
    CHECK(s.sample_scans[1] - s.sample_scans[0] == 16);
}

TEST_CASE("streaming: progress snapshots from the worker, cancel after the next scan returns the partial run") {
    const Model m = exact_moves_model();
    PtOptions o = options(PtScheme::Deo, linear_ladder(9), 4, 100000000, 1);
    o.window = 64;
    std::atomic<bool> cancel{false};
    PtControl ctl;
    ctl.cancel = &cancel;
    int calls = 0;
    PtSnapshot first;
    std::chrono::steady_clock::time_point raised;
    ctl.on_progress = [&](const PtSnapshot& s) {
        if (calls++ == 0) {
            first = s;
            raised = std::chrono::steady_clock::now();
            cancel = true;
        }
    };
    const PtResult r = run_pt(m, o, ctl);
    const double latency = std::chrono::duration<double>(std::chrono::steady_clock::now() - raised).count();
    std::printf("  cancelled after %ld scans, %.1f ms after the flag\n", (long)r.scans_done, 1e3 * latency);
    CHECK(r.cancelled);
    CHECK(r.scans_done > 0 && r.scans_done < o.scans);
    // Promptness by construction, not by the clock: the flag is checked after every
    // scan, so at most the scan under way when it was raised completes.
    CHECK(r.scans_done <= first.scans_done + 1);
    CHECK(calls == 2);  // the first report, and the final one
    CHECK(first.scans_done > 0 && first.stats.scans == first.scans_done);
    CHECK(first.recent_scans == std::min<Index>(64, first.scans_done));
    CHECK(first.recent.size() == static_cast<std::size_t>(first.recent_scans * 9));
    CHECK(first.states.rows() == 9 && first.states.cols() == 2);
    CHECK(r.stats.scans == r.scans_done);
}

// ---------------- bad input ----------------
TEST_CASE("bad input: options, references and ladders are refused with clear messages") {
    const Model m = exact_moves_model();
    PtOptions o = options(PtScheme::Deo, linear_ladder(5), 0, 10, 1);
    CHECK_THROWS_WITH(run_pt(m, o), InputError, "at least 1 chain");
    o.chains = 1;
    o.betas = {0.0, 0.5, 0.4, 1.0};
    CHECK_THROWS_WITH(run_pt(m, o), InputError, "strictly increasing");
    o.betas = {1.0};
    CHECK_THROWS_WITH(run_pt(m, o), InputError, "N >= 1");
    o.betas = linear_ladder(5);
    o.scans = 0;
    CHECK_THROWS_WITH(run_pt(m, o), InputError, "at least 1 scan");
    Model g;
    g.params = test::random_grbm(1, 3, 2);
    PtReference ref;
    ref.grbm = DiagGaussianBase{Vec::Zero(2), Vec::Ones(2)};
    CHECK_THROWS_WITH(make_tempered_model(g, ref), InputError, "GRBM reference mean has length 2, expected 3");
    ref.grbm = DiagGaussianBase{Vec::Zero(3), -Vec::Ones(3)};
    CHECK_THROWS_WITH(make_tempered_model(g, ref), InputError, "sigma must be > 0");
    PtReference scale;
    scale.grbm_scale = 0;
    CHECK_THROWS_WITH(make_tempered_model(g, scale), InputError, "scale");
}

RBM_TEST_MAIN
