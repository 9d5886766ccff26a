// The two annealing paths for a leaky-ReLU RBM (docs/methods/annealing-paths.md#leakiness), both inside the family
//   log f_{s,cl}(v) = -|v|^2/2 + b'v + s sum_j alpha_j(cl) eta_j^2/2,  eta = W'v + c:
//  AIS-Leaky (Li et al., Algorithm 2): s = 1, cl(beta) = 1 - beta (1 - cL), from the cl = 1 Gaussian.
//  AIS-Energy (Salakhutdinov & Murray extended): s = beta, cl = cL, from N(b, I).
// Perfect transitions draw from the cl = 1 member at the same s, f_{s,1} >= f_{s,cl}, and accept
// with probability f_{s,cl}/f_{s,1} = exp(-s (1-cl) sum_{eta_j<=0} eta_j^2/2): exact rejection sampling.
//
// A chain's state row is v (n values) followed by its eta = W'v + c (m values) and |v - b|^2, set
// wherever v is and kept current by the sweep (kernels/gibbs_leaky.hpp): the weight update reads
// eta instead of a product with W, so a step costs the sweep's two products.
#include <Eigen/Cholesky>
#include <cmath>
#include <sstream>

#include "core/ais/paths.hpp"
#include "core/kernels/gibbs_leaky.hpp"
#include "core/numerics/scalar.hpp"

namespace rbm {

namespace {

// The Gaussian f_{s,1}(v) = exp(-v'(I - sWW')v/2 + (b + sWc)'v + s|c|^2/2), handled through the
// m x m matrix A = I - sW'W (Woodbury and the determinant lemma), so n = 3072 costs O(n m^2).
class LeakyGaussian {
public:
    LeakyGaussian(const Leaky& m, double s) {
        const Index k = m.n_hidden(), n = m.n_visible();
        const Mat A = Mat::Identity(k, k) - s * (m.W.transpose() * m.W);
        Eigen::LLT<Mat> llt(A);
        if (llt.info() != Eigen::Success || !(llt.matrixL().toDenseMatrix().diagonal().minCoeff() > 0))
            throw InputError("leaky RBM: I - W W' is not positive definite (the largest singular value of W is " +
                             std::to_string(m.max_singular_value()) + ", it must be < 1; see the projection step)");
        const Mat L = llt.matrixL();
        // Cov = (I - sWW')^{-1} = I + s W A^{-1} W'; with A = LL', A^{-1} = L^{-T} L^{-1}.
        const Mat R = L.transpose().triangularView<Eigen::Upper>().solve(Mat::Identity(k, k));  // R R' = A^{-1}
        noise_ = std::sqrt(s) * m.W * R;
        const Vec ell = m.b + s * (m.W * m.c);
        mean_ = ell + s * (m.W * llt.solve(m.W.transpose() * ell));
        const double logdet_a = 2.0 * L.diagonal().array().log().sum();
        log_z_ = 0.5 * static_cast<double>(n) * kLog2Pi - 0.5 * logdet_a + 0.5 * ell.dot(mean_) +
                 0.5 * s * m.c.squaredNorm();
    }
    double log_z() const { return log_z_; }
    // v = mean + z_n + sqrt(s) W R z_m has covariance I + s W A^{-1} W'.
    void sample_row(Eigen::Ref<Eigen::RowVectorXd> v, Rng& rng) const {
        const Index n = mean_.size(), k = noise_.cols();
        Vec zm(k);
        for (Index j = 0; j < k; ++j) zm(j) = rng.normal();
        v = (mean_ + noise_ * zm).transpose();
        for (Index i = 0; i < n; ++i) v(i) += rng.normal();
    }

private:
    Vec mean_;
    Mat noise_;
    double log_z_ = 0;
};

// Rejection sampling gives up after this many envelope draws for one chain.
constexpr long kMaxRejectionDraws = 10'000'000;
// Perfect transitions are offered when the pilot acceptance rate at the target is at least this.
constexpr double kMinAcceptance = 0.02;

class LeakyPathBase : public AnnealingPath {
public:
    LeakyPathBase(const Leaky& m, LeakyKernel kernel) : m_(m), kernel_(kernel), pre_(m) {
        validate(Model{m, {}, {}, {}, {}});
        if (!(m.leakiness > 0 && m.leakiness <= 1))
            throw InputError("leaky RBM: leakiness must be in (0, 1], got " + std::to_string(m.leakiness));
        pilot_ = pilot_acceptance();
    }
    std::string kernel_name() const override { return leaky_kernel_name(kernel_); }
    Index dim() const override { return m_.n_visible() + m_.n_hidden() + 1; }
    Index visible_dim() const override { return m_.n_visible(); }
    bool log_f_on_visible() const override { return true; }  // the rest of the row is eta and |v - b|^2

