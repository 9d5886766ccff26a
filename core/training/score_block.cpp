// The score sums of one gradient tile (training/score_table.hpp), compiled once per instruction
// set: L = v W + c and v' f(L) as two matrix products over the tile's rows (Eigen's GEMM on the
// target's vectors), f elementwise and vectorized. Float32 when the tile carries float weights.
// Also the monitor's per-row log p*(v) and reconstruction error of a BRBM, on the same GEMM.
#include <Eigen/Dense>
#include <cmath>

#include "core/training/score_table.hpp"

namespace rbm::detail::inline RBMSCOPE_GROUP_NS {

namespace {

template <class S>
void tile_sums(const ScoreTile& t, double* out) {
    using Rows = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using Cols = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
    const Index n = t.n, m = t.m, rows = t.rows;
    // The tile's rows in S (the minibatch is gathered here, tile by tile, from the data in place).
    Rows A(rows, n);
    for (Index r = 0; r < rows; ++r) {
        const double* src = t.X + (t.index ? t.index[r] : t.first + r) * t.ld;
        for (Index i = 0; i < n; ++i) A(r, i) = static_cast<S>(src[i]);
    }
    Rows L(rows, m);
    if constexpr (std::is_same_v<S, float>) L.noalias() = A * Eigen::Map<const Cols>(t.Wf, n, m);
    else L.noalias() = A * Eigen::Map<const Cols>(t.W, n, m);
    const auto c = Eigen::Map<const Eigen::Matrix<double, 1, Eigen::Dynamic>>(t.c, m).cast<S>();
    L.rowwise() += c;
    if (t.leaky) {
        const S cl = static_cast<S>(t.leakiness);
        L = L.array().max(cl * L.array());  // e > 0 ? e : c_L e, for 0 < c_L <= 1
    } else {
        // 1 / (1 + e^-x): e^-x overflows to inf for very negative x, giving 0, never NaN.
        L = (S(1) + (-L.array()).exp()).inverse();
    }
    Eigen::Map<Eigen::MatrixXd> sW(out, n, m);
    if constexpr (std::is_same_v<S, float>) sW = (A.transpose() * L).template cast<double>();
    else sW.noalias() = A.transpose() * L;
    // s_b and s_c summed in double over the rows, in row order.
    Eigen::Map<Eigen::VectorXd> sb(out + n * m, n), sc(out + n * m + n, m);
    sb.setZero();
    sc.setZero();
    for (Index r = 0; r < rows; ++r) {
        sb += Eigen::Map<const Eigen::VectorXd>(t.X + (t.index ? t.index[r] : t.first + r) * t.ld, n);
        sc += L.row(r).transpose().template cast<double>();
    }
}

// core/numerics/scalar.hpp's arithmetic, defined here so that no inline function of the baseline
// build is emitted with this target's instructions.
double softplus_t(double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }
double sigmoid_t(double x) {
    if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
    const double e = std::exp(x);
    return e / (1.0 + e);
}

void row_scores(const ScoreTile& t, double* log_unnorm, double* err) {
    using Rows = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const Index n = t.n, m = t.m, rows = t.rows;
    const Eigen::Map<const Rows, 0, Eigen::OuterStride<>> A(t.X + t.first * t.ld, rows, n, Eigen::OuterStride<>(t.ld));
    const Eigen::Map<const Eigen::MatrixXd> W(t.W, n, m);
    const Eigen::Map<const Eigen::RowVectorXd> b(t.b, n), c(t.c, m);
    Rows L(rows, m);
    L.noalias() = A * W;
    L.rowwise() += c;
    const Eigen::VectorXd vb = A * b.transpose();
    for (Index r = 0; r < rows; ++r) {
        double s = vb(r);
        for (Index j = 0; j < m; ++j) s += softplus_t(L(r, j));
        log_unnorm[r] = s;
    }
    L = L.unaryExpr([](double x) { return sigmoid_t(x); });
    Rows R(rows, n);
    R.noalias() = L * W.transpose();
    R.rowwise() += b;
    R = R.unaryExpr([](double x) { return sigmoid_t(x); });
    for (Index r = 0; r < rows; ++r) err[r] = (A.row(r) - R.row(r)).squaredNorm();
}

void tile_sums_any(const ScoreTile& t, double* out) {
    if (t.Wf) tile_sums<float>(t, out);
    else tile_sums<double>(t, out);
}

constexpr ScoreTable kTable{
#define RBMSCOPE_STR2(x) #x
#define RBMSCOPE_STR(x) RBMSCOPE_STR2(x)
    RBMSCOPE_STR(RBMSCOPE_GROUP_NS), &tile_sums_any, &row_scores};

}  // namespace

}  // namespace rbm::detail::inline RBMSCOPE_GROUP_NS

extern "C" const rbm::detail::ScoreTable* RBMSCOPE_GROUP_TABLE() { return &rbm::detail::RBMSCOPE_GROUP_NS::kTable; }
