#pragma once
// The "log_z" object of `pt` and `loglik`: stepping stone and BAR from the tempering scans
// (core/tempering/logz.hpp, docs/user/cli.md#pt).
#include "cli_command.hpp"
#include "core/tempering/pt.hpp"

namespace rbm::cli {

// {"estimate", "se", "ci95": [low, high], "log_ratios", "log_ratio_se"}.
json log_z_estimate_json(const LogZEstimate& e);
// "stepping_stone", "bar" and how they were made (reference_log_z, betas with 0 first, chains,
// batches, batch_scans, scans_used, burn_in, stride); null when r has no log Z.
json pt_log_z_json(const PtResult& r);

}  // namespace rbm::cli
