#pragma once
// A pass over a weight matrix in blocks of columns on the threads (numerics/parallel.hpp): for
// elementwise work (a training update's velocity, step, checks, float copy of W), so every entry
// is computed the same way whoever computes it. perf of a 784 x 500 float32 PCD run found these
// passes at about 6 % of the samples, all on one thread while the other waited.
#include "core/numerics/parallel.hpp"

namespace rbm {

inline constexpr Index kColumnBlock = 32;

// f(first column, number of columns) for each block of kColumnBlock columns of [0, cols).
template <class F>
void on_column_blocks(Index cols, F&& f) {
    for_each_block(
        cols, [&](Index j0, Index j1) { f(j0, j1 - j0); }, kColumnBlock);
}

}  // namespace rbm
