#pragma once
// leaky_sweep_block with the m x m Gram matrix W'W given by the caller (the AIS paths compute it
// once; it was computed per block of chains, a quarter of the products of a leaky sweep at
// n = 3072, m = 30). gram == nullptr: computed here, as leaky_sweep_block does.
// row_beta: one beta per row of the block (row begin + r at row_beta[r]), replacing `beta`; parallel
// tempering's fixed blocks hold rows at different rungs. Null: every row at `beta`, the same bits
// as before this option existed.
#include "core/kernels/gibbs.hpp"

namespace rbm::detail {

LeakySweepStats leaky_sweep_block_gram(const Leaky& m, const Mat* gram, RowMat& V, Index begin, Index end,
                                       ChainRngs& rngs, LeakyKernel kernel, double beta, double cl,
                                       const RowMat* eta = nullptr, const double* row_beta = nullptr);

}  // namespace rbm::detail
