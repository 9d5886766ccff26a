#include "core/io/provenance.hpp"

namespace rbm {

BuildRecord build_record(const nlohmann::json& build) {
    BuildRecord r;
    if (!build.is_object()) return r;
    r.present = true;
    const auto text = [&](const char* key) {
        const auto f = build.find(key);
        return f != build.end() && f->is_string() ? f->get<std::string>().substr(0, 200) : std::string();
    };
    const auto count = [&](const char* key) {
        const auto f = build.find(key);
        return f != build.end() && f->is_number_integer() && f->get<long long>() > 0 && f->get<long long>() < 1000000
                   ? static_cast<int>(f->get<long long>())
                   : 0;
    };
    r.version = text("version");
    r.commit = text("commit");
    r.simd = text("simd");
    r.threads = count("threads");
    r.ranks = count("ranks");
    return r;
}

BuildRecord build_record_of(const nlohmann::json& j) {
    if (!j.is_object()) return {};
    const auto it = j.find("build");
    return it == j.end() ? BuildRecord{} : build_record(*it);
}

std::string build_difference(const BuildRecord& recorded, const BuildRecord& current) {
    if (!recorded.present) return {};
    const bool other_simd = !recorded.simd.empty() && recorded.simd != current.simd;
    const bool other_build = (!recorded.version.empty() && recorded.version != current.version) ||
                             (!recorded.commit.empty() && recorded.commit != current.commit);
    if (!other_simd && !other_build) return {};
    const auto shown = [](const std::string& s) { return s.empty() ? std::string("?") : s; };
    std::string s = "produced by rbmscope " + shown(recorded.version) + " (commit " + shown(recorded.commit) +
                    ") on the " + shown(recorded.simd) + " SIMD path; this build is " + shown(current.version) +
                    " (commit " + shown(current.commit) + ") on the " + shown(current.simd) + " path: ";
    s += other_simd ? "GRBM, leaky and float32 results differ in their last bits between SIMD paths, so a rerun "
                      "here need not repeat it bit for bit"
                    : "a rerun here need not repeat it bit for bit";
    return s;
}

}  // namespace rbm
