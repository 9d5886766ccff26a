#pragma once
// Sums of selected rows of a matrix, the product of a 0/1 state with W without the zeros:
// for binary units, v'W = sum over active i of W.row(i). On a Bernoulli RBM a quarter to a
// third of the units are on, so this does a third of a GEMM's arithmetic with adds only.
//
// The matrix is stored in column panels of kLanes entries (zero padded), each panel rows x kLanes
// contiguous, and read in chunks of rows that stay in L1 while every chain of a block sums its
// rows from them (sum_rows); the kLanes accumulators stay in registers within a chunk.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/kernels/line_aligned.hpp"
#include "core/numerics/parallel.hpp"
#include "core/numerics/types.hpp"

// Compiled with different instruction sets in different objects (kernels/simd.hpp): each copy
// lives in the namespace of its target.
#ifndef RBMSCOPE_SIMD_NS
#define RBMSCOPE_SIMD_NS portable
#endif

namespace rbm::detail {
inline namespace RBMSCOPE_SIMD_NS {

// The widest vector the build targets (x86-64 baseline: SSE2; RBMSCOPE_NATIVE may give AVX).
#if defined(__AVX512F__)
inline constexpr int kVectorBytes = 64;
#elif defined(__AVX__)
inline constexpr int kVectorBytes = 32;
#else
inline constexpr int kVectorBytes = 16;
#endif
typedef float VecF __attribute__((vector_size(kVectorBytes)));
typedef double VecD __attribute__((vector_size(kVectorBytes)));

template <class S>
class RowPanels {
public:
    // GCC/Clang vector extension: the accumulators below must live in registers, which plain
    // arrays did not (the float loop ran at 1.7 adds/ns instead of ~8).
    using V = std::conditional_t<sizeof(S) == 4, VecF, VecD>;
    static constexpr Index kVectors = 8;  // 8 independent accumulators hide the add latency
    static constexpr Index kStep = kVectorBytes / static_cast<Index>(sizeof(S));  // lanes per vector
    static constexpr Index kLanes = kVectors * kStep;
    static constexpr Index kChunkRows = std::max<Index>(8, 24576 / (kLanes * static_cast<Index>(sizeof(S))));

    RowPanels() = default;
    // Panel p holds columns [p kLanes, p kLanes + width(p)); every panel is kLanes wide but the
    // last, which is as many vectors as its columns need (on a 784-column W' and 128 float lanes,
    // one vector instead of eight: the padding was 1/8 of that product's adds and loads).
    // The panels of A, or with `transposed` those of A' (row i of the panels is column i of A).
    // Both read A (column-major) along its columns: a training run rebuilds the panels of W at every
    // update, and reading across columns (784 doubles apart) took longer than the update's sweep.
    explicit RowPanels(const Mat& A, bool transposed = false)
        : RowPanels(A.data(), transposed ? A.cols() : A.rows(), transposed ? A.rows() : A.cols(), A.rows(),
                    !transposed) {}
    // The panels of a row-major matrix: `count` rows of `cols` values, row i at rows + i ld (a
    // training update's hidden factors, training/score_block.cpp).
    template <class T>
    RowPanels(const T* rows, Index count, Index cols, Index ld) : RowPanels(rows, count, cols, ld, false) {}
    // The panels of a column-major rows x cols matrix at a (leading dimension lda), as RowPanels(A).
    static RowPanels of_columns(const double* a, Index rows, Index cols, Index lda) {
        return RowPanels(a, rows, cols, lda, true);
    }

    // The panels of A and of A' (as RowPanels(A) and RowPanels(A, true), bitwise) in one pass
    // over A's columns: blocks of 32 columns on the threads, each read for both while in cache. A
    // training update's negative phase builds both for the new W at every update; two passes read
    // the 3 MB of a 784 x 500 W twice, from L3, and split 7 panels of W' unevenly over threads.
    static std::pair<RowPanels, RowPanels> of_matrix_and_transpose(const Mat& A) {
        std::pair<RowPanels, RowPanels> out{RowPanels(A.rows(), A.cols()), RowPanels(A.cols(), A.rows())};
        for_each_block(
            A.cols(),
            [&](Index j0, Index j1) {
                out.first.put_columns(A.data(), A.rows(), j0, j1);  // row i: row i of A
                out.second.put_rows(A.data(), A.rows(), j0, j1);    // row j: column j of A
            },
            32);
        out.first.zero_padding();
        return out;
    }

private:
    // The layout of rows x cols panels, entries not written.
    RowPanels(Index rows, Index cols)
        : rows_(rows), cols_(cols), panels_((cols_ + kLanes - 1) / kLanes),
          last_vectors_(panels_ == 0 ? 0 : (cols_ - (panels_ - 1) * kLanes + kStep - 1) / kStep) {
        data_.resize(
            static_cast<std::size_t>(panels_ == 0 ? 0 : ((panels_ - 1) * kLanes + last_vectors_ * kStep) * rows_));
    }
    // column_major: a is column-major with leading dimension lda (row i of the panels is row i of
    // A); otherwise row i of the panels starts at a + i lda. On the threads (a training run
    // rebuilds panels at every update, on its critical path); every entry is written by one task,
    // so the layout does not depend on who builds it.
    template <class T>
    RowPanels(const T* a, Index rows, Index cols, Index lda, bool column_major) : RowPanels(rows, cols) {
        if (column_major) {
            for_each_block(
                panels_, [&](Index p0, Index p1) { put_columns(a, lda, p0 * kLanes, std::min(cols_, p1 * kLanes)); },
                1);
            zero_padding();
        } else {
            for_each_block(
                rows_, [&](Index i0, Index i1) { put_rows(a, lda, i0, i1); }, 32);
        }
    }

    // Columns [j0, j1) of every row from a column-major A (row i of the panels is row i of A, A's
    // column j at a + j lda); j0 a multiple of 8. 8 x 8 blocks transposed in registers
    // (transpose8) where 8 columns and 8 rows are whole — kLanes is a multiple of 8, so 8 aligned
    // columns lie in one panel — the rest one value at a time (one value at a time everywhere was
    // the slowest part of a training update's rebuild, ~2 cycles a value, about 5 times the 8 x 8
    // blocks' cost).
    template <class T>
    void put_columns(const T* a, Index lda, Index j0, Index j1) {
        const Index i8 = rows_ / 8 * 8;
        for (Index j = j0; j < j1; j += 8) {
            const Index p = j / kLanes, w = width(p), at = j % kLanes, group = std::min<Index>(8, j1 - j);
            S* panel = data_.data() + p * rows_ * kLanes;
            if (group == 8)
                for (Index i0 = 0; i0 < i8; i0 += 8) transpose8(a + j * lda + i0, lda, panel + i0 * w + at, w);
            for (Index u = 0; u < group; ++u) {
                const T* col = a + (j + u) * lda;
                for (Index i = group == 8 ? i8 : 0; i < rows_; ++i) panel[i * w + at + u] = static_cast<S>(col[i]);
            }
        }
    }
    // Rows [i0, i1) whole, row i from the cols_ contiguous values at a + i lda, zeros past them.
    // Local restrict pointers: through the captures GCC kept the copy scalar.
    template <class T>
    void put_rows(const T* a, Index lda, Index i0, Index i1) {
        for (Index i = i0; i < i1; ++i)
            for (Index p = 0; p < panels_; ++p) {
                const Index w = width(p), used = std::min(w, cols_ - p * kLanes);
                const T* __restrict src = a + i * lda + p * kLanes;
                S* __restrict dst = data_.data() + p * rows_ * kLanes + i * w;
                for (Index u = 0; u < used; ++u) dst[u] = static_cast<S>(src[u]);
                for (Index u = used; u < w; ++u) dst[u] = S(0);
            }
    }
    // Zeros in the last panel's columns past cols_ (put_columns writes only real columns).
    void zero_padding() {
        if (panels_ == 0) return;
        const Index last = panels_ - 1, w = width(last), used = cols_ - last * kLanes;
        S* panel = data_.data() + last * rows_ * kLanes;
        for (Index i = 0; i < rows_; ++i) std::fill(panel + i * w + used, panel + (i + 1) * w, S(0));
    }

public:
    // dst[i * ldd + t] = src[t * lds + i] for i, t < 8, in S: 8 vectors of 8 values (GCC vector
    // extensions, lowered to the target's shuffles), transposed in three rounds of shuffles as
    // the usual unpack / shuffle / 128-bit permute sequence. A conversion to S rounds as a scalar
    // cast does, so the panels are bitwise those of the scalar loop.
    template <class T>
    static void transpose8(const T* src, Index lds, S* dst, Index ldd) {
        typedef S V8 __attribute__((vector_size(8 * sizeof(S))));
        typedef T In8 __attribute__((vector_size(8 * sizeof(T))));
        V8 r[8];
        for (int k = 0; k < 8; ++k) {
            In8 x;
            std::memcpy(&x, src + k * lds, sizeof x);
            r[k] = __builtin_convertvector(x, V8);
        }
        // __builtin_shufflevector: GCC 12 and clang (the sanitizer builds) both have it.
        V8 t[8], u[8];
        for (int k = 0; k < 8; k += 2) {
            t[k] = __builtin_shufflevector(r[k], r[k + 1], 0, 8, 1, 9, 4, 12, 5, 13);
            t[k + 1] = __builtin_shufflevector(r[k], r[k + 1], 2, 10, 3, 11, 6, 14, 7, 15);
        }
        for (int k = 0; k < 8; k += 4) {
            u[k] = __builtin_shufflevector(t[k], t[k + 2], 0, 1, 8, 9, 4, 5, 12, 13);
            u[k + 1] = __builtin_shufflevector(t[k], t[k + 2], 2, 3, 10, 11, 6, 7, 14, 15);
            u[k + 2] = __builtin_shufflevector(t[k + 1], t[k + 3], 0, 1, 8, 9, 4, 5, 12, 13);
            u[k + 3] = __builtin_shufflevector(t[k + 1], t[k + 3], 2, 3, 10, 11, 6, 7, 14, 15);
        }
        for (int k = 0; k < 4; ++k) {
            const V8 a = __builtin_shufflevector(u[k], u[k + 4], 0, 1, 2, 3, 8, 9, 10, 11);
            const V8 b = __builtin_shufflevector(u[k], u[k + 4], 4, 5, 6, 7, 12, 13, 14, 15);
            std::memcpy(dst + k * ldd, &a, sizeof a);
            std::memcpy(dst + (k + 4) * ldd, &b, sizeof b);
        }
    }

public:
    Index rows() const { return rows_; }
    Index cols() const { return cols_; }
    // Columns of the padded output rows.
    Index padded_cols() const { return panels_ * kLanes; }
    // Row i of panel p: width(p) entries, columns [p kLanes, p kLanes + width(p)) of A's row i
    // (zeros past its columns). Rows start on a cache line, those of a narrow last panel on a vector,
    // so no vector load straddles two lines.
    const S* row(Index p, Index i) const { return data_.data() + p * rows_ * kLanes + i * width(p); }
    Index panels() const { return panels_; }
    // Entries per row of panel p: kLanes, and for the last panel as many vectors as its columns need.
    Index width(Index p) const { return p + 1 < panels_ ? kLanes : last_vectors_ * kStep; }

    // For chain r < chains: out[r * ld + j] = bias[j] + sum_{k in [off[r], off[r+1])} A(idx[k], j),
    // added in the order of idx, so a chain's result does not depend on the other chains.
    // bias and every output row have padded_cols() entries (the columns past the last panel's
    // width get bias); each chain's idx run is increasing.
    //
    // A whole panel (784 rows x 512 B = 401 kB for float on AVX-512) is read from L2, which
    // delivers a row's eight lines at about half the rate L1 does. So a panel is taken in chunks
    // of kChunkRows rows (24 kB) that stay in L1 while every chain of the block adds its rows from
    // the chunk; the chain's accumulators go to its output row between chunks. Storing and
    // reloading a float is exact and every chain still adds its rows in increasing order, so the
    // sums are bitwise those of one pass over the panel.
    void sum_rows(const int* idx, const int* off, Index chains, const S* bias, S* out, Index ld) const {
        thread_local std::vector<int> cursor;
        cursor.resize(static_cast<std::size_t>(chains));
        for (Index p = 0; p < panels_; ++p) {
            for (Index r = 0; r < chains; ++r) {
                std::memcpy(out + r * ld + p * kLanes, bias + p * kLanes, sizeof(S) * kLanes);
                cursor[static_cast<std::size_t>(r)] = off[r];
            }
            const Args a{row(p, 0), idx, off, chains, out + p * kLanes, ld, cursor.data()};
            switch (width(p) / kStep) {
                case 1: sum_panel<1>(a); break;
                case 2: sum_panel<2>(a); break;
                case 3: sum_panel<3>(a); break;
                case 4: sum_panel<4>(a); break;
                case 5: sum_panel<5>(a); break;
                case 6: sum_panel<6>(a); break;
                case 7: sum_panel<7>(a); break;
                default: sum_panel<8>(a); break;
            }
        }
    }

private:
    struct Args {
        const S* panel;
        const int* idx;
        const int* off;
        Index chains;
        S* out;  // the panel's first column of chain 0's output row
        Index ld;
        int* cursor;
    };
    // One panel of NV vectors per row; the accumulators of a chunk are NV named registers (an
    // array of them was kept in memory by GCC 12).
    template <int NV>
    void sum_panel(const Args& a) const {
        constexpr Index w = NV * kStep;
        for (Index lo = 0; lo < rows_; lo += kChunkRows) {
            const int hi = static_cast<int>(std::min(rows_, lo + kChunkRows));
            for (Index r = 0; r < a.chains; ++r) {
                int k = a.cursor[r];
                const int stop = a.off[r + 1];
                if (k == stop || a.idx[k] >= hi) continue;
                S* o = a.out + r * a.ld;
                V a0 = load(o), a1{}, a2{}, a3{}, a4{}, a5{}, a6{}, a7{};
                if constexpr (NV > 1) a1 = load(o + kStep);
                if constexpr (NV > 2) a2 = load(o + 2 * kStep);
                if constexpr (NV > 3) a3 = load(o + 3 * kStep);
                if constexpr (NV > 4) a4 = load(o + 4 * kStep);
                if constexpr (NV > 5) a5 = load(o + 5 * kStep);
                if constexpr (NV > 6) a6 = load(o + 6 * kStep);
                if constexpr (NV > 7) a7 = load(o + 7 * kStep);
                for (; k < stop && a.idx[k] < hi; ++k) {
                    const S* v = a.panel + static_cast<Index>(a.idx[k]) * w;
                    a0 += load(v);
                    if constexpr (NV > 1) a1 += load(v + kStep);
                    if constexpr (NV > 2) a2 += load(v + 2 * kStep);
                    if constexpr (NV > 3) a3 += load(v + 3 * kStep);
                    if constexpr (NV > 4) a4 += load(v + 4 * kStep);
                    if constexpr (NV > 5) a5 += load(v + 5 * kStep);
                    if constexpr (NV > 6) a6 += load(v + 6 * kStep);
                    if constexpr (NV > 7) a7 += load(v + 7 * kStep);
                }
                a.cursor[r] = k;
                store(o, a0);
                if constexpr (NV > 1) store(o + kStep, a1);
                if constexpr (NV > 2) store(o + 2 * kStep, a2);
                if constexpr (NV > 3) store(o + 3 * kStep, a3);
                if constexpr (NV > 4) store(o + 4 * kStep, a4);
                if constexpr (NV > 5) store(o + 5 * kStep, a5);
                if constexpr (NV > 6) store(o + 6 * kStep, a6);
                if constexpr (NV > 7) store(o + 7 * kStep, a7);
            }
        }
    }

    static V load(const S* p) {
        V v;
        std::memcpy(&v, p, sizeof v);
        return v;
    }
    static void store(S* p, V v) { std::memcpy(p, &v, sizeof v); }

    Index rows_ = 0, cols_ = 0, panels_ = 0, last_vectors_ = 0;
    LineVectorUninit<S> data_;  // every row of every panel starts on a cache line
};

}  // namespace RBMSCOPE_SIMD_NS
}  // namespace rbm::detail
