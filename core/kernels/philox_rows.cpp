// fill_rows_u32 (kernels/philox_rows.hpp), compiled once per instruction set into namespace
// rbm::detail::RBMSCOPE_SIMD_NS (kernels/simd.hpp) with Highway's static target of that object:
// AVX3 on the avx512 object, AVX2 on the avx2 one. The sse2 object gets Highway's one-lane
// fallback (GCC 12.2; Highway has no SSE2 target) and uses the scalar Rng::fill_u32 instead.
//
// Layout: every block to compute, (row, j) = Philox4x32-10 of the row's counter + j under the
// row's key, is one lane of 64-bit vectors, each 32-bit word of counter and key in the low half
// of a lane: the round's 32x32->64 products are one MulEven each and hi is a shift (no
// shuffles). Only the low 32 bits of a lane are ever read (by MulEven and by the final packing),
// so the high halves may hold anything: lo, the xors and the key increments need no masking,
// and words 0 and 2 are read straight from the staged pairs (word 0 | word 1 << 32).

// Our targets check exactly avx2+fma and avx512f/bw/dq/vl (kernels/simd.cpp): Highway may use
// no more than that and the object's flags allow.
#define HWY_DISABLE_PCLMUL_AES
#define HWY_DISABLE_BMI2_FMA
#define HWY_DISABLE_F16C
#include <hwy/highway.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

#include "core/kernels/kernel_table.hpp"

