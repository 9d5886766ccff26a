// rbmscope-cli logz (docs/user/cli.md#logz): the verdict on the trained digits fixture (16 hidden
// units, several separated modes: log Z is known by enumeration) trusts a good run whose interval
// covers the exact value; a planted failure (annealing far too short for bars-and-stripes) is not
// trusted and the estimate at fault is named; with the exact value known the verdict is it; each
// estimate's command line reproduces its number; thread counts; bad input; --progress jsonl gives one
// nondecreasing fraction over all the sub-runs and one final line.
#include <cmath>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../core/check.hpp"
#include "cli_checks.hpp"

using namespace rbm;
using nlohmann::json;

namespace {

const std::string kModel = RBMSCOPE_TEST_DATA "/models/digits-brbm16.json";
constexpr double kExactLogZ = 75.95562352435749;  // tests/data/models/README.md

const json& estimate(const json& j, const std::string& method) {
    for (const auto& e : j["estimates"])
        if (e["method"] == method) return e;
    static const json none;
    rbm::test::fail(__FILE__, __LINE__, "no estimate '" + method + "'");
    return none;
}

// One verdict on the digits fixture, shared by the cases that read it (each full run of the
// estimators takes ~25 s under ASan): --held-out and --progress ride along, and the first case
// checks that the estimates match a run without them.
const test::CliResult& digits_verdict() {
    static const test::CliResult r =
        test::run_cli("logz '" + kModel + "' --budget quick --no-exact --seed 3 --held-out digits --progress jsonl");
    return r;
}

json digits_verdict_json() {
    const test::CliResult& r = digits_verdict();
    CHECK_MSG(r.exit_code == 0, "logz on the digits fixture: exit " << r.exit_code << ": " << r.err);
    return r.exit_code == 0 ? json::parse(r.out) : json::object();
}

bool any_warning_mentions(const json& j, const std::string& what) {
    for (const auto& w : j["warnings"])
        if (w.get<std::string>().find(what) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("logz --no-exact on the trained digits model: independent estimates agree and cover the exact value") {
    const json j = digits_verdict_json();
    std::printf("  verdict %.4f [%.4f, %.4f], exact %.4f, agree %d, trusted %d\n", j["log_z"].get<double>(),
                j["ci95"][0].get<double>(), j["ci95"][1].get<double>(), kExactLogZ, j["agree"].get<bool>(),
                j["trusted"].get<bool>());
    CHECK(j["agree"] == true);
    CHECK(j["trusted"] == true);
    CHECK(j.dump().find("null") == std::string::npos);  // no number printed as null
    CHECK(j["warnings"].empty());
    CHECK(j["exact_log_z"].get<double>() == kExactLogZ);
    CHECK(j["ci95"][0].get<double>() <= kExactLogZ && kExactLogZ <= j["ci95"][1].get<double>());
    // Every estimator that applies to a BRBM with recorded training data ran, and none is "exact".
    for (const char* m : {"forward AIS, moment base", "forward AIS, uniform base", "forward AIS, data base",
                          "tempering BAR", "tempering stepping stone"})
        CHECK(estimate(j, m)["ci95"].size() == 2);
    bool reverse = false, exact = false;
    for (const auto& e : j["estimates"]) {
        reverse = reverse || e["side"] == "upper";
        exact = exact || e["method"] == "exact";
    }
    CHECK(reverse);
    CHECK(!exact);
    // An estimate's command line, run alone, gives the same number bit for bit.
    const json& uni = estimate(j, "forward AIS, uniform base");
    const std::string line = uni["command_line"].get<std::string>();
    CHECK(line.rfind("rbmscope-cli ais ", 0) == 0);
    const json alone = test::run_ok(line.substr(std::string("rbmscope-cli ").size()));
    CHECK(alone["log_z"].get<double>() == uni["log_z"].get<double>());
    // Same seed, same verdict at one thread as at the default (all cores), on this trained model,
    // and without --held-out and --progress (they only read the estimates).
    const json one = test::run_ok("logz '" + kModel + "' --budget quick --no-exact --seed 3 --threads 1");
    CHECK(one["log_z"].get<double>() == j["log_z"].get<double>());
    CHECK(one["ci95"] == j["ci95"]);
    CHECK(one["warnings"] == j["warnings"]);
    for (std::size_t i = 0; i < j["estimates"].size(); ++i)
        CHECK(one["estimates"][i]["log_z"].get<double>() == j["estimates"][i]["log_z"].get<double>());
}

TEST_CASE("logz flags a planted failure: annealing far too short for bars-and-stripes") {
    const json j = test::run_ok("logz bars-and-stripes --no-exact --steps 10 --chains 100 --sweeps 2000 --seed 1");
    for (const auto& w : j["warnings"]) std::printf("  warning: %s\n", w.get<std::string>().c_str());
    CHECK(j["trusted"] == false);
    CHECK(any_warning_mentions(j, "forward AIS, uniform base"));
    CHECK(!j["warnings"].empty());
    CHECK(j["verdict"] == "do not trust this interval (see warnings)");
}

TEST_CASE("logz with the exact value known: the verdict is exact, the estimates are checked against it") {
    const json j = test::run_ok("logz four-mode --budget quick --seed 2");
    CHECK(j["log_z"].get<double>() == j["exact_log_z"].get<double>());
    CHECK(j["ci95"][0] == j["ci95"][1]);
    CHECK(estimate(j, "exact")["log_z"] == j["exact_log_z"]);
    CHECK(j["verdict"].get<std::string>().rfind("exact; the estimates", 0) == 0);
    // four-mode is a GRBM: the sigma base, not the uniform one.
    CHECK(estimate(j, "forward AIS, sigma base")["ci95"].size() == 2);
    CHECK(j["skipped"].empty());
}

TEST_CASE("logz --held-out: the rows' log-likelihood from the verdict and from each estimate") {
    // The held-out rows are binarized as the model file records its training data (digits, 0.5),
    // without its --limit 1200: all 1797 rows, whose exact average log-likelihood loglik gives.
    const json ll = test::run_ok("loglik '" + kModel + "' --data digits --binarize 0.5");
    const double exact_ll = ll["log_likelihood"].get<double>();
    const json j = digits_verdict_json();
    const json& h = j["held_out"];
    std::printf("  held-out log-likelihood %.4f [%.4f, %.4f], exact %.4f\n", h["log_likelihood"].get<double>(),
                h["ci95"][0].get<double>(), h["ci95"][1].get<double>(), exact_ll);
    CHECK(h["rows"] == 1797);
    CHECK(h["trusted"] == j["trusted"]);
    CHECK(h["trusted"] == true);
    const double mean = h["mean_log_unnormalized"].get<double>();
    CHECK_CLOSE(mean - ll["log_z"].get<double>(), exact_ll, 1e-9);  // the same rows, the same p*(v)
    CHECK_CLOSE(h["log_likelihood"].get<double>(), mean - j["log_z"].get<double>(), 1e-12);
    CHECK_CLOSE(h["ci95"][0].get<double>(), mean - j["ci95"][1].get<double>(), 1e-12);
    CHECK_CLOSE(h["ci95"][1].get<double>(), mean - j["ci95"][0].get<double>(), 1e-12);
    CHECK(h["ci95"][0].get<double>() <= exact_ll && exact_ll <= h["ci95"][1].get<double>());
    CHECK(h["data_se"].get<double>() == ll["data_se"].get<double>());
    CHECK(h["pseudo_log_likelihood"].get<double>() == ll["pseudo_log_likelihood"].get<double>());
    CHECK(h["by_estimate"].size() == j["estimates"].size());
    for (std::size_t i = 0; i < h["by_estimate"].size(); ++i) {
        CHECK(h["by_estimate"][i]["method"] == j["estimates"][i]["method"]);
        CHECK_CLOSE(h["by_estimate"][i]["log_likelihood"].get<double>(),
                    mean - j["estimates"][i]["log_z"].get<double>(), 1e-12);
    }
    // With the exact value the verdict is exact, and so is the held-out log-likelihood (short runs:
    // only the exact value is read here).
    const json e =
        test::run_ok("logz '" + kModel + "' --budget quick --steps 100 --chains 20 --seed 3 --held-out digits");
    CHECK_CLOSE(e["held_out"]["log_likelihood"].get<double>(), exact_ll, 1e-9);
    // Refused before any estimator runs: rows of the wrong size, a missing file, options that
    // would preprocess the held-out rows unlike the recorded training rows.
    for (const auto& [args, fragment] : std::vector<std::pair<std::string, std::string>>{
             {"logz '" + kModel + "' --held-out bars:3", "--held-out"},
             {"logz '" + kModel + "' --held-out /nonexistent/rows.csv", "/nonexistent/rows.csv"},
             {"logz '" + kModel + "' --held-out digits --scale", "--held-out"}})
        test::expect_one_line_error(test::run_cli(args), args.c_str(), fragment.c_str());
}

TEST_CASE("logz refuses bad input with one line and exit 2") {
    for (const auto& [args, fragment] :
         std::vector<std::pair<std::string, std::string>>{{"logz four-mode --budget huge", "--budget"},
                                                          {"logz four-mode --steps 0", "--steps"},
                                                          {"logz /nonexistent/model.json", "/nonexistent/model.json"},
                                                          {"logz four-mode --sweeps 5", "--sweeps"}})
        test::expect_one_line_error(test::run_cli(args), args.c_str(), fragment.c_str());
}

RBM_TEST_MAIN

TEST_CASE("logz --progress jsonl: one fraction over every sub-run, nondecreasing, and one final line") {
    const test::CliResult& r = digits_verdict();
    CHECK(r.exit_code == 0);
    std::istringstream lines(r.err);
    std::string line;
    double last = -1;
    int finals = 0, n = 0, after_first_run = 0;
    std::set<std::string> phases;
    while (std::getline(lines, line)) {
        const json p = json::parse(line);
        const double f = p.at("fraction").get<double>();
        CHECK_MSG(f >= last - 1e-12 && f <= 1.0, "fraction " << f << " after " << last);
        phases.insert(p.at("phase").get<std::string>());
        if (p.value("final", false)) ++finals;
        // A sub-run after the first starts above 0: the fraction is the whole command's, not the sub-run's.
        if (phases.count("tempering") && f > 0.3) ++after_first_run;
        last = f;
        ++n;
    }
    std::printf("  %d progress lines over phases %zu, last fraction %.3f\n", n, phases.size(), last);
    CHECK(finals == 1);
    CHECK(last == 1.0);
    CHECK(phases.count("tempering") == 1 && phases.count("annealing") == 1);
    CHECK(after_first_run > 0);
}
