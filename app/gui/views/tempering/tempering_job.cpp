#include "views/tempering/tempering_job.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>

#include "colormap.hpp"
#include "core/numerics/types.hpp"
#include "core/tempering/tempered_model.hpp"
#include "views/tempering/tempering_recording.hpp"

namespace rbmscope {
namespace {

using Clock = std::chrono::steady_clock;
double secondsSinceTp(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The reference of the gaussian kind (tempering/tempered_model.hpp): anneal_from when it fits, else N(0, 25 I).
rbm::Gaussian gaussianReference(const rbm::Model& model, const rbm::Gaussian& target) {
    if (model.anneal_from && model.anneal_from->kind() == rbm::ModelKind::Gaussian &&
        model.anneal_from->n_visible() == target.n_visible())
        return *model.anneal_from->as<rbm::Gaussian>();
    rbm::Gaussian g;
    g.mean = rbm::Vec::Zero(target.n_visible());
    g.cov = 25.0 * rbm::Mat::Identity(target.n_visible(), target.n_visible());
    return g;
}

}  // namespace

std::vector<double> initialLadder(const TemperingSettings& s) {
    std::vector<double> betas;
    if (!s.customLadder.empty()) betas = s.customLadder;
    else if (s.ladder == LadderKind::Linear) betas = rbm::linear_ladder(s.replicas, 0.0);
    else betas = rbm::geometric_ladder(s.replicas, s.gamma);
    rbm::validate_ladder(betas);
    return betas;
}

TemperingFrame runTempering(const rbm::Model& model, const TemperingSettings& s, const std::atomic<bool>& cancel,
                            const std::function<void(const TemperingFrame&)>& report, double interval,
                            TemperingRecording* recording) {
    rbm::PtOptions o;
    o.scheme = s.scheme;
    o.betas = initialLadder(s);
    o.chains = s.chains;
    o.scans = s.scans;
    o.seed = s.seed;
    rbm::validate(o);
    const auto tm = rbm::make_tempered_model(model, o.reference);
    rbm::PtSampler sampler(*tm, o);
    // log Z from the final run's scans, as `rbmscope-cli pt` computes it (its own streams: the
    // run's numbers do not change).
    rbm::PtOptions logZOptions = o;
    logZOptions.log_z = true;
    rbm::PtLogZRecorder logZ(*tm, logZOptions);
    const rbm::Index rungs = sampler.rungs(), chains = sampler.chains();

    // Round lengths as in run_pt: tuning rounds of doubling length, then the final run.
    std::vector<long long> lengths;
    const int tuning = s.ladder == LadderKind::Adaptive && s.customLadder.empty() ? s.adaptiveRounds : 0;
    for (int r = tuning; r >= 1; --r) {
        const long long div = 1LL << r;
        lengths.push_back(std::max<long long>(1, (s.scans + div - 1) / div));
    }
    lengths.push_back(s.scans);
    long long total = 0;
    for (long long l : lengths) total += l;

    std::deque<std::vector<std::uint16_t>> window;
    auto chain0 = [&] {
        rbm::RowMat states(rungs, tm->visible_dim());
        for (rbm::Index k = 0; k < rungs; ++k) states.row(k) = sampler.states().row(k * chains);
        return states;
    };
    auto frame = [&](int round) {
        TemperingFrame f;
        f.stats = sampler.stats();
        f.betas = sampler.betas();
        f.rungs = static_cast<int>(rungs);
        f.recent.reserve(window.size() * static_cast<std::size_t>(rungs));
        for (const auto& row : window) f.recent.insert(f.recent.end(), row.begin(), row.end());
        f.recentFirstScan = sampler.scans_done() - static_cast<long long>(window.size());
        f.states = chain0();
        f.scansDone = sampler.scans_done();
        f.scansTotal = total;
        f.round = round;
        f.rounds = static_cast<int>(lengths.size());
        return f;
    };

    // The recording keeps the states only where the view draws them (the dots of a 2-D model).
    const int stateDim = tm->visible_dim() == 2 ? 2 : 0;
    const auto record = [&](int round) {
        if (recording && recording->wants(sampler.scans_done()))
            recording->record(sampler.scans_done(), round, sampler.stats(), window,
                              stateDim ? chain0() : rbm::RowMat());
    };
    const auto recordLast = [&](int round, bool finished) {
        if (recording)
            recording->recordLast(sampler.scans_done(), round, sampler.stats(), window,
                                  stateDim ? chain0() : rbm::RowMat(), finished);
    };
    if (recording) {
        recording->begin(s.scheme, static_cast<int>(rungs), stateDim, s.window, total,
                         static_cast<int>(lengths.size()));
        record(1);  // the start, scan 0
    }

    const auto start = Clock::now();
    auto lastReport = start;
    bool cancelled = false;
    int round = 0;
    for (; round < static_cast<int>(lengths.size()) && !cancelled; ++round) {
        for (long long i = 0; i < lengths[static_cast<std::size_t>(round)]; ++i) {
            sampler.scan();
            if (round + 1 == static_cast<int>(lengths.size())) logZ.record(i, sampler);
            const auto& at = sampler.replica_at();
            window.emplace_back(at.begin(), at.begin() + rungs);  // chain 0
            if (static_cast<int>(window.size()) > s.window) window.pop_front();
            record(round + 1);
            if (cancel.load(std::memory_order_relaxed)) {
                cancelled = true;
                break;
            }
            if (report && secondsSinceTp(lastReport) >= interval) {
                report(frame(round + 1));
                lastReport = Clock::now();
            }
        }
        if (round + 1 < static_cast<int>(lengths.size()) && !cancelled) {
            const rbm::PtStats st = sampler.stats();
            sampler.set_ladder(rbm::equalize_ladder(st.betas, st.rejection, rungs));
            window.clear();
        }
    }
    if (cancelled) {
        recordLast(std::max(1, std::min(round, static_cast<int>(lengths.size()))),
                   false);  // round: 1-based here (the loop advanced it)
        throw rbm::Cancelled();
    }
    recordLast(static_cast<int>(lengths.size()), true);
    TemperingFrame last = frame(static_cast<int>(lengths.size()));
    last.finished = true;
    last.logZ = logZ.estimate(&last.logZError);
    if (report) report(last);
    return last;
}

rbm::Vec temperedLogUnnorm(const rbm::Model& model, double beta, const rbm::RowMat& V) {
    if (const auto* g = model.as<rbm::Grbm>()) {
        // x = (v, h): f_ref = exp(-E_A(v)) with h uniform, so summing h out of f_ref^(1-beta) f^beta
        // leaves -(1-beta) E_A(v) - beta |v-b|^2/(2 sigma^2) + sum_j phi(beta lambda_j(v)).
        const rbm::DiagGaussianBase ref = rbm::default_grbm_reference(*g);
        const rbm::RowMat lambda = g->hidden_field(V);
        rbm::Vec out(V.rows());
        for (rbm::Index r = 0; r < V.rows(); ++r) {
            double e = 0;
            for (rbm::Index i = 0; i < V.cols(); ++i) {
                const double za = (V(r, i) - ref.mean(i)) / ref.sigma(i), zb = (V(r, i) - g->b(i)) / g->sigma(i);
                e += (1 - beta) * za * za / 2 + beta * zb * zb / 2;
            }
            double phi = 0;
            for (rbm::Index j = 0; j < lambda.cols(); ++j) phi += g->log_partition_hidden(beta * lambda(r, j));
            out(r) = phi - e;
        }
        return out;
    }
    if (const auto* l = model.as<rbm::Leaky>()) return l->log_unnorm(V, beta, l->leakiness);
    if (const auto* t = model.as<rbm::Gaussian>()) {
        const rbm::Gaussian ref = gaussianReference(model, *t);
        return (1 - beta) * ref.log_density(V) + beta * t->log_density(V);
    }
    throw rbm::InputError("rung densities are drawn for continuous 2-D models (grbm, leaky, gaussian), not brbm");
}

rbm::GridSpec ladderView(const rbm::Model& model, int cells) {
    rbm::GridSpec box = rbm::default_view(model, cells, cells);
    if (const auto* g = model.as<rbm::Grbm>()) {
        const rbm::DiagGaussianBase ref = rbm::default_grbm_reference(*g);
        box.x0 = std::min(box.x0, ref.mean(0) - 2.5 * ref.sigma(0));
        box.x1 = std::max(box.x1, ref.mean(0) + 2.5 * ref.sigma(0));
        box.y0 = std::min(box.y0, ref.mean(1) - 2.5 * ref.sigma(1));
        box.y1 = std::max(box.y1, ref.mean(1) + 2.5 * ref.sigma(1));
    }
    return box;
}

RungImages rungImages(const rbm::Model& model, const std::vector<double>& betas, int cells,
                      const std::function<bool()>& cancelled) {
    if (model.n_visible() != 2) throw rbm::InputError("rung densities need a 2-D model");
    const rbm::GridSpec box = ladderView(model, cells);
    rbm::RowMat pts(static_cast<rbm::Index>(cells) * cells, 2);
    for (int iy = 0; iy < cells; ++iy)
        for (int ix = 0; ix < cells; ++ix) {
            pts(iy * cells + ix, 0) = box.x0 + (ix + 0.5) * (box.x1 - box.x0) / cells;
            pts(iy * cells + ix, 1) = box.y0 + (iy + 0.5) * (box.y1 - box.y0) / cells;
        }
    RungImages out;
    out.betas = betas;
    out.domain = QRectF(box.x0, box.y0, box.x1 - box.x0, box.y1 - box.y0);
    for (double beta : betas) {
        if (cancelled && cancelled()) throw rbm::Cancelled();
        const rbm::Vec logf = temperedLogUnnorm(model, beta, pts);
        const double top = logf.maxCoeff();
        std::vector<double> dens(static_cast<std::size_t>(logf.size()));
        for (rbm::Index i = 0; i < logf.size(); ++i) dens[static_cast<std::size_t>(i)] = std::exp(logf(i) - top);
        out.images.push_back(colorize(dens, cells, cells, 0.0, 1.0));
    }
    return out;
}

}  // namespace rbmscope
