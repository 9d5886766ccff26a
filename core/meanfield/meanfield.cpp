// Damped successive substitution for the type I, type II and TAP mean-field equations (docs/methods/mean-field.md).
//
// State of a run: the site natural parameters a_j and their means mu_j = mean(a_j), kept
// consistent, where site j is q_j(x) ∝ exp(a_j x + quad_j x^2/2) with quad_j = 0 (type I) or
// J_jj (type II, tap). One sweep visits every unit:
//   type I   a_j* = B_j + sum_k J_jk mu_k                      (self term included)
//   type II  a_j* = B_j + sum_{k!=j} J_jk mu_k                 (J_jj sits inside the site)
//   tap      a_j* = type II field + (1/2) (k3_j / Var_j) sum_{k!=j} J_jk^2 Var_k
//   mu_j <- (1-d) mu_j + d mean(a_j*), then a_j from mu_j.
//
// TAP for a general value set X (Plefka expansion). Scale the off-diagonal couplings by alpha:
//   H_alpha(h) = sum_j (B_j h_j + J_jj h_j^2/2) + alpha sum_{j<k} J_jk h_j h_k,
// and let G(alpha, mu) = max_theta [theta.mu - log sum_h exp(H_alpha(h) + theta.h)], so that
// -log Z_hidden = min_mu G(1, mu). At alpha = 0 the maximizing distribution is the product of
// the sites q_j(x) ∝ exp(a_j x + J_jj x^2/2) (a_j = B_j + theta_j) with means mu_j, and
//   G(0)   = -sum_j [B_j mu_j + J_jj <x^2>_j/2 + H[q_j]]
//   G'(0)  = -<V>_0 = -sum_{j<k} J_jk mu_j mu_k,   V = sum_{j<k} J_jk h_j h_k
//   G''(0) = -Var_0[V - sum_j (d<V>_0/d mu_j)(h_j - mu_j)]
// (the linear term is the change of theta needed to hold the means fixed). With h_j = mu_j + e_j,
// V minus its mean and its linear part is sum_{j<k} J_jk e_j e_k; under the product measure the
// products e_j e_k of distinct pairs are uncorrelated with zero mean, so
//   G''(0) = -sum_{j<k} J_jk^2 Var_j Var_k.
// Truncating at alpha^2/2 at alpha = 1 gives F_TAP = F_II - (1/2) sum_{j<k} J_jk^2 Var_j Var_k
// (the sum runs over unordered pairs; with J_jk the coefficient of h_j h_k in the exponent). For
// X = {-1,1}, Var = 1 - m^2 and this is the TAP free energy of the SK model. Its stationarity:
// d/d mu_j of the site part is a_j - B_j, and d Var_j / d mu_j = (dVar/da)/(dmu/da) = k3_j / Var_j
// (k3 the third cumulant), which gives the update above; for X = {0,1}, k3/Var = 1 - 2 mu_j.
// The expansion is a series, not a variational bound: F_TAP may lie below -log Z.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/meanfield/meanfield.hpp"
#include "core/numerics/parallel.hpp"
#include "core/random/rng.hpp"

namespace rbm {

const char* mean_field_type_name(MeanFieldType t) {
    switch (t) {
        case MeanFieldType::TypeI: return "1";
        case MeanFieldType::TypeII: return "2";
        case MeanFieldType::Tap: return "tap";
    }
    return "?";
}

namespace {

struct Problem {
    const Grbm& model;
    MeanFieldType type;
    Vec B;
    Mat J;
    Mat J2off;  // J_jk^2 off the diagonal, 0 on it
    Vec quad;   // per-site x^2/2 coefficient
    double xmin = 0, xmax = 0;

    Problem(const Grbm& m, MeanFieldType t)
        : model(m), type(t), B(m.hidden_marginal_field()), J(m.hidden_marginal_coupling()) {
        J2off = J.cwiseAbs2();
        J2off.diagonal().setZero();
        quad = t == MeanFieldType::TypeI ? Vec::Zero(J.rows()) : Vec(J.diagonal());
        const auto [lo, hi] = std::minmax_element(m.hidden_values.begin(), m.hidden_values.end());
        xmin = *lo;
        xmax = *hi;
    }
    Index size() const { return J.rows(); }
};

struct State {
    Vec a, mu, var, k3_over_var;

