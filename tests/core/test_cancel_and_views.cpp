// Hostile models and cancellation, in core: the view box of a 2-D model is finite and usable or an
// InputError (never an out-of-range index or NaN bounds: b = ±1e308, hidden values up to 1e300
// crashed the app), and the long computations the app runs on workers stop on a raised cancel
// flag (Gibbs target moments, MAS knot fits, exact enumeration, mean-field sweeps), so quitting
// never waits for them. A flag that stays down changes nothing, bit for bit.
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "check.hpp"
#include "core/ais/paths.hpp"
#include "core/exact/exact.hpp"
#include "core/io/presets.hpp"
#include "core/meanfield/meanfield.hpp"
#include "test_support.hpp"

using namespace rbm;

namespace {

Grbm grbm2(double b0, double b1, double w, std::vector<double> values, double sigma = 1.0) {
    Grbm g;
    g.W = (Mat(2, 2) << w, 0.5 * w, -0.5 * w, w).finished();
    g.b = (Vec(2) << b0, b1).finished();
    g.c = Vec::Constant(2, -1.0);
    g.sigma = Vec::Constant(2, sigma);
    g.hidden_values = std::move(values);
    return g;
}

// What require_grid (density_grid) accepts: finite, ordered, cells the arithmetic tells apart.
bool usable(const GridSpec& g) {
    return std::isfinite(g.x0) && std::isfinite(g.x1) && std::isfinite(g.y0) && std::isfinite(g.y1) &&
           std::isfinite(g.x1 - g.x0) && std::isfinite(g.y1 - g.y0) && g.x1 > g.x0 && g.y1 > g.y0 &&
           g.x0 + (g.x1 - g.x0) / g.nx != g.x0 && g.y0 + (g.y1 - g.y0) / g.ny != g.y0;
}

bool same_bits(const Mat& a, const Mat& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

// A GRBM too large to enumerate (2^40 hidden configurations): target moments come from Gibbs chains.
Model big_grbm() {
    Grbm g;
    g.W = Mat::Constant(3, 40, 0.05);
    g.b = Vec::Zero(3);
    g.c = Vec::Zero(40);
    g.sigma = Vec::Ones(3);
    g.hidden_values = {0.0, 1.0};
    return test::as_model(g, true);
}

}  // namespace

TEST_CASE("default_view: hostile 2-D models give a usable box or an InputError naming the problem") {
    const double big = 1e308;
    struct Case {
        const char* what;
        Grbm g;
        bool drawable;  // false: default_view or density_grid refuses, saying "cannot be drawn"
    };
    const std::vector<Case> cases{
        {"b = +1e308", grbm2(big, 0, 1, {0, 1}), false},
        {"b = -1e308, +1e308", grbm2(-big, big, 1, {0, 1}), false},
        {"hidden values [0, 1e300]", grbm2(0, 0, 1, {0, 1e300}), false},
        {"W = 1e200", grbm2(0, 0, 1e200, {0, 1}), false},
        {"W = 1e308", grbm2(0, 0, 1e308, {0, 1}), false},
        {"sigma = 1e300", grbm2(0, 0, 1, {0, 1}, 1e300), true},
        {"b = +-1e6, sigma = 1e-6 (narrow but resolvable)", grbm2(1e6, -1e6, 1, {0, 1}, 1e-6), true},
    };
    for (const Case& c : cases) {
        for (int enumerable = 0; enumerable < 2; ++enumerable) {
            // The corner rule (a model too large to enumerate) as well as the heavy-mode rule.
            Grbm g = c.g;
            if (!enumerable) {
                g.W = Mat::Zero(2, 30);
                g.W.leftCols(2) = c.g.W;
                g.c = Vec::Constant(30, -1.0);
            }
            const Model model = test::as_model(g, true);
            bool drawn = false;
            try {
                const GridSpec box = default_view(model, 256, 256);
                CHECK_MSG(usable(box), c.what << ": box x [" << box.x0 << ", " << box.x1 << "], y [" << box.y0 << ", "
                                              << box.y1 << "]");
                if (enumerable) {
                    GridSpec small = box;
                    small.nx = small.ny = 16;
                    CHECK(std::isfinite(density_grid(model, small).log_z));
                }
                drawn = true;
            } catch (const InputError& e) {
                CHECK_MSG(std::string(e.what()).find("cannot be drawn") != std::string::npos,
                          c.what << ": " << e.what());
            }
            if (enumerable) CHECK_MSG(drawn == c.drawable, c.what << (drawn ? ": drawn" : ": refused"));
        }
    }
    // density_grid refuses a box the arithmetic cannot resolve, and a model whose log Z overflows.
    GridSpec flat;
    flat.x0 = 1e308;
    flat.x1 = 1e308 * (1 + 1e-15);
    CHECK_THROWS_WITH(density_grid(load_preset("four-mode"), flat), InputError, "tell apart");
    GridSpec fine;
    fine.nx = fine.ny = 8;
    CHECK_THROWS_WITH(density_grid(test::as_model(grbm2(0, 0, 1, {0, 1e300}), true), fine), InputError, "log Z");
}

TEST_CASE("Gibbs target moments stop on a raised cancel flag; a lowered flag changes nothing") {
    const Model model = big_grbm();
    MomentSource src;
    src.kind = MomentSource::Kind::Gibbs;
    src.gibbs_chains = 20;
    src.gibbs_steps = 50;
    src.gibbs_burn_in = 10;
    const VisibleMoments plain = target_moments(model, src);
    std::atomic<bool> flag{false};
    src.cancel = &flag;
    const VisibleMoments watched = target_moments(model, src);
    CHECK(same_bits(plain.mean, watched.mean) && same_bits(plain.cov, watched.cov));
    flag = true;
    CHECK_THROWS_WITH(target_moments(model, src), Cancelled, "cancelled");
    // Through build_path, as the app's lanes call it (Auto: Gibbs, the model is too large).
    PathRequest req;
    req.path = "geometric";
    req.base = "moment";
    req.moments.cancel = &flag;
    CHECK_THROWS_WITH(build_path(model, req), Cancelled, "cancelled");
}

TEST_CASE("MAS knot fits stop on a raised cancel flag") {
    std::atomic<bool> flag{true};
    PathRequest req;
    req.path = "moments";
    req.base = "moment";
    req.mas.cancel = &flag;
    CHECK_THROWS_WITH(build_path(load_preset("four-mode"), req), Cancelled, "cancelled");
    req.base = "moment";
    req.mas.pcd_chains = 10;
    req.mas.max_iterations = 4;
    CHECK_THROWS_WITH(build_path(big_grbm(), req), Cancelled, "cancelled");  // PCD fits
    flag = false;
    CHECK(build_path(load_preset("four-mode"), req) != nullptr);
}

TEST_CASE("exact enumeration and mean field stop on a raised cancel flag") {
    const Model model = load_preset("four-mode");
    std::atomic<bool> flag{false};
    ExactOptions opts;
    opts.cancel = &flag;
    CHECK(exact_log_z(model, opts) == exact_log_z(model));
    flag = true;
    CHECK_THROWS_WITH(exact_log_z(model, opts), Cancelled, "cancelled");
    CHECK_THROWS_WITH(exact_visible_moments(model, opts), Cancelled, "cancelled");
    CHECK_THROWS_WITH(exact_samples(model, 10, 1, opts), Cancelled, "cancelled");
    MeanFieldOptions mf;
    mf.cancel = &flag;
    CHECK_THROWS_WITH(mean_field(model, mf), Cancelled, "cancelled");
}

RBM_TEST_MAIN
