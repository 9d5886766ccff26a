// Provenance of results and checkpoints (docs/reference/results.md, docs/reference/checkpoints.md):
// every result's "build" names the threads and ranks besides the version, commit and SIMD path;
// train and ais-sweep checkpoints carry the same record; resuming one that another SIMD path or
// build wrote says so in "warnings", and one from before the record still resumes to the same model.
#include <filesystem>
#include <fstream>
#include <iterator>

#include "check.hpp"
#include "cli_checks.hpp"

using nlohmann::json;
using namespace rbm::test;

namespace {
std::string path(const std::string& name) { return (temp_dir() / name).string(); }

std::string slurp(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

json read_json(const std::string& file) { return json::parse(slurp(file)); }
void write_json(const std::string& file, const json& j) { std::ofstream(file, std::ios::binary) << j.dump(1); }

// A SIMD path other than the one this build runs.
std::string other_simd(const json& build) { return build.at("simd") == "sse2" ? "avx512" : "sse2"; }

bool warns_of_resume(const json& r) {
    if (!r.contains("warnings")) return false;
    for (const auto& w : r["warnings"])
        if (w.get<std::string>().rfind("--resume: the checkpoint was produced by", 0) == 0) return true;
    return false;
}
}  // namespace

TEST_CASE("every result's build names its threads and ranks") {
    const json one = run_ok("ais four-mode --steps 20 --chains 50 --seed 3 --threads 1");
    CHECK_MSG(one["build"]["threads"] == 1 && one["build"]["ranks"] == 1, one["build"].dump());
    const json two = run_ok("exact four-mode --threads 2");
    CHECK_MSG(two["build"]["ranks"] == 1 && two["build"]["threads"].get<int>() >= 1, two["build"].dump());
    for (const char* k : {"version", "commit", "compiler", "simd", "simd_built"})
        CHECK_MSG(one["build"].contains(k), k);
}

TEST_CASE("train: the checkpoint records the build; another path's checkpoint warns on --resume") {
    const std::string train = "train --data bars:3 --hidden 4 --method pcd --seed 5 ";
    run_ok(train + "--updates 40 --out " + path("whole.json"));
    run_ok(train + "--updates 15 --checkpoint " + path("ck.json") + " --out " + path("part.json") + " --threads 1");
    const json ck = read_json(path("ck.json"));
    CHECK_MSG(ck.contains("build") && ck["build"]["threads"] == 1 && ck["build"]["ranks"] == 1 &&
                  ck["build"].contains("simd") && ck["build"].contains("commit"),
              ck.value("build", json()).dump());
    // This build's checkpoint: no warning, and the model of the uninterrupted run.
    const json same =
        run_ok("train --data bars:3 --resume " + path("ck.json") + " --updates 40 --out " + path("r1.json"));
    CHECK_MSG(!warns_of_resume(same), same.dump());
    CHECK(slurp(path("r1.json")) == slurp(path("whole.json")));
    // Written on another SIMD path: said, and the run still resumes.
    json other = ck;
    other["build"]["simd"] = other_simd(ck["build"]);
    write_json(path("ck-other.json"), other);
    const json warned =
        run_ok("train --data bars:3 --resume " + path("ck-other.json") + " --updates 40 --out " + path("r2.json"));
    CHECK_MSG(warns_of_resume(warned), warned.value("warnings", json()).dump());
    CHECK_MSG(warned.value("warnings", json()).dump().find("on the " + other_simd(ck["build"]) + " SIMD path") !=
                  std::string::npos,
              warned.value("warnings", json()).dump());
    // Another commit on the same path: said too.
    other = ck;
    other["build"]["commit"] = "0123456789ab";
    write_json(path("ck-commit.json"), other);
    const json commit =
        run_ok("train --data bars:3 --resume " + path("ck-commit.json") + " --updates 40 --out " + path("r3.json"));
    CHECK_MSG(warns_of_resume(commit) && commit["warnings"].dump().find("commit 0123456789ab") != std::string::npos,
              commit.value("warnings", json()).dump());
    // From before the record (no "build"), or an ill-typed one: resumes to the same model, no warning.
    for (const json& b : {json(), json("text")}) {
        json old = ck;
        if (b.is_null()) old.erase("build");
        else old["build"] = b;
        write_json(path("ck-old.json"), old);
        const json r =
            run_ok("train --data bars:3 --resume " + path("ck-old.json") + " --updates 40 --out " + path("r4.json"));
        CHECK_MSG(!warns_of_resume(r), r.dump());
        CHECK(slurp(path("r4.json")) == slurp(path("whole.json")));
    }
}

TEST_CASE("ais-sweep: the checkpoint records the build; another path's checkpoint warns on --resume") {
    const std::string sweep = "ais-sweep four-mode --methods geometric --steps 5,10 --chains 20 --repeats 1 --seed 2 ";
    const json whole = run_ok(sweep + "--checkpoint " + path("sw.json"));
    const json ck = read_json(path("sw.json"));
    CHECK_MSG(ck.contains("build") && ck["build"].contains("simd") && ck["build"]["ranks"] == 1,
              ck.value("build", json()).dump());
    json other = ck;
    other["build"]["simd"] = other_simd(ck["build"]);
    write_json(path("sw-other.json"), other);
    const json warned = run_ok(sweep + "--resume " + path("sw-other.json"));
    CHECK_MSG(warns_of_resume(warned), warned.value("warnings", json()).dump());
    CHECK(warned["results"] == whole["results"]);
    json old = ck;
    old.erase("build");
    write_json(path("sw-old.json"), old);
    const json r = run_ok(sweep + "--resume " + path("sw-old.json"));
    CHECK_MSG(!warns_of_resume(r), r.dump());
    CHECK(r["results"] == whole["results"]);
}

RBM_TEST_MAIN
