// Target moments for moment-matched bases and MAS (docs/methods/annealing-paths.md#target-moments): exact when the
// model can be enumerated, otherwise Gibbs chains (Kiwaki's setting: 100 chains x 5000 steps
// after 100 burn-in), or a data set.
#include <algorithm>
#include <sstream>

#include "core/ais/paths.hpp"
#include "core/exact/exact.hpp"
#include "core/kernels/gibbs.hpp"

namespace rbm {

namespace {

bool enumerable(const Model& model) {
    if (model.kind() == ModelKind::Gaussian) return true;
    if (model.kind() == ModelKind::Leaky) return false;
    return enumeration_size(model).configurations <= ExactOptions{}.max_configurations;
}

VisibleMoments exact_moments(const Model& model) {
    if (const auto* g = model.as<Gaussian>()) return {g->mean, g->cov, "exact (the model is a Gaussian)"};
    const Moments m = exact_visible_moments(model);
    return {m.mean, m.cov, "exact enumeration"};
}

// Mean and covariance accumulated around a fixed shift (the first sample mean), so the
// covariance is not a difference of two large second moments.
class MomentAccumulator {
public:
    MomentAccumulator(const Vec& shift, bool need_cov)
        : shift_(shift), sum_(Vec::Zero(shift.size())), need_cov_(need_cov) {
        if (need_cov_) sq_ = Mat::Zero(shift.size(), shift.size());
    }
    void add(const RowMat& rows) {
        const RowMat d = rows.rowwise() - shift_.transpose();
        sum_ += d.colwise().sum().transpose();
        if (need_cov_) sq_.noalias() += d.transpose() * d;
        count_ += static_cast<double>(rows.rows());
    }
    VisibleMoments result(std::string source) const {
        const Vec md = sum_ / count_;
        if (!need_cov_) return {shift_ + md, Mat(), std::move(source)};
        Mat cov = sq_ / count_ - md * md.transpose();
        cov = 0.5 * (cov + cov.transpose());
        return {shift_ + md, cov, std::move(source)};
    }

private:
    Vec shift_, sum_;
    Mat sq_;
    bool need_cov_;
    double count_ = 0;
};

VisibleMoments gibbs_moments(const Model& model, const MomentSource& src) {
    if (src.gibbs_chains < 1 || src.gibbs_steps < 1 || src.gibbs_burn_in < 0)
        throw InputError("Gibbs moment estimation needs at least 1 chain and 1 step, and burn-in >= 0");
    ChainRngs rngs(src.seed, src.gibbs_chains, StreamPurpose::Moments);
    // Checked before every sweep: a sweep of 100 chains costs milliseconds (tens on a 1 x 100000
    // GRBM), the load nothing, so a cancel (quitting the app) lands within one sweep.
    const auto check_cancel = [&] {
        if (src.cancel && src.cancel->load(std::memory_order_relaxed)) throw Cancelled();
    };
    RowMat V = initial_states(model, src.gibbs_chains, rngs);
    const Index total = src.gibbs_burn_in + src.gibbs_steps;
    auto after_sweep = [&](Index done) {
        check_cancel();
        if (src.on_sweep) src.on_sweep(done, total);
    };
    for (Index t = 0; t < src.gibbs_burn_in; ++t) {
        check_cancel();
        gibbs_sweep(model, V, rngs);
        after_sweep(t + 1);
    }
    MomentAccumulator acc(V.colwise().mean().transpose(), src.need_cov);
    for (Index t = 0; t < src.gibbs_steps; ++t) {
        check_cancel();
        gibbs_sweep(model, V, rngs);
        acc.add(V);
        after_sweep(src.gibbs_burn_in + t + 1);
    }
    std::ostringstream os;
    os << "Gibbs chains (" << src.gibbs_chains << " x " << src.gibbs_steps << ", burn-in " << src.gibbs_burn_in << ")";
    return acc.result(os.str());
}

VisibleMoments data_moments(const Model& model, const RowMat& data, bool need_cov) {
    if (data.rows() < 1) throw InputError("moments from data need at least one data row, got none");
    if (data.cols() != model.n_visible())
        throw InputError("the data rows have " + std::to_string(data.cols()) + " values, the model " +
                         std::to_string(model.n_visible()) + " visible units");
    MomentAccumulator acc(data.colwise().mean().transpose(), need_cov);
    acc.add(data);
    return acc.result("data (" + std::to_string(data.rows()) + " rows)");
}

}  // namespace

VisibleMoments target_moments(const Model& model, const MomentSource& src) {
    switch (src.kind) {
        case MomentSource::Kind::Exact: return exact_moments(model);
        case MomentSource::Kind::Gibbs: return gibbs_moments(model, src);
        case MomentSource::Kind::Data: return data_moments(model, src.data, src.need_cov);
        case MomentSource::Kind::Auto: break;
    }
    if (!enumerable(model)) return gibbs_moments(model, src);
    // Exact only when it is not the dominant cost: on a 784 x 20 BRBM the enumeration (2^20 hidden
    // configurations, each adding an n x n outer product) takes minutes, the run it serves a second.
    if (src.run_work > 0 &&
        exact_moments_work(model) > std::max({gibbs_moments_work(model, src), src.run_work, kExactMomentsFloor}))
        return gibbs_moments(model, src);
    return exact_moments(model);
}

double exact_moments_work(const Model& model) {
    if (model.kind() == ModelKind::Gaussian) return 0;
    const double n = static_cast<double>(model.n_visible()), m = static_cast<double>(model.n_hidden());
    // Every enumerated configuration: its product with W and its outer product into the covariance.
    return enumeration_size(model).configurations * (n * m + n * n);
}

double gibbs_moments_work(const Model& model, const MomentSource& src) {
    const double n = static_cast<double>(model.n_visible()), m = static_cast<double>(model.n_hidden());
    const double sweeps = static_cast<double>(src.gibbs_chains) * static_cast<double>(src.gibbs_burn_in + src.gibbs_steps);
    return sweeps * 2.0 * n * m +
           (src.need_cov ? static_cast<double>(src.gibbs_chains) * static_cast<double>(src.gibbs_steps) * n * n : 0.0);
}

}  // namespace rbm
