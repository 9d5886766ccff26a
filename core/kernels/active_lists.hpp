#pragma once
// One chain's list of active units for RowPanels::sum_rows (kernels/panels.hpp): appends every
// j < count whose unit is on, in increasing order, to idx from position `end`, and returns the
// new end. idx needs room for `count` entries past `end`.
//
// On AVX-512 sixteen units at a time: a compare gives their mask and vpcompressd packs the
// flagged indices (the scalar loop's end += flag is a dependency through every unit; in a
// microbenchmark, 784 visible units at 29 % took 430 ns that way and 105 ns this way). Every other
// path builds the same list one unit at a time; test_simd_dispatch compares the BRBM states and
// weights bitwise across paths, on unit counts that leave a tail.
#include <cstdint>

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__)
#include <immintrin.h>
#define RBMSCOPE_ACTIVE_LISTS_AVX512 1
#endif

#include "core/numerics/types.hpp"

#ifndef RBMSCOPE_SIMD_NS
#define RBMSCOPE_SIMD_NS portable
#endif

namespace rbm::detail {
inline namespace RBMSCOPE_SIMD_NS {

// Without branches: each j is stored and the end moves only when it is flagged (a branch per
// unit, taken about half the time on random states, was mispredicted about as often).
template <class Flag>
int append_active(Index count, Flag flag, int* idx, int end) {
    for (Index j = 0; j < count; ++j) {
        idx[end] = static_cast<int>(j);
        end += flag(j) != 0;
    }
    return end;
}

#ifdef RBMSCOPE_ACTIVE_LISTS_AVX512
// The indices j0 + [0, 16) whose bit is set in `on`, packed from idx[end]. A whole iteration
// stores all sixteen lanes (the ones past the packed count are overwritten by the next one, and
// stay within the `count` entries past the list's start); the tail stores only the packed ones.
inline int append_mask16(__mmask16 on, __m512i ids, bool tail, int* idx, int end) {
    if (tail) _mm512_mask_compressstoreu_epi32(idx + end, on, ids);
    else _mm512_storeu_si512(idx + end, _mm512_maskz_compress_epi32(on, ids));
    return end + __builtin_popcount(static_cast<unsigned>(on));
}

// Sixteen units at a time: mask_of(j, lanes) gives the units j + [0, 16) that are on, as a mask
// within `lanes` (the ones that exist: all sixteen but in the tail).
template <class MaskOf>
int append_masked16(Index count, MaskOf mask_of, int* idx, int end) {
    __m512i ids = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for (Index j = 0; j < count; j += 16) {
        const Index left = count - j;
        const auto lanes = static_cast<__mmask16>(left >= 16 ? 0xffff : (1u << left) - 1);
        end = append_mask16(mask_of(j, lanes), ids, left < 16, idx, end);
        ids = _mm512_add_epi32(ids, _mm512_set1_epi32(16));
    }
    return end;
}
#endif

// Units given as doubles, on when != 0 (a Gibbs state of 0/1 values).
inline int append_nonzero(const double* x, Index count, int* idx, int end) {
#ifdef RBMSCOPE_ACTIVE_LISTS_AVX512
    return append_masked16(
        count,
        [x](Index j, __mmask16 lanes) {
            const __m512d zero = _mm512_setzero_pd();
            const auto lo_lanes = static_cast<__mmask8>(lanes), hi_lanes = static_cast<__mmask8>(lanes >> 8);
            const __mmask8 lo =
                _mm512_mask_cmp_pd_mask(lo_lanes, _mm512_maskz_loadu_pd(lo_lanes, x + j), zero, _CMP_NEQ_UQ);
            const __mmask8 hi =
                _mm512_mask_cmp_pd_mask(hi_lanes, _mm512_maskz_loadu_pd(hi_lanes, x + j + 8), zero, _CMP_NEQ_UQ);
            return static_cast<__mmask16>(lo | (hi << 8));
        },
        idx, end);
#else
    return append_active(
        count, [&](Index j) { return x[j] != 0.0; }, idx, end);
#endif
}

// Units given as floats, on when != 0 (the float32 GRBM step's hidden draws).
inline int append_nonzero(const float* x, Index count, int* idx, int end) {
#ifdef RBMSCOPE_ACTIVE_LISTS_AVX512
    return append_masked16(
        count,
        [x](Index j, __mmask16 lanes) {
            return _mm512_mask_cmp_ps_mask(lanes, _mm512_maskz_loadu_ps(lanes, x + j), _mm512_setzero_ps(),
                                           _CMP_NEQ_UQ);
        },
        idx, end);
#else
    return append_active(
        count, [&](Index j) { return x[j] != 0.0f; }, idx, end);
#endif
}

// Units given as bytes, on when != 0.
inline int append_set(const unsigned char* on, Index count, int* idx, int end) {
#ifdef RBMSCOPE_ACTIVE_LISTS_AVX512
    return append_masked16(
        count,
        [on](Index j, __mmask16 lanes) {
            const __m128i bytes = _mm_maskz_loadu_epi8(lanes, on + j);
            return _mm_mask_test_epi8_mask(lanes, bytes, bytes);
        },
        idx, end);
#else
    return append_active(
        count, [&](Index j) { return on[j]; }, idx, end);
#endif
}

}  // namespace RBMSCOPE_SIMD_NS
}  // namespace rbm::detail
