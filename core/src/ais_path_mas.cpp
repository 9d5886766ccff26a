// Moment-averaged spline path "MAS" (Grosse, Maddison & Salakhutdinov 2013; SPEC §2.3) for GRBMs
// (sigma and hidden values fixed) and BRBMs, seen as exponential families p_eta ∝ base(v) exp(eta'g):
//   g = (v, h, vec(v h'))   (vec column-major: entry i + n j is v_i h_j)
//   GRBM: eta = (b/sigma^2, c, W_ij/sigma_i), base(v) = exp(-sum v^2/(2 sigma^2)), because
//         -E(v,h) = -sum v^2/(2 sigma^2) + (b/sigma^2)'v + c'h + sum_ij v_i (W_ij/sigma_i) h_j - sum b^2/(2 sigma^2);
//   BRBM: eta = (b, c, W), base = 1.
// Knots beta_r get eta_r with E_{eta_r}[g] = (1 - beta_r) s_A + beta_r s_B (maximize eta's - log Z_ef(eta),
// concave, gradient s - E_eta[g]); between knots eta is linear in beta (geometric segments). Every
// intermediate distribution is an RBM of the family, so the kernel is its block Gibbs sweep.
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <sstream>

#include "ais_exact_table.hpp"
#include "rbmscope/ais_paths.hpp"
#include "rbmscope/numerics.hpp"
#include "rbmscope/parallel.hpp"

