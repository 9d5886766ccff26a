// `train` under mpirun: at 1, 2, 3 and 4 ranks x 1 thread and at one process x 2
// threads, BRBM pcd / cd / pt and GRBM pcd give the same JSON (measured fields aside) and the same
// model file, byte for byte; a checkpoint written at one rank count resumes at another with the
// uninterrupted result; ranks beyond the tiles of the negative phase idle (same bits), while more
// ranks than rungs (tempered) is bad input from rank 0. pt shares each ladder's slots between the ranks (as
// `rbmscope-cli pt` does). Runs Open MPI with --oversubscribe and as root where CI is root (see mpi_runner.hpp).
#include <filesystem>
#include <fstream>

#include "../core/check.hpp"
#include "cli_runner.hpp"
#include "mpi_runner.hpp"

using namespace rbm;
using namespace rbm::test::mpi;
using nlohmann::json;

namespace {

std::string file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

// The JSON without measured fields and without the file names each run chose.
json comparable(const json& j) {
    json out = untimed(j);
    for (const char* k : {"model", "log", "checkpoint"}) out.erase(k);
    return out;
}

struct Run {
    json out;
    std::string model;
};

// `args` (without --out) at `ranks` ranks x 1 thread (0: one process x 2 threads, no mpirun).
Run train(const std::string& args, int ranks, const std::string& tag) {
    const std::string out = (test::temp_dir() / ("train-" + tag + "-" + std::to_string(ranks) + ".json")).string();
    std::filesystem::remove(out);
    const std::string cmd = "train " + args + " --out " + quoted(out);
    const auto r = ranks == 0 ? test::run_cli(cmd + " --threads 2") : run_shell(mpirun(ranks) + cmd + " --threads 1");
    CHECK_MSG(r.exit_code == 0, args << " at " << ranks << " ranks: exit " << r.exit_code << " " << r.err);
    if (r.exit_code != 0) return {};
    if (ranks > 1) {
        const json j = r.json();
        CHECK_MSG(
            j.contains("mpi") && j["mpi"]["ranks"] == ranks && j["mpi"]["bytes_sent_per_update"].get<double>() > 0,
            j.dump());
    }
    return {r.json(), file_bytes(out)};
}

void expect_same_at_every_rank_count(const std::string& args, const std::string& tag) {
    const Run one = train(args, 0, tag);
    CHECK_MSG(!one.model.empty(), args << ": no model written");
    for (int ranks = 1; ranks <= 4; ++ranks) {
        const Run many = train(args, ranks, tag);
        if (many.out.is_null()) continue;
        CHECK_MSG(comparable(many.out) == comparable(one.out), args << " at " << ranks << " ranks:\n"
                                                                    << comparable(many.out).dump()
                                                                    << "\nvs one process:\n"
                                                                    << comparable(one.out).dump());
        CHECK_MSG(many.model == one.model, args << " at " << ranks << " ranks: the model file differs");
    }
}

// bars 4x4 sampled (16 visible, 0/1). Batch 128 = 2 tiles of 64 rows, 256 chains = 4 tiles, so
// 3 ranks sum 1, 1, 2 tiles of the chains and 0 or 1 of the batch; --epochs would end on a short batch.
// kBarsNoUpdates for a run of another length (each option once: a repeated one is refused).
const std::string kBarsNoUpdates =
    "--data bars:4:300:3 --hidden 8 --batch 128 --chains 256 --monitor-every 3 --lr 0.1 --seed 4";
const std::string kBars = kBarsNoUpdates + " --updates 6";

}  // namespace

TEST_CASE("train brbm pcd and cd: same JSON and model file at 1-4 ranks and at one process x 2 threads") {
    expect_same_at_every_rank_count(kBars + " --method pcd --k 2 --momentum 0.5", "pcd");
    // cd: the negative rows are the batch's (4 tiles at 256; the epoch's second batch of 44 rows is
    // one tile, so some ranks have no share of that update).
    expect_same_at_every_rank_count(
        "--data bars:4:300:3 --hidden 8 --batch 256 --updates 4 --monitor-every 2 --lr 0.1 --seed 4 --method cd", "cd");
}

TEST_CASE("train brbm pt (tempered persistent ladders) and grbm pcd with sigma learned: same at 1-4 ranks") {
    expect_same_at_every_rank_count(kBars + " --method pt --rungs 3", "pt");  // 4 rungs: 4 ranks own one each
    expect_same_at_every_rank_count(
        "--data digits --scale --kind grbm --learn-sigma --hidden 6 --batch 100 --chains 256 --updates 4 "
        "--monitor-every 2 --lr 0.01 --seed 2",
        "grbm");
}

