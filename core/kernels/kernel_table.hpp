#pragma once
// The interface between the dispatcher (kernels/simd.cpp, compiled once) and the hot kernels
// compiled once per instruction set: abstract steps, built by the factories of one target's
// table. Only plain data (models, Eigen vectors and matrices, streams) crosses it, and a matrix
// that crosses it is never resized on the other side (Eigen compiled for AVX2/AVX-512 allocates by
// its own aligned scheme, which the baseline code cannot free); every Eigen
// and std template a target instantiates stays inside that target's object.
#include <memory>

#include "core/kernels/gibbs_leaky.hpp"
#include "core/models/models.hpp"
#include "core/random/rng.hpp"

namespace rbm::detail {

// What a Gibbs sweep (BlockStep::sweep) hands back beside the new state. The caller sizes every
// matrix (rows indexed like X); the kernel only writes rows [begin, end) of them.
struct SweepOutputs {
    RowMat* hidden = nullptr;  // the hidden state drawn from the old v (0/1)
    RowMat* means = nullptr;   // BRBM: P(v_i = 1 | h) at the row's beta, the visible conditional means
    // The tempered family's swap potential V = log f_target - log f_ref at the new (v, h)
    // (tempering/tempered_model.hpp), from the products the sweep already made.
    Vec* potential = nullptr;
    // BRBM: the hidden pre-activations c + v'W of the old v, as hidden_sums gives them (float for
    // a float step), row r at hidden_sums + r hidden_sums_ld (CD's first sweep hands the batch's
    // to the update's hidden pass).
    void* hidden_sums = nullptr;
    Index hidden_sums_ld = 0;
};

// One AIS transition at beta on rows [begin, end) of X; with lw, first the increment
// log f_beta(x) - log f_beta_prev(x) at the state before it.
class BlockStep {
public:
    virtual ~BlockStep() = default;
    virtual void step(double beta_prev, double beta, RowMat& X, Index begin, Index end, Vec* lw,
                      ChainRngs& rngs) const = 0;
    // One Gibbs sweep v -> h -> v on rows [begin, end) of X, row begin + r at row_beta[r] (null:
    // every row at beta): the transition of step(beta, beta, ...) with the same random words. A
    // float BRBM sweep draws its hidden units in float (step: in double, kernels/brbm_block.hpp),
    // so the two differ where a uniform falls within float rounding of its probability.
    virtual void sweep(double beta, const double* row_beta, RowMat& X, Index begin, Index end, ChainRngs& rngs,
                       const SweepOutputs& out) const = 0;
    // BRBM steps: the hidden pre-activations c + v'W of `count` 0/1 rows (row r at rows[r], n
    // values, on when != 0) into out + r ld (float when float32, else double; ld at least
    // update_ld(m) of training/score_table.hpp), from the step's own panels of W: the sums its
    // sweep makes, bitwise. A training update's hidden pass takes them from the negative phase's
    // step instead of building the same panels again. False (nothing written) when the step has
    // no such panels or another precision; count 0 only asks.
    virtual bool hidden_sums(const double* const* rows, Index count, bool float32, void* out, Index ld) const {
        (void)rows, (void)count, (void)float32, (void)out, (void)ld;
        return false;
    }
};

struct KernelTable {
    const char* name;  // the target's name, e.g. "avx2"
    // kernels/brbm_block.hpp: float and double products.
    std::unique_ptr<BlockStep> (*brbm_float)(const Brbm& m, const Vec& base_bias);
    std::unique_ptr<BlockStep> (*brbm_double)(const Brbm& m, const Vec& base_bias);
    // kernels/grbm_block.hpp.
    std::unique_ptr<BlockStep> (*grbm)(const Grbm& m, const Vec& a, const Vec& sa, bool float32);
    // kernels/gemm_probe.cpp: GFLOP/s of chains x n times n x m products over blocks of `block` chains.
    double (*gemm_gflops)(Index chains, Index n, Index m, Index block, bool f32, double min_seconds);
    // kernels/philox_rows.hpp.
    void (*fill_rows_u32)(ChainRngs& rngs, Index begin, Index rows, std::size_t words_per_row, std::uint32_t* out);
    // kernels/leaky_block.cpp (through kernels/gibbs_leaky.hpp).
    void (*leaky_eta)(const Leaky& m, const RowMat& X, Index begin, Index rows, RowMat& E);
    // pre: required by the exact-MH kernel, unread by the paper's Gibbs kernel.
    LeakySweepStats (*leaky_sweep)(const Leaky& m, const LeakyConstants* pre, RowMat& V, Index begin, Index end,
                                   ChainRngs& rngs, LeakyKernel kernel, double beta, double cl, const double* row_beta);
};

}  // namespace rbm::detail

// Defined by each target's kernels/simd_table.cpp; the only global symbols of its object.
extern "C" const rbm::detail::KernelTable* rbmscope_kernels_sse2();
extern "C" const rbm::detail::KernelTable* rbmscope_kernels_avx2();
extern "C" const rbm::detail::KernelTable* rbmscope_kernels_avx512();
extern "C" const rbm::detail::KernelTable* rbmscope_kernels_native();

#ifdef RBMSCOPE_SIMD_NS
// Inside a target's sources: its factories (kernels/brbm_block.cpp, kernels/grbm_block.cpp) and
// its block generator (kernels/philox_rows.cpp).
namespace rbm::detail::inline RBMSCOPE_SIMD_NS {
std::unique_ptr<BlockStep> make_brbm_float(const Brbm& m, const Vec& base_bias);
std::unique_ptr<BlockStep> make_brbm_double(const Brbm& m, const Vec& base_bias);
std::unique_ptr<BlockStep> make_grbm(const Grbm& m, const Vec& a, const Vec& sa, bool float32);
double gemm_gflops(Index chains, Index n, Index m, Index block, bool f32, double min_seconds);
void fill_rows_u32(ChainRngs& rngs, Index begin, Index rows, std::size_t words_per_row, std::uint32_t* out);
void leaky_block_eta(const Leaky& m, const RowMat& X, Index begin, Index rows, RowMat& E);
LeakySweepStats leaky_block_sweep(const Leaky& m, const LeakyConstants* pre, RowMat& V, Index begin, Index end,
                                  ChainRngs& rngs, LeakyKernel kernel, double beta, double cl, const double* row_beta);
}  // namespace rbm::detail::inline RBMSCOPE_SIMD_NS
#endif
