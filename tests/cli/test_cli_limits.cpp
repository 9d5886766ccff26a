// Limits checked before work starts, through the real binary: the memory budget (--max-memory)
// for what a data spec declares and for a run's chains x units, and output paths that cannot be
// written (--out, --log, --checkpoint, --trajectory, convert's OUT). Every refusal is exit 2 with
// one line; the runs refused here would take hours or gigabytes if they started, so a check that
// came after the work would show as a time-out, with no clock in the test.
#include <filesystem>
#include <fstream>

#include "check.hpp"
#include "cli_runner.hpp"

using namespace rbm::test;
namespace fs = std::filesystem;

namespace {

bool one_line_error(const CliResult& r, const std::string& needle) {
    return r.exit_code == 2 && r.out.empty() && r.stderr_lines() == 1 && r.err.find(needle) != std::string::npos;
}

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

// A path whose parent is a regular file: no one, root included, can create a file there.
fs::path under_a_file(const std::string& name) {
    const fs::path file = temp_dir() / "plain-file";
    std::ofstream(file) << "x";
    return file / name;
}

}  // namespace

TEST_CASE("--max-memory sets the budget a data spec is checked against, and the message names it") {
    // 40 000 000 patterns of 9 values: 2.7 GiB.
    const CliResult big = run_cli("data-info bars:3:40000000:1 --max-memory 1G");
    CHECK_MSG(one_line_error(big, "needs 2.7 GiB, more than the memory budget (1.0 GiB); --max-memory 3G allows it"),
              big.err);
    // 20 000 patterns of 9 values: 1.4 MiB, refused under 1M and loaded under 2M.
    CHECK(one_line_error(run_cli("data-info bars:3:20000:1 --max-memory 1M"),
                         "more than the memory budget (1.0 MiB); --max-memory 2M allows it"));
    const CliResult ok = run_cli("data-info bars:3:20000:1 --max-memory 2M");
    CHECK_MSG(ok.exit_code == 0 && ok.json()["examples"] == 20000, ok.err);
    for (const char* bad : {"12x", "0", "-1G", "100", "G"})
        CHECK_MSG(
            one_line_error(run_cli(std::string("data-info bars:3 --max-memory ") + bad), "--max-memory expects a size"),
            bad);
    CHECK(run_cli("data-info bars:3 --max-memory 1.5GiB").exit_code == 0);
    CHECK(run_cli("ais --help").out.find("--max-memory SIZE") != std::string::npos);
}

TEST_CASE("a run whose chains x units exceed the budget is refused before it starts, with the number needed") {
    // 10^8 AIS chains of four-mode's 2 visible units: 8 (2 + 6) + 56 bytes each, 11.2 GiB.
    const CliResult ais = run_cli("ais four-mode --chains 100000000 --steps 100000 --max-memory 1G");
    CHECK_MSG(
        one_line_error(ais,
                       "AIS with 100000000 chains of 2 values needs 11.2 GiB, more than the memory budget (1.0 GiB); "
                       "--max-memory 12G allows it"),
        ais.err);
    CHECK(one_line_error(run_cli("ais-sweep four-mode --chains 100000000 --steps 100000 --max-memory 1G"),
                         "AIS with 100000000 chains"));
    // Refused before the Gibbs target-moment phase: --moments gibbs with a billion sweeps would run for days.
    CHECK(one_line_error(
        run_cli("ais four-mode --moments gibbs --moment-steps 1000000000 --chains 100000000 --max-memory 1G"),
        "AIS with 100000000 chains"));
    CHECK(one_line_error(
        run_cli("ais four-mode --moments gibbs --moment-chains 1000000 --moment-steps 1000000000 --max-memory 10M"),
        "Gibbs target moments with 1000000 chains"));
    CHECK(one_line_error(
        run_cli("pt four-mode --chains 1000000 --replicas 100 --gamma 0.9 --sweeps 1000000000 --max-memory 100M"),
        "parallel tempering with 1000000 chains x 100 rungs"));
    CHECK(one_line_error(run_cli("sample four-mode --chains 10000000 --sweeps 100000000 --max-memory 100M"),
                         "sampling 10000000 chains"));
    const fs::path out = temp_dir() / "never.json";
    CHECK(one_line_error(run_cli("train --data bars:3 --hidden 100000 --chains 100000 --updates 100000000 --out " +
                                 q(out) + " --max-memory 1G"),
                         "training 9 x 100000 units with 100000 chains needs"));
    CHECK(!fs::exists(out));
    // The same runs at a size that fits are not refused.
    CHECK(run_cli("ais four-mode --chains 1000 --steps 10 --max-memory 1G").exit_code == 0);
}

TEST_CASE("an output path that cannot be written is refused before the run, naming the option and the path") {
    const fs::path bad = under_a_file("m.json"), missing = temp_dir() / "no-such-dir" / "m.json";
    const fs::path out = temp_dir() / "m.json";
    // --updates 10^8 would train for hours: the refusal must come first.
    const std::string train = "train --data bars:3 --hidden 3 --updates 100000000 ";
    CHECK(one_line_error(run_cli(train + "--out " + q(bad)), "--out '" + bad.string() + "': cannot write there: '" +
                                                                 bad.parent_path().string() +
                                                                 "' is not a directory; nothing was run"));
    CHECK(one_line_error(run_cli(train + "--out " + q(missing)),
                         "the directory '" + missing.parent_path().string() + "' does not exist"));
    CHECK(one_line_error(run_cli(train + "--out " + q(out) + " --log " + q(under_a_file("log.csv"))), "--log '"));
    CHECK(one_line_error(run_cli(train + "--out " + q(out) + " --checkpoint " + q(under_a_file("ck.json"))),
                         "--checkpoint '"));
    CHECK(one_line_error(run_cli(train + "--out " + q(out) + " --checkpoint " + q(temp_dir())), "it is a directory"));
    CHECK(!fs::exists(out));
    CHECK(one_line_error(run_cli("pt four-mode --sweeps 1000000000 --trajectory " + q(under_a_file("t.csv"))),
                         "--trajectory '"));
    CHECK(one_line_error(run_cli("ais-sweep four-mode --steps 100000000 --checkpoint " + q(under_a_file("s.json"))),
                         "--checkpoint '"));
    CHECK(one_line_error(run_cli("convert four-mode " + q(under_a_file("c.json"))), "OUT '"));
    // The check leaves nothing behind in a directory it could write to.
    const CliResult ok =
        run_cli("train --data bars:3 --hidden 3 --updates 5 --out " + q(out) + " --log " + q(temp_dir() / "log.csv"));
    CHECK_MSG(ok.exit_code == 0 && fs::exists(out), ok.err);
    int temporaries = 0;
    for (const auto& e : fs::directory_iterator(temp_dir()))
        temporaries += e.path().filename().string().find(".tmp-") != std::string::npos;
    CHECK(temporaries == 0);
}

RBM_TEST_MAIN
