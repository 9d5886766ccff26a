// rbmscope-cli ais / ais-sweep: the JSON contract of docs/user/cli.md, agreement with exact log Z,
// thread-count independence through the binary, and bad input (exit 2, one stderr line).
#include <chrono>
#include <cmath>

#include "../core/check.hpp"
#include "../core/test_random_models.hpp"
#include "../core/test_support.hpp"
#include "cli_checks.hpp"
#include "core/io/model_io.hpp"

using namespace rbm;
using nlohmann::json;

using rbm::test::expect_one_line_error;

namespace {

const char* kGauss3 =
    R"({"format": "rbmscope-model", "version": 1, "kind": "gaussian", "mean": [0, 0, 0],
        "cov": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]})";
const char* kGaussStart =
    R"({"format": "rbmscope-model", "version": 1, "kind": "gaussian", "mean": [-10, 0],
        "cov": [[1, -0.85], [-0.85, 1]]})";
const char* kDiagBase =
    R"({"format": "rbmscope-model", "version": 1, "kind": "gaussian", "mean": [2, 2],
        "cov": [[5, 0], [0, 5]]})";

}  // namespace

TEST_CASE("ais: contract keys, exact comparison, reverse sandwich") {
    const auto r = test::run_cli("ais four-mode --steps 200 --chains 400 --seed 3 --reverse --checkpoints 5");
    CHECK_MSG(r.exit_code == 0, r.err);
    if (r.exit_code != 0) return;
    const json j = r.json();
    for (const char* key :
         {"log_z",        "log_z_low",       "log_z_high",   "ci95",        "ess",     "log_w_mean",
          "log_w_var",    "log_z0",          "ess_fraction", "exact_log_z", "path",    "kernel",
          "schedule",     "steps",           "chains",       "seed",        "notes",   "log_z_low_exists",
          "reverse",      "cost_functional", "histogram",    "running",     "seconds", "chain_sweeps_per_s",
          "bootstrap_sd", "complete"})
        CHECK_MSG(j.contains(key), key);
    const double lz = j["log_z"].get<double>(), ex = j["exact_log_z"].get<double>();
    CHECK(std::fabs(lz - ex) <= std::max(4 * j["bootstrap_sd"].get<double>(), 0.02));
    CHECK(j["ci95"].size() == 2 && j["ci95"][0].get<double>() <= lz && lz <= j["ci95"][1].get<double>());
    CHECK(j["log_z_low_exists"].get<bool>() && j["log_z_low"].get<double>() < lz && lz < j["log_z_high"].get<double>());
    CHECK(j["running"].size() == 5 && j["running"][4][0].get<double>() == 1.0);
    CHECK(j["histogram"]["counts"].size() == 40);
    CHECK(j["steps"] == 200 && j["chains"] == 400 && j["seed"] == 3 && j["schedule"] == "linear");
    const json& rev = j["reverse"];
    CHECK(rev["complete"].get<bool>());
    CHECK(std::fabs(rev["log_z_upper"].get<double>() - ex) <= 0.05);
    CHECK(rev["sandwich"].size() == 2);
}

