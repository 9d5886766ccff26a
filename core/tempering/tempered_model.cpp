// The tempered family of each model kind (tempering/tempered_model.hpp): local moves at a rung's beta and the
// swap potential V = log f_target - log f_ref on the state the swap exchanges.
#include <Eigen/Cholesky>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/kernels/gibbs_leaky.hpp"
#include "core/kernels/simd.hpp"
#include "core/numerics/parallel.hpp"
#include "core/numerics/scalar.hpp"
#include "core/tempering/tempered_model.hpp"

namespace rbm {

void TemperedModel::set_ladder(const std::vector<double>& betas) { betas_ = betas; }

double TemperedModel::reference_log_z() const { return std::numeric_limits<double>::quiet_NaN(); }

void TemperedModel::sample_reference(RowMat&, RowMat&, Index, Index, ChainRngs&, Vec&) const {
    throw InputError("this tempered family has no exact reference draws");
}

namespace {

// ---------------- GRBM: state (v, h) ----------------
// log f_beta(v,h) = -beta E_B(v,h) - (1-beta) E_A(v), so
// V(v,h) = -E_B + E_A = -sum (v-b)^2/(2 s^2) + sum_i (v_i/s_i)(W h)_i + c'h + sum (v-m_A)^2/(2 s_A^2).
class TemperedGrbm final : public TemperedModel {
public:
    TemperedGrbm(Grbm m, DiagGaussianBase base, std::string label)
        : m_(std::move(m)), base_(std::move(base)), label_(std::move(label)) {
        if (m_.binary01()) fused_ = detail::kernel_table().grbm(m_, base_.mean, base_.sigma, false);
    }
    std::string description() const override {
        return "GRBM on (v, h); reference: " + label_ + ", hidden units uniform";
    }
    std::string kernel_name() const override { return "block Gibbs"; }
    Index visible_dim() const override { return m_.n_visible(); }
    Index hidden_dim() const override { return m_.n_hidden(); }

    void initialize(RowMat& V, RowMat& H, Index begin, Index end, ChainRngs& rngs) const override {
        for (Index r = begin; r < end; ++r) {
            Rng& rng = rngs[r];
            for (Index i = 0; i < V.cols(); ++i) V(r, i) = base_.mean(i) + base_.sigma(i) * rng.normal();
        }
        H.middleRows(begin, end - begin).setZero();
    }

    // p_beta(v | h): N(mu, s^2) with 1/s^2 = beta/sigma^2 + (1-beta)/sigma_A^2 and
    // mu = s^2 (beta (b + sigma u)/sigma^2 + (1-beta) mean_A/sigma_A^2), u = W h (as grbm_sample_visible).
    void set_ladder(const std::vector<double>& betas) override {
        TemperedModel::set_ladder(betas);
        const Index n = m_.n_visible();
        prec_.assign(betas.size(), Vec(n));
        s_.assign(betas.size(), Vec(n));
        base_term_.assign(betas.size(), Vec(n));
        for (std::size_t k = 0; k < betas.size(); ++k) {
            const double beta = betas[k];
            for (Index i = 0; i < n; ++i) {
                const double sb2 = m_.sigma(i) * m_.sigma(i), sa2 = base_.sigma(i) * base_.sigma(i);
                prec_[k](i) = beta / sb2 + (1.0 - beta) / sa2;
                s_[k](i) = 1.0 / std::sqrt(prec_[k](i));
                base_term_[k](i) = (1.0 - beta) * base_.mean(i) / sa2;
            }
        }
    }

