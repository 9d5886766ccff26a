#pragma once
// ais-sweep checkpoints (rbmscope-cli ais-sweep --checkpoint/--resume): the sweep's decisive
// options and the finished (method, K, repeat) runs at full precision. Reading checks every field
// (types, ranges, one entry per run) and that the options are the ones given now.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <tuple>

namespace rbm {

// One finished (method, K, repeat) run: what the sweep's table needs from it.
struct SweepRunResult {
    std::string path_name;
    double log_z = 0, ci_low = 0, ci_high = 0, ess = 0, ess_fraction = 0, log_w_mean = 0, seconds = 0;
    std::optional<double> upper;
};
using SweepRunKey = std::tuple<std::string, long long, int>;  // method spec, K, repeat

struct SweepCheckpoint {
    // [{"option": name, "value": string or null}, ...] in the order they are checked.
    nlohmann::json options;
    std::map<SweepRunKey, SweepRunResult> runs;
    // The "build" record (provenance_json, core/kernels/build_info.hpp) of the run that wrote it:
    // null writes none; read tolerantly (an old checkpoint without it, or an ill-typed one, is null).
    nlohmann::json build;
};

std::string sweep_checkpoint_json(const SweepCheckpoint& c);
// InputError "<origin>: ..." naming the key, or the first option that differs from `options`.
SweepCheckpoint sweep_checkpoint_from_json(const std::string& text, const nlohmann::json& options,
                                           const std::string& origin);

}  // namespace rbm
