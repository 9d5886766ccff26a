// The knots of the moment-averaged spline path (docs/methods/annealing-paths.md#mas; Grosse, Maddison & Salakhutdinov
// 2013): the family's moments and the moment-matching fits. The path itself is in path_mas.cpp.
#include "core/ais/mas_knots.hpp"

namespace rbm::mas {

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
//   GRBM (h): B.h + h'Jh/2            (docs/methods/models.md#grbm-hidden-marginal, v integrated out)
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
        // v | h ~ N(b + sigma∘(W h), diag sigma^2): E[v] = b + sigma∘(W E[h]), E[v h'] = b E[h]' + diag(sigma) W
        // E[hh'].
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
Vec rb_moments(const Family& f, const Params& p, const RowMat& V, Vec* var, RowMat* q_out) {
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

// Minimize F(eta) = log Z_ef(eta) - eta's (convex), gradient E_eta[g] - s, by L-BFGS with exact
// moments. The line search brackets the 1-D minimum through the directional derivative (which
// enumeration gives to full precision) and checks sufficient decrease while F differences are
// above rounding.
FitResult fit_exact(const Family& f, const Vec& s, const Vec& eta0, const MasOptions& opts) {
    auto eval = [&](const Vec& eta, Vec& grad) {
        throw_if_cancelled(opts);
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
FitResult fit_pcd(const Family& f, const Vec& s, const Vec& eta0, const MasOptions& opts, RowMat& V, ChainRngs& rngs) {
    FitResult out;
    Vec eta = eta0, avg = Vec::Zero(eta0.size()), var;
    const int T = opts.max_iterations, half = T / 2;
    double grad_tail = 0, scale = 1;
    int tail = 0;
    RowMat Q;
    for (int t = 0; t < T; ++t) {
        throw_if_cancelled(opts);
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

}  // namespace rbm::mas