    // Hidden units in {0,1}: the fused kernel (kernels/grbm_block.hpp) at each row's beta, which
    // returns h and the potential from its own products; other hidden values: the generic
    // conditionals below.
    void local_move(const Index* rungs, RowMat& V, RowMat& H, Index begin, Index end, ChainRngs& rngs,
                    Vec& pot) const override {
        const Index rows = end - begin, n = m_.n_visible(), k = m_.n_hidden();
        if (fused_) {
            double beta[kChainBlock];
            for (Index r = 0; r < rows; ++r) beta[r] = betas_[static_cast<std::size_t>(rungs[r])];
            detail::SweepOutputs out;
            out.hidden = &H;
            out.potential = &pot;
            fused_->sweep(1.0, beta, V, begin, end, rngs, out);
            return;
        }
        RowMat Lambda;
        grbm_hidden_field(m_, V, begin, end, Lambda);
        for (Index r = 0; r < rows; ++r) {
            const double beta = betas_[static_cast<std::size_t>(rungs[r])];
            Rng& rng = rngs[begin + r];
            for (Index j = 0; j < k; ++j) H(begin + r, j) = m_.sample_hidden(beta * Lambda(r, j), rng);
        }
        const RowMat U = H.middleRows(begin, rows) * m_.W.transpose();
        for (Index r = 0; r < rows; ++r) {
            const std::size_t rung = static_cast<std::size_t>(rungs[r]);
            const double beta = betas_[rung];
            Rng& rng = rngs[begin + r];
            if (beta == 1.0) {
                for (Index i = 0; i < n; ++i)
                    V(begin + r, i) = m_.b(i) + m_.sigma(i) * U(r, i) + m_.sigma(i) * rng.normal();
                continue;
            }
            const Vec &prec = prec_[rung], &s = s_[rung], &base_term = base_term_[rung];
            for (Index i = 0; i < n; ++i) {
                const double sb2 = m_.sigma(i) * m_.sigma(i);
                const double mu = (beta * (m_.b(i) + m_.sigma(i) * U(r, i)) / sb2 + base_term(i)) / prec(i);
                V(begin + r, i) = mu + s(i) * rng.normal();
            }
        }
        potential(V, H, begin, end, pot);
    }

    void potential(const RowMat& V, const RowMat& H, Index begin, Index end, Vec& pot) const override {
        const Index rows = end - begin, n = m_.n_visible();
        const RowMat U = H.middleRows(begin, rows) * m_.W.transpose();
        const Vec ch = H.middleRows(begin, rows) * m_.c;
        for (Index r = 0; r < rows; ++r) {
            double s = ch(r);
            for (Index i = 0; i < n; ++i) {
                const double v = V(begin + r, i);
                const double d = (v - m_.b(i)) / m_.sigma(i), da = (v - base_.mean(i)) / base_.sigma(i);
                s += -0.5 * d * d + v / m_.sigma(i) * U(r, i) + 0.5 * da * da;
            }
            pot(begin + r) = s;
        }
    }

    // Z_ref = |X|^m prod_i sqrt(2 pi) sigma_A,i: the Gaussian in v times the uniform count of h.
    double reference_log_z() const override {
        double s = static_cast<double>(m_.n_hidden()) * std::log(static_cast<double>(m_.hidden_values.size()));
        for (Index i = 0; i < base_.sigma.size(); ++i) s += 0.5 * kLog2Pi + std::log(base_.sigma(i));
        return s;
    }
    void sample_reference(RowMat& V, RowMat& H, Index begin, Index end, ChainRngs& rngs, Vec& pot) const override {
        const auto X = static_cast<std::uint64_t>(m_.hidden_values.size());
        for (Index r = begin; r < end; ++r) {
            Rng& rng = rngs[r];
            for (Index i = 0; i < V.cols(); ++i) V(r, i) = base_.mean(i) + base_.sigma(i) * rng.normal();
            for (Index j = 0; j < H.cols(); ++j) H(r, j) = m_.hidden_values[static_cast<std::size_t>(rng.below(X))];
        }
        potential(V, H, begin, end, pot);
    }

private:
    Grbm m_;
    DiagGaussianBase base_;
    std::string label_;
    std::vector<Vec> prec_, s_, base_term_;  // per rung
    std::shared_ptr<const detail::BlockStep> fused_;
};

// ---------------- BRBM: state (v, h) ----------------
// The rung at beta is the RBM with weights beta W, visible bias (1-beta) b_A + beta b, hidden
// bias beta c (docs/methods/annealing-paths.md#geometric); V(v,h) = v'Wh + b'v + c'h - b_A'v.
class TemperedBrbm final : public TemperedModel {
public:
    TemperedBrbm(Brbm m, Vec base_bias, bool float32)
        : m_(std::move(m)), ba_(std::move(base_bias)),
          kernel_(float32 ? detail::kernel_table().brbm_float(m_, ba_) : detail::kernel_table().brbm_double(m_, ba_)),
          f32_(float32) {}
    std::string description() const override {
        return ba_.isZero() ? "BRBM on (v, h); reference: zero weights and biases (uniform), so the rung at beta "
                              "is the RBM with beta W, beta b, beta c"
                            : "BRBM on (v, h); reference: zero weights, visible bias b_A, hidden bias 0";
    }
    std::string kernel_name() const override { return f32_ ? "block Gibbs (float32 products)" : "block Gibbs"; }
    Index visible_dim() const override { return m_.n_visible(); }
    Index hidden_dim() const override { return m_.n_hidden(); }

