// Training (docs/methods/training.md): exact gradients against finite differences, sampled gradients against the
// exact one within Monte Carlo error, learning on bars-and-stripes for every method, leaky RBMs
// with and without the projection step, checkpoint / resume and thread-count determinism.
#include <atomic>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>

#include "check.hpp"
#include "core/data/datasets.hpp"
#include "core/exact/exact.hpp"
#include "core/io/presets.hpp"
#include "core/numerics/parallel.hpp"
#include "core/training/training.hpp"

using namespace rbm;

namespace {

Mat random_mat(Index r, Index c, double scale, Rng& rng) {
    Mat m(r, c);
    for (Index j = 0; j < c; ++j)
        for (Index i = 0; i < r; ++i) m(i, j) = scale * rng.normal();
    return m;
}
Vec random_vec(Index n, double scale, Rng& rng) { return random_mat(n, 1, scale, rng).col(0); }

RowMat random_binary(Index rows, Index cols, Rng& rng) {
    RowMat X(rows, cols);
    for (Index r = 0; r < rows; ++r)
        for (Index c = 0; c < cols; ++c) X(r, c) = rng.uniform() < 0.3 + 0.4 * static_cast<double>(c % 2) ? 1.0 : 0.0;
    return X;
}

double exact_avg_ll(const Model& m, const RowMat& data) { return average_log_likelihood(m, data, exact_log_z(m)); }

// Central differences of the exact average log-likelihood along every parameter, in flat() order.
// set(model, index, delta) perturbs one parameter.
template <class Perturb>
Vec finite_differences(const Model& m, const RowMat& data, Index count, Perturb perturb) {
    const double h = 1e-5;
    Vec g(count);
    for (Index p = 0; p < count; ++p) {
        Model plus = m, minus = m;
        perturb(plus, p, h);
        perturb(minus, p, -h);
        g(p) = (exact_avg_ll(plus, data) - exact_avg_ll(minus, data)) / (2 * h);
    }
    return g;
}

Dataset as_dataset(const RowMat& X) {
    Dataset d;
    d.X = X;
    d.name = "test data";
    return d;
}

TrainOptions bars_options(TrainMethod method) {
    TrainOptions o;
    o.kind = ModelKind::Brbm;
    o.hidden = 10;
    o.method = method;
    o.batch = 30;
    o.learning_rate = 0.2;
    o.momentum = 0.5;
    o.schedule = LearningRateSchedule::Linear;
    o.updates = 2000;
    o.monitor_every = 500;
    o.seed = 7;
    o.chains = 100;
    o.temperatures = 4;
    o.gamma = 0.6;
    return o;
}

// Exact probability mass of the 4x4 bars-and-stripes patterns under a BRBM.
double mass_on_patterns(const Model& m) {
    const RowMat P = bars_and_stripes(4).X;
    const double log_z = exact_log_z(m);
    return (m.log_unnorm(P).array() - log_z).exp().sum();
}

bool same_records(const std::vector<TrainRecord>& a, const std::vector<TrainRecord>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const TrainRecord &x = a[i], &y = b[i];
        auto same = [](double p, double q) { return p == q || (std::isnan(p) && std::isnan(q)); };
        if (x.update != y.update || !same(x.log_likelihood, y.log_likelihood) ||
            !same(x.reconstruction_error, y.reconstruction_error) || x.swap_acceptance != y.swap_acceptance ||
            x.projections != y.projections || !same(x.max_singular_value, y.max_singular_value))
            return false;
    }
    return true;
}

Dataset scaled_digits(Index rows) {
    Dataset d = load_digits();
    d.X = d.X.topRows(rows).eval();
    d.labels.resize(static_cast<std::size_t>(rows));
    scale_to_unit(d);
    return d;
}

// A leaky RBM trained on the standardized digits, as the leaky tests below vary it.
TrainOptions leaky_options(Index hidden, TrainMethod method, int k, Index batch, Index updates) {
    TrainOptions o;
    o.kind = ModelKind::Leaky;
    o.hidden = hidden;
    o.method = method;
    o.k = k;
    o.batch = batch;
    o.learning_rate = 0.005;
    o.updates = updates;
    o.monitor_every = 0;
    return o;
}

Dataset standardized_digits(Index rows) {
    Dataset d = load_digits();
    d.X = d.X.topRows(rows).eval();
    d.labels.resize(static_cast<std::size_t>(rows));
    standardize(d);
    return d;
}

}  // namespace

TEST_CASE("brbm: exact log-likelihood gradient equals finite differences of the exact log-likelihood") {
    Rng rng(11, 0);
    Brbm b{random_mat(6, 4, 0.8, rng), random_vec(6, 0.5, rng), random_vec(4, 0.5, rng)};
    Model m;
    m.params = b;
    const RowMat data = random_binary(25, 6, rng);
    const Vec exact = exact_log_likelihood_gradient(m, data).flat();
    const Vec fd = finite_differences(m, data, exact.size(), [](Model& x, Index p, double d) {
        Brbm& q = *x.as<Brbm>();
        const Index nw = q.W.size(), n = q.b.size();
        if (p < nw) q.W.data()[p] += d;
        else if (p < nw + n) q.b(p - nw) += d;
        else q.c(p - nw - n) += d;
    });
    CHECK(exact.size() == 6 * 4 + 6 + 4);
    CHECK_MSG((exact - fd).cwiseAbs().maxCoeff() < 1e-7, "max |exact - fd| = " << (exact - fd).cwiseAbs().maxCoeff());
    CHECK(exact.cwiseAbs().maxCoeff() > 0.05);  // a gradient worth comparing
}