TEST_CASE(
    "train: a checkpoint written at 3 ranks resumes at 2 ranks and at one process with the uninterrupted result (pcd, "
    "pt)") {
    for (const std::string method : {"pcd", "pt --rungs 3"}) {
        const std::string args = kBars + " --method " + method, tag = method.substr(0, 2);
        const Run whole = train(args, 0, "whole" + tag);
        const std::string ck = (test::temp_dir() / ("train3" + tag + ".ck")).string();
        std::filesystem::remove(ck);
        const std::string first = (test::temp_dir() / "first.json").string();
        const auto part =
            run_shell(mpirun(3) + "train " + kBarsNoUpdates + " --method " + method + " --updates 3 --checkpoint " +
                      quoted(ck) + " --out " + quoted(first) + " --threads 1");
        CHECK_MSG(part.exit_code == 0, part.err);
        // --updates on --resume is the new total; monitor-every is explicit, so the records fall alike.
        for (int ranks : {2, 0}) {
            const std::string out = (test::temp_dir() / ("resumed" + tag + std::to_string(ranks) + ".json")).string();
            const std::string cmd =
                "train --data bars:4:300:3 --updates 6 --resume " + quoted(ck) + " --out " + quoted(out);
            const auto r =
                ranks ? run_shell(mpirun(ranks) + cmd + " --threads 1") : test::run_cli(cmd + " --threads 2");
            CHECK_MSG(r.exit_code == 0, r.err);
            if (r.exit_code != 0 || whole.out.is_null()) continue;
            CHECK_MSG(comparable(r.json()) == comparable(whole.out),
                      method << " at " << ranks << " ranks: " << comparable(r.json()).dump() << "\nvs\n"
                             << comparable(whole.out).dump());
            CHECK_MSG(file_bytes(out) == whole.model,
                      method << " at " << ranks << " ranks: the resumed model file differs");
        }
    }
}

TEST_CASE(
    "train: more ranks than tiles of the negative phase idle and say so, with the bits of one process; more than "
    "rungs: exit 2") {
    // 100 chains make 2 tiles of 64 rows and the batch of 50 one: at 3 ranks one rank has no tile.
    // (It was refused as bad input before; the idle rank now only takes part in the exchanges.)
    const std::string args =
        "--data bars:4:300:3 --batch 50 --chains 100 --updates 4 --monitor-every 2 --lr 0.1 --seed 4";
    const Run one = train(args, 0, "idle");
    const Run three = train(args, 3, "idle");
    CHECK(!one.model.empty() && !three.model.empty());
    CHECK_MSG(three.model == one.model, "the model file at 3 ranks (one idle) differs from one process");
    if (!three.out.is_null()) {
        CHECK_MSG(comparable(three.out) == comparable(one.out), comparable(three.out).dump()
                                                                    << "\nvs\n"
                                                                    << comparable(one.out).dump());
        CHECK_MSG(three.out["mpi"]["idle_ranks"].size() == 1, three.out["mpi"].dump());
        CHECK_MSG(three.out["mpi"]["note"].get<std::string>().find("1 of 3 ranks idle") != std::string::npos,
                  three.out["mpi"].dump());
    }
    // 14 chains (one tile) at 4 ranks: three idle, still the same model (cd: the negative rows are the batch's).
    const std::string cd = "--data bars:3 --method cd --batch 14 --updates 5 --monitor-every 0 --lr 0.1 --seed 2";
    const Run cd_one = train(cd, 0, "idle-cd");
    const Run cd_four = train(cd, 4, "idle-cd");
    CHECK_MSG(!cd_one.model.empty() && cd_four.model == cd_one.model,
              "cd at 4 ranks (three idle) differs from one process");
    if (!cd_four.out.is_null()) CHECK_MSG(cd_four.out["mpi"]["idle_ranks"].size() == 3, cd_four.out["mpi"].dump());
    // Tempered: the ranks share the rungs, so also at most one rank per rung.
    const auto pt = run_shell(
        mpirun(3) + "train --data bars:4:300:3 --method pt --rungs 1 --batch 128 --chains 256 --updates 2 --out " +
        quoted((test::temp_dir() / "never.json").string()));
    CHECK_MSG(pt.exit_code == 2, "exit " << pt.exit_code << " " << pt.err);
    CHECK_MSG(pt.err.find("more ranks than the 2 rungs of the ladder") != std::string::npos, pt.err);
    std::size_t lines = 0, at = 0;
    while ((at = pt.err.find("rbmscope-cli: ", at)) != std::string::npos) ++lines, ++at;
    CHECK_MSG(lines == 1, "expected one message, stderr: " << pt.err);
    CHECK(!std::filesystem::exists(test::temp_dir() / "never.json"));
}

int main(int argc, char** argv) {
    // Open MPI refuses to run as root unless told (CI containers run as root).
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    return test::run_all(argc, argv);
}
