// Runtime SIMD dispatch (core/kernels/simd.hpp): every instruction set this machine
// runs gives the fused BRBM step bitwise the log weights and states of the SSE2 path (no FMA
// contraction, per-lane sums in the same order), and the GRBM step the same within rounding
// (Eigen's products use FMA and blockings that depend on the vector width) with AIS estimates
// that agree within their intervals; so does the leaky exact-MH sweep. Paths the processor lacks
// are skipped, saying so.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "check.hpp"
#include "core/ais/paths.hpp"
#include "core/ais/runner.hpp"
#include "core/kernels/simd.hpp"
#include "core/numerics/scalar.hpp"
#include "core/training/score_table.hpp"
#include "simd_paths.hpp"
#include "test_random_models.hpp"

using namespace rbm;

namespace {

struct Run {
    Vec lw;
    RowMat states;
    AisEstimate est;
};

// Paths are built after the path is forced: a kernel keeps the path it was built with.
template <class MakePath>
Run run_on(SimdPath p, MakePath make, Index chains, Index steps) {
    simd_force(p);
    CHECK(std::string(detail::kernel_table().name) == simd_name(p));  // the table called is that path's
    const PathPtr path = make();
    AisOptions o;
    o.chains = chains;
    o.seed = 7;
    o.bootstrap_resamples = 300;
    o.snapshot_chains = chains;
    AisResult r = run_ais(*path, linear_schedule(steps), o);
    return {r.log_weights, r.particles, r.estimate};
}

using rbm::test::paths_to_test;

// 150 x 140: more columns than one panel of the widest path (128 floats) and padding in the last.
Brbm test_brbm() {
    Brbm b = test::random_brbm(5, 150, 140, 0.25);
    b.b.array() -= 0.7;
    b.c.array() -= 0.4;
    return b;
}

void restore() { simd_force(simd_supported().back()); }

}  // namespace

TEST_CASE("simd: paths named, bad names refused") {
    CHECK(simd_parse("sse2") == SimdPath::Sse2);
    CHECK(simd_parse("avx2") == SimdPath::Avx2);
    CHECK(simd_parse("avx512") == SimdPath::Avx512);
    CHECK_THROWS_WITH(simd_parse("avx3"), InputError, "unknown instruction set 'avx3' (expected sse2, avx2 or avx512)");
    CHECK(!simd_supported().empty());
    CHECK(simd_supported().front() == simd_built().front());
    std::printf("  built:");
    for (SimdPath p : simd_built()) std::printf(" %s", simd_name(p));
    std::printf("; this processor: %s; active: %s\n", cpu_features().c_str(), simd_name(simd_active()));
    // The default is the best the processor has (unless the environment forces one).
    const char* env = std::getenv("RBMSCOPE_SIMD");
    if (!env || !*env) CHECK(simd_active() == simd_supported().back());
}

TEST_CASE("simd: BRBM float32 and float64 steps are bitwise those of the baseline path") {
    const Brbm b = test_brbm();
    for (bool f32 : {true, false}) {
        auto make = [&] { return make_brbm_geometric_path(b, b.b, "base", f32); };
        const Run base = run_on(simd_built().front(), make, 64, 40);
        for (SimdPath p : paths_to_test()) {
            const Run r = run_on(p, make, 64, 40);
            const bool same_w = r.lw.size() == base.lw.size() && (r.lw.array() == base.lw.array()).all();
            const bool same_x =
                r.states.size() == base.states.size() && (r.states.array() == base.states.array()).all();
            std::printf("  %s %s: max |dlw| %.3g\n", f32 ? "float32" : "float64", simd_name(p),
                        (r.lw - base.lw).cwiseAbs().maxCoeff());
            CHECK_MSG(same_w, std::string("log weights differ on ") + simd_name(p));
            CHECK_MSG(same_x, std::string("final states differ on ") + simd_name(p));
        }
    }
    restore();
}

TEST_CASE("simd: GRBM steps agree with the baseline path within rounding, estimates within intervals") {
    // 30 x 40 with hidden units in {0,1}: above the plain-loop size, so the Eigen product runs.
    const Grbm g = test::random_grbm(11, 30, 40, {0, 1}, 0.3);
    for (bool f32 : {true, false}) {
        auto make = [&] { return make_grbm_geometric_path(g, DiagGaussianBase{g.b, g.sigma}, "base", f32); };
        const Index chains = 400;
        const Run base = run_on(simd_built().front(), make, chains, 60);
        for (SimdPath p : paths_to_test()) {
            const Run r = run_on(p, make, chains, 60);
            // A different rounding of a pre-activation flips a hidden draw only when the uniform falls
            // within that rounding of the probability (~1e-7 per draw in float, ~1e-16 in double), after
            // which that chain follows another trajectory: all but 1% of the chains must agree to
            // 1e-3 (float; the weights are sums of ~2400 float-rounded terms) or 1e-9 (double).
            const double tol = f32 ? 1e-3 : 1e-9;
            Index off = 0;
            double worst = 0;
            for (Index i = 0; i < chains; ++i) {
                const double d = std::fabs(r.lw(i) - base.lw(i)) / std::max(1.0, std::fabs(base.lw(i)));
                if (d > tol) ++off;
                else worst = std::max(worst, d);
            }
            std::printf(
                "  %s %s: %ld of %ld chains off by more than %.0e, worst of the others %.3g; log Z %.6f vs %.6f\n",
                f32 ? "float32" : "float64", simd_name(p), static_cast<long>(off), static_cast<long>(chains), tol,
                worst, r.est.log_z, base.est.log_z);
            CHECK(off <= chains / 100);
            // The estimates: each inside the other's 95% interval.
            CHECK(r.est.log_z >= base.est.ci95_low && r.est.log_z <= base.est.ci95_high);
            CHECK(base.est.log_z >= r.est.ci95_low && base.est.log_z <= r.est.ci95_high);
        }
    }
    restore();
}

