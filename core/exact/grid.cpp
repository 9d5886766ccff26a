// Normalized densities of 2-D models on a grid, and a view box that holds their mass.
#include <cmath>
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

void require_grid(const GridSpec& g) {
    if (!(std::isfinite(g.x0) && std::isfinite(g.x1) && std::isfinite(g.y0) && std::isfinite(g.y1)) ||
        !(g.x1 > g.x0) || !(g.y1 > g.y0)) {
        std::ostringstream os;
        os << "density grid: the box must be finite with x1 > x0 and y1 > y0, got x [" << g.x0 << ", " << g.x1
           << "], y [" << g.y0 << ", " << g.y1 << "]";
        throw InputError(os.str());
    }
    if (g.nx < 1 || g.ny < 1 || g.nx > 8192 || g.ny > 8192)
        throw InputError("density grid: nx and ny must be between 1 and 8192, got " + std::to_string(g.nx) + " x " +
                         std::to_string(g.ny));
}

// Box [lo - margin, hi + margin] around the points (rows of P), per coordinate.
GridSpec box_around(const RowMat& P, const Vec& margin, int nx, int ny) {
    GridSpec g;
    g.nx = nx;
    g.ny = ny;
    g.x0 = P.col(0).minCoeff() - margin(0);
    g.x1 = P.col(0).maxCoeff() + margin(0);
    g.y0 = P.col(1).minCoeff() - margin(1);
    g.y1 = P.col(1).maxCoeff() + margin(1);
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
