#pragma once
// Running rbmscope-cli under mpirun from the MPI suites (test_cli_mpi*.cpp, built only with MPI):
// Open MPI with --oversubscribe (the CI machine has two cores), and the JSON without the fields
// that are measured or record the command line.
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"

namespace rbm::test::mpi {

using rbm::test::run_shell;

inline const std::string kCli = std::string("'") + rbm::test::cli_program() + "' ";

// Under AddressSanitizer (scripts/sanitize.sh) leak checking is off for processes that
// initialise MPI: Open MPI's plugins leak at MPI_Finalize and are unloaded before LeakSanitizer
// can name them, so no suppression file can single them out. Memory errors are still reported.
inline std::string mpi_env() {
    return std::getenv("ASAN_OPTIONS") ? "ASAN_OPTIONS=\"$ASAN_OPTIONS:detect_leaks=0\" " : "";
}

// `exec`: the shell replaces itself with mpirun (so the shell's pid is mpirun's).
inline std::string mpirun(int ranks, bool exec = false) {
    return mpi_env() + (exec ? "exec " : "") + RBMSCOPE_MPIEXEC + " --oversubscribe -np " + std::to_string(ranks) +
           " " + kCli;
}

// The output without its measured fields (docs/user/cli.md: seconds, *_per_s, ranks, threads) and the
// command line it records (argv, command_line: the two runs differ in --threads).
inline nlohmann::json untimed(nlohmann::json j) {
    if (j.is_object()) {
        nlohmann::json out = nlohmann::json::object();
        for (auto it = j.begin(); it != j.end(); ++it) {
            const std::string& k = it.key();
            // monitor_share (train's timing): a ratio of two measured times, so it varies like them.
            if (k == "seconds" || k == "ranks" || k == "threads" || k == "mpi" || k == "argv" || k == "command_line" ||
                k == "monitor_share" || (k.size() > 6 && k.compare(k.size() - 6, 6, "_per_s") == 0))
                continue;
            out[k] = untimed(it.value());
        }
        return out;
    }
    if (j.is_array()) {
        nlohmann::json out = nlohmann::json::array();
        for (const nlohmann::json& x : j) out.push_back(untimed(x));
        return out;
    }
    return j;
}

inline std::string quoted(const std::string& path) {
    std::string q(1, '\'');
    q.append(path).push_back('\'');
    return q;
}

}  // namespace rbm::test::mpi
