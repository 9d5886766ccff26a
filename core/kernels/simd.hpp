#pragma once
// Runtime choice of the instruction set for the hot kernels (the fused BRBM and GRBM AIS steps).
// Their sources (kernels/brbm_block.cpp, kernels/grbm_block.cpp, kernels/simd_table.cpp) are
// compiled once per target (core/CMakeLists.txt: SSE2, AVX2+FMA, AVX-512), each copy in its own
// namespace with every other symbol made local to it (so the linker cannot merge an AVX2 Eigen
// or std template into the SSE2 copy); at start-up the best path the processor has is chosen,
// or the one RBMSCOPE_SIMD names.
#include <memory>
#include <string>
#include <vector>

#include "core/kernels/kernel_table.hpp"

namespace rbm {

enum class SimdPath { Sse2 = 0, Avx2 = 1, Avx512 = 2 };

const char* simd_name(SimdPath p);  // "sse2", "avx2", "avx512"
// Paths compiled into this build, lowest first (an RBMSCOPE_NATIVE build has one, named for
// the build machine's best).
std::vector<SimdPath> simd_built();
// Paths this processor can run (of those built).
std::vector<SimdPath> simd_supported();
// What the processor reports, for `info --cpu`: e.g. "sse2 avx2 fma avx512f avx512bw avx512dq avx512vl".
std::string cpu_features();
// The path in use: chosen on first use from RBMSCOPE_SIMD when set (InputError for an unknown
// name or one the processor lacks), otherwise the best supported.
SimdPath simd_active();
// Forces a path (tests, `bench`); InputError when the processor lacks it. Kernels built before
// the change keep the path they were built with.
void simd_force(SimdPath p);
// Parses "sse2" | "avx2" | "avx512"; InputError naming the accepted values otherwise.
SimdPath simd_parse(const std::string& name);

namespace detail {
// The kernels of the active path.
const KernelTable& kernel_table();
}  // namespace detail

}  // namespace rbm
