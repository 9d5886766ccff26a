#include "main_window/remote_run_dialog.hpp"

#include <algorithm>
#include <cmath>

#include <QDateTime>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QStandardPaths>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>

namespace rbmscope {

namespace {

QString duration(double s) {
    if (s < 0) return QStringLiteral("?");
    if (s < 60) return QStringLiteral("%1 s").arg(s, 0, 'f', 0);
    if (s < 3600) return QStringLiteral("%1 min %2 s").arg(std::floor(s / 60)).arg(std::fmod(s, 60), 0, 'f', 0);
    return QStringLiteral("%1 h %2 min").arg(std::floor(s / 3600)).arg(std::floor(std::fmod(s, 3600) / 60));
}

// The command's name ("ais", "ais-sweep", …) for the result file's name.
QString commandName(const QString& command) {
    const RemoteRun::Invocation inv = RemoteRun::invocation(QString(), command);
    const QString name = inv.arguments.isEmpty() ? QString() : inv.arguments.front();
    return !name.isEmpty() && name.front().isLetter() && !name.contains(QLatin1Char('/')) ? name
                                                                                          : QStringLiteral("run");
}

}  // namespace

RemoteRunDialog::RemoteRunDialog(QWidget* parent)
    : QDialog(parent), run_(new RemoteRun(this)), launcher_(new QLineEdit(this)), command_(new QLineEdit(this)),
      folder_(new QLineEdit(this)), start_(new QPushButton(tr("&Start"), this)),
      cancel_(new QPushButton(tr("&Cancel run (keep results)"), this)), bar_(new QProgressBar(this)),
      status_(new QLabel(this)), points_(new QTableWidget(0, 5, this)), log_(new QPlainTextEdit(this)) {
    setObjectName(QStringLiteral("remoteRunDialog"));
    setWindowTitle(tr("Run with MPI"));
    setModal(false);
    launcher_->setObjectName(QStringLiteral("launcher"));
    launcher_->setPlaceholderText(tr("none: one process on this machine"));
    launcher_->setToolTip(
        tr("The launcher line the command is started under, e.g.\n"
           "  mpirun -np 4\n  mpirun --oversubscribe -np 8     (more ranks than cores)\n"
           "  mpirun --hostfile hosts -np 16\n  srun -n 64\n"
           "Empty: the command runs as one process here. Every rank count gives the same numbers."));
    command_->setObjectName(QStringLiteral("command"));
    command_->setToolTip(
        tr("The rbmscope-cli command (the current view's run; edit it freely). "
           "--progress jsonl is added so the dialog can follow it."));
    folder_->setObjectName(QStringLiteral("folder"));
    folder_->setToolTip(
        tr("The folder the command runs in and its result is written to; on a cluster, one every node "
           "can reach"));
    auto* browse = new QPushButton(tr("&Browse…"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString d = QFileDialog::getExistingDirectory(this, tr("Folder for the run"), folder());
        if (!d.isEmpty()) setFolder(d);
    });
    auto* folderRow = new QHBoxLayout;
    folderRow->addWidget(folder_, 1);
    folderRow->addWidget(browse);

    auto* form = new QFormLayout;
    form->addRow(tr("&Launcher"), launcher_);
    form->addRow(tr("C&ommand"), command_);
    auto* folderLabel = new QLabel(tr("&Folder"), this);
    folderLabel->setBuddy(folder_);  // a layout cannot be a buddy: the mnemonic goes to the field
    form->addRow(folderLabel, folderRow);

    bar_->setRange(0, 1000);
    bar_->setValue(0);
    bar_->setTextVisible(true);
    bar_->setFormat(QStringLiteral("%p%"));
    status_->setObjectName(QStringLiteral("status"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    status_->setText(tr("Not started. Enter starts, Esc cancels a run (its partial result is kept) or closes."));
    points_->setObjectName(QStringLiteral("points"));
    points_->setHorizontalHeaderLabels({tr("method"), tr("K"), tr("repeat"), tr("log Ẑ"), tr("95% interval")});
    points_->horizontalHeader()->setStretchLastSection(true);
    points_->verticalHeader()->hide();
    points_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    points_->setMinimumHeight(120);
    log_->setObjectName(QStringLiteral("log"));
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(RemoteRun::kMaxLogLines);
    log_->setPlaceholderText(tr("Messages of the launcher and the command"));
    log_->setMinimumHeight(60);

    start_->setDefault(true);
    auto* buttons = new QDialogButtonBox(this);
    buttons->addButton(start_, QDialogButtonBox::ActionRole);
    buttons->addButton(cancel_, QDialogButtonBox::ActionRole);
    QPushButton* close = buttons->addButton(QDialogButtonBox::Close);
    connect(start_, &QPushButton::clicked, this, [this] { startRun(); });
    connect(cancel_, &QPushButton::clicked, this, &RemoteRunDialog::cancelRun);
    connect(close, &QPushButton::clicked, this, &QDialog::hide);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(bar_);
    layout->addWidget(status_);
    layout->addWidget(new QLabel(tr("Finished runs (ais-sweep):"), this));
    layout->addWidget(points_, 3);
    layout->addWidget(log_, 1);
    layout->addWidget(buttons);
    resize(760, 520);

    connect(run_, &RemoteRun::progress, this, &RemoteRunDialog::onProgress);
    connect(run_, &RemoteRun::point, this, &RemoteRunDialog::onPoint);
    connect(run_, &RemoteRun::logLine, log_, &QPlainTextEdit::appendPlainText);
    connect(run_, &RemoteRun::finished, this, &RemoteRunDialog::onFinished);
    setLauncher(defaultLauncher());
    setFolder(defaultFolder());
    updateButtons();
}

QString RemoteRunDialog::defaultFolder() {
    const QString env = qEnvironmentVariable("RBMSCOPE_RUNS_DIR");
    if (!env.isEmpty()) return env;
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/runs");
}

QString RemoteRunDialog::defaultLauncher() {
    if (QStandardPaths::findExecutable(QStringLiteral("mpirun")).isEmpty()) return QString();
    return QStringLiteral("mpirun -np %1").arg(std::max(1, QThread::idealThreadCount()));
}

void RemoteRunDialog::setCommand(const QString& c) { command_->setText(c); }
QString RemoteRunDialog::command() const { return command_->text(); }
void RemoteRunDialog::setLauncher(const QString& l) { launcher_->setText(l); }
QString RemoteRunDialog::launcher() const { return launcher_->text(); }
void RemoteRunDialog::setFolder(const QString& f) { folder_->setText(f); }
QString RemoteRunDialog::folder() const { return folder_->text(); }
QString RemoteRunDialog::statusText() const { return status_->text(); }
int RemoteRunDialog::pointCount() const { return points_->rowCount(); }

bool RemoteRunDialog::startRun() {
    const QString name = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz")) +
                         QLatin1Char('-') + commandName(command()) + QStringLiteral(".json");
    points_->setRowCount(0);
    log_->clear();
    bar_->setValue(0);
    if (!run_->start(launcher(), command(), folder(), name)) {
        status_->setText(tr("Not started: %1").arg(run_->error()));
        return false;
    }
    log_->appendPlainText(QStringLiteral("$ ") + run_->programLine());
    status_->setText(tr("Started; waiting for the first progress line…"));
    updateButtons();
    return true;
}

void RemoteRunDialog::cancelRun() {
    if (!run_->running()) return;
    const bool second = run_->cancelling();
    run_->cancel();
    status_->setText(
        second ? tr("Killed the launcher.")
               : tr("Cancelling: the ranks stop and print what they have (Cancel again kills the launcher)…"));
    updateButtons();
}

void RemoteRunDialog::reject() {
    if (run_->running()) {
        cancelRun();
        return;
    }
    QDialog::reject();
}

void RemoteRunDialog::onProgress(const RemoteProgress& p) {
    bar_->setValue(static_cast<int>(std::lround(1000 * std::clamp(p.fraction, 0.0, 1.0))));
    QString text = tr("%1: %2 % after %3").arg(p.phase).arg(100 * p.fraction, 0, 'f', 1).arg(duration(p.elapsedS));
    if (p.etaS >= 0 && !p.final) text += tr(", about %1 left").arg(duration(p.etaS));
    if (p.chainSweepsPerS > 0) text += tr(", %1 chain-sweeps/s").arg(QLocale().toString(p.chainSweepsPerS, 'f', 0));
    if (p.line.contains(QLatin1String("beta")))
        text += tr(", β = %1").arg(p.line.value(QLatin1String("beta")).toDouble(), 0, 'g', 4);
    if (p.line.contains(QLatin1String("log_z")))
        text += tr("; log Ẑ = %1").arg(p.line.value(QLatin1String("log_z")).toDouble(), 0, 'g', 10);
    if (p.final) text += p.line.value(QLatin1String("complete")).toBool() ? tr(" — done") : tr(" — stopped");
    status_->setText(text);
}

void RemoteRunDialog::onPoint(const QJsonObject& p) {
    const int row = points_->rowCount();
    points_->insertRow(row);
    const auto cell = [&](int col, const QString& s) { points_->setItem(row, col, new QTableWidgetItem(s)); };
    cell(0, p.value(QLatin1String("method")).toString());
    cell(1, QString::number(p.value(QLatin1String("k")).toInteger()));
    cell(2, QString::number(p.value(QLatin1String("repeat")).toInteger()));
    cell(3, QString::number(p.value(QLatin1String("log_z")).toDouble(), 'g', 10));
    cell(4, QStringLiteral("[%1, %2]")
                .arg(p.value(QLatin1String("ci95_low")).toDouble(), 0, 'g', 8)
                .arg(p.value(QLatin1String("ci95_high")).toDouble(), 0, 'g', 8));
    points_->scrollToBottom();
}

void RemoteRunDialog::onFinished(const RemoteOutcome& out) {
    updateButtons();
    QString text;
    if (out.resultPath.isEmpty()) {
        text = tr("Failed: %1").arg(out.message);
    } else {
        text = out.complete ? tr("Finished: %1").arg(out.resultPath)
                            : tr("Stopped; partial result: %1").arg(out.resultPath);
        if (!out.message.isEmpty()) text += QLatin1Char('\n') + out.message;
        if (out.complete) bar_->setValue(1000);
    }
    status_->setText(text);
    if (!out.resultPath.isEmpty()) Q_EMIT resultReady(out.resultPath, out.complete);
}

void RemoteRunDialog::updateButtons() {
    const bool running = run_->running();
    start_->setEnabled(!running);
    cancel_->setEnabled(running);
    for (QLineEdit* e : {launcher_, command_, folder_}) e->setReadOnly(running);
}

}  // namespace rbmscope
