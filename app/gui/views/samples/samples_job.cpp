#include "views/samples/samples_job.hpp"

#include <chrono>
#include <thread>

#include "core/kernels/gibbs.hpp"
#include "core/numerics/scalar.hpp"
#include "core/sampling/runner.hpp"
#include "core/tempering/pt.hpp"

namespace rbmscope {
namespace {

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// P(v = 1 | h) = sigm(b + W h) for every row of H.
rbm::RowMat brbmMeans(const rbm::Brbm& m, const rbm::RowMat& H) {
    rbm::RowMat P = H * m.W.transpose();
    P.rowwise() += m.b.transpose();
    return P.unaryExpr([](double x) { return rbm::sigmoid(x); });
}

// Leakiness 1: log f = -v'(I - WW')v/2 + v'(b + Wc) + const, so v ~ N(P^{-1}(b + Wc), P^{-1}).
rbm::RowMat leakyOneDraws(const rbm::Leaky& m, rbm::Index count, rbm::ChainRngs& rngs) {
    const rbm::Index n = m.n_visible();
    const rbm::Mat P = rbm::Mat::Identity(n, n) - m.W * m.W.transpose();
    Eigen::LLT<rbm::Mat> llt(P);
    if (llt.info() != Eigen::Success)
        throw rbm::InputError(
            "Algorithm 2 needs the largest singular value of W below 1 (I - W W' is not positive definite)");
    const rbm::Vec mean = llt.solve(m.b + m.W * m.c);
    rbm::RowMat V(count, n);
    for (rbm::Index r = 0; r < count; ++r) {
        rbm::Vec z(n);
        for (rbm::Index i = 0; i < n; ++i) z(i) = rngs[r].normal();
        V.row(r) = (mean + llt.matrixU().solve(z)).transpose();  // covariance (L L')^{-1}
    }
    return V;
}

}  // namespace

QString samplerName(SamplerKind k) {
    switch (k) {
        case SamplerKind::Gibbs: return QStringLiteral("Gibbs chains");
        case SamplerKind::Pt: return QStringLiteral("PT target chain");
        case SamplerKind::Anneal: return QStringLiteral("Algorithm 2 (leakiness annealing)");
    }
    return {};
}

void checkSampler(const rbm::Model& model, const SamplesSettings& s) {
    if (s.chains < 1) throw rbm::InputError("chains must be at least 1");
    if (s.sweeps < 1) throw rbm::InputError("sweeps must be at least 1");
    if (s.sampler == SamplerKind::Anneal && model.kind() != rbm::ModelKind::Leaky)
        throw rbm::InputError(std::string("Algorithm 2 anneals the leakiness of a leaky RBM; this model is a ") +
                              rbm::kind_name(model.kind()));
    if (s.sampler == SamplerKind::Pt && !(s.gamma > 0 && s.gamma < 1))
        throw rbm::InputError("PT: gamma must lie in (0, 1)");
    if (s.sampler == SamplerKind::Pt && s.temperatures < 1) throw rbm::InputError("PT: N must be at least 1");
}

SamplesFrame runSamples(const rbm::Model& model, const SamplesSettings& s, const std::atomic<bool>& cancel,
                        const std::function<void(const SamplesFrame&)>& report, double interval, rbm::StepGate* gate) {
    checkSampler(model, s);
    const rbm::Index chains = s.chains;
    const auto* brbm = model.as<rbm::Brbm>();
    SamplesFrame f;
    f.total = s.sweeps;

    // The per-sampler state and one step of it.
    rbm::ChainRngs rngs(s.seed, chains, rbm::StreamPurpose::Chains);
    rbm::RowMat V;
    std::unique_ptr<rbm::GibbsSampler> gibbs;
    std::unique_ptr<rbm::TemperedModel> tm;
    std::unique_ptr<rbm::PtSampler> pt;
    std::function<void(long long)> step;
    std::function<void()> fill;
    if (s.sampler == SamplerKind::Gibbs) {
        // The sampling engine (core/sampling/runner.hpp), one sweep per unit of the gate.
        rbm::SampleOptions o;
        o.chains = chains;
        o.sweeps = s.sweeps;
        o.seed = s.seed;
        o.brbm_means = brbm != nullptr;
        gibbs = std::make_unique<rbm::GibbsSampler>(model, o);
        step = [&](long long) { gibbs->sweep(); };
        fill = [&] {
            f.states = gibbs->states();
            if (brbm && gibbs->sweeps_done() > 0) f.means = gibbs->means();
        };
    } else if (s.sampler == SamplerKind::Pt) {
        rbm::PtOptions o;
        o.scheme = rbm::PtScheme::Deo;
        o.betas = rbm::geometric_ladder(s.temperatures + 1, s.gamma);
        o.chains = chains;
        o.scans = s.sweeps;
        o.seed = s.seed;
        rbm::validate(o);
        tm = rbm::make_tempered_model(model, o.reference);
        pt = std::make_unique<rbm::PtSampler>(*tm, o);
        step = [&](long long) { pt->scan(); };
        fill = [&] {
            const rbm::Index target = (pt->rungs() - 1) * chains;  // rung-major: the target rows
            f.states = pt->states().middleRows(target, chains);
            if (brbm && pt->hidden().rows() == pt->states().rows() && pt->hidden().cols() == brbm->n_hidden())
                f.means = brbmMeans(*brbm, pt->hidden().middleRows(target, chains));
        };
    } else {
        const auto& m = *model.as<rbm::Leaky>();
        V = leakyOneDraws(m, chains, rngs);
        step = [&](long long t) {
            const double cl = 1.0 - (static_cast<double>(t + 1) / s.sweeps) * (1.0 - m.leakiness);
            rbm::leaky_sweep(m, V, rngs, rbm::LeakyKernel::ExactMH, 1.0, cl);
        };
        fill = [&] { f.states = V; };
    }

    const auto start = Clock::now();
    auto last = Clock::now() - std::chrono::hours(1);
    if (report) {
        fill();
        report(f);
        last = Clock::now();
    }
    for (long long t = 0; t < s.sweeps; ++t) {
        if (cancel.load(std::memory_order_relaxed)) throw rbm::Cancelled();
        if (gate && !gate->before_unit(&cancel, [&] {
                if (!report) return;
                fill();
                report(f);
            }))
            throw rbm::Cancelled();
        step(t);
        f.done = t + 1;
        if (gate) gate->after_unit();
        // Pacing in short sleeps so a cancel is seen within a few milliseconds.
        while (s.sweepsPerSecond > 0 && f.done > secondsSince(start) * s.sweepsPerSecond &&
               !cancel.load(std::memory_order_relaxed))
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        if (report && secondsSince(last) >= interval && f.done < s.sweeps) {
            fill();
            report(f);
            last = Clock::now();
        }
    }
    fill();
    f.finished = true;
    if (report) report(f);
    return f;
}

}  // namespace rbmscope
