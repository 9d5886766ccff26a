// rbmscope-cli train and data-info (docs/methods/training.md, docs/user/cli.md): a run end to end, checkpoint / resume
// and thread count giving identical model files, leaky divergence reported, and one-line errors for bad input.
#include <filesystem>
#include <fstream>

#include "check.hpp"
#include "cli_runner.hpp"
#include "core/exact/exact.hpp"
#include "core/io/model_io.hpp"

using namespace rbm::test;

namespace {
const std::string kDir = std::string(RBMSCOPE_TEST_DATA) + "/train/";

std::string path(const std::string& name) { return (temp_dir() / name).string(); }

bool one_line_error(const CliResult& r, const std::string& needle) {
    return r.exit_code == 2 && r.out.empty() && r.stderr_lines() == 1 && r.err.find(needle) != std::string::npos;
}
}  // namespace

TEST_CASE("train: bars 3x3 with PCD writes a model and a CSV log, exact log-likelihood rises") {
    const CliResult r = run_cli(
        "train --data bars:3 --kind brbm --hidden 6 --method pcd --updates 600 --batch 14 --lr 0.2 --momentum 0.5 "
        "--init-scale 0.1 "
        "--chains 50 --monitor-every 200 --out " +
        path("bars.json") + " --log " + path("bars.csv"));
    CHECK_MSG(r.exit_code == 0, r.err);
    const auto j = r.json();
    CHECK(j["status"] == "finished");
    CHECK(j["updates"] == 600);
    CHECK(j["final"]["log_likelihood_method"] == "exact");
    CHECK(j["final"]["log_likelihood"].get<double>() > j["initial"]["log_likelihood"].get<double>() + 2.0);
    CHECK(j["records"] == 4);
    const rbm::Model m = rbm::load_model(path("bars.json"));
    CHECK(m.n_visible() == 9 && m.n_hidden() == 6);
    std::ifstream log(path("bars.csv"));
    std::string header, line;
    std::getline(log, header);
    CHECK(header.rfind("update,epoch,learning_rate,log_likelihood,log_likelihood_method", 0) == 0);
    int rows = 0;
    while (std::getline(log, line)) rows += line.empty() ? 0 : 1;
    CHECK(rows == 4);
}

TEST_CASE("train: tempered methods report swap acceptance; --epochs counts passes; JSON log") {
    const CliResult r = run_cli(
        "train --data bars:3 --hidden 4 --method deo --rungs 3 --gamma 0.5 --epochs 10 --batch 7 "
        "--out " +
        path("deo.json") + " --log " + path("deo.json.log.json"));
    CHECK_MSG(r.exit_code == 0, r.err);
    const auto j = r.json();
    CHECK(j["updates"] == 20);  // 10 epochs x 14 examples / batch 7
    CHECK(j["final"]["swap_acceptance"].size() == 3);
    std::ifstream in(path("deo.json.log.json"));
    const auto log = nlohmann::json::parse(in);
    CHECK(log.is_array() && log.size() >= 2);
    CHECK(log.back()["update"] == 20);
}

TEST_CASE("train: checkpoint + resume and 1 vs 2 threads give byte-identical model files") {
    const std::string common =
        "train --data bars:4 --hidden 8 --method lpt --rungs 4 --batch 10 --lr 0.05 --momentum 0.5 "
        "--chains 100 --monitor-every 10 --seed 3 ";
    CHECK(run_cli(common + "--updates 40 --threads 1 --out " + path("whole.json")).exit_code == 0);
    CHECK(run_cli(common + "--updates 40 --threads 2 --out " + path("whole2.json")).exit_code == 0);
    CHECK(run_cli(common + "--updates 17 --checkpoint " + path("ck.json") + " --out " + path("part.json")).exit_code ==
          0);
    const CliResult r =
        run_cli("train --data bars:4 --resume " + path("ck.json") + " --updates 40 --out " + path("resumed.json"));
    CHECK_MSG(r.exit_code == 0, r.err);
    CHECK(r.json()["updates"] == 40);
    const std::string whole = rbm::read_file(path("whole.json"));
    CHECK(whole == rbm::read_file(path("whole2.json")));
    CHECK(whole == rbm::read_file(path("resumed.json")));
    CHECK(whole != rbm::read_file(path("part.json")));
    // Resuming with other data or changing a training option is refused.
    CHECK(one_line_error(run_cli("train --data bars:3 --resume " + path("ck.json") + " --out " + path("x.json")),
                         "other data"));
    CHECK(
        one_line_error(run_cli("train --data bars:4 --resume " + path("ck.json") + " --lr 0.1 --out " + path("x.json")),
                       "--lr cannot change on --resume"));
}

