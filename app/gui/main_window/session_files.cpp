// Sessions: File → Open session / Save session / Save session as, --session, the autosave on
// quit and its restore on start. The file format and its checks live in core (session_io); the
// panel's settings map to its "settings" object through settingsToMap / settingsFromMap; each
// view writes, checks and applies its own part (View::saveSession / readSession / applySession:
// "views.<name>", and the Samples data set and Training runs).
// Capture happens on save only: nothing here runs per keystroke.
#include <QAction>
#include <QCloseEvent>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QStandardPaths>
#include <QTemporaryFile>
#include <cmath>
#include <iostream>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/io/presets.hpp"
#include "core/kernels/build_info.hpp"
#include "core/numerics/parallel.hpp"
#include "main_window/main_window.hpp"

namespace rbmscope {

namespace {
// One number in [lo, hi] (a JSON integer or real), else nothing.
std::optional<double> sessionNumber(const rbm::SessionValue& value, double lo, double hi) {
    if (value.is_list || value.items.size() != 1) return std::nullopt;
    double x = std::numeric_limits<double>::quiet_NaN();
    if (const auto* f = std::get_if<double>(&value.items[0])) x = *f;
    else if (const auto* i = std::get_if<std::int64_t>(&value.items[0])) x = static_cast<double>(*i);
    else if (const auto* u = std::get_if<std::uint64_t>(&value.items[0])) x = static_cast<double>(*u);
    return std::isfinite(x) && x >= lo && x <= hi ? std::optional<double>(x) : std::nullopt;
}
}  // namespace

QString MainWindow::autosavePath() {
    // RBMSCOPE_CONFIG_DIR overrides the platform's config location (tests, a portable setup).
    const QString dir = qEnvironmentVariable("RBMSCOPE_CONFIG_DIR");
    return (dir.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation) : dir) +
           QStringLiteral("/last-session.json");
}

QString MainWindow::autosaveLocationProblem() {
    const QString dir = QFileInfo(autosavePath()).absolutePath();
    if (!QDir().mkpath(dir)) return tr("cannot create the folder %1").arg(dir);
    // A real write, as the autosave does it (permissions alone miss read-only mounts and root).
    QTemporaryFile probe(dir + QStringLiteral("/.write-test-XXXXXX"));
    if (!probe.open() || probe.write("x", 1) != 1 || !probe.flush())
        return tr("cannot write in the folder %1: %2").arg(dir, probe.errorString());
    return {};
}

void MainWindow::checkAutosaveLocation() {
    if (const QString problem = autosaveLocationProblem(); !problem.isEmpty())
        reportSessionProblem(tr("The session will not be saved on quit"),
                             problem + tr("\nUse File → Save session as… to keep your work elsewhere."));
}

rbm::Session MainWindow::captureSession() const {
    rbm::Session s;
    s.model = model_;
    // An unchanged preset is saved by name; anything else (a file, an edit, a trained model) in full.
    if (!presetName_.isEmpty() && !modelEdited_) s.preset = presetName_.toStdString();
    s.settings = settingsToMap(panel_->settings());
    s.view = currentView().toStdString();
    for (const View* v : views_) v->saveSession(s);
    // Display options, for a lesson or a class to come back to as it was: the colour scale, the
    // presenter text scale and each view's pace ("display" is no view's name: views ignore it).
    auto& display = s.views["display"];
    display["log_colour_scale"] = rbm::SessionValue::scalar(logScaleAction_->isChecked());
    display["presenter_scale"] = rbm::SessionValue::scalar(presenterScale_);
    for (const View* v : views_)
        if (v->transport()) display["pace." + v->name().toStdString()] = rbm::SessionValue::scalar(v->pace());
    try {  // which build, SIMD path and threads made what the session holds
        s.build = rbm::provenance_json(rbm::threads_in_force(), 1).dump();
    } catch (const std::exception&) {  // RBMSCOPE_SIMD names a path this machine lacks: none recorded
    }
    return s;
}

