// "AISC" (Kiwaki & Aihara eq. 10-14, docs/methods/annealing-paths.md#aisc): geometric path for a GRBM from a
// full-covariance Gaussian base N(b_A, Sigma_A), Sigma_A = Lambda^{-1} + Lambda_B^{-1}, Lambda_B = diag(sigma^-2),
// through the auxiliary-variable energy
//   E_beta(h,x,v) = beta E_B(v,h) + (1-beta) [ sum_i (v_i - x_i)^2/(2 sigma_i^2) + (x-b_A)' Lambda (x-b_A)/2 ].
// The chain state is v alone: each transition draws x and h from their conditionals given v, then
// v given (h, x) (data augmentation), which leaves the v-marginal f_beta invariant.
//
// Perfect transitions (when the hidden layer can be enumerated): with x integrated out,
//   p_beta(v, h) ∝ exp(-beta q_B(v) - (1-beta) q_A(v) + beta (v/sigma)'W h + beta c'h),
// so v | h ~ N(mu0 + G h, P^{-1}) with P = beta diag(sigma^-2) + (1-beta) Sigma_A^{-1},
// mu0 = P^{-1}(beta b/sigma^2 + (1-beta) Sigma_A^{-1} b_A), G = beta P^{-1} diag(1/sigma) W, and
//   log p_beta(h) = beta (c + W'(mu0/sigma))'h + h' (beta W' diag(1/sigma) G) h / 2 + const.
#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <cmath>
#include <sstream>

#include "core/ais/exact_table.hpp"
#include "core/ais/paths.hpp"
#include "core/numerics/scalar.hpp"

namespace rbm {

namespace {

class GrbmCovPath final : public AnnealingPath {
public:
    GrbmCovPath(const Grbm& m, const Vec& base_mean, const Mat& target_cov, double floor_scale)
        : m_(m), b_a_(base_mean) {
        validate(Model{m, {}, {}, {}, {}});
        const Index n = m.n_visible();
        if (base_mean.size() != n)
            throw InputError("cov path: the base mean has length " + std::to_string(base_mean.size()) + ", expected " +
                             std::to_string(n) + " (one per visible unit)");
        if (target_cov.rows() != n || target_cov.cols() != n)
            throw InputError("cov path: the target covariance is " + std::to_string(target_cov.rows()) + " x " +
                             std::to_string(target_cov.cols()) + ", expected " + std::to_string(n) + " x " +
                             std::to_string(n));
        if (!base_mean.allFinite() || !target_cov.allFinite())
            throw InputError("cov path: the target moments contain a non-finite value");
        if (!(floor_scale > 0) || !std::isfinite(floor_scale))
            throw InputError("cov path: the eigenvalue floor scale must be > 0, got " + std::to_string(floor_scale));

        const Vec s2 = m.sigma.array().square();
        // Lambda^{-1} = C - diag(sigma^2), eigenvalues floored (rank <= m: docs/methods/annealing-paths.md#aisc-floor).
        const Mat d = 0.5 * (target_cov + target_cov.transpose()) - Mat(s2.asDiagonal());
        Eigen::SelfAdjointEigenSolver<Mat> eig_d(d);
        floor_ = floor_scale * s2.mean();
        Vec ev = eig_d.eigenvalues();
        for (Index i = 0; i < n; ++i)
            if (ev(i) < floor_) {
                ev(i) = floor_;
                ++floored_;
            }
        const Mat& Q = eig_d.eigenvectors();
        // Sigma_A = Lambda^{-1} + Lambda_B^{-1}: the base covariance, used for log f and log Z0.
        Mat sigma_a = Q * ev.asDiagonal() * Q.transpose();
        sigma_a.diagonal() += s2;
        Eigen::LLT<Mat> llt(sigma_a);
        prec_a_ = llt.solve(Mat::Identity(n, n));
        prec_a_ = 0.5 * (prec_a_ + prec_a_.transpose());
        const double logdet_a = 2.0 * Mat(llt.matrixL()).diagonal().array().log().sum();
        log_z0_ = static_cast<double>(m.n_hidden()) * std::log(static_cast<double>(m.hidden_values.size())) +
                  0.5 * static_cast<double>(n) * kLog2Pi + 0.5 * logdet_a;
        chol_a_ = llt.matrixL();

        // x | v ~ N(K (Lambda b_A + Lambda_B v), K/(1-beta)), K = (Lambda + Lambda_B)^{-1}: one
        // eigendecomposition of Lambda + Lambda_B; beta only rescales the noise.
        Mat a = Q * ev.cwiseInverse().asDiagonal() * Q.transpose();
        a.diagonal() += s2.cwiseInverse();
        Eigen::SelfAdjointEigenSolver<Mat> eig_a(0.5 * (a + a.transpose()));
        const Mat& U = eig_a.eigenvectors();
        const Vec inv_sqrt = eig_a.eigenvalues().cwiseSqrt().cwiseInverse();
        x_noise_t_ = (U * inv_sqrt.asDiagonal()).transpose();  // x = mean + z x_noise_t_ (row form)
        const Mat K = U * eig_a.eigenvalues().cwiseInverse().asDiagonal() * U.transpose();
        // mean(v) = K Lambda b_A + K Lambda_B v; with Lambda = a - Lambda_B, K Lambda = I - K Lambda_B.
        const Mat k_lb = K * Mat(s2.cwiseInverse().asDiagonal());
        x_gain_t_ = k_lb.transpose();
        x_offset_ = b_a_ - k_lb * b_a_;

        configs_ = detail::count_configurations(m.hidden_values.size(), m.n_hidden());
        if (configs_ <= detail::kPerfectMaxConfigurations)
            hidden_configs_ = detail::enumerate_configurations(m.hidden_values, m.n_hidden());
    }

