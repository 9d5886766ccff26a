// The matrix-multiply rate a target reaches (`bench`'s bound): chains x n times n x m
// products over fixed chain blocks in parallel, as the AIS engine runs its blocks, compiled per
// instruction set with the kernels (kernels/simd.hpp) so the bound is the dispatched path's.
#include <chrono>

#include "core/kernels/kernel_table.hpp"
#include "core/numerics/parallel.hpp"

namespace rbm::detail::inline RBMSCOPE_SIMD_NS {

double gemm_gflops(Index chains, Index n, Index m, Index block, bool f32, double min_seconds) {
    using Clock = std::chrono::steady_clock;
    double flops = 0, t = 0;
    const auto t0 = Clock::now();
    auto run = [&](auto tag) {
        using S = decltype(tag);
        using M = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
        const M a = M::Random(chains, n);
        const Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic> w =
            Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>::Random(n, m);
        M c(chains, m);
        do {
            for_each_block(
                chains, [&](Index b, Index e) { c.middleRows(b, e - b).noalias() = a.middleRows(b, e - b) * w; },
                block);
            flops += 2.0 * static_cast<double>(chains) * static_cast<double>(n) * static_cast<double>(m);
            t = std::chrono::duration<double>(Clock::now() - t0).count();
        } while (t < min_seconds);
    };
    if (f32) run(float{});
    else run(double{});
    return flops / t * 1e-9;
}

}  // namespace rbm::detail::inline RBMSCOPE_SIMD_NS