HWY_BEFORE_NAMESPACE();
namespace rbm::detail::inline RBMSCOPE_SIMD_NS {

#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128

void fill_rows_u32(ChainRngs& rngs, Index begin, Index rows, std::size_t words_per_row, std::uint32_t* out) {
    for (Index r = 0; r < rows; ++r)
        rngs[begin + r].fill_u32(out + static_cast<std::size_t>(r) * words_per_row, words_per_row);
}

#else

namespace {

namespace hn = hwy::HWY_NAMESPACE;

// A pair of words as one 64-bit lane, the first in the low half: its bytes are the two words in
// order on a little-endian machine (x86, the only one with vector targets here).
static_assert(std::endian::native == std::endian::little);

using D = hn::ScalableTag<std::uint64_t>;
using V = hn::Vec<D>;

// Blocks staged per pass: a multiple of two of the widest vectors.
constexpr std::size_t kBatch = 256;

struct Staged {
    // Inputs per lane as word pairs: counter words 0|1 and 2|3, key words 0|1.
    alignas(64) std::array<std::uint64_t, kBatch> ctr01, ctr23, key01;
    // Outputs per lane: words 0|1 and 2|3 of the block.
    alignas(64) std::array<std::uint64_t, kBatch> out01, out23;
    // Where lane i's four words go; a partial block goes to spill[i] and its Rng keeps the rest.
    std::array<std::uint32_t*, kBatch> dst;
    std::array<std::array<std::uint32_t, 4>, kBatch> spill;
    struct Tail {
        Rng* rng;
        std::uint32_t* dst;
        std::size_t lane;
        int used;
    };
    std::array<Tail, kBatch> tails;
};

// The 64-bit product of the low 32 bits of a lane with m (< 2^32).
HWY_INLINE V mul32(V a, V m) {
    const hn::Repartition<std::uint32_t, D> d32;
    return hn::MulEven(hn::BitCast(d32, a), hn::BitCast(d32, m));
}

// Ten Philox rounds (Random123 philox.h: _philox4x32round, _philox4x32bumpkey) on one vector of
// counters, in place; a second vector interleaved to hide the multiply latency.
HWY_INLINE void philox10(D d, V& a0, V& a1, V& a2, V& a3, V ka0, V ka1, V& b0, V& b1, V& b2, V& b3, V kb0, V kb1) {
    const V m0 = hn::Set(d, 0xD2511F53u), m1 = hn::Set(d, 0xCD9E8D57u);
    const V w0 = hn::Set(d, 0x9E3779B9u), w1 = hn::Set(d, 0xBB67AE85u);
    for (int round = 0; round < 10; ++round) {
        if (round > 0) {
            ka0 = hn::Add(ka0, w0);
            ka1 = hn::Add(ka1, w1);
            kb0 = hn::Add(kb0, w0);
            kb1 = hn::Add(kb1, w1);
        }
        const V pa0 = mul32(a0, m0), pa1 = mul32(a2, m1);
        const V pb0 = mul32(b0, m0), pb1 = mul32(b2, m1);
        const V na0 = hn::Xor(hn::Xor(hn::ShiftRight<32>(pa1), a1), ka0);
        const V na2 = hn::Xor(hn::Xor(hn::ShiftRight<32>(pa0), a3), ka1);
        const V nb0 = hn::Xor(hn::Xor(hn::ShiftRight<32>(pb1), b1), kb0);
        const V nb2 = hn::Xor(hn::Xor(hn::ShiftRight<32>(pb0), b3), kb1);
        a0 = na0;
        a1 = pa1;
        a2 = na2;
        a3 = pa0;
        b0 = nb0;
        b1 = pb1;
        b2 = nb2;
        b3 = pb0;
    }
}

// Words x | y << 32 from the low halves of x and y.
HWY_INLINE V pack(D d, V x, V y) { return hn::Or(hn::And(x, hn::Set(d, 0xFFFFFFFFu)), hn::ShiftLeft<32>(y)); }

// Computes the first `lanes` staged lanes and writes them out.
void flush(Staged& s, std::size_t lanes, std::size_t ntails) {
    const D d;
    const std::size_t n = hn::Lanes(d), step = 2 * n;
    // Whole pairs of vectors; the lanes past the last block hold zeros (computed, never written).
    const std::size_t padded = (lanes + step - 1) / step * step;
    for (std::size_t i = lanes; i < padded; ++i) s.ctr01[i] = s.ctr23[i] = s.key01[i] = 0;
    for (std::size_t i = 0; i < padded; i += step) {
        const std::size_t j = i + n;
        const V ca01 = hn::Load(d, s.ctr01.data() + i), ca23 = hn::Load(d, s.ctr23.data() + i);
        const V cb01 = hn::Load(d, s.ctr01.data() + j), cb23 = hn::Load(d, s.ctr23.data() + j);
        const V ka = hn::Load(d, s.key01.data() + i), kb = hn::Load(d, s.key01.data() + j);
        V a0 = ca01, a1 = hn::ShiftRight<32>(ca01), a2 = ca23, a3 = hn::ShiftRight<32>(ca23);
        V b0 = cb01, b1 = hn::ShiftRight<32>(cb01), b2 = cb23, b3 = hn::ShiftRight<32>(cb23);
        philox10(d, a0, a1, a2, a3, ka, hn::ShiftRight<32>(ka), b0, b1, b2, b3, kb, hn::ShiftRight<32>(kb));
        hn::Store(pack(d, a0, a1), d, s.out01.data() + i);
        hn::Store(pack(d, a2, a3), d, s.out23.data() + i);
        hn::Store(pack(d, b0, b1), d, s.out01.data() + j);
        hn::Store(pack(d, b2, b3), d, s.out23.data() + j);
    }
    for (std::size_t i = 0; i < lanes; ++i) {
        std::memcpy(s.dst[i], &s.out01[i], 8);
        std::memcpy(s.dst[i] + 2, &s.out23[i], 8);
    }
    for (std::size_t t = 0; t < ntails; ++t) {
        const Staged::Tail& tail = s.tails[t];
        const std::uint32_t* b = s.spill[tail.lane].data();
        std::copy(b, b + tail.used, tail.dst);
        tail.rng->hold(b, tail.used);
    }
}

}  // namespace

void fill_rows_u32(ChainRngs& rngs, Index begin, Index rows, std::size_t words_per_row, std::uint32_t* out) {
    thread_local Staged s;
    // The lane counts and arrays in locals: stores to the staged 64-bit words could otherwise alias
    // a counter kept in the struct, which the compiler would then reload at every store.
    std::size_t lanes = 0, ntails = 0;
    std::uint64_t* const ctr01 = s.ctr01.data();
    std::uint64_t* const ctr23 = s.ctr23.data();
    std::uint64_t* const key01 = s.key01.data();
    std::uint32_t** const dst = s.dst.data();
    for (Index r = 0; r < rows; ++r) {
        Rng& g = rngs[begin + r];
        std::uint32_t* o = out + static_cast<std::size_t>(r) * words_per_row;
        const std::size_t k = g.take_buffered(o, words_per_row), left = words_per_row - k;
        if (left == 0) continue;
        o += k;
        const std::size_t blocks = (left + 3) / 4, whole = left / 4;
        const auto& key = g.key();
        const auto& ctr = g.counter();
        const std::uint64_t c = (static_cast<std::uint64_t>(ctr[1]) << 32) | ctr[0];
        const std::uint64_t c23 = (static_cast<std::uint64_t>(ctr[3]) << 32) | ctr[2];
        const std::uint64_t k01 = (static_cast<std::uint64_t>(key[1]) << 32) | key[0];
        g.skip_blocks(blocks);
        // Whole blocks, as many as the batch takes at a time (the counter wraps in 64 bits).
        for (std::size_t j = 0; j < whole;) {
            const std::size_t take = std::min(whole - j, kBatch - lanes);
            for (std::size_t t = 0; t < take; ++t) {
                ctr01[lanes + t] = c + (j + t);
                ctr23[lanes + t] = c23;
                key01[lanes + t] = k01;
                dst[lanes + t] = o + 4 * (j + t);
            }
            lanes += take;
            j += take;
            if (lanes == kBatch) {
                flush(s, lanes, ntails);
                lanes = ntails = 0;
            }
        }
        if (blocks > whole) {  // the last block, in part
            const std::size_t i = lanes++;
            ctr01[i] = c + whole;
            ctr23[i] = c23;
            key01[i] = k01;
            dst[i] = s.spill[i].data();
            s.tails[ntails++] = {&g, o + 4 * whole, i, static_cast<int>(left - 4 * whole)};
            if (lanes == kBatch) {
                flush(s, lanes, ntails);
                lanes = ntails = 0;
            }
        }
    }
    if (lanes) flush(s, lanes, ntails);
}

#endif

}  // namespace rbm::detail::inline RBMSCOPE_SIMD_NS
HWY_AFTER_NAMESPACE();
