#pragma once
// Where a result, session, report or checkpoint came from: the "build" record (provenance_json,
// core/kernels/build_info.hpp: build_json with the threads and ranks of the run), written by every
// saver, and read back here tolerantly (a file from before the record, or with a damaged one, still opens). GRBM,
// leaky and float32 bits differ between SIMD paths (docs/dev/performance.md), so reopening what
// another path or build produced says so instead of promising the same bits.
#include <string>

#include <nlohmann/json.hpp>

namespace rbm {

// What a file recorded about the build that made it; empty strings when it did not say.
struct BuildRecord {
    bool present = false;  // the file had a "build" object
    std::string version, commit, simd;
    int threads = 0, ranks = 0;  // 0: not recorded
};

// The "build" member of `j` (an object holding it), never throwing: a missing or ill-typed
// field is left empty. build_record(build_json()) is this build's.
BuildRecord build_record_of(const nlohmann::json& j);
BuildRecord build_record(const nlohmann::json& build);

// "" when `recorded` names `current`'s version, commit and SIMD path (or records nothing); else one sentence for a
// status bar or a "warnings" entry, e.g. "produced by rbmscope 0.1.0 (commit 1a2b3c) on the avx2 path; this build runs
// avx512 (commit 4d5e6f): the last bits of GRBM, leaky and float32 results may differ".
std::string build_difference(const BuildRecord& recorded, const BuildRecord& current);

}  // namespace rbm
