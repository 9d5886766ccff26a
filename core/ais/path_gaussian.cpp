// Annealing between two normalized Gaussians N(mu0, S0) -> N(mu1, S1): the moment-averaging toy of Grosse, Maddison &
// Salakhutdinov (docs/methods/annealing-paths.md#moment-averaging-gaussians). Both paths stay Gaussian:
//   geometric averages (natural parameters linear): precision (1-beta) S0^-1 + beta S1^-1,
//     precision-mean (1-beta) S0^-1 mu0 + beta S1^-1 mu1, log f_beta = (1-beta) log N0 + beta log N1;
//   moment averages (moments linear): mu(beta) = (1-beta) mu0 + beta mu1,
//     S(beta) = (1-beta) S0 + beta S1 + beta (1-beta) (mu1-mu0)(mu1-mu0)', f_beta = N(mu(beta), S(beta)).
// log Z_0 = log Z_1 = 0. Perfect transitions are exact draws; the MCMC kernel is one
// coordinate-wise Gibbs sweep (i = 1..n in order) on p_beta.
#include <array>
#include <cmath>
#include <memory>
#include <mutex>
#include <vector>

#include "core/ais/paths.hpp"
#include "core/kernels/philox_rows.hpp"
#include "core/kernels/vector_math.hpp"
#include "core/numerics/scalar.hpp"

namespace rbm {

namespace {

struct GaussParams {
    Vec mean;
    Mat cov, prec, chol;  // chol: lower L with L L' = cov
    double log_norm = 0;  // -(n log 2pi + log det cov)/2
};

GaussParams from_cov(const Vec& mean, const Mat& cov) {
    GaussParams g;
    g.mean = mean;
    g.cov = cov;
    Eigen::LLT<Mat> llt(cov);
    if (llt.info() != Eigen::Success) throw InputError("an intermediate Gaussian covariance is not positive definite");
    g.chol = llt.matrixL();
    g.prec = llt.solve(Mat::Identity(mean.size(), mean.size()));
    g.log_norm = -0.5 * (static_cast<double>(mean.size()) * kLog2Pi) - g.chol.diagonal().array().log().sum();
    return g;
}

GaussParams from_natural(const Vec& prec_mean, const Mat& prec) {
    Eigen::LLT<Mat> llt(prec);
    if (llt.info() != Eigen::Success) throw InputError("an intermediate Gaussian precision is not positive definite");
    const Mat cov = llt.solve(Mat::Identity(prec.rows(), prec.cols()));
    return from_cov(llt.solve(prec_mean), 0.5 * (cov + cov.transpose()));
}

// log N(x_r; mean, cov) by forward substitution with the Cholesky factor into z (n entries).
// N: the dimension when fixed at compile time (the 2-D toys: the loops unroll), 0 otherwise.
template <int N>
double log_density_sized(const GaussParams& g, const RowMat& X, Index r, double* z) {
    const Index n = N ? N : g.mean.size();
    double q = 0;
    for (Index i = 0; i < n; ++i) {
        double t = X(r, i) - g.mean(i);
        for (Index j = 0; j < i; ++j) t -= g.chol(i, j) * z[j];
        z[i] = t / g.chol(i, i);
        q += z[i] * z[i];
    }
    return g.log_norm - 0.5 * q;
}

// An AIS step calls this twice per chain: no allocation (a per-thread buffer above 2-D).
double log_density(const GaussParams& g, const RowMat& X, Index r) {
    if (g.mean.size() == 2) {
        double z[2];
        return log_density_sized<2>(g, X, r, z);
    }
    thread_local std::vector<double> zbuf;
    if (zbuf.size() < static_cast<std::size_t>(g.mean.size())) zbuf.resize(static_cast<std::size_t>(g.mean.size()));
    return log_density_sized<0>(g, X, r, zbuf.data());
}

// One coordinate-wise Gibbs sweep of rows [begin, begin + rows) given each chain's normals
// z[r * nz + i] and sd[i] = 1/sqrt(Q_ii): x_i | x_-i ~ N(mu_i - sum_{j != i} Q_ij (x_j - mu_j) / Q_ii, 1 / Q_ii).
template <int N>
void gibbs_sweep_sized(const GaussParams& g, RowMat& X, Index begin, Index rows, const double* z, Index nz,
                       const double* sd) {
    const Index n = N ? N : g.mean.size();
    for (Index r = 0; r < rows; ++r) {
        for (Index i = 0; i < n; ++i) {
            double s = 0;
            for (Index j = 0; j < n; ++j)
                if (j != i) s += g.prec(i, j) * (X(begin + r, j) - g.mean(j));
            const double q = g.prec(i, i);
            X(begin + r, i) = g.mean(i) - s / q + z[r * nz + i] * sd[i];
        }
    }
}

class GaussianPath final : public AnnealingPath {
public:
    GaussianPath(const Gaussian& from, const Gaussian& to, GaussianPathKind kind)
        : kind_(kind), p0_(from_cov(from.mean, from.cov)), p1_(from_cov(to.mean, to.cov)) {}

