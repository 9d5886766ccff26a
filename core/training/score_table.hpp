#pragma once
// Internal to core/training: the score sums of one gradient tile for BRBM and leaky RBMs,
// compiled once per instruction set (training/score_block.cpp, core/CMakeLists.txt) and chosen
// on the path the kernels run (kernels/simd.hpp). Only plain data crosses: pointers to the rows,
// the weights and the output, so no Eigen allocation made on one side is freed on the other.
#include "core/numerics/types.hpp"

namespace rbm::detail {

// One tile: rows of X (row-major, ld values apart), either rows first.. first+rows or, with
// `index`, rows index[0..rows) (a minibatch read from the data in place). For both kinds the
// score is s_W = v' M, s_b = v, s_c = M with M = f(v W + c): f the logistic function (BRBM) or
// max(e, leakiness e) (leaky RBM, docs/methods/models.md).
struct ScoreTile {
    const double* X = nullptr;
    Index ld = 0;
    const Index* index = nullptr;
    Index first = 0, rows = 0;
    Index n = 0, m = 0;
    const double* W = nullptr;  // n x m, column-major (the model's)
    const float* Wf = nullptr;  // the same in float: the products run in single precision when set
    const double* c = nullptr;  // m
    const double* b = nullptr;  // n: the visible biases (row_scores only)
    bool leaky = false;
    double leakiness = 0.0;
};

struct ScoreTable {
    const char* name;
    // Writes n m + n + m sums: s_W (column-major), s_b, s_c, each summed over the tile's rows.
    void (*tile_sums)(const ScoreTile& tile, double* out);
    // BRBM monitor rows (training/monitor.cpp), in double, rows first.. first+rows: per row
    // log p*(v) = v'b + sum_j softplus(L_j) into log_unnorm[r] and the mean-field reconstruction
    // error |v - sigmoid(sigmoid(L) W' + b)|^2 into err[r], L = v W + c from one product.
    void (*row_scores)(const ScoreTile& tile, double* log_unnorm, double* err);
};

const ScoreTable& score_table();  // the active path's (training/score_table.cpp)

}  // namespace rbm::detail

extern "C" const rbm::detail::ScoreTable* rbmscope_scores_sse2();
extern "C" const rbm::detail::ScoreTable* rbmscope_scores_avx2();
extern "C" const rbm::detail::ScoreTable* rbmscope_scores_avx512();
extern "C" const rbm::detail::ScoreTable* rbmscope_scores_native();
