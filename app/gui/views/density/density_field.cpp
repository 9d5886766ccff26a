#include "views/density/density_field.hpp"

#include <algorithm>
#include <cmath>

#include "core/numerics/parallel.hpp"
#include "core/numerics/scalar.hpp"
#include "core/random/rng.hpp"

namespace rbmscope {
namespace {

double cellArea(const rbm::GridSpec& s) { return (s.x1 - s.x0) / s.nx * (s.y1 - s.y0) / s.ny; }

void finish(Field& f) {
    f.max = 0;
    for (double v : f.p) f.max = std::max(f.max, v);
}

rbm::GridSpec unite(const rbm::GridSpec& a, const rbm::GridSpec& b) {
    rbm::GridSpec s = a;
    s.x0 = std::min(a.x0, b.x0);
    s.x1 = std::max(a.x1, b.x1);
    s.y0 = std::min(a.y0, b.y0);
    s.y1 = std::max(a.y1, b.y1);
    return s;
}

// The [q, 1-q] quantiles of each coordinate of samples X, each side widened by
// min(grow * (their span), cap) (cap per coordinate).
rbm::GridSpec quantileBox(const rbm::RowMat& X, double q, double grow, double capX, double capY) {
    rbm::GridSpec s;
    const auto range = [&](rbm::Index c, double cap, double& lo, double& hi) {
        std::vector<double> v(static_cast<std::size_t>(X.rows()));
        for (rbm::Index r = 0; r < X.rows(); ++r) v[static_cast<std::size_t>(r)] = X(r, c);  // X is row-major
        const auto at = [&](double p) {
            const auto k = static_cast<std::size_t>(std::clamp(p, 0.0, 1.0) * static_cast<double>(v.size() - 1));
            std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
            return v[k];
        };
        lo = at(q);
        hi = at(1 - q);
        const double pad = std::min(grow * std::max(hi - lo, 1e-6), cap);
        lo -= pad;
        hi += pad;
    };
    range(0, capX, s.x0, s.x1);
    range(1, capY, s.y0, s.y1);
    return s;
}

rbm::RowMat baseDraws(const rbm::AnnealingPath& path, rbm::ChainRngs& rngs) {
    rbm::RowMat X(2000, path.dim());
    path.sample_base(X, 0, X.rows(), rngs);
    return X;
}

}  // namespace

QRectF domainOf(const rbm::GridSpec& s) { return QRectF(s.x0, s.y0, s.x1 - s.x0, s.y1 - s.y0); }

rbm::GridSpec withCells(rbm::GridSpec box, int longSide) {
    const double w = box.x1 - box.x0, h = box.y1 - box.y0;
    if (w >= h) {
        box.nx = longSide;
        box.ny = std::max(32, static_cast<int>(std::lround(longSide * h / w)));
    } else {
        box.ny = longSide;
        box.nx = std::max(32, static_cast<int>(std::lround(longSide * w / h)));
    }
    return box;
}

bool drawsOverTwoVisible(const rbm::AnnealingPath& path) { return path.visible_dim() == 2 && path.log_f_on_visible(); }

Field pathField(const rbm::AnnealingPath& path, double beta, const rbm::GridSpec& spec,
                const std::atomic<bool>* cancel) {
    if (!drawsOverTwoVisible(path))
        throw rbm::InputError("the annealing view draws paths over two visible units; this path has " +
                              std::to_string(path.visible_dim()));
    const rbm::Index count = static_cast<rbm::Index>(spec.nx) * spec.ny;
    rbm::RowMat X(count, 2);
    for (int iy = 0; iy < spec.ny; ++iy) {
        const double y = spec.y0 + (iy + 0.5) * (spec.y1 - spec.y0) / spec.ny;
        for (int ix = 0; ix < spec.nx; ++ix) {
            const rbm::Index r = static_cast<rbm::Index>(iy) * spec.nx + ix;
            X(r, 0) = spec.x0 + (ix + 0.5) * (spec.x1 - spec.x0) / spec.nx;
            X(r, 1) = y;
        }
    }
    rbm::Vec logf(count);
    std::atomic<bool> stop{false};
    rbm::for_each_block(
        count,
        [&](rbm::Index b, rbm::Index e) {
            if (stop.load(std::memory_order_relaxed)) return;
            if (cancel && cancel->load(std::memory_order_relaxed)) {
                stop = true;
                return;
            }
            path.log_f(beta, X, b, e, logf);
        },
        4096);
    if (stop) throw rbm::Cancelled();
    Field f;
    f.spec = spec;
    f.logZ = rbm::log_sum_exp(logf) + std::log(cellArea(spec));
    if (!std::isfinite(f.logZ))
        throw rbm::InputError("p_beta has no mass on the grid at beta = " + std::to_string(beta));
    f.p.resize(static_cast<std::size_t>(count));
    for (rbm::Index r = 0; r < count; ++r) f.p[static_cast<std::size_t>(r)] = std::exp(logf(r) - f.logZ);
    finish(f);
    return f;
}

Field exactField(const rbm::Model& model, const rbm::GridSpec& spec, const std::atomic<bool>* cancel) {
    rbm::ExactOptions opts;
    opts.cancel = cancel;  // log Z of a large enumeration, too
    const rbm::DensityGrid g = rbm::density_grid(model, spec, opts, [cancel] { return cancel && cancel->load(); });
    Field f;
    f.spec = spec;
    f.exact = true;
    f.logZ = g.log_z;
    f.p.resize(g.log_density.size());
    for (std::size_t i = 0; i < f.p.size(); ++i) f.p[i] = std::exp(g.log_density[i]);
    finish(f);
    return f;
}

Field annealedField(const rbm::Model& model, const rbm::AnnealingPath& path, double beta, const rbm::GridSpec& spec,
                    const std::atomic<bool>* cancel) {
    if (beta >= 1.0) {
        try {
            return exactField(model, spec, cancel);
        } catch (const rbm::InputError&) {
            // no exact density for this model: the path's own f_1 normalized on the grid
        }
    }
    return pathField(path, beta, spec, cancel);
}

rbm::GridSpec annealingBox(const rbm::Model& model, const std::vector<rbm::PathPtr>& paths, int longSide) {
    // The ends: the target's own view and each path's base draws (0.1% quantiles, widened).
    rbm::GridSpec box;
    bool have = false;
    try {
        box = rbm::default_view(model);
        have = true;
    } catch (const std::exception&) {
    }
    rbm::ChainRngs rngs(7, 2000, rbm::StreamPurpose::Misc);
    for (const auto& p : paths) {
        if (!p || !drawsOverTwoVisible(*p)) continue;
        const rbm::GridSpec b = quantileBox(baseDraws(*p, rngs), 0.001, 0.12, INFINITY, INFINITY);
        box = have ? unite(box, b) : b;
        have = true;
    }
    if (!have) throw rbm::InputError("no view box: the model has no exact moments and no path to sample from");
    // The middle: where exact draws of p_beta go (a geometric path between two distant
    // Gaussians passes far from both ends). Central 90% of the draws, widened by about 1.5
    // standard deviations but by no more than a tenth of the ends' box, so a very broad
    // intermediate distribution (moment averaging) does not shrink everything else.
    const double capX = 0.1 * (box.x1 - box.x0), capY = 0.1 * (box.y1 - box.y0);
    for (const auto& p : paths) {
        if (!p || !drawsOverTwoVisible(*p) || !p->can_sample_exactly()) continue;
        rbm::RowMat X(2000, p->dim());
        for (double beta : {0.25, 0.5, 0.75}) {
            p->sample_exact(beta, X, 0, X.rows(), rngs);
            box = unite(box, quantileBox(X, 0.05, 0.456, capX, capY));
        }
    }
    return withCells(box, longSide);
}

QVector<QPointF> targetModes(const rbm::Model& model, const Field* exact) {
    QVector<QPointF> out;
    if (model.n_visible() != 2) return out;
    if (const auto* g = model.as<rbm::Grbm>()) {
        const rbm::Index m = g->n_hidden();
        const std::size_t k = g->hidden_values.size();
        if (m > 12) return out;
        const rbm::Vec B = g->hidden_marginal_field();
        const rbm::Mat J = g->hidden_marginal_coupling();
        std::size_t total = 1;
        for (rbm::Index j = 0; j < m; ++j) total *= k;
        std::vector<double> logw(total);
        std::vector<rbm::Vec> hs(total);
        double best = -INFINITY;
        for (std::size_t idx = 0; idx < total; ++idx) {
            rbm::Vec h(m);
            std::size_t r = idx;
            for (rbm::Index j = 0; j < m; ++j) {
                h(j) = g->hidden_values[r % k];
                r /= k;
            }
            logw[idx] = B.dot(h) + 0.5 * h.dot(J * h);
            hs[idx] = h;
            best = std::max(best, logw[idx]);
        }
        // Components weighing at least 1/1000 of the heaviest.
        for (std::size_t idx = 0; idx < total; ++idx) {
            if (logw[idx] < best - std::log(1000.0)) continue;
            const rbm::Vec v = g->b + g->sigma.cwiseProduct(g->W * hs[idx]);
            out.push_back({v(0), v(1)});
        }
        return out;
    }
    if (const auto* n = model.as<rbm::Gaussian>()) {
        out.push_back({n->mean(0), n->mean(1)});
        return out;
    }
    if (exact && !exact->p.empty()) {
        const auto it = std::max_element(exact->p.begin(), exact->p.end());
        const auto i = static_cast<int>(it - exact->p.begin());
        const rbm::GridSpec& s = exact->spec;
        out.push_back({s.x0 + (i % s.nx + 0.5) * (s.x1 - s.x0) / s.nx, s.y0 + (i / s.nx + 0.5) * (s.y1 - s.y0) / s.ny});
    }
    return out;
}

QVector<QPointF> toPoints(const rbm::RowMat& X) {
    QVector<QPointF> out;
    if (X.cols() < 2) return out;
    out.reserve(static_cast<qsizetype>(X.rows()));
    for (rbm::Index r = 0; r < X.rows(); ++r) out.push_back({X(r, 0), X(r, 1)});
    return out;
}

}  // namespace rbmscope
