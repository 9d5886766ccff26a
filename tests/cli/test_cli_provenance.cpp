// Every result says what it came from (reopening results): "model_file" (the MODEL as
// given, the FNV-1a 64 hash of its bytes, kind, n, m), "argv" and "command_line", and running
// "command_line" again reproduces the result's numbers. The documented keys are unchanged.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "check.hpp"
#include "cli_checks.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace rbm::test;

namespace {

const std::string kLoaders = std::string(RBMSCOPE_TEST_DATA) + "/loaders/";

// FNV-1a 64 written out here, independently of core/io/result_source.cpp.
std::string fnv(const std::string& bytes) {
    unsigned long long h = 0xcbf29ce484222325ULL;
    for (unsigned char ch : bytes) h = (h ^ ch) * 0x100000001b3ULL;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", h);
    return hex;
}

}  // namespace

TEST_CASE("ais, ais-sweep, pt and meanfield carry model_file, argv and command_line") {
    const std::string model = kLoaders + "grbm.json";
    std::ifstream in(model, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::vector<std::string> runs = {
        "ais " + model + " --steps 20 --chains 50 --seed 3",
        "ais-sweep " + model + " --methods geometric:moment --steps 5,10 --chains 50 --repeats 2 --seed 1",
        "pt " + model + " --scheme deo --chains 2 --sweeps 200 --seed 1",
        "meanfield " + model + " --type 1",
    };
    for (const std::string& args : runs) {
        const json j = run_ok(args);
        CHECK_MSG(j.contains("model_file"), args);
        if (!j.contains("model_file")) continue;
        const json& m = j["model_file"];
        CHECK_MSG(m["path"] == model && m["kind"] == "grbm" && m["n"] == 3 && m["m"] == 4, args << ": " << m.dump());
        CHECK_MSG(m["fnv1a64"] == fnv(bytes), m["fnv1a64"].dump()
                                                  << " vs " << fnv(bytes) << " of " << bytes.size() << " bytes");
        CHECK_MSG(j["command_line"] == "rbmscope-cli " + args, j["command_line"].dump());
        CHECK_MSG(j["argv"][0] == args.substr(0, args.find(' ')) && j["argv"][1] == model, j["argv"].dump());
    }
    // The documented keys (docs/user/cli.md) keep their values: ais-sweep's "model" is still the argument as given.
    CHECK(run_ok(runs[1])["model"] == model);
}

TEST_CASE("the command line reproduces the result; a preset is named, quoting survives a space") {
    const json a = run_ok("ais four-mode --steps 20 --chains 50 --seed 9");
    CHECK(a["model_file"]["preset"] == "four-mode" && !a["model_file"].contains("fnv1a64"));
    const std::string line = a["command_line"];
    CHECK(line.rfind("rbmscope-cli ais four-mode", 0) == 0);
    const json again = run_ok(line.substr(std::string("rbmscope-cli ").size()));
    CHECK(again["log_z"] == a["log_z"] && again["ci95"] == a["ci95"]);
    const fs::path spaced = temp_dir() / "my model.json";
    fs::copy_file(kLoaders + "grbm.json", spaced, fs::copy_options::overwrite_existing);
    const json q = run_ok("meanfield '" + spaced.string() + "' --type 1");
    CHECK_MSG(q["command_line"] == "rbmscope-cli meanfield '" + spaced.string() + "' --type 1",
              q["command_line"].dump());
    CHECK(q["model_file"]["path"] == spaced.string());
}

RBM_TEST_MAIN
