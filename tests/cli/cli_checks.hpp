#pragma once
// Checks the CLI suites share: a command that must succeed, and one that must fail as the
// contract says (exit 2, one line on stderr naming the problem, nothing on stdout).
#include <string>

#include <nlohmann/json.hpp>

#include "../core/check.hpp"
#include "cli_runner.hpp"

namespace rbm::test {

// Runs `rbmscope-cli ARGS`; a failure is a check failure, and the result an empty object.
inline nlohmann::json run_ok(const std::string& args) {
    const CliResult r = run_cli(args);
    CHECK_MSG(r.exit_code == 0, args << ": exit " << r.exit_code << ": " << r.err);
    return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

inline void expect_one_line_error(const CliResult& r, const char* what, const char* fragment) {
    CHECK_MSG(r.exit_code == 2, what << ": exit " << r.exit_code << " stderr '" << r.err << "'");
    CHECK_MSG(r.stderr_lines() == 1, what << ": stderr '" << r.err << "'");
    CHECK_MSG(r.out.empty(), what << ": stdout '" << r.out << "'");
    CHECK_MSG(r.err.find(fragment) != std::string::npos,
              what << ": stderr '" << r.err << "' lacks '" << fragment << "'");
}

}  // namespace rbm::test