    // Energy scale and leakiness at beta.
    virtual double scale(double beta) const = 0;
    virtual double leak(double beta) const = 0;

    void log_f(double beta, const RowMat& X, Index begin, Index end, Vec& out) const override {
        const RowMat V = X.block(begin, 0, end - begin, m_.n_visible());
        out.segment(begin, end - begin) = m_.log_unnorm(V, scale(beta), leak(beta));
    }
    void transition(double beta, RowMat& X, Index begin, Index end, ChainRngs& rngs) const override {
        detail::leaky_sweep_block_gram(m_, &pre_, X, begin, end, rngs, kernel_, scale(beta), leak(beta));
    }
    // log f_beta - log f_prev = sum_j [s alpha_j(cl) - s' alpha_j(cl')] eta_j^2/2 from the state's eta.
    void advance(double beta_prev, double beta, RowMat& X, Index begin, Index end, Vec& lw,
                 ChainRngs& rngs) const override {
        const Index rows = end - begin;
        const auto E = X.block(begin, m_.n_visible(), rows, m_.n_hidden());
        const double s1 = scale(beta), s0 = scale(beta_prev);
        const double pos = s1 - s0, neg = s1 * leak(beta) - s0 * leak(beta_prev);
        for (Index r = 0; r < rows; ++r) {
            double acc = 0;
            for (Index j = 0; j < E.cols(); ++j) {
                const double e = E(r, j);
                acc += (e > 0 ? pos : neg) * e * e;
            }
            lw(begin + r) += 0.5 * acc;
        }
        detail::leaky_sweep_block_gram(m_, &pre_, X, begin, end, rngs, kernel_, scale(beta), leak(beta));
    }

    void set_visible(RowMat& X, Index begin, Index end, const RowMat& V, Index v_first) const override {
        X.block(begin, 0, end - begin, m_.n_visible()) = V.middleRows(v_first, end - begin);
        set_carried(X, begin, end);
    }

    bool can_sample_exactly() const override { return pilot_ >= kMinAcceptance; }
    void sample_exact(double beta, RowMat& X, Index begin, Index end, ChainRngs& rngs) const override {
        if (!can_sample_exactly()) AnnealingPath::sample_exact(beta, X, begin, end, rngs);
        rejection_sample(scale(beta), leak(beta), X, begin, end, rngs);
    }
    std::string notes() const override {
        std::ostringstream os;
        os << "kernel " << leaky_kernel_name(kernel_);
        if (kernel_ == LeakyKernel::PaperGibbs && m_.leakiness < 1)
            os << " (the paper's Gibbs sampler: not exactly invariant for leakiness < 1, "
                  "docs/methods/models.md#leaky-kernels)";
        os << "; perfect transitions by rejection from the leakiness-1 Gaussian, pilot acceptance at the target "
           << pilot_;
        if (!can_sample_exactly()) os << " (too low: not offered)";
        return os.str();
    }

protected:
    // The carried columns of rows [begin, end) (eta, |v - b|^2) from their visible units.
    void set_carried(RowMat& X, Index begin, Index end) const {
        const Index n = m_.n_visible(), k = m_.n_hidden();
        RowMat E;
        detail::leaky_eta(m_, X, begin, end - begin, E);
        X.block(begin, n, end - begin, k) = E;
        for (Index r = begin; r < end; ++r) X(r, n + k) = (X.row(r).head(n) - m_.b.transpose()).squaredNorm();
    }
    void rejection_sample(double s, double cl, RowMat& X, Index begin, Index end, ChainRngs& rngs) const {
        const LeakyGaussian env(m_, s);
        Eigen::RowVectorXd v(m_.n_visible());
        for (Index r = begin; r < end; ++r) {
            Rng& rng = rngs[r];
            for (long t = 0;; ++t) {
                if (t == kMaxRejectionDraws)
                    throw InputError("leaky perfect transitions: no envelope draw accepted after " +
                                     std::to_string(kMaxRejectionDraws) + " tries");
                env.sample_row(v, rng);
                if (std::log(rng.uniform()) < log_accept(v, s, cl)) break;
            }
            X.row(r).head(m_.n_visible()) = v;
        }
        set_carried(X, begin, end);
    }
    // log f_{s,cl}(v) - log f_{s,1}(v) = -s (1 - cl) sum_{eta_j <= 0} eta_j^2/2
    double log_accept(const Eigen::RowVectorXd& v, double s, double cl) const {
        const Eigen::RowVectorXd e = v * m_.W + m_.c.transpose();
        double acc = 0;
        for (Index j = 0; j < e.size(); ++j)
            if (e(j) <= 0) acc += e(j) * e(j);
        return -0.5 * s * (1.0 - cl) * acc;
    }
    // Mean acceptance of the envelope at the target (s = 1, cl = cL) over a fixed-seed pilot.
    double pilot_acceptance() const {
        const LeakyGaussian env(m_, 1.0);
        constexpr Index draws = 2000;
        ChainRngs rngs(20170417, 1, StreamPurpose::Misc);
        Eigen::RowVectorXd v(m_.n_visible());
        double acc = 0;
        for (Index t = 0; t < draws; ++t) {
            env.sample_row(v, rngs[0]);
            acc += std::exp(log_accept(v, 1.0, m_.leakiness));
        }
        return acc / draws;
    }

