// Target moments for moment-matched bases and MAS (docs/methods/annealing-paths.md#target-moments): exact when the
// model can be enumerated, otherwise Gibbs chains (Kiwaki's setting: 100 chains x 5000 steps
// after 100 burn-in), or a data set.
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/ais/paths.hpp"
#include "core/exact/exact.hpp"
#include "core/kernels/gibbs.hpp"
#include "core/numerics/parallel.hpp"

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
    void add(const RowMat& rows) { add(rows, 0, rows.rows()); }
    // Rows [begin, end) only.
    void add(const RowMat& rows, Index begin, Index end) {
        const RowMat d = rows.middleRows(begin, end - begin).rowwise() - shift_.transpose();
        sum_ += d.colwise().sum().transpose();
        if (need_cov_) sq_.noalias() += d.transpose() * d;
        count_ += static_cast<double>(end - begin);
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

// About 2^28 multiply-adds, a few tens of milliseconds on one core: the most work done between two
// looks at the cancel flag. A sweep over many chains of a large model (32000 chains of a 784 x 4000
// BRBM: half a minute) is cut into pieces of whole chain blocks, each on every worker thread; the
// pieces do not change the numbers (PartialSweep). The accumulation of a sweep's samples is cut
// into pieces of rows that depend on n only, so its sums do not depend on the thread count.
constexpr double kPieceWork = 268435456.0;

Index sweep_piece_chains(const Model& model, Index chains) {
    const double per_chain =
        2.0 * static_cast<double>(model.n_visible() + 1) * static_cast<double>(model.n_hidden() + 1);
    const double blocks = std::floor(kPieceWork / (per_chain * static_cast<double>(kChainBlock)));
    const Index threads = static_cast<Index>(std::max<std::size_t>(
        1, std::min<std::size_t>(static_cast<std::size_t>(std::max(1, tbb::this_task_arena::max_concurrency())),
                                 tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism))));
    const Index piece = kChainBlock * std::max<Index>(threads, blocks > 1e9 ? Index(1e9) : static_cast<Index>(blocks));
    return std::min(piece, chains);
}

Index accumulate_piece_rows(Index n, Index chains) {
    const double rows = std::floor(kPieceWork / (static_cast<double>(n) * static_cast<double>(n)));
    const Index piece = kChainBlock * std::max<Index>(1, rows > 1e9 ? Index(1e9) / kChainBlock
                                                                    : static_cast<Index>(rows) / kChainBlock);
    return std::min(piece, chains);
}

VisibleMoments gibbs_moments(const Model& model, const MomentSource& src) {
    if (src.gibbs_chains < 1 || src.gibbs_steps < 1 || src.gibbs_burn_in < 0)
        throw InputError("Gibbs moment estimation needs at least 1 chain and 1 step, and burn-in >= 0");
    ChainRngs rngs(src.seed, src.gibbs_chains, StreamPurpose::Moments);
    // Checked before every piece of a sweep or of its accumulation, so a cancel (quitting the app,
    // the CLI's Ctrl-C) lands within one piece: tens of milliseconds, whatever the chains and the model.
    const auto check_cancel = [&] {
        if (src.cancel && src.cancel->load(std::memory_order_relaxed)) throw Cancelled();
    };
    const Index chains = src.gibbs_chains, total = src.gibbs_burn_in + src.gibbs_steps;
    const Index piece = sweep_piece_chains(model, chains), acc_piece = accumulate_piece_rows(model.n_visible(), chains);
    const PartialSweep sweeper(model);
    check_cancel();
    RowMat V = initial_states(model, chains, rngs);
    // Sweep t + 1 (0-based t) in pieces; with more than one piece, on_partial after each.
    const auto sweep = [&](Index t) {
        for (Index begin = 0; begin < chains; begin += piece) {
            check_cancel();
            const Index end = std::min(chains, begin + piece);
            sweeper.sweep_rows(V, begin, end, rngs);
            if (src.on_partial && end < chains)
                src.on_partial(static_cast<double>(t) + static_cast<double>(end) / static_cast<double>(chains), total);
        }
    };
    auto after_sweep = [&](Index done) {
        check_cancel();
        if (src.on_sweep) src.on_sweep(done, total);
    };
    for (Index t = 0; t < src.gibbs_burn_in; ++t) {
        sweep(t);
        after_sweep(t + 1);
    }
    MomentAccumulator acc(V.colwise().mean().transpose(), src.need_cov);
    for (Index t = 0; t < src.gibbs_steps; ++t) {
        sweep(src.gibbs_burn_in + t);
        for (Index begin = 0; begin < chains; begin += acc_piece) {
            check_cancel();
            acc.add(V, begin, std::min(chains, begin + acc_piece));
        }
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
    const double sweeps =
        static_cast<double>(src.gibbs_chains) * static_cast<double>(src.gibbs_burn_in + src.gibbs_steps);
    return sweeps * 2.0 * n * m +
           (src.need_cov ? static_cast<double>(src.gibbs_chains) * static_cast<double>(src.gibbs_steps) * n * n : 0.0);
}

}  // namespace rbm
