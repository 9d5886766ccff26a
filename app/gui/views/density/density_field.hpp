#pragma once
// Densities on a 2-D grid for the heatmap views, computed on a worker: the exact target density,
// the intermediate density p_beta of any annealing path (log f_beta on the grid points, normalized
// on the grid), the box a set of paths needs, and the target's modes. No Qt widgets here.
#include <QPointF>
#include <QRectF>
#include <QVector>
#include <atomic>
#include <vector>

#include "core/ais/path.hpp"
#include "core/exact/exact.hpp"
#include "core/models/models.hpp"

namespace rbmscope {

struct Field {
    rbm::GridSpec spec;
    std::vector<double> p;  // normalized density, ny rows of nx values, row 0 at y0
    double max = 0;
    double logZ = 0;     // exact log Z, or the grid's estimate of log Z_beta (Riemann sum)
    bool exact = false;  // from rbm::density_grid (the target's exact density)
};

// Whether pathField can draw `path`: two visible units, and log_f a function of them alone.
bool drawsOverTwoVisible(const rbm::AnnealingPath& path);
// p_beta of `path` (drawsOverTwoVisible), normalized on the grid. Throws rbm::Cancelled
// when *cancel is raised, rbm::InputError when the path is not 2-D or the grid holds no mass.
Field pathField(const rbm::AnnealingPath& path, double beta, const rbm::GridSpec& spec,
                const std::atomic<bool>* cancel);
// The exact target density (rbm::density_grid).
Field exactField(const rbm::Model& model, const rbm::GridSpec& spec, const std::atomic<bool>* cancel);
// beta == 1 with an exact density available: exactField; otherwise pathField.
Field annealedField(const rbm::Model& model, const rbm::AnnealingPath& path, double beta, const rbm::GridSpec& spec,
                    const std::atomic<bool>* cancel);

// A box holding nearly all the mass of the target and of every path's base (so the whole
// annealing stays in view), with about `longSide` cells along its longer side.
rbm::GridSpec annealingBox(const rbm::Model& model, const std::vector<rbm::PathPtr>& paths, int longSide);
// Same cell size rule for an existing box.
rbm::GridSpec withCells(rbm::GridSpec box, int longSide);
QRectF domainOf(const rbm::GridSpec& spec);

// Modes of the target: GRBM component centres b + sigma∘(W h) that carry weight, a gaussian's
// mean, otherwise the grid maximum of `exact` (when given).
QVector<QPointF> targetModes(const rbm::Model& model, const Field* exact = nullptr);
QVector<QPointF> toPoints(const rbm::RowMat& X);

}  // namespace rbmscope