    Leaky m_;
    LeakyKernel kernel_;
    detail::LeakyConstants pre_;  // W'W and c + W'b, for the exact-mh proposal densities

private:
    double pilot_ = 0;
};

class LeakinessPath final : public LeakyPathBase {
public:
    LeakinessPath(const Leaky& m, LeakyKernel kernel) : LeakyPathBase(m, kernel), base_(m, 1.0) {}
    std::string name() const override {
        std::ostringstream os;
        os << "AIS-Leaky (leakiness 1 -> " << m_.leakiness << ")";
        return os.str();
    }
    double scale(double) const override { return 1.0; }
    double leak(double beta) const override { return beta >= 1 ? m_.leakiness : 1.0 - beta * (1.0 - m_.leakiness); }
    double log_z0() const override { return base_.log_z(); }
    void sample_base(RowMat& X, Index begin, Index end, ChainRngs& rngs) const override {
        for (Index r = begin; r < end; ++r) base_.sample_row(X.row(r).head(m_.n_visible()), rngs[r]);
        set_carried(X, begin, end);
    }

private:
    LeakyGaussian base_;
};

class EnergyPath final : public LeakyPathBase {
public:
    EnergyPath(const Leaky& m, LeakyKernel kernel) : LeakyPathBase(m, kernel) {}
    std::string name() const override { return "AIS-Energy (energy scale 0 -> 1)"; }
    double scale(double beta) const override { return beta; }
    double leak(double) const override { return m_.leakiness; }
    // f_0 = exp(-|v|^2/2 + b'v): N(b, I), Z_0 = (2 pi)^{n/2} exp(|b|^2/2).
    double log_z0() const override {
        return 0.5 * static_cast<double>(m_.n_visible()) * kLog2Pi + 0.5 * m_.b.squaredNorm();
    }
    void sample_base(RowMat& X, Index begin, Index end, ChainRngs& rngs) const override {
        for (Index r = begin; r < end; ++r) {
            Rng& rng = rngs[r];
            for (Index i = 0; i < m_.n_visible(); ++i) X(r, i) = m_.b(i) + rng.normal();
        }
        set_carried(X, begin, end);
    }
};

}  // namespace

PathPtr make_leaky_leakiness_path(const Leaky& m, LeakyKernel kernel) {
    return std::make_shared<LeakinessPath>(m, kernel);
}

PathPtr make_leaky_energy_path(const Leaky& m, LeakyKernel kernel) { return std::make_shared<EnergyPath>(m, kernel); }

}  // namespace rbm