    std::string name() const override { return "geometric, full-covariance base (AISC)"; }
    std::string notes() const override {
        std::ostringstream os;
        os << "eigenvalues of C - diag(sigma^2) floored at " << floor_ << " (" << floored_ << " of " << m_.n_visible()
           << ")";
        return os.str();
    }
    std::string kernel_name() const override { return "block Gibbs with auxiliary x"; }
    Index dim() const override { return m_.n_visible(); }
    double log_z0() const override { return log_z0_; }

    void sample_base(RowMat& X, Index begin, Index end, ChainRngs& rngs) const override {
        const Index n = m_.n_visible(), rows = end - begin;
        RowMat Z(rows, n);
        for (Index r = 0; r < rows; ++r) {
            Rng& rng = rngs[begin + r];
            for (Index i = 0; i < n; ++i) Z(r, i) = rng.normal();
        }
        X.middleRows(begin, rows) = (Z * chol_a_.transpose()).rowwise() + b_a_.transpose();
    }

    void log_f(double beta, const RowMat& X, Index begin, Index end, Vec& out) const override {
        RowMat lambda;
        grbm_hidden_field(m_, X, begin, end, lambda);
        for (Index r = 0; r < end - begin; ++r) {
            const auto [q_b, q_a] = quadratics(X, begin + r);
            double s = -beta * q_b - (1.0 - beta) * q_a;
            for (Index j = 0; j < lambda.cols(); ++j) s += m_.log_partition_hidden(beta * lambda(r, j));
            out(begin + r) = s;
        }
    }

    void transition(double beta, RowMat& X, Index begin, Index end, ChainRngs& rngs) const override {
        RowMat lambda;
        grbm_hidden_field(m_, X, begin, end, lambda);
        step(beta, lambda, X, begin, end, rngs);
    }

    // The increment -d q_B + sum_j [phi(beta lambda_j) - phi(beta' lambda_j)] + d q_A (d = beta - beta')
    // shares lambda with the h draw.
    void advance(double beta_prev, double beta, RowMat& X, Index begin, Index end, Vec& lw,
                 ChainRngs& rngs) const override {
        RowMat lambda;
        grbm_hidden_field(m_, X, begin, end, lambda);
        const double d = beta - beta_prev;
        for (Index r = 0; r < end - begin; ++r) {
            const auto [q_b, q_a] = quadratics(X, begin + r);
            double s = d * (q_a - q_b);
            for (Index j = 0; j < lambda.cols(); ++j)
                s += m_.log_partition_hidden(beta * lambda(r, j)) - m_.log_partition_hidden(beta_prev * lambda(r, j));
            lw(begin + r) += s;
        }
        step(beta, lambda, X, begin, end, rngs);
    }

    bool can_sample_exactly() const override { return configs_ <= detail::kPerfectMaxConfigurations; }