TEST_CASE("grbm: exact gradient (sigma learned) equals finite differences") {
    Rng rng(12, 0);
    Grbm g{random_mat(3, 3, 0.7, rng), random_vec(3, 0.5, rng), random_vec(3, 0.5, rng), Vec(3), {0.0, 1.0}};
    g.sigma << 0.7, 1.0, 1.4;
    Model m;
    m.params = g;
    RowMat data(30, 3);
    for (Index r = 0; r < 30; ++r)
        for (Index i = 0; i < 3; ++i) data(r, i) = 0.5 + 1.2 * rng.normal();
    const Vec exact = exact_log_likelihood_gradient(m, data, true).flat();
    const Vec fd = finite_differences(m, data, exact.size(), [](Model& x, Index p, double d) {
        Grbm& q = *x.as<Grbm>();
        const Index nw = q.W.size(), n = q.b.size(), k = q.c.size();
        if (p < nw) q.W.data()[p] += d;
        else if (p < nw + n) q.b(p - nw) += d;
        else if (p < nw + n + k) q.c(p - nw - n) += d;
        else q.sigma(p - nw - n - k) *= std::exp(d);
    });
    CHECK(exact.size() == 9 + 3 + 3 + 3);
    CHECK_MSG((exact - fd).cwiseAbs().maxCoeff() < 1e-6, "max |exact - fd| = " << (exact - fd).cwiseAbs().maxCoeff());
}

// With the learning rate 0 the model stays put, so after burn-in the persistent chains sample it
// and the sampled gradient must agree with the exact one within a few standard errors.
TEST_CASE("pcd and pt gradient estimates agree with the exact gradient within 5 standard errors") {
    Rng rng(13, 0);
    const RowMat X = random_binary(40, 6, rng);
    for (TrainMethod method : {TrainMethod::Pcd, TrainMethod::Pt}) {
        TrainOptions o;
        o.kind = ModelKind::Brbm;
        o.hidden = 4;
        o.method = method;
        o.batch = X.rows();
        o.learning_rate = 0.0;
        o.init_scale = 1.0;  // a model with structure
        o.chains = 4000;
        o.updates = 40;
        o.monitor_every = 0;
        o.temperatures = 3;
        o.seed = 5;
        Trainer t(o, as_dataset(X));
        t.run();
        const Model m = t.model();
        const Vec exact = exact_log_likelihood_gradient(m, X).flat();
        const Vec est = t.last_gradient().flat();
        const Mat s = score_rows(m, t.negative_samples());
        const Vec se =
            ((s.rowwise() - s.colwise().mean()).array().square().colwise().sum() / static_cast<double>(s.rows() - 1))
                .sqrt()
                .transpose() /
            std::sqrt(static_cast<double>(s.rows()));
        const Vec z = (est - exact).cwiseQuotient(se.cwiseMax(1e-12));
        std::printf("  %s: max |z| = %.2f over %d components, max se = %.4f, max |exact| = %.3f\n",
                    train_method_name(method), z.cwiseAbs().maxCoeff(), static_cast<int>(z.size()), se.maxCoeff(),
                    exact.cwiseAbs().maxCoeff());
        CHECK_MSG(z.cwiseAbs().maxCoeff() < 5.0, train_method_name(method)
                                                     << ": max |z| = " << z.cwiseAbs().maxCoeff());
        CHECK(se.maxCoeff() < 0.02);               // the test has power: errors are small...
        CHECK(exact.cwiseAbs().maxCoeff() > 0.2);  // ...against a gradient that is not
    }
}

TEST_CASE("bars-and-stripes 4x4: exact log-likelihood rises for every method and the mass lands on the patterns") {
    const Dataset data = bars_and_stripes(4);
    CHECK(data.size() == 30);
    for (TrainMethod method :
         {TrainMethod::Cd, TrainMethod::Pcd, TrainMethod::Pt, TrainMethod::Lpt, TrainMethod::Deo}) {
        Trainer t(bars_options(method), data);
        CHECK(t.run() == TrainStatus::Finished);
        const auto& log = t.log();
        CHECK(log.size() == 5);
        CHECK(log.front().log_likelihood_method == "exact");
        const double mass = mass_on_patterns(t.model());
        std::printf(
            "  %s: exact avg log-lik %.3f -> %.3f -> %.3f -> %.3f -> %.3f (optimum %.3f); mass on patterns %.3f\n",
            train_method_name(method), log[0].log_likelihood, log[1].log_likelihood, log[2].log_likelihood,
            log[3].log_likelihood, log[4].log_likelihood, -std::log(30.0), mass);
        CHECK(log.back().log_likelihood > log.front().log_likelihood + 5.0);
        CHECK(log[1].log_likelihood > log.front().log_likelihood + 3.0);
        CHECK(log.back().log_likelihood > log[1].log_likelihood);
        CHECK(mass > 0.5);
        if (is_tempered(method)) {
            CHECK(log.back().swap_acceptance.size() == 4);
            for (double a : log.back().swap_acceptance) CHECK(a > 0.05 && a <= 1.0);
        }
    }
}