namespace rbm {

namespace {

// Enumeration is used for moments (and perfect transitions) up to this many configurations of
// the enumerated layer, and while configurations x (work per configuration) stays below kMaxEnumWork.
constexpr double kMaxEnumConfigs = 65536.0;
constexpr double kMaxEnumWork = 268435456.0;  // 2^28
constexpr Index kConfigBlock = 2048;
// Target moments when they are not enumerable: Gibbs chains, Rao-Blackwellized over h.
constexpr int kTargetBurnIn = 200, kTargetSweeps = 200;

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
    double ef_shift(const Params& p) const {
        return grbm ? 0.5 * p.b.cwiseQuotient(sigma).squaredNorm() : 0.0;
    }
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

// ---------------- exact moments by enumeration ----------------

struct Partial {
    double mx = -std::numeric_limits<double>::infinity();
    double z = 0;
    Vec sv, sh;
    Mat shh, svh;
    void scale(double f) {
        z *= f;
        sv *= f;
        sh *= f;
        shh *= f;
        svh *= f;
    }
};

// Log weight of each configuration in [begin, end) of the enumerated layer; `work` gets the
// per-configuration conditional mean of the other layer when asked (GRBM: nothing).
//   GRBM (h): B.h + h'Jh/2            (SPEC §1.1, v integrated out)
//   BRBM (h): c.h + sum_i softplus(b_i + (W h)_i),   other layer mean sigm(b + W h)
//   BRBM (v): b.v + sum_j softplus(c_j + (W'v)_j),   other layer mean sigm(c + W'v)
void config_log_weights(const Family& f, const Params& p, const Vec& B, const Mat& J, Index begin, Index end,
                        std::vector<double>& lw) {
    const Index len = f.layer();
    Vec x(len);
    lw.resize(static_cast<std::size_t>(end - begin));
    for (Index idx = begin; idx < end; ++idx) {
        f.decode(idx, x);
        double l;
        if (f.grbm) {
            l = B.dot(x) + 0.5 * x.dot(J * x);
        } else if (f.enum_visible) {
            const Vec a = p.c + p.W.transpose() * x;
            l = p.b.dot(x);
            for (Index j = 0; j < a.size(); ++j) l += softplus(a(j));
        } else {
            const Vec a = p.b + p.W * x;
            l = p.c.dot(x);
            for (Index i = 0; i < a.size(); ++i) l += softplus(a(i));
        }
        lw[static_cast<std::size_t>(idx - begin)] = l;
    }
}

struct EnumMoments {
    double log_z = 0;  // of the RBM form (the model's own log Z)
    Vec s;             // E[g]
};

EnumMoments enumerate_moments(const Family& f, const Params& p) {
    const Index n = f.n, m = f.m, len = f.layer();
    const Index configs = static_cast<Index>(f.configs);
    Vec B;
    Mat J;
    if (f.grbm) {
        B = p.c + p.W.transpose() * p.b.cwiseQuotient(f.sigma);
        J = p.W.transpose() * p.W;
    }
    const Index blocks = (configs + kConfigBlock - 1) / kConfigBlock;
    std::vector<Partial> parts(static_cast<std::size_t>(blocks));
    for_each_block(
        configs,
        [&](Index begin, Index end) {
            Partial& P = parts[static_cast<std::size_t>(begin / kConfigBlock)];
            std::vector<double> lw;
            config_log_weights(f, p, B, J, begin, end, lw);
            for (double l : lw) P.mx = std::max(P.mx, l);
            P.sv = Vec::Zero(n);
            P.sh = Vec::Zero(m);
            P.svh = Mat::Zero(n, m);
            if (f.grbm) P.shh = Mat::Zero(m, m);
            Vec x(len);
            for (Index idx = begin; idx < end; ++idx) {
                f.decode(idx, x);
                const double w = std::exp(lw[static_cast<std::size_t>(idx - begin)] - P.mx);
                P.z += w;
                if (f.grbm) {
                    P.sh += w * x;
                    P.shh.noalias() += w * x * x.transpose();
                } else if (f.enum_visible) {
                    Vec q = p.c + p.W.transpose() * x;
                    for (Index j = 0; j < m; ++j) q(j) = sigmoid(q(j));
                    P.sv += w * x;
                    P.sh += w * q;
                    P.svh.noalias() += w * x * q.transpose();
                } else {
                    Vec q = p.b + p.W * x;
                    for (Index i = 0; i < n; ++i) q(i) = sigmoid(q(i));
                    P.sv += w * q;
                    P.sh += w * x;
                    P.svh.noalias() += w * q * x.transpose();
                }
            }
        },
        kConfigBlock);
    double mx = -std::numeric_limits<double>::infinity();
    for (const Partial& P : parts) mx = std::max(mx, P.mx);
    Partial T = parts[0];
    T.scale(std::exp(T.mx - mx));
    for (std::size_t k = 1; k < parts.size(); ++k) {
        Partial P = parts[k];
        P.scale(std::exp(P.mx - mx));
        T.z += P.z;
        T.sv += P.sv;
        T.sh += P.sh;
        T.svh += P.svh;
        if (f.grbm) T.shh += P.shh;
    }
    EnumMoments out;
    out.s.resize(f.dim());
    const Vec eh = T.sh / T.z;
    if (f.grbm) {
        const Mat ehh = T.shh / T.z;
        // v | h ~ N(b + sigma∘(W h), diag sigma^2): E[v] = b + sigma∘(W E[h]), E[v h'] = b E[h]' + diag(sigma) W E[hh'].
        out.s.head(n) = p.b + f.sigma.cwiseProduct(p.W * eh);
        Eigen::Map<Mat>(out.s.data() + n + m, n, m) = p.b * eh.transpose() + f.sigma.asDiagonal() * p.W * ehh;
        out.log_z = mx + std::log(T.z) + 0.5 * static_cast<double>(n) * kLog2Pi + f.sigma.array().log().sum();
    } else {
        out.s.head(n) = T.sv / T.z;
        Eigen::Map<Mat>(out.s.data() + n + m, n, m) = T.svh / T.z;
        out.log_z = mx + std::log(T.z);
    }
    out.s.segment(n, m) = eh;
    return out;
}

// ---------------- Gibbs chains and Rao-Blackwellized moments ----------------

void sweep(const Family& f, const Params& p, RowMat& V, ChainRngs& rngs, int sweeps) {
    if (f.grbm) {
        const Grbm g = f.grbm_model(p);
        for (int t = 0; t < sweeps; ++t) gibbs_sweep(g, V, rngs);
    } else {
        const Brbm r = f.brbm_model(p);
        for (int t = 0; t < sweeps; ++t) gibbs_sweep(r, V, rngs);
    }
}

// Mean over chains of g with h replaced by E[h | v] (Rao-Blackwellized), and in var the
// per-coordinate variance of g itself (h given v included: E[h^2 | v] in the second moments),
// the diagonal of the Fisher information.
Vec rb_moments(const Family& f, const Params& p, const RowMat& V, Vec* var = nullptr, RowMat* q_out = nullptr) {
    const Index n = f.n, m = f.m, N = V.rows();
    RowMat Q, Q2;
    if (f.grbm) {
        const Grbm g = f.grbm_model(p);
        const RowMat L = g.hidden_field(V);
        Q.resize(N, m);
        Q2.resize(N, m);
        for (Index r = 0; r < N; ++r)
            for (Index j = 0; j < m; ++j) {
                // p(x) ∝ exp(a x) over the hidden values
                const double a = L(r, j);
                double mx = -std::numeric_limits<double>::infinity(), z = 0, s1 = 0, s2 = 0;
                for (double x : f.values) mx = std::max(mx, a * x);
                for (double x : f.values) {
                    const double w = std::exp(a * x - mx);
                    z += w;
                    s1 += w * x;
                    s2 += w * x * x;
                }
                Q(r, j) = s1 / z;
                Q2(r, j) = s2 / z;
            }
    } else {
        Q = V * p.W;
        Q.rowwise() += p.c.transpose();
        Q = Q.unaryExpr([](double a) { return sigmoid(a); });
        Q2 = Q;  // h^2 = h
    }
    const double inv = 1.0 / static_cast<double>(N);
    Vec s(f.dim());
    s.head(n) = V.colwise().sum().transpose() * inv;
    s.segment(n, m) = Q.colwise().sum().transpose() * inv;
    Eigen::Map<Mat>(s.data() + n + m, n, m) = (V.transpose() * Q) * inv;
    if (var) {
        const RowMat V2 = V.cwiseAbs2();
        Vec s2(f.dim());
        s2.head(n) = V2.colwise().sum().transpose() * inv;
        s2.segment(n, m) = Q2.colwise().sum().transpose() * inv;
        Eigen::Map<Mat>(s2.data() + n + m, n, m) = (V2.transpose() * Q2) * inv;
        *var = (s2 - s.cwiseAbs2()).cwiseMax(0.0);
    }
    if (q_out) *q_out = std::move(Q);
    return s;
}

// Largest eigenvalue of D^{-1/2} C D^{-1/2}, C the covariance over chains of the Rao-Blackwellized
// g_r = (v_r, q_r, vec(v_r q_r')), by power iteration with matrix-free products
//   C x = (1/N) sum_r g_r (a_r - mean a),  a_r = g_r'x = v_r'x_v + q_r'x_h + v_r' X_W q_r.
double preconditioned_max_eigenvalue(const Family& f, const RowMat& V, const RowMat& Q, const Vec& d_inv_sqrt) {
    const Index n = f.n, m = f.m, N = V.rows();
    Vec x = Vec::Ones(f.dim()) / std::sqrt(static_cast<double>(f.dim()));
    double lambda = 0;
    for (int it = 0; it < 30; ++it) {
        const Vec y = x.cwiseProduct(d_inv_sqrt);
        const Eigen::Map<const Mat> yw(y.data() + n + m, n, m);
        Vec a = V * y.head(n) + Q * y.segment(n, m) + ((V * yw).array() * Q.array()).rowwise().sum().matrix();
        a.array() -= a.mean();
        a /= static_cast<double>(N);
        Vec z(f.dim());
        z.head(n) = V.transpose() * a;
        z.segment(n, m) = Q.transpose() * a;
        Eigen::Map<Mat>(z.data() + n + m, n, m) = V.transpose() * (a.asDiagonal() * Q);
        z = z.cwiseProduct(d_inv_sqrt);
        lambda = z.norm();
        if (!(lambda > 0)) return 0;
        x = z / lambda;
    }
    return lambda;
}

// ---------------- moment matching ----------------

struct FitResult {
    Vec eta;
    double grad_norm = 0;  // |s - E_eta[g]| (Euclidean) at the returned eta
    int iterations = 0;
    bool converged = false;
};

// Minimize F(eta) = log Z_ef(eta) - eta's (convex), gradient E_eta[g] - s, by L-BFGS with exact
// moments. The line search brackets the 1-D minimum through the directional derivative (which
// enumeration gives to full precision) and checks sufficient decrease while F differences are
// above rounding.
FitResult fit_exact(const Family& f, const Vec& s, const Vec& eta0, const MasOptions& opts) {
    auto eval = [&](const Vec& eta, Vec& grad) {
        const Params p = f.params(eta);
        const EnumMoments em = enumerate_moments(f, p);
        grad = em.s - s;
        return em.log_z + f.ef_shift(p) - eta.dot(s);
    };
    constexpr int memory = 10;
    std::deque<Vec> S, Y;
    FitResult out;
    out.eta = eta0;
    Vec g;
    double F = eval(out.eta, g);
    int it = 0;
    for (; it < opts.max_iterations && g.norm() > opts.tolerance; ++it) {
        // Two-loop recursion for d = -H g.
        Vec d = -g;
        std::vector<double> alpha(S.size());
        for (std::size_t k = S.size(); k-- > 0;) {
            alpha[k] = S[k].dot(d) / Y[k].dot(S[k]);
            d -= alpha[k] * Y[k];
        }
        if (!S.empty()) d *= S.back().dot(Y.back()) / Y.back().squaredNorm();
        else d /= std::max(1.0, g.norm());
        for (std::size_t k = 0; k < S.size(); ++k) {
            const double beta = Y[k].dot(d) / Y[k].dot(S[k]);
            d += (alpha[k] - beta) * S[k];
        }
        double slope0 = g.dot(d);
        if (!(slope0 < 0)) {  // not a descent direction: restart from steepest descent
            S.clear();
            Y.clear();
            d = -g / std::max(1.0, g.norm());
            slope0 = g.dot(d);
        }
        double t = 1, lo = 0, hi = std::numeric_limits<double>::infinity();
        Vec eta_t, g_t;
        double F_t = F;
        bool ok = false;
        for (int ls = 0; ls < 60; ++ls) {
            eta_t = out.eta + t * d;
            F_t = eval(eta_t, g_t);
            const double slope = g_t.dot(d);
            const bool resolvable = std::fabs(F_t - F) > 1e-12 * (1.0 + std::fabs(F));
            const bool decrease = std::isfinite(F_t) && (resolvable ? F_t <= F + 1e-4 * t * slope0 : true);
            if (!decrease || slope > -0.9 * slope0) {
                hi = t;  // overshot the 1-D minimum (or no decrease)
            } else if (slope < 0.9 * slope0) {
                lo = t;  // still steep: too short
            } else {
                ok = true;
                break;
            }
            t = std::isfinite(hi) ? 0.5 * (lo + hi) : 2 * t;
        }
        if (!ok) {
            if (S.empty()) break;  // even steepest descent cannot progress: at rounding level
            S.clear();
            Y.clear();
            continue;
        }
        S.push_back(eta_t - out.eta);
        Y.push_back(g_t - g);
        if (static_cast<int>(S.size()) > memory) {
            S.pop_front();
            Y.pop_front();
        }
        out.eta = eta_t;
        g = g_t;
        F = F_t;
    }
    out.iterations = it;
    out.grad_norm = g.norm();
    out.converged = out.grad_norm <= opts.tolerance;
    return out;
}

// Stochastic version for models too large to enumerate: persistent chains (PCD) at the current
// eta estimate E_eta[g]. Steps are preconditioned by D = per-coordinate variance of g (the Fisher
// diagonal); since v, h and v h' are strongly correlated, the step is also divided by an estimate
// of the largest eigenvalue of D^{-1/2} G D^{-1/2} (+1 for the h-given-v part the power iteration
// does not see), which keeps the iteration stable. The rate decays, and the returned eta averages
// the second half of the iterations.
FitResult fit_pcd(const Family& f, const Vec& s, const Vec& eta0, const MasOptions& opts, RowMat& V,
                  ChainRngs& rngs) {
    FitResult out;
    Vec eta = eta0, avg = Vec::Zero(eta0.size()), var;
    const int T = opts.max_iterations, half = T / 2;
    double grad_tail = 0, scale = 1;
    int tail = 0;
    RowMat Q;
    for (int t = 0; t < T; ++t) {
        const Params p = f.params(eta);
        sweep(f, p, V, rngs, static_cast<int>(opts.pcd_steps));
        const Vec grad = s - rb_moments(f, p, V, &var, &Q);
        const Vec d = var.array().max(1e-6).matrix();
        if (t % 25 == 0) scale = 1.0 / (1.0 + preconditioned_max_eigenvalue(f, V, Q, d.cwiseSqrt().cwiseInverse()));
        const double rate = scale / (1.0 + 4.0 * t / std::max(1, T));
        eta += rate * grad.cwiseQuotient(d);
        if (t >= half) {
            avg += eta;
            grad_tail += grad.norm();
            ++tail;
        }
    }
    out.eta = avg / std::max(1, tail);
    out.iterations = T;
    out.grad_norm = grad_tail / std::max(1, tail);
    out.converged = false;  // a stochastic fit has no convergence test; grad_norm is its noisy size
    return out;
}

// ---------------- the path ----------------

bool zero_weights(const Params& p) { return p.W.isZero(0.0); }

// softplus(x) - softplus(y) without cancelling the linear parts of large arguments.
double softplus_difference(double x, double y) {
    if (x > 0 && y > 0) return (x - y) + std::log1p(std::exp(-x)) - std::log1p(std::exp(-y));
    return softplus(x) - softplus(y);
}

class MasPath final : public AnnealingPath {
public:
    MasPath(const Model& target, const Model& base, const MasOptions& opts) : fam_(target) {
        validate(target);
        validate(base);
        check_compatible(target, base);
        check_options(opts);
        const Params pa = fam_.params_of(base), pb = fam_.params_of(target);
        base_zero_ = zero_weights(pa);
        hidden_.hidden_values = fam_.values;
        if (!base_zero_ && !fam_.enumerable)
            throw InputError("moments path: the base model has nonzero weights and is too large to enumerate (" +
                             describe_size() + "); use a zero-weight base");

        // Endpoint moments.
        Vec s_a, s_b;
        if (base_zero_) {
            s_a = independent_moments(pa);
            log_z0_ = independent_log_z(pa);
        } else {
            const EnumMoments em = enumerate_moments(fam_, pa);
            s_a = em.s;
            log_z0_ = em.log_z;
        }
        ChainRngs rngs;
        RowMat V;
        if (fam_.enumerable) {
            s_b = enumerate_moments(fam_, pb).s;
        } else {
            rngs = ChainRngs(opts.seed, opts.pcd_chains, StreamPurpose::Moments);
            V.resize(opts.pcd_chains, fam_.n);
            draw_independent(pa, V, 0, V.rows(), rngs);
            sweep(fam_, pb, V, rngs, kTargetBurnIn);
            s_b = Vec::Zero(fam_.dim());
            for (int t = 0; t < kTargetSweeps; ++t) {
                sweep(fam_, pb, V, rngs, 1);
                s_b += rb_moments(fam_, pb, V);
            }
            s_b /= kTargetSweeps;
            // The fit starts from base samples again (the chains follow eta from the base).
            draw_independent(pa, V, 0, V.rows(), rngs);
        }

        knots_.push_back({0.0, fam_.eta(pa), s_a});
        Vec eta = knots_.back().eta;
        double worst = 0;
        int iterations = 0;
        bool all_converged = true;
        for (double beta : opts.knots) {
            const Vec s = (1.0 - beta) * s_a + beta * s_b;
            const FitResult fit = fam_.enumerable ? fit_exact(fam_, s, eta, opts) : fit_pcd(fam_, s, eta, opts, V, rngs);
            eta = fit.eta;
            worst = std::max(worst, fit.grad_norm);
            iterations += fit.iterations;
            all_converged = all_converged && fit.converged;
            knots_.push_back({beta, eta, s});
        }
        knots_.push_back({1.0, fam_.eta(pb), s_b});
        for (const Knot& k : knots_) params_.push_back(fam_.params(k.eta));
        params_.front() = pa;  // exact endpoints, not round-tripped through eta
        params_.back() = pb;
        cost_ = 0.5 * (knots_.back().eta - knots_.front().eta).dot(knots_.back().s - knots_.front().s);

        std::ostringstream os;
        os.precision(3);
        if (fam_.enumerable) {
            os << "moments by exact enumeration (" << describe_size() << "); knot fits "
               << (all_converged ? "converged" : "NOT converged") << " (largest |s - E[g]| " << worst << ", "
               << iterations << " L-BFGS iterations)";
        } else {
            os << "moments by PCD (" << opts.pcd_chains << " chains, " << opts.pcd_steps << " sweeps per update, "
               << opts.max_iterations << " updates per knot; mean |s - E[g]| over the last half " << worst
               << "); target moments from the same chains after " << kTargetBurnIn << " burn-in sweeps, averaged over "
               << kTargetSweeps << " sweeps (Rao-Blackwellized); " << describe_size() << " is too many to enumerate";
        }
        notes_ = os.str();
    }

