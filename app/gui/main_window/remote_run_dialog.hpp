#pragma once
// Run → Run with MPI…: runs the current view's computation as an rbmscope-cli command
// under a launcher (`mpirun -np 4`, `srun -n 64`, or none), follows it from its JSON progress
// lines (progress, ETA, speed, and each finished run of a sweep with its estimate), and hands the
// result file to the main window, which opens it in its view (Estimates, Tempering, …) as File →
// Open would. Non-modal: closing the dialog leaves the run going (Run with MPI… shows it again);
// Esc cancels a running run first (SIGINT: the ranks stop and print their partial result, which
// is opened too), and closes the dialog when nothing runs.
#include <QDialog>

#include "jobs/remote_run.hpp"

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace rbmscope {

class RemoteRunDialog : public QDialog {
    Q_OBJECT
public:
    explicit RemoteRunDialog(QWidget* parent = nullptr);

    // Where results go unless the user picks another folder: $RBMSCOPE_RUNS_DIR, else the app's
    // data folder + "/runs".
    static QString defaultFolder();
    // A launcher line for this machine: "mpirun -np <cores>" when mpirun is on PATH, else "".
    static QString defaultLauncher();

    void setCommand(const QString& command);  // the rbmscope-cli command line (editable)
    QString command() const;
    void setLauncher(const QString& launcher);
    QString launcher() const;
    void setFolder(const QString& folder);
    QString folder() const;

    bool startRun();   // Start: "" errors go to the status line; false when it did not start
    void cancelRun();  // Esc / Cancel run
    RemoteRun* run() const { return run_; }
    QString statusText() const;
    int pointCount() const;  // rows in the live table (ais-sweep's finished runs)

Q_SIGNALS:
    // The run ended with a result file (complete or, after Cancel, partial).
    void resultReady(const QString& path, bool complete);

protected:
    void reject() override;  // Esc / the window's close button

private:
    void onProgress(const RemoteProgress& p);
    void onPoint(const QJsonObject& point);
    void onFinished(const RemoteOutcome& out);
    void updateButtons();

    RemoteRun* run_;
    QLineEdit* launcher_;
    QLineEdit* command_;
    QLineEdit* folder_;
    QPushButton* start_;
    QPushButton* cancel_;
    QProgressBar* bar_;
    QLabel* status_;
    QTableWidget* points_;
    QPlainTextEdit* log_;
};

}  // namespace rbmscope
