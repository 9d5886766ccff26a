// Inspecting a model the way it was trained: train records its data and
// preprocessing in the model file ("training"); ais defaults a BRBM with data to the data's
// base rate and says so; --data SPEC with train's transforms attaches data for one run (ais,
// sample) or for good (convert); models without data keep the old default.
#include <fstream>
#include <sstream>

#include "../core/check.hpp"
#include "cli_checks.hpp"

using namespace rbm;
using nlohmann::json;

using rbm::test::expect_one_line_error;

namespace {

json read_json(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return json::parse(ss.str());
}

// A BRBM trained on binarized digits (small and short: the test is about bookkeeping).
const std::string& trained_model() {
    static const std::string path = [] {
        const std::string out = (test::temp_dir() / "digits-brbm.json").string();
        const auto r = test::run_cli(
            "train --data digits --binarize 0.5 --hidden 8 --updates 30 --batch 20 --lr 0.05 --seed 3 "
            "--monitor-every 0 --out '" +
            out + "'");
        CHECK_MSG(r.exit_code == 0, r.err);
        return out;
    }();
    return path;
}

const char* kAis = " --steps 40 --chains 30 --seed 5 --threads 2";

}  // namespace

TEST_CASE("train records the data spec and the preprocessing it applied") {
    const json m = read_json(trained_model());
    CHECK(m.contains("training"));
    if (!m.contains("training")) return;
    const json& t = m["training"];
    CHECK(t["data"] == "digits");
    CHECK(t["preprocessing"]["binarize"] == 0.5);
    CHECK(t["preprocessing"]["scale"] == false && t["preprocessing"]["standardize"].is_null());
    CHECK(t["preprocessing"]["shifts"] == false && t["preprocessing"]["limit"].is_null());
    // A standardized GRBM records the mean and sd it applied, one per visible unit.
    const std::string g = (test::temp_dir() / "std-grbm.json").string();
    const auto r = test::run_cli(
        "train --data bars:3 --kind grbm --standardize --hidden 2 --updates 5 --monitor-every 0 --out '" + g + "'");
    CHECK_MSG(r.exit_code == 0, r.err);
    if (r.exit_code == 0) {
        const json s = read_json(g)["training"]["preprocessing"]["standardize"];
        CHECK(s["mean"].size() == 9 && s["sd"].size() == 9);
    }
}

TEST_CASE("ais on a trained BRBM defaults to the data base rate and equals --base data") {
    const auto def = test::run_cli("ais '" + trained_model() + "'" + kAis);
    const auto exp = test::run_cli("ais '" + trained_model() + "' --base data" + kAis);
    CHECK_MSG(def.exit_code == 0, def.err);
    CHECK_MSG(exp.exit_code == 0, exp.err);
    if (def.exit_code != 0 || exp.exit_code != 0) return;
    const json a = def.json(), b = exp.json();
    CHECK(a["base"] == "data");
    CHECK(a["base_data"].get<std::string>().find("digits, binarized at 0.5") != std::string::npos);
    CHECK(a["path_name"].get<std::string>().find("base-rate base from data") != std::string::npos);
    CHECK(a["log_z"] == b["log_z"] && a["ess"] == b["ess"] && a["log_z0"] == b["log_z0"]);
    // The uniform base gives another log Z0 on digits (pixel means are far from 1/2).
    const auto uni = test::run_cli("ais '" + trained_model() + "' --base uniform" + kAis);
    CHECK_MSG(uni.exit_code == 0, uni.err);
    if (uni.exit_code == 0) CHECK(uni.json()["base"] == "uniform" && uni.json()["log_z0"] != a["log_z0"]);
}

