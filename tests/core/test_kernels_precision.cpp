// The fast kernels: float32 and float64 give the same log Z within its interval,
// results do not depend on the thread count, the fused BRBM step adds exactly
// log f_beta - log f_beta' and samples the right conditionals, and the vectorizable math and
// the bulk random words agree with their reference versions.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "check.hpp"
#include "core/ais/paths.hpp"
#include "core/ais/runner.hpp"
#include "core/exact/exact.hpp"
#include "core/kernels/gibbs.hpp"
#include "core/kernels/kernel_table.hpp"
#include "core/kernels/panels.hpp"
#include "core/kernels/simd.hpp"
#include "core/kernels/vector_math.hpp"
#include "core/random/rng.hpp"
#include "core/training/score_table.hpp"
#include "simd_paths.hpp"
#include "test_random_models.hpp"
#include "test_support.hpp"

using namespace rbm;

namespace {

AisResult run(const PathPtr& p, Index steps, Index chains, std::uint64_t seed) {
    AisOptions o;
    o.chains = chains;
    o.seed = seed;
    o.bootstrap_resamples = 300;
    o.snapshot_chains = chains;
    return run_ais(*p, linear_schedule(steps), o);
}

// A BRBM with 12 visible and 8 hidden units whose units are on about a third of the time,
// like the benchmark's, so the row-sum products see varied active sets.
Brbm small_brbm() {
    Brbm b = test::random_brbm(31, 12, 8, 0.6);
    b.b.array() -= 0.7;
    b.c.array() -= 0.4;
    return b;
}

}  // namespace

TEST_CASE("math: exp_nonpositive and log1p_half_range match libm") {
    double worst_exp = 0, worst_expf = 0, worst_log = 0;
    for (int k = 0; k <= 200000; ++k) {
        const double t = -708.0 * std::pow(k / 200000.0, 3);  // dense near 0, down to -708
        worst_exp = std::max(worst_exp, std::fabs(detail::exp_nonpositive(t) / std::exp(t) - 1));
        const float tf = static_cast<float>(t);
        if (tf > -80.0f)
            worst_expf = std::max(
                worst_expf,
                std::fabs(static_cast<double>(detail::exp_nonpositive(tf)) / std::exp(static_cast<double>(tf)) - 1));
        const double z = -0.4999 + 1.4999 * k / 200000.0;
        const double zs = (k % 2 ? 1e-12 : 1.0) * z;  // tiny arguments: relative accuracy kept
        if (zs != 0) worst_log = std::max(worst_log, std::fabs(detail::log1p_half_range(zs) / std::log1p(zs) - 1));
    }
    std::printf("  worst relative error: exp %.2e  expf %.2e  log1p %.2e\n", worst_exp, worst_expf, worst_log);
    CHECK(worst_exp < 1e-15);
    CHECK(worst_expf < 1e-6);
    CHECK(worst_log < 1e-15);
    CHECK(detail::exp_nonpositive(-1e4) >= 0 && detail::exp_nonpositive(-1e4) < 1e-300);
    CHECK(detail::exp_nonpositive(0.0) == 1.0);
}

