// Model files are written atomically (docs/reference/model-files.md): `rbmscope-cli convert` is SIGKILLed while it
// writes a big model over an existing file; afterwards the file must be either the previous
// model, byte for byte, or the complete new one, never anything between. The kills land inside
// the write by construction, not by timing: with RBMSCOPE_TEST_WRITE_PAUSE=during-write:MS (the
// CLI's test hook, app/cli/test_hooks.hpp) the writer announces on stderr that the temporary holds
// its first 64 KiB and then sleeps (30 s here), with after-rename:MS likewise just after the
// rename; the test kills on reading the line.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "check.hpp"
#include "cli_runner.hpp"
#include "core/io/model_io.hpp"
#include "core/io/presets.hpp"

extern char** environ;

using namespace rbm;
namespace fs = std::filesystem;

namespace {

// Starts `rbmscope-cli convert in out` with stdout discarded; returns the pid. With `pause_at`
// ("during-write" or "after-rename"), the writer pauses there for 30 s (a test hook of
// write_file_atomically) and *stderr_fd is the read end of a pipe carrying its stderr.
pid_t spawn_convert(const std::string& in, const std::string& out, const char* pause_at = nullptr,
                    int* stderr_fd = nullptr) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    int pipe_fds[2] = {-1, -1};
    if (stderr_fd && ::pipe2(pipe_fds, O_CLOEXEC) == 0) {
        posix_spawn_file_actions_adddup2(&fa, pipe_fds[1], 2);
        posix_spawn_file_actions_addclose(&fa, pipe_fds[0]);
        posix_spawn_file_actions_addclose(&fa, pipe_fds[1]);
    } else {
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    }
    std::string bin = rbm::test::cli_program(), cmd = "convert";
    std::vector<char*> argv = {bin.data(), cmd.data(), const_cast<char*>(in.c_str()), const_cast<char*>(out.c_str()),
                               nullptr};
    std::vector<std::string> env_text;
    for (char** e = environ; *e; ++e)
        if (std::string(*e).rfind("RBMSCOPE_TEST_", 0) != 0) env_text.emplace_back(*e);
    if (pause_at) env_text.push_back("RBMSCOPE_TEST_WRITE_PAUSE=" + std::string(pause_at) + ":30000");
    std::vector<char*> envp;
    for (auto& e : env_text) envp.push_back(e.data());
    envp.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, bin.c_str(), &fa, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    if (pipe_fds[1] >= 0) ::close(pipe_fds[1]);
    if (stderr_fd) *stderr_fd = pipe_fds[0];
    return rc == 0 ? pid : -1;
}

// Reads the child's stderr until a line containing `needle` arrives (true) or it closes (false).
bool wait_for_line(int fd, const std::string& needle) {
    std::string seen;
    char c;
    while (::read(fd, &c, 1) == 1) {
        if (c != '\n') {
            seen += c;
            continue;
        }
        if (seen.find(needle) != std::string::npos) return true;
        seen.clear();
    }
    return false;
}

int wait_exit(pid_t pid) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

// Temporary files write_file_atomically leaves behind when killed: "<target>.tmp-<hex>".
std::vector<fs::path> leftovers(const fs::path& target) {
    std::vector<fs::path> out;
    const std::string prefix = target.filename().string() + ".tmp-";
    for (const auto& e : fs::directory_iterator(target.parent_path()))
        if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path());
    return out;
}

// A BRBM big enough that writing it takes a while (250000 weights, megabytes on disk).
Model big_model() {
    std::mt19937_64 g(11);
    std::normal_distribution<double> N(0, 0.1);
    Brbm b;
    b.W = Mat(500, 500);
    for (Index j = 0; j < b.W.cols(); ++j)
        for (Index i = 0; i < b.W.rows(); ++i) b.W(i, j) = N(g);
    b.b = Vec::Zero(500);
    b.c = Vec::Zero(500);
    Model m;
    m.params = b;
    m.name = "big";
    return m;
}

struct Tally {
    int old_file = 0, new_file = 0, killed_while_writing = 0;
};

// Where a kill lands: inside the write (after the first chunk is in the temporary), or just
// after the rename, both announced by the writer; or without a kill (the conversion finishes).
enum class Kill { DuringWrite, AfterRename, None };

// Runs `convert big -> target` over `previous` once, killed as `kill` says, and checks the
// target: byte for byte the previous file or a complete new one (which loads, CRCs and all, to
// the expected model; .npz archives carry timestamps, so bytes may differ run to run).
void one_round(Kill kill, const std::string& big, const fs::path& target, const std::string& previous,
               const std::string& expected_text, Tally& t) {
    write_file_atomically(target, previous);  // the file a user had before
    int err = -1;
    const char* pause = kill == Kill::DuringWrite   ? "during-write"
                        : kill == Kill::AfterRename ? "after-rename"
                                                    : nullptr;
    const pid_t pid = spawn_convert(big, target.string(), pause, pause ? &err : nullptr);
    CHECK(pid > 0);
    if (pid <= 0) return;
    if (kill != Kill::None) {
        const bool announced =
            wait_for_line(err, kill == Kill::DuringWrite ? "test write pause: writing" : "test write pause: renamed");
        CHECK_MSG(announced, "the writer did not announce the moment to kill");
        ::kill(pid, SIGKILL);
        ::close(err);
    }
    const int code = wait_exit(pid);
    CHECK(kill == Kill::None ? code == 0 : code == -SIGKILL);
    const auto tmp = leftovers(target);
    t.killed_while_writing += !tmp.empty();
    const std::string now = read_file(target);
    if (now == previous) {
        ++t.old_file;
        return;
    }
    std::string loaded;
    try {
        loaded = model_to_json_text(load_model(target));
    } catch (const InputError& e) {
        loaded = e.what();
    }
    if (loaded == expected_text) {
        ++t.new_file;
    } else {
        CHECK_MSG(false, target << " is neither the previous nor the new model (" << now.size() << " bytes, previous "
                                << previous.size() << "): " << loaded.substr(0, 200));
    }
}

