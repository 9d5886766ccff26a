// rbmscope-cli exact / sample / info / presets against independent computations, and the
// command-line contract (one JSON object on success; one stderr line and exit 2 on bad input).
#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <span>

#include "../core/check.hpp"
#include "cli_runner.hpp"
#include "core/numerics/scalar.hpp"

using namespace rbm;
using nlohmann::json;

namespace {

std::mt19937_64 rng_for(unsigned seed) { return std::mt19937_64(seed); }

json random_matrix(std::mt19937_64& g, int rows, int cols, double scale) {
    std::normal_distribution<double> N(0, scale);
    json m = json::array();
    for (int r = 0; r < rows; ++r) {
        json row = json::array();
        for (int c = 0; c < cols; ++c) row.push_back(N(g));
        m.push_back(row);
    }
    return m;
}
json random_vector(std::mt19937_64& g, int n, double scale) {
    std::normal_distribution<double> N(0, scale);
    json v = json::array();
    for (int i = 0; i < n; ++i) v.push_back(N(g));
    return v;
}

// GRBM log Z, E[v] by summing over hidden states and integrating v in closed form per state:
// int exp(-E(v,h)) dv = prod_i sqrt(2 pi) s_i * exp(c.h + sum_i (b_i/s_i) u_i + |u|^2/2), u = W h.
// Written here from the energy, independently of the library's enumeration code.
void grbm_by_hidden_sum(const json& m, double& logz, std::vector<double>& mean) {
    const auto W = m["W"];
    const int n = int(W.size()), k = int(W[0].size());
    const std::vector<double> vals = m["hidden_values"].get<std::vector<double>>();
    const int q = int(vals.size());
    long total = 1;
    for (int j = 0; j < k; ++j) total *= q;
    std::vector<double> logw(total);
    std::vector<std::vector<double>> means(total, std::vector<double>(n));
    for (long idx = 0; idx < total; ++idx) {
        std::vector<double> h(k);
        long r = idx;
        for (int j = 0; j < k; ++j) h[j] = vals[r % q], r /= q;
        double lw = 0;
        for (int j = 0; j < k; ++j) lw += m["c"][j].get<double>() * h[j];
        for (int i = 0; i < n; ++i) {
            double u = 0;
            for (int j = 0; j < k; ++j) u += W[i][j].get<double>() * h[j];
            const double s = m["sigma"][i].get<double>(), b = m["b"][i].get<double>();
            lw += b / s * u + 0.5 * u * u + std::log(std::sqrt(2 * M_PI) * s);
            means[idx][i] = b + s * u;
        }
        logw[idx] = lw;
    }
    logz = log_sum_exp(std::span<const double>(logw));
    mean.assign(n, 0.0);
    for (long idx = 0; idx < total; ++idx)
        for (int i = 0; i < n; ++i) mean[i] += std::exp(logw[idx] - logz) * means[idx][i];
}

// GRBM log Z in 2-D by the trapezoidal rule on a wide fine grid (spectrally accurate for a
// smooth, rapidly decaying integrand).
double grbm_2d_by_grid(const json& m) {
    const std::vector<double> vals = m["hidden_values"].get<std::vector<double>>();
    const int k = int(m["W"][0].size());
    auto logp = [&](double x, double y) {
        const double v[2] = {x, y};
        double s = 0;
        for (int i = 0; i < 2; ++i) {
            const double d = (v[i] - m["b"][i].get<double>()) / m["sigma"][i].get<double>();
            s -= 0.5 * d * d;
        }
        for (int j = 0; j < k; ++j) {
            double lam = m["c"][j].get<double>();
            for (int i = 0; i < 2; ++i) lam += m["W"][i][j].get<double>() * v[i] / m["sigma"][i].get<double>();
            std::vector<double> t;
            for (double x2 : vals) t.push_back(lam * x2);
            s += log_sum_exp(std::span<const double>(t));
        }
        return s;
    };
    const double h = 0.04, L = 16;
    LogSumExp acc;
    for (double x = -L; x <= L; x += h)
        for (double y = -L; y <= L; y += h) acc.add(logp(x, y));
    return acc.value() + 2 * std::log(h);
}

// BRBM log Z by enumerating the joint (v, h).
double brbm_joint(const json& m) {
    const int n = int(m["W"].size()), k = int(m["W"][0].size());
    LogSumExp acc;
    for (long vi = 0; vi < (1L << n); ++vi)
        for (long hi = 0; hi < (1L << k); ++hi) {
            double e = 0;
            for (int i = 0; i < n; ++i) {
                const double v = (vi >> i) & 1;
                e += m["b"][i].get<double>() * v;
                for (int j = 0; j < k; ++j) e += v * m["W"][i][j].get<double>() * ((hi >> j) & 1);
            }
            for (int j = 0; j < k; ++j) e += m["c"][j].get<double>() * ((hi >> j) & 1);
            acc.add(e);
        }
    return acc.value();
}

// Leaky 2-D with b = c = 0: p* is constant along rays up to the Gaussian radial factor, so
// Z = int_0^{2pi} dtheta / q(theta), q = u'(I - sum_j alpha_j w_j w_j')u, integrated with
// Gauss-Legendre between the angles where some w_j . u changes sign.
double leaky_2d_polar(const json& m) {
    const int k = int(m["W"][0].size());
    const double cl = m["leakiness"].get<double>();
    std::vector<double> cuts = {0, 2 * M_PI};
    for (int j = 0; j < k; ++j) {
        const double a = std::atan2(m["W"][1][j].get<double>(), m["W"][0][j].get<double>());
        for (double t : {a + M_PI / 2, a - M_PI / 2, a + 3 * M_PI / 2, a - 3 * M_PI / 2})
            if (t > 0 && t < 2 * M_PI) cuts.push_back(t);
    }
    std::sort(cuts.begin(), cuts.end());
    static const double x[5] = {0, -0.5384693101056831, 0.5384693101056831, -0.9061798459386640, 0.9061798459386640};
    static const double w[5] = {0.5688888888888889, 0.4786286704993665, 0.4786286704993665, 0.2369268850561891,
                                0.2369268850561891};
    double z = 0;
    for (std::size_t s = 0; s + 1 < cuts.size(); ++s) {
        const int panels = 64;
        for (int p = 0; p < panels; ++p) {
            const double a = cuts[s] + (cuts[s + 1] - cuts[s]) * p / panels,
                         b = cuts[s] + (cuts[s + 1] - cuts[s]) * (p + 1) / panels;
            for (int g = 0; g < 5; ++g) {
                const double t = 0.5 * (a + b) + 0.5 * (b - a) * x[g];
                const double u0 = std::cos(t), u1 = std::sin(t);
                double q = 1;
                for (int j = 0; j < k; ++j) {
                    const double e = m["W"][0][j].get<double>() * u0 + m["W"][1][j].get<double>() * u1;
                    q -= (e > 0 ? 1.0 : cl) * e * e;
                }
                z += 0.5 * (b - a) * w[g] / q;
            }
        }
    }
    return std::log(z);
}

json make_model(const std::string& kind, json W, json b, json c) {
    return json{{"format", "rbmscope-model"}, {"version", 1}, {"kind", kind}, {"W", W}, {"b", b}, {"c", c}};
}

}  // namespace