TEST_CASE("math: the Box-Muller pieces (log_positive, sincos_2pi, normal_pair) match libm") {
    double worst_log = 0, worst_sc = 0;
    Rng rng(5, 9);
    for (int k = 0; k < 400000; ++k) {
        // every word near both ends, then random ones
        const std::uint32_t w = k < 1000   ? static_cast<std::uint32_t>(k)
                                : k < 2000 ? 0xffffffffu - static_cast<std::uint32_t>(k - 1000)
                                           : rng.next_u32();
        const double u = detail::unit_from_word(w);
        worst_log = std::max(worst_log, std::fabs(detail::log_positive(u) / std::log(u) - 1));
        double c, s;
        detail::sincos_2pi(u, c, s);
        const double t = 6.283185307179586476925 * u;
        worst_sc = std::max({worst_sc, std::fabs(c - std::cos(t)), std::fabs(s - std::sin(t))});
    }
    for (double u : {0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0}) {
        double c, s;
        detail::sincos_2pi(u, c, s);
        worst_sc = std::max({worst_sc, std::fabs(c - std::cos(6.283185307179586476925 * u)),
                             std::fabs(s - std::sin(6.283185307179586476925 * u))});
    }
    std::printf("  worst error: log %.2e (relative)  sincos %.2e (absolute)\n", worst_log, worst_sc);
    CHECK(worst_log < 1e-15);
    CHECK(worst_sc < 2e-15);
    double z1, z2;
    detail::normal_pair(0x80000000u, 0x40000000u, z1, z2);  // u1 ~ 1/2, angle ~ pi/2
    const double r = std::sqrt(-2.0 * std::log(detail::unit_from_word(0x80000000u)));
    CHECK(std::fabs(std::hypot(z1, z2) - r) < 1e-14);
}

// The single-precision math of the float32 GRBM step, against libm in double. Bounds: a few
// float ulp (2^-24 = 6e-8 relative) of the result, or of 1 where the result crosses 0.
TEST_CASE("math: the float versions (exp, log, sincos, normal_pair, softplus_step) match libm") {
    double worst_exp = 0, worst_log = 0, worst_sc = 0, worst_sp = 0;
    Rng rng(6, 2);
    for (int k = 0; k <= 200000; ++k) {
        const float t = static_cast<float>(-80.0 * std::pow(k / 200000.0, 3));
        worst_exp = std::max(
            worst_exp, std::fabs(static_cast<double>(detail::exp_nonpositive<true>(t)) / std::exp(double(t)) - 1));
        const std::uint32_t w = k < 1000   ? static_cast<std::uint32_t>(k << 8)
                                : k < 2000 ? 0xffffffffu - static_cast<std::uint32_t>((k - 1000) << 8)
                                           : rng.next_u32();
        const float u = detail::unit_from_word_f(w);
        worst_log = std::max(worst_log, std::fabs(double(detail::log_positive<true>(u)) / std::log(double(u)) - 1));
        float c, s;
        detail::sincos_2pi<true>(u, c, s);
        const double a = 6.283185307179586476925 * u;
        worst_sc = std::max({worst_sc, std::fabs(c - std::cos(a)), std::fabs(s - std::sin(a))});
        // softplus(beta x) - softplus(beta' x) = d max(x, 0) + log((1 + e1)/(1 + e0)) from given float
        // e1, e0 in (0, 1] (the exps are checked above; their rounding enters through the drift case
        // below): the linear term and the log term, each to a few ulp of itself.
        const float e1 = detail::unit_from_word_f(rng.next_u32()),
                    e0 = k % 3 ? detail::unit_from_word_f(rng.next_u32()) : e1 * 0.999f;
        const float x = static_cast<float>(40.0 * (rng.uniform() * 2 - 1));
        const float d = static_cast<float>(std::pow(10.0, -5 + 4.5 * rng.uniform()));
        const double lin = 0.5 * double(d) * (double(x) + std::fabs(double(x)));
        const double lg = std::log1p((double(e1) - double(e0)) / (1.0 + double(e0)));  // e1 - e0 exact in double
        const double got = detail::softplus_step_f<true>(x, d, e1, e0);
        worst_sp =
            std::max(worst_sp, std::fabs(got - (lin + lg)) / (0x1.0p-24 * (std::fabs(lin) + std::fabs(lg)) + 1e-300));
    }
    for (float u : {0.0f, 0.125f, 0.25f, 0.375f, 0.5f, 0.625f, 0.75f, 0.875f, 1.0f}) {
        float c, s;
        detail::sincos_2pi<true>(u, c, s);
        worst_sc = std::max({worst_sc, std::fabs(c - std::cos(6.283185307179586476925 * u)),
                             std::fabs(s - std::sin(6.283185307179586476925 * u))});
    }
    std::printf("  worst relative error: exp %.2e  log %.2e;  sincos %.2e (absolute);  softplus step %.1f ulp\n",
                worst_exp, worst_log, worst_sc, worst_sp);
    CHECK(worst_exp < 3e-7);
    CHECK(worst_log < 3e-7);
    CHECK(worst_sc < 3e-7);
    CHECK(worst_sp < 6);  // s: ~2 roundings, the series ~1, the sums ~1.5: a dropped series term gave 7.7
    float z1, z2;
    detail::normal_pair<true>(0x80000000u, 0x40000000u, z1, z2);  // u1 ~ 1/2, angle ~ pi/2
    const double r = std::sqrt(-2.0 * std::log(double(detail::unit_from_word_f(0x80000000u))));
    CHECK(std::fabs(std::hypot(double(z1), double(z2)) - r) < 1e-6);
}