TEST_CASE("train: a leaky RBM without projection on digits stops with a clear message and no model") {
    const CliResult r = run_cli(
        "train --data digits --standardize --limit 400 --kind leaky --hidden 16 --method mix --k 5 "
        "--batch 20 --lr 0.005 --updates 300 --kernel paper-gibbs --no-projection --monitor-every 0 --out " +
        path("leaky.json"));
    CHECK(one_line_error(r, "largest singular value of W reached"));
    CHECK(r.err.find("drop --no-projection") != std::string::npos);
    CHECK(!std::filesystem::exists(path("leaky.json")));
}

TEST_CASE("train: a leaky RBM reports the projection bound in force (automatic or set)") {
    const std::string cmd =
        "train --data digits --standardize --limit 200 --kind leaky --hidden 4 --updates 3 "
        "--monitor-every 0 --ais-chains 5 --ais-steps 5 --out " +
        path("lk.json");
    const CliResult a = run_cli(cmd);
    CHECK_MSG(a.exit_code == 0, a.err);
    const double bound = a.json()["projection_limit"].get<double>();
    CHECK(bound > 0.9 && bound < 1.0 - 1e-6);
    const CliResult b = run_cli(cmd + " --projection-limit 0.5");
    CHECK_MSG(b.exit_code == 0, b.err);
    CHECK(b.json()["projection_limit"].get<double>() == 0.5);
    CHECK(b.json()["max_singular_value"].get<double>() <= 0.5 + 1e-12);
}

TEST_CASE("train: bad input is one line on stderr, exit 2") {
    const std::string out = " --out " + path("bad.json");
    CHECK(one_line_error(run_cli("train --data bars:3"), "--out MODEL is required"));
    CHECK(one_line_error(run_cli("train --data bars:3 --out m.txt"), "--out must end in .json or .npz"));
    CHECK(one_line_error(run_cli("train" + out), "--data is required"));
    CHECK(one_line_error(run_cli("train --data digits --scale" + out), "--kind brbm needs 0/1 data"));
    CHECK(one_line_error(run_cli("train --data bars:3 --method leaky" + out), "--method leaky needs --kind leaky"));
    CHECK(one_line_error(run_cli("train --data bars:3 --method sgd" + out), "unknown training method 'sgd'"));
    CHECK(one_line_error(run_cli("train --data bars:3 --batch 100" + out), "--batch 100 exceeds the 14 examples"));
    CHECK(one_line_error(run_cli("train --data bars:3 --no-projection" + out), "--kind leaky only"));
    CHECK(one_line_error(run_cli("train --data bars:3 --projection-limit 0.9" + out), "--kind leaky only"));
    const std::string leaky = "train --data digits --standardize --limit 50 --kind leaky --hidden 4 --updates 2" + out;
    CHECK(one_line_error(run_cli(leaky + " --projection-limit 1"), "--projection-limit must lie in (0, 1)"));
    CHECK(one_line_error(run_cli(leaky + " --projection-limit 0.9 --no-projection"), "contradict"));
    CHECK(
        one_line_error(run_cli("train --data bars:3 --method cd --gamma 0.5" + out), "--gamma applies to --method pt"));
    CHECK(one_line_error(run_cli("train --data bars:3 --epochs 2 --updates 5" + out), "not both"));
    CHECK(one_line_error(run_cli("train --data " + kDir + "broken-number.csv --kind grbm" + out), "line 2, column 3"));
    CHECK(one_line_error(run_cli("train --data " + kDir + "absurd-images-idx3-ubyte" + out), "absurd"));
    CHECK(one_line_error(run_cli("train --data digits --binarize 0.5 --scale" + out), "choose one of"));
    CHECK(one_line_error(run_cli("train --data nowhere.csv" + out), "no such file"));
}

