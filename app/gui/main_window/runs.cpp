// The flow of the main window: the model and the panel's settings go to every view (the AIS
// pipeline of the annealing views is theirs: views/annealing/annealing_pipeline.hpp); the
// transport keys act on the current view's Transport; the status bar follows whatever runs.
#include <QAction>
#include <QComboBox>
#include <QFileInfo>
#include <QKeySequence>
#include <QStyle>
#include <algorithm>
#include <cmath>
#include <utility>

#include "core/exact/exact.hpp"
#include "core/io/presets.hpp"
#include "main_window/main_window.hpp"
#include "main_window/presenter_overlay.hpp"
#include "text_preview.hpp"

namespace rbmscope {
namespace {

bool isTwoD(const rbm::Model& m) { return m.n_visible() == 2 && m.kind() != rbm::ModelKind::Brbm; }

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
    setWindowTitle(QStringLiteral("rbmscope — %1")
                       .arg(model_.name.empty() ? origin : textPreview(model_.name, kNamePreviewChars)));
    clearResultBanner();  // a reopened result is of the model it came with
    exactLogZ_.reset();
    const ModelTraits traits = traitsOf(model_);
    settings_ = defaultSettings(traits);
    panel_->setModel(traits, settings_);
    panel_->setCurrentPreset(presetName);
    panel_->setGrbmEditorVisible(GrbmEditor::editable(model_));
    if (GrbmEditor::editable(model_)) panel_->grbmEditor()->setGrbm(*model_.as<rbm::Grbm>());
    refreshSummary();
    const ModelEvent event{ModelChange::Opened, origin, settings_};
    for (View* v : views_) v->setModel(model_, event);
    updateStatus();
    Q_EMIT modelChanged();
}

QString MainWindow::modelSummary() const { return panel_->modelSummary(); }

QString MainWindow::modelTitle() const {
    // A bounded preview: a model file's name can be megabytes long.
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
                   "original, not this model.") +
                (notes.isEmpty() ? QString() : QStringLiteral("<br>") + notes);
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
                return Summary{QStringLiteral("exact log Z: not available (%1)").arg(QString::fromStdString(size.what)),
                               std::nullopt};
            }
            rbm::ExactOptions opts;
            opts.cancel = cancel.get();  // 2^24 configurations take seconds; quitting must not wait
            const double z = rbm::exact_log_z(snapshot, opts);
            return Summary{QStringLiteral("exact log Z = <b>%1</b>").arg(z, 0, 'f', 6), z};
        },
        [this, base, tail](Summary s) {
            panel_->setModelSummary(base + "<br>" + s.text + tail);
            exactLogZ_ = s.logZ;
            for (View* v : views_) v->setExactLogZ(s.logZ);
            Q_EMIT summaryReady();
        },
        [this, base, tail](QString err) {
            panel_->setModelSummary(base + "<br>exact log Z: " + err.toHtmlEscaped() + tail);
            exactLogZ_.reset();
            for (View* v : views_) v->setExactLogZ(std::nullopt);
            Q_EMIT summaryReady();
        });
}

void MainWindow::applySettings(const RunSettings& s) {
    panel_->setSettings(s);
    onSettingsChanged();
}

void MainWindow::onSettingsChanged() {
    settings_ = panel_->settings();
    for (View* v : views_) v->setSettings(settings_);
    updateActions();
}

void MainWindow::startRun() {
    if (Transport* t = transport(QStringLiteral("annealing"))) t->run();
}

void MainWindow::startSweep() {
    if (Transport* t = transport(QStringLiteral("estimates"))) t->run();
}

void MainWindow::stopAll() {
    for (View* v : views_) v->stop();
    statusText_->setText(tr("Stopping… the results computed so far are kept."));
}

Transport* MainWindow::transport(const QString& name) const {
    const View* v = name.isEmpty() ? activeView() : view(name);
    return v ? v->transport() : nullptr;
}

void MainWindow::runCurrent() {
    View* v = activeView();
    Transport* t = v ? v->transport() : nullptr;
    if (!t) {
        if (v) statusText_->setText(tr("Cannot run: %1").arg(v->noTransport()));
        return;
    }
    if (const QString why = t->cannotRun(); !why.isEmpty()) statusText_->setText(tr("Cannot run: %1").arg(why));
    else t->run();
    updateActions();
}

void MainWindow::togglePause() {
    View* v = activeView();
    Transport* t = v ? v->transport() : nullptr;
    if (t && t->active()) {
        if (t->canStep()) t->togglePause();  // a job without units (mean field) cannot pause
    } else if (v && v->playback().available) {
        v->togglePlayback();  // nothing runs: Space plays or pauses the view's playback (β, a replay)
    }
    updateStatus();
}

void MainWindow::stepCurrent() {
    View* v = activeView();
    Transport* t = v ? v->transport() : nullptr;
    // In a playback that steps (a replay of the last PT run), Step shows its next frame; otherwise the job's unit.
    if (v && (!t || !t->active()) && v->stepPlayback()) {
    } else if (t) {
        t->step();
    }
    updateStatus();
}