TEST_CASE("rng: fill_u32 continues the stream exactly as next_u32 does") {
    Rng a(77, 5), b(77, 5);
    std::vector<std::uint32_t> bulk(23);
    for (std::size_t n : {1u, 3u, 4u, 7u, 8u}) {  // every offset within a Philox block
        b.fill_u32(bulk.data(), n);
        for (std::size_t i = 0; i < n; ++i) CHECK(bulk[i] == a.next_u32());
    }
    CHECK(a.uniform() == b.uniform());  // and the state after it is the same
}

// RowPanels::of_matrix_and_transpose builds both panel sets in one pass over A's columns (a
// training update's sampler): every entry, padding included, equals the separate builds', on
// shapes whose rows and columns leave tails of 8 x 8 blocks, of 32-column blocks and of panels.
template <class S>
void check_panel_pair() {
    using Panels = detail::RowPanels<S>;
    for (const auto& [rows, cols] : std::vector<std::pair<Index, Index>>{
             {13, 5}, {8, 8}, {37, Panels::kLanes + 3}, {Panels::kLanes * 2 + 7, 45}, {100, 3 * Panels::kLanes}}) {
        Rng rng(5, static_cast<std::uint64_t>(rows * 1000 + cols));
        Mat A(rows, cols);
        for (Index i = 0; i < rows; ++i)
            for (Index j = 0; j < cols; ++j) A(i, j) = rng.uniform() * 2 - 1;
        const Panels p(A), t(A, true);
        const auto [p2, t2] = Panels::of_matrix_and_transpose(A);
        Index differ = 0, entries = 0;
        for (const auto& [x, y] : {std::pair<const Panels*, const Panels*>{&p, &p2}, {&t, &t2}}) {
            CHECK(x->panels() == y->panels() && x->rows() == y->rows() && x->padded_cols() == y->padded_cols());
            for (Index q = 0; q < x->panels(); ++q)
                for (Index i = 0; i < x->rows(); ++i)
                    for (Index u = 0; u < x->width(q); ++u, ++entries)
                        differ += std::memcmp(x->row(q, i) + u, y->row(q, i) + u, sizeof(S)) != 0;
        }
        CHECK_MSG(differ == 0, rows << " x " << cols << ": " << differ << " of " << entries << " entries differ");
    }
}

TEST_CASE("panels: W and W' in one pass equal the separate builds, float and double") {
    check_panel_pair<float>();
    check_panel_pair<double>();
}

