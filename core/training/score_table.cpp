// The training scores' table of the path the kernels run (kernels/simd.hpp).
#include "core/training/score_table.hpp"

#include <cstdlib>

#include "core/kernels/simd.hpp"

namespace rbm::detail {

const ScoreTable& score_table() {
#if RBMSCOPE_SIMD_DISPATCH
    // simd_active() is always one of the compiled paths (RBMSCOPE_SIMD_PATHS).
    switch (simd_active()) {
#if RBMSCOPE_SIMD_HAVE_SSE2
        case SimdPath::Sse2: return *rbmscope_scores_sse2();
#endif
#if RBMSCOPE_SIMD_HAVE_AVX2
        case SimdPath::Avx2: return *rbmscope_scores_avx2();
#endif
#if RBMSCOPE_SIMD_HAVE_AVX512
        case SimdPath::Avx512: return *rbmscope_scores_avx512();
#endif
        default: break;
    }
    std::abort();  // unreachable: simd_active() chose a compiled path
#else
    return *rbmscope_scores_native();
#endif
}

}  // namespace rbm::detail
