#pragma once
// A run of rbmscope-cli in another process, usually under an MPI launcher (Run → Run with MPI…):
// `mpirun -np 4 rbmscope-cli ais-sweep MODEL … --progress jsonl`, or `srun -n 64 …`,
// or no launcher at all. The CLI's stdout (its one JSON result) goes to a file; its stderr is read
// line by line: the JSON progress lines (app/cli/progress.hpp: phase, fraction, eta_s,
// chain_sweeps_per_s, and ais-sweep's finished runs as {"point": …}) become signals, anything else
// is a log line. Cancel sends SIGINT, as Ctrl-C in a terminal would: the CLI (every rank, through
// mpirun) stops and prints what it has with "complete": false, so a cancelled run still has a
// result. The result file is written under a temporary name and renamed when the process ends, so
// a half-written file never carries the final name.
#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace rbmscope {

struct RemoteProgress {
    QString phase;        // "moments", "annealing", "sweep", "tempering", "training", …
    double fraction = 0;  // of the whole command, 0..1
    double elapsedS = 0;
    double etaS = -1;  // -1: not known yet
    double chainSweepsPerS = -1;
    bool final = false;  // the command's last line
    QJsonObject line;    // everything the line had (beta, step, round, …)
};

struct RemoteOutcome {
    QString resultPath;  // the JSON result, "" when the command printed none
    bool complete = false;
    int exitCode = -1;  // of the launcher (mpirun exits 1 after a Ctrl-C even though rank 0 printed)
    QString message;    // "" on success; else what went wrong, with the last log lines
};

class RemoteRun : public QObject {
    Q_OBJECT
public:
    explicit RemoteRun(QObject* parent = nullptr);
    ~RemoteRun() override;  // a run still going is cancelled (SIGINT), then killed after kQuitGraceMs

    // rbmscope-cli for this installation: $RBMSCOPE_CLI, else next to the app (installed side by
    // side, or the build tree's app/cli/), else on PATH; "" when none is found.
    static QString cliPath();
    // Splits a launcher line ("mpirun -np 4", "srun -n 64 --mpi=pmix", "" for none) and a command
    // line ("rbmscope-cli ais preset:four-mode --chains 1000"; a first word "rbmscope-cli" is
    // replaced by cliPath()) into program and arguments; "--progress jsonl" is added when the
    // command has no --progress. Empty program and `error` set when the lines are unusable.
    struct Invocation {
        QString program;
        QStringList arguments;
        QString error;
    };
    static Invocation invocation(const QString& launcher, const QString& command);

    // Starts the run in `workDir`, writing the result to `resultPath`. False (and failed() is not
    // emitted) when a run is already going or the lines are unusable; `error()` says why.
    bool start(const QString& launcher, const QString& command, const QString& workDir, const QString& resultPath);
    bool running() const;
    QString error() const { return error_; }
    QString programLine() const { return programLine_; }  // what was started, quoted as a shell would
    // SIGINT to the launcher (mpirun forwards it to every rank as SIGTERM, which the CLI treats as
    // Ctrl-C); a second cancel() kills the launcher.
    void cancel();
    bool cancelling() const { return cancelRequested_; }
    QStringList log() const { return log_; }  // the last kMaxLogLines lines that were not progress
    static constexpr int kMaxLogLines = 200;
    static constexpr int kQuitGraceMs = 5000;

Q_SIGNALS:
    void progress(const rbmscope::RemoteProgress& p);
    void point(
        const QJsonObject& point);  // ais-sweep: one finished run (method, k, repeat, log_z, ci95_low, ci95_high, ess)
    void logLine(const QString& line);
    void finished(const rbmscope::RemoteOutcome& outcome);

private:
    void readStderr(bool flush);
    void handleLine(const QByteArray& line);
    void onFinished(int exitCode, QProcess::ExitStatus status);
    // The result file (renamed from its temporary name when the process printed a JSON object).
    RemoteOutcome collectResult(int exitCode, QProcess::ExitStatus status);
    void onError(QProcess::ProcessError e);

    QProcess* process_ = nullptr;
    QByteArray pending_;
    QStringList log_;
    QString error_, programLine_, resultPath_, partPath_;
    bool cancelRequested_ = false;
    bool lastComplete_ = false, sawFinal_ = false;
};

}  // namespace rbmscope

Q_DECLARE_METATYPE(rbmscope::RemoteProgress)
Q_DECLARE_METATYPE(rbmscope::RemoteOutcome)
