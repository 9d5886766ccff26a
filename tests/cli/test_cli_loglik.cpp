// rbmscope-cli loglik on the held-out rows of the trained digits fixture against the exact value
// computed here by enumeration, its tempering path (--no-exact) within its errors, the exact
// pseudo-likelihood, bad input; and pt's "log_z" object (contract, exact_log_z, thread counts).
#include <cmath>
#include <fstream>

#include "../core/check.hpp"
#include "cli_checks.hpp"
#include "core/data/datasets.hpp"
#include "core/exact/exact.hpp"
#include "core/io/model_io.hpp"
#include "core/training/heldout.hpp"

using namespace rbm;
using nlohmann::json;

using rbm::test::expect_one_line_error;

namespace {

// tests/data/models/README.md: trained on the first 1200 binarized digits.
const std::string kModel = RBMSCOPE_TEST_DATA "/models/digits-brbm16.json";

// The held-out rows 1200.. of the binarized digits, as 0/1 CSV.
struct Split {
    std::string csv;
    RowMat X;
};
const Split& test_split() {
    static const Split s = [] {
        TrainingData t;
        t.data = "digits";
        t.binarize = 0.5;
        const Dataset d = load_training_data(t);
        Split out;
        out.X = d.X.bottomRows(d.X.rows() - 1200);
        std::string text;
        for (Index r = 0; r < out.X.rows(); ++r)
            for (Index i = 0; i < out.X.cols(); ++i)
                text += (out.X(r, i) != 0 ? "1" : "0") + std::string(i + 1 < out.X.cols() ? "," : "\n");
        out.csv = test::write_temp("digits-test-split.csv", text);
        return out;
    }();
    return s;
}

double half_width_se(const json& ci) { return (ci[1].get<double>() - ci[0].get<double>()) / (2 * 1.96); }

}  // namespace

TEST_CASE("loglik on a test split equals the exact held-out log-likelihood") {
    const Split& s = test_split();
    CHECK(s.X.rows() == 597);
    const Model m = load_model(kModel);
    const double log_z = exact_log_z(m);
    const double exact = log_unnorm_rows(m, s.X).mean() - log_z;
    const json j = test::run_ok("loglik '" + kModel + "' --data '" + s.csv + "'");
    std::printf("  held-out log-likelihood %.6f (exact %.6f), pseudo %.4f\n", j["log_likelihood"].get<double>(), exact,
                j["pseudo_log_likelihood"].get<double>());
    CHECK(j["log_z_method"] == "exact");
    CHECK(j["rows"] == 597);
    CHECK_NEAR(j["log_z"].get<double>(), log_z, 1e-9);
    CHECK_NEAR(j["log_likelihood"].get<double>(), exact, 1e-9);
    CHECK_NEAR(j["ci95"][0].get<double>(), exact, 1e-9);
    CHECK_NEAR(j["ci95"][1].get<double>(), exact, 1e-9);
    CHECK(j["warnings"].is_array() && j["warnings"].empty());
    CHECK(!j.contains("exact_log_z"));
    const double pll = brbm_pseudo_log_likelihood(*m.as<Brbm>(), s.X).mean();
    CHECK_NEAR(j["pseudo_log_likelihood"].get<double>(), pll, 1e-9);
    // The training rows score higher than the held-out ones (a fit, not noise).
    const json train = test::run_ok("loglik '" + kModel + "'");  // the data the file records: the first 1200
    CHECK(train["rows"] == 1200);
    CHECK(train["log_likelihood"].get<double>() > j["log_likelihood"].get<double>());
}

TEST_CASE("loglik --no-exact: tempering BAR within its errors of the exact value") {
    const Split& s = test_split();
    const Model m = load_model(kModel);
    const double exact = log_unnorm_rows(m, s.X).mean() - exact_log_z(m);
    const json j = test::run_ok("loglik '" + kModel + "' --data '" + s.csv + "' --no-exact --seed 3 --threads 2");
    const double ll = j["log_likelihood"].get<double>(), se = half_width_se(j["ci95"]);
    std::printf("  %.4f +- %.4f vs exact %.4f (%.1f se)\n", ll, se, exact, (ll - exact) / se);
    CHECK(j["log_z_method"] == "pt-bar");
    CHECK_NEAR(j["exact_log_z"].get<double>(), exact_log_z(m), 1e-9);
    CHECK(std::fabs(ll - exact) < 4 * se);
    CHECK(se > 0 && 4 * se < 0.2);  // an error of 0.2 nats would be caught
    CHECK(j["warnings"].empty());
    const json& e = j["log_z_estimates"];
    CHECK(std::fabs(e["bar"]["estimate"].get<double>() - j["log_z"].get<double>()) < 1e-12);
    CHECK(std::fabs(e["stepping_stone"]["estimate"].get<double>() - exact_log_z(m)) <
          4 * e["stepping_stone"]["se"].get<double>());
    CHECK(e["batches"] == 20 && e["chains"] == 8);
}

TEST_CASE("loglik: warnings and bad input") {
    // Scaled, not binarized: the BRBM sees fractional v, which the result says.
    const json frac = test::run_ok("loglik '" + kModel + "' --data digits --scale --limit 50");
    CHECK(frac["warnings"].size() == 1 && frac["pseudo_log_likelihood"].is_null());
    expect_one_line_error(test::run_cli("loglik '" + kModel + "' --data bars:3"), "data shape", "values per example");
    expect_one_line_error(test::run_cli("loglik '" + kModel + "' --data digits"), "range", "must lie in [0, 1]");
    expect_one_line_error(test::run_cli("loglik '" + kModel + "' --data digits --binarize 0.5 --chains 4"),
                          "tempering option with exact log Z", "--no-exact");
    expect_one_line_error(test::run_cli("loglik four-mode"), "no data", "--data SPEC");
}

TEST_CASE("pt log_z: contract, exact_log_z, the same bits at any thread count") {
    const std::string run = "pt four-mode --chains 8 --sweeps 1500 --seed 4 --threads ";
    const json one = test::run_ok(run + "1"), two = test::run_ok(run + "2");
    CHECK(one["log_z"] == two["log_z"]);
    const json& z = one["log_z"];
    const double exact = one["exact_log_z"].get<double>();
    for (const char* method : {"stepping_stone", "bar"}) {
        const json& e = z[method];
        const double est = e["estimate"].get<double>(), se = e["se"].get<double>();
        std::printf("  four-mode %s %.4f +- %.4f, exact %.4f\n", method, est, se, exact);
        CHECK(std::fabs(est - exact) < 4 * se && se < 0.05);
        CHECK_NEAR(e["ci95"][0].get<double>(), est - 1.96 * se, 1e-12);
        CHECK(e["log_ratios"].size() == 7);  // beta = 0 from reference draws + the 6 pairs of the ladder
        double sum = z["reference_log_z"].get<double>();
        for (const auto& r : e["log_ratios"]) sum += r.get<double>();
        CHECK_NEAR(sum, est, 1e-9);
    }
    CHECK(z["reference_draws"] == true && z["batches"] == 20 && z["burn_in"] == 150);
    expect_one_line_error(test::run_cli("pt four-mode --log-z-batches 1"), "batches", "--log-z-batches");
}

RBM_TEST_MAIN
