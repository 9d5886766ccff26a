// The score sums of one gradient tile (training/score_table.hpp), compiled once per instruction
// set: L = v W + c and v' f(L) as two matrix products over the tile's rows (Eigen's GEMM on the
// target's vectors), f elementwise and vectorized. Float32 when the tile carries float weights.
// Also the monitor's per-row log p*(v) and reconstruction error of a BRBM, on the same GEMM.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

// The row sums of kernels/panels.hpp in this object's namespace (its instruction set).
#define RBMSCOPE_SIMD_NS RBMSCOPE_GROUP_NS
#include "core/kernels/active_lists.hpp"
#include "core/kernels/kernel_table.hpp"
#include "core/kernels/line_aligned.hpp"
#include "core/kernels/panels.hpp"
#include "core/numerics/parallel.hpp"
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

// --- A training update's products (HiddenPass, WeightPass in training/score_table.hpp) ---

template <class S>
using RowsOf = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class S>
using RowsMap = Eigen::Map<RowsOf<S>, 0, Eigen::OuterStride<>>;

// Rows [r0, r0 + count) of `rows` in S, one row of A each.
template <class S>
void gather_rows(const UpdateRows& rows, Index r0, Index count, Index n, RowsOf<S>& A) {
    A.resize(count, n);
    for (Index r = 0; r < count; ++r) {
        const double* src = rows.row(r0 + r);
        for (Index i = 0; i < n; ++i) A(r, i) = static_cast<S>(src[i]);
    }
}

// f applied in place to `count` rows of m values, ld apart.
template <class S>
void hidden_factor(S* L, Index count, Index m, Index ld, bool leaky, double leakiness) {
    RowsMap<S> X(L, count, m, Eigen::OuterStride<>(ld));
    if (leaky) {
        const S cl = static_cast<S>(leakiness);
        X = X.array().max(cl * X.array());
    } else {
        X = (S(1) + (-X.array()).exp()).inverse();  // as tile_sums: e^-x = inf gives 0
    }
}

template <class S>
struct PassScratch {
    LineVector<int> idx, off;
    std::vector<const double*> rows;
    RowsOf<S> A;
};
template <class S>
PassScratch<S>& pass_scratch() {
    thread_local PassScratch<S> s;
    return s;
}

