// rbmscope-cli pt: the JSON contract, round-trip rate against the DEO formula with exact local
// moves, the adaptive ladder, the trajectory file, thread-count independence, bad input.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>

#include "../core/check.hpp"
#include "cli_checks.hpp"

using namespace rbm;
using nlohmann::json;

using rbm::test::expect_one_line_error;

namespace {

// Reference N(0, I) -> target N((3,-2), [[.5,.3],[.3,.8]]): exact draws at every rung.
std::string exact_moves_model() {
    return test::write_temp("pt-gauss.json", R"({"format": "rbmscope-model", "version": 1, "kind": "gaussian",
        "mean": [3, -2], "cov": [[0.5, 0.3], [0.3, 0.8]],
        "anneal_from": {"format": "rbmscope-model", "version": 1, "kind": "gaussian",
                        "mean": [0, 0], "cov": [[1, 0], [0, 1]]}})");
}

double max_over_min(const json& r) {
    const auto v = r.get<std::vector<double>>();
    return *std::max_element(v.begin(), v.end()) / *std::min_element(v.begin(), v.end());
}

}  // namespace

TEST_CASE("pt four-mode: every key, consistent statistics") {
    const auto r = test::run_cli("pt four-mode --scheme deo --chains 4 --sweeps 400 --seed 3");
    CHECK_MSG(r.exit_code == 0, r.err);
    if (r.exit_code != 0) return;
    const json j = r.json();
    for (const char* key : {"betas", "swap_acceptance", "round_trips", "round_trip_rate", "predicted_round_trip_rate",
                            "barrier", "restarts", "rejection", "local_barrier", "recommended_n", "seconds",
                            "swaps_proposed", "swaps_accepted", "round_trips_per_replica", "family", "kernel"})
        CHECK_MSG(j.contains(key), key);
    CHECK(j["betas"].size() == 7);  // default: geometric, gamma 0.7, N = 6
    CHECK_NEAR(j["betas"][0].get<double>(), std::pow(0.7, 6), 1e-12);
    CHECK(j["swap_acceptance"].size() == 6 && j["rejection"].size() == 6);
    double sum = 0;
    for (std::size_t k = 0; k < 6; ++k) {
        const double a = j["swap_acceptance"][k].get<double>(), rk = j["rejection"][k].get<double>();
        CHECK(a >= 0 && a <= 1);
        CHECK_NEAR(a + rk, 1.0, 1e-12);
        sum += rk;
    }
    CHECK_NEAR(j["barrier"].get<double>(), sum, 1e-12);
    CHECK(j["recommended_n"].get<long>() == static_cast<long>(std::ceil(2 * sum)));
    CHECK(j["round_trips"].get<long>() > 0);
    CHECK(j["restarts"].get<long>() >= j["round_trips"].get<long>());
    CHECK_NEAR(j["round_trip_rate"].get<double>(), j["round_trips"].get<double>() / (4.0 * 400.0), 1e-12);
    CHECK(j["local_barrier"]["beta"].size() == j["local_barrier"]["lambda"].size());
}

TEST_CASE("pt with exact local moves: DEO rate within 10% of 1/(2+2E), reversible slower") {
    const std::string model = exact_moves_model();
    const auto d = test::run_cli("pt '" + model +
                                 "' --scheme deo --ladder linear --replicas 11 --chains 32 --sweeps 4000 --seed 5");
    const auto r = test::run_cli(
        "pt '" + model + "' --scheme reversible --ladder linear --replicas 11 --chains 32 --sweeps 4000 --seed 6");
    CHECK_MSG(d.exit_code == 0 && r.exit_code == 0, d.err << r.err);
    if (d.exit_code != 0 || r.exit_code != 0) return;
    const json jd = d.json(), jr = r.json();
    const double rate = jd["round_trip_rate"].get<double>(), pred = jd["predicted_round_trip_rate"].get<double>();
    std::printf("  DEO %.5f vs %.5f; reversible %.5f vs %.5f\n", rate, pred, jr["round_trip_rate"].get<double>(),
                jr["predicted_round_trip_rate"].get<double>());
    CHECK_NEAR(rate / pred, 1.0, 0.10);
    CHECK(jr["round_trip_rate"].get<double>() < 0.5 * rate);
    CHECK(jd["kernel"] == "exact draws");
}