TEST_CASE("simd: leaky exact-MH sweeps agree with the baseline path within rounding, estimates within intervals") {
    // 60 x 8: the sweep's two block products and the path's eta product are Eigen GEMMs on each
    // path (kernels/leaky_block.cpp); a rounding difference decides an MH test or a sign of eta
    // only when it falls within that rounding of the threshold, after which that chain follows
    // another trajectory: all but 1 % of the chains agree to 1e-9. AIS-Energy (from N(b, I)) keeps
    // the acceptance high, so every chain moves.
    const Leaky l = test::random_leaky(21, 60, 8, 0.05, 0.8);
    auto make = [&] { return make_leaky_energy_path(l, LeakyKernel::ExactMH); };
    const Index chains = 400;
    const Run base = run_on(simd_built().front(), make, chains, 40);
    for (SimdPath p : paths_to_test()) {
        const Run r = run_on(p, make, chains, 40);
        Index off = 0;
        double worst = 0;
        for (Index i = 0; i < chains; ++i) {
            const double d = std::fabs(r.lw(i) - base.lw(i)) / std::max(1.0, std::fabs(base.lw(i)));
            if (d > 1e-9) ++off;
            else worst = std::max(worst, d);
        }
        std::printf(
            "  leaky %s: %ld of %ld chains off by more than 1e-9, worst of the others %.3g; log Z %.6f vs %.6f\n",
            simd_name(p), static_cast<long>(off), static_cast<long>(chains), worst, r.est.log_z, base.est.log_z);
        CHECK(off <= chains / 100);
        CHECK(r.est.log_z >= base.est.ci95_low && r.est.log_z <= base.est.ci95_high);
        CHECK(base.est.log_z >= r.est.ci95_low && base.est.log_z <= r.est.ci95_high);
    }
    restore();
}

TEST_CASE("simd: 2-D toy GRBM (plain loops) is bitwise the same on every path") {
    const Grbm g = test::random_grbm(3, 2, 2, {0, 1}, 1.0);
    auto make = [&] { return make_grbm_geometric_path(g, DiagGaussianBase{g.b, g.sigma}, "base", false); };
    const Run base = run_on(simd_built().front(), make, 2000, 50);
    for (SimdPath p : paths_to_test()) {
        const Run r = run_on(p, make, 2000, 50);
        CHECK_MSG((r.lw.array() == base.lw.array()).all(), std::string("log weights differ on ") + simd_name(p));
    }
    restore();
}

RBM_TEST_MAIN

TEST_CASE("simd: the monitor's BRBM row scores match the plain formulas on every path") {
    // log p*(v) = v'b + sum_j softplus(c_j + v'W_j) and |v - sigmoid(sigmoid(c + v'W) W' + b)|^2 per
    // row, on a block of rows starting inside V (first = 5), against Eigen in the baseline build.
    const Brbm b = test_brbm();
    const Index n = b.n_visible(), m = b.n_hidden(), rows = 23;
    Rng rng(3, 0);
    RowMat V(rows + 7, n);
    for (Index r = 0; r < V.rows(); ++r)
        for (Index i = 0; i < n; ++i) V(r, i) = rng.uniform() < 0.4 ? 1.0 : 0.0;
    const RowMat block = V.middleRows(5, rows);
    Model model;
    model.params = b;
    const Vec lu_ref = model.log_unnorm(block);
    RowMat L = block * b.W;
    L.rowwise() += b.c.transpose();
    RowMat R = L.unaryExpr([](double x) { return sigmoid(x); }) * b.W.transpose();
    R.rowwise() += b.b.transpose();
    R = R.unaryExpr([](double x) { return sigmoid(x); });
    const Vec err_ref = (block - R).rowwise().squaredNorm();
    for (SimdPath p : paths_to_test()) {
        simd_force(p);
        detail::ScoreTile t;
        t.X = V.data();
        t.ld = n;
        t.first = 5;
        t.rows = rows;
        t.n = n;
        t.m = m;
        t.W = b.W.data();
        t.b = b.b.data();
        t.c = b.c.data();
        Vec lu(rows), err(rows);
        detail::score_table().row_scores(t, lu.data(), err.data());
        for (Index r = 0; r < rows; ++r) {
            CHECK_MSG(std::abs(lu(r) - lu_ref(r)) <= 1e-9 * (1 + std::abs(lu_ref(r))),
                      simd_name(p) << " row " << r << ": log p* " << lu(r) << " vs " << lu_ref(r));
            CHECK_MSG(std::abs(err(r) - err_ref(r)) <= 1e-9 * (1 + err_ref(r)),
                      simd_name(p) << " row " << r << ": error " << err(r) << " vs " << err_ref(r));
        }
    }
    restore();
}