    std::string name() const override {
        return "moment-averaged spline (MAS, " + std::to_string(knots_.size() - 2) + " knots)";
    }
    std::string notes() const override { return notes_; }
    Index dim() const override { return fam_.n; }
    double log_z0() const override { return log_z0_; }
    std::vector<Knot> knots() const override { return knots_; }
    double cost_functional() const override { return cost_; }
    bool can_sample_exactly() const override { return fam_.enumerable; }

    void sample_base(RowMat& X, Index begin, Index end, ChainRngs& rngs) const override {
        if (base_zero_) draw_independent(params_.front(), X, begin, end, rngs);
        else sample_exact(0.0, X, begin, end, rngs);
    }

    void log_f(double beta, const RowMat& X, Index begin, Index end, Vec& out) const override {
        const Params p = at(beta);
        const RowMat V = X.middleRows(begin, end - begin);
        out.segment(begin, end - begin) =
            fam_.grbm ? fam_.grbm_model(p).log_unnorm(V) : fam_.brbm_model(p).log_unnorm(V);
    }

    void transition(double beta, RowMat& X, Index begin, Index end, ChainRngs& rngs) const override {
        const Params p = at(beta);
        const RowMat A = fields(p, X, begin, end);
        gibbs_step(p, A, X, begin, rngs);
    }

