#pragma once
// Branch-free exp and log1p written so that GCC/Clang vectorize loops over arrays of them
// (the libm calls do not vectorize; under callgrind they were 15% of the BRBM AIS step's
// instructions before the products were made sparse). Accuracy: a few ulp in double over the
// ranges documented per function, ample for AIS increments summed in double.
#include <bit>
#include <cmath>
#include <cstdint>

namespace rbm::detail {

// exp(t) for t <= 0 (t is clamped at -708, where exp is ~3e-308).
// Cody-Waite reduction t = n ln2 + r, |r| <= ln2/2, then a degree-12 Taylor polynomial
// (truncation < 3e-16 relative) and 2^n built in the exponent bits.
inline double exp_nonpositive(double t) {
    // Clamp as arithmetic on a 0/1 (a ternary on a comparison blocks vectorization under
    // IEEE trapping rules).
    t += static_cast<double>(t < -708.0) * (-708.0 - t);
    constexpr double kInvLn2 = 1.4426950408889634074, kLn2Hi = 6.93147180369123816490e-01,
                     kLn2Lo = 1.90821492927058770002e-10, kShift = 0x1.8p52;
    const double nd = (t * kInvLn2 + kShift) - kShift;  // round to nearest
    const double r = (t - nd * kLn2Hi) - nd * kLn2Lo;
    double p = 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    const std::int64_t n = std::bit_cast<std::int64_t>(nd + kShift) - std::bit_cast<std::int64_t>(kShift);
    const double scale = std::bit_cast<double>(static_cast<std::uint64_t>(n + 1023) << 52);
    return p * scale;
}

// exp(t) in float for t <= 0 (clamped at -87, where the result is ~1.6e-38): used only to
// turn pre-activations into Bernoulli probabilities. Degree-6 polynomial, ~2 ulp.
inline float exp_nonpositive(float t) {
    t += static_cast<float>(t < -87.0f) * (-87.0f - t);
    constexpr float kInvLn2 = 1.44269504f, kLn2Hi = 0.693145752f, kLn2Lo = 1.42860677e-6f, kShift = 0x1.8p23f;
    const float nd = (t * kInvLn2 + kShift) - kShift;
    const float r = (t - nd * kLn2Hi) - nd * kLn2Lo;
    float p = 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    const std::int32_t n = std::bit_cast<std::int32_t>(nd + kShift) - std::bit_cast<std::int32_t>(kShift);
    const float scale = std::bit_cast<float>(static_cast<std::uint32_t>(n + 127) << 23);
    return p * scale;
}

// log1p(z) for z in (-0.5, 1]: u = 1 + z = 2^k m with k in {-1, 0, 1} and m in [sqrt(1/2), sqrt(2)],
// log m by fdlibm's minimax polynomial in s = f/(2+f), plus the rounding correction of 1 + z.
inline double log1p_half_range(double z) {
    const double u = 1.0 + z;
    const double corr = (z - (u - 1.0)) / u;
    // Selects as arithmetic on 0/1 so that SSE2 code vectorizes (no masked division needed).
    const double hi = static_cast<double>(u > 1.4142135623730951), lo = static_cast<double>(u < 0.7071067811865476);
    const double k = hi - lo;
    const double m = u * (1.0 - 0.5 * hi + lo);
    const double f = m - 1.0;
    const double s = f / (2.0 + f);
    const double s2 = s * s;
    double R = 1.479819860511658591e-01;
    R = R * s2 + 1.531383769920937332e-01;
    R = R * s2 + 1.818357216161805012e-01;
    R = R * s2 + 2.222219843214978396e-01;
    R = R * s2 + 2.857142874366239149e-01;
    R = R * s2 + 3.999999999940941908e-01;
    R = R * s2 + 6.666666666666735130e-01;
    R *= s2;
    const double hfsq = 0.5 * f * f;
    return k * 6.93147180559945286227e-01 + (f - (hfsq - s * (hfsq + R))) + corr;
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

// softplus(beta x) - softplus(beta' x) = (beta - beta') max(x, 0) + log((1 + e1) / (1 + e0)),
// e1 = exp(-beta|x|), e0 = exp(-beta'|x|), the log as log1p((e1 - e0) / (1 + e0)) with its
// argument in (-1/2, 1): no cancellation between two softplus values, whatever the step.
inline double softplus_step(double x, double beta_prev, double beta, double e1, double e0) {
    return 0.5 * (beta - beta_prev) * (x + std::fabs(x)) + log1p_half_range((e1 - e0) / (1.0 + e0));
}

}  // namespace rbm::detail
