// `rbmscope-cli info --cpu` and RBMSCOPE_SIMD: the path in use is named, every path
// the processor runs can be forced and is then the one used, and a bad or unsupported name is
// refused with exit 2 and one line naming the variable.
#include <string>

#include "../core/check.hpp"
#include "cli_runner.hpp"

using namespace rbm;
using nlohmann::json;

TEST_CASE("info --cpu names the best supported path by default") {
    const auto r = test::run_shell(std::string("env -u RBMSCOPE_SIMD '") + rbm::test::cli_program() + "' info --cpu");
    CHECK(r.exit_code == 0);
    const json j = json::parse(r.out);
    CHECK(j["simd_path"] == j["simd_supported"].back());
    CHECK(j["forced_by"] == "");
    CHECK(j["cpu_features"].get<std::string>().rfind("sse2", 0) == 0);
}

TEST_CASE("RBMSCOPE_SIMD forces each supported path") {
    const json all = json::parse(test::run_cli("info --cpu").out);
    const std::string bench =
        "' bench --case brbm-784x500 --precision float32 --quick --chains 40 --steps 3 --repeats 1";
    const auto best = test::run_shell("env -u RBMSCOPE_SIMD '" + std::string(rbm::test::cli_program()) + bench);
    CHECK(best.exit_code == 0);
    for (const auto& p : all["simd_supported"]) {
        const std::string name = p.get<std::string>();
        const auto r = test::run_shell("RBMSCOPE_SIMD=" + name + " '" + rbm::test::cli_program() + "' info --cpu");
        CHECK(r.exit_code == 0);
        CHECK(json::parse(r.out)["simd_path"] == name);
        // And a run uses it, with the same numbers as the best path (the BRBM step is bitwise the same).
        const auto a = test::run_shell("RBMSCOPE_SIMD=" + name + " '" + rbm::test::cli_program() + bench);
        CHECK(a.exit_code == 0);
        CHECK(a.json()["simd_path"] == name);
        CHECK(a.json()["cases"][0]["log_z"] == best.json()["cases"][0]["log_z"]);
    }
    for (const std::string p : {"sse2", "avx2", "avx512"}) {
        bool have = false;
        for (const auto& q : all["simd_supported"]) have = have || q == p;
        if (!have) {
            const auto r = test::run_shell("RBMSCOPE_SIMD=" + p + " '" + rbm::test::cli_program() + "' info --cpu");
            CHECK(r.exit_code == 2);
            CHECK(r.err.find("RBMSCOPE_SIMD: this processor cannot run '" + p + "'") != std::string::npos);
        } else {
            std::printf("  (cannot test the refusal of %s: this processor has it)\n", p.c_str());
        }
    }
}

TEST_CASE("a bad RBMSCOPE_SIMD is refused before any work") {
    const auto r =
        test::run_shell(std::string("RBMSCOPE_SIMD=avx3 '") + rbm::test::cli_program() + "' exact four-mode");
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find("RBMSCOPE_SIMD: unknown instruction set 'avx3' (expected sse2, avx2 or avx512)") !=
          std::string::npos);
}

RBM_TEST_MAIN
