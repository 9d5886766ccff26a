// Run → Run with MPI…: the dialog starts rbmscope-cli under a launcher (or none),
// follows its JSON progress lines, and the result opens in its view with the numbers a direct
// single-process CLI run prints. The mpirun cases need RBMSCOPE_TEST_MPIEXEC (set by ctest when
// the build found MPI) and are skipped by name otherwise.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <cstring>

#include "cli_process.hpp"
#include "jobs/remote_run.hpp"
#include "main_window/remote_run_dialog.hpp"
#include "test_window.hpp"

using namespace rbmscope;

namespace {

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// The same command run directly (one process, no launcher): its JSON.
QJsonObject direct(const QString& dir, const QStringList& args) {
    QProcess p;
    p.setWorkingDirectory(dir);
    p.start(RemoteRun::cliPath(), args);
    if (!p.waitForFinished(120000) || p.exitCode() != 0) return {};
    return QJsonDocument::fromJson(p.readAllStandardOutput()).object();
}

const QStringList kSweep = {QStringLiteral("ais-sweep"), QStringLiteral("preset:four-mode"),
                            QStringLiteral("--methods"), QStringLiteral("cov,geometric"),
                            QStringLiteral("--steps"),   QStringLiteral("20,50"),
                            QStringLiteral("--chains"),  QStringLiteral("240"),
                            QStringLiteral("--repeats"), QStringLiteral("2"),
                            QStringLiteral("--seed"),    QStringLiteral("7")};

// The sweep rows' estimates, bit for bit.
void compareRows(const QJsonObject& a, const QJsonObject& b) {
    const QJsonArray ra = a[QStringLiteral("results")].toArray(), rb = b[QStringLiteral("results")].toArray();
    QCOMPARE(ra.size(), qsizetype(4));
    QCOMPARE(ra.size(), rb.size());
    for (int i = 0; i < ra.size(); ++i)
        for (const char* key : {"log_z_mean", "ci95_low_mean", "ci95_high_mean", "ess_mean"})
            QVERIFY2(sameBits(ra[i].toObject()[QLatin1String(key)].toDouble(),
                              rb[i].toObject()[QLatin1String(key)].toDouble()),
                     key);
}

}  // namespace

