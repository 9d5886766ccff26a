#pragma once
// Internal to core/training: the score sums of one gradient tile for BRBM and leaky RBMs,
// compiled once per instruction set (training/score_block.cpp, core/CMakeLists.txt) and chosen
// on the path the kernels run (kernels/simd.hpp). Only plain data crosses: pointers to the rows,
// the weights and the output, so no Eigen allocation made on one side is freed on the other.
#include "core/numerics/types.hpp"

namespace rbm::detail {

class BlockStep;  // kernels/kernel_table.hpp

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

// An update's rows for the two passes below: rows index[0..count) of X (the minibatch read in
// place), or with no index rows 0..count (the negative samples); row-major, ld values apart.
struct UpdateRows {
    const double* X = nullptr;
    Index ld = 0;
    const Index* index = nullptr;
    Index count = 0;
    const double* row(Index r) const { return X + (index ? index[r] : r) * ld; }
};

// Row stride of the hidden factors and weight sums below: m rounded up to 128 values (every
// path's panel width divides it, kernels/panels.hpp).
inline Index update_ld(Index m) { return (m + 127) / 128 * 128; }

// The hidden factor M = f(v W + c) (f as in ScoreTile) of tiles [first[q], end[q]) of part q's
// rows (kGradientTile rows each; part 0 the minibatch, 1 the negatives): row r of part q goes to
// row m_row[q] + r of M (ld update_ld(m); float when float32, else double). A tile of 0/1 rows
// sums the rows of W its active units name (kernels/panels.hpp), any other tile multiplies on
// Eigen's GEMM; a row's values depend only on its tile.
struct HiddenPass {
    UpdateRows rows[2];
    Index first[2] = {0, 0}, end[2] = {0, 0}, m_row[2] = {0, 0};
    bool binary[2] = {false, false};  // part q's rows are all 0/1 (the caller knows: data, Gibbs samples)
    void* M = nullptr;
    Index n = 0, m = 0;
    const double* W = nullptr;  // n x m, column-major
    const double* c = nullptr;
    bool leaky = false, float32 = false;
    double leakiness = 0.0;
    // The negative phase's fused step of this W (NegativeSampler::last_step), or null: 0/1 rows
    // then take its hidden sums (BlockStep::hidden_sums) instead of panels of W built here.
    const BlockStep* step = nullptr;
    // Part q's rows of these tiles already hold c + v'W in M (the negative phase wrote them): only
    // f is applied.
    bool have_sums[2] = {false, false};
};

// G = sum over both parts' rows of v' M (n x m, column-major as W; float when float32), part 1's
// rows of M multiplied by neg_scale first (in place): with neg_scale = -rows / neg_rows, G / rows
// is the weight gradient. When every row is 0/1, row i of G sums the rows of M whose visible unit
// i is on (in row order); otherwise Eigen's GEMM in fixed blocks of G's columns.
struct WeightPass {
    UpdateRows rows[2];
    Index m_row[2] = {0, 0};
    bool binary[2] = {false, false};
    void* M = nullptr;
    double neg_scale = -1.0;
    void* G = nullptr;
    Index n = 0, m = 0;
    bool float32 = false;
    // 0/1 rows, when set: ones[q][i] = the rows of part q in which unit i is on (n each).
    int* ones[2] = {nullptr, nullptr};
};

// An update's step of W (training/trainer.cpp, step_weights), column-major n x m, entry by entry:
//   g = double(G) * inv_rows
//   with v:    v = mu velocity + lr (g - decay W),   next = W + v
//   without:   next = W + lr (g - decay W)
// each operation rounded as written (no fused multiply-add: -ffp-contract=off), so every path
// gives the same bits; in blocks of `block` columns on the threads, with each block's check:
// finite[k] (every entry of next finite) and largest[k] (its largest |entry| when finite, else 0).
struct WeightStep {
    const double* W = nullptr;
    const void* G = nullptr;  // float when float32, else double
    double* next = nullptr;
    const double* velocity = nullptr;  // with v
    double* v = nullptr;               // null: no velocity
    Index n = 0, m = 0, block = 32;
    bool float32 = false;
    double inv_rows = 1.0, lr = 0.0, decay = 0.0, mu = 0.0;
    char* finite = nullptr;  // (m + block - 1) / block each
    double* largest = nullptr;
};

struct ScoreTable {
    const char* name;
    // Writes n m + n + m sums: s_W (column-major), s_b, s_c, each summed over the tile's rows.
    void (*tile_sums)(const ScoreTile& tile, double* out);
    // BRBM monitor rows (training/monitor.cpp), in double, rows first.. first+rows: per row
    // log p*(v) = v'b + sum_j softplus(L_j) into log_unnorm[r] and the mean-field reconstruction
    // error |v - sigmoid(sigmoid(L) W' + b)|^2 into err[r], L = v W + c from one product.
    void (*row_scores)(const ScoreTile& tile, double* log_unnorm, double* err);
    // A training update's products (training/update_products.cpp), each on the threads.
    void (*hidden_pass)(const HiddenPass& pass);
    void (*weight_pass)(const WeightPass& pass);
    void (*weight_step)(const WeightStep& step);
    // The check alone of step.W (n, m, block, finite, largest; the other fields unread): W after
    // a leaky projection changed it.
    void (*weight_check)(const WeightStep& step);
};

const ScoreTable& score_table();  // the active path's (training/score_table.cpp)

}  // namespace rbm::detail

extern "C" const rbm::detail::ScoreTable* rbmscope_scores_sse2();
extern "C" const rbm::detail::ScoreTable* rbmscope_scores_avx2();
extern "C" const rbm::detail::ScoreTable* rbmscope_scores_avx512();
extern "C" const rbm::detail::ScoreTable* rbmscope_scores_native();
