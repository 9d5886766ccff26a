// Geometric path on the joint energy of a GRBM (docs/methods/annealing-paths.md#geometric-grbm, eq. 9 corrected):
//   log p_beta(v,h) = -beta E_B(v,h) - (1-beta) E_A(v) + const,
//   E_A(v) = sum_i (v_i - a_i)^2 / (2 sA_i^2), hidden units uniform on X under the base.
// Per coordinate the v-part is Gaussian with precision P_i = beta/s_i^2 + (1-beta)/sA_i^2 and
// linear coefficient L_i(h) = l_i + beta (W h)_i / s_i, l_i = beta b_i/s_i^2 + (1-beta) a_i/sA_i^2.
// Integrating v gives the hidden marginal p_beta(h) ∝ exp(B.h + h'Jh/2) with
//   B_j = beta c_j + beta sum_i W_ij l_i / (s_i P_i),  J = beta^2 W' diag(1/(s^2 P)) W,
// which at beta = 1 is the B and J of docs/methods/models.md#grbm-hidden-marginal; it gives exact samples
// (perfect transitions) and the exact moments behind knots() when |X|^m is small.
#include <cmath>
#include <sstream>

#include "core/ais/exact_table.hpp"
#include "core/ais/paths.hpp"
#include "core/kernels/grbm_block.hpp"
#include "core/numerics/scalar.hpp"

namespace rbm {

namespace {

using RowMatF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

class GrbmGeometricPath final : public AnnealingPath {
public:
    GrbmGeometricPath(const Grbm& m, const DiagGaussianBase& base, std::string label, bool float32)
        : m_(m), base_(base), label_(std::move(label)), f32_(float32), wf_(m.W.cast<float>()) {
        const Index n = m_.n_visible();
        inv_s_ = m_.sigma.cwiseInverse();
        inv_s2_ = inv_s_.cwiseAbs2();
        inv_sa2_ = base_.sigma.cwiseAbs2().cwiseInverse();
        log_z0_ = static_cast<double>(m_.n_hidden()) * std::log(static_cast<double>(m_.hidden_values.size()));
        for (Index i = 0; i < n; ++i) log_z0_ += 0.5 * kLog2Pi + std::log(base_.sigma(i));
        configs_ = detail::count_configurations(m_.hidden_values.size(), m_.n_hidden());
        if (configs_ <= detail::kPerfectMaxConfigurations)
            hidden_configs_ = detail::enumerate_configurations(m_.hidden_values, m_.n_hidden());
        if (m_.binary01()) kernel_ = detail::GrbmKernel(m_, base_.mean, base_.sigma, f32_);
    }

    std::string name() const override { return "geometric (" + label_ + ")"; }
    std::string notes() const override { return f32_ ? "the step in float32 (weights summed in double)" : ""; }
    Index dim() const override { return m_.n_visible(); }
    double log_z0() const override { return log_z0_; }

    void sample_base(RowMat& X, Index begin, Index end, ChainRngs& rngs) const override {
        for (Index r = begin; r < end; ++r) {
            Rng& rng = rngs[r];
            for (Index i = 0; i < X.cols(); ++i) X(r, i) = base_.mean(i) + base_.sigma(i) * rng.normal();
        }
    }

    void log_f(double beta, const RowMat& X, Index begin, Index end, Vec& out) const override {
        RowMat L;
        hidden_field(X, begin, end, L);
        for (Index r = begin; r < end; ++r) {
            double s = -beta * quad_b(X, r) - (1.0 - beta) * quad_a(X, r);
            for (Index j = 0; j < L.cols(); ++j) s += m_.log_partition_hidden(beta * L(r - begin, j));
            out(r) = s;
        }
    }

    // Hidden units in {0,1}: the fused kernel (kernels/grbm_block.hpp); otherwise the steps below.
    void transition(double beta, RowMat& X, Index begin, Index end, ChainRngs& rngs) const override {
        if (m_.binary01()) return kernel_.step(beta, beta, X, begin, end, nullptr, rngs);
        RowMat L, H;
        hidden_field(X, begin, end, L);
        sample_hidden(L, beta, H, rngs, begin);
        sample_visible(H, beta, X, begin, rngs);
    }