// RowPanels::sum_rows reads a panel in chunks of rows that fit L1 and parks each chain's sums in
// its output row between chunks: the result must be bitwise bias + the rows in increasing order,
// whatever chunk the rows fall in (here the portable build's RowPanels, 4.5 chunks of rows).
template <class S>
void check_panel_sums() {
    using Panels = detail::RowPanels<S>;
    const Index rows = Panels::kChunkRows * 9 / 2, cols = Panels::kLanes * 2 + 5;  // padding in the last panel
    Rng rng(11, 0);
    Mat A(rows, cols);
    for (Index i = 0; i < rows; ++i)
        for (Index j = 0; j < cols; ++j) A(i, j) = rng.uniform() * 2 - 1;
    const Panels panels(A);
    const Index chains = 12, ld = panels.padded_cols() + 3;
    std::vector<S> bias(static_cast<std::size_t>(panels.padded_cols()), S(0));
    for (Index j = 0; j < cols; ++j) bias[static_cast<std::size_t>(j)] = static_cast<S>(rng.uniform());
    std::vector<int> idx, off{0};
    for (Index r = 0; r < chains; ++r) {
        for (Index i = 0; i < rows; ++i) {
            const bool on = r == 0   ? false                                                   // no active row
                            : r == 1 ? true                                                    // every row
                            : r == 2 ? i >= rows - Panels::kChunkRows / 2                      // only in the last chunk
                            : r == 3 ? i == Panels::kChunkRows - 1 || i == Panels::kChunkRows  // across a chunk edge
                                     : rng.uniform() < 0.3;
            if (on) idx.push_back(static_cast<int>(i));
        }
        off.push_back(static_cast<int>(idx.size()));
    }
    std::vector<S> out(static_cast<std::size_t>(chains * ld), S(-7));
    panels.sum_rows(idx.data(), off.data(), chains, bias.data(), out.data(), ld);
    Index differ = 0;
    for (Index r = 0; r < chains; ++r)
        for (Index j = 0; j < cols; ++j) {
            S ref = bias[static_cast<std::size_t>(j)];
            for (int k = off[r]; k < off[r + 1]; ++k) ref += static_cast<S>(A(idx[k], j));
            differ += out[static_cast<std::size_t>(r * ld + j)] != ref;
        }
    CHECK_MSG(differ == 0, differ << " sums differ from bias + rows in order (" << sizeof(S) * 8 << "-bit)");

    // No vector load of a row straddles two cache lines (a split load: the AVX-512 sums ran at 2/3
    // of their rate): rows a whole number of lines wide start on a line, the others on a vector.
    // And every row holds its columns of A.
    Index misaligned = 0, wrong = 0;
    for (Index p = 0; p < panels.panels(); ++p)
        for (Index i = 0; i < rows; ++i) {
            const S* row = panels.row(p, i);
            const std::size_t bytes = static_cast<std::size_t>(panels.width(p)) * sizeof(S);
            const std::size_t align = bytes % detail::kCacheLine == 0 ? detail::kCacheLine : detail::kVectorBytes;
            misaligned += reinterpret_cast<std::uintptr_t>(row) % align != 0;
            for (Index t = 0; t < panels.width(p); ++t) {
                const Index j = p * Panels::kLanes + t;
                wrong += row[t] != (j < cols ? static_cast<S>(A(i, j)) : S(0));
            }
        }
    CHECK_MSG(misaligned == 0, misaligned << " panel rows straddle cache lines");
    CHECK_MSG(wrong == 0, wrong << " panel entries differ from the matrix");
}

TEST_CASE("panel row sums in L1-sized chunks are bitwise the in-order sums (float32, float64)") {
    check_panel_sums<float>();
    check_panel_sums<double>();
}

TEST_CASE("BRBM fused step: increment equals log f_beta - log f_beta', float64 and float32") {
    const Brbm b = small_brbm();
    const Vec base = Vec::Constant(12, -0.3);
    const std::vector<std::pair<double, double>> steps = {
        {0.0, 0.1}, {0.3, 0.30001}, {0.9, 1.0}, {1.0, 0.7}, {0.5, 0.5}};
    test::check_advance_is_increment_then_transition(*make_brbm_geometric_path(b, base, "t"), 150, 3, steps, 1e-13);
    test::check_advance_is_increment_then_transition(*make_brbm_geometric_path(b, base, "t", true), 150, 3, steps,
                                                     1e-6);
}

