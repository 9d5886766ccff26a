#pragma once
// Philox words for a block of chains at once: the blocks of all rows are computed
// together, one counter per vector lane, on the active instruction set (kernels/simd.hpp).
#include <cstddef>
#include <cstdint>

#include "core/numerics/types.hpp"
#include "core/random/rng.hpp"

namespace rbm {

// Rows r in [begin, begin + rows) of rngs: out[r' * words_per_row + k] for r' = r - begin is
// exactly what rngs[r].fill_u32(out + r' * words_per_row, words_per_row) would write, and every
// Rng is left as that call leaves it (buffered words first, then whole blocks, then a partial
// block whose remainder stays buffered).
void fill_rows_u32(ChainRngs& rngs, Index begin, Index rows, std::size_t words_per_row, std::uint32_t* out);

}  // namespace rbm