template <class S>
void hidden_pass_t(const HiddenPass& h) {
    const Index n = h.n, m = h.m, ld = update_ld(m);
    S* M = static_cast<S*>(h.M);
    // The work in pieces (part, first row, rows): a tile of dense rows whole (its GEMM's bits
    // depend on its shape), 0/1 rows in quarters of the part's rows (8 to 64; each row's sums are
    // its own), so two threads share 100 rows evenly rather than as 64 and 36.
    struct Piece {
        int q;
        Index r0, count;
    };
    std::vector<Piece> pieces;
    bool any_binary = false, any_dense = false;
    for (int q = 0; q < 2; ++q) {
        const Index r_end = std::min(h.rows[q].count, h.end[q] * kChainBlock);
        const Index step =
            h.binary[q] ? std::clamp<Index>((r_end - h.first[q] * kChainBlock + 3) / 4, 8, kChainBlock) : kChainBlock;
        for (Index r0 = h.first[q] * kChainBlock; r0 < r_end; r0 += step)
            pieces.push_back({q, r0, std::min(r_end, r0 + step) - r0});
        if (h.end[q] > h.first[q]) (h.binary[q] ? any_binary : any_dense) = true;
    }
    // The rows of W as panels for the 0/1 tiles (unless the negative phase's step has them), W in
    // S for the others (once per pass). The step's sums are those of panels built here, bitwise.
    const bool use_step = h.step && h.step->hidden_sums(nullptr, 0, h.float32, M, ld);
    RowPanels<S> panels;
    if (any_binary && !use_step) panels = RowPanels<S>::of_columns(h.W, n, m, n);
    std::vector<S> c(static_cast<std::size_t>(ld), S(0));
    for (Index j = 0; j < m; ++j) c[static_cast<std::size_t>(j)] = static_cast<S>(h.c[j]);
    Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic> Ws;
    if (any_dense) Ws = Eigen::Map<const Eigen::MatrixXd>(h.W, n, m).cast<S>();
    for_each_block(
        static_cast<Index>(pieces.size()),
        [&](Index k0, Index k1) {
            PassScratch<S>& s = pass_scratch<S>();
            for (Index k = k0; k < k1; ++k) {
                const auto [q, r0, count] = pieces[static_cast<std::size_t>(k)];
                const UpdateRows& rows = h.rows[q];
                S* L = M + (h.m_row[q] + r0) * ld;
                if (h.have_sums[q]) {
                    // c + v'W are there already.
                } else if (h.binary[q] && use_step) {
                    s.rows.resize(static_cast<std::size_t>(count));
                    for (Index r = 0; r < count; ++r) s.rows[static_cast<std::size_t>(r)] = rows.row(r0 + r);
                    h.step->hidden_sums(s.rows.data(), count, h.float32, L, ld);
                } else if (h.binary[q]) {
                    s.idx.resize(static_cast<std::size_t>(count * n));
                    s.off.resize(static_cast<std::size_t>(count + 1));
                    s.off[0] = 0;
                    for (Index r = 0; r < count; ++r)
                        s.off[static_cast<std::size_t>(r + 1)] =
                            append_nonzero(rows.row(r0 + r), n, s.idx.data(), s.off[static_cast<std::size_t>(r)]);
                    panels.sum_rows(s.idx.data(), s.off.data(), count, c.data(), L, ld);
                } else {
                    gather_rows<S>(rows, r0, count, n, s.A);
                    RowsMap<S> out(L, count, m, Eigen::OuterStride<>(ld));
                    out.noalias() = s.A * Ws;
                    out.rowwise() += Eigen::Map<const Eigen::Matrix<S, 1, Eigen::Dynamic>>(c.data(), m);
                }
                hidden_factor(L, count, m, ld, h.leaky, h.leakiness);
            }
        },
        1);
}

