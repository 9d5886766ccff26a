#include "interrupt.hpp"

#include <cmath>
#include <csignal>

#include "mpi/world.hpp"

namespace rbm::cli::interrupt {
namespace {

std::atomic<bool> g_flag{false};
bool g_embedded = false;
static_assert(std::atomic<bool>::is_always_lock_free, "the SIGINT handler needs a lock-free flag");

extern "C" void on_sigint(int sig) {
    if (g_flag.load(std::memory_order_relaxed)) {
        // Second Ctrl-C: the default action (signal() and raise() are async-signal-safe).
        std::signal(sig, SIG_DFL);
        std::raise(sig);
        return;
    }
    g_flag.store(true, std::memory_order_relaxed);
}

// A value that cannot be printed as a finite number.
bool missing(const nlohmann::json& v) {
    return v.is_null() || (v.is_number_float() && !std::isfinite(v.get<double>()));
}

}  // namespace

void set_embedded(bool embedded) { g_embedded = embedded; }

void watch() {
    if (g_embedded) return;
    struct sigaction sa {};
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, nullptr);
    // Under mpirun a Ctrl-C reaches the ranks as SIGTERM: Open MPI's mpirun answers SIGINT (and
    // SIGTERM) by sending every rank SIGTERM, then SIGKILL a few seconds later; Slurm sends
    // SIGTERM before the time limit's SIGKILL. The ranks then stop together (the distributed
    // commands agree on the step) and rank 0 prints the partial result before the SIGKILL.
    if (mpi::world().distributed()) sigaction(SIGTERM, &sa, nullptr);
}

std::atomic<bool>& flag() { return g_flag; }

nlohmann::json without_missing_numbers(const nlohmann::json& j) {
    if (j.is_object()) {
        nlohmann::json out = nlohmann::json::object();
        for (auto it = j.begin(); it != j.end(); ++it) {
            if (missing(it.value())) continue;
            nlohmann::json v = without_missing_numbers(it.value());
            if (v.is_array()) {
                bool bad = false;
                for (const auto& e : v) bad = bad || missing(e);
                if (bad) continue;
            }
            out[it.key()] = std::move(v);
        }
        return out;
    }
    if (j.is_array()) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& e : j) {
            nlohmann::json v = without_missing_numbers(e);
            // An array inside an array cannot lose an element without shifting the others: a
            // missing number stays a marker, and the enclosing member is dropped above.
            if (v.is_array()) {
                bool bad = false;
                for (const auto& x : v) bad = bad || missing(x);
                if (bad) v = nullptr;
            }
            out.push_back(std::move(v));
        }
        return out;
    }
    return j;
}

}  // namespace rbm::cli::interrupt