    void initialize(RowMat& V, RowMat& H, Index begin, Index end, ChainRngs& rngs) const override {
        for (Index r = begin; r < end; ++r) {
            Rng& rng = rngs[r];
            for (Index i = 0; i < V.cols(); ++i) V(r, i) = rng.uniform() < sigmoid(ba_(i)) ? 1.0 : 0.0;
        }
        H.middleRows(begin, end - begin).setZero();
    }

    // Block Gibbs v -> h -> v on rows [begin, end), each row at its rung's beta, by the fused kernel
    // (kernels/brbm_block.hpp): h, the new v and V(v, h) from the same sums of rows of W.
    void local_move(const Index* rungs, RowMat& V, RowMat& H, Index begin, Index end, ChainRngs& rngs,
                    Vec& pot) const override {
        double beta[kChainBlock];
        for (Index r = 0; r < end - begin; ++r) beta[r] = betas_[static_cast<std::size_t>(rungs[r])];
        detail::SweepOutputs out;
        out.hidden = &H;
        out.potential = &pot;
        kernel_->sweep(1.0, beta, V, begin, end, rngs, out);
    }
    bool rows_independent() const override { return true; }

    void potential(const RowMat& V, const RowMat& H, Index begin, Index end, Vec& pot) const override {
        const Index rows = end - begin;
        const RowMat B = H.middleRows(begin, rows) * m_.W.transpose();
        const Vec bv = V.middleRows(begin, rows) * (m_.b - ba_);
        const Vec ch = H.middleRows(begin, rows) * m_.c;
        for (Index r = 0; r < rows; ++r) pot(begin + r) = V.row(begin + r).dot(B.row(r)) + bv(r) + ch(r);
    }