    // Both fields (previous and current parameters) come from the same rows; the current one
    // also drives the hidden draw.
    void advance(double beta_prev, double beta, RowMat& X, Index begin, Index end, Vec& lw,
                 ChainRngs& rngs) const override {
        const Params p0 = at(beta_prev), p1 = at(beta);
        const RowMat A0 = fields(p0, X, begin, end), A1 = fields(p1, X, begin, end);
        for (Index r = 0; r < end - begin; ++r) {
            const auto v = X.row(begin + r);
            double s = 0;
            if (fam_.grbm) {
                // -(v-b1)^2/(2s^2) + (v-b0)^2/(2s^2) = (b1-b0)(2v-b1-b0)/(2s^2), without cancellation
                for (Index i = 0; i < fam_.n; ++i)
                    s += (p1.b(i) - p0.b(i)) * (2 * v(i) - p1.b(i) - p0.b(i)) / (2 * fam_.sigma(i) * fam_.sigma(i));
                for (Index j = 0; j < fam_.m; ++j) s += phi(A1(r, j)) - phi(A0(r, j));
            } else {
                for (Index i = 0; i < fam_.n; ++i) s += (p1.b(i) - p0.b(i)) * v(i);
                for (Index j = 0; j < fam_.m; ++j) s += softplus_difference(A1(r, j), A0(r, j));
            }
            lw(begin + r) += s;
        }
        gibbs_step(p1, A1, X, begin, rngs);
    }

