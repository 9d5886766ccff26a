// rbmscope-cli train --out in every format `convert` writes (docs/user/cli.md): the same seed gives
// the same model whatever the suffix, so `exact` and `info` on each file equal those on the .json.
#include <filesystem>

#include "check.hpp"
#include "cli_checks.hpp"

using namespace rbm::test;

namespace {
std::string path(const std::string& name) { return (temp_dir() / name).string(); }

// train and exact/info results carry the file's path, hash, argv and timing: compare the model's numbers only.
nlohmann::json numbers(nlohmann::json j) {
    for (const char* k : {"argv", "command_line", "model_file", "build", "seconds", "input", "model", "warnings"})
        j.erase(k);
    return j;
}
bool ends_with_npz(const std::string& f) { return f.size() > 4 && f.compare(f.size() - 4, 4, ".npz") == 0; }
}  // namespace

TEST_CASE("train --out .mat, .h5, .hdf5 and .mat v7.3 hold the model the .json holds") {
    const std::string train = "train --data bars:3 --hidden 4 --method pcd --updates 40 --seed 11 --out ";
    const nlohmann::json ref = run_ok(train + path("t.json"));
    CHECK(ref["status"] == "finished");
    const nlohmann::json exact_ref = numbers(run_ok("exact " + path("t.json")));
    const nlohmann::json info_ref = numbers(run_ok("info " + path("t.json")));
    CHECK(exact_ref.contains("log_z"));
    for (const std::string out : {"t.mat", "t.h5", "t.hdf5", "t.npz", "t73.mat --mat-version 7.3"}) {
        const std::string file = path(out.substr(0, out.find(' ')));
        const nlohmann::json r = run_ok(train + path(out));
        CHECK_MSG(r["model"] == file && r["final"] == ref["final"], out << ": " << r["final"].dump());
        CHECK_MSG(std::filesystem::exists(file), file);
        const nlohmann::json e = numbers(run_ok("exact " + file));
        CHECK_MSG(e == exact_ref, out << ": log_z " << e["log_z"].dump() << " vs " << exact_ref["log_z"].dump());
        // .mat and .h5 keep no "training" record (the data spec), as with convert.
        nlohmann::json i = numbers(run_ok("info " + file)), iref = info_ref;
        if (!ends_with_npz(file)) iref.erase("training");
        CHECK_MSG(i == iref, out << ": " << i.dump() << " vs " << iref.dump());
    }
    // Other suffixes, and --mat-version on a file that is not .mat, are refused before any training.
    expect_one_line_error(run_cli(train + path("t.txt")), "t.txt", "--out must end in .json or .npz, or .mat, .h5");
    expect_one_line_error(run_cli(train + path("t2.h5") + " --mat-version 7.3"), "7.3 h5",
                          "--mat-version applies to a .mat --out");
    CHECK(!std::filesystem::exists(path("t2.h5")));
}

RBM_TEST_MAIN
