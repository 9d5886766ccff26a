#pragma once
// Runs the real rbmscope-cli binary for CLI tests: exit code, stdout, stderr.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace rbm::test {

struct CliResult {
    int exit_code = -1;
    std::string out, err;
    nlohmann::json json() const { return nlohmann::json::parse(out); }
    int stderr_lines() const {
        int n = 0;
        for (char c : err) n += c == '\n';
        return n;
    }
};

// A scratch directory per test process, removed when the process exits.
inline std::filesystem::path temp_dir() {
    struct Scratch {
        std::filesystem::path dir =
            std::filesystem::temp_directory_path() / ("rbmscope-cli-test-" + std::to_string(::getpid()));
        Scratch() { std::filesystem::create_directories(dir); }
        ~Scratch() {
            std::error_code ec;
            std::filesystem::remove_all(dir, ec);
        }
    };
    static const Scratch scratch;
    return scratch.dir;
}

// Runs a shell command line (stdout captured, stderr through a temporary file).
inline CliResult run_shell(const std::string& command) {
    const auto err_path = temp_dir() / "stderr.txt";
    const std::string cmd = command + " 2>'" + err_path.string() + "'";
    CliResult r;
    FILE* p = ::popen(cmd.c_str(), "r");
    if (!p) return r;
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
    const int status = ::pclose(p);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream e(err_path);
    std::stringstream ss;
    ss << e.rdbuf();
    r.err = ss.str();
    return r;
}

// The program under test: $RBMSCOPE_CLI_UNDER_TEST when set (scripts/sanitize.sh runs these
// Release-built drivers against the instrumented build's rbmscope-cli: they only start it), else
// the one built beside this suite.
inline const char* cli_program() {
    static const char* const path = [] {
        const char* e = std::getenv("RBMSCOPE_CLI_UNDER_TEST");
        return e && *e ? e : RBMSCOPE_CLI_BUILT;
    }();
    return path;
}

// args is appended to the binary path as is (quote paths yourself if they contain spaces).
inline CliResult run_cli(const std::string& args) { return run_shell(std::string("'") + cli_program() + "' " + args); }

// A result without the keys saying how it was made ("model_file", "argv", "command_line", and
// "build", which records the threads), for comparing the results of two command lines (e.g.
// --threads 1 and 2) that must agree.
inline nlohmann::json without_provenance(nlohmann::json j) {
    for (const char* k : {"model_file", "argv", "command_line", "build"}) j.erase(k);
    return j;
}

inline std::string write_temp(const std::string& name, const std::string& text) {
    const auto path = temp_dir() / name;
    std::ofstream(path) << text;
    return path.string();
}

}  // namespace rbm::test