    void advance(double beta_prev, double beta, RowMat& X, Index begin, Index end, Vec& lw,
                 ChainRngs& rngs) const override {
        if (m_.binary01()) return kernel_.step(beta_prev, beta, X, begin, end, &lw, rngs);
        RowMat L, H;
        hidden_field(X, begin, end, L);
        const double d = beta - beta_prev;
        for (Index r = begin; r < end; ++r) {
            // log f_beta - log f_beta_prev = d (Q_A - Q_B) + sum_j [phi(beta l_j) - phi(beta_prev l_j)]
            double s = d * (quad_a(X, r) - quad_b(X, r));
            for (Index j = 0; j < L.cols(); ++j)
                s += phi_difference(beta * L(r - begin, j), beta_prev * L(r - begin, j));
            lw(r) += s;
        }
        sample_hidden(L, beta, H, rngs, begin);
        sample_visible(H, beta, X, begin, rngs);
    }

    bool can_sample_exactly() const override { return configs_ <= detail::kPerfectMaxConfigurations; }

    void sample_exact(double beta, RowMat& X, Index begin, Index end, ChainRngs& rngs) const override {
        if (!can_sample_exactly()) AnnealingPath::sample_exact(beta, X, begin, end, rngs);
        const auto table = tables_.get(beta, [this](double b) { return hidden_table(b); });
        RowMat H(end - begin, m_.n_hidden());
        for (Index r = begin; r < end; ++r) H.row(r - begin) = hidden_configs_.row(table->draw(rngs[r]));
        sample_visible(H, beta, X, begin, rngs);
    }

    std::vector<Knot> knots() const override {
        return detail::exact_knots(can_sample_exactly(), [this](double beta) { return knot(beta); });
    }
    double cost_functional() const override {
        return detail::exact_cost_functional(can_sample_exactly(), [this](double beta) { return knot(beta); });
    }

private:
    // Per-beta Gaussian factor of p_beta(v | h): precision P, sd 1/sqrt(P), coefficient l.
    struct Scaled {
        Vec prec, sd, lin;
    };
    Scaled scaled(double beta) const {
        Scaled s;
        s.prec = beta * inv_s2_ + (1.0 - beta) * inv_sa2_;
        s.sd = s.prec.cwiseSqrt().cwiseInverse();
        s.lin = beta * m_.b.cwiseProduct(inv_s2_) + (1.0 - beta) * base_.mean.cwiseProduct(inv_sa2_);
        return s;
    }

    double quad_b(const RowMat& X, Index r) const {
        double q = 0;
        for (Index i = 0; i < X.cols(); ++i) {
            const double z = (X(r, i) - m_.b(i)) * inv_s_(i);
            q += z * z;
        }
        return 0.5 * q;
    }
    double quad_a(const RowMat& X, Index r) const {
        double q = 0;
        for (Index i = 0; i < X.cols(); ++i) {
            const double z = X(r, i) - base_.mean(i);
            q += z * z * inv_sa2_(i);
        }
        return 0.5 * q;
    }
    // phi(x) - phi(y) (hidden values other than {0,1}; those go through the kernel).
    double phi_difference(double x, double y) const { return m_.log_partition_hidden(x) - m_.log_partition_hidden(y); }

    void hidden_field(const RowMat& X, Index begin, Index end, RowMat& L) const {
        const auto scaled_v =
            (X.middleRows(begin, end - begin).array().rowwise() * inv_s_.transpose().array()).matrix();
        if (f32_) L = (RowMatF(scaled_v.cast<float>()) * wf_).cast<double>();
        else L.noalias() = scaled_v * m_.W;
        L.rowwise() += m_.c.transpose();
    }
    void sample_hidden(const RowMat& L, double beta, RowMat& H, ChainRngs& rngs, Index begin) const {
        H.resize(L.rows(), L.cols());
        for (Index r = 0; r < L.rows(); ++r) {
            Rng& rng = rngs[begin + r];
            for (Index j = 0; j < L.cols(); ++j) H(r, j) = m_.sample_hidden(beta * L(r, j), rng);
        }
    }
    // v_i ~ N(L_i(h) / P_i, 1 / P_i).
    void sample_visible(const RowMat& H, double beta, RowMat& X, Index begin, ChainRngs& rngs) const {
        const Scaled s = scaled(beta);
        const RowMat U =
            f32_ ? RowMat((H.cast<float>() * wf_.transpose()).cast<double>()) : RowMat(H * m_.W.transpose());
        for (Index r = 0; r < H.rows(); ++r) {
            Rng& rng = rngs[begin + r];
            for (Index i = 0; i < X.cols(); ++i) {
                const double mean = (s.lin(i) + beta * U(r, i) * inv_s_(i)) / s.prec(i);
                X(begin + r, i) = mean + s.sd(i) * rng.normal();
            }
        }
    }