TEST_CASE("without data the default base is unchanged; --data SPEC attaches data for a run or for good") {
    json plain = read_json(trained_model());
    plain.erase("training");
    const std::string p = test::write_temp("plain.json", plain.dump());
    const auto def = test::run_cli("ais '" + p + "'" + kAis);
    CHECK_MSG(def.exit_code == 0, def.err);
    if (def.exit_code == 0) CHECK(def.json()["base"] == "moment" && !def.json().contains("base_data"));
    const auto preset = test::run_cli("ais bars-and-stripes" + std::string(kAis));
    if (preset.exit_code == 0) CHECK(preset.json()["base"] == "moment");

    const auto recorded = test::run_cli("ais '" + trained_model() + "'" + kAis);
    const auto given = test::run_cli("ais '" + p + "' --data digits --binarize 0.5" + kAis);
    CHECK_MSG(given.exit_code == 0, given.err);
    const std::string attached = (test::temp_dir() / "attached.json").string();
    const auto conv = test::run_cli("convert '" + p + "' '" + attached + "' --data digits --binarize 0.5");
    CHECK_MSG(conv.exit_code == 0, conv.err);
    const auto after = test::run_cli("ais '" + attached + "'" + kAis);
    CHECK_MSG(after.exit_code == 0, after.err);
    if (given.exit_code == 0 && after.exit_code == 0 && recorded.exit_code == 0) {
        CHECK(given.json()["base"] == "data" && after.json()["base"] == "data");
        // Data given by --data is named as the recorded data is.
        CHECK(given.json()["base_data"] == recorded.json()["base_data"]);
        CHECK(given.json()["log_z"] == recorded.json()["log_z"]);
        CHECK(after.json()["log_z"] == recorded.json()["log_z"]);
        CHECK(read_json(attached)["training"] == read_json(trained_model())["training"]);
    }
}

TEST_CASE("sample shows the data in the model's preprocessing next to the samples") {
    const auto r = test::run_cli("sample '" + trained_model() + "' --chains 6 --sweeps 5 --threads 2");
    CHECK_MSG(r.exit_code == 0, r.err);
    if (r.exit_code != 0) return;
    const json j = r.json();
    CHECK(j.contains("data"));
    if (!j.contains("data")) return;
    CHECK(j["data"]["examples"].size() == 6 && j["data"]["attached"] == false);
    bool binary = true;
    for (const auto& row : j["data"]["examples"])
        for (const auto& x : row) binary = binary && (x == 0.0 || x == 1.0);
    CHECK(binary);
    const auto raw = test::run_cli("sample '" + trained_model() + "' --chains 6 --sweeps 5 --data digits");
    CHECK_MSG(raw.exit_code == 2 && raw.err.find("a BRBM's data must lie in [0, 1]") != std::string::npos, raw.err);
}

TEST_CASE("bad data options: exit 2 and one line naming the problem") {
    json plain = read_json(trained_model());
    plain.erase("training");
    const std::string p = test::write_temp("plain2.json", plain.dump());
    expect_one_line_error(test::run_cli("ais '" + p + "' --binarize 0.5"), "transform without data",
                          "need --data SPEC");
    expect_one_line_error(test::run_cli("ais '" + p + "' --data bars:3 --binarize 0.5"), "wrong dimension",
                          "has 9 values per example; the model has n = 64");
    expect_one_line_error(test::run_cli("ais '" + p + "' --data digits --binarize 0.5 --scale"), "two transforms",
                          "choose one of");
    json lost = read_json(trained_model());
    lost["training"]["data"] = "no-such-train.csv";
    const std::string l = test::write_temp("lost.json", lost.dump());
    expect_one_line_error(test::run_cli("ais '" + l + "'" + kAis), "recorded data missing",
                          "the model's training data (file key 'training') cannot be loaded");
    // A base other than data does not need the recorded data; sample still samples, and says why
    // there is no "data".
    const auto uni = test::run_cli("ais '" + l + "' --base uniform" + kAis);
    CHECK_MSG(uni.exit_code == 0, uni.err);
    const auto s = test::run_cli("sample '" + l + "' --chains 3 --sweeps 2");
    CHECK_MSG(s.exit_code == 0, s.err);
    if (s.exit_code == 0) {
        CHECK(!s.json().contains("data"));
        CHECK(s.json()["warnings"].size() == 1 &&
              s.json()["warnings"][0].get<std::string>().find("no-such-train.csv") != std::string::npos);
    }
}

RBM_TEST_MAIN
