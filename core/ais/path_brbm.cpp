// Geometric path for a Bernoulli RBM (docs/methods/annealing-paths.md#geometric-brbm): the base is the zero-weight RBM
// with visible bias a (hidden bias 0), and p_beta is the RBM with weights beta W, visible bias
// (1-beta) a + beta b and hidden bias beta c, so
//   log f_beta(v) = ((1-beta) a + beta b)'v + sum_j softplus(beta lambda_j),  lambda = c + W'v,
//   log Z_0 = sum_i softplus(a_i) + m log 2.
// Because every p_beta is itself an RBM, enumerating its smaller layer gives exact samples
// (perfect transitions) and exact moments (knots()) when that layer has at most 2^16 states.
#include <cmath>
#include <sstream>

#include "core/ais/exact_table.hpp"
#include "core/ais/paths.hpp"
#include "core/kernels/brbm_block.hpp"
#include "core/numerics/scalar.hpp"

namespace rbm {

namespace {

using RowMatF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

class BrbmGeometricPath final : public AnnealingPath {
public:
    BrbmGeometricPath(const Brbm& m, const Vec& base_bias, std::string label, bool float32)
        : m_(m), a_(base_bias), label_(std::move(label)), f32_(float32), wf_(m.W.cast<float>()) {
        if (f32_) kernel_f_ = detail::BrbmKernel<float>(m_, a_);
        else kernel_d_ = detail::BrbmKernel<double>(m_, a_);
        log_z0_ = static_cast<double>(m_.n_hidden()) * std::log(2.0);
        for (Index i = 0; i < a_.size(); ++i) log_z0_ += softplus(a_(i));
        enumerate_hidden_ = m_.n_hidden() <= m_.n_visible();
        const Index units = enumerate_hidden_ ? m_.n_hidden() : m_.n_visible();
        configs_ = detail::count_configurations(2, units);
        if (configs_ <= detail::kPerfectMaxConfigurations)
            configs_matrix_ = detail::enumerate_configurations({0.0, 1.0}, units);
    }

    std::string name() const override { return "geometric (" + label_ + ")"; }
    std::string notes() const override { return f32_ ? "products with W in float32" : ""; }
    Index dim() const override { return m_.n_visible(); }
    double log_z0() const override { return log_z0_; }

    void sample_base(RowMat& X, Index begin, Index end, ChainRngs& rngs) const override {
        for (Index r = begin; r < end; ++r) {
            Rng& rng = rngs[r];
            for (Index i = 0; i < X.cols(); ++i) X(r, i) = rng.uniform() < sigmoid(a_(i)) ? 1.0 : 0.0;
        }
    }

    void log_f(double beta, const RowMat& X, Index begin, Index end, Vec& out) const override {
        RowMat L;
        hidden_field(X, begin, end, L);
        const Vec vb = visible_bias(beta);
        for (Index r = begin; r < end; ++r) {
            double s = X.row(r).dot(vb.transpose());
            for (Index j = 0; j < L.cols(); ++j) s += softplus(beta * L(r - begin, j));
            out(r) = s;
        }
    }

    // Both go through the fused kernel (kernels/brbm_block.hpp): the increment shares lambda with the
    // hidden draw, and the products skip the units that are off.
    void transition(double beta, RowMat& X, Index begin, Index end, ChainRngs& rngs) const override {
        if (f32_) kernel_f_.step(beta, beta, X, begin, end, nullptr, rngs);
        else kernel_d_.step(beta, beta, X, begin, end, nullptr, rngs);
    }

    void advance(double beta_prev, double beta, RowMat& X, Index begin, Index end, Vec& lw,
                 ChainRngs& rngs) const override {
        if (f32_) kernel_f_.step(beta_prev, beta, X, begin, end, &lw, rngs);
        else kernel_d_.step(beta_prev, beta, X, begin, end, &lw, rngs);
    }

    bool can_sample_exactly() const override { return configs_ <= detail::kPerfectMaxConfigurations; }

    void sample_exact(double beta, RowMat& X, Index begin, Index end, ChainRngs& rngs) const override {
        if (!can_sample_exactly()) AnnealingPath::sample_exact(beta, X, begin, end, rngs);
        const auto table = tables_.get(beta, [this](double b) { return layer_table(b); });
        if (!enumerate_hidden_) {
            for (Index r = begin; r < end; ++r) X.row(r) = configs_matrix_.row(table->draw(rngs[r]));
            return;
        }
        RowMat H(end - begin, m_.n_hidden());
        for (Index r = begin; r < end; ++r) H.row(r - begin) = configs_matrix_.row(table->draw(rngs[r]));
        sample_visible(H, beta, X, begin, rngs);
    }

