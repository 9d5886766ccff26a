// The score sums of one gradient tile (training/score_table.hpp), compiled once per instruction
// set: L = v W + c and v' f(L) as two matrix products over the tile's rows (Eigen's GEMM on the
// target's vectors), f elementwise and vectorized. Float32 when the tile carries float weights.
#include <Eigen/Dense>

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

void tile_sums_any(const ScoreTile& t, double* out) {
    if (t.Wf) tile_sums<float>(t, out);
    else tile_sums<double>(t, out);
}

constexpr ScoreTable kTable{
#define RBMSCOPE_STR2(x) #x
#define RBMSCOPE_STR(x) RBMSCOPE_STR2(x)
    RBMSCOPE_STR(RBMSCOPE_GROUP_NS), &tile_sums_any};

}  // namespace

}  // namespace rbm::detail::inline RBMSCOPE_GROUP_NS

extern "C" const rbm::detail::ScoreTable* RBMSCOPE_GROUP_TABLE() { return &rbm::detail::RBMSCOPE_GROUP_NS::kTable; }
