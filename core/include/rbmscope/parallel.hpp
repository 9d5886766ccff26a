#pragma once
// Deterministic parallel loops: work is cut into fixed blocks of chains (the cut never depends
// on the thread count) and each block is computed the same way whoever runs it.
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <memory>

#include "rbmscope/types.hpp"

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
    tbb::parallel_for(Index(0), blocks, [&](Index k) {
        const Index begin = k * block;
        f(begin, std::min(count, begin + block));
    });
}

// Limits TBB to `threads` workers while alive (threads <= 0: no limit).
class ThreadLimit {
public:
    explicit ThreadLimit(int threads) {
        if (threads > 0)
            control_ = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                             static_cast<std::size_t>(threads));
    }

private:
    std::unique_ptr<tbb::global_control> control_;
};

}  // namespace rbm
