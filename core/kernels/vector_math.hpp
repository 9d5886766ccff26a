#pragma once
// Branch-free exp and log1p written so that GCC/Clang vectorize loops over arrays of them
// (the libm calls do not vectorize; under callgrind they were 15% of the BRBM AIS step's
// instructions before the products were made sparse). Accuracy: a few ulp in double over the
// ranges documented per function, ample for AIS increments summed in double.
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>

// Compiled with different instruction sets in different objects (kernels/simd.hpp): each copy
// lives in the namespace of its target.
#ifndef RBMSCOPE_SIMD_NS
#define RBMSCOPE_SIMD_NS portable
#endif

namespace rbm::detail {
inline namespace RBMSCOPE_SIMD_NS {

// a b + c in the polynomials below. Fused = true (the GRBM step of models beyond plain loops,
// whose results already differ across instruction sets in the last bits) makes it one fused
// multiply-add on targets that have them (AVX2, AVX-512): one rounding instead of two, half the
// instructions. Fused = false, everywhere else, keeps the two roundings every path computes alike
// (the kernels are compiled with -ffp-contract=off), so the BRBM step and the 2-D toys stay
// bitwise the same on SSE2, AVX2 and AVX-512.
template <bool Fused, class S>
inline S mad(S a, S b, S c) {
#if defined(__FMA__)
    if constexpr (Fused) {
        if constexpr (sizeof(S) == 4) return __builtin_fmaf(a, b, c);
        else return __builtin_fma(a, b, c);
    }
#endif
    return a * b + c;
}

// c[0] x^(K-1) + ... + c[K-1] by Horner's rule, one mad a coefficient, as straight-line code (a
// loop over the coefficients was not always unrolled, and then the loop around it did not
// vectorize: the float32 GRBM step ran at half its rate).
template <bool Fused, class S, std::size_t K, std::size_t... I>
inline S horner_terms(S x, const S (&c)[K], std::index_sequence<I...>) {
    S p = c[0];
    ((p = mad<Fused>(p, x, c[I + 1])), ...);
    return p;
}
template <bool Fused, class S, std::size_t K>
inline S horner(S x, const S (&c)[K]) {
    return horner_terms<Fused>(x, c, std::make_index_sequence<K - 1>{});
}

// exp(t) for t <= 0, clamped where the result is still normal (double: -708, ~3e-308; float: -87,
// ~1.6e-38). Cody-Waite reduction t = n ln2 + r, |r| <= ln2/2, then a Taylor polynomial (double:
// degree 12, truncation < 3e-16 relative; float: degree 6, ~2 ulp) and 2^n built in the exponent
// bits.
template <class S>
struct ExpTerms;
template <>
struct ExpTerms<double> {
    using I = std::int64_t;
    using U = std::uint64_t;
    static constexpr double kLow = -708.0, kInvLn2 = 1.4426950408889634074, kLn2Hi = 6.93147180369123816490e-01,
                            kLn2Lo = 1.90821492927058770002e-10, kShift = 0x1.8p52;
    static constexpr int kBias = 1023, kMantissa = 52;
    static constexpr double taylor[] = {1.0 / 479001600.0,
                                        1.0 / 39916800.0,
                                        1.0 / 3628800.0,
                                        1.0 / 362880.0,
                                        1.0 / 40320.0,
                                        1.0 / 5040.0,
                                        1.0 / 720.0,
                                        1.0 / 120.0,
                                        1.0 / 24.0,
                                        1.0 / 6.0,
                                        0.5,
                                        1.0,
                                        1.0};
};
template <>
struct ExpTerms<float> {
    using I = std::int32_t;
    using U = std::uint32_t;
    static constexpr float kLow = -87.0f, kInvLn2 = 1.44269504f, kLn2Hi = 0.693145752f, kLn2Lo = 1.42860677e-6f,
                           kShift = 0x1.8p23f;
    static constexpr int kBias = 127, kMantissa = 23;
    static constexpr float taylor[] = {1.0f / 720.0f, 1.0f / 120.0f, 1.0f / 24.0f, 1.0f / 6.0f, 0.5f, 1.0f, 1.0f};
};
template <bool Fused = false, class S>
inline S exp_nonpositive(S t) {
    using T = ExpTerms<S>;
    // Clamp as arithmetic on a 0/1 (a ternary on a comparison blocks vectorization under
    // IEEE trapping rules).
    t += static_cast<S>(t < T::kLow) * (T::kLow - t);
    const S nd = (t * T::kInvLn2 + T::kShift) - T::kShift;  // round to nearest
    const S r = (t - nd * T::kLn2Hi) - nd * T::kLn2Lo;
    const S p = horner<Fused>(r, T::taylor);
    const auto n = std::bit_cast<typename T::I>(nd + T::kShift) - std::bit_cast<typename T::I>(T::kShift);
    const S scale = std::bit_cast<S>(static_cast<typename T::U>(n + T::kBias) << T::kMantissa);
    return p * scale;
}

// log(1 + f) for f in [sqrt(1/2) - 1, sqrt(2) - 1]: fdlibm's minimax polynomial in s = f/(2+f).
template <bool Fused = false>
inline double log_mantissa(double f) {
    const double s = f / (2.0 + f);
    const double s2 = s * s;
    constexpr double kLg[] = {1.479819860511658591e-01, 1.531383769920937332e-01, 1.818357216161805012e-01,
                              2.222219843214978396e-01, 2.857142874366239149e-01, 3.999999999940941908e-01,
                              6.666666666666735130e-01};
    const double R = horner<Fused>(s2, kLg) * s2;
    const double hfsq = 0.5 * f * f;
    return f - (hfsq - s * (hfsq + R));
}

// log1p(z) for z in (-0.5, 1]: u = 1 + z = 2^k m with k in {-1, 0, 1} and m in [sqrt(1/2), sqrt(2)],
// log m by log_mantissa, plus the rounding correction of 1 + z.
template <bool Fused = false>
inline double log1p_half_range(double z) {
    const double u = 1.0 + z;
    const double corr = (z - (u - 1.0)) / u;
    // Selects as arithmetic on 0/1 so that SSE2 code vectorizes (no masked division needed).
    const double hi = static_cast<double>(u > 1.4142135623730951), lo = static_cast<double>(u < 0.7071067811865476);
    const double k = hi - lo;
    const double m = u * (1.0 - 0.5 * hi + lo);
    return k * 6.93147180559945286227e-01 + log_mantissa<Fused>(m - 1.0) + corr;
}

// log(u) for a normal double u in (0, 1] (here the uniforms of Box-Muller): u = 2^k m with m in
// [sqrt(1/2), sqrt(2)) split with 64-bit integer operations only (musl's offset trick, shifted so
// every intermediate stays non-negative: SSE2 has neither arithmetic 64-bit shifts nor 64-bit
// integer to double conversion), log m by log_mantissa. Arithmetic on 0/1 selects was turned into
// branches by GCC here, which stopped vectorization.
template <bool Fused = false>
inline double log_positive(double u) {
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(u);
    const std::uint64_t tmp = bits - 0x0006a09e667f3bcdull;  // exponent field: k + 1022
    const double m = std::bit_cast<double>(bits - (tmp & 0xfff0000000000000ull) + 0x3fe0000000000000ull);
    const double k = std::bit_cast<double>((tmp >> 52) | 0x4330000000000000ull) - (0x1.0p52 + 1022.0);
    return k * 6.93147180369123816490e-01 + (log_mantissa<Fused>(m - 1.0) + k * 1.90821492927058770002e-10);
}

// cos and sin of x + q pi/2 from the bits cx, sx of cos x and sin x: odd q swaps them, and the
// sign bits flip for cos at q = 1, 2 and for sin at q = 2, 3 (mod 4). U: the unsigned integer of F's width.
template <class F, class U>
inline void quarter_turns(U q, U cx, U sx, F& c, F& s) {
    constexpr int kSign = static_cast<int>(sizeof(U)) * 8 - 1;
    const U odd = U(0) - (q & 1u);  // all ones for odd q
    const U flip_c = ((q ^ (q >> 1)) & 1u) << kSign, flip_s = ((q >> 1) & 1u) << kSign;
    c = std::bit_cast<F>(((cx & ~odd) | (sx & odd)) ^ flip_c);
    s = std::bit_cast<F>(((sx & ~odd) | (cx & odd)) ^ flip_s);
}

// cos(2 pi u) and sin(2 pi u) for u in [0, 1]: quarter turns q = round(4u), x = (4u - q) pi/2 in
// [-pi/4, pi/4] (exact up to the final product), Taylor polynomials in x^2, then the rotation by q
// quarter turns as bit operations (quarter_turns). Double: 7 terms each (truncation < 1e-16);
// float: 4 (truncation < 3e-9 for sin, 2e-10 for cos).
template <class S>
struct SinCosTerms;
template <>
struct SinCosTerms<double> {
    using U = std::uint64_t;
    static constexpr double kShift = 0x1.8p52, kHalfPi = 1.57079632679489661923;
    static constexpr double sin[] = {-1.0 / 1307674368000.0, 1.0 / 6227020800.0, -1.0 / 39916800.0, 1.0 / 362880.0,
                                     -1.0 / 5040.0,          1.0 / 120.0,        -1.0 / 6.0};
    static constexpr double cos[] = {1.0 / 20922789888000.0, -1.0 / 87178291200.0, 1.0 / 479001600.0, -1.0 / 3628800.0,
                                     1.0 / 40320.0,          -1.0 / 720.0,         1.0 / 24.0};
};
template <>
struct SinCosTerms<float> {
    using U = std::uint32_t;
    static constexpr float kShift = 0x1.8p23f, kHalfPi = 1.57079632679f;
    static constexpr float sin[] = {1.0f / 362880.0f, -1.0f / 5040.0f, 1.0f / 120.0f, -1.0f / 6.0f};
    static constexpr float cos[] = {-1.0f / 3628800.0f, 1.0f / 40320.0f, -1.0f / 720.0f, 1.0f / 24.0f};
};
template <bool Fused = false, class S>
inline void sincos_2pi(S u, S& c, S& s) {
    using T = SinCosTerms<S>;
    using U = typename T::U;
    const S q4 = S(4) * u;
    const S big = q4 + T::kShift;
    const S x = (q4 - (big - T::kShift)) * T::kHalfPi;
    const U q = std::bit_cast<U>(big);
    const S x2 = x * x;
    const U sx = std::bit_cast<U>(x + x * x2 * horner<Fused>(x2, T::sin));
    const U cx = std::bit_cast<U>(S(1) - S(0.5) * x2 + x2 * x2 * horner<Fused>(x2, T::cos));
    quarter_turns(q, cx, sx, c, s);
}

// Uniform in (0,1) from one 32-bit word: 31 bits in double, 24 in float (signed conversions,
// which vectorize on SSE2).
inline double unit_from_word(std::uint32_t w) {
    return (static_cast<double>(static_cast<std::int32_t>(w >> 1)) + 0.5) * 0x1.0p-31;
}
inline float unit_from_word_f(std::uint32_t w) {
    return (static_cast<float>(static_cast<std::int32_t>(w >> 8)) + 0.5f) * 0x1.0p-24f;
}

// [u < sigmoid(y)] given e = exp(-|y|): sigmoid(y) is 1/(1+e) for y >= 0 and e/(1+e) below, so
// the test is u (1 + e) < (y >= 0 ? 1 : e), written without branches.
template <class S>
inline unsigned char bernoulli_sigmoid(S u, S y, S e) {
    const S pos = static_cast<S>(y >= S(0));
    return static_cast<unsigned char>(u * (S(1) + e) < e + pos * (S(1) - e));
}
// The same decision as 0 or 1 in S (loops that store it as a double or float vectorize; via
// unsigned char they did not: the float32 GRBM step ran at half its rate that way).
template <class S>
inline S bernoulli_sigmoid_as(S u, S y, S e) {
    const S pos = static_cast<S>(y >= S(0));
    return static_cast<S>(u * (S(1) + e) < e + pos * (S(1) - e));
}

// softplus(beta x) - softplus(beta' x) = (beta - beta') max(x, 0) + log((1 + e1) / (1 + e0)),
// e1 = exp(-beta|x|), e0 = exp(-beta'|x|), the log as log1p((e1 - e0) / (1 + e0)) with its
// argument in (-1/2, 1): no cancellation between two softplus values, whatever the step.
template <bool Fused = false>
inline double softplus_step(double x, double beta_prev, double beta, double e1, double e0) {
    return 0.5 * (beta - beta_prev) * (x + std::fabs(x)) + log1p_half_range<Fused>((e1 - e0) / (1.0 + e0));
}

// ---- Single precision: the float32 GRBM step (kernels/grbm_block.cpp) does its elementwise work
// in float, twice the lanes of double per vector and shorter polynomials. The same forms as the
// double versions above, with fdlibm/musl's single-precision coefficients; accuracy a few ulp
// of float (test_kernels_precision checks each against libm in double).

// log(1 + f) for f in [sqrt(1/2) - 1, sqrt(2) - 1]: musl's logf polynomial in s = f/(2+f)
// (|error of the polynomial| < 2^-34).
template <bool Fused = false>
inline float log_mantissa(float f) {
    const float s = f / (2.0f + f);
    const float z = s * s, w = z * z;
    const float t1 = w * mad<Fused>(w, 0.24279078841f, 0.40000972152f);
    const float t2 = z * mad<Fused>(w, 0.28498786688f, 0.66666662693f);
    const float hfsq = 0.5f * f * f;
    return f - (hfsq - s * (hfsq + (t1 + t2)));
}

// log(u) for a normal float u in (0, 1]: u = 2^k m with m in [sqrt(1/2), sqrt(2)) by musl's
// logf offset (0x3f3504f3 is sqrt(1/2)), log m by log_mantissa.
template <bool Fused = false>
inline float log_positive(float u) {
    const std::uint32_t ix = std::bit_cast<std::uint32_t>(u) + (0x3f800000u - 0x3f3504f3u);
    const float k = static_cast<float>(static_cast<std::int32_t>(ix >> 23) - 0x7f);
    const float m = std::bit_cast<float>((ix & 0x007fffffu) + 0x3f3504f3u);
    return k * 6.9313812256e-01f + (log_mantissa<Fused>(m - 1.0f) + k * 9.0580006145e-06f);
}

// The uniform of a word in the precision S (unit_from_word, unit_from_word_f).
template <class S>
inline S unit_of_word(std::uint32_t w) {
    if constexpr (sizeof(S) == 4) return unit_from_word_f(w);
    else return unit_from_word(w);
}

// Two independent standard normals from two 32-bit words (Box-Muller, both values used):
// radius from the first word's uniform (31 bits in double, so |z| <= 6.6; 24 in float, |z| <= 5.9),
// angle from the second. Branch-free and libm-free, so loops over arrays of pairs vectorize.
template <bool Fused = false, class S>
inline void normal_pair(std::uint32_t w1, std::uint32_t w2, S& z1, S& z2) {
    const S r = std::sqrt(S(-2) * log_positive<Fused>(unit_of_word<S>(w1)));
    S c, s;
    sincos_2pi<Fused>(unit_of_word<S>(w2), c, s);
    z1 = r * c;
    z2 = r * s;
}

// softplus(beta x) - softplus(beta' x) in float, given d = beta - beta' (taken in double by the
// caller: the difference of two floats near 1 keeps only a few bits of a small step). The log
// term log q, q = (1 + e1)/(1 + e0), is 2 atanh(s) with s = (q - 1)/(q + 1) = (e1 - e0)/(2 + e0 + e1):
// one division (log1p of (e1 - e0)/(1 + e0) took three), no cancellation beyond e1 - e0 itself, and
// |s| <= 1/3 since e0, e1 are in (0, 1], where the series 2 s (1 + s^2/3 + ... + s^12/13) is
// truncated below 1.5e-8 relative (a quarter of a float ulp).
template <bool Fused = false>
inline float softplus_step_f(float x, float d, float e1, float e0) {
    const float s = (e1 - e0) / (2.0f + e0 + e1);
    const float t = s * s;
    constexpr float kSeries[] = {1.0f / 13.0f, 1.0f / 11.0f, 1.0f / 9.0f, 1.0f / 7.0f, 1.0f / 5.0f, 1.0f / 3.0f};
    const float s2 = 2.0f * s;
    return 0.5f * d * (x + std::fabs(x)) + mad<Fused>(s2 * t, horner<Fused>(t, kSeries), s2);
}

}  // namespace RBMSCOPE_SIMD_NS
}  // namespace rbm::detail