    std::string name() const override {
        return kind_ == GaussianPathKind::Geometric ? "geometric averages (Gaussian to Gaussian)"
                                                    : "moment averages (Gaussian to Gaussian)";
    }
    std::string kernel_name() const override { return "coordinate Gibbs"; }
    Index dim() const override { return p0_.mean.size(); }
    double log_z0() const override { return 0.0; }

    void sample_base(RowMat& X, Index begin, Index end, ChainRngs& rngs) const override {
        draw(p0_, X, begin, end, rngs);
    }

    void log_f(double beta, const RowMat& X, Index begin, Index end, Vec& out) const override {
        if (kind_ == GaussianPathKind::Geometric) {
            for (Index r = begin; r < end; ++r)
                out(r) = (1.0 - beta) * log_density(p0_, X, r) + beta * log_density(p1_, X, r);
            return;
        }
        const auto g = params(beta);
        for (Index r = begin; r < end; ++r) out(r) = log_density(*g, X, r);
    }

    // One coordinate-wise Gibbs sweep per chain. Each chain takes 2 ceil(n/2) words of its stream
    // (Rng::fill_u32, all rows at once: kernels/philox_rows.hpp), turned into its n normals by Box-Muller pairs
    // (kernels/vector_math.hpp) in one flat loop per block.
    void transition(double beta, RowMat& X, Index begin, Index end, ChainRngs& rngs) const override {
        const auto g = params(beta);
        const Index n = dim(), rows = end - begin, nz = 2 * ((n + 1) / 2);
        thread_local std::vector<std::uint32_t> words;
        thread_local std::vector<double> normals, coef;
        auto grow = [](auto& v, Index size) {
            if (v.size() < static_cast<std::size_t>(size)) v.resize(static_cast<std::size_t>(size));
        };
        grow(words, rows * nz);
        grow(normals, rows * nz);
        grow(coef, n);
        fill_rows_u32(rngs, begin, rows, static_cast<std::size_t>(nz), words.data());
        std::uint32_t* w = words.data();
        double* z = normals.data();
        for (Index t = 0; t < rows * nz; t += 2) detail::normal_pair(w[t], w[t + 1], z[t], z[t + 1]);
        for (Index i = 0; i < n; ++i) coef[static_cast<std::size_t>(i)] = 1.0 / std::sqrt(g->prec(i, i));
        if (n == 2) gibbs_sweep_sized<2>(*g, X, begin, rows, z, nz, coef.data());
        else gibbs_sweep_sized<0>(*g, X, begin, rows, z, nz, coef.data());
    }