    detail::CategoricalTable hidden_table(double beta) const {
        const Scaled s = scaled(beta);
        const Vec scale = inv_s_.cwiseQuotient(s.prec);  // 1 / (s_i P_i)
        const Vec B = beta * m_.c + beta * m_.W.transpose() * s.lin.cwiseProduct(scale);
        const Mat J = beta * beta * m_.W.transpose() * (inv_s_.cwiseProduct(scale)).asDiagonal() * m_.W;
        const RowMat HJ = hidden_configs_ * J;
        const Vec lw = hidden_configs_ * B + 0.5 * HJ.cwiseProduct(hidden_configs_).rowwise().sum();
        return detail::CategoricalTable::from_log_weights(lw);
    }

    // Natural parameters and moments of p_beta for the statistics (v^2, v, h, vec(v h')):
    // eta = (-P/2, l, beta c, vec(beta W / s)), all linear in beta.
    Knot knot(double beta) const {
        const Index n = m_.n_visible(), k = m_.n_hidden();
        const Scaled s = scaled(beta);
        const detail::CategoricalTable t = hidden_table(beta);
        const Vec eh = hidden_configs_.transpose() * t.prob;
        const Mat ehh = hidden_configs_.transpose() * t.prob.asDiagonal() * hidden_configs_;
        const Vec weh = m_.W * eh;
        const Mat wehh = m_.W * ehh;
        Knot kn;
        kn.beta = beta;
        kn.eta.resize(2 * n + k + n * k);
        kn.s.resize(kn.eta.size());
        kn.eta << -0.5 * s.prec, s.lin, beta * m_.c,
            Eigen::Map<const Vec>(Mat(beta * inv_s_.asDiagonal() * m_.W).data(), n * k);
        Vec ev(n), ev2(n);
        Mat evh(n, k);
        for (Index i = 0; i < n; ++i) {
            const double p = s.prec(i), l = s.lin(i), g = beta * inv_s_(i);
            ev(i) = (l + g * weh(i)) / p;
            const double q = wehh.row(i).dot(m_.W.row(i));  // (W E[hh'] W')_ii
            ev2(i) = 1.0 / p + (l * l + 2 * l * g * weh(i) + g * g * q) / (p * p);
            evh.row(i) = (l * eh.transpose() + g * wehh.row(i)) / p;
        }
        kn.s << ev2, ev, eh, Eigen::Map<const Vec>(evh.data(), n * k);
        return kn;
    }

    Grbm m_;
    DiagGaussianBase base_;
    std::string label_;
    bool f32_;
    Eigen::MatrixXf wf_;
    Vec inv_s_, inv_s2_, inv_sa2_;
    double log_z0_ = 0;
    double configs_ = 0;
    RowMat hidden_configs_;
    detail::BetaCache<detail::CategoricalTable> tables_;
    detail::GrbmKernel kernel_;
};

}  // namespace

PathPtr make_grbm_geometric_path(const Grbm& m, const DiagGaussianBase& base, const std::string& base_label,
                                 bool float32) {
    const Index n = m.n_visible();
    if (base.mean.size() != n || base.sigma.size() != n)
        throw InputError("the base Gaussian has " + std::to_string(base.mean.size()) + " dimensions, the GRBM " +
                         std::to_string(n) + " visible units");
    for (Index i = 0; i < n; ++i) {
        if (!std::isfinite(base.mean(i)))
            throw InputError("the base Gaussian's mean is not finite at unit " + std::to_string(i));
        if (!(base.sigma(i) > 0) || !std::isfinite(base.sigma(i))) {
            std::ostringstream os;
            os << "the base Gaussian's standard deviation must be > 0, but is " << base.sigma(i) << " at unit " << i;
            throw InputError(os.str());
        }
    }
    return std::make_shared<GrbmGeometricPath>(m, base, base_label, float32);
}

}  // namespace rbm
