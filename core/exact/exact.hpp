#pragma once
// Exact answers for small models (docs/methods/models.md): log Z, moments of v, exact samples, densities on a
// 2-D grid. Each function refuses (InputError) when the model is too big to enumerate or has
// no exact method, and says how big the enumeration would have been.
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>

#include "core/models/models.hpp"

namespace rbm {

struct ExactOptions {
    double max_configurations = 16777216.0;  // 2^24
    // BRBM: which layer to enumerate; Auto takes the smaller one (the hidden layer on a tie).
    enum class Layer { Auto, Visible, Hidden };
    Layer brbm_layer = Layer::Auto;
    // Raised -> the enumeration throws Cancelled (checked per chunk). Not owned; null: never.
    const std::atomic<bool>* cancel = nullptr;
};

// Number of configurations an exact computation would enumerate (may be astronomically
// large: returned as a double), and a description of what ("2^10 hidden configurations").
struct EnumerationSize {
    double configurations = 0;
    std::string what;
};
EnumerationSize enumeration_size(const Model& model);
// Throws InputError naming the size when it exceeds options.max_configurations.
void require_enumerable(const Model& model, const ExactOptions& opts = {});
// True when an exact log Z method applies (enumeration under the limit, closed form, quadrature).
bool has_exact_log_z(const Model& model, const ExactOptions& opts = {});

double exact_log_z(const Model& model, const ExactOptions& opts = {});

struct Moments {
    Vec mean;  // E[v]
    Mat cov;   // Cov[v]
};
Moments exact_visible_moments(const Model& model, const ExactOptions& opts = {});

// Exact moments of the hidden units (GRBM, BRBM): E[h], Cov[h].
struct HiddenMoments {
    Vec mean;
    Mat cov;
};
HiddenMoments exact_hidden_moments(const Model& model, const ExactOptions& opts = {});

// `count` independent exact samples of v (GRBM, BRBM by enumeration; gaussian; leaky by rejection
// from its leakiness-1 Gaussian envelope, refused when the acceptance rate is below 1e-4);
// deterministic for a seed whatever the thread count (sample r uses stream r of
// ChainRngs(seed, count, StreamPurpose::Exact)).
RowMat exact_samples(const Model& model, Index count, std::uint64_t seed, const ExactOptions& opts = {});

// GRBM helpers shared with mean field and AIS.
// Visit every hidden configuration h in X^m with its log weight B.h + h'Jh/2.
// The total log-sum-exp of these plus sum_i log(sqrt(2 pi) sigma_i) is log Z.
double grbm_hidden_log_z(const Grbm& m, const ExactOptions& opts = {});

// Leaky RBM closed forms (docs/methods/models.md#leaky).
// log Z of the same W, b, c at leakiness 1 (the model's log Z when leakiness == 1; otherwise the
// AIS-Leaky base, an upper bound): the leakiness is not read.
double leaky_log_z_gaussian_case(const Leaky& m);
double leaky_log_z_orthogonal(const Leaky& m);  // b = 0, c = 0, orthogonal columns
bool leaky_is_orthogonal_case(const Leaky& m, double tol = 1e-10);
// log Z of a 1-D or 2-D leaky RBM by quadrature (piecewise-analytic inner integral).
double leaky_log_z_quadrature(const Leaky& m);

// Normalized log density on a regular grid over [x0,x1] x [y0,y1] (2-D models only):
// value(ix, iy) at x = x0 + (ix+0.5)(x1-x0)/nx, y = y0 + (iy+0.5)(y1-y0)/ny; stored row-major
// with iy as the row (so row 0 is y0). Parallel over rows; cancellable through `cancelled`, which
// is polled once per row from worker threads (so it must be thread-safe) and makes it throw Cancelled.
struct GridSpec {
    double x0 = -1, x1 = 1, y0 = -1, y1 = 1;
    int nx = 128, ny = 128;
};
struct DensityGrid {
    GridSpec spec;
    std::vector<double> log_density;  // ny * nx
    double log_z = 0;                 // what normalized it
};
DensityGrid density_grid(const Model& model, const GridSpec& grid, const ExactOptions& opts = {},
                         const std::function<bool()>& cancelled = {});
// A view box that contains nearly all of the mass of a 2-D model (from its exact moments).
GridSpec default_view(const Model& model, int nx = 128, int ny = 128);

}  // namespace rbm