    // Exact draws by enumeration of the smaller layer; one table per beta, shared by the blocks.
    void sample_exact(double beta, RowMat& X, Index begin, Index end, ChainRngs& rngs) const override {
        if (!fam_.enumerable) AnnealingPath::sample_exact(beta, X, begin, end, rngs);
        const auto table = tables_.get(beta, [this](double b) { return build_table(b); });
        const Params& p = table->p;
        const Index rows = end - begin, len = fam_.layer();
        RowMat L(rows, len);
        Vec x(len);
        for (Index r = 0; r < rows; ++r) {
            fam_.decode(table->dist.draw(rngs[begin + r]), x);
            L.row(r) = x.transpose();
        }
        if (fam_.grbm) {
            grbm_sample_visible(fam_.grbm_model(p), L, 1.0, nullptr, X, begin, rngs);
        } else if (fam_.enum_visible) {
            X.middleRows(begin, rows) = L;
        } else {
            sample_visible_brbm(p, L, X, begin, rngs);
        }
    }

private:
    struct Table {
        Params p;
        detail::CategoricalTable dist;  // over the configurations of the enumerated layer
    };

    // log sum_{x in X} exp(a x): the hidden log-partition of the family.
    double phi(double a) const { return fam_.grbm ? hidden_.log_partition_hidden(a) : softplus(a); }

