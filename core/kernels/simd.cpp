#include "core/kernels/simd.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "core/kernels/philox_rows.hpp"
#include "core/numerics/types.hpp"

namespace rbm {

namespace {

bool cpu_has(SimdPath p) {
#if defined(__x86_64__) || defined(__i386__)
    switch (p) {
        case SimdPath::Sse2: return true;
        case SimdPath::Avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
        case SimdPath::Avx512:
            return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                   __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") && cpu_has(SimdPath::Avx2);
    }
    return false;
#else
    return p == SimdPath::Sse2;
#endif
}

// RBMSCOPE_NATIVE builds compile one target with the build machine's flags.
#if !RBMSCOPE_SIMD_DISPATCH
constexpr SimdPath kNativePath =
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && defined(__AVX512VL__)
    SimdPath::Avx512;
#elif defined(__AVX2__) && defined(__FMA__)
    SimdPath::Avx2;
#else
    SimdPath::Sse2;
#endif
#endif

const detail::KernelTable* table_of(SimdPath p) {
#if RBMSCOPE_SIMD_DISPATCH
    // Only the paths of RBMSCOPE_SIMD_PATHS are compiled (core/CMakeLists.txt).
    switch (p) {
#if RBMSCOPE_SIMD_HAVE_SSE2
        case SimdPath::Sse2: return rbmscope_kernels_sse2();
#endif
#if RBMSCOPE_SIMD_HAVE_AVX2
        case SimdPath::Avx2: return rbmscope_kernels_avx2();
#endif
#if RBMSCOPE_SIMD_HAVE_AVX512
        case SimdPath::Avx512: return rbmscope_kernels_avx512();
#endif
        default: break;
    }
    return nullptr;
#else
    (void)p;
    return rbmscope_kernels_native();
#endif
}

std::once_flag g_once;
std::atomic<int> g_path{-1};

void choose() {
    std::call_once(g_once, [] {
        if (g_path.load() >= 0) return;  // forced before first use
        const char* env = std::getenv("RBMSCOPE_SIMD");
        if (env && *env) {
            const SimdPath p = simd_parse(env);
            simd_force(p);
            return;
        }
        const std::vector<SimdPath> can = simd_supported();
        if (can.empty()) {
            // A build of the build machine's path only (RBMSCOPE_SIMD_PATHS=host), copied to a
            // processor without it.
            std::string built;
            for (SimdPath q : simd_built()) built += std::string(built.empty() ? "" : ", ") + simd_name(q);
            std::fprintf(stderr,
                         "rbmscope: this build has kernels for %s only, which this processor cannot run; "
                         "rebuild with -DRBMSCOPE_SIMD_PATHS=all (scripts/build.sh does)\n",
                         built.c_str());
            std::exit(2);
        }
        g_path.store(static_cast<int>(can.back()));
    });
}

}  // namespace

const char* simd_name(SimdPath p) {
    switch (p) {
        case SimdPath::Sse2: return "sse2";
        case SimdPath::Avx2: return "avx2";
        case SimdPath::Avx512: return "avx512";
    }
    return "?";
}

std::vector<SimdPath> simd_built() {
#if RBMSCOPE_SIMD_DISPATCH
    std::vector<SimdPath> out;
#if RBMSCOPE_SIMD_HAVE_SSE2
    out.push_back(SimdPath::Sse2);
#endif
#if RBMSCOPE_SIMD_HAVE_AVX2
    out.push_back(SimdPath::Avx2);
#endif
#if RBMSCOPE_SIMD_HAVE_AVX512
    out.push_back(SimdPath::Avx512);
#endif
    return out;
#else
    return {kNativePath};
#endif
}

std::vector<SimdPath> simd_supported() {
    std::vector<SimdPath> out;
    for (SimdPath p : simd_built())
        if (cpu_has(p)) out.push_back(p);
    return out;
}

std::string cpu_features() {
    std::string s = "sse2";
#if defined(__x86_64__) || defined(__i386__)
    // __builtin_cpu_supports takes only literals.
    if (__builtin_cpu_supports("avx")) s += " avx";
    if (__builtin_cpu_supports("avx2")) s += " avx2";
    if (__builtin_cpu_supports("fma")) s += " fma";
    if (__builtin_cpu_supports("avx512f")) s += " avx512f";
    if (__builtin_cpu_supports("avx512bw")) s += " avx512bw";
    if (__builtin_cpu_supports("avx512dq")) s += " avx512dq";
    if (__builtin_cpu_supports("avx512vl")) s += " avx512vl";
#endif
    return s;
}

SimdPath simd_parse(const std::string& name) {
    for (SimdPath p : {SimdPath::Sse2, SimdPath::Avx2, SimdPath::Avx512})
        if (name == simd_name(p)) return p;
    throw InputError("RBMSCOPE_SIMD: unknown instruction set '" + name + "' (expected sse2, avx2 or avx512)");
}

void simd_force(SimdPath p) {
    std::string have;
    for (SimdPath q : simd_supported()) {
        if (q == p) {
            g_path.store(static_cast<int>(p));
            return;
        }
        have += std::string(have.empty() ? "" : ", ") + simd_name(q);
    }
    throw InputError(std::string("RBMSCOPE_SIMD: this ") + (cpu_has(p) ? "build" : "processor") + " cannot run '" +
                     simd_name(p) + "' (available: " + have + ")");
}

SimdPath simd_active() {
    choose();
    return static_cast<SimdPath>(g_path.load());
}

namespace detail {

const KernelTable& kernel_table() { return *table_of(simd_active()); }

}  // namespace detail

void fill_rows_u32(ChainRngs& rngs, Index begin, Index rows, std::size_t words_per_row, std::uint32_t* out) {
    detail::kernel_table().fill_rows_u32(rngs, begin, rows, words_per_row, out);
}

}  // namespace rbm
