// Names of the training methods and the checks on TrainOptions.
#include <algorithm>
#include <cmath>
#include <string>

#include <Eigen/Eigenvalues>

#include "core/numerics/memory_budget.hpp"
#include "core/training/training.hpp"

namespace rbm {

const char* train_method_name(TrainMethod m) {
    switch (m) {
        case TrainMethod::Cd: return "cd";
        case TrainMethod::Pcd: return "pcd";
        case TrainMethod::Pt: return "pt";
        case TrainMethod::Lpt: return "lpt";
        case TrainMethod::Deo: return "deo";
        case TrainMethod::Leaky: return "leaky";
        case TrainMethod::Mix: return "mix";
    }
    return "?";
}

TrainMethod parse_train_method(const std::string& name) {
    for (TrainMethod m : {TrainMethod::Cd, TrainMethod::Pcd, TrainMethod::Pt, TrainMethod::Lpt, TrainMethod::Deo,
                          TrainMethod::Leaky, TrainMethod::Mix})
        if (name == train_method_name(m)) return m;
    throw InputError("unknown training method '" + name + "': expected cd, pcd, pt, lpt, deo, leaky or mix");
}

bool is_tempered(TrainMethod m) { return m == TrainMethod::Pt || m == TrainMethod::Lpt || m == TrainMethod::Deo; }

const char* train_status_name(TrainStatus s) {
    switch (s) {
        case TrainStatus::Running: return "running";
        case TrainStatus::Finished: return "finished";
        case TrainStatus::Diverged: return "diverged";
        case TrainStatus::Cancelled: return "cancelled";
    }
    return "?";
}

void validate(const TrainOptions& o, const Dataset& data) {
    auto need = [](bool ok, const std::string& what) {
        if (!ok) throw InputError(what);
    };
    need(o.kind == ModelKind::Brbm || o.kind == ModelKind::Grbm || o.kind == ModelKind::Leaky,
         std::string("--kind must be brbm, grbm or leaky, got ") + kind_name(o.kind));
    need(data.size() >= 1 && data.dim() >= 1, "the training data is empty");
    // One pass over the data (47 M values for Fashion-MNIST: Eigen's allFinite() and a
    // short-circuiting all() took a second), counting instead of stopping so the loop vectorizes.
    std::size_t non_finite = 0, non_binary = 0;
    const double* x = data.X.data();
    const std::size_t values = static_cast<std::size_t>(data.X.size());
    for (std::size_t i = 0; i < values; ++i) {
        non_finite += !(x[i] - x[i] == 0.0);  // inf - inf and NaN - NaN are NaN
        non_binary += !(x[i] == 0.0 || x[i] == 1.0);
    }
    need(non_finite == 0, "the training data holds a non-finite value");
    if (o.kind == ModelKind::Brbm)
        need(non_binary == 0, "--kind brbm needs 0/1 data: binarize it (--binarize T) or train a grbm / leaky model");
    need(o.hidden >= 1 && o.hidden <= 100000, "--hidden must be from 1 to 100000, got " + std::to_string(o.hidden));
    need(o.k >= 1 && o.k <= 100000, "--k must be from 1 to 100000, got " + std::to_string(o.k));
    need(o.updates >= 0, "--updates must be >= 0");
    need(o.batch >= 1 && o.batch <= data.size(), "--batch must be from 1 to the number of examples (" +
                                                     std::to_string(data.size()) + "), got " + std::to_string(o.batch));
    need(std::isfinite(o.learning_rate) && o.learning_rate >= 0, "--lr must be a finite number >= 0");
    need(o.momentum >= 0 && o.momentum < 1, "--momentum must lie in [0, 1)");
    need(std::isfinite(o.weight_decay) && o.weight_decay >= 0, "--weight-decay must be a finite number >= 0");
    need(o.chains >= 0 && o.chains <= 1000000, "--chains must be from 1 to 1000000 (0: the batch size)");
    need(std::isfinite(o.init_scale) && o.init_scale >= 0, "--init-scale must be a finite number >= 0");
    const bool leaky_method = o.method == TrainMethod::Leaky || o.method == TrainMethod::Mix;
    if (leaky_method)
        need(o.kind == ModelKind::Leaky,
             std::string("--method ") + train_method_name(o.method) + " needs --kind leaky");
    if (is_tempered(o.method)) {
        need(o.gamma > 0 && o.gamma < 1, "--gamma must lie in (0, 1), got " + std::to_string(o.gamma));
        need(o.temperatures >= 1 && o.temperatures <= 1000,
             "--rungs (temperatures besides the target) must be from 1 to 1000");
    }
    if (o.kind == ModelKind::Grbm)
        need(std::isfinite(o.sigma), "--sigma must be finite (<= 0: the data standard deviation)");
    else need(!o.learn_sigma, "--learn-sigma applies to --kind grbm only");
    if (o.kind == ModelKind::Leaky) need(o.leakiness > 0 && o.leakiness <= 1, "--leakiness must lie in (0, 1]");
    need(o.projection_limit == 0 || (o.projection_limit > 0 && o.projection_limit < 1),
         "--projection-limit must lie in (0, 1) (or auto)");
    need(o.monitor_every >= 0, "--monitor-every must be >= 0");
    need(o.monitor_examples >= 0, "--monitor-examples must be >= 0");
    need(o.ais_chains >= 1 && o.ais_steps >= 1, "--ais-chains and --ais-steps must be >= 1");
    need(o.exact_limit >= 0, "the exact enumeration limit must be >= 0");
    need(!o.float32 || o.kind != ModelKind::Grbm,
         "--float32 applies to --kind brbm and leaky (a GRBM trains in double)");
    // What the run holds besides the data, from the options, before anything is allocated: the
    // parameters and four arrays of their size (gradient, velocity, the next velocity and model);
    // for a BRBM or leaky RBM the update's weight sums (one more) and the hidden factors of the
    // batch's and the chains' rows (update_products.cpp), for a GRBM one array per gradient tile of
    // either phase (the tile sums); the persistent chains on every rung, two batches of visible and
    // hidden values, the monitor's AIS chains.
    const double n = static_cast<double>(data.dim()), m = static_cast<double>(o.hidden);
    const double batch = static_cast<double>(o.batch);
    const double chains = static_cast<double>(o.chains > 0 ? o.chains : o.batch);
    const double rungs = is_tempered(o.method) ? static_cast<double>(o.temperatures) + 1 : 1;
    const bool products = o.kind == ModelKind::Brbm || o.kind == ModelKind::Leaky;
    const double tiles =
        std::ceil(batch / static_cast<double>(kGradientTile)) + std::ceil(chains / static_cast<double>(kGradientTile));
    const double sums = products ? (n * m + n + m) + (batch + chains) * (m + 128) : tiles * (n * m + n + m);
    const double bytes = 8.0 * (5 * (n * m + n + m) + sums + chains * rungs * (n + m) + 2.0 * batch * (n + m) +
                                static_cast<double>(o.ais_chains) * (n + m + 8));
    check_memory_budget(bytes, "training " + std::to_string(data.dim()) + " x " + std::to_string(o.hidden) +
                                   " units with " + std::to_string(o.chains > 0 ? o.chains : o.batch) + " chains" +
                                   (rungs > 1 ? " x " + std::to_string(o.temperatures + 1) + " rungs" : std::string()));
}

double projection_limit_for(const Dataset& data) {
    constexpr double kCap = 1.0 - 1e-6;
    if (data.size() < 2 || data.dim() == 0) return kCap;
    const RowMat centred = data.X.rowwise() - data.X.colwise().mean();
    const Mat cov = (centred.transpose() * centred) / static_cast<double>(data.size() - 1);
    const double lambda = Eigen::SelfAdjointEigenSolver<Mat>(cov, Eigen::EigenvaluesOnly).eigenvalues().maxCoeff();
    if (!std::isfinite(lambda)) return kCap;
    return std::min(kCap, std::sqrt(1.0 - 1.0 / (kProjectionVarianceFactor * std::max(lambda, 1.0))));
}

double effective_projection_limit(const TrainOptions& o, const Dataset& data) {
    return o.projection_limit > 0 ? o.projection_limit : projection_limit_for(data);
}

}  // namespace rbm
