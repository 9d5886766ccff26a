// Reading back the results of rbmscope-cli (core/io/result_file.hpp): every kind the
// app reopens, written by the real CLI into a temporary folder, parses to the numbers the CLI
// printed (compared exactly); the bad-result corpus (tests/data/bad_results with its
// EXPECTED.tsv manifest) fails with one line naming the key.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "../cli/cli_runner.hpp"
#include "check.hpp"
#include "core/io/model_io.hpp"
#include "core/io/presets.hpp"
#include "core/io/result_file.hpp"
#include "core/io/result_source.hpp"
#include "test_files.hpp"

namespace fs = std::filesystem;
using namespace rbm;
using namespace rbm::test;
using nlohmann::json;

namespace {

const fs::path kData = RBMSCOPE_TEST_DATA;

// Runs the CLI inside `dir` (so the result names the model as the user typed it) and writes
// its stdout to dir/out; returns the printed JSON.
json cli_in(const fs::path& dir, const std::string& args, const std::string& out) {
    const CliResult r =
        run_shell("cd '" + dir.string() + "' && '" + rbm::test::cli_program() + "' " + args + " > " + out);
    CHECK_MSG(r.exit_code == 0, args << ": exit " << r.exit_code << ": " << r.err);
    return json::parse(slurp(dir / out));
}

// One folder with a model and every kind of result, shared by the cases below.
struct Results {
    TempDir tmp;
    json ais, sweep, pt, mf, train, log;
    Results() {
        save_model(load_preset("four-mode"), tmp.path / "m.json");
        ais = cli_in(tmp.path, "ais m.json --steps 100 --chains 50 --reverse", "ais.json");
        sweep =
            cli_in(tmp.path, "ais-sweep m.json --methods geometric:moment,cov --steps 10,30 --chains 40 --repeats 2",
                   "sweep.json");
        pt = cli_in(tmp.path, "pt m.json --chains 2 --sweeps 300", "pt.json");
        mf = cli_in(tmp.path, "meanfield m.json --type 2 --trace", "mf.json");
        train =
            cli_in(tmp.path, "train --data bars:3 --hidden 4 --updates 60 --out t.json --log tlog.json", "train.json");
        log = json::parse(slurp(tmp.path / "tlog.json"));
    }
};
Results& results() {
    static Results r;
    return r;
}

}  // namespace

TEST_CASE("ais: the estimate, interval, ESS, running estimate, histogram and reverse bound as printed") {
    Results& R = results();
    const ResultFile f = load_result_file(R.tmp.path / "ais.json");
    CHECK(f.command == ResultCommand::Ais);
    CHECK(f.argv.front() == "ais");
    CHECK(f.command_line == R.ais["command_line"].get<std::string>());
    CHECK(f.model.has_value());
    CHECK(f.model->path == "m.json");
    CHECK(f.model->fnv1a64 == file_fnv1a64(R.tmp.path / "m.json"));
    CHECK(f.model->kind == "grbm" && f.model->n == 2 && f.model->m == 2);
    CHECK(f.complete);
    const AisFileResult& a = *f.ais;
    CHECK(same_bits(a.log_z, R.ais["log_z"].get<double>()));
    CHECK(same_bits(a.ci95_low, R.ais["ci95"][0].get<double>()));
    CHECK(same_bits(a.ci95_high, R.ais["ci95"][1].get<double>()));
    CHECK(same_bits(a.ess, R.ais["ess"].get<double>()));
    CHECK(same_bits(a.log_z0, R.ais["log_z0"].get<double>()));
    CHECK(a.exact_log_z.has_value() && same_bits(*a.exact_log_z, R.ais["exact_log_z"].get<double>()));
    CHECK(a.steps == 100 && a.chains == 50 && a.seed == 1);
    CHECK(a.running.size() == R.ais["running"].size());
    CHECK(same_bits(a.running.back().second, R.ais["running"].back()[1].get<double>()));
    CHECK(a.hist_counts == R.ais["histogram"]["counts"].get<std::vector<std::int64_t>>());
    CHECK(a.reverse.has_value() && a.reverse->log_z_upper.has_value());
    CHECK(same_bits(*a.reverse->log_z_upper, R.ais["reverse"]["log_z_upper"].get<double>()));
}