TEST_CASE("the bars-and-stripes preset puts 91% of its mass on the 30 patterns (README, preset notes)") {
    const double mass = mass_on_patterns(load_preset("bars-and-stripes"));
    std::printf("  bars-and-stripes preset: exact mass on the 30 patterns %.4f\n", mass);
    CHECK_NEAR(mass, 0.91, 0.005);  // the README and the preset's notes print 91%
}

TEST_CASE("bars-and-stripes: Gibbs samples of a trained model are mostly valid patterns") {
    Trainer t(bars_options(TrainMethod::Pt), bars_and_stripes(4));
    t.run();
    const Model m = t.model();
    const double mass = mass_on_patterns(m);
    const Index chains = 2000;
    ChainRngs rngs(3, chains);
    RowMat V = exact_samples(m, chains, 9);  // start at stationarity: the fraction estimates the mass
    for (int s = 0; s < 50; ++s) gibbs_sweep(m, V, rngs);
    Index valid = 0;
    for (Index r = 0; r < chains; ++r) valid += is_bars_and_stripes(V.row(r).data(), 4) ? 1 : 0;
    const double frac = static_cast<double>(valid) / chains, se = std::sqrt(mass * (1 - mass) / chains);
    std::printf("  valid fraction %.3f, exact mass %.3f (se %.3f)\n", frac, mass, se);
    CHECK(frac > 0.5);
    CHECK_NEAR(frac, mass, 5 * se);
}

TEST_CASE("leaky RBM on standardized digits with projection: no divergence, singular values stay below 1") {
    // These settings drive W onto the boundary of the valid region after about 200 updates; the
    // projection then holds it there (active nearly every update) and the run goes on.
    for (TrainMethod method : {TrainMethod::Leaky, TrainMethod::Mix, TrainMethod::Pcd}) {
        TrainOptions o = leaky_options(16, method, 5, 20, 300);
        o.monitor_every = 150;
        o.monitor_examples = 200;
        o.ais_chains = 50;
        o.ais_steps = 200;
        o.leaky_kernel = LeakyKernel::PaperGibbs;
        Trainer t(o, standardized_digits(400));
        const TrainStatus st = t.run();
        Index active = 0;
        for (auto p : t.projection_active()) active += p;
        const Model m = t.model();
        std::printf(
            "  %s: status %s, projection active in %d of %d updates, max singular value %.7f, "
            "log-lik %.2f (%s) -> %.2f (%s) -> %.2f (%s)\n",
            train_method_name(method), train_status_name(st), static_cast<int>(active),
            static_cast<int>(t.projection_active().size()), m.as<Leaky>()->max_singular_value(),
            t.log()[0].log_likelihood, t.log()[0].log_likelihood_method.c_str(), t.log()[1].log_likelihood,
            t.log()[1].log_likelihood_method.c_str(), t.log()[2].log_likelihood,
            t.log()[2].log_likelihood_method.c_str());
        CHECK_MSG(st == TrainStatus::Finished, t.message());
        CHECK(t.projection_active().size() == 300);
        CHECK(active > 10);  // the projection had work to do, so "stays below 1" is not vacuous
        CHECK(m.as<Leaky>()->W.allFinite());
        const double bound = projection_limit_for(t.data());
        CHECK(bound < 1.0);
        CHECK(m.as<Leaky>()->max_singular_value() <= bound + 1e-12);
        for (const TrainRecord& r : t.log()) CHECK(r.max_singular_value <= bound + 1e-12);
        CHECK(t.log()[1].log_likelihood_method == "ais");
        CHECK(t.log()[1].log_likelihood > t.log()[0].log_likelihood);  // it learned before reaching the boundary
        CHECK(t.log()[1].log_likelihood < -0.5 * 64 * std::log(2 * M_PI));
    }
}

TEST_CASE("automatic projection bound: the model's c_L = 1 variance stays within 10x the data's largest") {
    Dataset d;
    d.X = RowMat(2, 2);
    d.X << 2, 0, -2, 0;  // covariance diag(8, 0)
    CHECK_NEAR(projection_limit_for(d), std::sqrt(1.0 - 1.0 / 80.0), 1e-15);
    d.X << 0.1, 0, -0.1, 0;  // below the noise floor of p(v | h): lambda counts as 1
    CHECK_NEAR(projection_limit_for(d), std::sqrt(0.9), 1e-15);
    TrainOptions o;
    o.kind = ModelKind::Leaky;
    o.batch = 1;
    o.projection_limit = 0.5;
    CHECK(effective_projection_limit(o, d) == 0.5);
    o.projection_limit = 1.0;
    CHECK_THROWS_WITH(validate(o, d), InputError, "--projection-limit must lie in (0, 1)");
}

