#pragma once
// Counter-based random numbers (Philox4x32-10, Random123). Every chain owns its own stream,
// keyed by (seed, purpose, chain index), so a chain's numbers never depend on which thread
// runs it or in which order blocks are scheduled: same seed, same results, any thread count.
#include <Random123/philox.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/numerics/types.hpp"

namespace rbm {

class Rng {
public:
    Rng() = default;
    // seed: the user's seed; stream: which independent stream (purpose and chain index).
    Rng(std::uint64_t seed, std::uint64_t stream) { reset(seed, stream); }

    void reset(std::uint64_t seed, std::uint64_t stream) {
        key_ = {{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}};
        ctr_ = {{0u, 0u, static_cast<std::uint32_t>(stream), static_cast<std::uint32_t>(stream >> 32)}};
        pos_ = 4;
        has_spare_ = false;
    }

    std::uint32_t next_u32() {
        if (pos_ == 4) refill();
        return buf_[pos_++];
    }
    // The next n words of the stream, exactly as n calls of next_u32() would return them, but
    // whole Philox blocks (4 x 32 bits) go straight to `out`: the fast kernels draw one word
    // per Bernoulli decision this way.
    void fill_u32(std::uint32_t* out, std::size_t n) {
        std::size_t k = take_buffered(out, n);
        for (; k + 4 <= n; k += 4) {
            const auto block = philox_block();
            for (int i = 0; i < 4; ++i) out[k + static_cast<std::size_t>(i)] = block[static_cast<std::size_t>(i)];
        }
        while (k < n) out[k++] = next_u32();
    }
    // fill_u32 in three parts, for generators that compute the blocks of many streams at once
    // (kernels/philox_rows.hpp): the buffered words (at most n; returns how many), then blocks at
    // counter() + 0, 1, ... (64-bit counter in words 0 and 1, wrapping as philox_block's does)
    // under key(), then skip_blocks(k) past them and, when the last one was used only in part,
    // hold(last, used) to keep its remaining words buffered.
    std::size_t take_buffered(std::uint32_t* out, std::size_t n) {
        std::size_t k = 0;
        while (k < n && pos_ < 4) out[k++] = buf_[pos_++];
        return k;
    }
    const std::array<std::uint32_t, 2>& key() const { return key_; }
    const std::array<std::uint32_t, 4>& counter() const { return ctr_; }
    void skip_blocks(std::uint64_t k) {
        const std::uint64_t c = ((static_cast<std::uint64_t>(ctr_[1]) << 32) | ctr_[0]) + k;
        ctr_[0] = static_cast<std::uint32_t>(c);
        ctr_[1] = static_cast<std::uint32_t>(c >> 32);
    }
    void hold(const std::uint32_t* block, int used) {
        for (int i = 0; i < 4; ++i) buf_[static_cast<std::size_t>(i)] = block[i];
        pos_ = used;
    }
    // Philox4x32-10 of one counter under one key (the scalar reference of the block generators).
    static std::array<std::uint32_t, 4> block(const std::array<std::uint32_t, 4>& ctr,
                                              const std::array<std::uint32_t, 2>& key) {
        using P = r123::Philox4x32;
        P::ctr_type c;
        P::key_type k;
        for (int i = 0; i < 4; ++i) c.v[i] = ctr[static_cast<std::size_t>(i)];
        k.v[0] = key[0];
        k.v[1] = key[1];
        const P::ctr_type out = P()(c, k);
        return {{out.v[0], out.v[1], out.v[2], out.v[3]}};
    }
    // Uniform on the open interval (0,1), 53 random bits.
    double uniform() {
        const std::uint32_t a = next_u32(), b = next_u32();
        return uniform_of(a, b);
    }
    // The uniform() two consecutive words a, b of a stream give (for words drawn in blocks).
    static double uniform_of(std::uint32_t a, std::uint32_t b) {
        const std::uint64_t u53 = (std::uint64_t{a} << 21) | (b >> 11);
        return (static_cast<double>(u53) + 0.5) * 0x1.0p-53;
    }
    // Standard normal by Box-Muller (both values used).
    double normal() {
        if (has_spare_) {
            has_spare_ = false;
            return spare_;
        }
        const double u1 = uniform(), u2 = uniform();
        const double r = std::sqrt(-2.0 * std::log(u1));
        const double t = 6.283185307179586476925 * u2;
        spare_ = r * std::sin(t);
        has_spare_ = true;
        return r * std::cos(t);
    }
    // Index uniform on {0, ..., n-1} (n > 0), without modulo bias worth noticing for n << 2^32.
    std::uint64_t below(std::uint64_t n) { return static_cast<std::uint64_t>(uniform() * static_cast<double>(n)) % n; }

private:
    // The block at the current counter; advances the counter.
    std::array<std::uint32_t, 4> philox_block() {
        const auto out = block(ctr_, key_);
        if (++ctr_[0] == 0) ++ctr_[1];
        return out;
    }
    void refill() {
        buf_ = philox_block();
        pos_ = 0;
    }
    std::array<std::uint32_t, 2> key_{};
    std::array<std::uint32_t, 4> ctr_{};
    std::array<std::uint32_t, 4> buf_{};
    int pos_ = 4;
    bool has_spare_ = false;
    double spare_ = 0.0;
};

// Purposes keep streams of different jobs on the same seed apart.
enum class StreamPurpose : std::uint64_t {
    Chains = 1,     // MCMC / AIS chains
    Exact = 2,      // exact samples
    Bootstrap = 3,  // bootstrap resampling
    Swaps = 4,      // tempering swap decisions
    Moments = 5,    // Gibbs chains that estimate moments
    Training = 6,   // minibatch order, training chains
    Misc = 7,
    Reference = 8,  // exact reference draws of log Z from tempering (tempering/logz.hpp)
};

// One stream per chain: chain i of purpose p uses stream (p << 48) + i.
class ChainRngs {
public:
    ChainRngs() = default;
    ChainRngs(std::uint64_t seed, Index chains, StreamPurpose purpose = StreamPurpose::Chains) {
        rngs_.reserve(static_cast<std::size_t>(chains));
        for (Index i = 0; i < chains; ++i)
            rngs_.emplace_back(seed, (static_cast<std::uint64_t>(purpose) << 48) + static_cast<std::uint64_t>(i));
    }
    // Chains [first, first + chains) of such a set, indexed from 0 (a process's share of them).
    ChainRngs(std::uint64_t seed, Index first, Index chains, StreamPurpose purpose) {
        rngs_.reserve(static_cast<std::size_t>(chains));
        for (Index i = 0; i < chains; ++i)
            rngs_.emplace_back(seed,
                               (static_cast<std::uint64_t>(purpose) << 48) + static_cast<std::uint64_t>(first + i));
    }
    Rng& operator[](Index i) { return rngs_[static_cast<std::size_t>(i)]; }
    Index size() const { return static_cast<Index>(rngs_.size()); }

private:
    std::vector<Rng> rngs_;
};

}  // namespace rbm
