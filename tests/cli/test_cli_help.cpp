// rbmscope-cli helps a new user: "did you mean" for a mistyped command or option, `help COMMAND`,
// an option given twice refused, one "rbmscope-cli:" prefix on errors, the overview's summaries in
// one column, and `--version` naming the build (version, commit, compiler, SIMD paths), which
// every result also records as "build".
#include <sstream>
#include <string>

#include "../core/check.hpp"
#include "cli_runner.hpp"

using namespace rbm;
using nlohmann::json;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

void expect_refused(const test::CliResult& r, const std::string& args, const std::string& part) {
    CHECK_MSG(r.exit_code == 2, args << ": exit " << r.exit_code);
    CHECK_MSG(r.stderr_lines() == 1, args << ": stderr '" << r.err << "'");
    CHECK_MSG(r.out.empty(), args << ": stdout '" << r.out << "'");
    CHECK_MSG(contains(r.err, part), args << ": '" << r.err << "' lacks '" << part << "'");
}

}  // namespace

TEST_CASE("a mistyped command or option gets the closest name; a far one gets none") {
    struct Case {
        const char *args, *says;
    };
    for (const Case& c : {Case{"trian four-mode", "unknown command 'trian' (did you mean 'train'?)"},
                          Case{"ais four-mode --step 10", "unknown option --step (did you mean '--steps'?)"},
                          Case{"train --data bars:3 --hiden 4", "unknown option --hiden (did you mean '--hidden'?)"},
                          Case{"exatc four-mode", "(did you mean 'exact'?)"},
                          Case{"frobnicate four-mode", "unknown command 'frobnicate' (run rbmscope-cli --help"},
                          Case{"ais four-mode --zzzzzzzz 1", "unknown option --zzzzzzzz (see --help)"}})
        expect_refused(test::run_cli(c.args), c.args, c.says);
}

TEST_CASE("errors carry one prefix") {
    const auto r = test::run_cli("ais four-mode --step 10");
    CHECK_MSG(r.err.rfind("rbmscope-cli: ais: unknown option", 0) == 0, r.err);
    CHECK_MSG(!contains(r.err, "rbmscope-cli: rbmscope-cli"), r.err);
    const auto missing = test::run_cli("exact");
    CHECK_MSG(missing.err.rfind("rbmscope-cli: exact: missing MODEL", 0) == 0, missing.err);
}

TEST_CASE("an option given twice is refused, not silently replaced") {
    expect_refused(test::run_cli("ais four-mode --steps 10 --steps 20"), "--steps twice",
                   "ais: --steps is given twice");
    expect_refused(test::run_cli("ais four-mode --steps=10 --seed 1 --steps 20"), "--steps= then --steps",
                   "--steps is given twice");
    const auto once = test::run_cli("ais four-mode --steps 10 --chains 20 --seed 1");
    CHECK_MSG(once.exit_code == 0, once.err);
}

TEST_CASE("help COMMAND prints that command's usage, as COMMAND --help does") {
    const auto help = test::run_cli("help train"), dash = test::run_cli("train --help");
    CHECK_MSG(help.exit_code == 0, help.err);
    CHECK(help.out == dash.out);
    CHECK_MSG(help.out.rfind("usage: rbmscope-cli train", 0) == 0, help.out.substr(0, 80));
    const auto overview = test::run_cli("help");
    CHECK(overview.exit_code == 0 && contains(overview.out, "commands:"));
    expect_refused(test::run_cli("help trian"), "help trian", "(did you mean 'train'?)");
}

TEST_CASE("the overview lists every command with its summary in one column") {
    const auto r = test::run_cli("--help");
    CHECK(r.exit_code == 0);
    std::istringstream in(r.out);
    std::string line;
    bool listing = false;
    int rows = 0;
    std::size_t column = 0;
    while (std::getline(in, line)) {
        if (line == "commands:") {
            listing = true;
            continue;
        }
        if (!listing) continue;
        if (line.empty()) break;
        // "  NAME<at least two spaces>SUMMARY", every summary starting in the same column
        const std::size_t name_end = line.find(' ', 2);
        CHECK_MSG(name_end != std::string::npos && line.compare(name_end, 2, "  ") == 0, "row '" << line << "'");
        if (name_end == std::string::npos) continue;
        const std::size_t summary = line.find_first_not_of(' ', name_end);
        if (rows++ == 0) column = summary;
        CHECK_MSG(summary == column, "row '" << line << "' starts its summary at " << summary << ", not " << column);
    }
    CHECK_MSG(rows >= 10, rows << " commands listed");
}

TEST_CASE("--version names the version, the commit, the compiler and the SIMD paths") {
    const auto r = test::run_cli("--version");
    CHECK_MSG(r.exit_code == 0, r.err);
    CHECK_MSG(r.out.rfind("rbmscope-cli 0.", 0) == 0, r.out);
    for (const char* part : {"(commit ", "built with ", "SIMD paths built: ", "selected: "})
        CHECK_MSG(contains(r.out, part), "'" << r.out << "' lacks '" << part << "'");
    // Forced to SSE2 (every x86-64 runs it), the version and every result say so.
    const auto forced = test::run_shell(std::string("RBMSCOPE_SIMD=sse2 '") + rbm::test::cli_program() + "' --version");
    CHECK_MSG(contains(forced.out, "selected: sse2"), forced.out);
    const auto result =
        test::run_shell(std::string("RBMSCOPE_SIMD=sse2 '") + rbm::test::cli_program() + "' exact four-mode");
    CHECK_MSG(result.exit_code == 0, result.err);
    if (result.exit_code != 0) return;
    const json build = result.json().at("build");
    CHECK(build.at("simd") == "sse2");
    CHECK(build.at("version").get<std::string>().rfind("0.", 0) == 0);
    CHECK(!build.at("commit").get<std::string>().empty());
    CHECK(build.at("simd_built").is_array() && !build.at("simd_built").empty());
    CHECK(contains(r.out, "(commit " + build.at("commit").get<std::string>() + ")"));
}

RBM_TEST_MAIN