template <class S>
void weight_pass_t(const WeightPass& w) {
    const Index n = w.n, m = w.m, ld = update_ld(m);
    S* M = static_cast<S*>(w.M);
    S* G = static_cast<S*>(w.G);
    const Index R = w.rows[0].count + w.rows[1].count;
    for_each_block(
        w.rows[1].count,
        [&](Index r0, Index r1) {
            RowsMap<S> neg(M + (w.m_row[1] + r0) * ld, r1 - r0, m, Eigen::OuterStride<>(ld));
            neg *= static_cast<S>(w.neg_scale);
        },
        16);
    // M's row g of part q's row r: g = m_row[q] + r; rows of both parts in order of g.
    auto source = [&](Index g, int& q, Index& r) {
        q = g >= w.m_row[1] && g < w.m_row[1] + w.rows[1].count ? 1 : 0;
        r = g - w.m_row[q];
    };
    if (w.binary[0] && w.binary[1]) {
        // Every row's active units (row g's list at active[g n], increasing), and
        // where each row's list enters each block of kUnitBlock units (start[g (blocks + 1) + k]),
        // so a block below reads only its own units' entries: work in proportion to the ones, no
        // branch per unit (a compare-and-branch per unit and row mispredicted on 40 % dense rows and
        // took a third of this pass).
        constexpr Index kUnitBlock = 32;
        const Index blocks = (n + kUnitBlock - 1) / kUnitBlock;
        thread_local LineVector<int> active_buffer, start_buffer;  // the caller's
        LineVector<int>&active = active_buffer, &start = start_buffer;
        active.resize(static_cast<std::size_t>(R * n));
        start.resize(static_cast<std::size_t>(R * (blocks + 1)));
        for_each_block(
            R,
            [&](Index g0, Index g1) {
                for (Index g = g0; g < g1; ++g) {
                    int q;
                    Index r;
                    source(g, q, r);
                    int* list = active.data() + g * n;
                    const int c = append_nonzero(w.rows[q].row(r), n, list, 0);
                    int* at = start.data() + g * (blocks + 1);
                    int k = 0;
                    for (Index b = 0; b < blocks; ++b) {
                        while (k < c && list[k] < b * kUnitBlock) ++k;
                        at[b] = k;
                    }
                    at[blocks] = c;
                }
            },
            16);
        const RowPanels<S> panels(M, R, m, ld);
        const std::vector<S> zero(static_cast<std::size_t>(ld), S(0));
        // Blocks of visible units on the threads (a unit's sum depends only on its own rows): the
        // rows in which each unit of the block is on (in increasing g, from the block's columns of
        // every row), their M rows summed into rows of a buffer, transposed into G's columns 8 x 8
        // at a time.
        for_each_block(
            n,
            [&](Index i0, Index i1) {
                thread_local LineVector<S> buffer;  // the worker's own
                thread_local LineVector<int> idx_buffer, off_buffer, at_buffer;
                const Index h = i1 - i0, h8 = h / 8 * 8, m8 = m / 8 * 8;
                LineVector<int>&idx = idx_buffer, &off = off_buffer, &at = at_buffer;
                off.assign(static_cast<std::size_t>(h + 1), 0);
                const Index b = i0 / kUnitBlock;
                // Bounds and pointers in locals: through the buffers' int stores GCC reloaded them
                // at every entry.
                const int *const lists = active.data(), *const starts = start.data();
                const int first = static_cast<int>(i0);
                int* const counts = off.data() + 1;
                // Rows in order of g; with ones, the counts after each part's rows are its ones.
                const Index part_end[2] = {w.m_row[1], R};
                for (int q = 0, g = 0; q < 2; ++q) {
                    for (; g < part_end[q]; ++g) {
                        const int* list = lists + g * n;
                        const int k0 = starts[g * (blocks + 1) + b], k1 = starts[g * (blocks + 1) + b + 1];
                        for (int k = k0; k < k1; ++k) ++counts[list[k] - first];
                    }
                    if (w.ones[q])
                        for (Index a = 0; a < h; ++a) w.ones[q][i0 + a] = counts[a] - (q == 0 ? 0 : w.ones[0][i0 + a]);
                }
                for (Index a = 0; a < h; ++a) off[static_cast<std::size_t>(a + 1)] += off[static_cast<std::size_t>(a)];
                idx.resize(static_cast<std::size_t>(off[static_cast<std::size_t>(h)]));
                at.assign(off.begin(), off.end() - 1);
                int *const next = at.data(), *const rows_of_unit = idx.data();
                for (Index g = 0; g < R; ++g) {
                    const int* list = lists + g * n;
                    const int k0 = starts[g * (blocks + 1) + b], k1 = starts[g * (blocks + 1) + b + 1];
                    for (int k = k0; k < k1; ++k) rows_of_unit[next[list[k] - first]++] = static_cast<int>(g);
                }
                buffer.resize(static_cast<std::size_t>(h * ld));
                S* buf = buffer.data();
                panels.sum_rows(idx.data(), off.data(), h, zero.data(), buf, ld);
                for (Index a = 0; a < h8; a += 8)
                    for (Index j = 0; j < m8; j += 8)
                        RowPanels<S>::transpose8(buf + a * ld + j, ld, G + j * n + i0 + a, n);
                for (Index a = 0; a < h; ++a)
                    for (Index j = a < h8 ? m8 : 0; j < m; ++j) G[j * n + i0 + a] = buf[a * ld + j];
            },
            kUnitBlock);
        return;
    }
    // Dense rows: G = A' M in fixed blocks of G's columns (hidden units), each its own GEMM.
    RowsOf<S> A;
    A.resize(R, n);
    for (Index g = 0; g < R; ++g) {
        int q;
        Index r;
        source(g, q, r);
        const double* src = w.rows[q].row(r);
        for (Index i = 0; i < n; ++i) A(g, i) = static_cast<S>(src[i]);
    }
    const RowsMap<S> Ms(M, R, m, Eigen::OuterStride<>(ld));
    Eigen::Map<Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>> Gm(G, n, m);
    for_each_block(
        m,
        [&](Index j0, Index j1) { Gm.middleCols(j0, j1 - j0).noalias() = A.transpose() * Ms.middleCols(j0, j1 - j0); },
        64);
}