class TestRemoteRun : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        qputenv("RBMSCOPE_RUNS_DIR", dir_.path().toUtf8());
        qputenv("RBMSCOPE_TEST_SEED", "17");
        QVERIFY2(!RemoteRun::cliPath().isEmpty(), "rbmscope-cli not found (RBMSCOPE_CLI is set by ctest)");
    }

    void invocation_data() {
        QTest::addColumn<QString>("launcher");
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("program");        // "cli" = RemoteRun::cliPath()
        QTest::addColumn<QStringList>("arguments");  // "cli" likewise
        QTest::addColumn<bool>("ok");
        const QString cli = QStringLiteral("cli");
        QTest::newRow("mpirun") << "mpirun -np 4"
                                << "rbmscope-cli ais preset:four-mode --chains 10"
                                << "mpirun" << QStringList{"-np",      "4",  cli,          "ais",  "preset:four-mode",
                                                           "--chains", "10", "--progress", "jsonl"}
                                << true;
        QTest::newRow("no launcher") << ""
                                     << "rbmscope-cli pt preset:four-mode" << cli
                                     << QStringList{"pt", "preset:four-mode", "--progress", "jsonl"} << true;
        QTest::newRow("srun, quoted path")
            << "srun -n 64 --mpi=pmix"
            << "'/opt/my tools/rbmscope-cli' ais m.json --progress jsonl"
            << "srun" << QStringList{"-n",  "64",     "--mpi=pmix", "/opt/my tools/rbmscope-cli",
                                     "ais", "m.json", "--progress", "jsonl"}
            << true;
        QTest::newRow("double quotes, variable")
            << ""
            << "rbmscope-cli ais \"my model.json\" --seed $RBMSCOPE_TEST_SEED" << cli
            << QStringList{"ais", "my model.json", "--seed", "17", "--progress", "jsonl"} << true;
        QTest::newRow("no command") << "mpirun -np 2"
                                    << "   "
                                    << "" << QStringList{} << false;
        QTest::newRow("command substitution") << ""
                                              << "rbmscope-cli ais $(rm -rf x)"
                                              << "" << QStringList{} << false;
        QTest::newRow("unbalanced quote") << "mpirun -np '2"
                                          << "rbmscope-cli ais m.json"
                                          << "" << QStringList{} << false;
        QTest::newRow("pipe") << ""
                              << "rbmscope-cli ais m.json | tee x"
                              << "" << QStringList{} << false;
    }
    void invocation() {
        QFETCH(QString, launcher);
        QFETCH(QString, command);
        QFETCH(QString, program);
        QFETCH(QStringList, arguments);
        QFETCH(bool, ok);
        const RemoteRun::Invocation inv = RemoteRun::invocation(launcher, command);
        QCOMPARE(inv.error.isEmpty(), ok);
        if (!ok) return;
        const QString cli = RemoteRun::cliPath();
        QCOMPARE(inv.program, program == QLatin1String("cli") ? cli : program);
        for (QString& a : arguments)
            if (a == QLatin1String("cli")) a = cli;
        QCOMPARE(inv.arguments, arguments);
    }

    // The menu item (Ctrl+Shift+M) opens the dialog with the current view's command; Esc with
    // nothing running closes it.
    void keyboardOpensAndEscCloses() {
        auto w = testWindow();
        QVERIFY(w->loadPreset(QStringLiteral("four-mode")));
        QVERIFY(w->setCurrentView(QStringLiteral("estimates")));
        QVERIFY(w->action(QStringLiteral("remoteRun")));
        QCOMPARE(w->action(QStringLiteral("remoteRun"))->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M));
        w->action(QStringLiteral("remoteRun"))->trigger();
        RemoteRunDialog* d = w->remoteRunDialog();
        QVERIFY(d && d->isVisible());
        QVERIFY2(d->command().startsWith(QStringLiteral("rbmscope-cli ais-sweep preset:four-mode ")),
                 qPrintable(d->command()));
        QTest::keyClick(d, Qt::Key_Escape);
        QVERIFY(!d->isVisible());
        // The Annealing view's command is ais with its first method.
        QVERIFY(w->setCurrentView(QStringLiteral("annealing")));
        QCOMPARE(w->openRemoteRun(), d);
        QVERIFY2(d->command().startsWith(QStringLiteral("rbmscope-cli ais preset:four-mode --path ")),
                 qPrintable(d->command()));
        // The Tempering view's is pt with the view's controls.
        QVERIFY(w->setCurrentView(QStringLiteral("tempering")));
        TemperingSettings ts = temperingViewOf(*w)->settings();
        ts.replicas = 5;
        temperingViewOf(*w)->setSettings(ts);
        QCOMPARE(w->openRemoteRun(), d);
        QVERIFY2(d->command().startsWith(QStringLiteral("rbmscope-cli pt preset:four-mode ")),
                 qPrintable(d->command()));
        QVERIFY2(d->command().contains(QStringLiteral(" --replicas 5")), qPrintable(d->command()));
        // The Training view's is train with the view's data and options, writing the model beside the result.
        QVERIFY(w->setCurrentView(QStringLiteral("training")));
        QCOMPARE(w->openRemoteRun(), d);
        QVERIFY2(d->command().startsWith(QStringLiteral("rbmscope-cli train --data ")), qPrintable(d->command()));
        QVERIFY2(d->command().contains(QStringLiteral(".trained.json")), qPrintable(d->command()));
    }

    // No launcher: the sweep runs as one process; every finished run is shown live, and the
    // result opens in Estimates with the numbers the CLI prints when run directly.
    void oneProcessSweepOpensInEstimates() {
        auto w = testWindow();
        QVERIFY(w->loadPreset(QStringLiteral("four-mode")));
        RemoteRunDialog* d = w->openRemoteRun();
        d->setLauncher(QString());
        d->setCommand(QStringLiteral("rbmscope-cli ") + kSweep.join(QLatin1Char(' ')));
        QSignalSpy ready(d, &RemoteRunDialog::resultReady);
        QSignalSpy progress(d->run(), &RemoteRun::progress);
        QVERIFY(d->startRun());
        QVERIFY(ready.wait(120000));
        QCOMPARE(ready.at(0).at(1).toBool(), true);
        QCOMPARE(d->pointCount(), 8);  // 2 methods x 2 K x 2 repeats, each as it finished
        QVERIFY(!progress.isEmpty());
        QVERIFY(progress.last().at(0).value<RemoteProgress>().final);
        const QString path = ready.at(0).at(0).toString();
        QVERIFY(path.startsWith(dir_.path()));
        QVERIFY(!QFile::exists(path + QStringLiteral(".part")));
        compareRows(readJson(path), direct(dir_.path(), kSweep));
        QCOMPARE(w->currentView(), QStringLiteral("estimates"));
        QVERIFY(w->resultBanner().contains(QFileInfo(path).fileName()));
        QDir().mkpath(QStringLiteral(RBMSCOPE_TEST_SCREENSHOT_DIR));
        d->grab().save(QStringLiteral(RBMSCOPE_TEST_SCREENSHOT_DIR "/remote-run-dialog.png"));
        w->grab().save(QStringLiteral(RBMSCOPE_TEST_SCREENSHOT_DIR "/remote-run-window.png"));
        QCOMPARE(sweepJobOf(*w)->points().size(), std::size_t(4));
        const QJsonArray rows = readJson(path)[QStringLiteral("results")].toArray();
        for (int i = 0; i < rows.size(); ++i)
            QVERIFY(sameBits(sweepJobOf(*w)->points()[static_cast<std::size_t>(i)].estimate.log_z,
                             rows[i].toObject()[QStringLiteral("log_z_mean")].toDouble()));
    }

    // Under mpirun with 3 ranks: the same numbers as one process, and one progress stream (rank
    // 0's): 8 finished runs reported, not 24.
    void mpirunSweepGivesTheSameNumbers() {
        const QString mpiexec = qEnvironmentVariable("RBMSCOPE_TEST_MPIEXEC");
        if (mpiexec.isEmpty()) QSKIP("built without MPI (RBMSCOPE_TEST_MPIEXEC unset)");
        auto w = testWindow();
        QVERIFY(w->loadPreset(QStringLiteral("four-mode")));
        RemoteRunDialog* d = w->openRemoteRun();
        d->setLauncher(mpiexec + QStringLiteral(" --oversubscribe -np 3"));
        d->setCommand(QStringLiteral("rbmscope-cli ") + kSweep.join(QLatin1Char(' ')) + QStringLiteral(" --threads 1"));
        QSignalSpy ready(d, &RemoteRunDialog::resultReady);
        QVERIFY(d->startRun());
        QVERIFY(ready.wait(180000));
        QCOMPARE(ready.at(0).at(1).toBool(), true);
        QCOMPARE(d->pointCount(), 8);
        compareRows(readJson(ready.at(0).at(0).toString()), direct(dir_.path(), kSweep));
        QCOMPARE(w->currentView(), QStringLiteral("estimates"));
    }

    // Esc while a run goes cancels it (SIGINT): the partial result is written and opened.
    void escCancelsAndKeepsThePartialResult_data() {
        QTest::addColumn<bool>("mpi");
        QTest::newRow("one process") << false;
        QTest::newRow("mpirun -np 2") << true;
    }
    void escCancelsAndKeepsThePartialResult() {
        QFETCH(bool, mpi);
        const QString mpiexec = qEnvironmentVariable("RBMSCOPE_TEST_MPIEXEC");
        if (mpi && mpiexec.isEmpty()) QSKIP("built without MPI (RBMSCOPE_TEST_MPIEXEC unset)");
        auto w = testWindow();
        QVERIFY(w->loadPreset(QStringLiteral("four-mode")));
        RemoteRunDialog* d = w->openRemoteRun();
        d->setLauncher(mpi ? mpiexec + QStringLiteral(" --oversubscribe -np 2") : QString());
        d->setCommand(QStringLiteral(
            "rbmscope-cli ais preset:four-mode --path cov --chains 400 --steps 100000000 --seed 2 --threads 1"));
        QSignalSpy ready(d, &RemoteRunDialog::resultReady);
        QSignalSpy progress(d->run(), &RemoteRun::progress);
        QVERIFY(d->startRun());
        // By construction, not by time: cancel once the annealing is reported under way.
        bool annealing = false;
        QElapsedTimer t;
        t.start();
        while (!annealing && t.elapsed() < 120000) {
            progress.wait(500);
            for (const auto& args : progress)
                annealing = annealing || args.at(0).value<RemoteProgress>().phase == QLatin1String("annealing");
        }
        QVERIFY(annealing);
        QTest::keyClick(d, Qt::Key_Escape);
        QVERIFY(d->isVisible());  // Esc cancelled the run; it did not close the dialog
        QVERIFY(ready.wait(60000));
        QCOMPARE(ready.at(0).at(1).toBool(), false);
        const QJsonObject r = readJson(ready.at(0).at(0).toString());
        QCOMPARE(r[QStringLiteral("complete")].toBool(true), false);
        QVERIFY(r[QStringLiteral("beta_reached")].toDouble() > 0);
        QVERIFY(r[QStringLiteral("beta_reached")].toDouble() < 1);
        QVERIFY(d->statusText().startsWith(QStringLiteral("Stopped; partial result")));
    }

    // A launcher that does not exist, and a command that fails: a message, no result, no crash.
    void failuresAreReported() {
        auto w = testWindow();
        QVERIFY(w->loadPreset(QStringLiteral("four-mode")));
        RemoteRunDialog* d = w->openRemoteRun();
        QSignalSpy finished(d->run(), &RemoteRun::finished);
        QSignalSpy ready(d, &RemoteRunDialog::resultReady);
        d->setLauncher(QStringLiteral("no-such-launcher-rbmscope -np 2"));
        d->setCommand(QStringLiteral("rbmscope-cli ais preset:four-mode"));
        QVERIFY(d->startRun());
        QVERIFY(finished.wait(30000));
        QVERIFY2(d->statusText().contains(QStringLiteral("cannot start 'no-such-launcher-rbmscope'")),
                 qPrintable(d->statusText()));
        d->setLauncher(QString());
        d->setCommand(QStringLiteral("rbmscope-cli ais preset:no-such-preset"));
        QVERIFY(d->startRun());
        QVERIFY(finished.wait(30000));
        QVERIFY2(d->statusText().contains(QStringLiteral("printed no result (exit code 2)")) &&
                     d->statusText().contains(QStringLiteral("no-such-preset")),
                 qPrintable(d->statusText()));
        QVERIFY(ready.isEmpty());
        QCOMPARE(QDir(dir_.path()).entryList({QStringLiteral("*.part")}, QDir::Files).size(), qsizetype(0));
    }
};

QTEST_MAIN(TestRemoteRun)
#include "tst_remote_run.moc"