    // Z_ref = prod_i (1 + e^{b_A,i}) 2^m.
    double reference_log_z() const override {
        double s = static_cast<double>(m_.n_hidden()) * std::log(2.0);
        for (Index i = 0; i < ba_.size(); ++i) s += softplus(ba_(i));
        return s;
    }
    void sample_reference(RowMat& V, RowMat& H, Index begin, Index end, ChainRngs& rngs, Vec& pot) const override {
        for (Index r = begin; r < end; ++r) {
            Rng& rng = rngs[r];
            for (Index i = 0; i < V.cols(); ++i) V(r, i) = rng.uniform() < sigmoid(ba_(i)) ? 1.0 : 0.0;
            for (Index j = 0; j < H.cols(); ++j) H(r, j) = rng.uniform() < 0.5 ? 1.0 : 0.0;
        }
        potential(V, H, begin, end, pot);
    }

private:
    Brbm m_;
    Vec ba_;
    std::shared_ptr<const detail::BlockStep> kernel_;
    bool f32_ = false;
};

// ---------------- leaky RBM: state v ----------------
// log f_beta(v) = -|v|^2/2 + b'v + beta sum_j alpha_j eta_j^2 / 2 is geometric between N(b, I) and
// p*(v), so the swap works on the v-marginal, V(v) = sum_j alpha_j eta_j^2 / 2. That is valid
// because the ExactMH local move leaves this v-marginal invariant; the paper's Gibbs kernel does
// not (docs/methods/models.md#leaky-kernels), so with it the run samples a slightly different family.
class TemperedLeaky final : public TemperedModel {
public:
    TemperedLeaky(Leaky m, LeakyKernel kernel) : m_(std::move(m)), kernel_(kernel), pre_(m_) {}
    std::string description() const override { return "leaky RBM on v (marginal family); reference: N(b, I)"; }
    std::string kernel_name() const override { return leaky_kernel_name(kernel_); }
    Index visible_dim() const override { return m_.n_visible(); }

    void initialize(RowMat& V, RowMat&, Index begin, Index end, ChainRngs& rngs) const override {
        for (Index r = begin; r < end; ++r) {
            Rng& rng = rngs[r];
            for (Index i = 0; i < V.cols(); ++i) V(r, i) = m_.b(i) + rng.normal();
        }
    }

    void local_move(const Index* rungs, RowMat& V, RowMat& H, Index begin, Index end, ChainRngs& rngs,
                    Vec& pot) const override {
        double beta[kChainBlock];
        for (Index r = 0; r < end - begin; ++r) beta[r] = betas_[static_cast<std::size_t>(rungs[r])];
        detail::leaky_sweep_block_gram(m_, &pre_, V, begin, end, rngs, kernel_, 1.0, m_.leakiness, beta);
        potential(V, H, begin, end, pot);
    }

    void potential(const RowMat& V, const RowMat&, Index begin, Index end, Vec& pot) const override {
        const Index rows = end - begin;
        thread_local RowMat E;  // grows once per thread: no allocation per scan
        E.resize(rows, m_.n_hidden());
        E.noalias() = V.middleRows(begin, rows) * m_.W;
        E.rowwise() += m_.c.transpose();
        for (Index r = 0; r < rows; ++r) {
            double s = 0;
            for (Index j = 0; j < E.cols(); ++j) {
                const double e = E(r, j);
                s += (e > 0 ? 1.0 : m_.leakiness) * e * e;
            }
            pot(begin + r) = 0.5 * s;
        }
    }

    // Z_ref = integral of exp(-|v|^2/2 + b'v) = (2 pi)^{n/2} exp(|b|^2/2).
    double reference_log_z() const override {
        return 0.5 * static_cast<double>(m_.n_visible()) * kLog2Pi + 0.5 * m_.b.squaredNorm();
    }
    void sample_reference(RowMat& V, RowMat& H, Index begin, Index end, ChainRngs& rngs, Vec& pot) const override {
        initialize(V, H, begin, end, rngs);  // N(b, I)
        potential(V, H, begin, end, pot);
    }

private:
    Leaky m_;
    LeakyKernel kernel_;
    detail::LeakyConstants pre_;  // W'W and c + W'b, once rather than per block
};

// ---------------- two Gaussians: state v, exact draws ----------------
// p_beta is Gaussian with precision (1-beta) P_0 + beta P_1 and precision-weighted mean, so the
// local move is an exact draw: the "efficient local exploration" of the round-trip theory.
class TemperedGaussian final : public TemperedModel {
public:
    TemperedGaussian(Gaussian ref, Gaussian target, std::string label)
        : ref_(std::move(ref)), tgt_(std::move(target)), label_(std::move(label)) {
        L0_ = ref_.cholesky();
        L1_ = tgt_.cholesky();
        const Index n = tgt_.n_visible();
        P0_ = ref_.cov.llt().solve(Mat::Identity(n, n));
        P1_ = tgt_.cov.llt().solve(Mat::Identity(n, n));
        logdet0_ = 2.0 * L0_.diagonal().array().log().sum();
        logdet1_ = 2.0 * L1_.diagonal().array().log().sum();
    }
    std::string description() const override { return "two Gaussians; reference: " + label_; }
    std::string kernel_name() const override { return "exact draws"; }
    Index visible_dim() const override { return tgt_.n_visible(); }
    bool exact_local_moves() const override { return true; }

