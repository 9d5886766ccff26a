// Cluster runs: `mpirun -np R rbmscope-cli ais|ais-sweep|pt ...` prints what the
// single-process run prints, timing fields aside ("mpi" too: the bytes sent), at 1-4 ranks, for
// every AIS path and PT scheme; SIGINT to mpirun gives the partial result at exit 130; a sweep
// whose rank is killed resumes from its checkpoint at another rank count with the uninterrupted
// output; too many ranks is bad input; a dead rank ends the job instead of hanging it.
// Runs Open MPI with --oversubscribe (the CI machine has two cores) and as root where CI is root.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <tuple>

#include "../core/check.hpp"
#include "cli_runner.hpp"
#include "mpi_runner.hpp"

using namespace rbm;
using namespace rbm::test::mpi;
using nlohmann::json;

namespace {

// `args` at one process with 2 threads and at `ranks` ranks with 1 thread each: same JSON.
void expect_same(const std::string& args, int ranks) {
    const auto one = test::run_cli(args + " --threads 2");
    const auto many = run_shell(mpirun(ranks) + args + " --threads 1");
    CHECK_MSG(one.exit_code == 0, args << ": " << one.err);
    CHECK_MSG(many.exit_code == 0, args << " at " << ranks << " ranks: exit " << many.exit_code << " " << many.err);
    if (one.exit_code != 0 || many.exit_code != 0) return;
    const json a = untimed(one.json()), b = untimed(many.json());
    std::string differs;
    for (auto it = a.begin(); it != a.end(); ++it)
        if (!b.contains(it.key()) || b[it.key()] != it.value()) differs += " " + it.key();
    CHECK_MSG(a == b, args << " at " << ranks << " ranks differs in" << differs);
    CHECK_MSG(many.err.empty(), args << " at " << ranks << " ranks wrote to stderr: " << many.err);
}

// A small BRBM (8 visible, 6 hidden: exact log Z in no time on every rank) and data for it.
std::string small_brbm() {
    json W = json::array();
    for (int i = 0; i < 8; ++i) {
        json row = json::array();
        for (int j = 0; j < 6; ++j) row.push_back(1.5 * std::sin(1.0 + 7.0 * i + 3.0 * j));
        W.push_back(row);
    }
    const json m{{"format", "rbmscope-model"},
                 {"version", 1},
                 {"kind", "brbm"},
                 {"W", W},
                 {"b", {-0.5, 0.2, 0.1, -0.3, 0.4, 0.0, -0.2, 0.3}},
                 {"c", {0.1, -0.4, 0.2, 0.0, -0.1, 0.3}}};
    return quoted(test::write_temp("brbm8x6.json", m.dump()));
}
// An n x m BRBM with small weights (for sizes only).
std::string brbm_of_size(int n, int m) {
    json W = json::array();
    for (int i = 0; i < n; ++i) {
        json row = json::array();
        for (int j = 0; j < m; ++j) row.push_back(0.05 * std::sin(1.0 + 7.0 * i + 3.0 * j));
        W.push_back(row);
    }
    const json model{{"format", "rbmscope-model"},
                     {"version", 1},
                     {"kind", "brbm"},
                     {"W", W},
                     {"b", std::vector<double>(static_cast<std::size_t>(n), 0.1)},
                     {"c", std::vector<double>(static_cast<std::size_t>(m), -0.1)}};
    return quoted(test::write_temp("brbm" + std::to_string(n) + "x" + std::to_string(m) + ".json", model.dump()));
}
std::string brbm_data() {
    std::string text;
    for (int row = 0; row < 6; ++row) {
        for (int i = 0; i < 8; ++i) text += std::string(i ? "," : "") + (((i + row) % 3 == 0) ? "1" : "0");
        text += "\n";
    }
    return quoted(test::write_temp("brbm8.csv", text));
}

// 256 chains make four blocks of 64, so 4 ranks each hold one and 3 ranks hold 1, 1 and 2.
const std::string kRun = " --steps 40 --chains 256 --seed 7 --checkpoints 4 --log-weights";

}  // namespace

