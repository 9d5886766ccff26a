// The training scores' table of the path the kernels run (kernels/simd.hpp).
#include "core/training/score_table.hpp"
#include "core/kernels/simd.hpp"

namespace rbm::detail {

const ScoreTable& score_table() {
#if RBMSCOPE_SIMD_DISPATCH
    switch (simd_active()) {
        case SimdPath::Sse2: return *rbmscope_scores_sse2();
        case SimdPath::Avx2: return *rbmscope_scores_avx2();
        case SimdPath::Avx512: return *rbmscope_scores_avx512();
    }
    return *rbmscope_scores_sse2();
#else
    return *rbmscope_scores_native();
#endif
}

}  // namespace rbm::detail