// A PT sweep runs every row at its own rung: rows at beta = 0 skip their hidden sums (their draw is
// 1/2 whatever the sums) and the swap potentials are added four rows at a time. So each row's new
// state, hidden draw and potential must be bitwise those of a sweep of that row alone at its beta
// (nothing skipped, no group), and the potential V = v'W h + (b - a)'v + c'h that of the dense
// formula up to rounding.
template <bool F32>
void check_sweep_rows_alone() {
    const Brbm b = test::random_brbm(17, 45, 37, 1.0);
    const Vec base = Vec::LinSpaced(45, -0.8, 0.6);
    const auto step = F32 ? detail::kernel_table().brbm_float(b, base) : detail::kernel_table().brbm_double(b, base);
    const std::vector<double> beta = {0.0, 0.3, 1.0, 0.0, 0.0, 0.7, 1.0, 0.05, 0.0, 1.0, 0.5};  // 4 + 4 + 3 rows
    const Index rows = static_cast<Index>(beta.size());
    RowMat X(rows, 45);
    ChainRngs init(3, rows);
    for (Index r = 0; r < rows; ++r)
        for (Index i = 0; i < 45; ++i) X(r, i) = init[r].uniform() < 0.4 ? 1.0 : 0.0;
    // One sweep from X of rows [begin, end) (row_beta: one beta per row of the whole, or null and
    // every row at beta): the new states, hidden draws and potentials of all rows.
    struct Swept {
        RowMat X, H;
        Vec pot;
    };
    const auto sweep_from = [&](std::uint64_t seed, double beta_all, const double* row_beta, Index begin, Index end) {
        Swept o{X, RowMat(rows, 37), Vec(rows)};
        ChainRngs rngs(seed, rows);
        detail::SweepOutputs out;
        out.hidden = &o.H;
        out.potential = &o.pot;
        step->sweep(beta_all, row_beta, o.X, begin, end, rngs, out);
        return o;
    };
    for (int sweep = 0; sweep < 4; ++sweep) {
        const std::uint64_t seed = 100 + static_cast<std::uint64_t>(sweep);
        const Swept a = sweep_from(seed, 1.0, beta.data(), 0, rows);
        for (Index r = 0; r < rows; ++r) {
            const Swept alone = sweep_from(seed, beta[static_cast<std::size_t>(r)], nullptr, r, r + 1);
            CHECK_MSG(a.X.row(r) == alone.X.row(r), "row " << r << " at beta " << beta[static_cast<std::size_t>(r)]);
            CHECK_MSG(a.H.row(r) == alone.H.row(r), "row " << r << " hidden");
            CHECK_MSG(a.pot(r) == alone.pot(r), "row " << r << " potential " << a.pot(r) << " vs " << alone.pot(r));
            const double dense =
                a.X.row(r).dot(b.W * a.H.row(r).transpose()) + a.X.row(r).dot(b.b - base) + a.H.row(r).dot(b.c);
            CHECK_MSG(std::fabs(a.pot(r) - dense) < (F32 ? 1e-5 : 1e-12) * (1 + std::fabs(dense)),
                      "row " << r << " potential " << a.pot(r) << " vs dense " << dense);
        }
        X = a.X;
    }
}

TEST_CASE("BRBM sweep: each row's bits are those of the row alone (rows at beta 0, grouped potentials)") {
    check_sweep_rows_alone<false>();
    check_sweep_rows_alone<true>();
}

TEST_CASE("BRBM fused step: Gibbs chains at beta = 1 reach the exact visible means (both precisions)") {
    const Brbm b = small_brbm();
    const Model model = test::as_model(b);
    const Vec exact_mean = exact_visible_moments(model).mean;
    for (bool f32 : {false, true}) {
        const PathPtr p = make_brbm_geometric_path(b, b.b, "t", f32);
        const Index chains = 4000;
        ChainRngs rngs(11, chains);
        RowMat X(chains, 12);
        p->sample_base(X, 0, chains, rngs);
        for (int t = 0; t < 30; ++t) p->transition(1.0, X, 0, chains, rngs);
        const Vec mean = X.colwise().mean().transpose();
        double worst = 0;
        for (Index i = 0; i < 12; ++i) {
            const double se = std::sqrt(exact_mean(i) * (1 - exact_mean(i)) / chains);
            worst = std::max(worst, std::fabs(mean(i) - exact_mean(i)) / se);
        }
        std::printf("  %s: worst visible mean off by %.2f standard errors\n", f32 ? "float32" : "float64", worst);
        CHECK(worst < 4.5);
    }
}

