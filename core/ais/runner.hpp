#pragma once
// The AIS engine (docs/methods/ais-estimates.md): drives any AnnealingPath along a schedule with N chains and turns
// the log weights into estimates. This is the interface the GUI uses.
//
// Typical use (GUI worker thread):
//   std::atomic<bool> cancel{false}, pause{false};
//   AisControl ctl{&cancel, &pause, [&](const AisSnapshot& s) { post_to_ui(s); }};
//   AisResult r = run_ais(*path, make_schedule(req, path.get()), opts, ctl);
//   // r.complete == false when cancelled: r holds everything up to r.beta_reached.
//
// How it works: step-major (every chain advances one step, then the next), each step one
// for_each_block over fixed chain blocks calling path.advance(beta_{k-1}, beta_k, ...), so the
// weight increment shares its products with the transition. Memory is O(chains x units): no
// per-step history, only O(checkpoints) running estimates. Chain r draws only from its own
// stream, so the log weights are bitwise identical for a seed whatever the thread count.
//
// Forward AIS: x_0 ~ p_0; for k = 1..K: l += log f_k(x) - log f_{k-1}(x), x ~ T_k(x, .).
//   E[exp(l)] = Z_1 / Z_0, so log Z0 + logmeanexp(l) is a stochastic lower bound on log Z
//   (Jensen: E[log Zhat] <= log Z).
// Reverse AIS (bidirectional Monte Carlo): x_K ~ p_1 exactly (needs can_sample_exactly());
//   for k = K..1: r += log f_{k-1}(x) - log f_k(x), x ~ T_{k-1}(x, .). This is forward AIS on
//   the reversed sequence p_1 -> p_0, so E[exp(r)] = Z_0 / Z_1 and
//   log Z0 - logmeanexp(r) is a stochastic UPPER bound on log Z.
// Perfect transitions (docs/methods/ais-estimates.md#perfect-transitions): each transition is an exact draw from p_beta
//   (path.sample_exact), which separates the quality of the path from the mixing of the kernel.
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/ais/estimates.hpp"
#include "core/ais/path.hpp"
#include "core/ais/schedules.hpp"
#include "core/numerics/step_gate.hpp"