// A block's check (WeightStep): |x| as the bits of a double with the sign cleared. For such bits
// the integer order is the order of the values, with infinity above every finite value and NaN
// above infinity, so one integer max (which vectorizes; a floating-point max with NaN does not)
// gives both the largest |entry| and whether any entry is not finite.
struct LargestAbs {
    std::uint64_t big = 0;
    void keep(double x) {
        std::uint64_t bits;
        std::memcpy(&bits, &x, sizeof bits);
        bits &= 0x7fffffffffffffffULL;
        big = bits > big ? bits : big;
    }
    void put(const WeightStep& s, Index j0) const {
        double largest;
        std::memcpy(&largest, &big, sizeof largest);
        const Index b = j0 / s.block;
        const bool finite = largest - largest == 0.0;
        s.finite[b] = finite ? 1 : 0;
        s.largest[b] = finite ? largest : 0.0;
    }
};

template <class S>
void weight_step_t(const WeightStep& s) {
    const S* G = static_cast<const S*>(s.G);
    const Index n = s.n;
    for_each_block(
        s.m,
        [&](Index j0, Index j1) {
            const Index len = (j1 - j0) * n;
            const double* __restrict w = s.W + j0 * n;
            const S* __restrict g = G + j0 * n;
            double* __restrict out = s.next + j0 * n;
            const double inv_rows = s.inv_rows, lr = s.lr, decay = s.decay, mu = s.mu;
            LargestAbs check;
            if (s.v) {
                const double* __restrict vel = s.velocity + j0 * n;
                double* __restrict v = s.v + j0 * n;
                for (Index k = 0; k < len; ++k) {
                    const double step = mu * vel[k] + lr * (static_cast<double>(g[k]) * inv_rows - decay * w[k]);
                    v[k] = step;
                    const double x = w[k] + step;
                    out[k] = x;
                    check.keep(x);
                }
            } else {
                for (Index k = 0; k < len; ++k) {
                    const double x = w[k] + lr * (static_cast<double>(g[k]) * inv_rows - decay * w[k]);
                    out[k] = x;
                    check.keep(x);
                }
            }
            check.put(s, j0);
        },
        s.block);
}

void weight_step(const WeightStep& s) {
    if (s.float32) weight_step_t<float>(s);
    else weight_step_t<double>(s);
}

void weight_check(const WeightStep& s) {
    for_each_block(
        s.m,
        [&](Index j0, Index j1) {
            const double* __restrict w = s.W + j0 * s.n;
            LargestAbs check;
            for (Index k = 0; k < (j1 - j0) * s.n; ++k) check.keep(w[k]);
            check.put(s, j0);
        },
        s.block);
}

void hidden_pass(const HiddenPass& h) {
    if (h.float32) hidden_pass_t<float>(h);
    else hidden_pass_t<double>(h);
}
void weight_pass(const WeightPass& w) {
    if (w.float32) weight_pass_t<float>(w);
    else weight_pass_t<double>(w);
}

void tile_sums_any(const ScoreTile& t, double* out) {
    if (t.Wf) tile_sums<float>(t, out);
    else tile_sums<double>(t, out);
}

constexpr ScoreTable kTable{
#define RBMSCOPE_STR2(x) #x
#define RBMSCOPE_STR(x) RBMSCOPE_STR2(x)
    RBMSCOPE_STR(RBMSCOPE_GROUP_NS),
    &tile_sums_any,
    &row_scores,
    &hidden_pass,
    &weight_pass,
    &weight_step,
    &weight_check};

}  // namespace

}  // namespace rbm::detail::inline RBMSCOPE_GROUP_NS

extern "C" const rbm::detail::ScoreTable* RBMSCOPE_GROUP_TABLE() { return &rbm::detail::RBMSCOPE_GROUP_NS::kTable; }