TEST_CASE("exact: GRBM log Z and mean match independent computations to 1e-8, every hidden set") {
    const std::vector<std::vector<double>> sets = {{0, 1}, {-1, 1}, {-1, 0, 1}};
    int id = 0;
    for (const auto& vals : sets)
        for (int n : {2, 4}) {
            auto g = rng_for(100 + id);
            json m =
                make_model("grbm", random_matrix(g, n, 3, 0.7), random_vector(g, n, 1.0), random_vector(g, 3, 0.5));
            json sig = json::array();
            std::uniform_real_distribution<double> U(0.6, 1.4);
            for (int i = 0; i < n; ++i) sig.push_back(U(g));
            m["sigma"] = sig;
            m["hidden_values"] = vals;
            const auto path = test::write_temp("grbm" + std::to_string(id++) + ".json", m.dump());
            const auto r = test::run_cli("exact " + path);
            CHECK_MSG(r.exit_code == 0, r.err);
            if (r.exit_code != 0) continue;
            const json out = r.json();
            double logz;
            std::vector<double> mean;
            grbm_by_hidden_sum(m, logz, mean);
            CHECK_CLOSE(out["log_z"].get<double>(), logz, 1e-8);
            for (int i = 0; i < n; ++i) CHECK_CLOSE(out["mean_v"][i].get<double>(), mean[i], 1e-8);
            if (n == 2) CHECK_CLOSE(out["log_z"].get<double>(), grbm_2d_by_grid(m), 1e-8);
        }
}

TEST_CASE("exact: BRBM log Z matches joint enumeration to 1e-8, both layer orders") {
    for (auto [n, k] : {std::pair{6, 4}, std::pair{4, 7}}) {
        auto g = rng_for(7 + n);
        json m = make_model("brbm", random_matrix(g, n, k, 1.0), random_vector(g, n, 1.0), random_vector(g, k, 1.0));
        const auto path = test::write_temp("brbm" + std::to_string(n) + ".json", m.dump());
        const auto r = test::run_cli("exact " + path);
        CHECK_MSG(r.exit_code == 0, r.err);
        if (r.exit_code == 0) CHECK_CLOSE(r.json()["log_z"].get<double>(), brbm_joint(m), 1e-8);
    }
}