    void set(const Problem& p, Index j, double aj) {
        const SiteStats s = site_stats(p.model.hidden_values, aj, p.quad(j));
        a(j) = aj;
        mu(j) = s.mean;
        var(j) = s.var;
        k3_over_var(j) = s.k3_over_var;
    }
    static State from_natural(const Problem& p, const Vec& a) {
        const Index m = p.size();
        State s{Vec(m), Vec(m), Vec(m), Vec(m)};
        for (Index j = 0; j < m; ++j) s.set(p, j, a(j));
        return s;
    }
};

// The method's target natural parameter a_j* for unit j given the current state.
double target_field(const Problem& p, const State& s, Index j) {
    double f = p.B(j) + p.J.row(j).dot(s.mu);
    if (p.type == MeanFieldType::TypeI) return f;
    f -= p.J(j, j) * s.mu(j);
    if (p.type == MeanFieldType::Tap) f += 0.5 * s.k3_over_var(j) * p.J2off.row(j).dot(s.var);
    return f;
}

// mu_j <- (1-d) mu_j + d mean(a*); returns |change of mu_j|.
double move_site(const Problem& p, State& s, Index j, double a_target, double damping) {
    const double before = s.mu(j);
    if (damping == 1.0) {
        s.set(p, j, a_target);
    } else {
        const double target_mean = site_stats(p.model.hidden_values, a_target, p.quad(j)).mean;
        const double mu = (1 - damping) * before + damping * target_mean;
        const double lo = std::min(s.a(j), a_target), hi = std::max(s.a(j), a_target);
        s.set(p, j, lo == hi ? lo : site_natural_parameter(p.model.hidden_values, mu, p.quad(j), lo, hi));
    }
    return std::fabs(s.mu(j) - before);
}

State initial_state(const Problem& p, int restart, std::uint64_t seed) {
    const Index m = p.size();
    if (restart == 0) return State::from_natural(p, p.B);  // the uncoupled solution (J off-diagonal = 0)
    Rng rng(seed, (static_cast<std::uint64_t>(StreamPurpose::Misc) << 48) + static_cast<std::uint64_t>(restart));
    Vec a(m);
    for (Index j = 0; j < m; ++j) {
        const double mu = p.xmin + rng.uniform() * (p.xmax - p.xmin);
        a(j) = site_natural_parameter(p.model.hidden_values, mu, p.quad(j));
    }
    return State::from_natural(p, a);
}

Mat sites_of(const Problem& p, const State& s) {
    const Index K = static_cast<Index>(p.model.hidden_values.size());
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> Q(p.size(), K);
    for (Index j = 0; j < p.size(); ++j) site_probabilities(p.model.hidden_values, s.a(j), p.quad(j), Q.row(j).data());
    return Q;
}

double free_energy_of(const Problem& p, const Mat& Q) {
    switch (p.type) {
        case MeanFieldType::TypeI: return free_energy_type1(p.model, Q);
        case MeanFieldType::TypeII: return free_energy_type2(p.model, Q);
        case MeanFieldType::Tap: return free_energy_tap(p.model, Q);
    }
    return 0;
}

Vec parallel_map(const Problem& p, const State& s) {
    Vec out(p.size());
    for (Index j = 0; j < p.size(); ++j)
        out(j) = site_stats(p.model.hidden_values, target_field(p, s, j), p.quad(j)).mean;
    return out;
}

double residual_of(const Problem& p, const State& s) { return (parallel_map(p, s) - s.mu).cwiseAbs().maxCoeff(); }

struct RunEnd {
    State state;
    long long iterations = 0;
    bool converged = false;
};

// One restart. With a trace, also records after every sweep the free energy, the fixed-point
// residual and the sweep's largest move; the recording only reads the state, so the run ends on
// exactly the same point with and without it.
RunEnd iterate(const Problem& p, State s, const MeanFieldOptions& opts, MeanFieldTrace* trace = nullptr) {
    const Index m = p.size();
    RunEnd end;
    Vec targets(m);
    for (long long it = 1; it <= opts.max_iterations; ++it) {
        if (opts.cancel && opts.cancel->load(std::memory_order_relaxed)) throw Cancelled();
        double change = 0;
        if (opts.update == MeanFieldUpdate::Sequential) {
            for (Index j = 0; j < m; ++j)
                change = std::max(change, move_site(p, s, j, target_field(p, s, j), opts.damping));
        } else {
            for (Index j = 0; j < m; ++j) targets(j) = target_field(p, s, j);
            for (Index j = 0; j < m; ++j) change = std::max(change, move_site(p, s, j, targets(j), opts.damping));
        }
        end.iterations = it;
        if (trace) {
            trace->free_energy.push_back(free_energy_of(p, sites_of(p, s)));
            trace->residual.push_back(residual_of(p, s));
            trace->change.push_back(change);
        }
        if (!std::isfinite(change)) break;  // cannot happen for a valid model; never loop on NaN
        if (change < opts.tol) {
            end.converged = true;
            break;
        }
    }
    end.state = std::move(s);
    return end;
}

State state_from_means(const Problem& p, const Vec& mu) {
    if (mu.size() != p.size())
        throw InputError("mean vector has " + std::to_string(mu.size()) + " entries, the model has " +
                         std::to_string(p.size()) + " hidden units");
    Vec a(p.size());
    for (Index j = 0; j < p.size(); ++j) a(j) = site_natural_parameter(p.model.hidden_values, mu(j), p.quad(j));
    return State::from_natural(p, a);
}

void check_options(const MeanFieldOptions& o) {
    if (!(o.damping > 0 && o.damping <= 1))
        throw InputError("mean field: damping must be in (0, 1], got " + std::to_string(o.damping));
    if (!(o.tol > 0) || !std::isfinite(o.tol))
        throw InputError("mean field: tolerance must be a positive finite number, got " + std::to_string(o.tol));
    if (o.max_iterations < 1)
        throw InputError("mean field: the iteration cap must be at least 1, got " + std::to_string(o.max_iterations));
    if (o.restarts < 1 || o.restarts > 1000000)
        throw InputError("mean field: restarts must be from 1 to 1000000, got " + std::to_string(o.restarts));
    if (o.record_trace && o.max_iterations > kMeanFieldMaxTraceIterations)
        throw InputError("mean field: a trace records every sweep, so the iteration cap must be at most " +
                         std::to_string(kMeanFieldMaxTraceIterations) + " with it, got " +
                         std::to_string(o.max_iterations));
}

Model as_model(const Grbm& g) {
    Model m;
    m.params = g;
    return m;
}

}  // namespace

Vec mean_field_map(const Grbm& model, MeanFieldType type, const Vec& mu) {
    const Problem p(model, type);
    return parallel_map(p, state_from_means(p, mu));
}

Mat mean_field_sites(const Grbm& model, MeanFieldType type, const Vec& mu) {
    const Problem p(model, type);
    return sites_of(p, state_from_means(p, mu));
}

MeanFieldResult mean_field(const Grbm& model, const MeanFieldOptions& opts) {
    check_options(opts);
    validate(as_model(model));
    const Problem p(model, opts.type);

    std::vector<RunEnd> runs(static_cast<std::size_t>(opts.restarts));
    for_each_block(
        opts.restarts,
        [&](Index begin, Index end) {
            for (Index r = begin; r < end; ++r)
                runs[static_cast<std::size_t>(r)] = iterate(p, initial_state(p, static_cast<int>(r), opts.seed), opts);
        },
        1);

    // Group end points: restarts whose means agree to well within the tolerance's reach found
    // the same fixed point. Converged and unconverged ends are never merged.
    const double same = std::max(1e-6, 100 * opts.tol) * (p.xmax - p.xmin);
    struct Group {
        MeanFieldFixedPoint point;
        std::size_t run;
        Mat Q;
    };
    std::vector<Group> groups;
    for (std::size_t r = 0; r < runs.size(); ++r) {
        const RunEnd& e = runs[r];
        bool merged = false;
        for (auto& g : groups)
            if (g.point.converged == e.converged && (g.point.mean_h - e.state.mu).cwiseAbs().maxCoeff() < same) {
                ++g.point.hits;
                merged = true;
                break;
            }
        if (merged) continue;
        Group g;
        g.Q = sites_of(p, e.state);
        g.point.free_energy = free_energy_of(p, g.Q);
        g.point.mean_h = e.state.mu;
        g.point.iterations = e.iterations;
        g.point.converged = e.converged;
        g.point.first_restart = static_cast<int>(r);
        g.point.hits = 1;
        g.run = r;
        groups.push_back(std::move(g));
    }
    std::stable_sort(groups.begin(), groups.end(), [](const Group& x, const Group& y) {
        if (x.point.converged != y.point.converged) return x.point.converged;
        return x.point.free_energy < y.point.free_energy;
    });

    const Group& best = groups.front();
    const State& s = runs[best.run].state;
    MeanFieldResult res;
    res.type = opts.type;
    res.free_energy = best.point.free_energy;
    res.sites = best.Q;
    res.mean_h = s.mu;
    res.var_h = s.var;
    res.mean_h2 = s.var + s.mu.cwiseAbs2();
    res.iterations = best.point.iterations;
    res.converged = best.point.converged;
    res.residual = residual_of(p, s);
    // <v> = b + sigma * (W mu) for every method; the covariance differs (docs/methods/mean-field.md).
    res.mean_v = model.b + model.sigma.cwiseProduct(model.W * s.mu);
    if (opts.type == MeanFieldType::TypeI) {
        res.var_v = model.sigma.cwiseAbs2();
    } else {
        const Mat SW = model.sigma.asDiagonal() * model.W;
        res.cov_v = SW * s.var.asDiagonal() * SW.transpose();
        res.cov_v.diagonal() += model.sigma.cwiseAbs2();
        res.var_v = res.cov_v.diagonal();
    }
    for (auto& g : groups) res.fixed_points.push_back(std::move(g.point));
    if (opts.record_trace) {
        // Deterministic: the same start and the same arithmetic reach the same end point.
        const RunEnd again = iterate(p, initial_state(p, static_cast<int>(best.run), opts.seed), opts, &res.trace);
        if (again.iterations != res.iterations || again.state.mu != s.mu)
            throw std::logic_error("mean field: the traced rerun of a restart did not repeat it");
    }
    return res;
}

MeanFieldExact mean_field_exact_reference(const Grbm& model, const ExactOptions& opts) {
    const Model m = as_model(model);
    require_enumerable(m, opts);
    MeanFieldExact e;
    e.free_energy = -exact_log_z(m, opts);
    e.mean_h = exact_hidden_moments(m, opts).mean;
    const Moments v = exact_visible_moments(m, opts);
    e.mean_v = v.mean;
    e.var_v = v.cov.diagonal();
    return e;
}

MeanFieldExact compare_with_exact(const MeanFieldResult& result, const MeanFieldExact& reference) {
    MeanFieldExact e = reference;
    e.free_energy_error = result.free_energy - reference.free_energy;
    e.mse_h = (result.mean_h - reference.mean_h).squaredNorm() / static_cast<double>(reference.mean_h.size());
    e.mse_v = (result.mean_v - reference.mean_v).squaredNorm() / static_cast<double>(reference.mean_v.size());
    return e;
}

MeanFieldResult mean_field(const Model& model, const MeanFieldOptions& opts) {
    const Grbm* g = model.as<Grbm>();
    if (!g)
        throw InputError(std::string("mean field is defined for Gaussian RBMs (kind grbm); this model is ") +
                         kind_name(model.kind()));
    validate(model);
    MeanFieldResult res = mean_field(*g, opts);
    if (opts.compare_exact && enumeration_size(model).configurations <= opts.exact.max_configurations)
        res.exact = compare_with_exact(res, mean_field_exact_reference(*g, opts.exact));
    return res;
}

}  // namespace rbm
