// The block generator (core/kernels/philox_rows.hpp) on every instruction set this
// processor runs: Random123's known answers, and word for word what each row's own
// Rng::fill_u32 gives, streams left in the same state, for rows with their own keys, counters
// anywhere (across the 64-bit wrap too) and words already buffered.
#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <random>
#include <vector>

#include "check.hpp"
#include "core/kernels/philox_rows.hpp"
#include "core/kernels/simd.hpp"
#include "philox_kats.hpp"
#include "simd_paths.hpp"

using namespace rbm;

namespace {

using rbm::test::paths_to_test;

void restore() { simd_force(simd_supported().back()); }

// A stream whose next block is Philox4x32-10 of ctr under key: seed = key, stream = ctr words 2
// and 3, then skipped to the position ctr words 0 and 1.
Rng rng_at(const std::array<std::uint32_t, 4>& ctr, const std::array<std::uint32_t, 2>& key) {
    Rng g((static_cast<std::uint64_t>(key[1]) << 32) | key[0], (static_cast<std::uint64_t>(ctr[3]) << 32) | ctr[2]);
    g.skip_blocks((static_cast<std::uint64_t>(ctr[1]) << 32) | ctr[0]);
    return g;
}

using Kat = rbm::test::PhiloxKat;
constexpr const auto& kKats = rbm::test::kPhiloxKats;

// Rows of `rngs` set to random streams: their own seed (so their own key), stream, a position
// anywhere in the 64-bit counter (some just before it wraps) and 0..3 words already drawn.
void scramble(ChainRngs& rngs, std::mt19937_64& gen) {
    for (Index r = 0; r < rngs.size(); ++r) {
        Rng g(gen(), gen());
        const std::uint64_t kind = gen() % 4;
        const std::uint64_t pos = kind == 0   ? 0
                                  : kind == 1 ? gen() % 1000
                                  : kind == 2 ? ~std::uint64_t{0} - gen() % 3
                                              : gen();
        g.skip_blocks(pos);
        for (std::uint64_t k = gen() % 4; k > 0; --k) (void)g.next_u32();
        rngs[r] = g;
    }
}

}  // namespace

TEST_CASE("philox rows: Random123's known answers on every path, in every lane") {
    for (SimdPath p : paths_to_test()) {
        simd_force(p);
        // 37 rows of one block each, so row r is lane r of the batch (every lane of several
        // vectors of any width), each known answer in many lanes; then a second call, whose blocks
        // are the counters plus one (words 0 and 1 wrapping together), against the scalar block.
        const Index rows = 37;
        ChainRngs rngs(1, rows);
        for (Index r = 0; r < rows; ++r) {
            const Kat& k = kKats[r % 3];
            rngs[r] = rng_at(k.ctr, k.key);
        }
        std::vector<std::uint32_t> out(static_cast<std::size_t>(rows) * 4);
        fill_rows_u32(rngs, 0, rows, 4, out.data());
        for (Index r = 0; r < rows; ++r)
            for (int i = 0; i < 4; ++i)
                CHECK(out[static_cast<std::size_t>(r * 4 + i)] == kKats[r % 3].out[static_cast<std::size_t>(i)]);
        fill_rows_u32(rngs, 0, rows, 4, out.data());
        for (Index r = 0; r < rows; ++r) {
            const Kat& k = kKats[r % 3];
            std::array<std::uint32_t, 4> next = k.ctr;
            if (++next[0] == 0) ++next[1];
            const auto want = Rng::block(next, k.key);
            for (int i = 0; i < 4; ++i)
                CHECK(out[static_cast<std::size_t>(r * 4 + i)] == want[static_cast<std::size_t>(i)]);
        }
    }
    restore();
    // The scalar reference itself.
    for (const Kat& k : kKats) CHECK(Rng::block(k.ctr, k.key) == k.out);
}

TEST_CASE("philox rows: word for word the scalar fill_u32, state after included, on every path") {
    std::size_t cases = 0, words = 0;
    for (SimdPath p : paths_to_test()) {
        simd_force(p);
        std::mt19937_64 gen(20261125);
        // 257: more blocks than one pass of the generator stages, with partial blocks across it.
        for (std::size_t wpr : std::initializer_list<std::size_t>{0, 1, 2, 3, 4, 5, 7, 8, 17, 64, 257}) {
            for (Index rows = 1; rows <= 37; rows += (rows < 9 ? 1 : 7)) {
                const Index begin = static_cast<Index>(gen() % 5), total = begin + rows + 2;
                ChainRngs a(1, total);
                scramble(a, gen);
                ChainRngs b = a;
                std::vector<std::uint32_t> want(static_cast<std::size_t>(rows) * wpr + 1, 0xdeadbeef), got = want;
                // Twice, so the second call starts from the state the first left (buffered words).
                for (int call = 0; call < 2; ++call) {
                    for (Index r = 0; r < rows; ++r)
                        a[begin + r].fill_u32(want.data() + r * static_cast<Index>(wpr), wpr);
                    fill_rows_u32(b, begin, rows, wpr, got.data());
                    CHECK(want == got);  // the guard word past the end included
                    words += want.size() - 1;
                }
                // Every stream, inside the rows and outside, goes on with the same words.
                for (Index r = 0; r < total; ++r)
                    for (int i = 0; i < 9; ++i) CHECK(a[r].next_u32() == b[r].next_u32());
                ++cases;
            }
        }
    }
    restore();
    std::printf("  %zu cases, %zu words compared\n", cases, words);
}

RBM_TEST_MAIN
