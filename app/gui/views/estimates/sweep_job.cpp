#include "views/estimates/sweep_job.hpp"

#include <tbb/task_arena.h>
#include <QPointer>
#include <algorithm>
#include <chrono>

namespace rbmscope {

SweepJob::SweepJob(BackgroundJobs* jobs, const QString& channel, QObject* parent)
    : QObject(parent), jobs_(jobs), channel_(channel), gate_(this, 33, [this] { flush(); }) {}

void SweepJob::start(const std::vector<Lane>& lanes, const RunSettings& settings, std::shared_ptr<rbm::StepGate> gate) {
    labels_.clear();
    errors_.clear();
    for (const Lane& l : lanes) {
        labels_ << l.label;
        errors_ << l.error;
    }
    steps_ = settings.sweepSteps;
    std::sort(steps_.begin(), steps_.end());
    steps_.erase(std::unique(steps_.begin(), steps_.end()), steps_.end());
    points_.clear();
    running_ = true;
    fraction_ = elapsed_ = speed_ = 0;
    pause_ = gate ? std::move(gate) : std::make_shared<rbm::StepGate>();
    mailbox_ = std::make_shared<Mailbox<Update>>();
    auto pause = pause_;
    auto mailbox = mailbox_;
    const auto steps = steps_;
    QPointer<SweepJob> self(this);

    jobs_->submitWithProgress<bool>(
        channel_,
        [lanes, settings, steps, pause, mailbox, self](const BackgroundJobs::Context& ctx) {
            const auto wake = [&ctx, self] {
                ctx.post([self] {
                    if (self) self->gate_.wake();
                });
            };
            // Progress weighs each run by its K (its cost).
            double total = 0, done = 0;
            int usable = 0;
            for (const Lane& l : lanes) usable += l.path ? 1 : 0;
            for (rbm::Index k : steps) total += static_cast<double>(k) * usable;
            const auto t0 = std::chrono::steady_clock::now();
            double sweeps = 0;
            for (rbm::Index k : steps) {
                for (std::size_t i = 0; i < lanes.size(); ++i) {
                    const Lane& lane = lanes[i];
                    if (!lane.path) continue;
                    if (ctx.cancel->load()) return false;
                    rbm::ScheduleRequest sr = settings.schedule;
                    sr.steps = k;
                    rbm::AisOptions opt;
                    opt.chains = settings.chains;
                    opt.seed = settings.seed;
                    opt.perfect = settings.perfect;
                    opt.reverse = settings.reverse;
                    opt.checkpoints = 10;
                    rbm::AisControl ctl;
                    ctl.cancel = ctx.cancel.get();
                    ctl.gate = pause.get();
                    const double before = done;
                    ctl.on_progress = [&](const rbm::AisSnapshot& s) {
                        const double elapsed =
                            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                        if (mailbox->merge([&](Update& u) {
                                u.fraction = (before + s.fraction * static_cast<double>(k)) / total;
                                u.elapsed = elapsed;
                                u.speed = s.chain_sweeps_per_s;
                            }))
                            wake();
                    };
                    try {
                        const rbm::Schedule schedule = rbm::make_schedule(sr, lane.path.get());
                        std::optional<rbm::AisResult> r;
                        if (settings.threads > 0) {
                            tbb::task_arena arena(settings.threads);
                            arena.execute([&] { r = rbm::run_ais(*lane.path, schedule, opt, ctl); });
                        } else {
                            r = rbm::run_ais(*lane.path, schedule, opt, ctl);
                        }
                        if (!r->complete) return false;  // stopped: this run is not a point
                        SweepPoint p;
                        p.lane = static_cast<int>(i);
                        p.steps = k;
                        p.estimate = r->estimate;
                        p.seconds = r->seconds;
                        if (r->reverse && r->reverse->log_z_upper) {
                            p.reverseUpper = r->reverse->log_z_upper;
                            p.reverseLow = r->reverse->ci95_low;
                            p.reverseHigh = r->reverse->ci95_high;
                        }
                        sweeps +=
                            static_cast<double>(k) * static_cast<double>(settings.chains) * (settings.reverse ? 2 : 1);
                        const double elapsed =
                            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                        done += static_cast<double>(k);
                        if (mailbox->merge([&](Update& u) {
                                u.points.push_back(p);
                                u.fraction = done / total;
                                u.elapsed = elapsed;
                                u.speed = elapsed > 0 ? sweeps / elapsed : 0;
                            }))
                            wake();
                    } catch (const std::exception& e) {
                        const QString msg = QString::fromStdString(e.what());
                        done += static_cast<double>(k);
                        if (mailbox->merge([&](Update& u) { u.errors.emplace_back(static_cast<int>(i), msg); })) wake();
                    }
                }
            }
            return true;
        },
        [self, mailbox](bool complete) {
            if (self && mailbox == self->mailbox_) self->finish(complete);
        },
        [self, mailbox](QString) {
            if (self && mailbox == self->mailbox_) self->finish(false);
        });
    Q_EMIT started();
    Q_EMIT progressed();
}

void SweepJob::flush() {
    if (!mailbox_) return;
    Update u = mailbox_->take();
    for (auto& p : u.points) points_.push_back(std::move(p));
    for (auto& [i, msg] : u.errors)
        if (i >= 0 && i < errors_.size() && errors_[i].isEmpty()) errors_[i] = msg;
    if (u.fraction >= 0) {
        fraction_ = u.fraction;
        elapsed_ = u.elapsed;
        speed_ = u.speed;
    }
    Q_EMIT progressed();
}

void SweepJob::finish(bool complete) {
    gate_.flushNow();
    running_ = false;
    if (complete) fraction_ = 1.0;
    Q_EMIT progressed();
    Q_EMIT finished(complete);
}

void SweepJob::stop() {
    if (!running_) return;
    jobs_->stop(channel_);
    if (pause_) pause_->pause.store(false);
}

void SweepJob::cancel() {
    jobs_->cancel(channel_);
    mailbox_.reset();
    running_ = false;
}

void SweepJob::setPaused(bool on) {
    if (!running_ || !pause_) return;
    pause_->pause.store(on);
    Q_EMIT progressed();
}

void SweepJob::showResult(const QStringList& labels, std::vector<rbm::Index> steps, std::vector<SweepPoint> points) {
    cancel();
    labels_ = labels;
    errors_ = QStringList(labels.size(), QString());
    steps_ = std::move(steps);
    points_ = std::move(points);
    fraction_ = 1.0;
    elapsed_ = speed_ = 0;
    Q_EMIT progressed();
    Q_EMIT finished(true);
}

void SweepJob::clear() {
    cancel();
    points_.clear();
    labels_.clear();
    errors_.clear();
    fraction_ = 0;
    Q_EMIT progressed();
}

}  // namespace rbmscope