    void advance(double beta_prev, double beta, RowMat& X, Index begin, Index end, Vec& lw,
                 ChainRngs& rngs) const override {
        if (kind_ == GaussianPathKind::Geometric) {
            const double d = beta - beta_prev;
            for (Index r = begin; r < end; ++r) lw(r) += d * (log_density(p1_, X, r) - log_density(p0_, X, r));
        } else {
            const auto a = params(beta), b = params(beta_prev);
            for (Index r = begin; r < end; ++r) lw(r) += log_density(*a, X, r) - log_density(*b, X, r);
        }
        transition(beta, X, begin, end, rngs);
    }

    bool can_sample_exactly() const override { return true; }
    void sample_exact(double beta, RowMat& X, Index begin, Index end, ChainRngs& rngs) const override {
        draw(*params(beta), X, begin, end, rngs);
    }

    std::vector<Knot> knots() const override {
        std::vector<Knot> out;
        for (int r = 0; r <= 9; ++r) out.push_back(knot(r == 9 ? 1.0 : r / 9.0));
        return out;
    }
    double cost_functional() const override {
        const Knot a = knot(0.0), b = knot(1.0);
        return 0.5 * (b.eta - a.eta).dot(b.s - a.s);
    }

private:
    static void draw(const GaussParams& g, RowMat& X, Index begin, Index end, ChainRngs& rngs) {
        const Index n = g.mean.size();
        Vec z(n);
        for (Index r = begin; r < end; ++r) {
            Rng& rng = rngs[r];
            for (Index i = 0; i < n; ++i) z(i) = rng.normal();
            X.row(r) = (g.mean + g.chol * z).transpose();
        }
    }

    GaussParams build(double beta) const {
        if (beta == 0.0) return p0_;
        if (beta == 1.0) return p1_;
        if (kind_ == GaussianPathKind::Geometric)
            return from_natural((1.0 - beta) * p0_.prec * p0_.mean + beta * p1_.prec * p1_.mean,
                                (1.0 - beta) * p0_.prec + beta * p1_.prec);
        const Vec d = p1_.mean - p0_.mean;
        return from_cov((1.0 - beta) * p0_.mean + beta * p1_.mean,
                        (1.0 - beta) * p0_.cov + beta * p1_.cov + beta * (1.0 - beta) * d * d.transpose());
    }

    // The two most recent betas (an advance needs beta and beta_prev), shared by all blocks.
    std::shared_ptr<const GaussParams> params(double beta) const {
        std::lock_guard<std::mutex> lock(mutex_);
        for (const auto& [b, g] : cache_)
            if (g && b == beta) return g;
        auto g = std::make_shared<const GaussParams>(build(beta));
        cache_[oldest_] = {beta, g};
        oldest_ = 1 - oldest_;
        return g;
    }

    // Statistics g(x) = (x, vec(x x')): eta = (Q mu, vec(-Q/2)), s = (mu, vec(S + mu mu')).
    Knot knot(double beta) const {
        const auto g = params(beta);
        const Index n = dim();
        Knot k;
        k.beta = beta;
        k.eta.resize(n + n * n);
        k.s.resize(n + n * n);
        const Mat half_prec = -0.5 * g->prec;
        const Mat second = g->cov + g->mean * g->mean.transpose();
        k.eta << g->prec * g->mean, Eigen::Map<const Vec>(half_prec.data(), n * n);
        k.s << g->mean, Eigen::Map<const Vec>(second.data(), n * n);
        return k;
    }

    GaussianPathKind kind_;
    GaussParams p0_, p1_;
    mutable std::mutex mutex_;
    mutable std::array<std::pair<double, std::shared_ptr<const GaussParams>>, 2> cache_{};
    mutable int oldest_ = 0;
};

}  // namespace

PathPtr make_gaussian_path(const Gaussian& from, const Gaussian& to, GaussianPathKind kind) {
    if (from.n_visible() != to.n_visible())
        throw InputError("the base model has " + std::to_string(from.n_visible()) + " visible units, the target " +
                         std::to_string(to.n_visible()));
    return std::make_shared<GaussianPath>(from, to, kind);
}

}  // namespace rbm