TEST_CASE(
    "leaky RBM, 32 hidden units, Algorithm 2 on the standardized digits: the 1 - 1e-6 bound blows up, the automatic "
    "one learns") {
    // One overshooting step takes sigma_max(W) to the bound; at 1 - 1e-6 the model's variance at
    // c_L = 1 is 5e5, the annealed negative samples start out there and the biases explode.
    TrainOptions o = leaky_options(32, TrainMethod::Leaky, 10, TrainOptions{}.batch, 400);
    o.monitor_examples = 300;
    o.ais_chains = 50;
    o.ais_steps = 300;
    const Dataset data = standardized_digits(1797);
    o.projection_limit = 1.0 - 1e-6;
    Trainer fixed(o, data);
    const TrainStatus st_fixed = fixed.run();
    std::printf("  bound 1 - 1e-6: %s after %d updates: %s\n", train_status_name(st_fixed),
                static_cast<int>(fixed.updates_done()), fixed.message().c_str());
    CHECK(st_fixed == TrainStatus::Diverged);
    o.projection_limit = 0.0;  // auto
    o.monitor_every = 200;
    Trainer automatic(o, data);
    const TrainStatus st = automatic.run();
    const double bound = projection_limit_for(data);
    Index active = 0;
    for (auto p : automatic.projection_active()) active += p;
    std::printf("  automatic bound %.6f: %s, projection active in %d updates, log-lik %.2f -> %.2f -> %.2f\n", bound,
                train_status_name(st), static_cast<int>(active), automatic.log()[0].log_likelihood,
                automatic.log()[1].log_likelihood, automatic.log()[2].log_likelihood);
    CHECK_MSG(st == TrainStatus::Finished, automatic.message());
    CHECK(bound > 0.98 && bound < 0.999);  // the digits' largest variance is about 7
    CHECK(active > 50);                    // the bound was reached and held
    CHECK(automatic.model().as<Leaky>()->max_singular_value() <= bound + 1e-12);
    for (const TrainRecord& r : automatic.log()) {
        CHECK(r.log_likelihood_method == "ais");
        CHECK(std::isfinite(r.log_likelihood));
    }
    CHECK(automatic.log()[2].log_likelihood > automatic.log()[0].log_likelihood + 3.0);
}

TEST_CASE("leaky score: its mean under exact samples matches d log Z by quadrature (within 5 standard errors)") {
    Leaky l{Mat(2, 2), Vec(2), Vec(2), 0.1};
    l.W << 0.5, -0.3, 0.4, 0.6;
    l.b << 0.2, -0.1;
    l.c << 0.3, -0.2;
    Model m;
    m.params = l;
    const RowMat S = exact_samples(m, 200000, 3);
    const Mat s = score_rows(m, S);
    const Vec mean = s.colwise().mean().transpose();
    const Vec se =
        ((s.rowwise() - mean.transpose()).array().square().colwise().sum() / static_cast<double>(s.rows() - 1))
            .sqrt()
            .transpose() /
        std::sqrt(static_cast<double>(s.rows()));
    CHECK((mean - mean_score(m, S).flat()).cwiseAbs().maxCoeff() < 1e-12);
    for (Index p = 0; p < mean.size(); ++p) {
        Model a = m, b = m;
        auto bump = [&](Leaky& q, double d) {
            if (p < 4) q.W.data()[p] += d;
            else if (p < 6) q.b(p - 4) += d;
            else q.c(p - 6) += d;
        };
        bump(*a.as<Leaky>(), 1e-5);
        bump(*b.as<Leaky>(), -1e-5);
        const double dlogz = (leaky_log_z_quadrature(*a.as<Leaky>()) - leaky_log_z_quadrature(*b.as<Leaky>())) / 2e-5;
        CHECK_MSG(std::fabs(mean(p) - dlogz) < 5 * se(p),
                  "parameter " << p << ": " << mean(p) << " vs " << dlogz << " (se " << se(p) << ")");
    }
}

TEST_CASE("leaky RBM without projection: divergence is detected and reported, never NaNs") {
    TrainOptions o = leaky_options(16, TrainMethod::Mix, 5, 20, 300);
    o.projection = false;
    o.leaky_kernel = LeakyKernel::PaperGibbs;
    Trainer t(o, standardized_digits(400));
    const TrainStatus st = t.run();
    std::printf("  status %s after %d updates: %s\n", train_status_name(st), static_cast<int>(t.updates_done()),
                t.message().c_str());
    CHECK(st == TrainStatus::Diverged);
    CHECK(t.message().find("singular value") != std::string::npos);
    CHECK(t.updates_done() < 300);
    const Model m = t.model();
    CHECK(m.as<Leaky>()->W.allFinite());
    CHECK(m.as<Leaky>()->max_singular_value() < 1.0);  // the last valid model is kept
    CHECK(t.step(10) == TrainStatus::Diverged);        // and it stays stopped
}