TEST_CASE("ais: same result at 1 and 2 threads; schedules, --betas, --from, presets' anneal_from") {
    const std::string args = "ais bars-and-stripes --base uniform --steps 30 --chains 300 --seed 5 --schedule sigmoid";
    const auto a = test::run_cli(args + " --threads 1"), b = test::run_cli(args + " --threads 2");
    CHECK_MSG(a.exit_code == 0 && b.exit_code == 0, a.err << b.err);
    if (a.exit_code == 0 && b.exit_code == 0) {
        CHECK(a.json()["log_z"] == b.json()["log_z"]);
        CHECK(a.json()["ci95"] == b.json()["ci95"]);
    }
    const auto l = test::run_cli("ais four-mode --betas 0,0.1,0.3,0.6,1 --chains 50 --log-weights");
    CHECK_MSG(l.exit_code == 0, l.err);
    if (l.exit_code == 0) {
        CHECK(l.json()["schedule"] == "list" && l.json()["steps"] == 4);
        CHECK(l.json()["log_weights"].size() == 50);
    }
    // float32 (the step in single precision, its own draws): the same estimate within its Monte
    // Carlo error (4 combined bootstrap sd), not the same bits.
    const auto f64 = test::run_cli("ais four-mode --steps 100 --chains 500 --seed 4");
    const auto f32 = test::run_cli("ais four-mode --steps 100 --chains 500 --seed 4 --precision float32");
    CHECK_MSG(f64.exit_code == 0 && f32.exit_code == 0, f64.err << f32.err);
    if (f64.exit_code == 0 && f32.exit_code == 0) {
        const double d = f32.json()["log_z"].get<double>() - f64.json()["log_z"].get<double>();
        const double sd32 = f32.json()["bootstrap_sd"].get<double>(), sd64 = f64.json()["bootstrap_sd"].get<double>();
        CHECK(d != 0.0 && std::fabs(d) < 4 * std::hypot(sd32, sd64));
        CHECK(sd64 < 0.05);  // tight enough to mean something
        CHECK(f32.json()["precision"] == "float32");
    }
    for (const char* s :
         {"four-period --steps 40", "piecewise --steps 300", "geometric --steps 40", "binned --steps 40"}) {
        const auto r = test::run_cli(std::string("ais four-mode --chains 20 --schedule ") + s);
        CHECK_MSG(r.exit_code == 0, s << ": " << r.err);
    }
    // The two-Gaussians preset anneals from its stored start; an explicit --from of the same
    // start gives the same numbers.
    const std::string start = test::write_temp("gauss_start.json", kGaussStart);
    const auto stored = test::run_cli("ais two-gaussians --path moments --perfect --steps 25 --chains 2000");
    const auto given =
        test::run_cli("ais two-gaussians --path moments --perfect --steps 25 --chains 2000 --from '" + start + "'");
    CHECK_MSG(stored.exit_code == 0 && given.exit_code == 0, stored.err << given.err);
    if (stored.exit_code == 0 && given.exit_code == 0) {
        CHECK(stored.json()["log_z"] == given.json()["log_z"]);
        CHECK(std::fabs(stored.json()["log_z"].get<double>()) < 2.0);
        CHECK(stored.json()["exact_log_z"].get<double>() == 0.0);
    }
    // A diagonal Gaussian --from for a GRBM is the geometric path's base.
    const auto diag = test::run_cli("ais four-mode --from '" + test::write_temp("diag.json", kDiagBase) +
                                    "' --steps 100 --chains 200");
    CHECK_MSG(diag.exit_code == 0, diag.err);
    if (diag.exit_code == 0)
        CHECK(diag.json()["path_name"].get<std::string>().find("given diagonal Gaussian") != std::string::npos);
    // Base rate from a data file (BRBM).
    std::string csv = "# 4x4 images\n";
    for (int r = 0; r < 6; ++r) csv += "1,1,1,1,0,0,0,0,1,1,1,1,0,0,0,0\n0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1\n";
    const auto data = test::run_cli("ais bars-and-stripes --base data --data '" + test::write_temp("bas.csv", csv) +
                                    "' --steps 30 --chains 50");
    CHECK_MSG(data.exit_code == 0, data.err);
    if (data.exit_code == 0)
        CHECK(data.json()["path_name"].get<std::string>().find("data (12 rows)") != std::string::npos);
}

