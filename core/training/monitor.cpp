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
#include "core/numerics/parallel.hpp"
#include "core/numerics/scalar.hpp"
#include "core/training/samplers.hpp"
#include "core/training/score_table.hpp"
#include "core/training/trainer_impl.hpp"

namespace rbm {

namespace {
constexpr std::uint64_t kMonitorSalt = 11;        // monitor streams apart from the updates' (trainer.cpp salts 3-5)
constexpr Index kMonitorFloat32Weights = 100000;  // n m from which a BRBM record's AIS runs in float32
}  // namespace

namespace {

// Per row |v - E[v | h = E[h | v]]|^2 (one mean-field reconstruction) into err; BRBM: also log p*(v)
// into *log_unnorm, from the same product V W (Brbm::log_unnorm's arithmetic).
void reconstruction_rows(const Model& model, const RowMat& V, Vec& err, Vec* log_unnorm) {
    RowMat R;
    if (const auto* m = model.as<Brbm>()) {
        RowMat L = V * m->W;
        L.rowwise() += m->c.transpose();
        if (log_unnorm) {
            Vec out = V * m->b;
            for (Index r = 0; r < V.rows(); ++r)
                for (Index j = 0; j < L.cols(); ++j) out(r) += softplus(L(r, j));
            *log_unnorm = out;
        }
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
        err = Vec::Constant(V.rows(), std::numeric_limits<double>::quiet_NaN());
        return;
    }
    err = (V - R).rowwise().squaredNorm();
}

// Mean over rows of the reconstruction error (and, BRBM, of log p*(v)), over fixed blocks of rows
// in parallel: each row's value depends only on its block, so the means are the same at any thread count.
double reconstruction_error(const Model& model, const RowMat& V, double* mean_log_unnorm = nullptr) {
    const Index n = V.rows();
    Vec err(n), lu(n);
    const bool with_lu = mean_log_unnorm && model.kind() == ModelKind::Brbm;
    const Brbm* brbm = model.as<Brbm>();
    for_each_block(n, [&](Index b, Index e) {
        if (brbm) {
            // The products on the kernels' instruction set (training/score_table.hpp): this file's
            // Eigen is the baseline build's, 2-4x slower at the 784 x 200 products of a record.
            detail::ScoreTile t;
            t.X = V.data();
            t.ld = V.cols();
            t.first = b;
            t.rows = e - b;
            t.n = brbm->n_visible();
            t.m = brbm->n_hidden();
            t.W = brbm->W.data();
            t.b = brbm->b.data();
            t.c = brbm->c.data();
            detail::score_table().row_scores(t, lu.data() + b, err.data() + b);
            return;
        }
        const RowMat block = V.middleRows(b, e - b);
        Vec be, bl;
        reconstruction_rows(model, block, be, with_lu ? &bl : nullptr);
        err.segment(b, e - b) = be;
        if (with_lu) lu.segment(b, e - b) = bl;
    });
    if (with_lu) *mean_log_unnorm = lu.mean();
    return err.mean();
}

}  // namespace

RowMat Trainer::Impl::monitor_rows() {
    const Index n = data.size(), rows = options.monitor_examples > 0 ? std::min(options.monitor_examples, n) : n;
    if (rows == n) return data.X;
    if (monitor_index.empty()) {
        // A partial Fisher-Yates draw of `rows` distinct rows keyed by the seed, then sorted.
        std::vector<Index> all(static_cast<std::size_t>(n));
        for (Index i = 0; i < n; ++i) all[static_cast<std::size_t>(i)] = i;
        Rng rng(detail::update_key(options.seed, 0, kMonitorSalt), static_cast<std::uint64_t>(StreamPurpose::Misc)
                                                                       << 48);
        for (Index i = 0; i < rows; ++i)
            std::swap(
                all[static_cast<std::size_t>(i)],
                all[static_cast<std::size_t>(i + static_cast<Index>(rng.below(static_cast<std::uint64_t>(n - i))))]);
        monitor_index.assign(all.begin(), all.begin() + rows);
        std::sort(monitor_index.begin(), monitor_index.end());
    }
    RowMat X(rows, data.dim());
    for (Index r = 0; r < rows; ++r) X.row(r) = data.X.row(monitor_index[static_cast<std::size_t>(r)]);
    return X;
}

TrainRecord Trainer::Impl::record() {
    TrainRecord r;
    r.update = done;
    r.epoch = static_cast<double>(done) * static_cast<double>(options.batch) / static_cast<double>(data.size());
    r.learning_rate = learning_rate_at(done);
    r.seconds = seconds;
    const RowMat rows = monitor_rows();
    double mean_log_unnorm = 0;
    r.reconstruction_error = reconstruction_error(model, rows, &mean_log_unnorm);
    if (model.kind() != ModelKind::Brbm) mean_log_unnorm = model.log_unnorm(rows).mean();
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
            PathRequest req;
            if (model.kind() == ModelKind::Leaky) {
                req.path = "leaky";  // the monitor estimates with the exact kernel, whatever kernel trains
                req.leaky_kernel = LeakyKernel::ExactMH;  // exact for p*(v): docs/methods/models.md#leaky-kernels
            } else {
                req.path = "geometric";
                req.base = "data";
                req.moments.data = rows;
                // A large BRBM: the products with W in single precision (the log weights still accumulate
                // in double), about half the time of a record's AIS with a rounding far inside its
                // interval. Below kMonitorFloat32Weights the products do not dominate a step: double.
                req.float32 =
                    model.kind() == ModelKind::Brbm && model.n_visible() * model.n_hidden() >= kMonitorFloat32Weights;
            }
            const PathPtr path = build_path(model, req);
            ScheduleRequest sr;
            sr.kind = "linear";
            sr.steps = options.ais_steps;
            AisOptions ao;
            ao.chains = options.ais_chains;
            ao.seed = options.ais_seed;
            ao.checkpoints = 1;
            ao.bootstrap_resamples = 200;
            ao.cost_functional = false;  // no record shows it (an enumeration of up to 2^16 terms per record)
            // Fewer chains than one automatic block (the CLI's 20): two blocks, so both cores anneal.
            if (const Index auto_block = ais_block_size(path->dim()); options.ais_chains <= auto_block)
                ao.block = std::max<Index>(1, (options.ais_chains + 1) / 2);
            const AisEstimate e = run_ais(*path, make_schedule(sr, path.get()), ao).estimate;
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
    if (test_rows.rows() > 0 && std::isfinite(r.log_z)) {
        // Held-out rows against the same log Z: its interval carries over (exact: none).
        const double test_mean = model.log_unnorm(test_rows).mean();
        r.test_log_likelihood = test_mean - r.log_z;
        const bool exact = r.log_likelihood_method == "exact";
        r.test_log_likelihood_low = exact ? r.test_log_likelihood : test_mean - mean_log_unnorm + r.log_likelihood_low;
        r.test_log_likelihood_high =
            exact ? r.test_log_likelihood : test_mean - mean_log_unnorm + r.log_likelihood_high;
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
          "log_z,ais_ess,reconstruction_error,projections,max_singular_value,seconds,swap_acceptance,"
          "test_log_likelihood,test_log_likelihood_low,test_log_likelihood_high\n";
    for (const TrainRecord& r : impl_->log) {
        os << r.update << ',' << r.epoch << ',' << r.learning_rate << ',' << r.log_likelihood << ','
           << r.log_likelihood_method << ',' << r.log_likelihood_low << ',' << r.log_likelihood_high << ',' << r.log_z
           << ',' << r.ais_ess << ',' << r.reconstruction_error << ',' << r.projections << ',' << r.max_singular_value
           << ',' << r.seconds << ',';
        for (std::size_t k = 0; k < r.swap_acceptance.size(); ++k) os << (k ? ";" : "") << r.swap_acceptance[k];
        os << ',' << r.test_log_likelihood << ',' << r.test_log_likelihood_low << ',' << r.test_log_likelihood_high;
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
