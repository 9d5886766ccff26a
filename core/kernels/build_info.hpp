#pragma once
// What build this is, for `--version` and the "build" record of every result: the version, the
// git commit of the sources, the compiler, and the instruction-set paths of the hot kernels
// (built, runnable here, selected). GRBM, leaky and float32 results differ in their last bits
// between SSE2, AVX2 and AVX-512 (docs/dev/performance.md), so a result names its path.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rbm {

struct BuildInfo {
    std::string version;     // the project's version, e.g. "0.1.0"
    std::string commit;      // `git describe --always --dirty` at build time, or "unknown"
    std::string compiler;    // e.g. "GCC 12.2.0"
    std::string build_type;  // CMAKE_BUILD_TYPE, e.g. "Release"
};

const BuildInfo& build_info();

// The text of `PROGRAM --version`: the first line "PROGRAM VERSION (commit COMMIT)", then the
// compiler and the SIMD paths (built, supported by this processor, selected).
std::string version_text(const std::string& program);

// {"version", "commit", "compiler", "simd": the selected path, "simd_built": [...]}: what a result
// records about the build that made it. Selecting the path reads RBMSCOPE_SIMD (InputError when
// it names a path this machine cannot run).
nlohmann::json build_json();
// build_json() plus {"threads": T, "ranks": R}: the record of a session, report or checkpoint
// (core/io/provenance.hpp reads it back).
nlohmann::json provenance_json(int threads, int ranks);

}  // namespace rbm
