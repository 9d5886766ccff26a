#pragma once
// Ctrl-C for rbmscope-cli (docs/user/cli.md, "Interrupted runs"). A command that can stop early calls
// watch() before its long work: from then on SIGINT only raises flag(), which the command hands
// to the core's cancel hooks (AisControl::cancel, PtControl::cancel, Trainer::step, the mean-field
// `cancelled` callbacks, MomentSource::cancel). The command then returns its partial result with
// "complete": false, and main() prints it through finish_partial() and exits 130. A second Ctrl-C
// kills the process at once (the default action), for a phase that does not look at the flag.
// Commands that never call watch() keep the default action: Ctrl-C ends them at once.
#include <atomic>
#include <nlohmann/json.hpp>

namespace rbm::cli::interrupt {

constexpr int kExitCode = 130;  // 128 + SIGINT, what shells report for a Ctrl-C'd program

// Installs the SIGINT handler (sigaction; the handler only stores to a lock-free atomic).
void watch();
// The Python module owns SIGINT (Python's handler raises KeyboardInterrupt): set_embedded(true)
// makes watch() install nothing, and the module raises flag() itself (python/rbmscope_module.cpp).
void set_embedded(bool embedded);
// Raised by SIGINT once watch() was called. Non-const for PtControl::cancel; only the handler
// (and tests of the core) store to it.
std::atomic<bool>& flag();
inline bool requested() { return flag().load(std::memory_order_relaxed); }

// A partial result is printed with only finite numbers: members that are null, NaN or infinite
// (or arrays holding one) are removed, recursively. Complete results are never passed through it.
nlohmann::json without_missing_numbers(const nlohmann::json& j);

}  // namespace rbm::cli::interrupt