void run_kill_test(const std::string& ext, int rounds) {
    const fs::path dir = test::temp_dir();
    const std::string big = (dir / "big.npz").string();
    if (!fs::exists(big)) save_model(big_model(), big);
    const fs::path target = dir / ("model" + ext);
    // The previous file: a small preset in the same format.
    save_model(load_preset("two-gaussians"), target);
    const std::string previous = read_file(target);
    const fs::path ref = dir / ("reference" + ext);
    CHECK(wait_exit(spawn_convert(big, ref.string())) == 0);
    const Model expected = load_model(ref);
    CHECK(fs::file_size(ref) > 1000000 && model_to_json_text(expected) == model_to_json_text(load_model(big)));
    const std::string expected_text = model_to_json_text(expected);

    // Killed inside the write: always the previous file, and the dead writer's temporary is
    // left behind (the test removes nothing: the next write must clean it up).
    Tally during;
    for (int k = 0; k < rounds; ++k) one_round(Kill::DuringWrite, big, target, previous, expected_text, during);
    std::printf("  %s: %d kills inside the write: previous file %d, new file %d, temporaries left %d\n", ext.c_str(),
                rounds, during.old_file, during.new_file, during.killed_while_writing);
    CHECK(during.old_file == rounds && during.new_file == 0);
    CHECK(during.killed_while_writing == rounds);
    // Each round's writer removed the previous round's orphan before writing: one is left.
    CHECK(leftovers(target).size() == 1);

    // Killed just after the rename: always the complete new file.
    Tally after;
    for (int k = 0; k < 3; ++k) one_round(Kill::AfterRename, big, target, previous, expected_text, after);
    CHECK(after.new_file == 3 && after.old_file == 0);

    // An uninterrupted conversion replaces the file and removes the orphaned temporary.
    Tally whole;
    one_round(Kill::None, big, target, previous, expected_text, whole);
    CHECK(whole.new_file == 1);
    CHECK(leftovers(target).empty());
}

}  // namespace

TEST_CASE("convert IN OUT writes a model that loads back identical") {
    const fs::path dir = test::temp_dir();
    const auto r = test::run_cli("convert two-gaussians '" + (dir / "tg.npz").string() + "'");
    CHECK(r.exit_code == 0);
    CHECK(r.json()["kind"] == "gaussian" && r.json()["n_visible"] == 2);
    const auto r2 = test::run_cli("convert '" + (dir / "tg.npz").string() + "' '" + (dir / "tg.json").string() + "'");
    CHECK(r2.exit_code == 0);
    CHECK(model_to_json_text(load_model(dir / "tg.json")) == model_to_json_text(load_preset("two-gaussians")));
}

TEST_CASE("convert refuses bad input with one line and exit 2, leaving the target alone") {
    const fs::path dir = test::temp_dir();
    const fs::path target = dir / "keep.json";
    save_model(load_preset("two-gaussians"), target);
    const std::string before = read_file(target);
    const auto bad =
        test::run_cli("convert '" + std::string(RBMSCOPE_TEST_DATA) + "/bad/W-ragged.json' '" + target.string() + "'");
    CHECK(bad.exit_code == 2 && bad.stderr_lines() == 1);
    CHECK(bad.err.find("row 2 has 3 numbers") != std::string::npos);
    const auto ext = test::run_cli("convert two-gaussians '" + (dir / "x.txt").string() + "'");
    CHECK(ext.exit_code == 2 && ext.err.find("expected .json or .npz") != std::string::npos);
    const auto missing = test::run_cli("convert two-gaussians");
    CHECK(missing.exit_code == 2);
    CHECK(read_file(target) == before);
    CHECK(leftovers(target).empty());
}

TEST_CASE("SIGKILL during a JSON save leaves the previous file or the complete new one") { run_kill_test(".json", 12); }

TEST_CASE("SIGKILL during an .npz save leaves the previous file or the complete new one") { run_kill_test(".npz", 12); }

TEST_CASE("a temporary of a live writer, or of another name, is never removed") {
    const fs::path dir = test::temp_dir() / "live";
    fs::create_directories(dir);
    const fs::path target = dir / "m.json";
    // Not our pattern (other target, wrong length, not hex): kept whatever their age.
    for (const char* name : {"m.json.tmp-0123", "other.json.tmp-0123456789abcdef", "m.json.tmp-0123456789abcdeX"})
        write_file_atomically(dir / name, "x");
    // Our pattern but locked by a live writer (this process holds the lock): kept.
    const fs::path live = dir / "m.json.tmp-00000000000000aa";
    { std::ofstream(live) << "partial"; }
    const int fd = ::open(live.c_str(), O_RDONLY);
    CHECK(fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) == 0);
    // Our pattern, unlocked, older than the writing process: an orphan, removed.
    const fs::path orphan = dir / "m.json.tmp-00000000000000bb";
    { std::ofstream(orphan) << "partial"; }
    const auto r = test::run_cli("convert two-gaussians '" + target.string() + "'");
    CHECK(r.exit_code == 0);
    CHECK(fs::exists(live) && !fs::exists(orphan));
    for (const char* name : {"m.json.tmp-0123", "other.json.tmp-0123456789abcdef", "m.json.tmp-0123456789abcdeX"})
        CHECK(fs::exists(dir / name));
    ::close(fd);
}

RBM_TEST_MAIN