TEST_CASE("GRBM float32 step: increment equals log f_beta - log f_beta', chains reach the exact moments") {
    // 20 x 16: the float32 step (Eigen's float product, float math), small enough to enumerate.
    const Grbm g = test::random_grbm(17, 20, 16, {0, 1}, 0.3);
    const DiagGaussianBase base{g.b, g.sigma};
    const std::vector<std::pair<double, double>> steps = {
        {0.0, 0.1}, {0.3, 0.30001}, {0.9, 1.0}, {1.0, 0.7}, {0.5, 0.5}};
    test::check_advance_is_increment_then_transition(*make_grbm_geometric_path(g, base, "t", true), 150, 3, steps,
                                                     1e-6);

    // Along a whole anneal (2000 steps), the float32 increments summed in double stay within float
    // rounding of the double log f differences at the same states: the rounding of each term (a few
    // ulp of it and of the two exps, above) accumulates as a random walk, 7.9e-6 here; the bound
    // leaves a factor 12 for another machine's path. (The formula of each step is checked against
    // log f just above; this bounds what the float rounding adds up to over a run.)
    const PathPtr p32 = make_grbm_geometric_path(g, base, "t", true), p64 = make_grbm_geometric_path(g, base, "t");
    const Index chains = 64, K = 2000;
    ChainRngs rngs(21, chains);
    RowMat X(chains, 20);
    p32->sample_base(X, 0, chains, rngs);
    Vec lw = Vec::Zero(chains), ref = Vec::Zero(chains), fa(chains), fb(chains);
    for (Index k = 1; k <= K; ++k) {
        const double b0 = double(k - 1) / K, b1 = double(k) / K;
        p64->log_f(b1, X, 0, chains, fa);
        p64->log_f(b0, X, 0, chains, fb);
        ref += fa - fb;
        p32->advance(b0, b1, X, 0, chains, lw, rngs);
    }
    const double drift = (lw - ref).cwiseAbs().maxCoeff();
    std::printf(
        "  float32 increments over %ld steps: worst |sum - double log f differences| %.2e (|log w| up to %.1f)\n",
        static_cast<long>(K), drift, ref.cwiseAbs().maxCoeff());
    CHECK(drift < 1e-4);

    // Gibbs at beta = 1 from the base: visible means and variances within 4.5 standard errors.
    const Model model = test::as_model(g);
    const Moments exact = exact_visible_moments(model);
    const Index n = 20000;
    ChainRngs r2(12, n);
    RowMat V(n, 20);
    p32->sample_base(V, 0, n, r2);
    for (int t = 0; t < 40; ++t) p32->transition(1.0, V, 0, n, r2);
    double worst_mean = 0, worst_var = 0;
    for (Index i = 0; i < 20; ++i) {
        const double var = exact.cov(i, i);
        const Eigen::ArrayXd dev = V.col(i).array() - V.col(i).mean();
        const double s2 = dev.square().mean(), m4 = dev.square().square().mean();
        worst_mean = std::max(worst_mean, std::fabs(V.col(i).mean() - exact.mean(i)) / std::sqrt(var / n));
        worst_var =
            std::max(worst_var, std::fabs(s2 - var) / std::sqrt((m4 - s2 * s2) / n));  // se of a sample variance
    }
    std::printf("  float32 Gibbs at beta = 1: worst mean %.2f, worst variance %.2f standard errors\n", worst_mean,
                worst_var);
    CHECK(worst_mean < 4.5);
    CHECK(worst_var < 4.5);
}

