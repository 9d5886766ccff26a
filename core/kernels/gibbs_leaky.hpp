#pragma once
// leaky_sweep_block with the m x m Gram matrix W'W given by the caller (the AIS paths compute it
// once; it was computed per block of chains, a quarter of the products of a leaky sweep at
// n = 3072, m = 30). gram == nullptr: computed here, as leaky_sweep_block does.
#include "core/kernels/gibbs.hpp"

namespace rbm::detail {

LeakySweepStats leaky_sweep_block_gram(const Leaky& m, const Mat* gram, RowMat& V, Index begin, Index end,
                                       ChainRngs& rngs, LeakyKernel kernel, double beta, double cl,
                                       const RowMat* eta = nullptr);

}  // namespace rbm::detail
