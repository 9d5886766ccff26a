// The paper's numerical comparison (Takahashi & Yasuda §4.2): random GRBMs small enough to
// enumerate, for several coupling scales, averaged over trials. The paper's parameter
// distributions did not survive in our copy; ours are stated in kMeanFieldSweepDistribution.
#include <atomic>
#include <cmath>
#include <string>

#include "core/meanfield/meanfield.hpp"
#include "core/numerics/parallel.hpp"
#include "core/random/rng.hpp"

namespace rbm {

const char* const kMeanFieldSweepDistribution =
    "W_ij = scale * Z_ij with Z_ij ~ N(0,1), b_i ~ N(0,1), c_j ~ N(0,1), sigma_i = 1; trial t draws "
    "(Z, b, c) from its own Philox stream and reuses them at every scale (common random numbers)";

namespace {

struct TrialOutcome {
    double true_f = 0;
    double f[3] = {0, 0, 0};
    double mse_h[3] = {0, 0, 0};
    double mse_v[3] = {0, 0, 0};
    bool converged[3] = {false, false, false};
};

void check(const MeanFieldSweepOptions& o) {
    if (o.visible < 1 || o.visible > 100000)
        throw InputError("mean-field sweep: visible units must be from 1 to 100000, got " + std::to_string(o.visible));
    if (o.hidden < 1)
        throw InputError("mean-field sweep: hidden units must be at least 1, got " + std::to_string(o.hidden));
    if (o.trials < 1 || o.trials > 10000000)
        throw InputError("mean-field sweep: trials must be from 1 to 10000000, got " + std::to_string(o.trials));
    if (o.scales.empty()) throw InputError("mean-field sweep: give at least one coupling scale");
    for (double s : o.scales)
        if (!(s >= 0) || !std::isfinite(s))
            throw InputError("mean-field sweep: coupling scales must be finite and >= 0, got " + std::to_string(s));
    const double configs = std::pow(static_cast<double>(o.hidden_values.size()), static_cast<double>(o.hidden));
    ExactOptions exact;
    if (configs > exact.max_configurations)
        throw InputError("mean-field sweep: " + std::to_string(o.hidden_values.size()) + "^" +
                         std::to_string(o.hidden) +
                         " hidden configurations are too many to enumerate for the exact answers (limit 2^24)");
}

// Mean and standard error of the mean, summed in trial order.
void mean_se(const std::vector<double>& x, double& mean, double& se) {
    const double n = static_cast<double>(x.size());
    double s = 0;
    for (double v : x) s += v;
    mean = s / n;
    double ss = 0;
    for (double v : x) ss += (v - mean) * (v - mean);
    se = x.size() > 1 ? std::sqrt(ss / (n - 1) / n) : 0.0;
}

}  // namespace

Grbm mean_field_sweep_model(const MeanFieldSweepOptions& opts, double scale, Index trial) {
    Rng rng(opts.seed, (static_cast<std::uint64_t>(StreamPurpose::Misc) << 48) + static_cast<std::uint64_t>(trial));
    const Index n = opts.visible, m = opts.hidden;
    Grbm g;
    g.W.resize(n, m);
    for (Index i = 0; i < n; ++i)
        for (Index j = 0; j < m; ++j) g.W(i, j) = scale * rng.normal();
    g.b.resize(n);
    for (Index i = 0; i < n; ++i) g.b(i) = rng.normal();
    g.c.resize(m);
    for (Index j = 0; j < m; ++j) g.c(j) = rng.normal();
    g.sigma = Vec::Ones(n);
    g.hidden_values = opts.hidden_values;
    return g;
}

std::vector<MeanFieldSweepRow> mean_field_sweep(const MeanFieldSweepOptions& opts) {
    check(opts);
    {
        // Validates hidden_values and the mean-field options once, with clear messages.
        MeanFieldOptions probe = opts.mean_field;
        probe.restarts = 1;
        probe.max_iterations = 1;
        mean_field(mean_field_sweep_model(opts, opts.scales.front(), 0), probe);
    }
    const Index S = static_cast<Index>(opts.scales.size()), T = opts.trials;
    std::vector<TrialOutcome> out(static_cast<std::size_t>(S * T));
    const MeanFieldType types[3] = {MeanFieldType::TypeI, MeanFieldType::TypeII, MeanFieldType::Tap};
    // Cancelling must not throw from inside the loop: an exception cancels TBB's task group, and
    // with it mean_field's own parallel loop over restarts running in the other threads, which
    // then returns with restarts never run (a crash). The remaining jobs are skipped instead.
    std::atomic<bool> stopped{false};
    for_each_block(
        S * T,
        [&](Index begin, Index end) {
            for (Index job = begin; job < end; ++job) {
                if (stopped.load(std::memory_order_relaxed) || (opts.cancelled && opts.cancelled())) {
                    stopped.store(true, std::memory_order_relaxed);
                    return;
                }
                const Index s = job / T, t = job % T;
                const Grbm g = mean_field_sweep_model(opts, opts.scales[static_cast<std::size_t>(s)], t);
                const MeanFieldExact ref = mean_field_exact_reference(g);
                TrialOutcome& o = out[static_cast<std::size_t>(job)];
                o.true_f = ref.free_energy;
                for (int k = 0; k < 3; ++k) {
                    MeanFieldOptions mf = opts.mean_field;
                    mf.type = types[k];
                    mf.seed = opts.seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(t) + 1;
                    const MeanFieldResult r = mean_field(g, mf);
                    const MeanFieldExact e = compare_with_exact(r, ref);
                    o.f[k] = r.free_energy;
                    o.mse_h[k] = e.mse_h;
                    o.mse_v[k] = e.mse_v;
                    o.converged[k] = r.converged;
                }
                if (opts.on_trial) opts.on_trial();
            }
        },
        1);
    if (stopped.load()) throw Cancelled();

    std::vector<MeanFieldSweepRow> rows;
    std::vector<double> buf(static_cast<std::size_t>(T));
    for (Index s = 0; s < S; ++s) {
        MeanFieldSweepRow row;
        row.scale = opts.scales[static_cast<std::size_t>(s)];
        const TrialOutcome* o = &out[static_cast<std::size_t>(s * T)];
        auto collect = [&](auto f) {
            for (Index t = 0; t < T; ++t) buf[static_cast<std::size_t>(t)] = f(o[t]);
        };
        double unused = 0;
        collect([](const TrialOutcome& x) { return x.true_f; });
        mean_se(buf, row.true_free_energy, unused);
        MeanFieldSweepMethod* methods[3] = {&row.type1, &row.type2, &row.tap};
        for (int k = 0; k < 3; ++k) {
            MeanFieldSweepMethod& m = *methods[k];
            collect([k](const TrialOutcome& x) { return x.f[k]; });
            mean_se(buf, m.free_energy, unused);
            collect([k](const TrialOutcome& x) { return x.f[k] - x.true_f; });
            mean_se(buf, m.gap, m.gap_se);
            collect([k](const TrialOutcome& x) { return x.mse_h[k]; });
            mean_se(buf, m.mse_h, m.mse_h_se);
            collect([k](const TrialOutcome& x) { return x.mse_v[k]; });
            mean_se(buf, m.mse_v, m.mse_v_se);
            collect([k](const TrialOutcome& x) { return x.converged[k] ? 1.0 : 0.0; });
            mean_se(buf, m.converged_fraction, unused);
        }
        rows.push_back(row);
    }
    return rows;
}

}  // namespace rbm