    void set_ladder(const std::vector<double>& betas) override {
        TemperedModel::set_ladder(betas);
        means_.clear();
        chols_.clear();
        const Index n = tgt_.n_visible();
        for (double beta : betas) {
            const Mat P = (1.0 - beta) * P0_ + beta * P1_;
            const Vec h = (1.0 - beta) * (P0_ * ref_.mean) + beta * (P1_ * tgt_.mean);
            Eigen::LLT<Mat> llt(P);
            const Mat cov = llt.solve(Mat::Identity(n, n));
            means_.push_back(llt.solve(h));
            Eigen::LLT<Mat> lc(0.5 * (cov + cov.transpose()));
            chols_.push_back(lc.matrixL());
        }
    }

    void initialize(RowMat& V, RowMat&, Index begin, Index end, ChainRngs& rngs) const override {
        gaussian_sample(ref_.mean, L0_, V, begin, end, rngs);
    }

    // Row r: mean_k + L_k z, z ~ N(0, I) from its own stream (k its rung), as gaussian_sample.
    void local_move(const Index* rungs, RowMat& V, RowMat& H, Index begin, Index end, ChainRngs& rngs,
                    Vec& pot) const override {
        const Index n = tgt_.n_visible();
        Eigen::RowVectorXd z(n);
        for (Index r = 0; r < end - begin; ++r) {
            const std::size_t k = static_cast<std::size_t>(rungs[r]);
            Rng& rng = rngs[begin + r];
            for (Index i = 0; i < n; ++i) z(i) = rng.normal();
            V.row(begin + r) = z * chols_[k].transpose() + means_[k].transpose();
        }
        potential(V, H, begin, end, pot);
    }

    void potential(const RowMat& V, const RowMat&, Index begin, Index end, Vec& pot) const override {
        const Index rows = end - begin;
        const Mat D0 = (V.middleRows(begin, rows).rowwise() - ref_.mean.transpose()).transpose();
        const Mat D1 = (V.middleRows(begin, rows).rowwise() - tgt_.mean.transpose()).transpose();
        const Mat Z0 = L0_.triangularView<Eigen::Lower>().solve(D0);
        const Mat Z1 = L1_.triangularView<Eigen::Lower>().solve(D1);
        for (Index r = 0; r < rows; ++r)
            pot(begin + r) = -0.5 * (Z1.col(r).squaredNorm() + logdet1_) + 0.5 * (Z0.col(r).squaredNorm() + logdet0_);
    }

