// The flow of the main window: a model and the panel's settings give the lanes (one annealing
// path per method, built on a worker); the lanes feed the heatmaps, the AIS run and the sweep;
// the status bar follows whatever runs. Changing a parameter restarts only what it affects.
#include <QAction>
#include <QFileInfo>
#include <algorithm>
#include <cmath>

#include "main_window/main_window.hpp"
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
    run_->cancel();
    sweep_->clear();
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

void MainWindow::refreshSummary() {
    const rbm::Model snapshot = model_;
    const QString base = QStringLiteral("<b>%1</b><br>kind: %2 · n = %3 visible · m = %4 hidden")
                             .arg(textPreview(snapshot.name, kNamePreviewChars).toHtmlEscaped())
                             .arg(QString::fromLatin1(rbm::kind_name(snapshot.kind())))
                             .arg(snapshot.n_visible())
                             .arg(snapshot.n_hidden());
    const QString notes = textPreview(snapshot.notes, kNotesPreviewChars).toHtmlEscaped();
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
        startSweep();
    }
    if (runAfterLanes_) {
        runAfterLanes_ = false;
        startRun();
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

void MainWindow::startRun() {
    autoRunTimer_->stop();
    if (!panel_->isValid()) {
        statusText_->setText(tr("Cannot run: %1").arg(panel_->problems().join(QStringLiteral("; "))));
        return;
    }
    settings_ = panel_->settings();
    if (!lanesReady_) {
        runAfterLanes_ = true;
        return;
    }
    annealing_->setFollowRun(true);
    compare_->setFollowRun(true);
    run_->start(lanes_, settings_, isTwoD(model_) ? 1000 : 0);
    annealing_->setRun(run_);
    compare_->setRun(run_);
    estimates_->setRun(run_);
    updateStatus();
}

void MainWindow::startSweep() {
    if (!panel_->isValid()) {
        statusText_->setText(tr("Cannot run a sweep: %1").arg(panel_->problems().join(QStringLiteral("; "))));
        return;
    }
    settings_ = panel_->settings();
    setCurrentView(QStringLiteral("estimates"));
    if (!lanesReady_) {
        sweepAfterLanes_ = true;
        return;
    }
    estimates_->setChains(settings_.chains);
    sweep_->start(lanes_, settings_);
    estimates_->setSweep(sweep_);
    updateStatus();
}

void MainWindow::stopAll() {
    autoRunTimer_->stop();
    runAfterLanes_ = sweepAfterLanes_ = false;
    run_->stop();
    sweep_->stop();
    annealing_->setPlaying(false);
    compare_->setPlaying(false);
    statusText_->setText(tr("Stopping… the results computed so far are kept."));
}

void MainWindow::togglePause() {
    const bool running = run_->running() || sweep_->running();
    if (!running) {
        // Nothing runs: Space plays or pauses the beta animation of the visible view.
        if (auto* v = qobject_cast<AnnealingView*>(tabs_->currentWidget())) v->setPlaying(!v->playing());
        return;
    }
    const bool pause = !(run_->paused() || sweep_->paused());
    run_->setPaused(pause);
    sweep_->setPaused(pause);
    updateStatus();
}

void MainWindow::reset() {
    const rbm::Model m = loaded_;
    setModel(m, origin_, presetName_);
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
    modelEdited_ = true;
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
    runAction_->setEnabled(valid);
    sweepAction_->setEnabled(valid);
    const bool busy = run_->running() || sweep_->running();
    cancelAction_->setEnabled(busy);
    pauseAction_->setText(run_->paused() || sweep_->paused() ? tr("&Resume") : tr("&Pause"));
}

void MainWindow::updateStatus() {
    if (!statusText_) return;
    const bool runBusy = run_->running(), sweepBusy = sweep_->running();
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
        statusText_->setText((st.paused ? tr("Paused — ") : QString()) + what);
        return;
    }
    if (!run_->lanes().empty() && !jobs_->isRunning(QStringLiteral("paths"))) {
        QStringList parts;
        double total = 0;
        for (const LaneRun& l : run_->lanes()) {
            if (l.result) {
                parts << QStringLiteral("%1: log Ẑ = %2").arg(l.label).arg(l.result->estimate.log_z, 0, 'f', 3);
                total += l.result->seconds;
            } else if (!l.error.isEmpty()) {
                parts << QStringLiteral("%1: %2").arg(l.label, l.error);
            }
        }
        if (exactLogZ_) parts << tr("exact %1").arg(*exactLogZ_, 0, 'f', 3);
        const QString head = run_->status().stopped ? tr("Stopped (partial results kept). ") : tr("Run finished in %1. ").arg(seconds(total));
        statusText_->setText(head + parts.join(QStringLiteral(" · ")));
    }
}

}  // namespace rbmscope