TEST_CASE("checkpoint and resume give the uninterrupted run exactly (pcd, lpt, deo, leaky)") {
    for (TrainMethod method : {TrainMethod::Pcd, TrainMethod::Lpt, TrainMethod::Deo, TrainMethod::Leaky}) {
        TrainOptions o = bars_options(method);
        Dataset data = bars_and_stripes(4);
        if (method == TrainMethod::Leaky) {
            o.kind = ModelKind::Leaky;
            o.k = 3;
            o.learning_rate = 0.05;
        }
        // Sanitizer builds: 25 updates, checkpoint after 13, records every 10 — still a record on
        // each side of the checkpoint, momentum and sampler state carried across it; the test
        // stays an exact comparison, so its power to catch a lost piece of state is unchanged.
        const bool small = rbm::test::sanitized();
        o.updates = small ? 25 : 61;
        o.monitor_every = small ? 10 : 20;
        o.momentum = 0.7;
        Trainer whole(o, data);
        whole.run();
        Trainer first(o, data);
        first.step(small ? 13 : 33);
        const std::string saved = first.checkpoint_json();
        Trainer resumed = Trainer::from_checkpoint_json(saved, data);
        resumed.run();
        const Model a = whole.model(), b = resumed.model();
        const Mat& wa = method == TrainMethod::Leaky ? a.as<Leaky>()->W : a.as<Brbm>()->W;
        const Mat& wb = method == TrainMethod::Leaky ? b.as<Leaky>()->W : b.as<Brbm>()->W;
        CHECK_MSG(wa == wb, train_method_name(method) << ": max |dW| = " << (wa - wb).cwiseAbs().maxCoeff());
        CHECK(same_records(whole.log(), resumed.log()));
        CHECK(whole.negative_samples() == resumed.negative_samples());
        CHECK(resumed.updates_done() == o.updates);
        // A different seed gives a different run: the comparison above can fail.
        o.seed += 1;
        Trainer other(o, data);
        other.run();
        const Model c = other.model();
        CHECK(!(wa == (method == TrainMethod::Leaky ? c.as<Leaky>()->W : c.as<Brbm>()->W)));
    }
}

TEST_CASE("momentum 0: the update skips the velocity, the checkpoint still holds the last step's") {
    // With momentum 0 an update does not write the velocity (trainer.cpp, step_weights); the
    // checkpoint forms it from the last gradient and the W before the step. It must be that step:
    // v = lr (g - decay W_before), and W_after = W_before + v bitwise. Taking W_before from the
    // wrong model (W_after) breaks both; the products path (BRBM) and the tile sums (GRBM) alike.
    for (ModelKind kind : {ModelKind::Brbm, ModelKind::Grbm}) {
        TrainOptions o = bars_options(TrainMethod::Pcd);
        o.kind = kind;
        o.momentum = 0.0;
        o.weight_decay = 0.01;
        o.schedule = LearningRateSchedule::Constant;
        o.learning_rate = kind == ModelKind::Grbm ? 0.05 : 0.2;
        const Dataset data = bars_and_stripes(4);
        Trainer t(o, data);
        t.step(4);
        auto weights = [kind](const Model& m) { return kind == ModelKind::Grbm ? m.as<Grbm>()->W : m.as<Brbm>()->W; };
        const Mat before = weights(t.model());
        t.step(1);
        const Mat after = weights(t.model());
        const Mat g = t.last_gradient().W;
        const nlohmann::json j = nlohmann::json::parse(t.checkpoint_json());
        const auto& rows = j.at("velocity").at("W").at("data");
        Mat v(before.rows(), before.cols());
        for (Index i = 0; i < v.rows(); ++i)
            for (Index k = 0; k < v.cols(); ++k)
                v(i, k) = rows.at(static_cast<std::size_t>(i)).at(static_cast<std::size_t>(k)).get<double>();
        const Mat expected = o.learning_rate * (g - o.weight_decay * before);
        CHECK_MSG(v == expected, kind_name(kind) << ": max |v - expected| = " << (v - expected).cwiseAbs().maxCoeff());
        CHECK_MSG(after == before + v,
                  kind_name(kind) << ": max |W - (W_before + v)| = " << (after - before - v).cwiseAbs().maxCoeff());
        CHECK(v.cwiseAbs().maxCoeff() > 0);
        // And a resumed run continues the uninterrupted one exactly.
        o.updates = 12;
        Trainer whole(o, data);
        whole.run();
        Trainer first(o, data);
        first.step(5);
        Trainer resumed = Trainer::from_checkpoint_json(first.checkpoint_json(), data);
        resumed.run();
        CHECK(weights(whole.model()) == weights(resumed.model()));
    }
}

TEST_CASE("checkpoint refuses other data and malformed files") {
    Trainer t(bars_options(TrainMethod::Pcd), bars_and_stripes(4));
    t.step(3);
    const std::string saved = t.checkpoint_json();
    CHECK_THROWS_WITH(Trainer::from_checkpoint_json(saved, bars_and_stripes(3)), InputError, "other data");
    CHECK_THROWS_WITH(Trainer::from_checkpoint_json("{\"format\": 1}", bars_and_stripes(4)), InputError,
                      "not a training checkpoint");
    CHECK_THROWS_WITH(Trainer::from_checkpoint_json("[1,", bars_and_stripes(4)), InputError, "not JSON");
}