TEST_CASE("float32 and float64 AIS give the same log Z within its interval (BRBM, GRBM)") {
    const Brbm b = small_brbm();
    const double exb = exact_log_z(test::as_model(b));
    const Grbm g = test::random_grbm(5, 6, 7, {0, 1}, 0.5);
    const double exg = exact_log_z(test::as_model(g));
    struct Pair {
        PathPtr f64, f32;
        double exact;
        const char* what;
    };
    const std::vector<Pair> pairs = {
        {make_brbm_geometric_path(b, b.b, "t"), make_brbm_geometric_path(b, b.b, "t", true), exb, "brbm"},
        {make_grbm_geometric_path(g, DiagGaussianBase{g.b, g.sigma}, "t"),
         make_grbm_geometric_path(g, DiagGaussianBase{g.b, g.sigma}, "t", true), exg, "grbm"}};
    for (const Pair& p : pairs) {
        const AisResult r64 = run(p.f64, 400, 1000, 9), r32 = run(p.f32, 400, 1000, 9);
        const double tol = 4 * std::max(r64.estimate.bootstrap_sd, r32.estimate.bootstrap_sd);
        std::printf("  %s: exact %.4f  float64 %.4f  float32 %.4f  boot sd %.4f\n", p.what, p.exact, r64.estimate.log_z,
                    r32.estimate.log_z, r64.estimate.bootstrap_sd);
        CHECK(std::fabs(r64.estimate.log_z - p.exact) <= tol);
        CHECK(std::fabs(r32.estimate.log_z - p.exact) <= tol);
        CHECK(std::fabs(r32.estimate.log_z - r64.estimate.log_z) <= tol);
        CHECK(r32.log_weights != r64.log_weights);  // float32 really changes the arithmetic
        CHECK(r64.estimate.bootstrap_sd < 0.05);    // the interval is tight enough to mean something
    }
}

