#pragma once
// Deterministic parallel loops: work is cut into fixed blocks of chains (the cut never depends
// on the thread count) and each block is computed the same way whoever runs it.
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <memory>

// ThreadSanitizer cannot see the synchronization inside an uninstrumented libtbb (Debian's is
// not built with it), so under TSan every parallel_for shows false races in TBB's own headers.
// TSan builds run the same blocks on plain std::threads instead, which it understands, so its
// reports speak about rbmscope's code.
#if defined(__SANITIZE_THREAD__)
#define RBMSCOPE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RBMSCOPE_TSAN 1
#endif
#endif
#ifdef RBMSCOPE_TSAN
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>
#endif

#include "core/numerics/types.hpp"

namespace rbm {

// Chains per block: big enough for an efficient matrix product, small enough for the cache.
inline constexpr Index kChainBlock = 64;

template <class F>
void for_each_block(Index count, F&& f, Index block = kChainBlock) {
    if (count <= 0) return;
    const Index blocks = (count + block - 1) / block;
    if (blocks == 1) {
        f(Index(0), count);
        return;
    }
#ifdef RBMSCOPE_TSAN
    const std::size_t allowed = tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism);
    const std::size_t cores = std::max(2u, std::thread::hardware_concurrency());
    const Index threads =
        std::min<Index>(blocks, static_cast<Index>(std::max<std::size_t>(1, std::min(allowed, cores))));
    std::atomic<Index> next{0};
    std::exception_ptr error;
    std::mutex error_mutex;
    auto work = [&] {
        try {
            for (Index k = next.fetch_add(1); k < blocks; k = next.fetch_add(1)) {
                const Index begin = k * block;
                f(begin, std::min(count, begin + block));
            }
        } catch (...) {
            std::lock_guard<std::mutex> lock(error_mutex);
            if (!error) error = std::current_exception();
            next.store(blocks);
        }
    };
    std::vector<std::thread> pool;
    for (Index t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
    if (error) std::rethrow_exception(error);
#else
    tbb::parallel_for(Index(0), blocks, [&](Index k) {
        const Index begin = k * block;
        f(begin, std::min(count, begin + block));
    });
#endif
}

// Limits TBB to `threads` workers while alive (threads <= 0: no limit).
// The worker threads a parallel loop may use now: a ThreadLimit's, else TBB's default.
inline int threads_in_force() {
    return static_cast<int>(tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism));
}

// The threads in force when the last ThreadLimit was made (0: none was): what a result records as
// its run's threads after the command's limit is gone.
inline std::atomic<int>& last_thread_limit() {
    static std::atomic<int> threads{0};
    return threads;
}

class ThreadLimit {
public:
    explicit ThreadLimit(int threads) {
        if (threads > 0)
            control_ = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                             static_cast<std::size_t>(threads));
        last_thread_limit() = threads_in_force();
    }

private:
    std::unique_ptr<tbb::global_control> control_;
};

}  // namespace rbm