TEST_CASE("exact: 2-D leaky RBM log Z matches polar quadrature to 1e-8") {
    for (double cl : {0.01, 0.3, 1.0}) {
        auto g = rng_for(31);
        json W = random_matrix(g, 2, 3, 1.0);
        // scale so the largest singular value is 0.85 (Frobenius bound is enough: scale by it)
        double fro = 0;
        for (auto& row : W)
            for (auto& x : row) fro += x.get<double>() * x.get<double>();
        for (auto& row : W)
            for (auto& x : row) x = x.get<double>() * 0.85 / std::sqrt(fro);
        json m = make_model("leaky", W, json::array({0.0, 0.0}), json::array({0.0, 0.0, 0.0}));
        m["leakiness"] = cl;
        const auto path = test::write_temp("leaky.json", m.dump());
        const auto r = test::run_cli("exact " + path);
        CHECK_MSG(r.exit_code == 0, r.err);
        if (r.exit_code == 0) CHECK_CLOSE(r.json()["log_z"].get<double>(), leaky_2d_polar(m), 1e-8);
    }
}

TEST_CASE("exact: gaussian kind is normalized") {
    json m = {{"kind", "gaussian"}, {"mean", {1.0, 2.0}}, {"cov", {{2.0, 0.5}, {0.5, 1.0}}}};
    const auto r = test::run_cli("exact " + test::write_temp("gauss.json", m.dump()));
    CHECK_MSG(r.exit_code == 0, r.err);
    if (r.exit_code != 0) return;
    const json out = r.json();
    CHECK_NEAR(out["log_z"].get<double>(), 0.0, 1e-12);
    CHECK_NEAR(out["cov_v"][0][1].get<double>(), 0.5, 1e-12);
}

TEST_CASE("exact refuses a model too big to enumerate and says how big") {
    auto g = rng_for(5);
    json m = make_model("grbm", random_matrix(g, 3, 30, 0.1), random_vector(g, 3, 1), random_vector(g, 30, 1));
    const auto r = test::run_cli("exact " + test::write_temp("big.json", m.dump()));
    CHECK(r.exit_code == 2);
    CHECK(r.stderr_lines() == 1);
    CHECK_MSG(r.err.find("2^30") != std::string::npos, r.err);
    CHECK(r.out.empty());
}

TEST_CASE("sample: JSON shape, CSV format, and identical output at 1 and 2 threads") {
    const auto a = test::run_cli("sample four-mode --chains 300 --sweeps 50 --seed 9 --threads 1");
    const auto b = test::run_cli("sample four-mode --chains 300 --sweeps 50 --seed 9 --threads 2");
    CHECK_MSG(a.exit_code == 0, a.err);
    CHECK(test::without_provenance(a.json()) == test::without_provenance(b.json()));
    const json j = a.json();
    CHECK(j["samples"].size() == 300);
    CHECK(j["samples"][0].size() == 2);
    const auto c = test::run_cli("sample bars-and-stripes --chains 4 --sweeps 10 --format csv");
    CHECK_MSG(c.exit_code == 0, c.err);
    int lines = 0;
    for (char ch : c.out) lines += ch == '\n';
    CHECK(lines == 4);
    const auto e = test::run_cli("sample leaky-2d --chains 5 --exact --seed 3");
    CHECK_MSG(e.exit_code == 0, e.err);
    const auto k = test::run_cli("sample leaky-2d --chains 100 --sweeps 20 --kernel paper-gibbs");
    CHECK_MSG(k.exit_code == 0 && k.json()["kernel"] == "paper-gibbs", k.err);
}

TEST_CASE("info and presets describe the bundled models") {
    const auto p = test::run_cli("presets");
    CHECK_MSG(p.exit_code == 0, p.err);
    std::set<std::string> names;
    const json listing = p.json();
    for (const auto& e : listing["presets"]) names.insert(e["preset"].get<std::string>());
    for (const char* want : {"four-mode", "two-gaussians", "leaky-2d", "bars-and-stripes"})
        CHECK(names.count(want) == 1);
    const auto i = test::run_cli("info bars-and-stripes");
    CHECK_MSG(i.exit_code == 0, i.err);
    CHECK(i.json()["n_visible"] == 16);
    CHECK(i.json()["exact_available"] == true);
}

TEST_CASE("bad input: one stderr line, exit 2, nothing on stdout") {
    const char* cases[] = {
        "exact /nonexistent/model.json",
        "exact",
        "sample four-mode --chains 0",
        "sample four-mode --chains abc",
        "sample four-mode --bogus 1",
        "sample four-mode --format xml",
        "nosuchcommand",
        "exact no-such-preset",
    };
    for (const char* c : cases) {
        const auto r = test::run_cli(c);
        CHECK_MSG(r.exit_code == 2, c << " exited " << r.exit_code);
        CHECK_MSG(r.stderr_lines() == 1, c << " printed: " << r.err);
        CHECK_MSG(r.out.empty(), c);
    }
    const auto h = test::run_cli("exact --help");
    CHECK(h.exit_code == 0 && h.out.find("usage: rbmscope-cli exact") != std::string::npos);
}

RBM_TEST_MAIN
