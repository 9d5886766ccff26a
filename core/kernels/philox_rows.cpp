// fill_rows_u32 (kernels/philox_rows.hpp), compiled once per instruction set into namespace
// rbm::detail::RBMSCOPE_SIMD_NS (kernels/simd.hpp) with Highway's static target of that object:
// AVX3 (AVX-512), AVX2, and on the SSE2 object Highway's portable fallback.
//
// Layout: every block to compute, (row, j) = Philox4x32-10 of the row's counter + j under the
// row's key, is one lane; each 32-bit word of counter and key sits zero-extended in a 64-bit lane,
// so the round's 32x32->64 products are one MulEven each and hi is a shift (no shuffles). Only
// the low 32 bits of a lane are ever read (by MulEven and by the final store), so lo, the
// xors and the key increments need no masking.

// Our targets check exactly avx2+fma and avx512f/bw/dq/vl (kernels/simd.cpp): Highway may use
// no more than that and the object's flags allow.
#define HWY_DISABLE_PCLMUL_AES
#define HWY_DISABLE_BMI2_FMA
#define HWY_DISABLE_F16C
#include <hwy/highway.h>

#include <algorithm>
#include <array>

#include "core/kernels/kernel_table.hpp"

HWY_BEFORE_NAMESPACE();
namespace rbm::detail::inline RBMSCOPE_SIMD_NS {

namespace {

namespace hn = hwy::HWY_NAMESPACE;

using D = hn::ScalableTag<std::uint64_t>;
using V = hn::Vec<D>;

// Blocks staged per pass: a multiple of every vector width.
constexpr std::size_t kBatch = 256;

struct Staged {
    // Inputs per lane: counter words c0..c3 and key words k0, k1.
    alignas(64) std::array<std::uint32_t, kBatch> c0, c1, c2, c3, k0, k1;
    // Outputs per lane, low 32 bits.
    alignas(64) std::array<std::uint64_t, kBatch> x0, x1, x2, x3;
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
    std::size_t lanes = 0, ntails = 0;
};

// The 64-bit product of the low 32 bits of a lane with m (< 2^32).
HWY_INLINE V mul32(D d, V a, V m) {
#if HWY_TARGET == HWY_SCALAR
    // One lane: no 32-bit view of it; a plain 64-bit multiply.
    return hn::Mul(hn::And(a, hn::Set(d, 0xFFFFFFFFu)), m);
#else
    (void)d;
    const hn::Repartition<std::uint32_t, D> d32;
    return hn::MulEven(hn::BitCast(d32, a), hn::BitCast(d32, m));
#endif
}

// Ten Philox rounds (Random123 philox.h: _philox4x32round, _philox4x32bumpkey) on one vector of
// counters, in place; a second vector interleaved to hide the multiply latency.
HWY_INLINE void philox10(D d, V& a0, V& a1, V& a2, V& a3, V ka0, V ka1, V& b0, V& b1, V& b2, V& b3, V kb0,
                         V kb1) {
    const V m0 = hn::Set(d, 0xD2511F53u), m1 = hn::Set(d, 0xCD9E8D57u);
    const V w0 = hn::Set(d, 0x9E3779B9u), w1 = hn::Set(d, 0xBB67AE85u);
    for (int round = 0; round < 10; ++round) {
        if (round > 0) {
            ka0 = hn::Add(ka0, w0);
            ka1 = hn::Add(ka1, w1);
            kb0 = hn::Add(kb0, w0);
            kb1 = hn::Add(kb1, w1);
        }
        const V pa0 = mul32(d, a0, m0), pa1 = mul32(d, a2, m1);
        const V pb0 = mul32(d, b0, m0), pb1 = mul32(d, b2, m1);
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

// Computes the staged lanes and writes them out.
void flush(Staged& s) {
    const D d;
    const hn::Rebind<std::uint32_t, D> d32;
    const std::size_t n = hn::Lanes(d), step = 2 * n;
    // Whole pairs of vectors; the lanes past the last block hold zeros (computed, never written).
    const std::size_t padded = (s.lanes + step - 1) / step * step;
    for (std::size_t i = s.lanes; i < padded; ++i) s.c0[i] = s.c1[i] = s.c2[i] = s.c3[i] = s.k0[i] = s.k1[i] = 0;
    auto load = [&](const std::array<std::uint32_t, kBatch>& a, std::size_t i) {
        return hn::PromoteTo(d, hn::LoadU(d32, a.data() + i));
    };
    for (std::size_t i = 0; i < padded; i += step) {
        const std::size_t j = i + n;
        V a0 = load(s.c0, i), a1 = load(s.c1, i), a2 = load(s.c2, i), a3 = load(s.c3, i);
        V b0 = load(s.c0, j), b1 = load(s.c1, j), b2 = load(s.c2, j), b3 = load(s.c3, j);
        philox10(d, a0, a1, a2, a3, load(s.k0, i), load(s.k1, i), b0, b1, b2, b3, load(s.k0, j), load(s.k1, j));
        hn::StoreU(a0, d, s.x0.data() + i);
        hn::StoreU(a1, d, s.x1.data() + i);
        hn::StoreU(a2, d, s.x2.data() + i);
        hn::StoreU(a3, d, s.x3.data() + i);
        hn::StoreU(b0, d, s.x0.data() + j);
        hn::StoreU(b1, d, s.x1.data() + j);
        hn::StoreU(b2, d, s.x2.data() + j);
        hn::StoreU(b3, d, s.x3.data() + j);
    }
    for (std::size_t i = 0; i < s.lanes; ++i) {
        std::uint32_t* o = s.dst[i];
        o[0] = static_cast<std::uint32_t>(s.x0[i]);
        o[1] = static_cast<std::uint32_t>(s.x1[i]);
        o[2] = static_cast<std::uint32_t>(s.x2[i]);
        o[3] = static_cast<std::uint32_t>(s.x3[i]);
    }
    for (std::size_t t = 0; t < s.ntails; ++t) {
        const Staged::Tail& tail = s.tails[t];
        const std::uint32_t* b = s.spill[tail.lane].data();
        std::copy(b, b + tail.used, tail.dst);
        tail.rng->hold(b, tail.used);
    }
    s.lanes = s.ntails = 0;
}

}  // namespace

void fill_rows_u32(ChainRngs& rngs, Index begin, Index rows, std::size_t words_per_row, std::uint32_t* out) {
    thread_local Staged s;
    s.lanes = s.ntails = 0;
    for (Index r = 0; r < rows; ++r) {
        Rng& g = rngs[begin + r];
        std::uint32_t* o = out + static_cast<std::size_t>(r) * words_per_row;
        const std::size_t k = g.take_buffered(o, words_per_row), left = words_per_row - k;
        if (left == 0) continue;
        const std::size_t blocks = (left + 3) / 4, whole = left / 4;
        const auto& key = g.key();
        const auto& ctr = g.counter();
        const std::uint64_t c = (static_cast<std::uint64_t>(ctr[1]) << 32) | ctr[0];
        const std::uint32_t c2 = ctr[2], c3 = ctr[3], k0 = key[0], k1 = key[1];
        for (std::size_t j = 0; j < blocks; ++j) {
            const std::size_t i = s.lanes++;
            const std::uint64_t cj = c + j;
            s.c0[i] = static_cast<std::uint32_t>(cj);
            s.c1[i] = static_cast<std::uint32_t>(cj >> 32);
            s.c2[i] = c2;
            s.c3[i] = c3;
            s.k0[i] = k0;
            s.k1[i] = k1;
            if (j < whole) {
                s.dst[i] = o + k + 4 * j;
            } else {
                s.dst[i] = s.spill[i].data();
                s.tails[s.ntails++] = {&g, o + k + 4 * j, i, static_cast<int>(left - 4 * whole)};
            }
            if (s.lanes == kBatch) flush(s);
        }
        g.skip_blocks(blocks);
    }
    if (s.lanes) flush(s);
}

}  // namespace rbm::detail::RBMSCOPE_SIMD_NS
HWY_AFTER_NAMESPACE();