TEST_CASE("train --help and data-info") {
    const CliResult h = run_cli("train --help");
    CHECK(h.exit_code == 0);
    CHECK(h.out.find("--method") != std::string::npos && h.out.find("lpt") != std::string::npos);
    const CliResult d = run_cli("data-info digits --shifts --binarize 0.5");
    CHECK_MSG(d.exit_code == 0, d.err);
    const auto j = d.json();
    CHECK(j["examples"] == 5 * 1797);
    CHECK(j["dim"] == 64);
    CHECK(j["binary"] == true);
    CHECK(j["image_shape"] == nlohmann::json::array({8, 8}));
    const CliResult c = run_cli("data-info " + kDir + "tiny.csv --csv-label last");
    CHECK_MSG(c.exit_code == 0, c.err);
    CHECK(c.json()["examples"] == 3 && c.json()["labels"] == true);
    const CliResult i = run_cli("data-info " + kDir + "tiny-images-idx3-ubyte");
    CHECK(i.exit_code == 0 && i.json()["image_shape"] == nlohmann::json::array({2, 3}) && i.json()["labels"] == true);
}

TEST_CASE("sample: the .npz fixture written by NumPy loads and samples") {
    const CliResult r = run_cli("sample " + kDir + "model.npz --chains 7 --sweeps 20 --seed 2");
    CHECK_MSG(r.exit_code == 0, r.err);
    const auto j = r.json();
    CHECK(j["samples"].size() == 7);
    for (const auto& row : j["samples"]) {
        CHECK(row.size() == 3);
        for (const auto& x : row) CHECK(x == 0.0 || x == 1.0);
    }
}

TEST_CASE("train --data fashion-mnist: names the Debian package when absent, trains on its files when present") {
    // RBMSCOPE_DATASETS_DIR points the search away from /usr/share/datasets, so the result does not
    // depend on what this machine has installed.
    const std::filesystem::path empty = temp_dir() / "no-datasets", here = temp_dir() / "datasets";
    std::filesystem::create_directories(empty);
    std::filesystem::create_directories(here / "fashion-mnist");
    const std::string cli = std::string("'") + rbm::test::cli_program() + "' ";
    const CliResult missing = run_shell("RBMSCOPE_DATASETS_DIR='" + empty.string() + "' " + cli +
                                        "train --data fashion-mnist --out " + path("fm.json"));
    CHECK_MSG(one_line_error(missing, "apt-get install dataset-fashion-mnist"), missing.err);
    const CliResult info =
        run_shell("RBMSCOPE_DATASETS_DIR='" + empty.string() + "' " + cli + "data-info fashion-mnist:test");
    CHECK_MSG(one_line_error(info, "fashion-mnist/t10k-images-idx3-ubyte.gz"), info.err);
    // The files as the package names them (the tiny 2 x 3 fixture: the reader takes any image shape).
    std::filesystem::copy_file(kDir + "tiny-images-idx3-ubyte", here / "fashion-mnist" / "t10k-images-idx3-ubyte");
    std::filesystem::copy_file(kDir + "tiny-labels-idx1-ubyte", here / "fashion-mnist" / "t10k-labels-idx1-ubyte");
    const CliResult r = run_shell(
        "RBMSCOPE_DATASETS_DIR='" + here.string() + "' " + cli +
        "train --data fashion-mnist:test --binarize 0.5 --hidden 2 --updates 4 --batch 3 --out " + path("fm.json"));
    CHECK_MSG(r.exit_code == 0, r.err);
    if (r.exit_code == 0) {
        CHECK(r.json()["examples"] == 3);
        CHECK(r.json()["data"].get<std::string>().rfind("fashion-mnist test (3 images 2x3)", 0) == 0);
    }
}

