#pragma once
// The sampling engine: N independent chains of any model kind, each advanced by T Gibbs sweeps at
// one beta on the runtime-dispatched fused kernels (kernels/simd.hpp) that AIS uses:
//   BRBM   the fused block step (kernels/brbm_block.hpp), float64 or float32 products
//   GRBM   the fused block step with hidden units in {0,1} (kernels/grbm_block.hpp); other hidden
//          values: the generic block Gibbs of kernels/gibbs.hpp
//   leaky  the dispatched leaky sweep (exact-MH or the paper's kernel)
//   gaussian  an exact draw per sweep
// Chains start from the model's reference (initial_states) and chain r draws only from its own
// stream (seed, StreamPurpose::Chains, r), over fixed chain blocks, so the states are bitwise the
// same at any thread count. Memory O(chains x units). This is what `rbmscope-cli sample` and the
// app's samples view run.
//
//   GibbsSampler s(model, opts);       // initial states drawn
//   for (...) s.sweep();               // one sweep of every chain
//   s.states();                        // chains x n
// or run_sampling(model, opts, control) with progress, cancel and a partial result.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/kernels/gibbs.hpp"
#include "core/numerics/step_gate.hpp"

namespace rbm {

namespace detail {
class BlockStep;  // kernels/kernel_table.hpp
}

struct SampleOptions {
    Index chains = 10;
    long long sweeps = 1000;
    std::uint64_t seed = 1;
    // The rung of the tempered family p_beta ∝ f_ref^(1-beta) f^beta the chains sample (1: the
    // model). BRBM: the reference has zero weights and biases (the RBM with beta W, beta b, beta c);
    // GRBM: grbm_reference, required below 1; leaky: log f_beta = -|v|^2/2 + b'v + beta sum
    // alpha_j eta_j^2/2; gaussian: 1 only.
    double beta = 1.0;
    std::optional<DiagGaussianBase> grbm_reference;
    LeakyKernel leaky_kernel = LeakyKernel::ExactMH;
    bool float32 = false;     // BRBM: products with W in single precision
    bool brbm_means = false;  // BRBM: keep P(v = 1 | h) of each sweep's last half-step (means())
    Index block = 0;          // chains per parallel block; 0: automatic (64, fewer on wide models)
    // The caller has already checked the model (validate): training builds a kernel at every
    // update on parameters it has just checked, and the check read all of W again.
    bool model_checked = false;
};

// One sweep at a time (the app's samples job drives it between its pause and pacing checks).
class GibbsSampler {
public:
    // InputError for chains < 1, or a beta the model's kind cannot take.
    GibbsSampler(const Model& model, const SampleOptions& options);
    ~GibbsSampler();
    GibbsSampler(const GibbsSampler&) = delete;
    GibbsSampler& operator=(const GibbsSampler&) = delete;

    void sweep();  // every chain, in parallel over the chain blocks
    const RowMat& states() const { return V_; }
    // BRBM with brbm_means: chains x n, P(v = 1 | h) from the last sweep (empty before the first).
    const RowMat& means() const { return means_; }
    long long sweeps_done() const { return done_; }
    LeakySweepStats leaky_stats() const { return leaky_; }  // summed over every sweep
    std::string kernel_name() const;

    struct Impl;  // the kernel (runner.cpp)

private:
    std::unique_ptr<Impl> impl_;
    RowMat V_, means_;
    ChainRngs rngs_;
    long long done_ = 0;
    LeakySweepStats leaky_;
};

// The kernel of GibbsSampler apart from the states and streams, for callers that own them (training's
// negative phase, the Gibbs moment estimation). Of the options only beta, grbm_reference,
// leaky_kernel, float32 and block are read; with block = kChainBlock, rows [b, e) of V with b a
// multiple of it get the bits they get as part of a larger V.
class GibbsKernel {
public:
    GibbsKernel(const Model& model, const SampleOptions& options);
    ~GibbsKernel();
    GibbsKernel(GibbsKernel&&) noexcept;
    GibbsKernel& operator=(GibbsKernel&&) noexcept;
    // One sweep of every row of V (row r from rngs[r]); the leaky acceptance counts.
    LeakySweepStats sweep(RowMat& V, ChainRngs& rngs) const;
    std::string name() const;
    // The fused step it sweeps with (BRBM, binary GRBM), else null: training's hidden pass takes
    // the step's hidden sums (detail::BlockStep::hidden_sums).
    const detail::BlockStep* fused_step() const;
    // sweep(V, rngs) that also writes the hidden sums c + v'W of V's rows before it (row r at
    // out + r ld, float when float32, as BlockStep::hidden_sums), when the kernel is a BRBM step of
    // that precision; false (a plain sweep) otherwise.
    bool sweep_keeping_hidden_sums(RowMat& V, ChainRngs& rngs, bool float32, void* out, Index ld) const;

private:
    std::unique_ptr<GibbsSampler::Impl> impl_;
};

struct SampleProgress {
    long long sweeps_done = 0, sweeps = 0;
    double elapsed_s = 0;  // excluding paused time
    double chain_sweeps_per_s = 0;
    const GibbsSampler* sampler = nullptr;  // its states and means as they are now
};

struct SampleControl {
    const std::atomic<bool>* cancel = nullptr;  // checked between sweeps
    StepGate* gate = nullptr;                   // pause, single sweeps and pacing (one unit = one sweep)
    // From the thread running run_sampling, at most every progress_interval_s and after the last sweep.
    std::function<void(const SampleProgress&)> on_progress;
    double progress_interval_s = 0.03;
};

struct SampleResult {
    bool complete = false;  // every sweep ran (false: cancelled; the states after sweeps_done sweeps)
    long long sweeps = 0, sweeps_done = 0;
    RowMat states, means;
    LeakySweepStats leaky;
    std::string kernel;
    double seconds = 0, chain_sweeps_per_s = 0;
};

// Never throws Cancelled: a cancelled run returns its partial result.
SampleResult run_sampling(const Model& model, const SampleOptions& options, const SampleControl& control = {});

}  // namespace rbm
