#pragma once
// run_ais over every rank of the MPI world. Chains are split across ranks in whole
// blocks of the engine (ais_block_size: 64 chains on small and mid-size models), rank r taking
// blocks [r B / R, (r+1) B / R) of B; each chain draws from its own stream keyed by
// (seed, purpose, chain index) as in one process, so its log weights are bitwise the same. The
// forward weights (final and at each running point) and the reverse weights are gathered to rank
// 0 in chain order (one MPI_Gatherv) and summarized there once (summarize_ais): estimates,
// bootstrap and histogram are those of one process. While the chains run each rank sends only a
// 4-byte status per step (so that a cancel stops every rank after the same step); the final
// message is 8 bytes x chains x (1 + running points before the last + 1 with --reverse),
// whatever the model's size.
//
// Everything before the chains (the path: Gibbs target moments, MAS knots, covariances) is built
// by every rank from the same seed: it is deterministic, and computing it on rank 0 and
// broadcasting would not finish sooner (the other ranks would wait).
//
// On one rank (no mpirun, or -np 1) this is run_ais itself. On rank 0 the result's seconds and
// chain_sweeps_per_s are of the whole run (rank 0's wall time up to the gather); on other
// ranks the result describes their share only and is not printed.
#include "core/ais/runner.hpp"

namespace rbm::cli::mpi {

// InputError (on every rank alike) when there are fewer chain blocks than ranks. `control`:
// cancel/pause apply on every rank; on_progress is called on rank 0 only, with rank 0's share
// (every rank advances step-major through the same schedule, so its fraction is the run's) --
// the hook for a progress reporter (`--progress jsonl`) under mpirun.
AisResult run_ais_on_world(const AnnealingPath& path, const Schedule& schedule, const AisOptions& options,
                           const AisControl& control = {});

}  // namespace rbm::cli::mpi
