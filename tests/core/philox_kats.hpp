#pragma once
// Random123's known-answer vectors for Philox4x32-10 (its kat_vectors file), shared by the suites
// that check the scalar generator (test_rng_determinism) and the block one (test_philox_block).
#include <array>
#include <cstdint>

namespace rbm::test {

struct PhiloxKat {
    std::array<std::uint32_t, 4> ctr;
    std::array<std::uint32_t, 2> key;
    std::array<std::uint32_t, 4> out;
};

inline constexpr PhiloxKat kPhiloxKats[] = {
    {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

}  // namespace rbm::test