TEST_CASE("pt --adaptive evens out the rejections where a linear ladder fails") {
    // two-gaussians: nearly all of the barrier sits at the ends of a linear ladder.
    const std::string base = "pt two-gaussians --ladder linear --replicas 20 --chains 16 --sweeps 2000 --seed 2";
    const auto lin = test::run_cli(base);
    const auto ada = test::run_cli(base + " --adaptive 3");
    CHECK_MSG(lin.exit_code == 0 && ada.exit_code == 0, lin.err << ada.err);
    if (lin.exit_code != 0 || ada.exit_code != 0) return;
    const json jl = lin.json(), ja = ada.json();
    std::printf("  max/min r_k linear %.2f adaptive %.2f; round trips %ld -> %ld\n", max_over_min(jl["rejection"]),
                max_over_min(ja["rejection"]), jl["round_trips"].get<long>(), ja["round_trips"].get<long>());
    CHECK(max_over_min(jl["rejection"]) > 2.5);  // r_0 near 1 at the end, about 0.3 in the middle
    CHECK(max_over_min(ja["rejection"]) < 2.0);
    CHECK(ja["round_trips"].get<long>() > 10 * (jl["round_trips"].get<long>() + 1));
    CHECK(ja["adaptive_rounds"].size() == 3);
    CHECK(ja["adaptive_rounds"][0]["sweeps"] == 250);
    CHECK(ja["betas"].size() == 20 && ja["betas"][0] == 0.0 && ja["betas"][19] == 1.0);
}

TEST_CASE("pt --trajectory: one permutation per scan and chain; same output at 1 and 2 threads") {
    const auto f1 = (test::temp_dir() / "traj1.csv").string(), f2 = (test::temp_dir() / "traj2.csv").string();
    const std::string base = "pt four-mode --scheme lifted --chains 130 --sweeps 50 --seed 9 --trajectory-chains 3";
    const auto a = test::run_cli(base + " --threads 1 --trajectory '" + f1 + "'");
    const auto b = test::run_cli(base + " --threads 2 --trajectory '" + f2 + "'");
    CHECK_MSG(a.exit_code == 0 && b.exit_code == 0, a.err << b.err);
    if (a.exit_code != 0 || b.exit_code != 0) return;
    json ja = a.json(), jb = b.json();
    CHECK(ja.contains("lifted_round_trip_rate"));
    for (json* j : {&ja, &jb}) {
        *j = test::without_provenance(*j);
        j->erase("seconds");
        (*j)["trajectory"].erase("file");
    }
    CHECK(ja == jb);
    std::ifstream in1(f1), in2(f2);
    std::string s1((std::istreambuf_iterator<char>(in1)), {}), s2((std::istreambuf_iterator<char>(in2)), {});
    CHECK(!s1.empty() && s1 == s2);
    std::istringstream lines(s1);
    std::string line;
    std::getline(lines, line);
    CHECK(line == "scan,chain,rung_0,rung_1,rung_2,rung_3,rung_4,rung_5,rung_6");
    int rows = 0;
    bool perm = true;
    while (std::getline(lines, line)) {
        ++rows;
        std::istringstream cells(line);
        std::string cell;
        std::vector<int> v;
        while (std::getline(cells, cell, ',')) v.push_back(std::stoi(cell));
        std::set<int> ids(v.begin() + 2, v.end());
        perm = perm && v.size() == 9 && ids.size() == 7 && *ids.begin() == 0 && *ids.rbegin() == 6;
    }
    CHECK(rows == 50 * 3);
    CHECK(perm);
}

TEST_CASE("pt bad input: exit 2 with one line naming the problem") {
    expect_one_line_error(test::run_cli("pt four-mode --betas 0,0.5,0.4,1"), "non-increasing betas",
                          "strictly increasing");
    expect_one_line_error(test::run_cli("pt four-mode --betas 0,0.5,0.9"), "last beta", "last beta must be 1");
    expect_one_line_error(test::run_cli("pt four-mode --betas 1"), "single beta", "at least 2");
    expect_one_line_error(test::run_cli("pt four-mode --replicas 1"), "N < 1", "--replicas");
    expect_one_line_error(test::run_cli("pt four-mode --scheme metropolis"), "unknown scheme", "metropolis");
    expect_one_line_error(test::run_cli("pt four-mode --betas 0,1 --ladder linear"), "conflict", "drop --ladder");
    expect_one_line_error(test::run_cli("pt four-mode --gamma 1.5"), "gamma", "gamma");
    expect_one_line_error(test::run_cli("pt four-mode --ladder linear --gamma 0.5"), "gamma with linear", "--gamma");
    expect_one_line_error(test::run_cli("pt four-mode --chains 0"), "chains", "--chains");
    expect_one_line_error(test::run_cli("pt four-mode --sweeps x"), "sweeps", "--sweeps");
    expect_one_line_error(test::run_cli("pt no-such-model"), "model", "no-such-model");
    expect_one_line_error(test::run_cli("pt four-mode --trajectory-chains 2"), "trajectory-chains", "--trajectory");
    const auto h = test::run_cli("pt --help");
    CHECK(h.exit_code == 0 && h.out.find("--adaptive") != std::string::npos);
}

RBM_TEST_MAIN
