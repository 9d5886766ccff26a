#pragma once
// The SIMD paths a suite compares: every path this processor has; a path built but not supported
// here is named as skipped, so a log says which paths a run did not cover.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "core/kernels/simd.hpp"

namespace rbm::test {

inline std::vector<SimdPath> paths_to_test() {
    const std::vector<SimdPath> have = simd_supported();
    for (SimdPath p : simd_built())
        if (std::find(have.begin(), have.end(), p) == have.end())
            std::printf("  SKIP path %s: this processor lacks it\n", simd_name(p));
    return have;
}

}  // namespace rbm::test