TEST_CASE("checkpoint fields are checked on load: edits that crashed an update are refused naming the key") {
    // updates_done -1 or 1e30 crashed one_update, replica_at[0] = -1 corrupted the heap,
    // 150.5 was taken as 150. Each edit is one field of a real checkpoint.
    TrainOptions o = bars_options(TrainMethod::Lpt);
    o.temperatures = 2;
    o.chains = 4;
    o.batch = 7;
    o.monitor_every = 0;
    Trainer t(o, bars_and_stripes(3));
    t.step(3);
    const nlohmann::json good = nlohmann::json::parse(t.checkpoint_json());
    auto refused = [&](const std::function<void(nlohmann::json&)>& edit, const std::string& expected) {
        nlohmann::json j = good;
        edit(j);
        try {
            Trainer::from_checkpoint_json(j.dump(), bars_and_stripes(3), "ck.json");
        } catch (const InputError& e) {
            CHECK_MSG(std::string(e.what()).find("ck.json: " + expected) != std::string::npos,
                      e.what() << " (expected " << expected << ")");
            return;
        }
        CHECK_MSG(false, "accepted; expected " << expected);
    };
    refused([](auto& j) { j["updates_done"] = -1; }, "updates_done must be an integer from 0 to");
    refused([](auto& j) { j["updates_done"] = 1e30; }, "updates_done must be an integer from 0 to");
    refused([](auto& j) { j["updates_done"] = 150.5; }, "updates_done must be an integer from 0 to");
    refused([](auto& j) { j["sampler"]["replica_at"][0] = -1; },
            "sampler.replica_at[0] must be an integer from 0 to 65535, got -1");
    refused([](auto& j) { j["sampler"]["replica_at"][0] = j["sampler"]["replica_at"][1]; },
            "tempering state: replica_at of chain 0 is not a permutation");
    refused([](auto& j) { j["sampler"]["lifted"][0][1] = 0; },
            "tempering state: lifted[0] must have a rung from 0 to 2 and a direction of 1 or -1");
    // Found by fuzz_train_checkpoint: a lifted replica at an end moving outwards proposed a pair
    // past the last one and read beyond the swap arrays.
    refused(
        [](auto& j) {
            j["sampler"]["lifted"][0] = {2, 1};
        },
        "tempering state: lifted[0] moves up from the top rung 2, where there is no pair");
    refused(
        [](auto& j) {
            j["sampler"]["lifted"][0] = {0, -1};
        },
        "tempering state: lifted[0] moves down from rung 0, where there is no pair");
    refused([](auto& j) { j["options"]["k"] = 2.5; }, "options.k must be an integer");
    refused([](auto& j) { j["velocity"]["W"]["data"][0][0] = "x"; }, "velocity.W: row 1 holds a non-number");
    // The unedited checkpoint still resumes, and the run goes on.
    Trainer back = Trainer::from_checkpoint_json(good.dump(), bars_and_stripes(3), "ck.json");
    CHECK(back.updates_done() == 3);
    back.step(2);
    CHECK(back.updates_done() == 5);
}

TEST_CASE("1 thread and 2 threads train bitwise identical models (pt, pcd, grbm)") {
    for (int variant = 0; variant < 3; ++variant) {
        TrainOptions o = bars_options(variant == 1 ? TrainMethod::Pcd : TrainMethod::Pt);
        o.chains = 300;  // several chain blocks, so the two runs really split work differently
        o.updates = 30;
        o.monitor_every = 10;
        Dataset data = bars_and_stripes(4);
        if (variant == 2) {
            o.kind = ModelKind::Grbm;
            o.learn_sigma = true;
        }
        Model m1, m2;
        std::vector<TrainRecord> l1, l2;
        {
            ThreadLimit limit(1);
            Trainer t(o, data);
            t.run();
            m1 = t.model();
            l1 = t.log();
        }
        {
            ThreadLimit limit(2);
            Trainer t(o, data);
            t.run();
            m2 = t.model();
            l2 = t.log();
        }
        const Mat& w1 = variant == 2 ? m1.as<Grbm>()->W : m1.as<Brbm>()->W;
        const Mat& w2 = variant == 2 ? m2.as<Grbm>()->W : m2.as<Brbm>()->W;
        CHECK(w1 == w2);
        CHECK(same_records(l1, l2));
        if (variant == 2)
            CHECK(m1.as<Grbm>()->sigma == m2.as<Grbm>()->sigma && !(m1.as<Grbm>()->sigma.array() == 1.0).all());
    }
}