    Table build_table(double beta) const {
        Table t;
        t.p = at(beta);
        Vec B;
        Mat J;
        if (fam_.grbm) {
            B = t.p.c + t.p.W.transpose() * t.p.b.cwiseQuotient(fam_.sigma);
            J = t.p.W.transpose() * t.p.W;
        }
        std::vector<double> lw;
        config_log_weights(fam_, t.p, B, J, 0, static_cast<Index>(fam_.configs), lw);
        t.dist = detail::CategoricalTable::from_log_weights(Eigen::Map<const Vec>(lw.data(), static_cast<Index>(lw.size())));
        return t;
    }

    // Parameters at beta: linear in eta between the knots around it.
    Params at(double beta) const {
        if (beta <= 0) return params_.front();
        if (beta >= 1) return params_.back();
        std::size_t r = 0;
        while (r + 2 < knots_.size() && knots_[r + 1].beta <= beta) ++r;
        const double t = (beta - knots_[r].beta) / (knots_[r + 1].beta - knots_[r].beta);
        if (t == 0) return params_[r];
        return fam_.params((1.0 - t) * knots_[r].eta + t * knots_[r + 1].eta);
    }

    // Hidden pre-activations: GRBM lambda = c + W'(v/sigma), BRBM c + W'v.
    RowMat fields(const Params& p, const RowMat& X, Index begin, Index end) const {
        RowMat A;
        if (fam_.grbm) {
            grbm_hidden_field(fam_.grbm_model(p), X, begin, end, A);
        } else {
            A = X.middleRows(begin, end - begin) * p.W;
            A.rowwise() += p.c.transpose();
        }
        return A;
    }

