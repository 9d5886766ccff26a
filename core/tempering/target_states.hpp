#pragma once
// Approximate samples of the target (beta = 1) from parallel tempering, where exact ones cannot be
// drawn (docs/methods/ais-estimates.md#reverse-start): the states reverse AIS starts from on models
// too large to enumerate. Several independent PT ladders (deterministic even-odd swaps) run a
// burn-in, then each hands over its target-rung state every `spacing` scans until `count` states
// are collected, ladder-major within a scan. Same seed, same states, any thread count.
#include <atomic>
#include <cstdint>
#include <string>

#include "core/models/models.hpp"

namespace rbm {

struct TargetStatesOptions {
    Index ladders = 0;     // independent PT chains; 0: ceil(count / 10)
    Index burn_in = 1000;  // scans before the first state is taken
    Index spacing = 20;    // scans between two states of one ladder
    Index replicas = 10;   // rungs of the geometric ladder beta_k = gamma^(replicas - 1 - k)
    double gamma = 0.7;
    std::uint64_t seed = 1;
    std::atomic<bool>* cancel = nullptr;  // raised: throws Cancelled
};

struct TargetStates {
    RowMat V;                 // count x visible units
    std::string description;  // "parallel tempering: 10 ladders x 10 rungs (gamma 0.7), 1000 burn-in scans, every 20"
    Index ladders = 0, scans = 0;
    double seconds = 0;
    double min_acceptance = 0;  // smallest swap acceptance of a ladder pair (near 0: the ladder is cut)
};

// InputError for count < 1 or options out of range.
TargetStates pt_target_states(const Model& model, Index count, const TargetStatesOptions& options = {});

}  // namespace rbm