    void sample_exact(double beta, RowMat& X, Index begin, Index end, ChainRngs& rngs) const override {
        if (!can_sample_exactly()) AnnealingPath::sample_exact(beta, X, begin, end, rngs);
        const auto e = exact_.get(beta, [this](double b) { return build_exact(b); });
        const Index n = m_.n_visible(), rows = end - begin;
        RowMat H(rows, m_.n_hidden()), Z(rows, n);
        for (Index r = 0; r < rows; ++r) {
            Rng& rng = rngs[begin + r];
            H.row(r) = hidden_configs_.row(e->table.draw(rng));
            for (Index i = 0; i < n; ++i) Z(r, i) = rng.normal();
        }
        X.middleRows(begin, rows) = (H * e->gain_t + Z * e->noise_t).rowwise() + e->mu0.transpose();
    }

private:
    struct Exact {
        detail::CategoricalTable table;  // p_beta(h) over hidden_configs_
        Vec mu0;
        Mat gain_t, noise_t;  // G' and (L^{-T})' with P = L L', for row-major chains
    };

    Exact build_exact(double beta) const {
        const Index n = m_.n_visible();
        const Vec inv_s2 = m_.sigma.array().square().inverse();
        Mat P = (1.0 - beta) * prec_a_;
        P.diagonal() += beta * inv_s2;
        const Eigen::LLT<Mat> llt(P);
        Exact e;
        e.mu0 = llt.solve(beta * m_.b.cwiseProduct(inv_s2) + (1.0 - beta) * (prec_a_ * b_a_));
        const Mat dw = m_.sigma.cwiseInverse().asDiagonal() * m_.W;
        const Mat G = beta * llt.solve(dw);
        const Vec field = beta * (m_.c + dw.transpose() * e.mu0);
        const Mat J = beta * (dw.transpose() * G);
        const RowMat& Hc = hidden_configs_;
        const RowMat HJ = Hc * J;
        const Vec lw = Hc * field + 0.5 * (HJ.array() * Hc.array()).rowwise().sum().matrix();
        e.table = detail::CategoricalTable::from_log_weights(lw);
        e.gain_t = G.transpose();
        const Mat L = llt.matrixL();
        e.noise_t = L.triangularView<Eigen::Lower>().solve(Mat::Identity(n, n));  // L^{-1} = (L^{-T})'
        return e;
    }

    // q_B = sum (v-b)^2/(2 sigma^2), q_A = (v-b_A)' Sigma_A^{-1} (v-b_A)/2 for row r.
    std::pair<double, double> quadratics(const RowMat& X, Index r) const {
        const Vec v = X.row(r).transpose();
        const Vec db = (v - m_.b).cwiseQuotient(m_.sigma);
        const Vec da = v - b_a_;
        return {0.5 * db.squaredNorm(), 0.5 * da.dot(prec_a_ * da)};
    }

    void step(double beta, const RowMat& lambda, RowMat& X, Index begin, Index end, ChainRngs& rngs) const {
        const Index n = m_.n_visible(), rows = end - begin;
        RowMat H;
        grbm_sample_hidden(m_, lambda, beta, H, rngs, begin);
        // v | h, x ~ N(beta (b + sigma∘(W h)) + (1-beta) x, diag sigma^2)
        RowMat mean = (H * m_.W.transpose()).array().rowwise() * m_.sigma.transpose().array();
        mean.rowwise() += m_.b.transpose();
        if (beta < 1.0) {
            RowMat Z(rows, n);
            for (Index r = 0; r < rows; ++r) {
                Rng& rng = rngs[begin + r];
                for (Index i = 0; i < n; ++i) Z(r, i) = rng.normal();
            }
            RowMat x = X.middleRows(begin, rows) * x_gain_t_ + (1.0 / std::sqrt(1.0 - beta)) * (Z * x_noise_t_);
            x.rowwise() += x_offset_.transpose();
            mean = beta * mean + (1.0 - beta) * x;
        }
        for (Index r = 0; r < rows; ++r) {
            Rng& rng = rngs[begin + r];
            for (Index i = 0; i < n; ++i) X(begin + r, i) = mean(r, i) + m_.sigma(i) * rng.normal();
        }
    }

    Grbm m_;
    Vec b_a_;
    Mat prec_a_, chol_a_;       // Sigma_A^{-1} and the Cholesky factor of Sigma_A
    Mat x_gain_t_, x_noise_t_;  // transposed K Lambda_B and (K^{1/2} factor), for row-major chains
    Vec x_offset_;              // K Lambda b_A
    double log_z0_ = 0, floor_ = 0;
    Index floored_ = 0;
    double configs_ = 0;
    RowMat hidden_configs_;
    detail::BetaCache<Exact> exact_;
};

}  // namespace

PathPtr make_grbm_cov_path(const Grbm& m, const Vec& base_mean, const Mat& target_cov, double floor_scale) {
    return std::make_shared<GrbmCovPath>(m, base_mean, target_cov, floor_scale);
}

}  // namespace rbm
