#pragma once
// The transport of a long computation, shared by the thread that drives it (a worker) and the
// thread that watches it (the GUI): pause, single steps while paused, a speed limit, and a unit
// counter that is exact by construction.
//
// The worker calls before_unit() before each unit of work (one annealing step, one PT scan, one
// sampling sweep, one training update) and after_unit() after it. While `pause` is raised the
// worker waits in before_unit(); `budget` lets it take that many units while paused (Step);
// `holding` is true only while it waits, so a watcher that sees holding == true reads a `done`
// that cannot change until the pause is released or a step is granted.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

namespace rbm {

struct StepGate {
    std::atomic<bool> pause{false};
    std::atomic<int> budget{0};         // units the worker may take while paused
    std::atomic<double> pace{0.0};      // at most this many units per second; 0: full speed
    std::atomic<long long> done{0};     // units completed
    std::atomic<bool> holding{false};   // the worker waits in before_unit (pause acknowledged)
    std::atomic<double> waited_s{0.0};  // time spent waiting (paused or paced), for rates

    // Worker side. Returns false once *cancel is raised (then the unit must not run). on_hold runs
    // on the worker each time it starts waiting in a pause, before `holding` is raised, so a
    // report it sends arrives before the watcher can see the pause acknowledged.
    bool before_unit(const std::atomic<bool>* cancel, const std::function<void()>& on_hold = {}) {
        using Clock = std::chrono::steady_clock;
        const auto cancelled = [cancel] { return cancel && cancel->load(std::memory_order_relaxed); };
        const auto t0 = Clock::now();
        bool held = false;
        for (;;) {
            if (cancelled()) {
                release(held, t0);
                return false;
            }
            if (!pause.load()) break;
            int b = budget.load();
            if (b > 0 && budget.compare_exchange_weak(b, b - 1)) break;
            if (!held) {
                if (on_hold) on_hold();
                holding.store(true);
                held = true;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        release(held, t0);
        // Pacing: the next unit starts no earlier than 1 / pace after the previous one.
        const double p = pace.load();
        if (p > 0) {
            const auto gap = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / p));
            const auto t1 = Clock::now();
            while (Clock::now() < next_ && !cancelled() && !pause.load())
                std::this_thread::sleep_for(
                    std::min<Clock::duration>(std::chrono::milliseconds(2), next_ - Clock::now()));
            waited_s.store(waited_s.load() + std::chrono::duration<double>(Clock::now() - t1).count());
            if (cancelled()) return false;
            next_ = std::max(Clock::now(), next_) + gap;
        }
        return true;
    }
    void after_unit() { done.fetch_add(1); }

private:
    void release(bool held, std::chrono::steady_clock::time_point t0) {
        if (!held) return;
        holding.store(false);
        waited_s.store(waited_s.load() + std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::chrono::steady_clock::time_point next_{};  // worker only
};

}  // namespace rbm