    void gibbs_step(const Params& p, const RowMat& A, RowMat& X, Index begin, ChainRngs& rngs) const {
        RowMat H;
        if (fam_.grbm) {
            const Grbm g = fam_.grbm_model(p);
            grbm_sample_hidden(g, A, 1.0, H, rngs, begin);
            grbm_sample_visible(g, H, 1.0, nullptr, X, begin, rngs);
            return;
        }
        H.resize(A.rows(), A.cols());
        for (Index r = 0; r < A.rows(); ++r) {
            Rng& rng = rngs[begin + r];
            for (Index j = 0; j < A.cols(); ++j) H(r, j) = rng.uniform() < sigmoid(A(r, j)) ? 1.0 : 0.0;
        }
        sample_visible_brbm(p, H, X, begin, rngs);
    }

    void sample_visible_brbm(const Params& p, const RowMat& H, RowMat& X, Index begin, ChainRngs& rngs) const {
        RowMat A = H * p.W.transpose();
        A.rowwise() += p.b.transpose();
        for (Index r = 0; r < H.rows(); ++r) {
            Rng& rng = rngs[begin + r];
            for (Index i = 0; i < A.cols(); ++i) X(begin + r, i) = rng.uniform() < sigmoid(A(r, i)) ? 1.0 : 0.0;
        }
    }

