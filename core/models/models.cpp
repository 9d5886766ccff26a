#include "core/models/models.hpp"
#include "core/numerics/format.hpp"

#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/numerics/scalar.hpp"

namespace rbm {

// ---------------- GRBM ----------------
RowMat Grbm::hidden_field(const RowMat& V) const {
    RowMat L = (V.array().rowwise() / sigma.transpose().array()).matrix() * W;
    L.rowwise() += c.transpose();
    return L;
}

double Grbm::log_partition_hidden(double a) const {
    if (binary01()) return softplus(a);
    double mx = -std::numeric_limits<double>::infinity();
    for (double x : hidden_values) mx = std::max(mx, a * x);
    double s = 0;
    for (double x : hidden_values) s += std::exp(a * x - mx);
    return mx + std::log(s);
}

double Grbm::mean_hidden(double a) const {
    if (binary01()) return sigmoid(a);
    double mx = -std::numeric_limits<double>::infinity();
    for (double x : hidden_values) mx = std::max(mx, a * x);
    double s = 0, sx = 0;
    for (double x : hidden_values) {
        const double w = std::exp(a * x - mx);
        s += w;
        sx += w * x;
    }
    return sx / s;
}

double Grbm::sample_hidden(double a, Rng& rng) const {
    const double u = rng.uniform();
    if (binary01()) return u < sigmoid(a) ? 1.0 : 0.0;
    double mx = -std::numeric_limits<double>::infinity();
    for (double x : hidden_values) mx = std::max(mx, a * x);
    double s = 0;
    for (double x : hidden_values) s += std::exp(a * x - mx);
    double acc = 0, target = u * s;
    for (double x : hidden_values) {
        acc += std::exp(a * x - mx);
        if (target < acc) return x;
    }
    return hidden_values.back();
}

Vec Grbm::log_unnorm(const RowMat& V) const {
    const RowMat L = hidden_field(V);
    Vec out(V.rows());
    for (Index r = 0; r < V.rows(); ++r) {
        double s = 0;
        for (Index i = 0; i < V.cols(); ++i) {
            const double d = (V(r, i) - b(i)) / sigma(i);
            s -= 0.5 * d * d;
        }
        for (Index j = 0; j < L.cols(); ++j) s += log_partition_hidden(L(r, j));
        out(r) = s;
    }
    return out;
}

Vec Grbm::energy(const RowMat& V, const RowMat& H) const {
    const RowMat Vs = (V.array().rowwise() / sigma.transpose().array()).matrix();
    const RowMat Bs = (b.array() / sigma.array()).transpose().replicate(V.rows(), 1).matrix();
    Vec quad = 0.5 * (Vs - Bs).rowwise().squaredNorm();
    Vec inter = ((Vs * W).array() * H.array()).rowwise().sum().matrix();
    return quad - inter - H * c;
}

Vec Grbm::hidden_marginal_field() const { return c + W.transpose() * (b.array() / sigma.array()).matrix(); }
Mat Grbm::hidden_marginal_coupling() const { return W.transpose() * W; }

// ---------------- BRBM ----------------
Vec Brbm::log_unnorm(const RowMat& V) const {
    RowMat A = V * W;
    A.rowwise() += c.transpose();
    Vec out = V * b;
    for (Index r = 0; r < V.rows(); ++r)
        for (Index j = 0; j < A.cols(); ++j) out(r) += softplus(A(r, j));
    return out;
}

Vec Brbm::energy(const RowMat& V, const RowMat& H) const {
    return -((V * W).array() * H.array()).rowwise().sum().matrix() - V * b - H * c;
}

// ---------------- Leaky ----------------
Vec Leaky::log_unnorm(const RowMat& V, double beta, double cl) const {
    RowMat E = V * W;
    E.rowwise() += c.transpose();
    Vec out = -0.5 * V.rowwise().squaredNorm() + V * b;
    for (Index r = 0; r < V.rows(); ++r) {
        double s = 0;
        for (Index j = 0; j < E.cols(); ++j) {
            const double e = E(r, j);
            s += (e > 0 ? 1.0 : cl) * e * e;
        }
        out(r) += 0.5 * beta * s;
    }
    return out;
}

Vec Leaky::energy(const RowMat& V, const RowMat& H) const {
    RowMat E = V * W;
    E.rowwise() += c.transpose();
    Vec out = 0.5 * V.rowwise().squaredNorm() - V * b;
    for (Index r = 0; r < V.rows(); ++r)
        for (Index j = 0; j < E.cols(); ++j) {
            const double alpha = E(r, j) > 0 ? 1.0 : leakiness;
            out(r) += -E(r, j) * H(r, j) + H(r, j) * H(r, j) / (2 * alpha);
        }
    return out;
}

double Leaky::max_singular_value() const {
    if (W.size() == 0) return 0.0;
    Eigen::JacobiSVD<Mat> svd(W);
    return svd.singularValues()(0);
}

bool Leaky::project(double limit) {
    if (W.size() == 0) return false;
    Eigen::JacobiSVD<Mat> svd(W, Eigen::ComputeThinU | Eigen::ComputeThinV);
    Vec s = svd.singularValues();
    if (s.maxCoeff() <= limit) return false;
    s = s.cwiseMin(limit);
    W = svd.matrixU() * s.asDiagonal() * svd.matrixV().transpose();
    return true;
}

// ---------------- Gaussian ----------------
Mat Gaussian::cholesky() const {
    Eigen::LLT<Mat> llt(cov);
    return llt.matrixL();
}

Vec Gaussian::log_density(const RowMat& V) const {
    Eigen::LLT<Mat> llt(cov);
    const Mat L = llt.matrixL();
    const double logdet = 2.0 * L.diagonal().array().log().sum();
    const Index n = mean.size();
    Mat D = (V.rowwise() - mean.transpose()).transpose();  // n x N
    const Mat Z = L.triangularView<Eigen::Lower>().solve(D);
    Vec out(V.rows());
    for (Index r = 0; r < V.rows(); ++r) out(r) = -0.5 * (Z.col(r).squaredNorm() + logdet + n * kLog2Pi);
    return out;
}

// ---------------- Model ----------------
const char* kind_name(ModelKind k) {
    switch (k) {
        case ModelKind::Grbm: return "grbm";
        case ModelKind::Brbm: return "brbm";
        case ModelKind::Leaky: return "leaky";
        case ModelKind::Gaussian: return "gaussian";
    }
    return "?";
}

Index Model::n_visible() const {
    return std::visit([](const auto& m) { return m.n_visible(); }, params);
}
Index Model::n_hidden() const {
    return std::visit(
        [](const auto& m) -> Index {
            if constexpr (std::is_same_v<std::decay_t<decltype(m)>, Gaussian>) return 0;
            else return m.n_hidden();
        },
        params);
}
Vec Model::log_unnorm(const RowMat& V) const {
    if (V.cols() != n_visible())
        throw InputError("points have " + std::to_string(V.cols()) + " coordinates, the model has " +
                         std::to_string(n_visible()) + " visible units");
    return std::visit([&](const auto& m) { return m.log_unnorm(V); }, params);
}

namespace {

std::string shape(Index r, Index c) { return "[" + std::to_string(r) + " x " + std::to_string(c) + "]"; }

template <class D>
void require_finite(const Eigen::MatrixBase<D>& x, const char* key) {
    for (Index c = 0; c < x.cols(); ++c)
        for (Index r = 0; r < x.rows(); ++r)
            if (!std::isfinite(x(r, c))) {
                // Streamed rather than concatenated: GCC 12 warns (-Wrestrict, a false positive) on
                // "[" + std::to_string(r) here.
                std::ostringstream msg;
                msg << "'" << key << "' contains a non-finite value (NaN or Inf) at " << key << "[" << r << "]";
                if (x.cols() != 1) msg << "[" << c << "]";
                throw InputError(msg.str());
            }
}
void require_len(const Vec& x, Index n, const char* key, const char* what) {
    if (x.size() != n)
        throw InputError(std::string("'") + key + "' has length " + std::to_string(x.size()) + ", expected " +
                         std::to_string(n) + " (" + what + ")");
}
void require_nonempty(Index n, Index m, bool need_hidden) {
    if (n < 1) throw InputError("'W' has no rows: a model needs at least one visible unit");
    if (need_hidden && m < 1) throw InputError("'W' has no columns: a model needs at least one hidden unit");
}

}  // namespace

void validate(const Model& model) {
    std::visit(
        [](const auto& m) {
            using T = std::decay_t<decltype(m)>;
            if constexpr (std::is_same_v<T, Gaussian>) {
                const Index n = m.mean.size();
                if (n < 1) throw InputError("'mean' is empty: a gaussian needs at least one dimension");
                if (m.cov.rows() != n || m.cov.cols() != n)
                    throw InputError("'cov' has shape " + shape(m.cov.rows(), m.cov.cols()) + ", expected " +
                                     shape(n, n) + " to match 'mean'");
                require_finite(m.mean, "mean");
                require_finite(m.cov, "cov");
                if (!m.cov.isApprox(m.cov.transpose(), 1e-9)) throw InputError("'cov' is not symmetric");
                Eigen::LLT<Mat> llt(m.cov);
                if (llt.info() != Eigen::Success) throw InputError("'cov' is not positive definite");
            } else {
                const Index n = m.W.rows(), k = m.W.cols();
                require_nonempty(n, k, true);
                require_finite(m.W, "W");
                require_len(m.b, n, "b", "one per visible unit, the rows of W");
                require_len(m.c, k, "c", "one per hidden unit, the columns of W");
                require_finite(m.b, "b");
                require_finite(m.c, "c");
                if constexpr (std::is_same_v<T, Grbm>) {
                    require_len(m.sigma, n, "sigma", "one per visible unit");
                    require_finite(m.sigma, "sigma");
                    for (Index i = 0; i < n; ++i)
                        if (!(m.sigma(i) > 0))
                            throw InputError("'sigma' must be > 0, but sigma[" + std::to_string(i) +
                                             "] = " + format_number(m.sigma(i)));
                    if (m.hidden_values.size() < 2)
                        throw InputError("'hidden_values' needs at least two distinct values");
                    for (double v : m.hidden_values)
                        if (!std::isfinite(v)) throw InputError("'hidden_values' contains a non-finite value");
                    // Sorted, so a file of 100 000 values is checked in n log n, not n^2 comparisons.
                    std::vector<double> sorted = m.hidden_values;
                    std::sort(sorted.begin(), sorted.end());
                    for (std::size_t a = 0; a + 1 < sorted.size(); ++a)
                        if (sorted[a] == sorted[a + 1])
                            throw InputError("'hidden_values' lists " + format_number(sorted[a]) +
                                             " twice; values must be distinct");
                }
                if constexpr (std::is_same_v<T, Leaky>) {
                    if (!(m.leakiness > 0 && m.leakiness <= 1))
                        throw InputError("'leakiness' must be in (0, 1], got " + format_number(m.leakiness));
                    const double s = m.max_singular_value();
                    if (!(s < 1.0)) {
                        std::ostringstream os;
                        os.precision(6);
                        os << "'W' of a leaky RBM must have all singular values < 1 (I - W W' positive definite, "
                              "Li et al. Theorem 1), but the largest is "
                           << s << "; apply the projection step";
                        throw InputError(os.str());
                    }
                }
            }
        },
        model.params);
}

void require_computable(const Model& model) {
    auto check = [](const auto& x, const char* key, double lo, double hi, bool matrix = false) {
        for (Index c = 0; c < x.cols(); ++c)
            for (Index r = 0; r < x.rows(); ++r) {
                const double v = x(r, c);
                if (v >= lo && v <= hi) continue;
                std::ostringstream msg;
                msg.precision(10);
                msg << "'" << key << "' holds " << v << " at " << key << "[" << r << "]";
                if (matrix) msg << "[" << c << "]";
                if (lo > 0) msg << "; sigma must lie in [" << lo << ", " << hi << "]";
                else msg << "; values beyond " << hi << " in magnitude";
                msg << " overflow the arithmetic of every estimate (the supported range is |W| <= 50, |bias| <= 500)";
                throw InputError(msg.str());
            }
    };
    std::visit(
        [&](const auto& m) {
            using T = std::decay_t<decltype(m)>;
            if constexpr (!std::is_same_v<T, Gaussian>) {
                check(m.W, "W", -kMaxParameter, kMaxParameter, true);
                check(m.b, "b", -kMaxParameter, kMaxParameter);
                check(m.c, "c", -kMaxParameter, kMaxParameter);
                if constexpr (std::is_same_v<T, Grbm>) {
                    check(m.sigma, "sigma", kMinSigma, kMaxParameter);
                    const Vec h =
                        Eigen::Map<const Vec>(m.hidden_values.data(), static_cast<Index>(m.hidden_values.size()));
                    check(h, "hidden_values", -kMaxParameter, kMaxParameter);
                }
            }
        },
        model.params);
}

std::variant<Grbm, Brbm, Leaky, Gaussian> rbm_params(ModelKind kind, RbmArrays a) {
    const Index n = a.W.rows(), m = a.W.cols();
    Vec b = a.b ? std::move(*a.b) : Vec::Zero(n);
    Vec c = a.c ? std::move(*a.c) : Vec::Zero(m);
    if (kind == ModelKind::Brbm) return Brbm{std::move(a.W), std::move(b), std::move(c)};
    if (kind == ModelKind::Leaky) {
        Leaky l{std::move(a.W), std::move(b), std::move(c)};
        if (a.leakiness) l.leakiness = *a.leakiness;
        return l;
    }
    Grbm g;
    g.W = std::move(a.W);
    g.b = std::move(b);
    g.c = std::move(c);
    g.sigma = a.sigma ? std::move(*a.sigma) : Vec::Ones(n);
    if (a.hidden_values)
        g.hidden_values.assign(a.hidden_values->data(), a.hidden_values->data() + a.hidden_values->size());
    return g;
}

}  // namespace rbm
