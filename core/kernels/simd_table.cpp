// Compiled once per target (core/CMakeLists.txt), with RBMSCOPE_SIMD_NS and RBMSCOPE_SIMD_TABLE
// naming it: the table of that target's kernels.
#include "core/kernels/kernel_table.hpp"

#define RBMSCOPE_STR2(x) #x
#define RBMSCOPE_STR(x) RBMSCOPE_STR2(x)

extern "C" const rbm::detail::KernelTable* RBMSCOPE_SIMD_TABLE() {
    namespace t = rbm::detail::RBMSCOPE_SIMD_NS;
    static const rbm::detail::KernelTable table{RBMSCOPE_STR(RBMSCOPE_SIMD_NS),
                                                &t::make_brbm_float,
                                                &t::make_brbm_double,
                                                &t::make_grbm,
                                                &t::gemm_gflops,
                                                &t::fill_rows_u32,
                                                &t::leaky_block_eta,
                                                &t::leaky_block_sweep};
    return &table;
}