    std::vector<Knot> knots() const override {
        return detail::exact_knots(can_sample_exactly(), [this](double beta) { return knot(beta); });
    }
    double cost_functional() const override {
        return detail::exact_cost_functional(can_sample_exactly(), [this](double beta) { return knot(beta); });
    }

private:
    Vec visible_bias(double beta) const { return (1.0 - beta) * a_ + beta * m_.b; }

    void hidden_field(const RowMat& X, Index begin, Index end, RowMat& L) const {
        if (f32_) L = (RowMatF(X.middleRows(begin, end - begin).cast<float>()) * wf_).cast<double>();
        else L.noalias() = X.middleRows(begin, end - begin) * m_.W;
        L.rowwise() += m_.c.transpose();
    }
    void sample_visible(const RowMat& H, double beta, RowMat& X, Index begin, ChainRngs& rngs) const {
        const Vec vb = visible_bias(beta);
        const RowMat U =
            f32_ ? RowMat((H.cast<float>() * wf_.transpose()).cast<double>()) : RowMat(H * m_.W.transpose());
        for (Index r = 0; r < H.rows(); ++r) {
            Rng& rng = rngs[begin + r];
            for (Index i = 0; i < X.cols(); ++i)
                X(begin + r, i) = rng.uniform() < sigmoid(beta * U(r, i) + vb(i)) ? 1.0 : 0.0;
        }
    }

    // Log weights of the enumerated layer under p_beta, its other layer summed out.
    detail::CategoricalTable layer_table(double beta) const {
        const Vec vb = visible_bias(beta);
        Vec lw(configs_matrix_.rows());
        if (enumerate_hidden_) {
            RowMat A = beta * (configs_matrix_ * m_.W.transpose());
            A.rowwise() += vb.transpose();
            lw = beta * (configs_matrix_ * m_.c);
            for (Index r = 0; r < A.rows(); ++r)
                for (Index i = 0; i < A.cols(); ++i) lw(r) += softplus(A(r, i));
        } else {
            RowMat A = configs_matrix_ * m_.W;
            A.rowwise() += m_.c.transpose();
            lw = configs_matrix_ * vb;
            for (Index r = 0; r < A.rows(); ++r)
                for (Index j = 0; j < A.cols(); ++j) lw(r) += softplus(beta * A(r, j));
        }
        return detail::CategoricalTable::from_log_weights(lw);
    }

    // Natural parameters eta = (vec(beta W), (1-beta) a + beta b, beta c) for the statistics
    // (vec(v h'), v, h), and their exact moments.
    Knot knot(double beta) const {
        const Index n = m_.n_visible(), k = m_.n_hidden();
        const detail::CategoricalTable t = layer_table(beta);
        const Vec vb = visible_bias(beta);
        RowMat V, H;  // per configuration: the enumerated layer and the conditional mean of the other
        if (enumerate_hidden_) {
            H = configs_matrix_;
            V = beta * (H * m_.W.transpose());
            V.rowwise() += vb.transpose();
            V = V.unaryExpr([](double x) { return sigmoid(x); });
        } else {
            V = configs_matrix_;
            H = V * m_.W;
            H.rowwise() += m_.c.transpose();
            H = H.unaryExpr([beta](double x) { return sigmoid(beta * x); });
        }
        const Mat evh = V.transpose() * t.prob.asDiagonal() * H;
        Knot kn;
        kn.beta = beta;
        kn.eta.resize(n * k + n + k);
        kn.s.resize(kn.eta.size());
        kn.eta << Eigen::Map<const Vec>(Mat(beta * m_.W).data(), n * k), vb, beta * m_.c;
        kn.s << Eigen::Map<const Vec>(evh.data(), n * k), V.transpose() * t.prob, H.transpose() * t.prob;
        return kn;
    }

    Brbm m_;
    Vec a_;
    std::string label_;
    bool f32_;
    Eigen::MatrixXf wf_;
    detail::BrbmKernel<float> kernel_f_;
    detail::BrbmKernel<double> kernel_d_;
    double log_z0_ = 0;
    bool enumerate_hidden_ = true;
    double configs_ = 0;
    RowMat configs_matrix_;
    detail::BetaCache<detail::CategoricalTable> tables_;
};

}  // namespace

PathPtr make_brbm_geometric_path(const Brbm& m, const Vec& base_visible_bias, const std::string& base_label,
                                 bool float32) {
    if (base_visible_bias.size() != m.n_visible())
        throw InputError("the base visible bias has " + std::to_string(base_visible_bias.size()) +
                         " entries, the BRBM " + std::to_string(m.n_visible()) + " visible units");
    for (Index i = 0; i < base_visible_bias.size(); ++i)
        if (!std::isfinite(base_visible_bias(i)))
            throw InputError("the base visible bias is not finite at unit " + std::to_string(i));
    return std::make_shared<BrbmGeometricPath>(m, base_visible_bias, base_label, float32);
}

}  // namespace rbm
