#include "core/sampling/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "core/kernels/gibbs_leaky.hpp"
#include "core/kernels/simd.hpp"
#include "core/numerics/parallel.hpp"

namespace rbm {

namespace {

// As the AIS engine's blocks (ais_block_size): 64 chains up to 1024 units, fewer above, so a
// block's panels of W stay in cache and one block stays short.
Index block_size(Index dim) { return std::clamp<Index>(65536 / std::max<Index>(1, dim), 8, kChainBlock); }

}  // namespace

struct GibbsSampler::Impl {
    std::unique_ptr<detail::BlockStep> fused;  // BRBM, binary GRBM
    std::optional<detail::LeakyConstants> leaky_pre;
    Mat gauss_chol;
    std::string kernel;
    // One sweep of rows [begin, end); leaky acceptance counts when the kernel has them.
    std::function<LeakySweepStats(Index, Index)> block_sweep;
    Index block = kChainBlock;
    std::vector<LeakySweepStats> block_stats;
};

GibbsSampler::GibbsSampler(const Model& model, const SampleOptions& o) : impl_(std::make_unique<Impl>()) {
    validate(model);
    if (o.chains < 1) throw InputError("sampling needs at least one chain, got " + std::to_string(o.chains));
    if (!(o.beta >= 0 && o.beta <= 1)) throw InputError("sampling: beta must lie in [0, 1], got " + std::to_string(o.beta));
    Impl& im = *impl_;
    im.block = o.block > 0 ? o.block : block_size(model.n_visible() + model.n_hidden());
    rngs_ = ChainRngs(o.seed, o.chains, StreamPurpose::Chains);
    V_ = initial_states(model, o.chains, rngs_);
    const double beta = o.beta;
    if (const auto* b = model.as<Brbm>()) {
        const Vec zero = Vec::Zero(b->n_visible());
        im.fused = o.float32 ? detail::kernel_table().brbm_float(*b, zero) : detail::kernel_table().brbm_double(*b, zero);
        im.kernel = std::string("block Gibbs (fused BRBM kernel, ") + (o.float32 ? "float32" : "float64") + ")";
        if (o.brbm_means) means_ = RowMat::Zero(o.chains, b->n_visible());
        RowMat* means = o.brbm_means ? &means_ : nullptr;
        im.block_sweep = [this, beta, means](Index begin, Index end) {
            detail::SweepOutputs out;
            out.means = means;
            impl_->fused->sweep(beta, nullptr, V_, begin, end, rngs_, out);
            return LeakySweepStats{};
        };
    } else if (const auto* g = model.as<Grbm>()) {
        if (beta != 1.0 && !o.grbm_reference)
            throw InputError("sampling a GRBM at beta < 1 needs a reference distribution");
        const DiagGaussianBase base = o.grbm_reference ? *o.grbm_reference : DiagGaussianBase{g->b, g->sigma};
        if (g->binary01()) {
            im.fused = detail::kernel_table().grbm(*g, base.mean, base.sigma, false);
            im.kernel = "block Gibbs (fused GRBM kernel)";
            im.block_sweep = [this, beta](Index begin, Index end) {
                impl_->fused->sweep(beta, nullptr, V_, begin, end, rngs_, {});
                return LeakySweepStats{};
            };
        } else {
            im.kernel = "block Gibbs";
            const Grbm model_copy = *g;
            im.block_sweep = [this, model_copy, base, beta](Index begin, Index end) {
                RowMat lambda, h;
                grbm_hidden_field(model_copy, V_, begin, end, lambda);
                grbm_sample_hidden(model_copy, lambda, beta, h, rngs_, begin);
                grbm_sample_visible(model_copy, h, beta, &base, V_, begin, rngs_);
                return LeakySweepStats{};
            };
        }
    } else if (const auto* l = model.as<Leaky>()) {
        im.kernel = leaky_kernel_name(o.leaky_kernel);
        im.leaky_pre.emplace(*l);
        const Leaky model_copy = *l;
        const LeakyKernel k = o.leaky_kernel;
        im.block_sweep = [this, model_copy, k, beta](Index begin, Index end) {
            return detail::leaky_sweep_block_gram(model_copy, &*impl_->leaky_pre, V_, begin, end, rngs_, k, beta, -1.0);
        };
    } else {
        if (beta != 1.0) throw InputError("sampling a gaussian model takes beta = 1 only (its draws are exact)");
        const Gaussian& gs = *model.as<Gaussian>();
        im.gauss_chol = gs.cholesky();
        im.kernel = "exact draws";
        const Vec mean = gs.mean;
        im.block_sweep = [this, mean](Index begin, Index end) {
            gaussian_sample(mean, impl_->gauss_chol, V_, begin, end, rngs_);
            return LeakySweepStats{};
        };
    }
}

GibbsSampler::~GibbsSampler() = default;

std::string GibbsSampler::kernel_name() const { return impl_->kernel; }

void GibbsSampler::sweep() {
    const Index chains = V_.rows(), block = impl_->block;
    const Index blocks = (chains + block - 1) / block;
    // Acceptance counts per block, added in block order (the same sums at any thread count).
    std::vector<LeakySweepStats>& stats = impl_->block_stats;
    stats.assign(static_cast<std::size_t>(blocks), LeakySweepStats{});
    for_each_block(
        chains, [&](Index begin, Index end) { stats[static_cast<std::size_t>(begin / block)] = impl_->block_sweep(begin, end); },
        block);
    for (const auto& s : stats) {
        leaky_.proposed += s.proposed;
        leaky_.accepted += s.accepted;
    }
    ++done_;
}

SampleResult run_sampling(const Model& model, const SampleOptions& o, const SampleControl& ctl) {
    using Clock = std::chrono::steady_clock;
    if (o.sweeps < 0) throw InputError("sampling: sweeps must be >= 0, got " + std::to_string(o.sweeps));
    GibbsSampler s(model, o);
    const auto start = Clock::now();
    auto last = start;
    double paused = 0;
    const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count() - paused; };
    const auto report = [&] {
        if (!ctl.on_progress) return;
        SampleProgress p;
        p.sweeps_done = s.sweeps_done();
        p.sweeps = o.sweeps;
        p.elapsed_s = elapsed();
        p.chain_sweeps_per_s = p.elapsed_s > 0 ? static_cast<double>(p.sweeps_done * o.chains) / p.elapsed_s : 0.0;
        p.sampler = &s;
        ctl.on_progress(p);
    };
    const auto cancelled = [&] { return ctl.cancel && ctl.cancel->load(std::memory_order_relaxed); };
    for (long long t = 0; t < o.sweeps; ++t) {
        if (ctl.gate) {
            const double before = ctl.gate->waited_s.load();
            const bool go = ctl.gate->before_unit(ctl.cancel, report);
            paused += ctl.gate->waited_s.load() - before;
            if (!go) break;
        } else if (cancelled()) {
            break;
        }
        s.sweep();
        if (ctl.gate) ctl.gate->after_unit();
        if (ctl.on_progress && std::chrono::duration<double>(Clock::now() - last).count() >= ctl.progress_interval_s) {
            report();
            last = Clock::now();
        }
    }
    SampleResult r;
    r.sweeps = o.sweeps;
    r.sweeps_done = s.sweeps_done();
    r.complete = r.sweeps_done == o.sweeps;
    r.seconds = elapsed();
    r.chain_sweeps_per_s = r.seconds > 0 ? static_cast<double>(r.sweeps_done * o.chains) / r.seconds : 0.0;
    report();
    r.states = s.states();
    r.means = s.means();
    r.leaky = s.leaky_stats();
    r.kernel = s.kernel_name();
    return r;
}

}  // namespace rbm
