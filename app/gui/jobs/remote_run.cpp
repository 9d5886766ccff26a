#include "jobs/remote_run.hpp"

#include <signal.h>
#include <unistd.h>
#include <wordexp.h>

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QProcessEnvironment>
#include <QStandardPaths>

#include "core/io/result_source.hpp"

namespace rbmscope {

namespace {

bool executable(const QString& path) {
    const QFileInfo f(path);
    return f.isFile() && f.isExecutable();
}

// The last few log lines, for a message that says what the launcher or the CLI reported.
QString tail(const QStringList& log, int lines) {
    return log.mid(std::max<qsizetype>(0, log.size() - lines)).join(QLatin1Char('\n'));
}

// Splits a line as a POSIX shell would (quotes, backslashes, $VARIABLES, ~), with POSIX wordexp;
// command substitution is refused (WRDE_NOCMD), so a line never runs anything by itself. (Qt's
// QProcess::splitCommand knows only double quotes, and the commands shown are quoted with single
// quotes, core/io/result_source.hpp.)
QStringList shellWords(const QString& line, QString* error) {
    if (line.trimmed().isEmpty()) return {};
    wordexp_t w;
    const int rc = ::wordexp(line.toLocal8Bit().constData(), &w, WRDE_NOCMD);
    if (rc != 0) {
        if (rc == WRDE_NOSPACE) ::wordfree(&w);
        *error = rc == WRDE_CMDSUB ? QObject::tr("'%1': command substitution ($(…) or `…`) is not run here").arg(line)
                 : rc == WRDE_BADCHAR
                     ? QObject::tr(
                           "'%1': a character the shell treats specially (| & ; < > ( ) { } or a newline) "
                           "is not allowed; quote it")
                           .arg(line)
                 : rc == WRDE_SYNTAX ? QObject::tr("'%1': unbalanced quotes").arg(line)
                                     : QObject::tr("'%1' cannot be split into words").arg(line);
        return {};
    }
    QStringList out;
    for (std::size_t i = 0; i < w.we_wordc; ++i) out << QString::fromLocal8Bit(w.we_wordv[i]);
    ::wordfree(&w);
    return out;
}

}  // namespace

RemoteRun::RemoteRun(QObject* parent) : QObject(parent), process_(new QProcess(this)) {
    qRegisterMetaType<RemoteProgress>();
    qRegisterMetaType<RemoteOutcome>();
    process_->setProcessChannelMode(QProcess::SeparateChannels);
    connect(process_, &QProcess::readyReadStandardError, this, [this] { readStderr(false); });
    connect(process_, &QProcess::finished, this, &RemoteRun::onFinished);
    connect(process_, &QProcess::errorOccurred, this, &RemoteRun::onError);
}

RemoteRun::~RemoteRun() {
    if (!running()) return;
    // Quitting the app while a run goes: the same Ctrl-C as Cancel, so the ranks stop and write
    // their checkpoints; then the launcher is killed if it takes too long.
    disconnect(process_, nullptr, this, nullptr);
    ::kill(static_cast<pid_t>(process_->processId()), SIGINT);
    if (!process_->waitForFinished(kQuitGraceMs)) {
        process_->kill();
        process_->waitForFinished(1000);
    }
    collectResult(process_->exitCode(), process_->exitStatus());  // the partial result keeps its name
}

QString RemoteRun::cliPath() {
    const QString env = qEnvironmentVariable("RBMSCOPE_CLI");
    if (!env.isEmpty() && executable(env)) return QFileInfo(env).absoluteFilePath();
    const QString dir = QCoreApplication::applicationDirPath();
    // Installed side by side; the build tree (app/gui/rbmscope beside app/cli/rbmscope-cli).
    for (const QString& rel : {QStringLiteral("rbmscope-cli"), QStringLiteral("../cli/rbmscope-cli"),
                               QStringLiteral("../app/cli/rbmscope-cli")})
        if (const QString p = QDir(dir).absoluteFilePath(rel); executable(p)) return QFileInfo(p).canonicalFilePath();
    return QStandardPaths::findExecutable(QStringLiteral("rbmscope-cli"));
}

RemoteRun::Invocation RemoteRun::invocation(const QString& launcher, const QString& command) {
    Invocation inv;
    const QStringList pre = shellWords(launcher, &inv.error);
    QStringList cmd = shellWords(command, &inv.error);
    if (!inv.error.isEmpty()) return inv;
    if (cmd.isEmpty()) {
        inv.error = tr("no command: give the rbmscope-cli command to run (e.g. rbmscope-cli ais preset:four-mode)");
        return inv;
    }
    if (cmd.front() == QLatin1String("rbmscope-cli")) {
        const QString cli = cliPath();
        if (cli.isEmpty()) {
            inv.error =
                tr("rbmscope-cli is not found next to the app or on PATH: give its full path in the command, "
                   "or set RBMSCOPE_CLI");
            return inv;
        }
        cmd.front() = cli;
    }
    bool hasProgress = false;
    for (const QString& a : cmd)
        hasProgress = hasProgress || a == QLatin1String("--progress") || a.startsWith(QLatin1String("--progress="));
    if (!hasProgress) cmd << QStringLiteral("--progress") << QStringLiteral("jsonl");
    QStringList all = pre + cmd;
    inv.program = all.takeFirst();
    inv.arguments = all;
    return inv;
}

bool RemoteRun::running() const { return process_->state() != QProcess::NotRunning; }

bool RemoteRun::start(const QString& launcher, const QString& command, const QString& workDir,
                      const QString& resultPath) {
    error_.clear();
    if (running()) {
        error_ = tr("a run is already going: cancel it first");
        return false;
    }
    const Invocation inv = invocation(launcher, command);
    if (!inv.error.isEmpty()) {
        error_ = inv.error;
        return false;
    }
    if (!QDir().mkpath(workDir)) {
        error_ = tr("cannot create the folder %1 for the run's result").arg(workDir);
        return false;
    }
    resultPath_ = QDir(workDir).absoluteFilePath(resultPath);
    partPath_ = resultPath_ + QStringLiteral(".part");
    pending_.clear();
    log_.clear();
    cancelRequested_ = sawFinal_ = lastComplete_ = false;
    std::vector<std::string> argv{inv.program.toStdString()};
    for (const QString& a : inv.arguments) argv.push_back(a.toStdString());
    programLine_ = QString::fromStdString(rbm::shell_command_line(argv));

    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (::geteuid() == 0) {  // Open MPI refuses root unless told (containers, CI)
        env.insert(QStringLiteral("OMPI_ALLOW_RUN_AS_ROOT"), QStringLiteral("1"));
        env.insert(QStringLiteral("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"), QStringLiteral("1"));
    }
    process_->setProcessEnvironment(env);
    process_->setWorkingDirectory(workDir);
    process_->setStandardOutputFile(partPath_, QIODevice::Truncate);
    process_->start(inv.program, inv.arguments);
    return true;
}

void RemoteRun::cancel() {
    if (!running()) return;
    if (!cancelRequested_) {
        cancelRequested_ = true;
        ::kill(static_cast<pid_t>(process_->processId()), SIGINT);
    } else {
        process_->kill();
    }
}

void RemoteRun::readStderr(bool flush) {
    pending_ += process_->readAllStandardError();
    qsizetype at;
    while ((at = pending_.indexOf('\n')) >= 0) {
        handleLine(pending_.left(at));
        pending_.remove(0, at + 1);
    }
    if (flush && !pending_.isEmpty()) {
        handleLine(pending_);
        pending_.clear();
    }
}

void RemoteRun::handleLine(const QByteArray& raw) {
    const QByteArray line = raw.trimmed();
    if (line.isEmpty()) return;
    if (line.startsWith('{')) {
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(line, &err);
        if (err.error == QJsonParseError::NoError && doc.isObject() &&
            doc.object().contains(QLatin1String("fraction"))) {
            const QJsonObject o = doc.object();
            RemoteProgress p;
            p.phase = o.value(QLatin1String("phase")).toString();
            p.fraction = o.value(QLatin1String("fraction")).toDouble();
            p.elapsedS = o.value(QLatin1String("elapsed_s")).toDouble();
            p.etaS = o.value(QLatin1String("eta_s")).toDouble(-1);
            p.chainSweepsPerS = o.value(QLatin1String("chain_sweeps_per_s")).toDouble(-1);
            p.final = o.value(QLatin1String("final")).toBool();
            p.line = o;
            if (p.final) {
                sawFinal_ = true;
                lastComplete_ = o.value(QLatin1String("complete")).toBool();
            }
            if (o.value(QLatin1String("point")).isObject()) Q_EMIT point(o.value(QLatin1String("point")).toObject());
            Q_EMIT progress(p);
            return;
        }
    }
    const QString text = QString::fromUtf8(line);
    log_ << text;
    if (log_.size() > kMaxLogLines) log_.removeFirst();
    Q_EMIT logLine(text);
}

void RemoteRun::onError(QProcess::ProcessError e) {
    if (e != QProcess::FailedToStart) return;  // the others end in finished()
    RemoteOutcome out;
    out.message = tr("cannot start '%1': %2").arg(process_->program(), process_->errorString());
    if (process_->program() == QLatin1String("mpirun") || process_->program() == QLatin1String("mpiexec"))
        out.message += tr(" (Open MPI's launcher comes with the Debian package openmpi-bin)");
    QFile::remove(partPath_);
    Q_EMIT finished(out);
}

void RemoteRun::onFinished(int exitCode, QProcess::ExitStatus status) {
    readStderr(true);
    Q_EMIT finished(collectResult(exitCode, status));
}

RemoteOutcome RemoteRun::collectResult(int exitCode, QProcess::ExitStatus status) {
    RemoteOutcome out;
    out.exitCode = status == QProcess::NormalExit ? exitCode : -1;
    // The result: whatever JSON object the command printed, complete or not.
    QFile part(partPath_);
    QJsonObject result;
    bool haveResult = false;
    if (part.open(QIODevice::ReadOnly)) {
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(part.readAll(), &err);
        part.close();
        haveResult = err.error == QJsonParseError::NoError && doc.isObject() && !doc.object().isEmpty();
        if (haveResult) result = doc.object();
    }
    if (haveResult) {
        QFile::remove(resultPath_);
        if (!QFile::rename(partPath_, resultPath_)) {
            out.message = tr("cannot write the result %1").arg(resultPath_);
            return out;
        }
        out.resultPath = resultPath_;
        const bool cancelled = result.value(QLatin1String("complete")) == QJsonValue(false) ||
                               result.value(QLatin1String("status")) == QJsonValue(QStringLiteral("cancelled"));
        out.complete = !cancelled;
        if (!out.complete && !cancelRequested_)
            out.message = tr("the run stopped before the end (exit code %1); its partial result is kept").arg(exitCode);
        else if (out.complete && out.exitCode != 0 && !cancelRequested_)
            out.message = tr("the launcher exited with code %1 after the result was written:\n%2")
                              .arg(exitCode)
                              .arg(tail(log_, 5));
    } else {
        QFile::remove(partPath_);
        out.message = status == QProcess::CrashExit ? tr("the launcher crashed")
                                                    : tr("the command printed no result (exit code %1)").arg(exitCode);
        if (!log_.isEmpty()) out.message += QStringLiteral(":\n") + tail(log_, 8);
    }
    return out;
}

}  // namespace rbmscope