TEST_CASE("ais: bad input -> exit 2 and one line naming the problem") {
    const std::string g3 = test::write_temp("gauss3.json", kGauss3);
    expect_one_line_error(test::run_cli("ais four-mode --betas 0,0.5,0.4,1"), "non-increasing betas",
                          "not increasing at step 2: 0.5 then 0.4");
    expect_one_line_error(test::run_cli("ais four-mode --chains 0"), "zero chains", "--chains");
    expect_one_line_error(test::run_cli("ais four-mode --steps 0"), "zero steps", "--steps");
    expect_one_line_error(test::run_cli("ais four-mode --from '" + g3 + "'"), "wrong --from dimension",
                          "the base model has 3 visible units, the target 2");
    expect_one_line_error(test::run_cli("ais bars-and-stripes --path cov"), "cov on a BRBM",
                          "--path cov (AISC) needs a GRBM target, but the model is a brbm");
    expect_one_line_error(test::run_cli("ais four-mode --path sideways"), "unknown path", "--path must be one of");
    expect_one_line_error(test::run_cli("ais four-mode --path leaky"), "leaky on a GRBM", "needs a leaky RBM target");
    expect_one_line_error(test::run_cli("ais four-mode --base uniform"), "uniform base on a GRBM",
                          "--base uniform is for BRBMs");
    expect_one_line_error(test::run_cli("ais four-mode --precision float32 --path cov"), "float32 on cov",
                          "float32 is available for the geometric GRBM/BRBM paths only, not --path cov");
    expect_one_line_error(test::run_cli("ais four-mode --precision float16"), "float16", "--precision must be one of");
    expect_one_line_error(test::run_cli("ais four-mode --kernel paper-gibbs"), "kernel on a GRBM", "--kernel");
    expect_one_line_error(test::run_cli("ais four-mode --base data"), "data base without data", "--data FILE");
    expect_one_line_error(test::run_cli("ais four-mode --schedule binned --path cov --steps 5"), "binned without knots",
                          "knots");
    expect_one_line_error(test::run_cli("ais four-mode --chains 10 --steps 3 --schedule four-period"),
                          "four-period K<4", "at least 4 steps");
    expect_one_line_error(test::run_cli("ais bars-and-stripes --data '" + test::write_temp("bad.csv", "1,0,2\n") + "'"),
                          "bad data columns", "has 3 values, the model 16 visible units");
    expect_one_line_error(test::run_cli("ais two-gaussians --steps 10 --chains 10 --from four-mode"), "brbm-ish from",
                          "a gaussian target anneals from a gaussian");
}

TEST_CASE("ais-sweep: json and csv tables over methods and K") {
    const auto r = test::run_cli(
        "ais-sweep four-mode --methods geometric:moment,geometric:sigma --steps 10,40 --chains 100 "
        "--repeats 3 --seed 2");
    CHECK_MSG(r.exit_code == 0, r.err);
    if (r.exit_code == 0) {
        const json j = r.json();
        CHECK(j["results"].size() == 4);
        for (const auto& row : j["results"])
            for (const char* key :
                 {"method", "steps", "log_z_mean", "log_z_sd", "ci95_low_mean", "ci95_high_mean", "ess_mean"})
                CHECK_MSG(row.contains(key), key);
        CHECK(j["results"][1]["steps"] == 40 && j["results"][2]["method"] == "geometric:sigma");
        CHECK(j.contains("exact_log_z"));
        // Repeat 0 of a sweep is `ais --seed S`.
        const auto one = test::run_cli("ais-sweep four-mode --steps 10 --chains 100 --repeats 1 --seed 2");
        const auto single = test::run_cli("ais four-mode --steps 10 --chains 100 --seed 2");
        CHECK(one.json()["results"][0]["log_z_mean"] == single.json()["log_z"]);
    }
    const auto c = test::run_cli("ais-sweep four-mode --steps 10,20,30 --chains 50 --repeats 2 --format csv");
    CHECK_MSG(c.exit_code == 0, c.err);
    int lines = 0;
    for (char ch : c.out) lines += ch == '\n';
    CHECK(lines == 4);
    CHECK(c.out.rfind("method,path,base,steps,chains,repeats,log_z_mean,log_z_sd", 0) == 0);
    expect_one_line_error(test::run_cli("ais-sweep four-mode --methods geometric:wobbly"), "bad method",
                          "unknown base 'wobbly'");
    expect_one_line_error(test::run_cli("ais-sweep four-mode --steps 10,0"), "zero steps in sweep", "--steps");
}

// The sweep's JSON without the measured "seconds" fields (the only ones that vary between runs).
json without_seconds(json j) {
    for (auto& row : j["results"]) row.erase("seconds");
    return test::without_provenance(j);
}

