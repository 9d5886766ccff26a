// rbmscope-cli meanfield / meanfield-sweep: the JSON contract on the four-mode preset, agreement
// with `rbmscope-cli exact`, Proposition 2 through the binary, and bad input (exit 2, one line).
#include <cmath>

#include "../core/check.hpp"
#include "cli_runner.hpp"

using namespace rbm;
using nlohmann::json;

namespace {

void expect_one_line_error(const test::CliResult& r, const char* what) {
    CHECK_MSG(r.exit_code == 2, what << ": exit " << r.exit_code);
    CHECK_MSG(r.stderr_lines() == 1, what << ": stderr '" << r.err << "'");
    CHECK_MSG(r.out.empty(), what << ": stdout '" << r.out << "'");
}

}  // namespace

TEST_CASE("meanfield on four-mode: keys, exact comparison, ordering of the free energies") {
    const auto r2 = test::run_cli("meanfield four-mode --type 2");
    CHECK_MSG(r2.exit_code == 0, r2.err);
    if (r2.exit_code != 0) return;
    const json j2 = r2.json();
    for (const char* key : {"free_energy", "mean_v", "mean_h", "iterations", "converged", "mean_h2", "var_v", "cov_v",
                            "fixed_points", "exact", "residual"})
        CHECK_MSG(j2.contains(key), key);
    CHECK(j2["mean_v"].size() == 2 && j2["mean_h"].size() == 2 && j2["cov_v"].size() == 2);
    CHECK(j2["converged"].get<bool>());
    CHECK(j2["fixed_points"].size() >= 1);
    for (const char* key : {"free_energy", "mean_v", "mean_h", "mse_h", "mse_v"})
        CHECK_MSG(j2["exact"].contains(key), key);

    // The exact part agrees with the exact command; F_II is an upper bound on -log Z.
    const auto ex = test::run_cli("exact four-mode");
    CHECK(ex.exit_code == 0);
    const double log_z = ex.json()["log_z"].get<double>();
    CHECK_NEAR(j2["exact"]["free_energy"].get<double>(), -log_z, 1e-9);
    CHECK(j2["free_energy"].get<double>() >= -log_z - 1e-9);
    const auto mv = ex.json()["mean_v"];
    CHECK_NEAR(j2["exact"]["mean_v"][0].get<double>(), mv[0].get<double>(), 1e-9);

    const auto r1 = test::run_cli("meanfield four-mode --type 1 --update parallel --damping 0.5 --restarts 4 --seed 3");
    CHECK_MSG(r1.exit_code == 0, r1.err);
    const json j1 = r1.json();
    CHECK(!j1.contains("cov_v"));
    CHECK(j1["free_energy"].get<double>() >= j2["free_energy"].get<double>() - 1e-9);
    CHECK(j1["options"]["update"] == "parallel");

    const auto rt = test::run_cli("meanfield four-mode --type tap --tol 1e-12 --max-iterations 500");
    CHECK_MSG(rt.exit_code == 0, rt.err);
    const json jt = rt.json();
    CHECK(jt["free_energy_is_bound"] == false);
    CHECK(jt.contains("cov_v") && jt.contains("note"));
}

TEST_CASE("meanfield --trace: one entry per sweep of the reported restart, ending on its values") {
    const auto plain = test::run_cli("meanfield four-mode --type 2");
    const auto traced = test::run_cli("meanfield four-mode --type 2 --trace");
    CHECK_MSG(plain.exit_code == 0 && traced.exit_code == 0, traced.err);
    if (traced.exit_code != 0) return;
    json j = traced.json();
    CHECK(!plain.json().contains("trace"));
    CHECK(j.contains("trace"));
    const json t = j["trace"];
    const auto n = j["iterations"].get<std::size_t>();
    for (const char* key : {"free_energy", "residual", "change"}) CHECK_MSG(t.contains(key) && t[key].size() == n, key);
    if (n == 0 || t["free_energy"].size() != n) return;
    // JSON doubles round-trip exactly, so these are equalities.
    CHECK(t["free_energy"].back().get<double>() == j["free_energy"].get<double>());
    CHECK(t["residual"].back().get<double>() == j["residual"].get<double>());
    CHECK(t["change"].back().get<double>() < 1e-10);  // converged: the last sweep moved no mean by tol
    // Type II sweeps in sequence never raise the free energy.
    for (std::size_t i = 0; i + 1 < n; ++i)
        CHECK(t["free_energy"][i + 1].get<double>() <= t["free_energy"][i].get<double>() + 1e-12);
    // Everything else is unchanged by --trace.
    j.erase("trace");
    CHECK(test::without_provenance(j) == test::without_provenance(plain.json()));

    // TAP on the four-mode toy does not converge: the trace runs to the cap with the residual up.
    const auto tap = test::run_cli("meanfield four-mode --type tap --max-iterations 300 --trace");
    CHECK_MSG(tap.exit_code == 0, tap.err);
    const json jt = tap.json();
    CHECK(!jt["converged"].get<bool>());
    CHECK(jt["trace"]["residual"].size() == 300);
    CHECK(jt["trace"]["residual"].back().get<double>() > 1e-6);

    expect_one_line_error(test::run_cli("meanfield four-mode --trace --max-iterations 2000000"), "trace cap");
}

