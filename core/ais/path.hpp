#pragma once
// An annealing path (docs/methods/annealing-paths.md): unnormalized densities f_beta, beta in [0,1], with f_0 tractable
// (known log Z_0, exact samples) and f_1 the target, plus a Markov kernel T_beta leaving
// p_beta invariant. The AIS engine (ais/runner.hpp) drives any path; each path family lives in
// its own ais/path_*.cpp.
//
// All methods work on rows [begin, end) of a chain matrix X (one chain per row, chain r draws
// only from rngs[r]) and are called concurrently on disjoint row ranges, so they must be
// const and thread-safe.
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/numerics/types.hpp"
#include "core/random/rng.hpp"

namespace rbm {

class AnnealingPath {
public:
    virtual ~AnnealingPath() = default;

    // Short label for output ("geometric, AISM base"), and any notes the user should see
    // (e.g. "covariance eigenvalues floored at 1e-3 x mean sigma^2 (4 of 24)").
    virtual std::string name() const = 0;
    virtual std::string notes() const { return {}; }
    // Name of the transition kernel ("block Gibbs", "exact-mh", "paper-gibbs", "exact draws").
    virtual std::string kernel_name() const { return "block Gibbs"; }

    // Length of a chain's state row; the visible units are its first visible_dim() columns.
    virtual Index dim() const = 0;
    virtual Index visible_dim() const { return dim(); }
    // True when the columns after the visible units are only values derived from them (a cache
    // the path keeps current, e.g. the leaky paths' eta), so log_f depends on the visible units
    // alone and accepts rows of just those: what drawing p_beta over the visible units needs.
    virtual bool log_f_on_visible() const { return dim() == visible_dim(); }

    virtual double log_z0() const = 0;
    virtual void sample_base(RowMat& X, Index begin, Index end, ChainRngs& rngs) const = 0;

    // out(r) = log f_beta(X.row(r)) for r in [begin, end); out already has X.rows() entries.
    virtual void log_f(double beta, const RowMat& X, Index begin, Index end, Vec& out) const = 0;

    // One transition leaving p_beta invariant.
    virtual void transition(double beta, RowMat& X, Index begin, Index end, ChainRngs& rngs) const = 0;

    // lw(r) += log f_beta(x_r) - log f_beta_prev(x_r), evaluated at the state before the
    // transition; then one transition at beta. The default calls log_f twice and
    // transition(); paths override it to share one product with W per half-step (docs/methods/annealing-paths.md).
    virtual void advance(double beta_prev, double beta, RowMat& X, Index begin, Index end, Vec& lw,
                         ChainRngs& rngs) const;

    // Row r of X in [begin, end) set to the visible state V.row(v_first + r - begin), with whatever
    // else the state carries derived from it (reverse AIS from given target states). The default
    // copies when the state is the visible units alone and throws InputError otherwise.
    virtual void set_visible(RowMat& X, Index begin, Index end, const RowMat& V, Index v_first) const;

    // Perfect transitions (docs/methods/ais-estimates.md#perfect-transitions): exact samples from p_beta.
    virtual bool can_sample_exactly() const { return false; }
    virtual void sample_exact(double beta, RowMat& X, Index begin, Index end, ChainRngs& rngs) const;

    // Exponential-family view (docs/methods/annealing-paths.md#mas), when the path has one: knots beta_r with natural
    // parameters eta_r and moments s_r. The optimal binned schedule (Theorem 3) gives segment r
    // a share of the steps proportional to sqrt((eta_{r+1}-eta_r)'(s_{r+1}-s_r)).
    struct Knot {
        double beta = 0;
        Vec eta, s;
    };
    virtual std::vector<Knot> knots() const { return {}; }
    // Cost functional F = (eta_1-eta_0)'(s_1-s_0)/2 (Theorem 2); NaN when not known.
    virtual double cost_functional() const { return std::numeric_limits<double>::quiet_NaN(); }
};

using PathPtr = std::shared_ptr<const AnnealingPath>;

}  // namespace rbm