TEST_CASE("196 x 200 BRBM: the update's passes over W split across threads, 1 and 2 threads train the same bits") {
    // Big enough that every pass over W of an update runs in several blocks (columns of 32, panels of
    // the sampler, 16384 entries of the gradient) and the batch and the chains give 2 + 2 score tiles.
    Rng rng(21, 0);
    const Dataset data = as_dataset(random_binary(300, 196, rng));
    auto wide = [](TrainMethod method, Index updates) {
        TrainOptions o = bars_options(method);
        o.hidden = 200;
        o.batch = 100;
        o.chains = 100;
        o.updates = updates;
        o.learning_rate = 0.05;
        o.monitor_every = 0;  // records at the start and the end only, on a cheap AIS
        o.monitor_examples = 20;
        o.ais_chains = 10;
        o.ais_steps = 10;
        return o;
    };
    for (int variant = 0; variant < 3; ++variant) {
        TrainOptions o = wide(variant == 2 ? TrainMethod::Cd : TrainMethod::Pcd, 6);
        o.float32 = variant == 1;
        Model start, trained[2];
        for (int threads = 1; threads <= 2; ++threads) {
            ThreadLimit limit(threads);
            Trainer t(o, data);
            if (threads == 1) start = t.model();
            t.run();
            CHECK(t.status() == TrainStatus::Finished);
            trained[threads - 1] = t.model();
        }
        const Brbm &a = *trained[0].as<Brbm>(), &b = *trained[1].as<Brbm>();
        CHECK_MSG(a.W == b.W && a.b == b.b && a.c == b.c, "variant " + std::to_string(variant));
        CHECK((a.W - start.as<Brbm>()->W).cwiseAbs().maxCoeff() > 1e-4);  // the updates moved W
    }
    // Each step of W, computed in blocks on 2 threads, against the rule on the whole matrix: without
    // momentum W' = W + lr (g - decay W), g the gradient the update used.
    TrainOptions o = wide(TrainMethod::Pcd, 4);
    o.momentum = 0.0;
    o.weight_decay = 1e-3;
    o.schedule = LearningRateSchedule::Constant;
    ThreadLimit limit(2);
    Trainer t(o, data);
    for (int u = 0; u < 4; ++u) {
        const Mat before = t.model().as<Brbm>()->W;
        t.step(1);
        const Mat& g = t.last_gradient().W;
        const Mat expect = before + o.learning_rate * (g - o.weight_decay * before);
        CHECK_MSG(t.model().as<Brbm>()->W == expect, "update " + std::to_string(u + 1));
    }
}

TEST_CASE("update products on 2 threads: one update's gradient is the batch's mean score minus the negatives'") {
    // The update's products (training/update_products.cpp) against mean_score in double on the same
    // rows: 0/1 rows take the panel sums (BRBM), real-valued rows Eigen's GEMM (leaky RBM). 196 x 203:
    // several blocks of visible units and hidden columns, and tails of the 8 x 8 transposes; the batch
    // is all 150 rows (its mean does not depend on their order) and the 100 chains make 64 + 36
    // rows of tiles and a negative scale of -150 / 100. Variants 4 and 5: cd on the BRBM, whose
    // batch's hidden sums come from the first sweep (samplers.cpp, CdSampler::keep_hidden_sums).
    Rng rng(31, 0);
    const RowMat binary = random_binary(150, 196, rng);
    const RowMat real = random_mat(150, 196, 0.5, rng);
    for (int variant = 0; variant < 6; ++variant) {
        const bool leaky = variant == 2 || variant == 3, f32 = variant % 2 == 1, cd = variant >= 4;
        TrainOptions o;
        o.kind = leaky ? ModelKind::Leaky : ModelKind::Brbm;
        o.hidden = 203;
        o.method = cd ? TrainMethod::Cd : TrainMethod::Pcd;
        o.batch = 150;
        o.chains = 100;
        o.updates = 3;
        o.learning_rate = leaky ? 0.002 : 0.05;
        o.monitor_every = 0;  // records at the start and the end only, on a cheap AIS
        o.monitor_examples = 20;
        o.ais_chains = 10;
        o.ais_steps = 10;
        o.float32 = f32;
        o.seed = 11;
        const RowMat& X = leaky ? real : binary;
        ThreadLimit limit(2);
        Trainer t(o, as_dataset(X));
        t.step(2);  // a model that moved from its start
        const Model m = t.model();
        t.step(1);
        CHECK(t.status() != TrainStatus::Diverged);
        const Vec got = t.last_gradient().flat();
        const Vec expect = mean_score(m, X).flat() - mean_score(m, t.negative_samples()).flat();
        const double scale = std::max(1.0, expect.cwiseAbs().maxCoeff());
        const double err = (got - expect).cwiseAbs().maxCoeff() / scale;
        std::printf("  %s %s %s: max |error| / %.3f = %.2e\n", leaky ? "leaky" : "brbm", cd ? "cd" : "pcd",
                    f32 ? "float32" : "float64", scale, err);
        // float32: the products round in single precision (L, M and G's sums, about 1e-6 here);
        // float64: only the order of the additions differs.
        CHECK_MSG(err < (f32 ? 1e-4 : 1e-11), "variant " << variant << ": " << err);
        CHECK(expect.cwiseAbs().maxCoeff() > 0.05);  // a gradient that is not all zero
    }
}