TEST_CASE("ais: geometric paths with every base, 1-4 ranks") {
    expect_same("ais four-mode --base moment" + kRun, 2);
    expect_same("ais four-mode --base sigma" + kRun, 3);
    expect_same("ais " + small_brbm() + " --base uniform --reverse" + kRun, 3);
    expect_same("ais " + small_brbm() + " --base data --data " + brbm_data() + kRun, 1);
}

TEST_CASE("ais: cov, moments (MAS knots from Gibbs target moments on every rank), leaky, energy") {
    expect_same("ais four-mode --path cov" + kRun, 4);
    expect_same("ais four-mode --path moments --moments gibbs --moment-steps 300" + kRun, 3);
    expect_same("ais leaky-2d --path leaky" + kRun, 2);
    expect_same("ais leaky-2d --path energy" + kRun, 4);
}

TEST_CASE("ais: --reverse, --perfect, --precision float32") {
    expect_same("ais four-mode --reverse" + kRun, 4);
    expect_same("ais four-mode --perfect" + kRun, 2);
    expect_same("ais " + small_brbm() + " --base moment --precision float32" + kRun, 4);
}

TEST_CASE("ais-sweep: json and csv at 2 and 3 ranks") {
    const std::string sweep =
        "ais-sweep four-mode --methods geometric:moment,cov --steps 5,20 --chains 200 --repeats 2 --seed 4";
    expect_same(sweep, 2);
    const auto one = test::run_cli(sweep + " --format csv --reverse");
    const auto three = run_shell(mpirun(3) + sweep + " --format csv --reverse");
    CHECK_MSG(one.exit_code == 0 && three.exit_code == 0, one.err << three.err);
    // The last CSV column is the measured seconds.
    auto drop_seconds = [](const std::string& csv) {
        std::string out, line;
        std::istringstream in(csv);
        while (std::getline(in, line)) out += line.substr(0, line.rfind(',')) + "\n";
        return out;
    };
    CHECK_MSG(drop_seconds(one.out) == drop_seconds(three.out), one.out << "\n" << three.out);
}

