#pragma once
// The memory budget: the most memory one loader may allocate for what a file or a
// data spec declares, checked from the declared sizes before anything is allocated or inflated.
// 1 GiB by default; the front ends may change it (a --max-memory option) before loading.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>

#include "core/numerics/types.hpp"

namespace rbm {

inline constexpr std::uint64_t kDefaultMemoryBudget = std::uint64_t(1) << 30;

namespace detail {
inline std::atomic<std::uint64_t>& memory_budget_bytes() {
    static std::atomic<std::uint64_t> bytes{kDefaultMemoryBudget};
    return bytes;
}
}  // namespace detail

inline std::uint64_t memory_budget() { return detail::memory_budget_bytes().load(std::memory_order_relaxed); }
// 0 restores the default.
inline void set_memory_budget(std::uint64_t bytes) {
    detail::memory_budget_bytes().store(bytes == 0 ? kDefaultMemoryBudget : bytes, std::memory_order_relaxed);
}

// "1.0 GiB", "312.5 MiB", "4096 bytes": a size in a message.
inline std::string bytes_text(double bytes) {
    char buf[48];
    if (bytes >= 1024.0 * 1024 * 1024 * 1024 * 1024) std::snprintf(buf, sizeof buf, "%.3g TiB", bytes / (1024.0 * 1024 * 1024 * 1024));
    else if (bytes >= 1024.0 * 1024 * 1024) std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
    else if (bytes >= 1024.0 * 1024) std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / (1024.0 * 1024));
    else std::snprintf(buf, sizeof buf, "%.0f bytes", bytes);
    return buf;
}

// InputError "<what> needs <size>, more than the memory budget (<budget>)" when `bytes` (a
// product computed in double, so no overflow hides it) exceeds the budget.
inline void check_memory_budget(double bytes, const std::string& what) {
    const double budget = static_cast<double>(memory_budget());
    if (!(bytes <= budget))
        throw InputError(what + " needs " + bytes_text(bytes) + ", more than the memory budget (" + bytes_text(budget) + ")");
}

}  // namespace rbm