TEST_CASE("same numbers at 1 and 2 threads (BRBM float32/float64, GRBM float32, leaky)") {
    const Brbm b = small_brbm();
    const Grbm g = test::random_grbm(5, 6, 7, {0, 1}, 0.5);
    const Leaky l = test::random_leaky(3, 10, 4, 0.1);
    const std::vector<PathPtr> paths = {make_brbm_geometric_path(b, b.b, "t"),
                                        make_brbm_geometric_path(b, b.b, "t", true),
                                        make_grbm_geometric_path(g, DiagGaussianBase{g.b, g.sigma}, "t", true),
                                        make_leaky_leakiness_path(l, LeakyKernel::ExactMH)};
    for (const PathPtr& p : paths) {
        // 300 chains: several blocks of 64, so two threads really split them.
        const AisResult one = test::at_threads(1, [&] { return run(p, 30, 300, 4); });
        const AisResult two = test::at_threads(2, [&] { return run(p, 30, 300, 4); });
        CHECK_MSG(one.log_weights == two.log_weights, p->name() << " " << p->notes());
        CHECK(one.particles == two.particles);
    }
}
TEST_CASE("training's weight step: on every path the bits of the expression as written, and each block's check") {
    // next = W + lr (double(G) inv_rows - decay W), with momentum v = mu velocity + lr (...) and
    // next = W + v: the reference below is that expression in this file's plain double code.
    // 70 x 75: three blocks of 32 columns, the last short, n not a multiple of any vector.
    const Index n = 70, m = 75, blocks = (m + 31) / 32;
    Rng rng(31, 0);
    Mat W(n, m), vel(n, m), Gd(n, m);
    Eigen::MatrixXf Gf(n, m);
    for (Index j = 0; j < m; ++j)
        for (Index i = 0; i < n; ++i) {
            W(i, j) = 0.3 * rng.normal();
            vel(i, j) = 0.01 * rng.normal();
            Gd(i, j) = 40 * rng.normal();
            Gf(i, j) = static_cast<float>(40 * rng.normal());
        }
    const double inv_rows = 1.0 / 37, lr = 0.013, decay = 3e-4, mu = 0.6;
    struct Out {
        Mat next, v;
        std::vector<char> finite;
        std::vector<double> largest;
    };
    auto step = [&](const Mat& w, const void* G, bool f32, bool momentum) {
        Out o;
        o.next.resize(n, m);
        o.v.resize(n, m);
        o.finite.assign(static_cast<std::size_t>(blocks), 2);
        o.largest.assign(static_cast<std::size_t>(blocks), -1.0);
        detail::WeightStep s;
        s.W = w.data();
        s.G = G;
        s.float32 = f32;
        s.next = o.next.data();
        s.n = n;
        s.m = m;
        s.block = 32;
        s.inv_rows = inv_rows;
        s.lr = lr;
        s.decay = decay;
        if (momentum) {
            s.velocity = vel.data();
            s.v = o.v.data();
            s.mu = mu;
        }
        s.finite = o.finite.data();
        s.largest = o.largest.data();
        detail::score_table().weight_step(s);
        return o;
    };
    auto reference = [&](const Mat& w, bool f32, bool momentum, Mat& v) {
        Mat next(n, m);
        v.resize(n, m);
        for (Index j = 0; j < m; ++j)
            for (Index i = 0; i < n; ++i) {
                const double g = (f32 ? static_cast<double>(Gf(i, j)) : Gd(i, j)) * inv_rows;
                const double inner = g - decay * w(i, j);
                if (momentum) {
                    const double a = mu * vel(i, j), b = lr * inner;
                    v(i, j) = a + b;
                    next(i, j) = w(i, j) + v(i, j);
                } else {
                    const double b = lr * inner;
                    next(i, j) = w(i, j) + b;
                }
            }
        return next;
    };
    const std::vector<SimdPath> paths = test::paths_to_test();
    for (SimdPath p : paths) {
        simd_force(p);
        for (bool f32 : {false, true})
            for (bool momentum : {false, true}) {
                const Out o = step(W, f32 ? static_cast<const void*>(Gf.data()) : Gd.data(), f32, momentum);
                Mat v;
                const Mat expect = reference(W, f32, momentum, v);
                CHECK_MSG(o.next == expect, simd_name(p)
                                                << (f32 ? " float" : " double") << (momentum ? " momentum" : ""));
                if (momentum) CHECK(o.v == v);
                for (Index b = 0; b < blocks; ++b) {
                    const Index j0 = 32 * b, w = std::min<Index>(32, m - j0);
                    CHECK(o.finite[static_cast<std::size_t>(b)] == 1);
                    CHECK(o.largest[static_cast<std::size_t>(b)] == expect.middleCols(j0, w).cwiseAbs().maxCoeff());
                }
            }
        // An infinite entry in block 1 and a NaN in block 2: those blocks are not finite and report
        // 0; block 0 reports its largest |entry|, a 2e6 planted there.
        Mat bad = W;
        bad(5, 40) = std::numeric_limits<double>::infinity();
        bad(69, 74) = std::numeric_limits<double>::quiet_NaN();
        bad(3, 7) = -2e6;
        const Out o = step(bad, Gd.data(), false, false);
        CHECK(o.finite[0] == 1);
        CHECK(o.largest[0] == std::fabs(o.next(3, 7)));
        CHECK(o.largest[0] > 1.9e6);
        CHECK(o.finite[1] == 0);
        CHECK(o.largest[1] == 0.0);
        CHECK(o.finite[2] == 0);
        CHECK(o.largest[2] == 0.0);
        // The check alone (a leaky projection's W) reads the same of that next W.
        std::vector<char> finite(static_cast<std::size_t>(blocks), 2);
        std::vector<double> largest(static_cast<std::size_t>(blocks), -1.0);
        detail::WeightStep c;
        c.W = o.next.data();
        c.n = n;
        c.m = m;
        c.block = 32;
        c.finite = finite.data();
        c.largest = largest.data();
        detail::score_table().weight_check(c);
        CHECK(finite == o.finite);
        CHECK(largest == o.largest);
    }
    simd_force(paths.back());
}

RBM_TEST_MAIN
