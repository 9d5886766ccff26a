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

// The kernel of one model kind at one beta, apart from the states and streams it runs on.
struct GibbsSampler::Impl {
    std::unique_ptr<detail::BlockStep> fused;  // BRBM, binary GRBM
    std::optional<detail::LeakyConstants> leaky_pre;
    Mat gauss_chol;
    std::string kernel;
    // One sweep of rows [begin, end) of V (row r from rngs[r]); leaky acceptance counts when the
    // kernel has them; out: what a BRBM sweep hands back beside the states (conditional means,
    // hidden sums; the other kinds write none).
    std::function<LeakySweepStats(RowMat& V, Index begin, Index end, ChainRngs& rngs, const detail::SweepOutputs& out)>
        block_sweep;
    Index block = kChainBlock;
    std::vector<LeakySweepStats> block_stats;

    Impl(const Model& model, const SampleOptions& o);
    // One sweep of every row of V over fixed blocks; acceptance counts added in block order (the
    // same sums at any thread count).
    LeakySweepStats sweep(RowMat& V, ChainRngs& rngs, const detail::SweepOutputs& out = {}) {
        const Index chains = V.rows();
        block_stats.assign(static_cast<std::size_t>((chains + block - 1) / block), LeakySweepStats{});
        for_each_block(
            chains,
            [&](Index begin, Index end) {
                block_stats[static_cast<std::size_t>(begin / block)] = block_sweep(V, begin, end, rngs, out);
            },
            block);
        LeakySweepStats total;
        for (const auto& s : block_stats) {
            total.proposed += s.proposed;
            total.accepted += s.accepted;
        }
        return total;
    }
};

GibbsSampler::Impl::Impl(const Model& model, const SampleOptions& o) {
    if (!o.model_checked) validate(model);
    if (!(o.beta >= 0 && o.beta <= 1))
        throw InputError("sampling: beta must lie in [0, 1], got " + std::to_string(o.beta));
    block = o.block > 0 ? o.block : block_size(model.n_visible() + model.n_hidden());
    const double beta = o.beta;
    if (const auto* b = model.as<Brbm>()) {
        const Vec zero = Vec::Zero(b->n_visible());
        fused = o.float32 ? detail::kernel_table().brbm_float(*b, zero) : detail::kernel_table().brbm_double(*b, zero);
        kernel = std::string("block Gibbs (fused BRBM kernel, ") + (o.float32 ? "float32" : "float64") + ")";
        block_sweep = [this, beta](RowMat& V, Index begin, Index end, ChainRngs& rngs,
                                   const detail::SweepOutputs& out) {
            fused->sweep(beta, nullptr, V, begin, end, rngs, out);
            return LeakySweepStats{};
        };
    } else if (const auto* g = model.as<Grbm>()) {
        if (beta != 1.0 && !o.grbm_reference)
            throw InputError("sampling a GRBM at beta < 1 needs a reference distribution");
        const DiagGaussianBase base = o.grbm_reference ? *o.grbm_reference : DiagGaussianBase{g->b, g->sigma};
        if (g->binary01()) {
            fused = detail::kernel_table().grbm(*g, base.mean, base.sigma, false);
            kernel = "block Gibbs (fused GRBM kernel)";
            block_sweep = [this, beta](RowMat& V, Index begin, Index end, ChainRngs& rngs,
                                       const detail::SweepOutputs&) {
                fused->sweep(beta, nullptr, V, begin, end, rngs, {});
                return LeakySweepStats{};
            };
        } else {
            kernel = "block Gibbs";
            block_sweep = [m = *g, base, beta](RowMat& V, Index begin, Index end, ChainRngs& rngs,
                                               const detail::SweepOutputs&) {
                RowMat lambda, h;
                grbm_hidden_field(m, V, begin, end, lambda);
                grbm_sample_hidden(m, lambda, beta, h, rngs, begin);
                grbm_sample_visible(m, h, beta, &base, V, begin, rngs);
                return LeakySweepStats{};
            };
        }
    } else if (const auto* l = model.as<Leaky>()) {
        kernel = leaky_kernel_name(o.leaky_kernel);
        leaky_pre.emplace(*l);
        block_sweep = [this, m = *l, k = o.leaky_kernel, beta](RowMat& V, Index begin, Index end, ChainRngs& rngs,
                                                               const detail::SweepOutputs&) {
            return detail::leaky_sweep_block_gram(m, &*leaky_pre, V, begin, end, rngs, k, beta, -1.0);
        };
    } else {
        if (beta != 1.0) throw InputError("sampling a gaussian model takes beta = 1 only (its draws are exact)");
        const Gaussian& gs = *model.as<Gaussian>();
        gauss_chol = gs.cholesky();
        kernel = "exact draws";
        block_sweep = [this, mean = gs.mean](RowMat& V, Index begin, Index end, ChainRngs& rngs,
                                             const detail::SweepOutputs&) {
            gaussian_sample(mean, gauss_chol, V, begin, end, rngs);
            return LeakySweepStats{};
        };
    }
}

GibbsSampler::GibbsSampler(const Model& model, const SampleOptions& o) {
    if (o.chains < 1) throw InputError("sampling needs at least one chain, got " + std::to_string(o.chains));
    impl_ = std::make_unique<Impl>(model, o);
    rngs_ = ChainRngs(o.seed, o.chains, StreamPurpose::Chains);
    V_ = initial_states(model, o.chains, rngs_);
    if (o.brbm_means && model.kind() == ModelKind::Brbm) means_ = RowMat::Zero(o.chains, model.n_visible());
}

GibbsSampler::~GibbsSampler() = default;

std::string GibbsSampler::kernel_name() const { return impl_->kernel; }

void GibbsSampler::sweep() {
    detail::SweepOutputs out;
    out.means = means_.size() > 0 ? &means_ : nullptr;
    const LeakySweepStats s = impl_->sweep(V_, rngs_, out);
    leaky_.proposed += s.proposed;
    leaky_.accepted += s.accepted;
    ++done_;
}

GibbsKernel::GibbsKernel(const Model& model, const SampleOptions& options)
    : impl_(std::make_unique<GibbsSampler::Impl>(model, options)) {}
GibbsKernel::~GibbsKernel() = default;
GibbsKernel::GibbsKernel(GibbsKernel&&) noexcept = default;
GibbsKernel& GibbsKernel::operator=(GibbsKernel&&) noexcept = default;
LeakySweepStats GibbsKernel::sweep(RowMat& V, ChainRngs& rngs) const { return impl_->sweep(V, rngs); }
std::string GibbsKernel::name() const { return impl_->kernel; }
const detail::BlockStep* GibbsKernel::fused_step() const { return impl_->fused.get(); }
bool GibbsKernel::sweep_keeping_hidden_sums(RowMat& V, ChainRngs& rngs, bool float32, void* out, Index ld) const {
    if (!impl_->fused || !impl_->fused->hidden_sums(nullptr, 0, float32, out, ld)) {
        sweep(V, rngs);
        return false;
    }
    detail::SweepOutputs sums;
    sums.hidden_sums = out;
    sums.hidden_sums_ld = ld;
    impl_->sweep(V, rngs, sums);
    return true;
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
