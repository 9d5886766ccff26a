#pragma once
// One libFuzzer entry point per loader: a fuzz_<name>.cpp defines
//     RBM_FUZZ_TARGET(bytes) { ...parse bytes... }
// and nothing else. Bad input must end in rbm::InputError; anything else escaping (another
// exception, a crash, a sanitizer report, a leak, a hang) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/io/model_io.hpp"
#include "core/numerics/types.hpp"

namespace rbm::fuzz {

// A model that loaded must be valid, and must survive a JSON round trip unchanged in shape:
// catches loaders that accept what the writer or validate() cannot handle.
inline void check_round_trip(const Model& m) {
    const Model back = model_from_json_text(model_to_json_text(m), "round trip");
    if (back.kind() != m.kind() || back.n_visible() != m.n_visible() || back.n_hidden() != m.n_hidden() ||
        static_cast<bool>(back.anneal_from) != static_cast<bool>(m.anneal_from))
        __builtin_trap();
}

}  // namespace rbm::fuzz

#define RBM_FUZZ_TARGET(bytes)                                                          \
    static void rbm_fuzz_one(const std::string& bytes);                                 \
    extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { \
        try {                                                                           \
            rbm_fuzz_one(std::string(reinterpret_cast<const char*>(data), size));       \
        } catch (const rbm::InputError&) {                                              \
        }                                                                               \
        return 0;                                                                       \
    }                                                                                   \
    static void rbm_fuzz_one(const std::string& bytes)
