#include "views/annealing/ais_job.hpp"

#include <tbb/task_arena.h>
#include <QPointer>
#include <algorithm>
#include <cmath>

#include "views/density/density_field.hpp"

namespace rbmscope {

const ParticleFrame* LaneRun::frameNear(double beta) const {
    const ParticleFrame* best = nullptr;
    for (const auto& f : frames)
        if (!best || std::fabs(f.beta - beta) < std::fabs(best->beta - beta)) best = &f;
    return best;
}

AisJob::AisJob(BackgroundJobs* jobs, const QString& channel, QObject* parent)
    : QObject(parent), jobs_(jobs), channel_(channel), gate_(this, 33, [this] { flush(); }) {}

void AisJob::start(const std::vector<Lane>& lanes, const RunSettings& settings, rbm::Index snapshotChains,
                   std::shared_ptr<rbm::StepGate> gate) {
    ++runId_;
    lanes_.clear();
    for (const Lane& l : lanes) {
        LaneRun r;
        r.label = l.label;
        r.spec = l.spec;
        r.error = l.error;
        lanes_.push_back(std::move(r));
    }
    status_ = RunStatus{};
    status_.running = true;
    chains_ = settings.chains;
    stepGate_ = gate ? std::move(gate) : std::make_shared<rbm::StepGate>();
    status_.paused = stepGate_->pause.load();
    mailbox_ = std::make_shared<Mailbox<Update>>();
    auto pause = stepGate_;
    auto mailbox = mailbox_;
    QPointer<AisJob> self(this);

    jobs_->submitWithProgress<Outcome>(
        channel_,
        [lanes, settings, snapshotChains, pause, mailbox, self](const BackgroundJobs::Context& ctx) {
            // Runs on a worker: only `mailbox` and ctx.post reach the GUI.
            const auto wake = [&ctx, self] {
                ctx.post([self] {
                    if (self) self->gate_.wake();
                });
            };
            Outcome out;
            out.lanes.resize(lanes.size());
            const int count = static_cast<int>(lanes.size());
            for (int i = 0; i < count; ++i) {
                if (ctx.cancel->load()) break;
                const Lane& lane = lanes[static_cast<std::size_t>(i)];
                LaneOutcome& lo = out.lanes[static_cast<std::size_t>(i)];
                if (!lane.path) {
                    lo.error = lane.error;
                    continue;
                }
                try {
                    lo.schedule = rbm::make_schedule(settings.schedule, lane.path.get());
                    rbm::AisOptions opt;
                    opt.chains = settings.chains;
                    opt.seed = settings.seed;
                    opt.perfect = settings.perfect;
                    opt.reverse = settings.reverse;
                    const rbm::Index k = static_cast<rbm::Index>(lo.schedule.size()) - 1;
                    opt.checkpoints = static_cast<int>(std::min<rbm::Index>(k, 100));
                    opt.snapshot_chains = std::min(snapshotChains, settings.chains);
                    if (opt.snapshot_chains > 0 && lane.path->visible_dim() == 2) {
                        // Step 0: the base draws of the first chains. Chain r draws only from its
                        // own stream, so these are exactly the states run_ais starts from.
                        rbm::RowMat X(opt.snapshot_chains, lane.path->dim());
                        rbm::ChainRngs rngs(opt.seed, opt.snapshot_chains, rbm::StreamPurpose::Chains);
                        lane.path->sample_base(X, 0, opt.snapshot_chains, rngs);
                        ParticleFrame f{0.0, 0, toPoints(X.leftCols(2))};
                        if (mailbox->merge([&](Update& u) { u.frames.emplace_back(i, std::move(f)); })) wake();
                    }
                    rbm::AisControl ctl;
                    ctl.cancel = ctx.cancel.get();
                    ctl.gate = pause.get();
                    ctl.on_progress = [&](const rbm::AisSnapshot& s) {
                        Live live;
                        live.lane = i;
                        live.phase = s.phase;
                        live.step = s.step;
                        live.steps = s.steps;
                        live.beta = s.beta;
                        live.fraction = (i + s.fraction) / count;
                        live.elapsed = s.elapsed_s;
                        live.speed = s.chain_sweeps_per_s;
                        live.running = s.running;
                        live.particles = toPoints(s.particles);
                        std::optional<ParticleFrame> frame;
                        if (s.at_checkpoint && s.phase == rbm::AisPhase::Forward && s.particles.rows() > 0)
                            frame = ParticleFrame{s.beta, s.step, live.particles};
                        if (mailbox->merge([&](Update& u) {
                                u.live = std::move(live);
                                if (frame) u.frames.emplace_back(i, std::move(*frame));
                            }))
                            wake();
                    };
                    if (settings.threads > 0) {
                        tbb::task_arena arena(settings.threads);
                        arena.execute([&] { lo.result = rbm::run_ais(*lane.path, lo.schedule, opt, ctl); });
                    } else {
                        lo.result = rbm::run_ais(*lane.path, lo.schedule, opt, ctl);
                    }
                } catch (const rbm::Cancelled&) {
                    throw;
                } catch (const std::exception& e) {
                    lo.error = QString::fromStdString(e.what());
                }
                // The lane's end goes to the GUI now; the schedule (K + 1 betas, 8 MB for a
                // million steps) moves with it rather than being copied: the final outcome
                // then carries none and applyOutcome keeps the one delivered here.
                LaneOutcome copy;
                copy.result = lo.result;
                copy.error = lo.error;
                copy.schedule = std::move(lo.schedule);
                if (mailbox->merge([&](Update& u) { u.done.emplace_back(i, std::move(copy)); })) wake();
                if (lo.result && !lo.result->complete) break;  // stopped part way
            }
            out.complete = !ctx.cancel->load();
            for (const auto& lo : out.lanes)
                if (lo.result && !lo.result->complete) out.complete = false;
            return out;
        },
        [self, mailbox](Outcome out) {
            if (self && mailbox == self->mailbox_) self->finish(std::move(out), QString());
        },
        [self, mailbox](QString err) {
            if (self && mailbox == self->mailbox_) self->finish(Outcome{}, err);
        });
    Q_EMIT started();
}

void AisJob::finish(Outcome out, const QString& error) {
    gate_.flushNow();
    for (std::size_t i = 0; i < out.lanes.size() && i < lanes_.size(); ++i)
        applyOutcome(static_cast<int>(i), std::move(out.lanes[i]));
    if (!error.isEmpty() && !lanes_.empty() && lanes_.front().error.isEmpty()) lanes_.front().error = error;
    status_.running = false;
    status_.paused = false;
    status_.stopped = !out.complete;
    if (out.complete) status_.fraction = 1.0;
    Q_EMIT progressed();
    Q_EMIT finished(out.complete);
}

void AisJob::flush() {
    if (!mailbox_) return;
    apply(mailbox_->take());
}

void AisJob::apply(Update u) {
    for (auto& [i, frame] : u.frames)
        if (i >= 0 && static_cast<std::size_t>(i) < lanes_.size())
            lanes_[static_cast<std::size_t>(i)].frames.push_back(std::move(frame));
    if (u.live && u.live->lane >= 0 && static_cast<std::size_t>(u.live->lane) < lanes_.size()) {
        Live& l = *u.live;
        status_.lane = l.lane;
        status_.phase = l.phase;
        status_.beta = l.beta;
        status_.step = l.step;
        status_.steps = l.steps;
        status_.fraction = l.fraction;
        status_.elapsed = l.elapsed;
        status_.speed = l.speed;
        status_.live = std::move(l.particles);
        lanes_[static_cast<std::size_t>(l.lane)].running = std::move(l.running);
    }
    std::vector<int> finishedLanes;
    for (auto& [i, o] : u.done) {
        applyOutcome(i, std::move(o));
        finishedLanes.push_back(i);
    }
    ++updates_;
    Q_EMIT progressed();
    for (int i : finishedLanes) Q_EMIT laneFinished(i);
}

void AisJob::applyOutcome(int i, LaneOutcome o) {
    if (i < 0 || static_cast<std::size_t>(i) >= lanes_.size()) return;
    LaneRun& lane = lanes_[static_cast<std::size_t>(i)];
    if (!o.schedule.empty()) lane.schedule = std::move(o.schedule);
    if (!o.error.isEmpty()) lane.error = o.error;
    if (o.result) {
        lane.running = o.result->running;
        lane.result = std::move(o.result);
    }
}

void AisJob::stop() {
    if (!status_.running) return;
    jobs_->stop(channel_);
    if (stepGate_) stepGate_->pause.store(false);
}

void AisJob::cancel() {
    jobs_->cancel(channel_);
    mailbox_.reset();
    lanes_.clear();
    status_ = RunStatus{};
    Q_EMIT progressed();
}

void AisJob::showResult(std::vector<LaneRun> lanes, rbm::Index chains) {
    jobs_->cancel(channel_);
    mailbox_.reset();
    ++runId_;
    lanes_ = std::move(lanes);
    chains_ = chains;
    status_ = RunStatus{};
    bool complete = true;
    for (const LaneRun& l : lanes_) complete = complete && l.result && l.result->complete;
    status_.stopped = !complete;
    status_.fraction = complete ? 1.0 : 0.0;
    Q_EMIT progressed();
    Q_EMIT finished(complete);
}

void AisJob::setPaused(bool on) {
    if (!status_.running || !stepGate_) return;
    stepGate_->pause.store(on);
    status_.paused = on;
    Q_EMIT progressed();
}

}  // namespace rbmscope