namespace rbm {

struct AisOptions {
    Index chains = 100;      // N >= 1
    std::uint64_t seed = 1;  // forward chains: StreamPurpose::Chains; reverse chains:
                             // StreamPurpose::Misc; bootstrap: StreamPurpose::Bootstrap
    bool perfect = false;    // exact draws from p_beta instead of the kernel
    bool reverse = false;    // also run reverse AIS (from exact target samples unless reverse_states is set)
    // Where the reverse chains start when not from exact target samples: one row of visible units per
    // chain (all `chains` rows, in chain order), e.g. the target-rung states of a PT run or data rows
    // (see reverse_start_states in ais/reverse_start.hpp). Empty: exact samples (needs can_sample_exactly()).
    RowMat reverse_states;
    // The path's exact cost functional (an enumeration of up to 2^16 terms on small models): only
    // when someone reads AisResult::cost_functional (NaN otherwise).
    bool cost_functional = true;
    int checkpoints = 50;            // betas (spread evenly over the steps) at which the running
                                     // estimate log Zhat(beta) is recorded; the last step always is
    Index snapshot_chains = 0;       // particle positions handed to on_progress and the result
    Index block = 0;                 // chains per parallel block; 0 = automatic (small enough
                                     // that one block takes ~20 ms or less on big models)
    int bootstrap_resamples = 1000;  // a cancelled run uses fewer (estimate.bootstrap_resamples says how many)
    int histogram_bins = 40;
    double progress_interval_s = 0.03;  // on_progress at most this often (plus every checkpoint)
    // A share of a larger run (one MPI rank's): when chain_end > 0, only chains
    // [chain_begin, chain_end) of `chains` run, each on its own stream as in the whole run, so
    // their log weights are bitwise those chains' weights in one process provided chain_begin is
    // a multiple of the block size (ais_block_size) and `block` is left automatic: the blocks,
    // and so every product's shape, are then the same. The result then also holds the weights
    // at every running point (running_log_weights); its estimates describe this share only until
    // the shares' weights are concatenated in chain order and summarize_ais is called.
    Index chain_begin = 0, chain_end = 0;
};

enum class AisPhase { Forward, Reverse };

// log Zhat of the intermediate normalizer Z_beta after the forward chains reached beta.
struct RunningPoint {
    double beta = 0;
    double log_z = 0;
    double ess = 0;
};

// Handed to on_progress (a copy: the receiver may keep it).
struct AisSnapshot {
    AisPhase phase = AisPhase::Forward;
    Index step = 0;        // steps done in this phase
    Index steps = 0;       // K
    double beta = 0;       // where the chains are (reverse: counts down from 1)
    double fraction = 0;   // of the whole run (both phases when reverse is on)
    double elapsed_s = 0;  // excluding paused time
    double chain_sweeps_per_s = 0;
    bool at_checkpoint = false;
    bool held = false;                  // sent as the run stops in a pause (AisControl::gate): the state it holds
    std::vector<RunningPoint> running;  // forward checkpoints reached so far
    double log_z = 0;                   // forward: log Zhat(beta) now; reverse: log Z0 - logmeanexp(r) so far
    double ess = 0, ess_fraction = 0;   // of the current weights of this phase
    double log_w_mean = 0;
    RowMat particles;  // first snapshot_chains chains, visible units only
};

struct AisControl {
    const std::atomic<bool>* cancel = nullptr;  // raise to stop; takes effect within one block
    const std::atomic<bool>* pause = nullptr;   // while raised, waits between steps
    // Pause, single steps, pacing and an exact step counter (numerics/step_gate.hpp): one unit is
    // one annealing step of either phase. When set, on_progress gets a snapshot with held = true
    // each time the run stops in a pause. Used instead of `pause` when both are set.
    StepGate* gate = nullptr;
    // Called from the thread running run_ais, at most every progress_interval_s and at every
    // checkpoint. Must not call back into the run.
    std::function<void(const AisSnapshot&)> on_progress;
    // Processes sharing the chains must stop after the same step: when set, it is
    // called before every step with whether this process was cancelled and returns whether any
    // process was (a collective); the run then stops only there, never inside a step.
    std::function<bool(bool)> agree_stop;
};

// Reverse AIS summary. r_i estimate log(Z0/Z); the bound is log Z0 - logmeanexp(r).
struct ReverseAisResult {
    bool complete = false;
    Index steps_done = 0;
    double beta_reached = 1;  // the reverse chains run from 1 down to 0
    Vec log_weights;          // r_i (complete or not)
    // Present only when complete:
    std::optional<double> log_z_upper;
    double ci95_low = 0, ci95_high = 0;  // bootstrap interval of the upper estimate
    double ess = 0, ess_fraction = 0;
    double log_w_mean = 0, log_w_var = 0;
};

struct AisResult {
    bool complete = false;    // every step of every phase ran (false: cancelled)
    Index steps = 0;          // K of the schedule
    Index steps_done = 0;     // forward steps done
    double beta_reached = 0;  // estimate below is of log Z_{beta_reached}
    Vec log_weights;          // forward l_i at beta_reached
    AisEstimate estimate;
    std::vector<RunningPoint> running;
    std::optional<ReverseAisResult> reverse;
    std::vector<Vec> running_log_weights;  // forward weights at each running point before the last
                                           // step (chain_end > 0 only; at the last: log_weights)
    RowMat particles;                      // first snapshot_chains final chains (visible units)
    double seconds = 0;                    // wall time, excluding pauses
    double chain_sweeps_per_s = 0;
    bool perfect = false;
    std::string path_name, kernel, notes;
    double log_z0 = 0;
    double cost_functional = 0;  // NaN when the path does not know it
};

// InputError: invalid schedule, chains < 1, perfect or reverse (without reverse_states) on a path
// that cannot sample exactly, reverse_states of the wrong shape. Never throws Cancelled: a cancelled run returns its
// partial result.
AisResult run_ais(const AnnealingPath& path, const Schedule& schedule, const AisOptions& options,
                  const AisControl& control = {});

// Recomputes estimate, running[].log_z/ess and the reverse summary from r.log_weights,
// r.running_log_weights (running points past its end use r.log_weights) and
// r.reverse->log_weights, which must now hold all `options.chains` chains in chain order (the shares of a
// chain_begin/chain_end run gathered): the numbers are then bitwise those of run_ais on the whole run. `options` as
// given to the shares.
void summarize_ais(AisResult& r, const AisOptions& options);

// What run_ais holds for `chains` chains whose states have `dim` values: the states, the log
// weights and four vectors beside them, a random stream per chain. run_ais refuses a run over the
// memory budget (core/numerics/memory_budget.hpp) before allocating; check_ais_memory lets a front
// end refuse it before a moment phase (give the path's state dimension, or the visible units).
double ais_run_bytes(Index chains, Index dim);
void check_ais_memory(Index chains, Index dim);

// Chains per block run_ais uses for a path of this state dimension (block = 0).
Index ais_block_size(Index dim);

}  // namespace rbm
