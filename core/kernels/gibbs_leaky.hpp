#pragma once
// leaky_sweep_block with the model's constants (LeakyConstants) given by the caller, who computes
// them once (the Gram matrix per block of chains was a quarter of the products of a leaky sweep at
// n = 3072, m = 30). pre == nullptr: computed here for this block. V has n columns,
// or n + m + 1 with each row's eta and |v - b|^2 after its visible units (see leaky_sweep_block).
// row_beta: one beta per row of the block (row begin + r at row_beta[r]), replacing `beta`; parallel
// tempering's fixed blocks hold rows at different rungs. Null: every row at `beta`.
// Both functions here run on the instruction set chosen at start-up (kernels/simd.hpp): their code
// is kernels/leaky_block.cpp, compiled once per target.
#include "core/kernels/gibbs.hpp"

namespace rbm::detail {

// What the exact-MH sweep needs of a model beyond W, b and c: G = W'W and c' + b'W.
struct LeakyConstants {
    explicit LeakyConstants(const Leaky& m);
    Mat gram;
    Eigen::RowVectorXd c_plus_wb;
};

LeakySweepStats leaky_sweep_block_gram(const Leaky& m, const LeakyConstants* pre, RowMat& V, Index begin, Index end,
                                       ChainRngs& rngs, LeakyKernel kernel, double beta, double cl,
                                       const double* row_beta = nullptr);

// E = X[begin, begin + rows) W + c' over X's first n columns: the hidden pre-activations eta of
// those rows (rows x m).
void leaky_eta(const Leaky& m, const RowMat& X, Index begin, Index rows, RowMat& E);

}  // namespace rbm::detail