TEST_CASE(
    "ais-sweep: a rank SIGKILLed mid-sweep; the job ends; resumed at another rank count it gives the uninterrupted "
    "output") {
    const std::string sweep =
        "ais-sweep four-mode --methods geometric:moment,cov --steps 5,20 --chains 200 --repeats 2 --seed 9";
    const auto whole = test::run_cli(sweep);
    CHECK_MSG(whole.exit_code == 0, whole.err);
    const std::string ck = (test::temp_dir() / "sweep.ck").string();
    std::filesystem::remove(ck);
    // Rank 0 sleeps after its first checkpoint (test hook), so the kill lands mid-sweep by construction.
    const pid_t job = ::fork();
    if (job == 0) {
        ::setenv("RBMSCOPE_TEST_PAUSE_AFTER_CHECKPOINT", "120", 1);
        const std::string cmd = mpirun(3, true) + sweep + " --threads 1 --checkpoint '" + ck + "' >/dev/null 2>'" +
                                (test::temp_dir() / "killed.err").string() + "'";
        ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto waited_s = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    while (!std::filesystem::exists(ck) && waited_s() < 60) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    CHECK_MSG(std::filesystem::exists(ck), "no checkpoint within 60 s");
    // Rank 1: the child of mpirun whose environment says OMPI_COMM_WORLD_RANK=1.
    pid_t victim = -1;
    for (const auto& e : std::filesystem::directory_iterator("/proc")) {
        const std::string name = e.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream stat(e.path() / "stat");
        std::string pid, comm, state;
        long long ppid = 0;
        if (!(stat >> pid >> comm >> state >> ppid) || ppid != job) continue;
        std::ifstream env(e.path() / "environ");
        std::string all((std::istreambuf_iterator<char>(env)), std::istreambuf_iterator<char>());
        if (all.find(std::string("OMPI_COMM_WORLD_RANK=1") + '\0') != std::string::npos) victim = std::stoi(name);
    }
    CHECK_MSG(victim > 0, "rank 1 of mpirun " << job << " not found");
    if (victim > 0) ::kill(victim, SIGKILL);
    const double killed_at = waited_s();
    // mpirun notices the dead rank and ends the others; never a hang.
    int status = 0;
    pid_t done = 0;
    while ((done = ::waitpid(job, &status, WNOHANG)) == 0 && waited_s() < 90)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (done == 0) {
        ::kill(job, SIGKILL);
        ::waitpid(job, &status, 0);
    }
    CHECK_MSG(done == job, "mpirun still running 90 s after a rank was killed");
    // What docs/user/cluster.md quotes (scripts/measured_figures.sh mpi-kill-rank): mpirun's
    // message, its exit status and when it ended (a timing: not asserted beyond the 90 s above).
    std::ifstream said((test::temp_dir() / "killed.err").string());
    for (std::string line; std::getline(said, line);)
        if (line.find("noticed") != std::string::npos) std::printf("  mpirun said: %s\n", line.c_str());
    std::printf("  mpirun ended %.2f s after rank 1's SIGKILL, exit status %d\n", waited_s() - killed_at,
                WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    CHECK_MSG(!(WIFEXITED(status) && WEXITSTATUS(status) == 0), "a killed job exited 0");
    std::ifstream in(ck);
    const json ckj = json::parse(in);
    CHECK_MSG(!ckj["runs"].empty() && ckj["runs"].size() < 8,
              "checkpoint holds " << ckj["runs"].size() << " of 8 runs");

    const auto resumed = run_shell(mpirun(2) + sweep + " --threads 1 --resume '" + ck + "'");
    CHECK_MSG(resumed.exit_code == 0, resumed.err);
    if (whole.exit_code == 0 && resumed.exit_code == 0) CHECK(untimed(whole.json()) == untimed(resumed.json()));
}

TEST_CASE("bad input: more ranks than chains, or than chain blocks: one message from rank 0, exit 2") {
    auto expect_message = [](const test::CliResult& r, const std::string& fragment) {
        CHECK_MSG(r.exit_code == 2, "exit " << r.exit_code << " " << r.err);
        CHECK_MSG(r.out.empty(), r.out);
        std::size_t lines = 0, at = 0;
        while ((at = r.err.find("rbmscope-cli: ", at)) != std::string::npos) ++lines, ++at;
        CHECK_MSG(lines == 1, "expected one message, stderr: " << r.err);
        CHECK_MSG(r.err.find(fragment) != std::string::npos, "stderr lacks '" << fragment << "': " << r.err);
    };
    expect_message(run_shell(mpirun(3) + "ais four-mode --chains 2 --steps 5"), "more ranks than the 2 AIS chains");
    expect_message(run_shell(mpirun(3) + "ais four-mode --chains 100 --steps 5"), "100 chains make 2 block(s) of 64");
    // Bad input found before any chain runs still reaches every rank the same way.
    expect_message(run_shell(mpirun(2) + "ais four-mode --path nosuch"), "--path");
}

// PT: the ranks share the slots (7 replicas: 4 ranks own 1-2 slots each); swaps move rungs between
// slots, so every scheme's decisions, statistics and round trips must match one process.
const std::string kPt = " --chains 6 --sweeps 200 --seed 5";

TEST_CASE("pt: every scheme, adaptive ladder and trajectory at 1-4 ranks") {
    expect_same("pt four-mode --scheme deo" + kPt, 2);
    expect_same("pt " + small_brbm() + " --scheme reversible" + kPt, 3);
    expect_same("pt leaky-2d --scheme single" + kPt, 4);
    expect_same("pt " + small_brbm() + " --scheme lifted" + kPt, 4);
    expect_same("pt four-mode --scheme deo --adaptive 2 --ladder linear --replicas 5" + kPt, 3);
    expect_same("pt four-mode --scheme reversible" + kPt, 1);
    // The trajectory (the replica index process) is written by rank 0 and is the same file.
    const std::string one = (test::temp_dir() / "traj1.csv").string(),
                      three = (test::temp_dir() / "traj3.csv").string();
    const auto a = test::run_cli("pt " + small_brbm() + " --scheme deo --trajectory '" + one + "'" + kPt);
    const auto b = run_shell(mpirun(3) + "pt " + small_brbm() + " --scheme deo --trajectory '" + three + "'" + kPt);
    CHECK_MSG(a.exit_code == 0 && b.exit_code == 0, a.err << b.err);
    std::ifstream fa(one), fb(three);
    const std::string ta((std::istreambuf_iterator<char>(fa)), {}), tb((std::istreambuf_iterator<char>(fb)), {});
    CHECK_MSG(!ta.empty() && ta == tb, "trajectories differ");
}

TEST_CASE("pt: bytes per scan are the potentials alone, whatever the model's size; they grow only with the replicas") {
    // 2 ranks, C chains, 7 rungs (ranks own 3 and 4 slots): rank q sends 4 + 8 (C K_q + 1) bytes
    // to the other per scan (potentials, stop flag, count). C = 6: 4 + 8 x 19 + 4 + 8 x 25 = 360;
    // C = 12: 4 + 8 x 37 + 4 + 8 x 49 = 696. Swaps move rungs, never states: the 2-d GRBM, the
    // 8x6 BRBM and a 300x200 BRBM send the same bytes, and every byte sent is a potential's.
    for (const std::string& model : {std::string("four-mode"), small_brbm(), brbm_of_size(300, 200)})
        for (const auto& [chains, expected, scheme] : {std::tuple<int, double, std::string>{6, 360.0, "deo"},
                                                       std::tuple<int, double, std::string>{12, 696.0, "lifted"}}) {
            const std::string args = "pt " + model + " --scheme " + scheme + " --chains " + std::to_string(chains) +
                                     " --sweeps 200 --seed 5";
            const auto r = run_shell(mpirun(2) + args);
            CHECK_MSG(r.exit_code == 0, r.err);
            if (r.exit_code != 0) continue;
            const json j = r.json();
            CHECK_MSG(j.contains("mpi") && j["mpi"]["potential_bytes_per_scan"].get<double>() == expected,
                      args << ": " << j.dump());
            CHECK_MSG(j["mpi"]["bytes_sent_per_scan"].get<double>() == expected, args << ": " << j["mpi"].dump());
            CHECK_MSG(!j["mpi"].contains("state_bytes_per_scan"), j["mpi"].dump());
            double accepted = 0;
            for (const auto& a : j["swaps_accepted"]) accepted += a.get<double>();
            CHECK_MSG(accepted > 0, args << ": no swap accepted, so no rung moved between the ranks' slots");
            CHECK(j["mpi"]["ranks"] == 2);
        }
    // And the big model's result is still that of one process.
    expect_same("pt " + brbm_of_size(300, 200) + " --scheme deo" + kPt, 2);
}

TEST_CASE("pt: more ranks than replicas: one message, exit 2") {
    const auto r = run_shell(mpirun(3) + "pt four-mode --replicas 2 --sweeps 10");
    CHECK_MSG(r.exit_code == 2, "exit " << r.exit_code << " " << r.err);
    CHECK_MSG(r.out.empty(), r.out);
    CHECK_MSG(r.err.find("more ranks than the 2 replicas") != std::string::npos, r.err);
}

// Ctrl-C on mpirun: Open MPI's mpirun sends every rank SIGTERM (SIGKILL a few seconds later), the
// ranks agree to stop after the same step or scan, rank 0 prints the partial result and exits 130
// (mpirun itself then exits 1).
// The signal is sent once rank 0's progress line shows the run under way (so it lands mid-run).
// Returns rank 0's partial result (null when stdout is not one JSON object).
json expect_partial_after_sigint(const std::string& args, const char* done_key) {
    const std::string out = (test::temp_dir() / "sigint.out").string(),
                      err = (test::temp_dir() / "sigint.err").string();
    std::filesystem::remove(err);
    const pid_t job = ::fork();
    if (job == 0) {
        const std::string cmd = mpirun(2, true) + args + " --threads 1 --progress jsonl >'" + out + "' 2>'" + err + "'";
        ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto waited_s = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    auto started = [&] {
        std::ifstream in(err);
        for (std::string line; std::getline(in, line);) {
            const json j = json::parse(line, nullptr, false);
            if (j.is_object() && j.contains(done_key) && j[done_key].is_number() && j[done_key].get<double>() > 0)
                return true;
        }
        return false;
    };
    while (!started() && waited_s() < 60) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    CHECK_MSG(started(), args << ": no progress line with " << done_key << " > 0 within 60 s");
    ::kill(job, SIGINT);
    const double sent = waited_s();
    int status = 0;
    pid_t done = 0;
    while ((done = ::waitpid(job, &status, WNOHANG)) == 0 && waited_s() - sent < 30)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (done == 0) {
        ::kill(job, SIGKILL);
        ::waitpid(job, &status, 0);
    }
    CHECK_MSG(done == job, args << ": mpirun still running 30 s after SIGINT");
    std::printf("  %-50.50s mpirun ended %.2f s after SIGINT, status %d\n", args.c_str(), waited_s() - sent,
                WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    // Rank 0 exits 130; Open MPI 4's mpirun, which killed the job itself, reports 1.
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) != 0, args << ": exit status " << status);
    std::ifstream in(out);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    const json j = json::parse(text, nullptr, false);
    CHECK_MSG(j.is_object() && j.value("complete", true) == false, args << ": stdout '" << text << "'");
    return j.is_object() ? j : json();
}

bool count_between(const json& j, const char* key, double above, double below) {
    return j.contains(key) && j[key].is_number() && j[key].get<double>() > above && j[key].get<double>() < below;
}

TEST_CASE("SIGINT to mpirun: every rank stops, rank 0 prints the partial result (ais, pt, train)") {
    // The partial fields (docs/user/cluster.md, scripts/measured_figures.sh mpi-ctrl-c): the common
    // step or scan the ranks stopped after.
    const json ais =
        expect_partial_after_sigint("ais four-mode --chains 128 --steps 5000000 --checkpoints 1 --seed 3", "step");
    CHECK_MSG(count_between(ais, "steps_done", 0, 5000000), ais.dump());
    CHECK_MSG(count_between(ais, "beta_reached", 0, 1), ais.dump());
    const json pt = expect_partial_after_sigint("pt four-mode --chains 4 --sweeps 100000000 --seed 3", "scans_done");
    CHECK_MSG(count_between(pt, "scans_done", 0, 100000000), pt.dump());
    // train: the ranks agree on the stop with the update's tile sums; rank 0 writes --out.
    const std::string model = (test::temp_dir() / "cancelled.json").string();
    std::filesystem::remove(model);
    const json train = expect_partial_after_sigint(
        "train --data bars:4:300:3 --batch 128 --chains 256 --updates 100000000 --monitor-every 0 --out '" + model +
            "'",
        "updates_done");
    CHECK_MSG(train.value("status", "") == "cancelled" && count_between(train, "updates", 0, 100000000), train.dump());
    CHECK_MSG(std::filesystem::exists(model), "a cancelled train wrote no --out");
}

TEST_CASE("RBMSCOPE_MPI=1 initialises MPI in a singleton (no launcher): the plain output") {
    const std::string args = "ais four-mode --steps 10 --chains 64 --seed 2";
    const auto plain = test::run_cli(args);
    const auto forced = run_shell(mpi_env() + "RBMSCOPE_MPI=1 " + kCli + args);
    CHECK_MSG(plain.exit_code == 0 && forced.exit_code == 0, plain.err << forced.err);
    if (plain.exit_code == 0 && forced.exit_code == 0) CHECK(untimed(plain.json()) == untimed(forced.json()));
}

int main(int argc, char** argv) {
    // Open MPI refuses to run as root unless told (CI containers run as root).
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    return test::run_all(argc, argv);
}
