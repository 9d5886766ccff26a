#pragma once
// The memory budget: the most memory one loader may allocate for what a file or a
// data spec declares, checked from the declared sizes before anything is allocated or inflated.
// 1 GiB by default; the front ends set it before loading (their default: default_memory_budget_for_machine(),
// and a --max-memory option).
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
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

// What a message adds to say how to raise the budget, e.g. "--max-memory" (rbmscope-cli): the
// message then ends "; --max-memory 2G allows it". Empty (the default): nothing is added.
inline std::string& memory_budget_option() {
    static std::string name;
    return name;
}
// A lower limit for this thread only (ScopedMemoryCap); ~0 when none.
inline std::uint64_t& thread_memory_cap() {
    thread_local std::uint64_t cap = ~std::uint64_t(0);
    return cap;
}
}  // namespace detail

inline std::uint64_t memory_budget() {
    return std::min(detail::memory_budget_bytes().load(std::memory_order_relaxed), detail::thread_memory_cap());
}

// Lowers the budget on this thread while alive: for what a front end loads by itself, unasked
// (the app's Samples view loading a model's recorded training data on open).
class ScopedMemoryCap {
public:
    explicit ScopedMemoryCap(std::uint64_t bytes) : previous_(detail::thread_memory_cap()) {
        detail::thread_memory_cap() = std::min(previous_, bytes);
    }
    ~ScopedMemoryCap() { detail::thread_memory_cap() = previous_; }
    ScopedMemoryCap(const ScopedMemoryCap&) = delete;
    ScopedMemoryCap& operator=(const ScopedMemoryCap&) = delete;

private:
    std::uint64_t previous_;
};
// 0 restores the default.
inline void set_memory_budget(std::uint64_t bytes) {
    detail::memory_budget_bytes().store(bytes == 0 ? kDefaultMemoryBudget : bytes, std::memory_order_relaxed);
}

// Set once at start-up, before any thread reads it.
inline void set_memory_budget_option(const std::string& name) { detail::memory_budget_option() = name; }

// The front ends' default: a quarter of the machine's physical memory, at least 1 GiB and at most
// 2 GiB (so 2 GiB on any machine with 8 GiB or more: full MNIST with --shifts, 1.75 GiB, loads,
// while a kilobyte file still cannot ask for more than 2 GiB).
inline std::uint64_t default_memory_budget_for_machine() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    const std::uint64_t physical =
        pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
    return std::clamp<std::uint64_t>(physical / 4, kDefaultMemoryBudget, 2 * kDefaultMemoryBudget);
}

// "2G", "512M", "1.5GiB", "3g", "1073741824" (bytes): a size as typed after --max-memory. 0 when
// it is not one (or is under 1 MiB, too little to load anything).
inline std::uint64_t parse_memory_size(const std::string& text) {
    std::size_t pos = 0;
    double x = 0;
    try {
        x = std::stod(text, &pos);
    } catch (...) {
        return 0;
    }
    std::string unit = text.substr(pos);
    for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (unit.size() == 3 && unit.substr(1) == "IB") unit = unit.substr(0, 1);
    else if (unit.size() == 2 && unit[1] == 'B') unit = unit.substr(0, 1);
    double scale = 1;
    if (unit == "K") scale = 1024.0;
    else if (unit == "M") scale = 1024.0 * 1024;
    else if (unit == "G") scale = 1024.0 * 1024 * 1024;
    else if (unit == "T") scale = 1024.0 * 1024 * 1024 * 1024;
    else if (!unit.empty() && unit != "B") return 0;
    const double bytes = x * scale;
    if (!std::isfinite(bytes) || bytes < 1024.0 * 1024 || bytes > 1.0e18) return 0;
    return static_cast<std::uint64_t>(bytes);
}

// "; --max-memory 3G allows it" for a need of `bytes` (rounded up to whole GiB, or MiB below
// one GiB), or "" when no option was named (set_memory_budget_option).
inline std::string memory_budget_advice(double bytes) {
    const std::string& option = detail::memory_budget_option();
    if (option.empty() || !std::isfinite(bytes) || bytes > 1.0e18) return "";
    const double gib = 1024.0 * 1024 * 1024;
    const std::string size = bytes > gib
                                 ? std::to_string(static_cast<long long>(std::ceil(bytes / gib))) + "G"
                                 : std::to_string(static_cast<long long>(std::ceil(bytes / (1024.0 * 1024)))) + "M";
    return "; " + option + " " + size + " allows it";
}

// "; --max-memory SIZE raises it" where the size needed is not known (a stream capped while it inflates).
inline std::string memory_budget_advice() {
    const std::string& option = detail::memory_budget_option();
    return option.empty() ? "" : "; " + option + " SIZE raises it";
}

// "1.0 GiB", "312.5 MiB", "4096 bytes": a size in a message.
inline std::string bytes_text(double bytes) {
    char buf[48];
    if (bytes >= 1024.0 * 1024 * 1024 * 1024 * 1024)
        std::snprintf(buf, sizeof buf, "%.3g TiB", bytes / (1024.0 * 1024 * 1024 * 1024));
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
        throw InputError(what + " needs " + bytes_text(bytes) + ", more than the memory budget (" + bytes_text(budget) +
                         ")" + memory_budget_advice(bytes));
}

}  // namespace rbm
