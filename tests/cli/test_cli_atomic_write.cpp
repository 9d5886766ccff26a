// Model files are written atomically (SPEC §8): `rbmscope-cli convert` is SIGKILLed at random
// moments while it writes a big model over an existing file; afterwards the file must be
// either the previous model, byte for byte, or the complete new one, never anything between.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <thread>

#include "check.hpp"
#include "cli_runner.hpp"
#include "core/io/model_io.hpp"
#include "core/io/presets.hpp"

extern char** environ;

using namespace rbm;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// Starts `rbmscope-cli convert in out` with its output discarded; returns the pid.
pid_t spawn_convert(const std::string& in, const std::string& out) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    std::string bin = RBMSCOPE_CLI, cmd = "convert";
    std::vector<char*> argv = {bin.data(), cmd.data(), const_cast<char*>(in.c_str()), const_cast<char*>(out.c_str()),
                               nullptr};
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, bin.c_str(), &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    return rc == 0 ? pid : -1;
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

// Waits until the writer has created its temporary file (or `limit` seconds passed).
void wait_for_temporary(const fs::path& target, double limit) {
    const auto t0 = Clock::now();
    while (leftovers(target).empty() && std::chrono::duration<double>(Clock::now() - t0).count() < limit) {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
}

// Kills `convert big -> target` `rounds` times: even rounds at a uniform moment in
// [0, 1.1 x its run time], odd rounds within a few milliseconds after the temporary file
// appears, i.e. while the bytes are being written (a uniform moment rarely lands there).
Tally kill_during_writes(const std::string& big, const fs::path& target, const std::string& previous,
                         const Model& expected, double seconds, int rounds, std::uint64_t seed) {
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> when(0, 1.1 * seconds), soon(0, 0.004);
    const std::string expected_text = model_to_json_text(expected);
    Tally t;
    for (int k = 0; k < rounds; ++k) {
        write_file_atomically(target, previous);  // the file a user had before
        const pid_t pid = spawn_convert(big, target.string());
        CHECK(pid > 0);
        if (pid <= 0) return t;
        if (k % 2 == 0) {
            std::this_thread::sleep_for(std::chrono::duration<double>(when(g)));
        } else {
            wait_for_temporary(target, 3 * seconds);
            std::this_thread::sleep_for(std::chrono::duration<double>(soon(g)));
        }
        ::kill(pid, SIGKILL);
        wait_exit(pid);
        const auto tmp = leftovers(target);
        t.killed_while_writing += !tmp.empty();
        for (const auto& p : tmp) fs::remove(p);
        // Byte for byte the previous file, or a complete new file (which loads, CRCs and all, to
        // the expected model; .npz archives carry timestamps, so bytes may differ run to run).
        const std::string now = read_file(target);
        if (now == previous) {
            ++t.old_file;
            continue;
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
            CHECK_MSG(false, "round " << k << ": " << target << " is neither the previous nor the new model ("
                                      << now.size() << " bytes, previous " << previous.size() << "): "
                                      << loaded.substr(0, 200));
            return t;
        }
    }
    return t;
}

void run_kill_test(const std::string& ext, int rounds, std::uint64_t seed) {
    const fs::path dir = test::temp_dir();
    const std::string big = (dir / "big.npz").string();
    if (!fs::exists(big)) save_model(big_model(), big);
    const fs::path target = dir / ("model" + ext);
    // The previous file: a small preset in the same format.
    save_model(load_preset("two-gaussians"), target);
    const std::string previous = read_file(target);
    // The complete new file, and how long a conversion takes here.
    const fs::path ref = dir / ("reference" + ext);
    const auto t0 = Clock::now();
    const pid_t pid = spawn_convert(big, ref.string());
    CHECK(pid > 0 && wait_exit(pid) == 0);
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    const Model expected = load_model(ref);
    CHECK(fs::file_size(ref) > 1000000 && model_to_json_text(expected) == model_to_json_text(load_model(big)));
    const Tally t = kill_during_writes(big, target, previous, expected, seconds, rounds, seed);
    std::printf("  %s: convert takes %.3f s; %d kills: previous file %d, new file %d, killed while writing %d\n",
                ext.c_str(), seconds, rounds, t.old_file, t.new_file, t.killed_while_writing);
    CHECK(t.old_file + t.new_file == rounds);
    // The kills must have hit the dangerous window (temporary file being written), or this test
    // proved nothing. Whether some kill lands after the rename depends on the machine's load, so
    // the "new file" outcome is checked by the uninterrupted conversion below instead.
    CHECK_MSG(t.killed_while_writing >= rounds / 4, "only " << t.killed_while_writing << " kills during the write");
    CHECK(t.old_file > 0);
    // An uninterrupted conversion replaces the file, keeping nothing behind.
    write_file_atomically(target, previous);
    CHECK(wait_exit(spawn_convert(big, target.string())) == 0);
    CHECK(model_to_json_text(load_model(target)) == model_to_json_text(expected));
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
    const auto bad = test::run_cli("convert '" + std::string(RBMSCOPE_TEST_DATA) + "/bad/W-ragged.json' '" +
                                   target.string() + "'");
    CHECK(bad.exit_code == 2 && bad.stderr_lines() == 1);
    CHECK(bad.err.find("row 2 has 3 numbers") != std::string::npos);
    const auto ext = test::run_cli("convert two-gaussians '" + (dir / "x.txt").string() + "'");
    CHECK(ext.exit_code == 2 && ext.err.find("expected .json or .npz") != std::string::npos);
    const auto missing = test::run_cli("convert two-gaussians");
    CHECK(missing.exit_code == 2);
    CHECK(read_file(target) == before);
    CHECK(leftovers(target).empty());
}

TEST_CASE("SIGKILL during a JSON save leaves the previous file or the complete new one") { run_kill_test(".json", 24, 1); }

TEST_CASE("SIGKILL during an .npz save leaves the previous file or the complete new one") { run_kill_test(".npz", 24, 2); }

RBM_TEST_MAIN