TEST_CASE("train: the monitor uses at most --monitor-examples rows (default 1000), a subset drawn from the seed") {
    const std::string common = "train --data digits --binarize 0.5 --hidden 8 --updates 4 --monitor-every 0 --seed 5 ";
    auto run = [&](const std::string& extra, const std::string& out) {
        const CliResult r = run_cli(common + extra + " --out " + path(out));
        CHECK_MSG(r.exit_code == 0, r.err);
        return r.json();
    };
    const auto def = run("", "m-def.json");
    CHECK(def["monitor"]["rows"] == 1000);
    CHECK(def["monitor"]["rows_of"] == 1797);
    CHECK(def["monitor"]["rows_choice"] == "subset drawn from the seed");
    const auto all = run("--monitor-examples 0", "m-all.json");
    CHECK(all["monitor"]["rows"] == 1797);
    CHECK(all["monitor"]["rows_choice"] == "all");
    const auto few = run("--monitor-examples 100", "m-few.json");
    CHECK(few["monitor"]["rows"] == 100);
    // The records are over those rows: the same model (update 0) scores differently on each set.
    const double e_def = def["initial"]["reconstruction_error"].get<double>();
    const double e_all = all["initial"]["reconstruction_error"].get<double>();
    const double e_few = few["initial"]["reconstruction_error"].get<double>();
    CHECK(e_def != e_all && e_few != e_all && e_few != e_def);
    // Deterministic: the same seed draws the same rows.
    CHECK(run("--monitor-examples 100", "m-few2.json")["initial"]["reconstruction_error"].get<double>() == e_few);
    CHECK(def["timing"].contains("monitor_share"));
}

TEST_CASE("train --test-data: every record scores the held-out rows against its log Z") {
    // Five 3x3 rows: two bars, a stripe, two that are neither.
    const std::string test_csv = path("held-out.csv");
    {
        std::ofstream f(test_csv);
        f << "1,1,1,0,0,0,0,0,0\n0,1,0,0,1,0,0,1,0\n0,0,0,0,0,0,1,1,1\n1,0,0,0,1,0,0,0,1\n1,0,1,0,1,0,1,0,1\n";
    }
    const CliResult r = run_cli(
        "train --data bars:3 --hidden 6 --method pcd --updates 300 --batch 14 --lr 0.2 "
        "--chains 50 --monitor-every 100 --seed 4 --test-data " +
        test_csv + " --out " + path("held.json") + " --log " + path("held.csv"));
    CHECK_MSG(r.exit_code == 0, r.err);
    const auto j = r.json();
    const rbm::Model m = rbm::load_model(path("held.json"));
    rbm::RowMat X(5, 9);
    X << 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1,
        0, 1, 0, 1, 0, 1, 0, 1;
    const double expected = m.log_unnorm(X).mean() - rbm::exact_log_z(m);
    const double got = j["final"]["test_log_likelihood"].get<double>();
    std::printf("  held-out log-likelihood %.12f (exact %.12f), training %.6f\n", got, expected,
                j["final"]["log_likelihood"].get<double>());
    CHECK_NEAR(got, expected, 1e-9);
    CHECK(j["final"]["test_log_likelihood_ci95"][0].get<double>() == got);  // exact log Z: no interval
    CHECK(j["initial"]["test_log_likelihood"].is_number());
    std::ifstream log(path("held.csv"));
    std::string header;
    std::getline(log, header);
    const std::string tail = ",test_log_likelihood,test_log_likelihood_low,test_log_likelihood_high";
    CHECK(header.size() > tail.size() && header.compare(header.size() - tail.size(), tail.size(), tail) == 0);
    CHECK(
        one_line_error(run_cli("train --data bars:3 --hidden 6 --updates 2 --test-data bars:4 --out " + path("w.json")),
                       "held-out rows have 16 values each"));
}

RBM_TEST_MAIN