QString MainWindow::applySessionFile(const QString& path) {
    // Everything is read and checked before anything in the window changes.
    rbm::Session s;
    try {
        s = rbm::load_session(path.toStdString());
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return applySession(std::move(s), path);
}

QString MainWindow::applySession(rbm::Session s, const QString& path) {
    const ModelTraits traits = traitsOf(s.model);
    RunSettings settings;
    if (const QString err = settingsFromMap(s.settings, traits, defaultSettings(traits), settings); !err.isEmpty())
        return path + QStringLiteral(": ") + err;
    const QString view = QString::fromStdString(s.view);
    if (!view.isEmpty() && !viewNames().contains(view))
        return QStringLiteral("%1: 'view' is '%2', expected one of %3")
            .arg(path, view, viewNames().join(QStringLiteral(", ")));
    if (const QString problem = displayProblem(s.model); !problem.isEmpty())
        return path + QStringLiteral(": ") + problem;
    // Display options (captureSession), checked before anything changes; absent ones stay as they are.
    std::optional<bool> logScale;
    std::optional<double> presenterScale;
    std::vector<std::pair<View*, double>> paces;
    if (const auto d = s.views.find("display"); d != s.views.end()) {
        for (const auto& [key, value] : d->second) {
            const QString k = QString::fromStdString(key);
            if (key == "log_colour_scale") {
                const auto* b =
                    !value.is_list && value.items.size() == 1 ? std::get_if<bool>(&value.items[0]) : nullptr;
                if (!b) return QStringLiteral("%1: 'display.log_colour_scale' must be true or false").arg(path);
                logScale = *b;
            } else if (key == "presenter_scale") {
                presenterScale = sessionNumber(value, 0.5, 4.0);
                if (!presenterScale)
                    return QStringLiteral("%1: 'display.presenter_scale' must be a number from 0.5 to 4").arg(path);
            } else if (k.startsWith(QStringLiteral("pace."))) {
                View* v = this->view(k.mid(5));
                const auto pace = sessionNumber(value, 0, 1e9);
                if (!pace)
                    return QStringLiteral("%1: 'display.%2' must be a number of units a second, 0 or more")
                        .arg(path, k);
                if (v && v->transport()) paces.emplace_back(v, *pace);  // an unknown view: ignored, like unknown keys
            }
        }
    }
    // The views' own settings, checked by each view (unknown view names are ignored, like unknown keys).
    for (View* v : views_)
        if (const QString err = v->readSession(s); !err.isEmpty()) return path + QStringLiteral(": ") + err;

    const QString preset = QString::fromStdString(s.preset);
    rbm::Model model = std::move(s.model);  // the views apply their parts of `s` once the model is in
    setModel(std::move(model), preset.isEmpty() ? path : QStringLiteral("preset ") + preset, preset);
    applySettings(settings);
    for (View* v : views_) v->applySession(s);
    if (logScale) {
        logScaleAction_->setChecked(*logScale);
        for (View* v : views_) v->setColourScale(*logScale ? ColourScale::Log : ColourScale::Linear);
    }
    if (presenterScale) scalePresenter(*presenterScale / presenterScale_);
    for (const auto& [v, pace] : paces) v->setPace(pace);
    if (!view.isEmpty()) setCurrentView(view);
    updateSpeedControls();
    sessionBuildNote_ =
        s.build.empty() ? QString() : buildDifference(rbm::build_record(nlohmann::json::parse(s.build)));
    sessionMessage_.clear();
    sessionLabel_->setVisible(false);
    return {};
}

bool MainWindow::openSession(const QString& path) {
    if (const QString err = applySessionFile(path); !err.isEmpty()) {
        reportSessionProblem(tr("Cannot open the session"), err);
        return false;
    }
    sessionPath_ = path;
    // Another build or SIMD path saved it: its trained models and curves need not be what a rerun here gives.
    statusText_->setText(
        tr("Opened session %1").arg(path) +
        (sessionBuildNote_.isEmpty() ? QString() : QStringLiteral("; ") + tr("it was %1").arg(sessionBuildNote_)));
    return true;
}

bool MainWindow::saveSession(const QString& path) {
    try {
        rbm::save_session(captureSession(), path.toStdString());
    } catch (const std::exception& e) {
        reportSessionProblem(tr("Cannot save the session"), QString::fromStdString(e.what()));
        return false;
    }
    sessionPath_ = path;
    sessionMessage_.clear();
    sessionLabel_->setVisible(false);
    statusText_->setText(tr("Saved session to %1").arg(path));
    return true;
}

QString MainWindow::autosaveSession() {
    if (origin_.isEmpty()) return tr("no model is open");
    const QString path = autosavePath();
    if (!QDir().mkpath(QFileInfo(path).absolutePath()))
        return tr("cannot create the folder %1").arg(QFileInfo(path).absolutePath());
    try {
        rbm::save_session(captureSession(), path.toStdString());
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

void MainWindow::closeEvent(QCloseEvent* event) {
    QFile::remove(autosavePath() + QStringLiteral(".opening"));  // this start got through
    if (autosave_ && !quitWithoutSaving_) {
        if (const QString err = autosaveSession(); !err.isEmpty()) {
            const QString message = tr("The session was not saved to %1: %2").arg(autosavePath(), err);
            statusText_->setText(message);
            std::cerr << "rbmscope: " << message.toStdString() << std::endl;
            Q_EMIT autosaveFailed(message);
            if (interactive_) {
                // Say so and stay open (non-modal, like every message here); closing again quits.
                quitWithoutSaving_ = true;
                auto* box = new QMessageBox(QMessageBox::Warning, tr("The session was not saved"),
                                            message + tr("\n\nSave it elsewhere with File → Save session as…, or close "
                                                         "the window again to quit without saving."),
                                            QMessageBox::Ok, this);
                box->setAttribute(Qt::WA_DeleteOnClose);
                box->setModal(false);
                box->show();
                event->ignore();
                return;
            }
        }
    }
    QMainWindow::closeEvent(event);
}

bool MainWindow::startWithSession(const QString& sessionFile) {
    const bool autosaved = sessionFile.isEmpty();
    const QString path = autosaved ? autosavePath() : sessionFile;
    const QString fallback = QString::fromStdString(rbm::default_preset_name());
    // The marker lives while the autosave is being shown: found at start, the last start died
    // showing it (a crash, a kill), and opening it again would do the same.
    const QString marker = path + QStringLiteral(".opening");
    if (autosaved && !QFileInfo::exists(path)) {
        QFile::remove(marker);
        loadPreset(fallback);
        return false;
    }
    QString err;
    if (autosaved && QFileInfo::exists(marker)) {
        err =
            tr("%1: the app stopped while showing this session at its last start (it crashed or was killed)").arg(path);
    } else {
        if (autosaved) {
            QFile f(marker);
            if (f.open(QIODevice::WriteOnly)) f.write("rbmscope: showing the last session\n");
            // Gone once the density (the first view to draw) is in, or on quit.
            connect(
                this, &MainWindow::densityReady, this, [marker] { QFile::remove(marker); }, Qt::SingleShotConnection);
        }
        try {
            err = applySessionFile(path);
        } catch (const std::exception& e) {
            err = path + QStringLiteral(": ") + QString::fromStdString(e.what());
        }
    }
    if (err.isEmpty()) {
        if (!autosaved) sessionPath_ = path;
        statusText_->setText(autosaved ? tr("Restored the last session") : tr("Opened session %1").arg(path));
        return true;
    }
    if (autosaved) QFile::remove(marker);
    loadPreset(fallback);
    QString message = err;
    if (autosaved) {
        // Keep the broken file for the user to inspect; the next autosave must not replace it.
        const QString aside = path + QStringLiteral(".broken");
        QFile::remove(aside);
        message += QFile::rename(path, aside) ? tr("\nThe file was moved to %1.").arg(aside)
                                              : tr("\nThe file could not be moved aside; it will be replaced on quit.");
    }
    message += tr("\nThe %1 preset is open instead.").arg(fallback);
    reportSessionProblem(autosaved ? tr("Cannot restore the last session") : tr("Cannot open the session"), message);
    return false;
}

void MainWindow::reportSessionProblem(const QString& title, const QString& message) {
    sessionMessage_ = message;
    const QString oneLine = QString(message).replace(QLatin1Char('\n'), QStringLiteral(" — "));
    statusText_->setText(title + QStringLiteral(": ") + oneLine);
    // Title and the first line (the reason); the whole message in the tooltip.
    sessionLabel_->setText(QStringLiteral("⚠ %1: %2").arg(title, message.section(QLatin1Char('\n'), 0, 0)));
    sessionLabel_->setToolTip(message);
    sessionLabel_->setVisible(true);
    if (interactive_) {
        // Non-modal: a start-up problem must not block the window behind it.
        auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setModal(false);
        box->show();
    } else {
        std::cerr << "rbmscope: " << title.toStdString() << ": " << oneLine.toStdString() << std::endl;
    }
    Q_EMIT sessionProblem(message);
}

void MainWindow::openSessionDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open session"), sessionPath_,
                                                      tr("rbmscope sessions (*.json);;All files (*)"));
    if (!path.isEmpty()) openSession(path);
}

void MainWindow::saveSessionToCurrent() {
    if (sessionPath_.isEmpty()) saveSessionAsDialog();
    else saveSession(sessionPath_);
}

void MainWindow::saveSessionAsDialog() {
    QString path = QFileDialog::getSaveFileName(this, tr("Save session"),
                                                sessionPath_.isEmpty() ? QStringLiteral("session.json") : sessionPath_,
                                                tr("rbmscope sessions (*.json)"));
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".json");
    saveSession(path);
}

}  // namespace rbmscope