TEST_CASE("meanfield: same output with 1 and 2 threads") {
    const auto a = test::run_cli("meanfield four-mode --type tap --restarts 12 --threads 1");
    const auto b = test::run_cli("meanfield four-mode --type tap --restarts 12 --threads 2");
    CHECK(a.exit_code == 0 && b.exit_code == 0);
    if (a.exit_code == 0 && b.exit_code == 0)
        CHECK(test::without_provenance(a.json()) == test::without_provenance(b.json()));
}

TEST_CASE("meanfield: bad input gives exit 2 and one stderr line") {
    const auto bs = test::run_cli("meanfield bars-and-stripes --type 2");
    expect_one_line_error(bs, "brbm preset");
    CHECK_MSG(
        bs.err.find("mean field is defined for Gaussian RBMs (kind grbm); this model is brbm") != std::string::npos,
        bs.err);
    expect_one_line_error(test::run_cli("meanfield four-mode --damping 0"), "damping 0");
    expect_one_line_error(test::run_cli("meanfield four-mode --damping 1.5"), "damping 1.5");
    expect_one_line_error(test::run_cli("meanfield four-mode --type 3"), "type 3");
    expect_one_line_error(test::run_cli("meanfield four-mode --update random"), "update");
    expect_one_line_error(test::run_cli("meanfield four-mode --tol 0"), "tol 0");
    expect_one_line_error(test::run_cli("meanfield four-mode --max-iterations 0"), "max-iterations 0");
    expect_one_line_error(test::run_cli("meanfield no-such-model"), "missing model");
    const auto missing = test::run_cli("meanfield");
    expect_one_line_error(missing, "no MODEL");
}

TEST_CASE("meanfield-sweep: rows, csv, determinism and bad input") {
    const std::string args = "meanfield-sweep --visible 6 --hidden 4 --trials 6 --scales 0.1,0.6 --restarts 3";
    const auto r = test::run_cli(args + " --threads 1");
    CHECK_MSG(r.exit_code == 0, r.err);
    if (r.exit_code != 0) return;
    const json j = r.json();
    CHECK(j["rows"].size() == 2);
    CHECK(j.contains("distribution") && j.contains("seconds"));
    for (const auto& row : j["rows"]) {
        for (const char* m : {"type1", "type2", "tap"})
            for (const char* k : {"free_energy", "gap", "mse_h", "mse_v", "converged_fraction"})
                CHECK_MSG(row[m].contains(k), m << "." << k);
        // Proposition 2 on average: gap_I >= gap_II >= 0.
        CHECK(row["type1"]["gap"].get<double>() >= row["type2"]["gap"].get<double>());
        CHECK(row["type2"]["gap"].get<double>() >= 0);
    }
    auto two = test::run_cli(args + " --threads 2").json();
    auto one = j;
    one.erase("seconds");
    two.erase("seconds");
    CHECK(test::without_provenance(one) == test::without_provenance(two));

    const auto csv = test::run_cli(args + " --format csv");
    CHECK(csv.exit_code == 0);
    int lines = 0;
    for (char c : csv.out) lines += c == '\n';
    CHECK(lines == 3);
    CHECK(csv.out.rfind("scale,true_free_energy,f1,f2,ftap", 0) == 0);

    expect_one_line_error(test::run_cli("meanfield-sweep --hidden 30"), "2^30 configurations");
    expect_one_line_error(test::run_cli("meanfield-sweep --hidden-values 1,1"), "repeated hidden value");
    expect_one_line_error(test::run_cli("meanfield-sweep --scales 0.1,x"), "bad scale");
    expect_one_line_error(test::run_cli("meanfield-sweep --trials 0"), "trials 0");
}

RBM_TEST_MAIN