    // Zero-weight models: v and h independent.
    Vec independent_moments(const Params& p) const {
        Vec s(fam_.dim());
        Vec eh(fam_.m), ev(fam_.n);
        if (fam_.grbm) {
            const Grbm g = fam_.grbm_model(p);
            for (Index j = 0; j < fam_.m; ++j) eh(j) = g.mean_hidden(p.c(j));
            ev = p.b;
        } else {
            for (Index j = 0; j < fam_.m; ++j) eh(j) = sigmoid(p.c(j));
            for (Index i = 0; i < fam_.n; ++i) ev(i) = sigmoid(p.b(i));
        }
        s.head(fam_.n) = ev;
        s.segment(fam_.n, fam_.m) = eh;
        Eigen::Map<Mat>(s.data() + fam_.n + fam_.m, fam_.n, fam_.m) = ev * eh.transpose();
        return s;
    }
    double independent_log_z(const Params& p) const {
        double z = 0;
        if (fam_.grbm) {
            const Grbm g = fam_.grbm_model(p);
            z = 0.5 * static_cast<double>(fam_.n) * kLog2Pi + fam_.sigma.array().log().sum();
            for (Index j = 0; j < fam_.m; ++j) z += g.log_partition_hidden(p.c(j));
        } else {
            for (Index i = 0; i < fam_.n; ++i) z += softplus(p.b(i));
            for (Index j = 0; j < fam_.m; ++j) z += softplus(p.c(j));
        }
        return z;
    }
    void draw_independent(const Params& p, RowMat& X, Index begin, Index end, ChainRngs& rngs) const {
        for (Index r = begin; r < end; ++r) {
            Rng& rng = rngs[r];
            for (Index i = 0; i < fam_.n; ++i)
                X(r, i) = fam_.grbm ? p.b(i) + fam_.sigma(i) * rng.normal() : (rng.uniform() < sigmoid(p.b(i)) ? 1.0 : 0.0);
        }
    }

    void check_compatible(const Model& target, const Model& base) const {
        if (base.kind() != target.kind())
            throw InputError(std::string("moments path: the base is a ") + kind_name(base.kind()) +
                             " but the target is a " + kind_name(target.kind()) + "; they must be of the same kind");
        if (base.n_visible() != fam_.n || base.n_hidden() != fam_.m)
            throw InputError("moments path: the base has " + std::to_string(base.n_visible()) + " visible and " +
                             std::to_string(base.n_hidden()) + " hidden units, the target " + std::to_string(fam_.n) +
                             " and " + std::to_string(fam_.m) + "; they must match");
        if (const Grbm* g = base.as<Grbm>()) {
            if ((g->sigma - fam_.sigma).cwiseAbs().maxCoeff() > 1e-12 * fam_.sigma.cwiseAbs().maxCoeff())
                throw InputError("moments path: the base's sigma differs from the target's; a GRBM family has fixed "
                                 "sigma (use the AISM-type base: b = target mean, sigma = target sigma)");
            if (g->hidden_values != fam_.values)
                throw InputError("moments path: the base's hidden_values differ from the target's");
        }
    }
    static void check_options(const MasOptions& o) {
        double prev = 0;
        for (std::size_t k = 0; k < o.knots.size(); ++k) {
            const double b = o.knots[k];
            if (!(b > 0 && b < 1))
                throw InputError("moments path: knot " + std::to_string(k + 1) + " is " + std::to_string(b) +
                                 "; knots must lie strictly inside (0, 1)");
            if (!(b > prev))
                throw InputError("moments path: knots must be strictly increasing, but knot " + std::to_string(k + 1) +
                                 " (" + std::to_string(b) + ") follows " + std::to_string(prev));
            prev = b;
        }
        if (o.max_iterations < 1)
            throw InputError("moments path: max_iterations must be >= 1, got " + std::to_string(o.max_iterations));
        if (!(o.tolerance > 0)) throw InputError("moments path: tolerance must be > 0");
        if (o.pcd_chains < 1 || o.pcd_steps < 1)
            throw InputError("moments path: pcd_chains and pcd_steps must be >= 1");
    }
    std::string describe_size() const {
        std::ostringstream os;
        os << fam_.radix() << "^" << fam_.layer() << " " << (fam_.enum_visible ? "visible" : "hidden")
           << " configurations";
        return os.str();
    }

    Family fam_;
    bool base_zero_ = false;
    Grbm hidden_;  // only its hidden_values: phi()
    double log_z0_ = 0, cost_ = 0;
    std::vector<Knot> knots_;
    std::vector<Params> params_;  // RBM parameters at each knot
    std::string notes_;
    detail::BetaCache<Table> tables_;
};

}  // namespace

PathPtr make_mas_path(const Model& target, const Model& base, const MasOptions& opts) {
    return std::make_shared<MasPath>(target, base, opts);
}

}  // namespace rbm
