// Normalized densities of 2-D models on a grid, and a view box that holds their mass.
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/exact/enumeration.hpp"

namespace rbm {

namespace {

void require_2d_continuous(const Model& model, const char* what) {
    if (model.kind() == ModelKind::Brbm)
        throw InputError(std::string(what) + " needs continuous visible units; a brbm has binary visible units");
    if (model.n_visible() != 2)
        throw InputError(std::string(what) + " needs a model with 2 visible units, this " + kind_name(model.kind()) +
                         " model has " + std::to_string(model.n_visible()));
}

// A box whose cells can be told apart: finite corners and span, x1 > x0, y1 > y0, and a cell
// wider than a few ulps of the coordinates (b = 1e308 with sigma = 1 gives x0 == x1 in double).
// Empty when usable, else what is wrong.
std::string box_problem(const GridSpec& g) {
    const auto axis = [](double lo, double hi, int cells) {
        if (!(std::isfinite(lo) && std::isfinite(hi) && std::isfinite(hi - lo)) || !(hi > lo)) return false;
        const double cell = (hi - lo) / cells;
        return cell > 8 * std::numeric_limits<double>::epsilon() * std::max(std::fabs(lo), std::fabs(hi));
    };
    if (axis(g.x0, g.x1, std::max(g.nx, 1)) && axis(g.y0, g.y1, std::max(g.ny, 1))) return {};
    std::ostringstream os;
    os << "x [" << g.x0 << ", " << g.x1 << "], y [" << g.y0 << ", " << g.y1 << "]";
    return os.str();
}

void require_grid(const GridSpec& g) {
    if (g.nx < 1 || g.ny < 1 || g.nx > 8192 || g.ny > 8192)
        throw InputError("density grid: nx and ny must be between 1 and 8192, got " + std::to_string(g.nx) + " x " +
                         std::to_string(g.ny));
    if (const std::string p = box_problem(g); !p.empty())
        throw InputError(
            "density grid: the box must be finite with x1 > x0 and y1 > y0 and cells the arithmetic can "
            "tell apart, got " +
            p);
}

// Box [lo - margin, hi + margin] around the points (rows of P), per coordinate. Only finite
// points count; InputError when none is finite or the box is not usable (require_grid's rule),
// naming what the view would need.
GridSpec box_around(const RowMat& P, const Vec& margin, int nx, int ny) {
    GridSpec g;
    g.nx = nx;
    g.ny = ny;
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (Index r = 0; r < P.rows(); ++r) {
        if (!(std::isfinite(P(r, 0)) && std::isfinite(P(r, 1)))) continue;
        for (int c = 0; c < 2; ++c) {
            lo[c] = std::min(lo[c], P(r, c));
            hi[c] = std::max(hi[c], P(r, c));
        }
    }
    if (!(lo[0] <= hi[0] && lo[1] <= hi[1]))
        throw InputError(
            "this model's density cannot be drawn: none of its mode centres is a finite number "
            "(the biases, weights or hidden values are beyond what double arithmetic holds)");
    g.x0 = lo[0] - margin(0);
    g.x1 = hi[0] + margin(0);
    g.y0 = lo[1] - margin(1);
    g.y1 = hi[1] + margin(1);
    if (const std::string p = box_problem(g); !p.empty())
        throw InputError("this model's density cannot be drawn: its view box " + p +
                         " is not finite or too narrow for its magnitude (biases, weights or hidden values too large)");
    return g;
}

}  // namespace

DensityGrid density_grid(const Model& model, const GridSpec& grid, const ExactOptions& opts,
                         const std::function<bool()>& cancelled) {
    require_2d_continuous(model, "a density grid");
    require_grid(grid);
    const auto is_cancelled = [&] { return cancelled && cancelled(); };
    if (is_cancelled()) throw Cancelled();
    DensityGrid out;
    out.spec = grid;
    out.log_z = exact_log_z(model, opts);
    if (!std::isfinite(out.log_z)) {
        std::ostringstream os;
        os << "this model's density cannot be drawn: its log Z is " << out.log_z
           << " (the biases, weights or hidden values are beyond what double arithmetic holds)";
        throw InputError(os.str());
    }
    out.log_density.resize(static_cast<std::size_t>(grid.nx) * static_cast<std::size_t>(grid.ny));
    const double dx = (grid.x1 - grid.x0) / grid.nx, dy = (grid.y1 - grid.y0) / grid.ny;
    for_each_block(
        grid.ny,
        [&](Index begin, Index end) {
            RowMat P(grid.nx, 2);
            for (Index iy = begin; iy < end; ++iy) {
                if (is_cancelled()) throw Cancelled();
                for (int ix = 0; ix < grid.nx; ++ix) {
                    P(ix, 0) = grid.x0 + (ix + 0.5) * dx;
                    P(ix, 1) = grid.y0 + (static_cast<double>(iy) + 0.5) * dy;
                }
                const Vec lp = model.log_unnorm(P);
                for (int ix = 0; ix < grid.nx; ++ix)
                    out.log_density[static_cast<std::size_t>(iy * grid.nx + ix)] = lp(ix) - out.log_z;
            }
        },
        1);
    return out;
}

// GRBM: every mode centre b + sigma∘(W h) with p(h) >= 1e-4, plus 3.5 sigma. When h cannot be
// enumerated, every possible centre (the corners of the box the hidden values span).
// Gaussian and leaky: mean +- 4 sd from the exact moments.
GridSpec default_view(const Model& model, int nx, int ny) {
    require_2d_continuous(model, "a 2-D view");
    if (const auto* g = model.as<Grbm>()) {
        const Vec margin = 3.5 * g->sigma;
        if (has_exact_log_z(model)) {
            const auto heavy = exact_detail::grbm_heavy_configs(*g, 1e-4, {});
            RowMat centres(static_cast<Index>(heavy.size()), 2);
            for (std::size_t k = 0; k < heavy.size(); ++k)
                centres.row(static_cast<Index>(k)) = (g->b + g->sigma.cwiseProduct(g->W * heavy[k].first)).transpose();
            return box_around(centres, margin, nx, ny);
        }
        const auto [lo, hi] = std::minmax_element(g->hidden_values.begin(), g->hidden_values.end());
        RowMat corners(2, 2);
        for (Index i = 0; i < 2; ++i) {
            double a = g->b(i), b = g->b(i);
            for (Index j = 0; j < g->n_hidden(); ++j) {
                const double p = g->sigma(i) * g->W(i, j) * *lo, q = g->sigma(i) * g->W(i, j) * *hi;
                a += std::min(p, q);
                b += std::max(p, q);
            }
            corners(0, i) = a;
            corners(1, i) = b;
        }
        return box_around(corners, margin, nx, ny);
    }
    const Moments mo = exact_visible_moments(model);
    return box_around(RowMat(mo.mean.transpose()), 4.0 * mo.cov.diagonal().cwiseSqrt(), nx, ny);
}

}  // namespace rbm