TEST_CASE("ais-sweep: interrupted and resumed from a checkpoint gives the uninterrupted output") {
    const std::string sweep =
        "ais-sweep four-mode --methods geometric:moment,geometric:sigma --steps 10,30 --chains 60 "
        "--repeats 3 --seed 5 --reverse ";
    const auto whole = test::run_cli(sweep);
    CHECK_MSG(whole.exit_code == 0, whole.err);
    if (whole.exit_code != 0) return;
    const std::string ck = (test::temp_dir() / "sweep-ck.json").string();
    // 12 runs; stop after 5 (checkpoint every 2: the 5th is saved on stopping), resume, stop again
    // after 4, then finish: three invocations, each doing only the missing runs.
    const auto first = test::run_cli(sweep + "--checkpoint " + ck + " --checkpoint-every 2 --stop-after 5");
    CHECK_MSG(first.exit_code == 0, first.err);
    CHECK(first.json()["runs_done"] == 5);
    const auto second = test::run_cli(sweep + "--resume " + ck + " --stop-after 4 --threads 1");
    CHECK_MSG(second.exit_code == 0, second.err);
    CHECK(second.json()["runs_done"] == 9);
    const auto last = test::run_cli(sweep + "--resume " + ck);
    CHECK_MSG(last.exit_code == 0, last.err);
    if (last.exit_code != 0) return;
    CHECK(without_seconds(last.json()).dump() == without_seconds(whole.json()).dump());
    // Resuming a complete checkpoint runs nothing and prints the same; csv output works too.
    const auto again = test::run_cli(sweep + "--resume " + ck);
    CHECK(again.out == last.out);
    const auto csv = test::run_cli(sweep + "--resume " + ck + " --format csv");
    CHECK(csv.exit_code == 0 && csv.out.rfind("method,path,base,steps", 0) == 0);
    // Killed outright after its first checkpoint: the checkpoint is complete JSON and resumes.
    const std::string killed = (test::temp_dir() / "sweep-killed.json").string();
    CHECK(test::run_cli("ais-sweep four-mode --steps 10,30,100,300,1000,3000 --chains 500 --repeats 50 --checkpoint " +
                        killed + " & pid=$!; for i in $(seq 1200); do [ -s " + killed +
                        " ] && break; sleep 0.05; done; kill -KILL $pid; wait $pid")
              .exit_code == 137);
    const auto after_kill = test::run_cli(
        "ais-sweep four-mode --steps 10,30,100,300,1000,3000 --chains 500 --repeats 50 "
        "--resume " +
        killed + " --stop-after 1");
    CHECK_MSG(after_kill.exit_code == 0 && after_kill.json()["runs_done"] >= 2, after_kill.err);
    // Other options than the checkpoint's: refused, naming the option.
    std::string changed = sweep;  // each option once: a repeated one is refused before the checkpoint is read
    changed.replace(changed.find("--chains 60"), 11, "--chains 61");
    expect_one_line_error(test::run_cli(changed + "--resume " + ck), "changed chains", "--chains differs");
    expect_one_line_error(test::run_cli("ais-sweep four-mode --methods geometric:moment,geometric:sigma --steps 10,30 "
                                        "--chains 60 --repeats 3 --seed 5 --resume " +
                                        ck),
                          "dropped --reverse", "--reverse differs");
    expect_one_line_error(test::run_cli(sweep + "--resume " + test::write_temp("not-ck.json", "{}")),
                          "not a checkpoint", "not an ais-sweep checkpoint");
    expect_one_line_error(test::run_cli(sweep + "--stop-after 2"), "stop without checkpoint", "--stop-after needs");
}

TEST_CASE("ais, ais-sweep: an interval from ESS under 30 carries a warning; ESS 30+ none") {
    // 20 chains: ESS <= N = 20 < 30 whatever the weights.
    const auto few = test::run_cli("ais four-mode --steps 20 --chains 20 --seed 2");
    CHECK_MSG(few.exit_code == 0, few.err);
    if (few.exit_code != 0) return;
    const json j = few.json();
    CHECK(j["ess"].get<double>() < 30);
    CHECK_MSG(j.contains("warnings") && j["warnings"].size() == 1, j.dump());
    if (j.contains("warnings") && !j["warnings"].empty()) {
        const std::string w = j["warnings"][0].get<std::string>();
        CHECK_MSG(w.find("unreliable") != std::string::npos && w.find("ESS") != std::string::npos, w);
    }
    const auto many = test::run_cli("ais four-mode --steps 200 --chains 400 --seed 3");
    CHECK_MSG(many.exit_code == 0, many.err);
    if (many.exit_code == 0) {
        const json m = many.json();
        CHECK(m["ess"].get<double>() >= 30);
        CHECK_MSG(!m.contains("warnings"), m.dump());
    }
    const auto sweep =
        test::run_cli("ais-sweep four-mode --methods geometric:moment --steps 10 --chains 20 --repeats 1 --seed 2");
    CHECK_MSG(sweep.exit_code == 0, sweep.err);
    if (sweep.exit_code == 0) {
        const json s = sweep.json();
        CHECK_MSG(s.contains("warnings") && s["warnings"].size() == 1, s.dump());
        if (s.contains("warnings") && !s["warnings"].empty())
            CHECK(s["warnings"][0].get<std::string>().find("K = 10") != std::string::npos);
    }
}