TEST_CASE("update products on 2 threads, trained multimodal model: last update against the exact gradient") {
    // A BRBM trained by PT on 4x4 bars-and-stripes (its mass sits on 30 patterns, a multimodal
    // target), float64 and float32. Its last update's gradient, (1) against mean_score in double on
    // the same rows (to rounding), and (2) its model term against exact enumeration: the negatives'
    // mean score within 5 standard errors of E_model[s] (a wrong scale or sign of the negative
    // term would be off by the whole term).
    // Also pcd and cd, whose hidden sums come from the negative phase's step (its panels; for cd
    // the batch's from its first sweep): (1) only — cd's negatives are one sweep from the data, not
    // model samples, and persistent chains on this multimodal model need not have mixed.
    const Dataset data = bars_and_stripes(4);
    for (int variant = 0; variant < 6; ++variant) {
        const bool f32 = variant % 2 == 1;
        const TrainMethod method = variant < 2 ? TrainMethod::Pt : variant < 4 ? TrainMethod::Pcd : TrainMethod::Cd;
        TrainOptions o = bars_options(method);
        if (rbm::test::sanitized() && variant == 0) {
            // 48 of this case's 112 s instrumented (ASan + UBSan). The instrumented run is for memory and
            // undefined behaviour: pt's float64 update is run there by "1 thread and 2 threads
            // train bitwise identical models", and its float32 twin below runs the same code.
            std::printf("  SKIP pt float64 (instrumented run; the Release run checks it)\n");
            continue;
        }
        o.chains = 2000;  // a model term with standard errors small against its size
        o.float32 = f32;
        o.monitor_every = 0;
        ThreadLimit limit(2);
        Trainer t(o, data);
        t.step(o.updates - 1);
        const Model m = t.model();
        t.step(1);
        CHECK(t.status() == TrainStatus::Finished);
        const Vec got = t.last_gradient().flat();
        const RowMat neg = t.negative_samples();
        const Vec neg_mean = mean_score(m, neg).flat();
        const Vec expect = mean_score(m, data.X).flat() - neg_mean;
        const double err = (got - expect).cwiseAbs().maxCoeff() / std::max(1.0, expect.cwiseAbs().maxCoeff());
        const Vec exact_neg = exact_model_score(m).flat();
        const Mat sc = score_rows(m, neg);
        const Vec se =
            ((sc.rowwise() - sc.colwise().mean()).array().square().colwise().sum() / static_cast<double>(sc.rows() - 1))
                .sqrt()
                .transpose() /
            std::sqrt(static_cast<double>(sc.rows()));
        const double z = ((neg_mean - exact_neg).cwiseQuotient(se.cwiseMax(1e-12))).cwiseAbs().maxCoeff();
        std::printf("  %s %s: mass on patterns %.3f, max |error| %.2e, model term max |z| %.2f, max |E s| %.3f\n",
                    train_method_name(method), f32 ? "float32" : "float64", mass_on_patterns(m), err, z,
                    exact_neg.cwiseAbs().maxCoeff());
        CHECK(mass_on_patterns(m) > 0.5);  // trained: most mass on the patterns
        CHECK_MSG(err < (f32 ? 1e-4 : 1e-11), train_method_name(method) << (f32 ? " float32 " : " float64 ") << err);
        if (method == TrainMethod::Pt) {
            CHECK_MSG(z < 5.0, "model term max |z| = " << z);
            CHECK(exact_neg.cwiseAbs().maxCoeff() > 0.2);  // a model term that is not small
        }
    }
}

TEST_CASE("options are checked with messages naming the option") {
    const Dataset bars = bars_and_stripes(3);
    TrainOptions o;
    o.method = TrainMethod::Leaky;
    CHECK_THROWS_WITH(Trainer(o, bars), InputError, "--method leaky needs --kind leaky");
    o = TrainOptions{};
    o.batch = 1000;
    CHECK_THROWS_WITH(Trainer(o, bars), InputError, "--batch");
    o = TrainOptions{};
    Dataset digits = scaled_digits(50);
    CHECK_THROWS_WITH(Trainer(o, digits), InputError, "0/1 data");
    o.method = TrainMethod::Pt;
    o.gamma = 1.5;
    CHECK_THROWS_WITH(Trainer(o, bars), InputError, "--gamma");
    CHECK_THROWS_WITH(parse_train_method("sgd"), InputError, "cd, pcd, pt, lpt, deo, leaky or mix");
}

TEST_CASE("cancel flag stops a step, and a later step continues") {
    TrainOptions o = bars_options(TrainMethod::Pcd);
    o.updates = 50;
    Trainer t(o, bars_and_stripes(4));
    std::atomic<bool> cancel{true};
    CHECK(t.step(10, &cancel) == TrainStatus::Cancelled);
    CHECK(t.updates_done() == 0);
    cancel = false;
    CHECK(t.step(10, &cancel) == TrainStatus::Running);
    CHECK(t.updates_done() == 10);
    CHECK(t.run() == TrainStatus::Finished);
    CHECK(t.updates_done() == 50);
}

RBM_TEST_MAIN
