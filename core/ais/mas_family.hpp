#pragma once
// Private to the MAS path (path_mas.cpp, mas_knots.cpp). The exponential family of docs/methods/annealing-paths.md#mas:
// an RBM seen as p_eta ∝ base(v) exp(eta'g), g = (v, h, vec(v h')), and the enumeration limits
// that decide between exact and sampled moments.
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <sstream>

#include "core/ais/exact_table.hpp"
#include "core/ais/paths.hpp"
#include "core/numerics/parallel.hpp"
#include "core/numerics/scalar.hpp"

namespace rbm::mas {

// Enumeration is used for moments (and perfect transitions) up to this many configurations of
// the enumerated layer, and while configurations x (work per configuration) stays below kMaxEnumWork.
constexpr double kMaxEnumConfigs = 65536.0;
constexpr double kMaxEnumWork = 268435456.0;  // 2^28
constexpr Index kConfigBlock = 2048;
// Target moments when they are not enumerable: Gibbs chains, Rao-Blackwellized over h.
constexpr int kTargetBurnIn = 200, kTargetSweeps = 200;

inline void throw_if_cancelled(const MasOptions& opts) {
    if (opts.cancel && opts.cancel->load(std::memory_order_relaxed)) throw Cancelled();
}

struct Params {
    Mat W;
    Vec b, c;
};

// The family of the target: which statistics, and how eta maps to RBM parameters.
class Family {
public:
    explicit Family(const Model& target) {
        if (const Grbm* g = target.as<Grbm>()) {
            grbm = true;
            sigma = g->sigma;
            values = g->hidden_values;
        } else if (target.as<Brbm>()) {
            values = {0.0, 1.0};
        } else {
            throw InputError(std::string("the moments path (MAS) needs a grbm or brbm target, got a ") +
                             kind_name(target.kind()));
        }
        n = target.n_visible();
        m = target.n_hidden();
        enum_visible = !grbm && n < m;
        const double radix = static_cast<double>(values.size());
        configs = std::pow(radix, static_cast<double>(enum_visible ? n : m));
        const double work = static_cast<double>(grbm ? m * m + n * m : 2 * n * m + n + m);
        enumerable = configs <= kMaxEnumConfigs && configs * work <= kMaxEnumWork;
    }

    bool grbm = false;
    Index n = 0, m = 0;
    Vec sigma;
    std::vector<double> values;
    bool enum_visible = false;  // BRBM with fewer visible than hidden units: enumerate v
    double configs = 0;
    bool enumerable = false;

    Index dim() const { return n + m + n * m; }
    Index radix() const { return static_cast<Index>(values.size()); }

    Params params_of(const Model& model) const {
        if (const Grbm* g = model.as<Grbm>()) return {g->W, g->b, g->c};
        const Brbm& r = std::get<Brbm>(model.params);
        return {r.W, r.b, r.c};
    }
    Vec eta(const Params& p) const {
        Vec e(dim());
        if (grbm) {
            e.head(n) = p.b.cwiseQuotient(sigma.cwiseAbs2());
            e.segment(n, m) = p.c;
            Eigen::Map<Mat>(e.data() + n + m, n, m) = sigma.cwiseInverse().asDiagonal() * p.W;
        } else {
            e.head(n) = p.b;
            e.segment(n, m) = p.c;
            Eigen::Map<Mat>(e.data() + n + m, n, m) = p.W;
        }
        return e;
    }
    Params params(const Vec& e) const {
        Params p;
        const Eigen::Map<const Mat> w(e.data() + n + m, n, m);
        p.c = e.segment(n, m);
        if (grbm) {
            p.b = e.head(n).cwiseProduct(sigma.cwiseAbs2());
            p.W = sigma.asDiagonal() * w;
        } else {
            p.b = e.head(n);
            p.W = w;
        }
        return p;
    }
    Grbm grbm_model(const Params& p) const {
        Grbm g;
        g.W = p.W;
        g.b = p.b;
        g.c = p.c;
        g.sigma = sigma;
        g.hidden_values = values;
        return g;
    }
    Brbm brbm_model(const Params& p) const { return Brbm{p.W, p.b, p.c}; }

    // log Z of the exponential-family form minus log Z of the RBM form: sum b^2/(2 sigma^2) (GRBM).
    double ef_shift(const Params& p) const { return grbm ? 0.5 * p.b.cwiseQuotient(sigma).squaredNorm() : 0.0; }
    // Configuration idx of the enumerated layer (mixed radix over `values`, unit 0 fastest).
    void decode(Index idx, Eigen::Ref<Vec> out) const {
        const Index r = radix();
        for (Index j = 0; j < out.size(); ++j) {
            out(j) = values[static_cast<std::size_t>(idx % r)];
            idx /= r;
        }
    }
    Index layer() const { return enum_visible ? n : m; }
};

}  // namespace rbm::mas
