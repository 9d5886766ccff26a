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
#include <vector>

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
    explicit RowPanels(const Mat& A) : rows_(A.rows()), cols_(A.cols()), panels_((A.cols() + kLanes - 1) / kLanes) {
        data_.assign(static_cast<std::size_t>(panels_ * rows_ * kLanes), S(0));
        for (Index p = 0; p < panels_; ++p)
            for (Index i = 0; i < rows_; ++i)
                for (Index t = 0; t < kLanes && p * kLanes + t < cols_; ++t)
                    data_[static_cast<std::size_t>((p * rows_ + i) * kLanes + t)] = static_cast<S>(A(i, p * kLanes + t));
    }
    Index rows() const { return rows_; }
    Index cols() const { return cols_; }
    // Columns of the padded output rows.
    Index padded_cols() const { return panels_ * kLanes; }

    // For chain r < chains: out[r * ld + j] = bias[j] + sum_{k in [off[r], off[r+1])} A(idx[k], j),
    // added in the order of idx, so a chain's result does not depend on the other chains.
    // bias and every output row have padded_cols() entries; each chain's idx run is increasing.
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
            const S* panel = data_.data() + p * rows_ * kLanes;
            const S* bp = bias + p * kLanes;
            for (Index r = 0; r < chains; ++r) {
                std::memcpy(out + r * ld + p * kLanes, bp, sizeof(S) * kLanes);
                cursor[static_cast<std::size_t>(r)] = off[r];
            }
            for (Index lo = 0; lo < rows_; lo += kChunkRows) {
                const int hi = static_cast<int>(std::min(rows_, lo + kChunkRows));
                for (Index r = 0; r < chains; ++r) {
                    int k = cursor[static_cast<std::size_t>(r)];
                    const int stop = off[r + 1];
                    if (k == stop || idx[k] >= hi) continue;
                    // Eight named accumulators: an array of them was kept in memory by GCC 12.
                    S* o = out + r * ld + p * kLanes;
                    V a0 = load(o), a1 = load(o + kStep), a2 = load(o + 2 * kStep), a3 = load(o + 3 * kStep),
                      a4 = load(o + 4 * kStep), a5 = load(o + 5 * kStep), a6 = load(o + 6 * kStep), a7 = load(o + 7 * kStep);
                    for (; k < stop && idx[k] < hi; ++k) {
                        const S* w = panel + static_cast<Index>(idx[k]) * kLanes;
                        a0 += load(w);
                        a1 += load(w + kStep);
                        a2 += load(w + 2 * kStep);
                        a3 += load(w + 3 * kStep);
                        a4 += load(w + 4 * kStep);
                        a5 += load(w + 5 * kStep);
                        a6 += load(w + 6 * kStep);
                        a7 += load(w + 7 * kStep);
                    }
                    cursor[static_cast<std::size_t>(r)] = k;
                    store(o, a0);
                    store(o + kStep, a1);
                    store(o + 2 * kStep, a2);
                    store(o + 3 * kStep, a3);
                    store(o + 4 * kStep, a4);
                    store(o + 5 * kStep, a5);
                    store(o + 6 * kStep, a6);
                    store(o + 7 * kStep, a7);
                }
            }
        }
    }

private:
    static V load(const S* p) {
        V v;
        std::memcpy(&v, p, sizeof v);
        return v;
    }
    static void store(S* p, V v) { std::memcpy(p, &v, sizeof v); }

    Index rows_ = 0, cols_ = 0, panels_ = 0;
    std::vector<S> data_;
};

// One chain's index list for RowPanels::sum_rows, built without branches: appends every j < count
// with flag(j) != 0, in order, to idx from position `end` and returns the new end. Each j is
// stored and the end moves only when it is flagged (a branch per unit, taken about half the time
// on random states, was mispredicted about as often). idx needs room for `count` past `end`.
template <class Flag>
int append_active(Index count, Flag flag, int* idx, int end) {
    for (Index j = 0; j < count; ++j) {
        idx[end] = static_cast<int>(j);
        end += flag(j) != 0;
    }
    return end;
}

}  // namespace RBMSCOPE_SIMD_NS
}  // namespace rbm::detail
