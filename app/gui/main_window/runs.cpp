// The flow of the main window: a model and the panel's settings give the lanes (one annealing
// path per method, built on a worker); the lanes feed the heatmaps, the AIS run and the sweep;
// the status bar follows whatever runs. Changing a parameter restarts only what it affects.
#include <QAction>
#include <QComboBox>
#include <QFileInfo>
#include <QKeySequence>
#include <algorithm>
#include <QStyle>
#include <cmath>
#include <utility>

#include "main_window/main_window.hpp"
#include "main_window/presenter_overlay.hpp"
#include "core/exact/exact.hpp"
#include "core/io/presets.hpp"
#include "text_preview.hpp"

namespace rbmscope {
namespace {

bool isTwoD(const rbm::Model& m) { return m.n_visible() == 2 && m.kind() != rbm::ModelKind::Brbm; }

QString seconds(double s) { return s < 10 ? QString::number(s, 'f', 2) + " s" : QString::number(s, 'f', 1) + " s"; }

QString rate(double r) {
    if (r >= 1e6) return QString::number(r / 1e6, 'f', 1) + QStringLiteral(" M");
    if (r >= 1e3) return QString::number(r / 1e3, 'f', 1) + QStringLiteral(" k");
    return QString::number(r, 'f', 0) + QStringLiteral(" ");
}

}  // namespace

QString MainWindow::displayProblem(const rbm::Model& m) {
    // The loader lets through every finite number. A GRBM whose hidden log weights
    // B.h + h'Jh/2 (B = c + W'(b/sigma), J = W'W) can overflow — |.| <= hmax |B|_1 + m hmax^2 |W|_F^2 / 2
    // is not finite — has no finite log Z, density or path; a 2-D model whose density box the
    // arithmetic cannot hold (b = 1e308) has nothing to draw. Neither is shown.
    if (const auto* g = m.as<rbm::Grbm>()) {
        double hmax = 0;
        for (double v : g->hidden_values) hmax = std::max(hmax, std::fabs(v));
        const double bound = hmax * g->hidden_marginal_field().lpNorm<1>() +
                             0.5 * static_cast<double>(g->n_hidden()) * hmax * hmax * g->W.squaredNorm();
        if (!std::isfinite(bound))
            return tr("this model's hidden log weights B.h + h'Jh/2 (B = c + W'(b/σ), J = W'W) can exceed what double "
                      "arithmetic holds (largest |hidden value| %1, largest |W| %2): it has no finite log Z to show")
                .arg(hmax, 0, 'g', 3)
                .arg(g->W.cwiseAbs().maxCoeff(), 0, 'g', 3);
    }
    if (!isTwoD(m)) return {};
    try {
        (void)rbm::default_view(m, 256, 256);
    } catch (const rbm::InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

void MainWindow::setModel(rbm::Model m, const QString& origin, const QString& presetName) {
    model_ = std::move(m);
    loaded_ = model_;
    origin_ = origin;
    presetName_ = presetName;
    modelEdited_ = false;
    setWindowTitle(QStringLiteral("rbmscope — %1").arg(model_.name.empty() ? origin : textPreview(model_.name, kNamePreviewChars)));
    clearResultBanner();  // a reopened result is of the model it came with
    run_->cancel();
    sweep_->clear();
    pendingRunGate_.reset();
    pendingSweepGate_.reset();
    exactLogZ_.reset();
    estimates_->setExactLogZ(std::nullopt);
    estimates_->setRun(nullptr);
    estimates_->setSweep(sweep_);
    const ModelTraits traits = traitsOf(model_);
    settings_ = defaultSettings(traits);
    panel_->setModel(traits, settings_);
    panel_->setCurrentPreset(presetName);
    panel_->setGrbmEditorVisible(GrbmEditor::editable(model_));
    if (GrbmEditor::editable(model_)) panel_->grbmEditor()->setGrbm(*model_.as<rbm::Grbm>());
    estimates_->setChains(settings_.chains);
    refreshSummary();
    density_->setModel(model_, false);
    annealing_->setModel(model_);
    compare_->setModel(model_);
    tempering_->setModel(model_);
    meanfield_->setModel(model_);
    {
        // A relative data path recorded in the model file is looked up beside the file too.
        const QFileInfo file(origin);
        samples_->setModelDirectory(file.exists() ? file.absolutePath() : QString());
    }
    samples_->setModel(model_);
    filters_->setModel(model_);
    annealing_->setRun(run_);
    compare_->setRun(run_);
    annealing_->setFollowRun(true);
    compare_->setFollowRun(true);
    annealing_->setBeta(1.0);
    laneKey_ = laneKey(settings_);
    runAfterLanes_ = settings_.autoRun;
    rebuildLanes();
    updateStatus();
    Q_EMIT modelChanged();
}

QString MainWindow::modelSummary() const { return panel_->modelSummary(); }

QString MainWindow::modelTitle() const {
    // A bounded preview: a model file's name can be megabytes long (issue #19).
    const QString name = model_.name.empty() ? origin_ : textPreview(model_.name, kNamePreviewChars);
    return modelEdited_ ? tr("%1 (edited)").arg(name) : name;
}

void MainWindow::refreshSummary() {
    const rbm::Model snapshot = model_;
    setWindowTitle(QStringLiteral("rbmscope — %1").arg(modelTitle()));
    const QString base = QStringLiteral("<b>%1</b><br>kind: %2 · n = %3 visible · m = %4 hidden")
                             .arg(modelTitle().toHtmlEscaped())
                             .arg(QString::fromLatin1(rbm::kind_name(snapshot.kind())))
                             .arg(snapshot.n_visible())
                             .arg(snapshot.n_hidden());
    QString notes = textPreview(snapshot.notes, kNotesPreviewChars).toHtmlEscaped();
    if (modelEdited_)
        notes = tr("Edited by hand: the weights are no longer the preset's, so what follows describes the "
                   "original, not this model.") + (notes.isEmpty() ? QString() : QStringLiteral("<br>") + notes);
    const QString tail = notes.isEmpty() ? QString() : QStringLiteral("<p style='color:#666'>%1</p>").arg(notes);
    panel_->setModelSummary(base + tr("<br>exact log Z: computing…") + tail);
    struct Summary {
        QString text;
        std::optional<double> logZ;
    };
    jobs_->submit<Summary>(
        QStringLiteral("summary"),
        [snapshot](const BackgroundJobs::CancelFlag& cancel) {
            if (!rbm::has_exact_log_z(snapshot)) {
                const auto size = rbm::enumeration_size(snapshot);
                return Summary{QStringLiteral("exact log Z: not available (%1)").arg(QString::fromStdString(size.what)), std::nullopt};
            }
            rbm::ExactOptions opts;
            opts.cancel = cancel.get();  // 2^24 configurations take seconds; quitting must not wait
            const double z = rbm::exact_log_z(snapshot, opts);
            return Summary{QStringLiteral("exact log Z = <b>%1</b>").arg(z, 0, 'f', 6), z};
        },
        [this, base, tail](Summary s) {
            panel_->setModelSummary(base + "<br>" + s.text + tail);
            exactLogZ_ = s.logZ;
            estimates_->setExactLogZ(s.logZ);
            Q_EMIT summaryReady();
        },
        [this, base, tail](QString err) {
            panel_->setModelSummary(base + "<br>exact log Z: " + err.toHtmlEscaped() + tail);
            exactLogZ_.reset();
            estimates_->setExactLogZ(std::nullopt);
            Q_EMIT summaryReady();
        });
}

void MainWindow::rebuildLanes() {
    lanesReady_ = false;
    panel_->setPathStatus(tr("building the annealing path…"), false);
    const rbm::Model model = model_;
    const RunSettings settings = settings_;
    jobs_->submitWithProgress<std::vector<Lane>>(
        QStringLiteral("paths"),
        [this, model, settings](const BackgroundJobs::Context& ctx) {
            // Gibbs target moments can take minutes on a large model: say how far they are.
            return buildLanes(model, settings, ctx.cancel.get(), [this, &ctx](const QString& text) {
                ctx.post([this, text] {
                    panel_->setPathStatus(text, false);
                    Q_EMIT pathProgress(text);
                });
            });
        },
        [this](std::vector<Lane> lanes) { onLanes(std::move(lanes)); },
        [this](QString err) {
            panel_->setPathStatus(err, true);
            runAfterLanes_ = sweepAfterLanes_ = false;
            updateStatus();
        });
}

void MainWindow::onLanes(std::vector<Lane> lanes) {
    lanes_ = std::move(lanes);
    lanesReady_ = true;
    if (!lanes_.empty()) {
        const Lane& primary = lanes_.front();
        if (primary.path) {
            panel_->setPathStatus(primary.notes, false);
            panel_->setExactSampling(primary.path->can_sample_exactly(),
                                     tr("the %1 path cannot draw exact samples from p_β (model too large to enumerate)")
                                         .arg(primary.label));
            if (settings_.schedule.kind == "binned") {
                try {
                    panel_->setSchedulePreview(rbm::make_schedule(settings_.schedule, primary.path.get()));
                } catch (const std::exception& e) {
                    panel_->setScheduleProblem(QString::fromStdString(e.what()));
                }
            }
        } else {
            panel_->setPathStatus(primary.error, true);
        }
    }
    annealing_->setLanes(lanes_);
    compare_->setLanes(lanes_);
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
    updateStatus();
}

void MainWindow::applySettings(const RunSettings& s) {
    panel_->setSettings(s);
    onSettingsChanged();
}

void MainWindow::onSettingsChanged() {
    const RunSettings s = panel_->settings();
    const LaneKey key = laneKey(s);
    const bool methodOk = methodProblem(panel_->traits(), s.method).isEmpty();
    settings_ = s;
    estimates_->setChains(s.chains);
    if (!lanesReady_) runAfterLanes_ = s.autoRun;
    if (!(key == laneKey_) && methodOk) {
        // New paths: heatmaps restart at once; a run follows the new paths.
        laneKey_ = key;
        run_->cancel();
        annealing_->setLanesPending();
        compare_->setLanesPending();
        runAfterLanes_ = s.autoRun;
        rebuildLanes();
        updateStatus();
        return;
    }
    if (s.schedule.kind == "binned" && lanesReady_ && !lanes_.empty() && lanes_.front().path) {
        try {
            panel_->setSchedulePreview(rbm::make_schedule(s.schedule, lanes_.front().path.get()));
        } catch (const std::exception& e) {
            panel_->setScheduleProblem(QString::fromStdString(e.what()));
        }
    }
    maybeAutoRun();
    updateActions();
}

void MainWindow::maybeAutoRun() {
    if (!settings_.autoRun) return;
    if (!panel_->isValid()) {
        run_->cancel();  // the shown run no longer matches the settings; nothing valid to run
        autoRunTimer_->stop();
        updateStatus();
        return;
    }
    autoRunTimer_->start();
}

void MainWindow::startRun() { aisTransport_->run(); }

void MainWindow::launchRun(std::shared_ptr<rbm::StepGate> gate) {
    autoRunTimer_->stop();
    if (!panel_->isValid()) {
        statusText_->setText(tr("Cannot run: %1").arg(panel_->problems().join(QStringLiteral("; "))));
        return;
    }
    settings_ = panel_->settings();
    if (!lanesReady_) {
        runAfterLanes_ = true;
        pendingRunGate_ = std::move(gate);
        return;
    }
    pendingRunGate_.reset();
    // The views follow the run: a β animation still playing would move the slider and the title
    // away from the chains the overlay shows.
    annealing_->setPlaying(false);
    compare_->setPlaying(false);
    annealing_->setFollowRun(true);
    compare_->setFollowRun(true);
    run_->start(lanes_, settings_, isTwoD(model_) ? 1000 : 0, std::move(gate));
    annealing_->setRun(run_);
    compare_->setRun(run_);
    estimates_->setRun(run_);
    updateStatus();
}

void MainWindow::startSweep() { sweepTransport_->run(); }

void MainWindow::launchSweep(std::shared_ptr<rbm::StepGate> gate) {
    if (!panel_->isValid()) {
        statusText_->setText(tr("Cannot run a sweep: %1").arg(panel_->problems().join(QStringLiteral("; "))));
        return;
    }
    settings_ = panel_->settings();
    setCurrentView(QStringLiteral("estimates"));
    if (!lanesReady_) {
        sweepAfterLanes_ = true;
        pendingSweepGate_ = std::move(gate);
        return;
    }
    pendingSweepGate_.reset();
    estimates_->setChains(settings_.chains);
    sweep_->start(lanes_, settings_, std::move(gate));
    estimates_->setSweep(sweep_);
    updateStatus();
}

void MainWindow::stopAll() {
    autoRunTimer_->stop();
    runAfterLanes_ = sweepAfterLanes_ = false;
    pendingRunGate_.reset();
    pendingSweepGate_.reset();
    for (auto& [view, t] : transports_) t->cancel();
    run_->stop();
    sweep_->stop();
    annealing_->setPlaying(false);
    compare_->setPlaying(false);
    statusText_->setText(tr("Stopping… the results computed so far are kept."));
}

Transport* MainWindow::transport(const QString& view) const {
    const QWidget* w = tabs_->currentWidget();
    if (!view.isEmpty()) {
        w = nullptr;
        for (int i = 0; i < tabs_->count(); ++i)
            if (viewNames().value(i) == view) w = tabs_->widget(i);
    }
    const auto it = transports_.find(w);
    return it == transports_.end() ? nullptr : it->second;
}

void MainWindow::runCurrent() {
    Transport* t = transport();
    if (!t) return;
    if (const QString why = t->cannotRun(); !why.isEmpty()) statusText_->setText(tr("Cannot run: %1").arg(why));
    else t->run();
    updateActions();
}

void MainWindow::togglePause() {
    Transport* t = transport();
    if (t && t->active()) {
        if (t->canStep()) t->togglePause();  // a job without units (mean field) cannot pause
    } else if (auto* v = qobject_cast<AnnealingView*>(tabs_->currentWidget())) {
        // Nothing runs: Space plays or pauses the beta animation of the visible view.
        v->setPlaying(!v->playing());
    } else if (tabs_->currentWidget() == tempering_ && tempering_->canReplay()) {
        tempering_->setPlaying(!tempering_->playing());  // and the replay of the last PT run
    }
    updateStatus();
}

void MainWindow::stepCurrent() {
    Transport* t = transport();
    // In a replay of the last PT run, Step shows the next recorded scan; otherwise the job's unit.
    if (tabs_->currentWidget() == tempering_ && (!t || !t->active()) && tempering_->replaying()) tempering_->stepReplay();
    else if (t) t->step();
    updateStatus();
}

void MainWindow::cancelCurrent() {
    Transport* t = transport();
    if (!t) return;
    t->cancel();
    if (t == aisTransport_) {
        annealing_->setPlaying(false);
        compare_->setPlaying(false);
    }
    updateStatus();
}

void MainWindow::restartCurrent() {
    if (Transport* t = transport()) t->restart();
    updateStatus();
}

void MainWindow::setPace(double unitsPerSecond) {
    for (auto& [view, t] : transports_) t->setPace(unitsPerSecond);
    tempering_->setReplayPace(unitsPerSecond > 0 ? unitsPerSecond : 0);  // a PT replay goes at the transport's speed
    for (QAction* a : speedActions_) a->setChecked(std::fabs(a->data().toDouble() - unitsPerSecond) < 1e-9);
    if (speedBox_) {
        const int i = speedBox_->findData(unitsPerSecond);
        if (i >= 0 && i != speedBox_->currentIndex()) speedBox_->setCurrentIndex(i);
    }
}

void MainWindow::buildTransports() {
    Transport::Job ais;
    ais.unit = tr("annealing step");
    ais.start = [this](std::shared_ptr<rbm::StepGate> g) { launchRun(std::move(g)); };
    ais.stop = [this] {
        autoRunTimer_->stop();
        runAfterLanes_ = false;
        pendingRunGate_.reset();
        run_->stop();
        statusText_->setText(tr("Stopping… the results computed so far are kept."));
    };
    ais.active = [this] { return run_->running() || (runAfterLanes_ && pendingRunGate_); };
    ais.finished = [this] { return !run_->status().stopped && !run_->lanes().empty(); };
    ais.gate = [this] { return pendingRunGate_ ? pendingRunGate_.get() : run_->stepGate(); };
    ais.cannotRun = [this] { return panel_->isValid() ? QString() : panel_->problems().join(QStringLiteral("; ")); };
    ais.fraction = [this] { return run_->lanes().empty() ? -1.0 : run_->status().fraction; };
    // Play β of the annealing views (nothing runs then).
    ais.playback = [this] {
        return annealing_->playing() || compare_->playing() ? Transport::State::Playing : Transport::State::Idle;
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

    Transport::Job pt;
    pt.unit = tr("PT scan");
    pt.start = [this](std::shared_ptr<rbm::StepGate> g) { tempering_->run(std::move(g)); };
    pt.stop = [this] { tempering_->cancel(); };
    pt.active = [this] { return tempering_->running(); };
    pt.finished = [this] { return tempering_->lastRunFinished(); };
    pt.gate = [this] { return tempering_->stepGate(); };
    // The engine computes at full speed; the transport drives what the view shows (its counter is
    // the scan on screen), and the toolbar says how far the engine is.
    pt.detail = [this] { return tempering_->transportDetail(); };
    // The replay of the last run (playing, scrubbed or stepped), and a reopened result.
    pt.playback = [this] { return tempering_->playbackState(); };
    pt.restored = [this] { return tempering_->restoredRun(); };
    // Progress of the views that count units against their settings (tuning rounds come on top
    // of a tempering run's scans: the fraction is capped).
    const auto ofUnits = [](const rbm::StepGate* g, double total) {
        return g && total > 0 ? std::min(1.0, static_cast<double>(g->done.load()) / total) : -1.0;
    };
    pt.fraction = [this, ofUnits] { return ofUnits(tempering_->stepGate(), static_cast<double>(tempering_->settings().scans)); };
    auto* ptT = new Transport(pt, this);

    Transport::Job mf;
    mf.unit = tr("mean-field computation");
    mf.canStep = false;  // one fixed-point solve per method: nothing to step through
    // The gate is kept only to tell "never run" from "ran" (the solver does not take it).
    auto mfGate = std::make_shared<std::shared_ptr<rbm::StepGate>>();
    mf.start = [this, mfGate](std::shared_ptr<rbm::StepGate> g) {
        *mfGate = std::move(g);
        meanfield_->run();
    };
    mf.stop = [this] { meanfield_->cancel(); };
    mf.active = [this] { return meanfield_->running(); };
    mf.finished = [] { return true; };
    mf.gate = [mfGate] { return mfGate->get(); };
    auto* mfT = new Transport(mf, this);

    Transport::Job smp;
    smp.unit = tr("sampling sweep");
    smp.start = [this](std::shared_ptr<rbm::StepGate> g) { samples_->run(std::move(g)); };
    smp.stop = [this] { samples_->cancel(); };
    smp.active = [this] { return jobs_->isRunning(samples_->channel()); };
    smp.finished = [this] { return samples_->lastRunFinished(); };
    smp.gate = [this] { return samples_->stepGate(); };
    smp.fraction = [this, ofUnits] { return ofUnits(samples_->stepGate(), static_cast<double>(samples_->settings().sweeps)); };
    auto* smpT = new Transport(smp, this);

    Transport::Job tr_;
    tr_.unit = tr("training update");
    tr_.start = [this](std::shared_ptr<rbm::StepGate> g) { training_->train(std::move(g)); };
    tr_.stop = [this] { training_->stop(); };
    tr_.active = [this] { return training_->busy(); };
    tr_.finished = [] { return true; };
    // No run yet: no gate, so the transport says "idle" (the job keeps one for the next run).
    tr_.gate = [this] { return training_->session()->ids().empty() ? nullptr : training_->stepGate(); };
    // Runs restored from a session (or a checkpoint): the newest one's updates, not the gate's 0.
    tr_.restored = [this] { return training_->restoredRun(); };
    tr_.fraction = [this, ofUnits] {
        try {
            return ofUnits(training_->stepGate(), static_cast<double>(training_->options().updates));
        } catch (const std::exception&) {
            return -1.0;
        }
    };
    auto* trT = new Transport(tr_, this);

    // F5 on the target density runs the annealing towards it, as it always did.
    transports_ = {{density_, aisTransport_}, {annealing_, aisTransport_}, {compare_, aisTransport_}, {estimates_, sweepTransport_},
                   {tempering_, ptT},           {meanfield_, mfT},        {samples_, smpT},
                   {training_, trT}};
    for (Transport* t : {aisTransport_, sweepTransport_, ptT, mfT, smpT, trT})
        connect(t, &Transport::stateChanged, this, [this] { updateActions(); });
    // Jobs started or ended outside the transport (a view's own buttons, auto-run) show too.
    connect(jobs_, &BackgroundJobs::runningChanged, this, [this] {
        for (auto& [view, t] : transports_) t->refresh();
    });
    connect(tempering_, &TemperingView::playingChanged, this, [this] { updateActions(); });  // Replay run / Pause replay
    // Replaying / Playing, and back to the run's end.
    connect(tempering_, &TemperingView::playbackChanged, ptT, &Transport::refresh);
    for (AnnealingView* v : {annealing_, compare_}) connect(v, &AnnealingView::playingChanged, aisTransport_, &Transport::refresh);
    // A new or edited model: the runs of the views that follow it are no longer its (idle, 0 units).
    for (Transport* t : {aisTransport_, sweepTransport_, ptT, mfT, smpT}) connect(this, &MainWindow::modelChanged, t, &Transport::reset);
    connect(tempering_, &TemperingView::replayAvailableChanged, this, [this] { updateActions(); });
    // A PT run is complete when its last frame is delivered, just after its channel stops running.
    connect(tempering_, &TemperingView::runFinished, ptT, &Transport::refresh);
    // Likewise a Samples run (else the toolbar keeps the "stopped" it read as the channel stopped).
    connect(samples_, &SamplesView::runFinished, smpT, &Transport::refresh);
    // A training run ends when its result is delivered, just after its channel stops running.
    connect(training_->session(), &TrainingJob::busyChanged, trT, &Transport::refresh);
    connect(training_->session(), &TrainingJob::runEnded, trT, &Transport::refresh);  // restored runs too
}

void MainWindow::reset() {
    const rbm::Model m = loaded_;
    setModel(m, origin_, presetName_);
}

void MainWindow::attachTrainingData(const rbm::TrainingData& t) {
    const MethodSpec before = settings_.method;
    const bool defaults = before == defaultSettings(traitsOf(model_)).method;
    model_.training = t;
    if (!modelEdited_) {
        modelEdited_ = true;
        setWindowTitle(QStringLiteral("rbmscope — %1").arg(modelTitle()));
    }
    const ModelTraits traits = traitsOf(model_);
    if (defaults) settings_.method = defaultSettings(traits).method;
    panel_->setModel(traits, settings_);
    statusText_->setText(tr("Training data attached to the model: %1 (File → Save model as… records it)")
                             .arg(QString::fromStdString(rbm::describe(t))));
    // Only a changed method invalidates the lanes (and the run on them); an auto-run follows.
    if (!(settings_.method == before)) {
        run_->cancel();
        runAfterLanes_ = settings_.autoRun;
        laneKey_ = laneKey(settings_);
        rebuildLanes();
    }
    updateStatus();
}

void MainWindow::onArrowDragged(int index, QPointF point) {
    auto* g = model_.as<rbm::Grbm>();
    if (!g || index < 0 || index >= g->n_hidden()) return;
    // The arrow shows sigma∘W_j from b; its tip at `point` means W_j = (point - b) / sigma.
    rbm::Grbm edited = *g;
    edited.W(0, index) = (point.x() - g->b(0)) / g->sigma(0);
    edited.W(1, index) = (point.y() - g->b(1)) / g->sigma(1);
    panel_->grbmEditor()->setGrbm(edited);
    onModelEdited(edited, false);
}

void MainWindow::onModelEdited(const rbm::Grbm& g, bool final) {
    rbm::Model candidate = model_;
    candidate.params = g;
    try {
        rbm::validate(candidate);
        if (const QString problem = displayProblem(candidate); !problem.isEmpty()) throw rbm::InputError(problem.toStdString());
    } catch (const std::exception& e) {
        statusText_->setText(tr("Edit refused: %1").arg(QString::fromStdString(e.what())));
        return;
    }
    model_ = std::move(candidate);
    if (!modelEdited_) {
        modelEdited_ = true;
        setWindowTitle(QStringLiteral("rbmscope — %1").arg(modelTitle()));
    }
    // Live: the exact density and log Z, at most ~30 times per second.
    editPending_ = true;
    if (!editTimer_->isActive()) editTimer_->start();
    if (!final) return;
    editFinalTimer_->stop();
    // Finished edit: paths, heatmaps and the run follow the new model.
    annealing_->setModel(model_);
    compare_->setModel(model_);
    tempering_->setModel(model_);
    meanfield_->setModel(model_);
    samples_->setModel(model_);
    filters_->setModel(model_);
    run_->cancel();
    sweep_->clear();
    runAfterLanes_ = settings_.autoRun;
    rebuildLanes();
    updateStatus();
    Q_EMIT modelChanged();
}

void MainWindow::applyModelEdit() {
    if (!editPending_) return;
    editPending_ = false;
    density_->setModel(model_, true);
    refreshSummary();
}

bool MainWindow::idle() const {
    for (const char* c : {"density", "summary", "paths", "ais", "sweep"})
        if (jobs_->isRunning(QString::fromLatin1(c))) return false;
    return lanesReady_ && !runAfterLanes_ && !sweepAfterLanes_ && !autoRunTimer_->isActive() && !editTimer_->isActive() &&
           !editFinalTimer_->isActive() && !annealing_->busy() && !compare_->busy() && !run_->running() &&
           !sweep_->running() && !samples_->busy() && !training_->busy() && !meanfield_->running();
}

void MainWindow::updateActions() {
    if (!runAction_) return;
    const bool valid = panel_->isValid();
    sweepAction_->setEnabled(valid);
    Transport* t = transport();
    const Transport::State st = t ? t->state() : Transport::State::Idle;
    const bool runnable = t && t->cannotRun().isEmpty();
    const bool active = t && t->active();
    runAction_->setEnabled(runnable);
    restartAction_->setEnabled(runnable);
    stepAction_->setEnabled(t && t->canStep() && (active || runnable));
    cancelAction_->setEnabled(active);
    const bool held = st == Transport::State::Paused || st == Transport::State::Pausing || st == Transport::State::Stepping;
    const bool animation = !active && qobject_cast<AnnealingView*>(tabs_->currentWidget());
    const bool replay = !active && tabs_->currentWidget() == tempering_ && tempering_->canReplay();
    const bool replaying = replay && tempering_->playing();
    pauseAction_->setEnabled((active && t->canStep()) || animation || replay);
    pauseAction_->setChecked(held);
    pauseAction_->setText(held ? tr("&Resume") : animation ? tr("&Play β") : replaying ? tr("&Pause replay") : replay ? tr("&Replay run") : tr("&Pause"));
    pauseAction_->setIcon(style()->standardIcon(held || animation || (replay && !replaying) ? QStyle::SP_MediaPlay : QStyle::SP_MediaPause));
    if (transportState_)
        transportState_->setText(t ? QStringLiteral("  ") + t->describe() : QString());
    updateOverlay();
}

void MainWindow::updateOverlay() {
    if (!overlay_ || !presenter_) return;
    PresenterOverlay::Info in;
    const int i = tabs_->currentIndex();
    in.view = tabs_->tabText(i).remove(QLatin1Char('&'));
    if (i < 9) in.viewKey = QKeySequence(Qt::CTRL | (Qt::Key_1 + i)).toString(QKeySequence::NativeText);
    const Transport* t = transport();
    in.transport = t != nullptr;
    if (t) {
        const Transport::State st = t->state();
        switch (st) {
            case Transport::State::Idle: in.state = tr("Idle"), in.stateColour = QColor(0xb0, 0xbe, 0xc5); break;
            case Transport::State::Running: in.state = tr("Running"), in.stateColour = QColor(0x66, 0xbb, 0x6a); break;
            case Transport::State::Pausing: in.state = tr("Pausing…"), in.stateColour = QColor(0xff, 0xca, 0x28); break;
            case Transport::State::Paused: in.state = tr("Paused"), in.stateColour = QColor(0xff, 0xca, 0x28); break;
            case Transport::State::Stepping: in.state = tr("Stepping"), in.stateColour = QColor(0xff, 0xca, 0x28); break;
            case Transport::State::Stopped: in.state = tr("Stopped"), in.stateColour = QColor(0xef, 0x53, 0x50); break;
            case Transport::State::Finished: in.state = tr("Finished"), in.stateColour = QColor(0x64, 0xb5, 0xf6); break;
            case Transport::State::Replaying: in.state = tr("Replaying"), in.stateColour = QColor(0xba, 0x68, 0xc8); break;
            case Transport::State::Playing: in.state = tr("Playing"), in.stateColour = QColor(0xba, 0x68, 0xc8); break;
        }
        in.fraction = st == Transport::State::Idle ? -1.0 : t->fraction();
        const long long units = t->units();
        in.units = tr("%L1 %2%3").arg(units).arg(t->unitName()).arg(units == 1 ? QString() : QStringLiteral("s"));
        // Units per second over the last half second or more (the strip is updated with the
        // transport, about ten times a second while the counter moves).
        if (t->active()) {
            if (rateOf_ != t || units < rateUnits_ || !rateClock_.isValid()) {
                rateOf_ = t;
                rateUnits_ = units;
                rateClock_.start();
                rate_ = -1;
            } else if (rateClock_.elapsed() >= 500) {
                rate_ = static_cast<double>(units - rateUnits_) * 1000.0 / static_cast<double>(rateClock_.elapsed());
                rateUnits_ = units;
                rateClock_.restart();
            }
        } else {
            rateOf_ = nullptr;
            rate_ = -1;
        }
        QStringList speed;
        if (rate_ >= 0) speed << tr("%L1 per second").arg(rate_, 0, 'f', rate_ < 10 ? 1 : 0);
        if (t->canStep()) speed << (t->pace() > 0 ? tr("speed limit %L1/s").arg(t->pace()) : tr("full speed"));
        in.speed = speed.join(QStringLiteral(" · "));
        in.canRun = runAction_->isEnabled();
        in.canPause = pauseAction_->isEnabled();
        in.held = pauseAction_->isChecked();
        in.pauseLabel = pauseAction_->text().remove(QLatin1Char('&'));  // Pause, Resume, or Play β (annealing views)
        in.playGlyph = in.held || !t->active();
        in.canStep = stepAction_->isEnabled();
        in.canCancel = cancelAction_->isEnabled();
    }
    overlay_->setInfo(in);
}

void MainWindow::updateStatus() {
    if (!statusText_) return;
    // A cancelled job is shown stopped at once, while its worker hands over what it computed.
    const bool runBusy = run_->running() && (!aisTransport_ || aisTransport_->active());
    const bool sweepBusy = sweep_->running() && (!sweepTransport_ || sweepTransport_->active());
    const bool busy = runBusy || sweepBusy;
    for (QWidget* w : {static_cast<QWidget*>(elapsedLabel_), static_cast<QWidget*>(speedLabel_),
                       static_cast<QWidget*>(progress_), static_cast<QWidget*>(cancelButton_)})
        w->setVisible(busy);
    updateActions();
    if (sweepBusy) {
        progress_->setValue(static_cast<int>(sweep_->fraction() * 1000));
        elapsedLabel_->setText(seconds(sweep_->elapsed()));
        speedLabel_->setText(rate(sweep_->speed()) + tr("chain-sweeps/s"));
        statusText_->setText((sweep_->paused() ? tr("Paused — ") : QString()) +
                             tr("Sweep over K: %1 runs done").arg(sweep_->points().size()));
        return;
    }
    if (runBusy) {
        const RunStatus& st = run_->status();
        progress_->setValue(static_cast<int>(st.fraction * 1000));
        elapsedLabel_->setText(seconds(st.elapsed));
        speedLabel_->setText(rate(st.speed) + tr("chain-sweeps/s"));
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
        statusText_->setText((run_->paused() ? tr("Paused — ") : QString()) + what);
        return;
    }
    if (!run_->lanes().empty() && !jobs_->isRunning(QStringLiteral("paths"))) {
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
                    part += tr(" (interval unreliable: ESS %1 < %2)").arg(l.result->estimate.ess, 0, 'f', 1).arg(rbm::kReliableEss);
                parts << part;
                total += l.result->seconds;
            } else if (!l.error.isEmpty()) {
                parts << QStringLiteral("%1: %2").arg(l.label, l.error);
            }
        }
        if (exactLogZ_ && !partial) parts << tr("exact %1").arg(*exactLogZ_, 0, 'f', 3);
        const bool stopped = run_->status().stopped || partial || (run_->running() && !runBusy);
        const QString head = stopped ? tr("Stopped (partial results kept). ")
                                                               : tr("Run finished in %1. ").arg(seconds(total));
        statusText_->setText(head + parts.join(QStringLiteral(" · ")));
    }
}

}  // namespace rbmscope