TEST_CASE("ais-sweep: every (method, K) row with its numbers, in the file's order") {
    Results& R = results();
    const ResultFile f = load_result_file(R.tmp.path / "sweep.json");
    CHECK(f.command == ResultCommand::AisSweep);
    const SweepFileResult& s = *f.sweep;
    CHECK(s.chains == 40 && s.repeats == 2);
    CHECK(s.rows.size() == 4u);
    CHECK(s.rows.size() == R.sweep["results"].size());
    for (std::size_t i = 0; i < s.rows.size() && i < R.sweep["results"].size(); ++i) {
        const json& x = R.sweep["results"][i];
        CHECK(s.rows[i].method == x["method"].get<std::string>());
        CHECK(s.rows[i].steps == x["steps"].get<Index>());
        CHECK(same_bits(s.rows[i].log_z_mean, x["log_z_mean"].get<double>()));
        CHECK(same_bits(s.rows[i].ci95_low_mean, x["ci95_low_mean"].get<double>()));
        CHECK(same_bits(s.rows[i].ess_mean, x["ess_mean"].get<double>()));
    }
}

TEST_CASE("pt: ladder, swap rates, round trips and barrier") {
    Results& R = results();
    const ResultFile f = load_result_file(R.tmp.path / "pt.json");
    CHECK(f.command == ResultCommand::Pt);
    const PtFileResult& p = *f.pt;
    CHECK(same_bits(p.betas, R.pt["betas"].get<std::vector<double>>()));
    CHECK(same_bits(p.swap_acceptance, R.pt["swap_acceptance"].get<std::vector<double>>()));
    CHECK(p.round_trips == R.pt["round_trips"].get<std::int64_t>());
    CHECK(same_bits(p.barrier, R.pt["barrier"].get<double>()));
    CHECK(p.local_beta.size() == 51u && p.local_lambda.size() == 51u);
}

TEST_CASE("meanfield: free energy, marginals, fixed points, trace and the exact answers") {
    Results& R = results();
    const ResultFile f = load_result_file(R.tmp.path / "mf.json");
    CHECK(f.command == ResultCommand::MeanField);
    const MeanFieldFileResult& m = *f.meanfield;
    CHECK(m.type == "2");
    CHECK(same_bits(m.free_energy, R.mf["free_energy"].get<double>()));
    CHECK(same_bits(m.mean_v, R.mf["mean_v"].get<std::vector<double>>()));
    CHECK(m.fixed_points.size() == R.mf["fixed_points"].size());
    CHECK(!m.trace_free_energy.empty());
    CHECK(m.exact_free_energy.has_value() &&
          same_bits(*m.exact_free_energy, R.mf["exact"]["free_energy"].get<double>()));
}

TEST_CASE("train: the printed summary names the trained model and its log; the log array is a result too") {
    Results& R = results();
    const ResultFile f = load_result_file(R.tmp.path / "train.json");
    CHECK(f.command == ResultCommand::Train);
    CHECK(!f.model.has_value());  // train reads data, not a model: the model is what it wrote
    CHECK(f.train->model == "t.json" && f.train->log == "tlog.json");
    CHECK(f.train->updates == 60 && f.train->hidden == 4 && f.train->visible == 9);
    const ResultFile l = load_result_file(R.tmp.path / "tlog.json");
    CHECK(l.command == ResultCommand::TrainLog);
    CHECK(l.train->records.size() == R.log.size());
    CHECK(l.train->records.back().update == 60);
    CHECK(same_bits(l.train->records.back().log_likelihood, R.log.back()["log_likelihood"].get<double>()));
    CHECK(load_train_log(R.tmp.path / "tlog.json").size() == R.log.size());
}

TEST_CASE("looks_like_result: results and logs yes; model files, sessions, other JSON and garbage no") {
    Results& R = results();
    for (const char* name : {"ais.json", "sweep.json", "pt.json", "mf.json", "train.json", "tlog.json"})
        CHECK_MSG(looks_like_result(slurp(R.tmp.path / name)), name);
    CHECK(!looks_like_result(slurp(R.tmp.path / "m.json")));
    CHECK(!looks_like_result(slurp(R.tmp.path / "t.json")));
    CHECK(!looks_like_result("{\"format\": \"rbmscope-session\", \"argv\": []}"));
    CHECK(!looks_like_result("[1, 2]"));
    CHECK(!looks_like_result("{\"argv\": "));
    CHECK(!looks_like_result(""));
}

TEST_CASE("size: a file larger than any result is refused before it is read") {
    TempDir tmp;
    const fs::path p = tmp.path / "huge.json";
    { std::ofstream(p) << "{}"; }
    fs::resize_file(p, kMaxResultBytes + 1);  // sparse: costs no disk
    CHECK_THROWS_WITH(load_result_file(p), InputError, "more than any result file may be (limit 1073741824)");
    CHECK_THROWS_WITH(load_result_file(tmp.path / "none.json"), InputError, "cannot read");
}

TEST_CASE("corpus: every bad result fails with the message its manifest line expects") {
    const fs::path dir = kData / "bad_results";
    const std::map<std::string, std::string> expected = read_corpus_manifest(dir);
    CHECK(expected.size() >= 40u);
    check_corpus_messages(dir, expected, [](const fs::path& p) { (void)load_result_file(p); });
}

RBM_TEST_MAIN
