// Monitoring records: exact or AIS average log-likelihood, reconstruction error, swap acceptance,
// projections; and the log as CSV / JSON.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/ais/paths.hpp"
#include "core/ais/runner.hpp"
#include "core/exact/exact.hpp"
#include "core/io/train_record_json.hpp"
#include "core/numerics/scalar.hpp"
#include "core/kernels/gibbs.hpp"
#include "core/training/samplers.hpp"
#include "core/training/trainer_impl.hpp"

namespace rbm {

namespace {
constexpr std::uint64_t kMonitorSalt = 11;  // monitor streams apart from the updates' (trainer.cpp salts 3-5)
}  // namespace

namespace {

// Mean over rows of |v - E[v | h = E[h | v]]|^2 (one mean-field reconstruction).
double reconstruction_error(const Model& model, const RowMat& V) {
    RowMat R;
    if (const auto* m = model.as<Brbm>()) {
        RowMat L = V * m->W;
        L.rowwise() += m->c.transpose();
        const RowMat H = L.unaryExpr([](double x) { return sigmoid(x); });
        R = H * m->W.transpose();
        R.rowwise() += m->b.transpose();
        R = R.unaryExpr([](double x) { return sigmoid(x); });
    } else if (const auto* m = model.as<Grbm>()) {
        const RowMat H = m->hidden_field(V).unaryExpr([&](double x) { return m->mean_hidden(x); });
        R = (H * m->W.transpose()).array().rowwise() * m->sigma.transpose().array();
        R.rowwise() += m->b.transpose();
    } else if (const auto* m = model.as<Leaky>()) {
        RowMat E = V * m->W;
        E.rowwise() += m->c.transpose();
        const double cl = m->leakiness;
        R = E.unaryExpr([cl](double e) { return e > 0 ? e : cl * e; }) * m->W.transpose();
        R.rowwise() += m->b.transpose();
    } else {
        return std::numeric_limits<double>::quiet_NaN();
    }
    return (V - R).rowwise().squaredNorm().mean();
}

}  // namespace

RowMat Trainer::Impl::monitor_rows() {
    const Index n = data.size(), rows = options.monitor_examples > 0 ? std::min(options.monitor_examples, n) : n;
    if (rows == n) return data.X;
    if (monitor_index.empty()) {
        // A partial Fisher-Yates draw of `rows` distinct rows keyed by the seed, then sorted.
        std::vector<Index> all(static_cast<std::size_t>(n));
        for (Index i = 0; i < n; ++i) all[static_cast<std::size_t>(i)] = i;
        Rng rng(detail::update_key(options.seed, 0, kMonitorSalt), static_cast<std::uint64_t>(StreamPurpose::Misc) << 48);
        for (Index i = 0; i < rows; ++i)
            std::swap(all[static_cast<std::size_t>(i)],
                      all[static_cast<std::size_t>(i + static_cast<Index>(rng.below(static_cast<std::uint64_t>(n - i))))]);
        monitor_index.assign(all.begin(), all.begin() + rows);
        std::sort(monitor_index.begin(), monitor_index.end());
    }
    RowMat X(rows, data.dim());
    for (Index r = 0; r < rows; ++r) X.row(r) = data.X.row(monitor_index[static_cast<std::size_t>(r)]);
    return X;
}

namespace {

// The model at t in [0, 1] on the straight line between the parameters of a and b (same kind and
// shape). Every such model is valid: sigma stays positive and, for a leaky RBM, the largest singular
// value of (1 - t) W_a + t W_b is at most the larger of the two (the spectral norm is convex).
Model interpolate(const Model& a, const Model& b, double t) {
    Model m = b;
    auto mix = [t](const auto& x, const auto& y) { return ((1.0 - t) * x + t * y).eval(); };
    if (auto* g = m.as<Grbm>()) {
        const Grbm& ga = *a.as<Grbm>();
        const Grbm& gb = *b.as<Grbm>();
        g->W = mix(ga.W, gb.W);
        g->b = mix(ga.b, gb.b);
        g->c = mix(ga.c, gb.c);
        g->sigma = mix(ga.sigma, gb.sigma);
    } else if (auto* r = m.as<Brbm>()) {
        const Brbm& ra = *a.as<Brbm>();
        const Brbm& rb = *b.as<Brbm>();
        r->W = mix(ra.W, rb.W);
        r->b = mix(ra.b, rb.b);
        r->c = mix(ra.c, rb.c);
    } else if (auto* l = m.as<Leaky>()) {
        const Leaky& la = *a.as<Leaky>();
        const Leaky& lb = *b.as<Leaky>();
        l->W = mix(la.W, lb.W);
        l->b = mix(la.b, lb.b);
        l->c = mix(la.c, lb.c);
    }
    return m;
}

// Fewest steps a BRBM leg takes (more when the increments' conditional ESS asks for them), and the
// conditional ESS each step keeps: the next t is the largest in (t, 1] whose weight increments
// keep (sum w e^d)^2 / (N sum w^2 e^2d) >= kLegCess (w: the chains' normalized weights; Zhou, Johansen
// & Aston 2016, adaptive tempering), found by bisection, at least 1/K past t so that a leg takes at most K steps.
constexpr double kLegCess = 0.99;
constexpr int kLegBisections = 10;

// One trajectory leg of a BRBM from `a` to `b`: the intermediate models are the straight line
// theta_t = (1-t) theta_a + t theta_b, so with P = V [W_a | W_b] held for the current states every
// log f_t(v) = b_t'v + sum_j softplus((1-t)(P_a + c_a) + t (P_b + c_b)) costs no product, and a
// step costs the two of its sweep (h from the field at t, v from W_t h) plus the product for P.
//
// When the chains' ESS falls below N/2 they are resampled (systematic resampling, sequential Monte
// Carlo; Del Moral, Doucet & Jasra 2006): log_z_offset takes log mean exp(lw), lw restarts at 0, so
// log_z_offset + log mean exp(lw) stays an estimate of log Z whose expectation in Z is unbiased, and
// stage_var takes that stage's delta-method variance of log mean exp(lw), (N / ESS - 1) / N.
void brbm_leg(const Brbm& a, const Brbm& b, Index max_steps, RowMat& V, Vec& lw, ChainRngs& rngs,
              double& log_z_offset, double& stage_var, Rng& resample_rng) {
    const Index N = V.rows(), n = a.n_visible(), m = a.n_hidden();
    Mat Wab(n, 2 * m);
    Wab << a.W, b.W;
    RowMat P;
    Vec va, vb;  // b_a'v, b_b'v
    auto refresh = [&] {
        P.noalias() = V * Wab;
        P.leftCols(m).rowwise() += a.c.transpose();
        P.rightCols(m).rowwise() += b.c.transpose();
        va.noalias() = V * a.b;
        vb.noalias() = V * b.b;
    };
    auto log_f = [&](double t, Vec& out) {
        out.resize(N);
        for (Index r = 0; r < N; ++r) {
            double s = (1.0 - t) * va(r) + t * vb(r);
            for (Index j = 0; j < m; ++j) s += softplus((1.0 - t) * P(r, j) + t * P(r, m + j));
            out(r) = s;
        }
    };
    refresh();
    Vec cur, next, inc;
    log_f(0.0, cur);
    double t = 0;
    const double min_step = 1.0 / static_cast<double>(std::max<Index>(1, max_steps));
    RowMat H(N, m);
    while (t < 1.0) {
        if (effective_sample_size(lw) < 0.5 * static_cast<double>(N)) {
            stage_var += (static_cast<double>(N) / effective_sample_size(lw) - 1.0) / static_cast<double>(N);
            log_z_offset += log_mean_exp(lw);
            const Vec w = (lw.array() - lw.maxCoeff()).exp().matrix();
            const double total = w.sum();
            const RowMat old = V;
            const Vec old_cur = cur;
            const double u0 = resample_rng.uniform() / static_cast<double>(N);
            double acc = w(0) / total;
            Index src = 0;
            for (Index r = 0; r < N; ++r) {
                const double point = u0 + static_cast<double>(r) / static_cast<double>(N);
                while (acc < point && src + 1 < N) acc += w(++src) / total;
                V.row(r) = old.row(src);
                cur(r) = old_cur(src);
            }
            lw.setZero();
            refresh();
        }
        // Normalized current weights, then the conditional ESS of a step to u.
        const double top = lw.maxCoeff();
        const Vec w = (lw.array() - top).exp().matrix();
        auto cess = [&](double u) {
            log_f(u, next);
            inc = next - cur;
            const double shift = inc.maxCoeff();
            double s1 = 0, s2 = 0, sw = 0;
            for (Index r = 0; r < N; ++r) {
                const double e = std::exp(inc(r) - shift);
                s1 += w(r) * e;
                s2 += w(r) * e * e;
                sw += w(r);
            }
            return s1 * s1 / (sw * s2);
        };
        double u = 1.0;
        if (cess(1.0) < kLegCess && 1.0 - t > min_step) {
            double lo = std::min(1.0, t + min_step), hi = 1.0;
            if (cess(lo) >= kLegCess) {
                for (int i = 0; i < kLegBisections; ++i) {
                    const double mid = 0.5 * (lo + hi);
                    (cess(mid) >= kLegCess ? lo : hi) = mid;
                }
            }
            u = lo;
            cess(u);  // leaves next and inc at u
        }
        lw += inc;
        cur = next;
        t = u;
        // One block-Gibbs sweep of theta_t: h from the field, then v from W_t h.
        for (Index r = 0; r < N; ++r) {
            Rng& rng = rngs[r];
            for (Index j = 0; j < m; ++j)
                H(r, j) = rng.uniform() < sigmoid((1.0 - t) * P(r, j) + t * P(r, m + j)) ? 1.0 : 0.0;
        }
        const Mat Wt = (1.0 - t) * a.W + t * b.W;
        const Vec bt = (1.0 - t) * a.b + t * b.b;
        RowMat Bv = H * Wt.transpose();
        for (Index r = 0; r < N; ++r) {
            Rng& rng = rngs[r];
            for (Index i = 0; i < n; ++i) V(r, i) = rng.uniform() < sigmoid(Bv(r, i) + bt(i)) ? 1.0 : 0.0;
        }
        refresh();
        log_f(t, cur);
    }
}

}  // namespace

Model decoupled_model(const Model& model) {
    Model m = model;
    if (auto* g = m.as<Grbm>()) g->W.setZero();
    if (auto* r = m.as<Brbm>()) r->W.setZero();
    if (auto* l = m.as<Leaky>()) l->W.setZero();
    return m;
}

double decoupled_log_z(const Model& model) {
    // With W = 0 the visible and hidden units are independent and each factor is normalized in closed form.
    if (const auto* r = model.as<Brbm>()) {
        if (!r->W.isZero(0.0)) throw InputError("decoupled_log_z: W is not zero");
        double z = 0;
        for (Index i = 0; i < r->b.size(); ++i) z += softplus(r->b(i));  // sum_v exp(b'v) = prod (1 + e^b)
        for (Index j = 0; j < r->c.size(); ++j) z += softplus(r->c(j));
        return z;
    }
    if (const auto* g = model.as<Grbm>()) {
        if (!g->W.isZero(0.0)) throw InputError("decoupled_log_z: W is not zero");
        double z = 0.5 * kLog2Pi * static_cast<double>(g->n_visible()) + g->sigma.array().log().sum();
        for (Index j = 0; j < g->c.size(); ++j) z += g->log_partition_hidden(g->c(j));
        return z;
    }
    if (const auto* l = model.as<Leaky>()) {
        if (!l->W.isZero(0.0)) throw InputError("decoupled_log_z: W is not zero");
        // eta = c: log p*(v) = -|v|^2/2 + b'v + sum_j alpha_j c_j^2 / 2, a Gaussian N(b, I).
        double z = 0.5 * kLog2Pi * static_cast<double>(l->n_visible()) + 0.5 * l->b.squaredNorm();
        for (Index j = 0; j < l->c.size(); ++j) z += 0.5 * (l->c(j) > 0 ? 1.0 : l->leakiness) * l->c(j) * l->c(j);
        return z;
    }
    throw InputError("decoupled_log_z: not an RBM");
}

const Vec& Trainer::Impl::advance_trajectory() {
    Trajectory& tr = trajectory;
    if (!tr.started) {
        tr.at = decoupled_model(model);
        tr.log_z_start = decoupled_log_z(tr.at);
        // initial_states draws v from the W = 0 model exactly (BRBM Bernoulli(sigm(b)), GRBM N(b, sigma^2), leaky N(b, I)).
        ChainRngs rngs(detail::update_key(options.ais_seed, 0, kMonitorSalt), options.ais_chains, StreamPurpose::Chains);
        tr.V = initial_states(tr.at, options.ais_chains, rngs);
        tr.log_weights = Vec::Zero(options.ais_chains);
        tr.legs = 0;
        tr.stage_var = 0;
        tr.started = true;
    }
    // AIS from tr.at to model on p_t, t = k / K: lw += log f_t(v) - log f_{t-1/K}(v), then one sweep at t.
    ++tr.legs;
    ChainRngs rngs(detail::update_key(options.ais_seed, static_cast<std::uint64_t>(tr.legs), kMonitorSalt),
                   options.ais_chains, StreamPurpose::Chains);
    const Index K = std::max<Index>(1, options.trajectory_steps);
    if (model.kind() == ModelKind::Brbm) {
        Rng resample_rng(detail::update_key(options.ais_seed, static_cast<std::uint64_t>(tr.legs), kMonitorSalt),
                         static_cast<std::uint64_t>(StreamPurpose::Misc) << 48);
        brbm_leg(*tr.at.as<Brbm>(), *model.as<Brbm>(), K, tr.V, tr.log_weights, rngs, tr.log_z_start, tr.stage_var,
                 resample_rng);
        tr.at = model;
        return tr.log_weights;
    }
    Model prev = tr.at;
    for (Index k = 1; k <= K; ++k) {
        const Model next = k == K ? model : interpolate(tr.at, model, static_cast<double>(k) / static_cast<double>(K));
        tr.log_weights += next.log_unnorm(tr.V) - prev.log_unnorm(tr.V);
        gibbs_sweep(next, tr.V, rngs);
        prev = next;
    }
    tr.at = model;
    return tr.log_weights;
}

TrainRecord Trainer::Impl::record() {
    TrainRecord r;
    r.update = done;
    r.epoch = static_cast<double>(done) * static_cast<double>(options.batch) / static_cast<double>(data.size());
    r.learning_rate = learning_rate_at(done);
    r.seconds = seconds;
    const RowMat rows = monitor_rows();
    r.reconstruction_error = reconstruction_error(model, rows);
    const double mean_log_unnorm = model.log_unnorm(rows).mean();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    r.log_likelihood = r.log_likelihood_low = r.log_likelihood_high = r.log_z = nan;
    try {
        ExactOptions eo;
        eo.max_configurations = options.exact_limit;
        if (enumeration_size(model).configurations <= options.exact_limit && has_exact_log_z(model, eo)) {
            r.log_z = exact_log_z(model, eo);
            r.log_likelihood = r.log_likelihood_low = r.log_likelihood_high = mean_log_unnorm - r.log_z;
            r.log_likelihood_method = "exact";
        } else {
            PathRequest req;  // fresh AIS only
            if (model.kind() == ModelKind::Leaky) {
                req.path = "leaky";  // the monitor estimates with the exact kernel, whatever kernel trains
                req.leaky_kernel = LeakyKernel::ExactMH;  // exact for p*(v): docs/methods/models.md#leaky-kernels
            } else {
                req.path = "geometric";
                req.base = "data";
                req.moments.data = rows;
            }
            AisEstimate e;
            if (options.monitor_ais == TrainOptions::MonitorAis::Trajectory) {
                const Vec& lw = advance_trajectory();
                if (!lw.allFinite()) throw InputError("trajectory AIS: non-finite log weights");
                EstimateOptions eo;
                eo.seed = options.ais_seed;
                eo.bootstrap_resamples = 200;
                e = estimate_log_z(lw, trajectory.log_z_start, eo);
                if (trajectory.stage_var > 0) {
                    // Resampled: the interval also carries the earlier stages' variance (delta method;
                    // the bootstrap of the current weights alone knows nothing of them).
                    const double n = static_cast<double>(lw.size());
                    const double var = trajectory.stage_var + (n / e.ess - 1.0) / n;
                    e.ci95_low = std::min(e.ci95_low, e.log_z - 1.96 * std::sqrt(var));
                    e.ci95_high = std::max(e.ci95_high, e.log_z + 1.96 * std::sqrt(var));
                }
            } else {
                const PathPtr path = build_path(model, req);
                ScheduleRequest sr;
                sr.kind = "linear";
                sr.steps = options.ais_steps;
                AisOptions ao;
                ao.chains = options.ais_chains;
                ao.seed = options.ais_seed;
                ao.checkpoints = 1;
                ao.bootstrap_resamples = 200;
                e = run_ais(*path, make_schedule(sr, path.get()), ao).estimate;
            }
            r.log_z = e.log_z;
            r.log_likelihood = mean_log_unnorm - e.log_z;
            r.log_likelihood_low = mean_log_unnorm - e.ci95_high;
            r.log_likelihood_high = mean_log_unnorm - e.ci95_low;
            r.ais_ess = e.ess;
            r.log_likelihood_method = "ais";
            // Every p(v|h) of these kinds is a Gaussian with covariance diag(sigma^2) (leaky: I), so
            // log p(v) <= -sum_i log(sqrt(2 pi) sigma_i) (BRBM: 0). An estimate above it means AIS
            // failed (a near-degenerate model: W's largest singular value pinned at the projection limit).
            double bound = 0.0;
            if (const auto* g = model.as<Grbm>())
                bound = -(0.5 * kLog2Pi * static_cast<double>(g->n_visible()) + g->sigma.array().log().sum());
            if (model.kind() == ModelKind::Leaky) bound = -0.5 * kLog2Pi * static_cast<double>(model.n_visible());
            if (!(r.log_likelihood <= bound)) {
                r.log_likelihood_method = "ais-unreliable";
                r.log_likelihood = r.log_likelihood_low = r.log_likelihood_high = nan;
            }
        }
    } catch (const InputError&) {
        // AIS refused the model (non-finite weights): the record says so; the parameters themselves
        // are checked after every update.
        r.log_likelihood_method = "ais-failed";
    }
    if (acceptance_updates > 0)
        for (double a : acceptance_sum) r.swap_acceptance.push_back(a / static_cast<double>(acceptance_updates));
    std::fill(acceptance_sum.begin(), acceptance_sum.end(), 0.0);
    acceptance_updates = 0;
    r.projections = projections_since;
    projections_since = 0;
    if (const Leaky* l = model.as<Leaky>()) r.max_singular_value = l->max_singular_value();
    return r;
}

std::string Trainer::log_csv() const {
    std::ostringstream os;
    os << std::setprecision(10);
    os << "update,epoch,learning_rate,log_likelihood,log_likelihood_method,log_likelihood_low,log_likelihood_high,"
          "log_z,ais_ess,reconstruction_error,projections,max_singular_value,seconds,swap_acceptance\n";
    for (const TrainRecord& r : impl_->log) {
        os << r.update << ',' << r.epoch << ',' << r.learning_rate << ',' << r.log_likelihood << ','
           << r.log_likelihood_method << ',' << r.log_likelihood_low << ',' << r.log_likelihood_high << ',' << r.log_z
           << ',' << r.ais_ess << ',' << r.reconstruction_error << ',' << r.projections << ',' << r.max_singular_value
           << ',' << r.seconds << ',';
        for (std::size_t k = 0; k < r.swap_acceptance.size(); ++k) os << (k ? ";" : "") << r.swap_acceptance[k];
        os << '\n';
    }
    return os.str();
}

std::string Trainer::log_json() const {
    nlohmann::json a = nlohmann::json::array();
    for (const TrainRecord& r : impl_->log) a.push_back(train_record_to_json(r));
    return a.dump(1);
}

}  // namespace rbm
