#include "core/kernels/build_info.hpp"

#include "core/kernels/simd.hpp"

namespace rbm {
namespace detail {
extern const char* const kBuildCommit;  // generated: cmake/BuildCommit.cmake
}  // namespace detail

namespace {

std::string compiler_name() {
#if defined(__clang__)
    return "clang " + std::to_string(__clang_major__) + "." + std::to_string(__clang_minor__) + "." +
           std::to_string(__clang_patchlevel__);
#elif defined(__GNUC__)
    return "GCC " + std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." +
           std::to_string(__GNUC_PATCHLEVEL__);
#else
    return "unknown compiler";
#endif
}

std::string joined(const std::vector<SimdPath>& paths) {
    std::string s;
    for (SimdPath p : paths) s += std::string(s.empty() ? "" : " ") + simd_name(p);
    return s;
}

}  // namespace

const BuildInfo& build_info() {
    static const BuildInfo info{RBMSCOPE_VERSION, detail::kBuildCommit, compiler_name(), RBMSCOPE_BUILD_TYPE};
    return info;
}

std::string version_text(const std::string& program) {
    const BuildInfo& b = build_info();
    std::string s = program + " " + b.version + " (commit " + b.commit + ")\n";
    s +=
        "built with " + b.compiler + ", " + (b.build_type.empty() ? std::string("no build type") : b.build_type) + "\n";
    s += "SIMD paths built: " + joined(simd_built()) + "; this processor runs: " + joined(simd_supported()) +
         "; selected: " + simd_name(simd_active()) + " (RBMSCOPE_SIMD chooses another)\n";
    return s;
}

nlohmann::json build_json() {
    const BuildInfo& b = build_info();
    nlohmann::json built = nlohmann::json::array();
    for (SimdPath p : simd_built()) built.push_back(simd_name(p));
    return nlohmann::json{{"version", b.version},
                          {"commit", b.commit},
                          {"compiler", b.compiler},
                          {"simd", simd_name(simd_active())},
                          {"simd_built", built}};
}

nlohmann::json provenance_json(int threads, int ranks) {
    nlohmann::json j = build_json();
    j["threads"] = threads;
    j["ranks"] = ranks;
    return j;
}

}  // namespace rbm