    // V is the difference of the normalized log densities, so f_ref is normalized: log Z_ref = 0.
    double reference_log_z() const override { return 0.0; }
    void sample_reference(RowMat& V, RowMat& H, Index begin, Index end, ChainRngs& rngs, Vec& pot) const override {
        gaussian_sample(ref_.mean, L0_, V, begin, end, rngs);
        potential(V, H, begin, end, pot);
    }

private:
    Gaussian ref_, tgt_;
    std::string label_;
    Mat L0_, L1_, P0_, P1_;
    double logdet0_ = 0, logdet1_ = 0;
    std::vector<Vec> means_;
    std::vector<Mat> chols_;
};

void require_vector(const Vec& x, Index n, const std::string& what) {
    if (x.size() != n)
        throw InputError(what + " has length " + std::to_string(x.size()) + ", expected " + std::to_string(n) +
                         " (one per visible unit)");
    for (Index i = 0; i < n; ++i)
        if (!std::isfinite(x(i)))
            throw InputError(what + " contains a non-finite value at element " + std::to_string(i));
}

}  // namespace

DiagGaussianBase default_grbm_reference(const Grbm& m, double scale) {
    if (!(scale > 0 && std::isfinite(scale)))
        throw InputError("the GRBM reference scale must be a positive number, got " + std::to_string(scale));
    double xbar = 0, var = 0;
    for (double x : m.hidden_values) xbar += x;
    xbar /= static_cast<double>(m.hidden_values.size());
    for (double x : m.hidden_values) var += (x - xbar) * (x - xbar);
    var /= static_cast<double>(m.hidden_values.size());
    DiagGaussianBase base;
    const Index n = m.n_visible();
    base.mean = Vec(n);
    base.sigma = Vec(n);
    for (Index i = 0; i < n; ++i) {
        base.mean(i) = m.b(i) + m.sigma(i) * xbar * m.W.row(i).sum();
        base.sigma(i) = scale * m.sigma(i) * std::sqrt(1.0 + var * m.W.row(i).squaredNorm());
    }
    return base;
}

std::unique_ptr<TemperedModel> make_tempered_model(const Model& model, const PtReference& ref) {
    validate(model);
    const Index n = model.n_visible();
    if (const auto* g = model.as<Grbm>()) {
        if (ref.grbm) {
            require_vector(ref.grbm->mean, n, "the GRBM reference mean");
            require_vector(ref.grbm->sigma, n, "the GRBM reference sigma");
            for (Index i = 0; i < n; ++i)
                if (!(ref.grbm->sigma(i) > 0))
                    throw InputError("the GRBM reference sigma must be > 0, but sigma_A[" + std::to_string(i) +
                                     "] = " + std::to_string(ref.grbm->sigma(i)));
            return std::make_unique<TemperedGrbm>(*g, *ref.grbm, "N(mean, diag sigma_A^2) as given");
        }
        std::ostringstream label;
        label << "N(mean, diag sigma_A^2) matched to the GRBM with uniform hidden units";
        if (ref.grbm_scale != 1.0) label << ", sigma_A scaled by " << ref.grbm_scale;
        return std::make_unique<TemperedGrbm>(*g, default_grbm_reference(*g, ref.grbm_scale), label.str());
    }
    if (const auto* b = model.as<Brbm>()) {
        Vec ba = Vec::Zero(n);
        if (ref.brbm_bias) {
            require_vector(*ref.brbm_bias, n, "the BRBM reference visible bias");
            ba = *ref.brbm_bias;
        }
        return std::make_unique<TemperedBrbm>(*b, ba, ref.brbm_float32);
    }
    if (const auto* l = model.as<Leaky>()) return std::make_unique<TemperedLeaky>(*l, ref.leaky_kernel);
    const Gaussian& target = *model.as<Gaussian>();
    if (ref.gaussian) {
        Model check;
        check.params = *ref.gaussian;
        validate(check);
        if (ref.gaussian->n_visible() != n)
            throw InputError("the reference Gaussian has dimension " + std::to_string(ref.gaussian->n_visible()) +
                             ", the target " + std::to_string(n));
        return std::make_unique<TemperedGaussian>(*ref.gaussian, target, "the given Gaussian");
    }
    if (model.anneal_from && model.anneal_from->kind() == ModelKind::Gaussian && model.anneal_from->n_visible() == n)
        return std::make_unique<TemperedGaussian>(*model.anneal_from->as<Gaussian>(), target,
                                                  "the model's anneal_from Gaussian");
    Gaussian wide;
    wide.mean = Vec::Zero(n);
    wide.cov = 25.0 * Mat::Identity(n, n);
    return std::make_unique<TemperedGaussian>(wide, target, "N(0, 25 I)");
}

}  // namespace rbm