void MainWindow::cancelCurrent() {
    if (View* v = activeView(); v && v->transport()) v->cancel();
    updateStatus();
}

void MainWindow::restartCurrent() {
    if (Transport* t = transport()) t->restart();
    updateStatus();
}

void MainWindow::setPace(double unitsPerSecond, const QString& name) {
    View* v = name.isEmpty() ? activeView() : view(name);
    if (!v) return;
    v->setPace(unitsPerSecond);
    updateSpeedControls();
}

void MainWindow::updateSpeedControls() {
    const View* v = activeView();
    const double pace = v ? v->pace() : 0;
    for (QAction* a : speedActions_) a->setChecked(std::fabs(a->data().toDouble() - pace) < 1e-9);
    if (speedBox_) {
        const int i = speedBox_->findData(pace);
        if (i >= 0 && i != speedBox_->currentIndex()) speedBox_->setCurrentIndex(i);
    }
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
    const ModelEvent event{ModelChange::Data, origin_, settings_};
    for (View* v : views_) v->setModel(model_, event);
    updateStatus();
}

void MainWindow::onModelEdited(const rbm::Grbm& g, bool final) {
    rbm::Model candidate = model_;
    candidate.params = g;
    try {
        rbm::validate(candidate);
        if (const QString problem = displayProblem(candidate); !problem.isEmpty())
            throw rbm::InputError(problem.toStdString());
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
    const ModelEvent event{ModelChange::Edited, origin_, settings_};
    for (View* v : views_) v->setModel(model_, event);
    updateStatus();
    Q_EMIT modelChanged();
}

void MainWindow::applyModelEdit() {
    if (!editPending_) return;
    editPending_ = false;
    const ModelEvent event{ModelChange::Live, origin_, settings_};
    for (View* v : views_) v->setModel(model_, event);
    refreshSummary();
}

bool MainWindow::idle() const {
    if (jobs_->isRunning(QStringLiteral("summary")) || editTimer_->isActive() || editFinalTimer_->isActive())
        return false;
    for (const View* v : views_)
        if (v->busy()) return false;
    return true;
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
    const View* v = activeView();
    // Esc also reaches a view's other work still computing (the Estimates view's verdict on log Z).
    cancelAction_->setEnabled(active || (v && v->otherWorkRunning()));
    const bool held =
        st == Transport::State::Paused || st == Transport::State::Pausing || st == Transport::State::Stepping;
    // Nothing runs: Space is the view's playback (Play β, a tempering replay), when it has one.
    const Playback play = !active && v ? v->playback() : Playback{};
    pauseAction_->setEnabled((active && t->canStep()) || play.available);
    pauseAction_->setChecked(held);
    pauseAction_->setText(held ? tr("&Resume") : play.available ? play.label : tr("&Pause"));
    pauseAction_->setIcon(style()->standardIcon(held || (play.available && play.playGlyph) ? QStyle::SP_MediaPlay
                                                                                           : QStyle::SP_MediaPause));
    if (transportState_) transportState_->setText(t ? QStringLiteral("  ") + t->describe() : QString());
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
            case Transport::State::Stepping:
                in.state = tr("Stepping"), in.stateColour = QColor(0xff, 0xca, 0x28);
                break;
            case Transport::State::Stopped: in.state = tr("Stopped"), in.stateColour = QColor(0xef, 0x53, 0x50); break;
            case Transport::State::Finished:
                in.state = tr("Finished"), in.stateColour = QColor(0x64, 0xb5, 0xf6);
                break;
            case Transport::State::Replaying:
                in.state = tr("Replaying"), in.stateColour = QColor(0xba, 0x68, 0xc8);
                break;
            case Transport::State::Playing: in.state = tr("Playing"), in.stateColour = QColor(0xba, 0x68, 0xc8); break;
        }
        in.fraction = st == Transport::State::Idle ? -1.0 : t->fraction();
        const long long units = t->units();
        // A job without units (mean field: one solve per method) counts none: no "0 computations".
        if (t->canStep())
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
    if (const View* v = activeView()) in.figures = v->presenterFigures();
    const int before = overlay_->barHeight();
    overlay_->setInfo(in);
    if (overlay_->barHeight() != before) placeOverlay();  // a figure line came or went
}

void MainWindow::updateStatus() {
    if (!statusText_) return;
    // The first view that reports on the status bar (the AIS pipeline's run or sweep) fills it.
    std::optional<StatusReport> report;
    for (const View* v : views_)
        if ((report = v->status())) break;
    const bool busy = report && report->busy;
    for (QWidget* w : {static_cast<QWidget*>(elapsedLabel_), static_cast<QWidget*>(speedLabel_),
                       static_cast<QWidget*>(progress_), static_cast<QWidget*>(cancelButton_)})
        w->setVisible(busy);
    updateActions();
    if (!report) return;
    if (busy) {
        progress_->setValue(static_cast<int>(report->fraction * 1000));
        elapsedLabel_->setText(report->elapsed);
        speedLabel_->setText(report->speed);
    }
    if (!report->text.isEmpty()) statusText_->setText(report->text);
}

}  // namespace rbmscope