TEST_CASE("ais --reverse beyond 2^16 configurations: exact start refused at once, PT start runs; JSON says where") {
    // 784 x 30: 2^30 hidden configurations (not even log Z is enumerated, which keeps the runs short).
    // Exact target samples are impossible; before this refusal a 784 x 20 model's command enumerated
    // the exact target moments for minutes first.
    const rbm::Model big = rbm::test::as_model(rbm::test::random_brbm(3, 784, 30, 0.05));
    const std::string file = (rbm::test::temp_dir() / "big784x30.json").string();
    rbm::save_model(big, file);
    const auto t0 = std::chrono::steady_clock::now();
    const auto refused = test::run_cli("ais " + file + " --base moment --reverse --reverse-start exact --steps 10");
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(refused.exit_code == 2);
    CHECK_MSG(refused.err.find("--reverse-start pt") != std::string::npos, refused.err);
    CHECK_MSG(took < 1.0, took << " s");
    CHECK(test::run_cli("ais " + file + " --perfect --steps 10").exit_code == 2);
    CHECK(test::run_cli("ais " + file + " --reverse-start pt --steps 10").exit_code == 2);  // needs --reverse
    // Default start beyond 2^16: PT.
    const auto r = test::run_cli("ais " + file +
                                 " --base uniform --reverse --steps 100 --chains 20 --reverse-burn-in 50 "
                                 "--reverse-spacing 2 --seed 4");
    CHECK_MSG(r.exit_code == 0, r.err);
    if (r.exit_code != 0) return;
    const json j = r.json();
    CHECK(j["reverse_start"] == "pt");
    CHECK(j["reverse"]["start"] == "pt");
    CHECK(j["reverse"]["start_description"].get<std::string>().find("parallel tempering") != std::string::npos);
    CHECK(std::isfinite(j["reverse"]["log_z_upper"].get<double>()));
    // Same numbers at any thread count.
    const auto r2 = test::run_cli("ais " + file +
                                  " --base uniform --reverse --steps 100 --chains 20 --reverse-burn-in 50 "
                                  "--reverse-spacing 2 --seed 4 --threads 1");
    CHECK(r2.json()["reverse"]["log_z_upper"] == j["reverse"]["log_z_upper"]);
}

TEST_CASE("ais --reverse-start: exact by default when enumerable, pt and data on request, each named") {
    const auto ex = test::run_cli("ais four-mode --steps 100 --chains 50 --reverse");
    CHECK_MSG(ex.exit_code == 0, ex.err);
    CHECK(ex.json()["reverse"]["start"] == "exact");
    const auto pt =
        test::run_cli("ais four-mode --steps 100 --chains 50 --reverse --reverse-start pt --reverse-burn-in 100");
    CHECK_MSG(pt.exit_code == 0, pt.err);
    const json p = pt.json();
    CHECK(p["reverse"]["start"] == "pt");
    CHECK(std::abs(p["reverse"]["log_z_upper"].get<double>() - p["exact_log_z"].get<double>()) < 0.5);
    const std::string rows = test::write_temp("fm-rows.csv", "1 2\n-1 0\n0.5 0.5\n2 -1\n");
    const auto da =
        test::run_cli("ais four-mode --steps 100 --chains 50 --reverse --reverse-start data --data " + rows);
    CHECK_MSG(da.exit_code == 0, da.err);
    const json d = da.json();
    CHECK(d["reverse_start"] == "data");
    CHECK(d["reverse"]["start_data_rows"] == 4);
    CHECK(d["reverse"]["start_note"].get<std::string>().find("RAISE") != std::string::npos);
    const auto none = test::run_cli("ais four-mode --steps 10 --reverse --reverse-start data");
    CHECK(none.exit_code == 2);
}

RBM_TEST_MAIN
