// Run → Run with MPI…: the current view's computation as an rbmscope-cli command under
// a launcher, followed by RemoteRunDialog; its result comes back through openResult.
#include <QDateTime>
#include <QDir>

#include "core/io/model_io.hpp"
#include "core/io/result_source.hpp"
#include "main_window/main_window.hpp"
#include "main_window/remote_run_dialog.hpp"
#include "views/cli_equivalent.hpp"

namespace rbmscope {

std::string MainWindow::cliModelArgument(const QString& dir, const QString& baseName, bool absolute, QString* note,
                                         QString* error) {
    if (!presetName_.isEmpty() && !modelEdited_) return "preset:" + presetName_.toStdString();
    const QString fileName = baseName + QStringLiteral(".model.json");
    const QString path = QDir(dir).absoluteFilePath(fileName);
    try {
        if (!QDir().mkpath(dir)) throw rbm::InputError("cannot create the folder " + dir.toStdString());
        rbm::save_model(model_, path.toStdString());
    } catch (const std::exception& e) {
        if (error) *error = tr("cannot write the model the commands need: %1").arg(QString::fromUtf8(e.what()));
        return {};
    }
    if (note)
        *note = absolute
                    ? tr("The command reads the model from %1, written for it.").arg(path)
                    : tr("The commands read the model from %1, written next to this page (run them in its folder).")
                          .arg(fileName);
    return (absolute ? path : fileName).toStdString();
}

std::vector<std::string> MainWindow::remoteCommand(const QString& dir, const QString& baseName, QString* note,
                                                   QString* error) {
    const std::string modelArg = cliModelArgument(dir, baseName, true, note, error);
    if (modelArg.empty()) return {};
    CliEquivalent c;
    bool readsModel = true;
    const View* v = activeView();
    if (std::optional<CliEquivalent> own = v ? v->cliCommand(modelArg, dir, baseName, &readsModel) : std::nullopt) {
        c = std::move(*own);                     // the view's own computation (what Run there would start)
        if (!readsModel && note) note->clear();  // train reads no model; it writes one beside the result
    } else {
        const std::vector<MethodSpec> methods = settings_.methods();
        if (methods.empty()) {
            if (error) *error = tr("no AIS method is selected in the parameter panel");
            return {};
        }
        c = aisCommand(modelArg, model_.kind(), settings_, methods.front());
        if (methods.size() > 1 && note)
            *note +=
                tr(" The first of the %1 selected methods; the Estimates view's command (ais-sweep) runs them all.")
                    .arg(methods.size());
    }
    if (c.argv.empty()) {
        if (error) *error = tr("rbmscope-cli has no option for %1").arg(c.missing);
        return {};
    }
    return c.argv;
}

RemoteRunDialog* MainWindow::openRemoteRun() {
    if (!remoteRun_) {
        remoteRun_ = new RemoteRunDialog(this);
        connect(remoteRun_, &RemoteRunDialog::resultReady, this,
                [this](const QString& path, bool) { openResult(path); });
    }
    // A new command for the view as it is now, unless a run is going (then the dialog shows it).
    if (!remoteRun_->run()->running()) {
        QString note, error;
        const QString base = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"));
        const std::vector<std::string> argv = remoteCommand(remoteRun_->folder(), base, &note, &error);
        if (argv.empty()) {
            remoteRun_->setCommand(QString());
            remoteRun_->setToolTip(error);
            statusText_->setText(tr("Run with MPI: %1").arg(error));
        } else {
            remoteRun_->setCommand(QString::fromStdString(rbm::shell_command_line(argv)));
            remoteRun_->setToolTip(note);
        }
    }
    remoteRun_->show();
    remoteRun_->raise();
    remoteRun_->activateWindow();
    return remoteRun_;
}

}  // namespace rbmscope
