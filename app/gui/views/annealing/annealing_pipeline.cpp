// The AIS pipeline of the annealing views (moved out of the main window): model ->
// paths (lanes) -> heatmaps, the run and the sweep, and the status bar's report of them.
#include "views/annealing/annealing_pipeline.hpp"

#include <QFileInfo>
#include <algorithm>
#include <cmath>
#include <utility>

#include "jobs/background_jobs.hpp"
#include "parameter_panel.hpp"
#include "views/annealing/ais_job.hpp"
#include "views/annealing/annealing_view.hpp"
#include "views/estimates/estimates_view.hpp"
#include "views/estimates/sweep_job.hpp"

namespace rbmscope {
namespace {

QString seconds(double s) { return s < 10 ? QString::number(s, 'f', 2) + " s" : QString::number(s, 'f', 1) + " s"; }

QString rate(double r) {
    if (r >= 1e6) return QString::number(r / 1e6, 'f', 1) + QStringLiteral(" M");
    if (r >= 1e3) return QString::number(r / 1e3, 'f', 1) + QStringLiteral(" k");
    return QString::number(r, 'f', 0) + QStringLiteral(" ");
}

}  // namespace

AnnealingPipeline::AnnealingPipeline(const ViewContext& ctx) : QObject(ctx.owner), ctx_(ctx) {
    setObjectName(QStringLiteral("annealingPipeline"));
    run_ = new AisJob(ctx_.jobs, QStringLiteral("ais"), this);
    sweep_ = new SweepJob(ctx_.jobs, QStringLiteral("sweep"), this);
    autoRunTimer_ = new QTimer(this);
    autoRunTimer_->setSingleShot(true);
    autoRunTimer_->setInterval(250);
    connect(autoRunTimer_, &QTimer::timeout, this, &AnnealingPipeline::startRun);
    connect(ctx_.panel, &ParameterPanel::runRequested, this, &AnnealingPipeline::startRun);
    connect(ctx_.panel, &ParameterPanel::sweepRequested, this, &AnnealingPipeline::startSweep);

    Transport::Job ais;
    ais.unit = tr("annealing step");
    ais.start = [this](std::shared_ptr<rbm::StepGate> g) { launchRun(std::move(g)); };
    ais.stop = [this] {
        autoRunTimer_->stop();
        runAfterLanes_ = false;
        pendingRunGate_.reset();
        run_->stop();
        ctx_.say(tr("Stopping… the results computed so far are kept."));
    };
    ais.active = [this] { return run_->running() || (runAfterLanes_ && pendingRunGate_); };
    ais.finished = [this] { return !run_->status().stopped && !run_->lanes().empty(); };
    ais.gate = [this] { return pendingRunGate_ ? pendingRunGate_.get() : run_->stepGate(); };
    ais.cannotRun = [this] {
        return ctx_.panel->isValid() ? QString() : ctx_.panel->problems().join(QStringLiteral("; "));
    };
    ais.fraction = [this] { return run_->lanes().empty() ? -1.0 : run_->status().fraction; };
    // Play β of the annealing views (nothing runs then).
    ais.playback = [this] {
        for (const AnnealingView* v : annealing_)
            if (v->playing()) return Transport::State::Playing;
        return Transport::State::Idle;
    };
    aisTransport_ = new Transport(ais, this);

    Transport::Job sweep;
    sweep.unit = tr("annealing step");
    sweep.start = [this](std::shared_ptr<rbm::StepGate> g) { launchSweep(std::move(g)); };
    sweep.stop = [this] {
        sweepAfterLanes_ = false;
        pendingSweepGate_.reset();
        sweep_->stop();
    };
    sweep.active = [this] { return sweep_->running() || (sweepAfterLanes_ && pendingSweepGate_); };
    sweep.finished = [this] { return sweep_->fraction() >= 1.0; };
    sweep.gate = [this] { return pendingSweepGate_ ? pendingSweepGate_.get() : sweep_->stepGate(); };
    sweep.cannotRun = ais.cannotRun;
    sweep.fraction = [this] { return sweep_->fraction(); };
    sweepTransport_ = new Transport(sweep, this);
    for (Transport* t : {aisTransport_, sweepTransport_}) {
        connect(t, &Transport::stateChanged, this, [this] { ctx_.changed(); });
        // Jobs started or ended outside the transport (auto-run, a view's buttons) show too.
        connect(ctx_.jobs, &BackgroundJobs::runningChanged, t, &Transport::refresh);
    }

    connect(run_, &AisJob::progressed, this, [this] {
        for (AnnealingView* v : annealing_) v->setRun(run_);
        if (estimates_) estimates_->setRun(run_);
        if (run_->lanes().empty()) ctx_.resultDropped(QStringLiteral("ais"));  // dropped (new settings)
        ctx_.statusChanged();
    });
    connect(run_, &AisJob::finished, this, [this] { ctx_.statusChanged(); });
    connect(sweep_, &SweepJob::progressed, this, [this] {
        if (estimates_) estimates_->setSweep(sweep_);
        if (sweep_->points().empty()) ctx_.resultDropped(QStringLiteral("sweep"));
        ctx_.statusChanged();
    });
}

void AnnealingPipeline::addAnnealingView(AnnealingView* v) {
    // The annealing views follow the same beta (synchronized comparison).
    for (AnnealingView* other : annealing_) {
        connect(v, &AnnealingView::betaChanged, other, [other](double b) {
            if (std::fabs(other->beta() - b) > 1e-9) other->setBeta(b);
        });
        connect(other, &AnnealingView::betaChanged, v, [v](double b) {
            if (std::fabs(v->beta() - b) > 1e-9) v->setBeta(b);
        });
    }
    annealing_.push_back(v);
    connect(v, &AnnealingView::playingChanged, aisTransport_, &Transport::refresh);  // "Playing", and back
}

void AnnealingPipeline::setEstimatesView(EstimatesView* v) {
    estimates_ = v;
    connect(v, &EstimatesView::sweepRequested, this, &AnnealingPipeline::startSweep);
}

bool AnnealingPipeline::twoD() const { return model_.n_visible() == 2 && model_.kind() != rbm::ModelKind::Brbm; }

void AnnealingPipeline::setModel(const rbm::Model& m, const ModelEvent& e) {
    if (e.change == ModelChange::Live) return;  // paths and runs follow a finished edit
    // A new or edited model: the runs shown are no longer its (idle, 0 units).
    if (e.change == ModelChange::Opened || e.change == ModelChange::Edited)
        for (Transport* t : {aisTransport_, sweepTransport_}) t->reset();
    model_ = m;
    if (e.change == ModelChange::Data) {
        // Only a changed method invalidates the lanes (and the run on them); an auto-run follows.
        const bool same = e.settings.method == settings_.method;
        settings_ = e.settings;
        if (!same) {
            run_->cancel();
            runAfterLanes_ = settings_.autoRun;
            laneKey_ = laneKey(settings_);
            rebuildLanes();
        }
        return;
    }
    if (e.change == ModelChange::Edited) {
        for (AnnealingView* v : annealing_) v->setModel(model_);
        run_->cancel();
        sweep_->clear();
        runAfterLanes_ = settings_.autoRun;
        rebuildLanes();
        return;
    }
    run_->cancel();
    sweep_->clear();
    pendingRunGate_.reset();
    pendingSweepGate_.reset();
    exactLogZ_.reset();
    settings_ = e.settings;
    if (estimates_) {
        estimates_->setExactLogZ(std::nullopt);
        estimates_->setRun(nullptr);
        estimates_->setSweep(sweep_);
        estimates_->setChains(settings_.chains);
    }
    for (AnnealingView* v : annealing_) v->setModel(model_);
    for (AnnealingView* v : annealing_) {
        v->setRun(run_);
        v->setFollowRun(true);
    }
    if (!annealing_.empty()) annealing_.front()->setBeta(1.0);
    laneKey_ = laneKey(settings_);
    runAfterLanes_ = settings_.autoRun;
    rebuildLanes();
}

void AnnealingPipeline::setExactLogZ(std::optional<double> logZ) {
    exactLogZ_ = logZ;
    if (estimates_) estimates_->setExactLogZ(logZ);
}

void AnnealingPipeline::rebuildLanes() {
    lanesReady_ = false;
    ctx_.panel->setPathStatus(tr("building the annealing path…"), false);
    const rbm::Model model = model_;
    const RunSettings settings = settings_;
    ctx_.jobs->submitWithProgress<std::vector<Lane>>(
        QStringLiteral("paths"),
        [this, model, settings](const BackgroundJobs::Context& ctx) {
            // Gibbs target moments can take minutes on a large model: say how far they are.
            return buildLanes(model, settings, ctx.cancel.get(), [this, &ctx](const QString& text) {
                ctx.post([this, text] {
                    ctx_.panel->setPathStatus(text, false);
                    ctx_.progressNote(text);
                });
            });
        },
        [this](std::vector<Lane> lanes) { onLanes(std::move(lanes)); },
        [this](QString err) {
            ctx_.panel->setPathStatus(err, true);
            runAfterLanes_ = sweepAfterLanes_ = false;
            ctx_.statusChanged();
        });
}

void AnnealingPipeline::onLanes(std::vector<Lane> lanes) {
    lanes_ = std::move(lanes);
    lanesReady_ = true;
    ParameterPanel* panel = ctx_.panel;
    if (!lanes_.empty()) {
        const Lane& primary = lanes_.front();
        if (primary.path) {
            panel->setPathStatus(primary.notes, false);
            panel->setExactSampling(
                primary.path->can_sample_exactly(),
                tr("the %1 path cannot draw exact samples from p_β (model too large to enumerate)").arg(primary.label));
            if (settings_.schedule.kind == "binned") {
                try {
                    panel->setSchedulePreview(rbm::make_schedule(settings_.schedule, primary.path.get()));
                } catch (const std::exception& e) {
                    panel->setScheduleProblem(QString::fromStdString(e.what()));
                }
            }
        } else {
            panel->setPathStatus(primary.error, true);
        }
    }
    for (AnnealingView* v : annealing_) v->setLanes(lanes_);
    Q_EMIT lanesChanged();
    if (sweepAfterLanes_) {
        sweepAfterLanes_ = false;
        if (pendingSweepGate_) launchSweep(std::exchange(pendingSweepGate_, {}));
        else startSweep();
    }
    if (runAfterLanes_) {
        runAfterLanes_ = false;
        if (pendingRunGate_) launchRun(std::exchange(pendingRunGate_, {}));
        else startRun();
    }
    ctx_.statusChanged();
}

void AnnealingPipeline::setSettings(const RunSettings& s) {
    const LaneKey key = laneKey(s);
    const bool methodOk = methodProblem(ctx_.panel->traits(), s.method).isEmpty();
    settings_ = s;
    if (estimates_) estimates_->setChains(s.chains);
    if (!lanesReady_) runAfterLanes_ = s.autoRun;
    if (!(key == laneKey_) && methodOk) {
        // New paths: heatmaps restart at once; a run follows the new paths.
        laneKey_ = key;
        run_->cancel();
        for (AnnealingView* v : annealing_) v->setLanesPending();
        runAfterLanes_ = s.autoRun;
        rebuildLanes();
        ctx_.statusChanged();
        return;
    }
    if (s.schedule.kind == "binned" && lanesReady_ && !lanes_.empty() && lanes_.front().path) {
        try {
            ctx_.panel->setSchedulePreview(rbm::make_schedule(s.schedule, lanes_.front().path.get()));
        } catch (const std::exception& e) {
            ctx_.panel->setScheduleProblem(QString::fromStdString(e.what()));
        }
    }
    maybeAutoRun();
}

void AnnealingPipeline::maybeAutoRun() {
    if (!settings_.autoRun) return;
    if (!ctx_.panel->isValid()) {
        run_->cancel();  // the shown run no longer matches the settings; nothing valid to run
        autoRunTimer_->stop();
        ctx_.statusChanged();
        return;
    }
    autoRunTimer_->start();
}

void AnnealingPipeline::launchRun(std::shared_ptr<rbm::StepGate> gate) {
    autoRunTimer_->stop();
    if (!ctx_.panel->isValid()) {
        ctx_.say(tr("Cannot run: %1").arg(ctx_.panel->problems().join(QStringLiteral("; "))));
        return;
    }
    settings_ = ctx_.panel->settings();
    if (!lanesReady_) {
        runAfterLanes_ = true;
        pendingRunGate_ = std::move(gate);
        return;
    }
    pendingRunGate_.reset();
    // The views follow the run: a β animation still playing would move the slider and the title
    // away from the chains the overlay shows.
    stopPlaying();
    for (AnnealingView* v : annealing_) v->setFollowRun(true);
    run_->start(lanes_, settings_, twoD() ? 1000 : 0, std::move(gate));
    for (AnnealingView* v : annealing_) v->setRun(run_);
    if (estimates_) estimates_->setRun(run_);
    ctx_.statusChanged();
}

void AnnealingPipeline::launchSweep(std::shared_ptr<rbm::StepGate> gate) {
    if (!ctx_.panel->isValid()) {
        ctx_.say(tr("Cannot run a sweep: %1").arg(ctx_.panel->problems().join(QStringLiteral("; "))));
        return;
    }
    settings_ = ctx_.panel->settings();
    ctx_.showView(QStringLiteral("estimates"));
    if (!lanesReady_) {
        sweepAfterLanes_ = true;
        pendingSweepGate_ = std::move(gate);
        return;
    }
    pendingSweepGate_.reset();
    if (estimates_) estimates_->setChains(settings_.chains);
    sweep_->start(lanes_, settings_, std::move(gate));
    if (estimates_) estimates_->setSweep(sweep_);
    ctx_.statusChanged();
}

void AnnealingPipeline::stop() {
    autoRunTimer_->stop();
    runAfterLanes_ = sweepAfterLanes_ = false;
    pendingRunGate_.reset();
    pendingSweepGate_.reset();
    aisTransport_->cancel();
    sweepTransport_->cancel();
    run_->stop();
    sweep_->stop();
    stopPlaying();
}

void AnnealingPipeline::stopPlaying() {
    for (AnnealingView* v : annealing_) v->setPlaying(false);
}

void AnnealingPipeline::holdRuns() { runAfterLanes_ = sweepAfterLanes_ = false; }

bool AnnealingPipeline::busy() const {
    for (const char* c : {"paths", "ais", "sweep"})
        if (ctx_.jobs->isRunning(QString::fromLatin1(c))) return true;
    bool views = false;
    for (AnnealingView* v : annealing_) views = views || v->busy();
    return !lanesReady_ || runAfterLanes_ || sweepAfterLanes_ || autoRunTimer_->isActive() || views ||
           run_->running() || sweep_->running();
}

QStringList AnnealingPipeline::presenterFigures() const {
    QStringList out;
    if (run_->running() || ctx_.jobs->isRunning(QStringLiteral("paths"))) return out;
    bool partial = false;
    for (const LaneRun& l : run_->lanes()) {
        if (!l.result) continue;
        const rbm::AisEstimate& e = l.result->estimate;
        if (!l.result->complete) {
            partial = true;
            out << tr("%1: partial (β = %2), log Ẑ_β = %3")
                       .arg(l.label)
                       .arg(l.result->beta_reached, 0, 'f', 3)
                       .arg(e.log_z, 0, 'f', 3);
            continue;
        }
        out << tr("%1: log Ẑ = %2, 95 % [%3, %4], ESS %5 of %6%7")
                   .arg(l.label)
                   .arg(e.log_z, 0, 'f', 3)
                   .arg(e.ci95_low, 0, 'f', 3)
                   .arg(e.ci95_high, 0, 'f', 3)
                   .arg(e.ess, 0, 'f', 1)
                   .arg(e.n)
                   .arg(e.ess < rbm::kReliableEss ? tr(" (interval unreliable)") : QString());
    }
    if (exactLogZ_ && !out.isEmpty() && !partial) out << tr("exact log Z = %1").arg(*exactLogZ_, 0, 'f', 3);
    return out;
}

// The Estimates view's figures: per method, its estimate at the largest K the sweep has reached
// (with the reverse upper bound when the sweep ran one), then the exact log Z.
QStringList AnnealingPipeline::sweepFigures() const {
    QStringList out;
    const QStringList& labels = sweep_->laneLabels();
    for (int lane = 0; lane < labels.size(); ++lane) {
        const SweepPoint* last = nullptr;
        for (const SweepPoint& p : sweep_->points())
            if (p.lane == lane && (!last || p.steps > last->steps)) last = &p;
        if (!last) continue;
        const rbm::AisEstimate& e = last->estimate;
        QString line = tr("%1 at K = %2: log Ẑ = %3, 95 % [%4, %5], ESS %6 of %7")
                           .arg(labels[lane])
                           .arg(last->steps)
                           .arg(e.log_z, 0, 'f', 3)
                           .arg(e.ci95_low, 0, 'f', 3)
                           .arg(e.ci95_high, 0, 'f', 3)
                           .arg(e.ess, 0, 'f', 1)
                           .arg(e.n);
        if (last->reverseUpper) line += tr("; reverse ≤ %1").arg(*last->reverseUpper, 0, 'f', 3);
        out << line;
    }
    if (exactLogZ_ && !out.isEmpty()) out << tr("exact log Z = %1").arg(*exactLogZ_, 0, 'f', 3);
    return out;
}

StatusReport AnnealingPipeline::status() const {
    StatusReport out;
    // A cancelled job is shown stopped at once, while its worker hands over what it computed.
    const bool runBusy = run_->running() && aisTransport_->active();
    const bool sweepBusy = sweep_->running() && sweepTransport_->active();
    out.busy = runBusy || sweepBusy;
    if (sweepBusy) {
        out.fraction = sweep_->fraction();
        out.elapsed = seconds(sweep_->elapsed());
        out.speed = rate(sweep_->speed()) + tr("chain-sweeps/s");
        out.text = (sweep_->paused() ? tr("Paused — ") : QString()) +
                   tr("Sweep over K: %1 runs done").arg(sweep_->points().size());
        return out;
    }
    if (runBusy) {
        const RunStatus& st = run_->status();
        out.fraction = st.fraction;
        out.elapsed = seconds(st.elapsed);
        out.speed = rate(st.speed) + tr("chain-sweeps/s");
        QString what = tr("Annealing…");
        if (st.lane >= 0 && static_cast<std::size_t>(st.lane) < run_->lanes().size())
            what = tr("%1 (%2 of %3): %4 step %5 of %6, β = %7")
                       .arg(run_->lanes()[static_cast<std::size_t>(st.lane)].label)
                       .arg(st.lane + 1)
                       .arg(run_->lanes().size())
                       .arg(st.phase == rbm::AisPhase::Reverse ? tr("reverse") : tr("forward"))
                       .arg(st.step)
                       .arg(st.steps)
                       .arg(st.beta, 0, 'f', 3);
        out.text = (run_->paused() ? tr("Paused — ") : QString()) + what;
        return out;
    }
    if (!run_->lanes().empty() && !ctx_.jobs->isRunning(QStringLiteral("paths"))) {
        QStringList parts;
        double total = 0;
        bool partial = false;
        for (const LaneRun& l : run_->lanes()) {
            if (l.result && !l.result->complete) {
                // A stopped run estimates Z_β at the β it reached: not comparable with log Z.
                partial = true;
                parts << tr("%1: partial (β = %2), log Ẑ_β = %3")
                             .arg(l.label)
                             .arg(l.result->beta_reached, 0, 'f', 3)
                             .arg(l.result->estimate.log_z, 0, 'f', 3);
                total += l.result->seconds;
            } else if (l.result) {
                QString part = QStringLiteral("%1: log Ẑ = %2").arg(l.label).arg(l.result->estimate.log_z, 0, 'f', 3);
                if (l.result->estimate.ess < rbm::kReliableEss)
                    part += tr(" (interval unreliable: ESS %1 < %2)")
                                .arg(l.result->estimate.ess, 0, 'f', 1)
                                .arg(rbm::kReliableEss);
                parts << part;
                total += l.result->seconds;
            } else if (!l.error.isEmpty()) {
                parts << QStringLiteral("%1: %2").arg(l.label, l.error);
            }
        }
        if (exactLogZ_ && !partial) parts << tr("exact %1").arg(*exactLogZ_, 0, 'f', 3);
        const bool stopped = run_->status().stopped || partial || (run_->running() && !runBusy);
        const QString head =
            stopped ? tr("Stopped (partial results kept). ") : tr("Run finished in %1. ").arg(seconds(total));
        out.text = head + parts.join(QStringLiteral(" · "));
        return out;
    }
    out.text.clear();
    return out;
}

}  // namespace rbmscope
