// The CLI reads MATLAB .mat and HDF5 .h5 models and takes --map on every command with a MODEL
// (docs/reference/model-files.md): the same log Z as the JSON twin, the transposed-W warning in the
// result's "warnings", exit 2 with one line on bad files, and convert writing .mat/.h5.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "check.hpp"
#include "cli_checks.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace rbm::test;

namespace {

const std::string kLoaders = std::string(RBMSCOPE_TEST_DATA) + "/loaders/";

}  // namespace

TEST_CASE("exact log Z of .mat and .h5 files equals the JSON twin's, printed digit for digit") {
    for (const char* k : {"brbm", "grbm"}) {
        const std::string kind = k;
        const json twin = run_ok("exact " + kLoaders + kind + ".json");
        for (const char* f : {"-v5.mat", "-v73.mat", ".h5"}) {
            const json j = run_ok("exact " + kLoaders + kind + f);
            CHECK_MSG(j["log_z"].dump() == twin["log_z"].dump() && j["mean_v"] == twin["mean_v"], kind + f);
            CHECK_MSG(!j.contains("warnings"), kind + f);
        }
    }
}

TEST_CASE("--map on every MODEL command; the transposition is a warning of the result") {
    const std::string mapped = kLoaders + "brbm-mapped.npz --map W=weights,b=vbias,c=hbias";
    const json twin = run_ok("exact " + kLoaders + "brbm.json");
    const json j = run_ok("exact " + mapped);
    CHECK(j["log_z"].dump() == twin["log_z"].dump());
    CHECK(j["warnings"].size() == 1 &&
          j["warnings"][0].get<std::string>().find("'W' was stored hidden x visible (3 x 5") != std::string::npos);
    CHECK(run_ok("info " + mapped)["n_visible"] == 5);
    CHECK(run_ok("meanfield " + kLoaders + "grbm-v5.mat --map W=vishid,sigma=sigma --type 1").contains("free_energy"));
    CHECK(run_ok("ais " + mapped + " --steps 10 --chains 4 --seed 1").contains("log_z"));
    CHECK(run_ok("pt " + mapped + " --chains 2 --sweeps 10 --seed 1").contains("betas"));
    CHECK(run_ok("sample " + mapped + " --chains 2 --sweeps 2").contains("samples"));
    // A map naming a missing array, a map on a preset, a bad map: one line, exit 2.
    CliResult r = run_cli("exact " + kLoaders + "brbm-mapped.npz --map W=nope");
    CHECK(r.exit_code == 2 &&
          r.err.find("--map W=nope: the file has no array 'nope' (it has 'weights', 'vbias', 'hbias')") !=
              std::string::npos &&
          r.stderr_lines() == 1);
    r = run_cli("exact four-mode --map W=x");
    CHECK(r.exit_code == 2 && r.err.find("'four-mode' is a preset") != std::string::npos);
    r = run_cli("exact " + mapped.substr(0, mapped.find(' ')) + " --map Q=x");
    CHECK(r.exit_code == 2 && r.err.find("unknown model name 'Q'") != std::string::npos);
    CHECK(run_cli("exact --help").out.find("--map NAME=ARRAY") != std::string::npos);
}

TEST_CASE("bad .mat and .h5 files: exit 2 with one line naming the file and the array") {
    const std::string bad = std::string(RBMSCOPE_TEST_DATA) + "/bad/";
    CliResult r = run_cli("exact " + bad + "mat-W-cell.mat");
    CHECK(r.exit_code == 2 && r.stderr_lines() == 1 && r.out.empty() &&
          r.err.find("mat-W-cell.mat: 'W' (variable 'vishid') must be a numeric array") != std::string::npos);
    r = run_cli("exact " + bad + "h5-truncated.h5");
    CHECK(r.exit_code == 2 && r.stderr_lines() == 1 &&
          r.err.find("h5-truncated.h5: not an HDF5 file") != std::string::npos);
    r = run_cli("info " + bad + "mat-truncated-v73.mat");
    CHECK(r.exit_code == 2 && r.stderr_lines() == 1);
}

TEST_CASE("files on which libhdf5 itself crashes: exit 2 with one line naming the file, not a segfault") {
    // libhdf5 1.10.8 segfaults on the first two inside its metadata accumulator (exit 139 before
    // these files were read in a child process); on the third it reads freed memory,
    // which only ASan catches (a Release build reports an HDF5 error).
    const std::string bad = std::string(RBMSCOPE_TEST_DATA) + "/bad/";
    for (const char* f : {"h5-metadata-accumulator-null.h5", "mat-v73-metadata-accumulator-null.mat"}) {
        for (const char* command : {"exact ", "info ", "convert "}) {
            const std::string tail = std::string(command) == "convert " ? " " + (temp_dir() / "out.json").string() : "";
            const CliResult r = run_cli(command + bad + f + tail);
            CHECK_MSG(r.exit_code == 2 && r.stderr_lines() == 1 && r.out.empty() &&
                          r.err.find(bad + f + ": the HDF5 library crashed reading this file (") != std::string::npos &&
                          r.err.find("; the file is damaged or not ") != std::string::npos,
                      command << f << ": exit " << r.exit_code << ": " << r.err);
        }
    }
    const CliResult r = run_cli("exact " + bad + "mat-v73-libhdf5-use-after-free.mat");
    CHECK_MSG(r.exit_code == 2 && r.stderr_lines() == 1 && r.out.empty() &&
                  r.err.find("mat-v73-libhdf5-use-after-free.mat: ") != std::string::npos &&
                  r.err.find("damaged") != std::string::npos,
              "exit " << r.exit_code << ": " << r.err);
}

TEST_CASE("convert writes .mat (v5, v7.3) and .h5 that read back to the same log Z") {
    const fs::path dir = temp_dir();
    const json twin = run_ok("exact " + kLoaders + "grbm.json");
    for (const char* o : {"g.mat", "g73.mat", "g.h5"}) {
        const std::string out = o;
        const std::string path = (dir / out).string();
        const json c =
            run_ok("convert " + kLoaders + "grbm.json " + path + (out == "g73.mat" ? " --mat-version 7.3" : ""));
        CHECK(c["kind"] == "grbm" && c["n_visible"] == 3);
        CHECK_MSG(run_ok("exact " + path)["log_z"].dump() == twin["log_z"].dump(), out);
    }
    const CliResult r = run_cli("convert " + kLoaders + "grbm.json " + (dir / "g.h5").string() + " --mat-version 7.3");
    CHECK(r.exit_code == 2 && r.err.find("--mat-version applies to a .mat OUT") != std::string::npos);
}

RBM_TEST_MAIN
