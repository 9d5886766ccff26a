// Quitting: closing the app while a path's target moments are being estimated by Gibbs
// chains (minutes on a 784 x 500 GRBM) returns within a second; an autosave that cannot be
// written is told to the user (at start and on quit); SIGTERM and SIGHUP to the real `rbmscope`
// save the session and exit 0; `rbmscope --help` and `--version` need no display.
#include <sys/types.h>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>

#include "core/io/model_io.hpp"
#include "core/io/presets.hpp"
#include "core/io/session_io.hpp"
#include "core/random/rng.hpp"
#include "main_window/main_window.hpp"
#include "window_views.hpp"

using rbmscope::MainWindow;

namespace {

QString statusText(MainWindow& w) {
    QString all;
    for (QLabel* l : w.statusBar()->findChildren<QLabel*>()) all += l->text() + QLatin1Char('\n');
    return all;
}

// True once process `pid` catches signal `sig` (its handler is installed): SigCgt in /proc.
bool catchesSignal(qint64 pid, int sig) {
    QFile f(QStringLiteral("/proc/%1/status").arg(pid));
    if (!f.open(QIODevice::ReadOnly)) return false;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (line.startsWith("SigCgt:")) {
            bool ok = false;
            const qulonglong mask = line.mid(7).trimmed().toULongLong(&ok, 16);
            return ok && (mask >> (sig - 1)) & 1u;
        }
    return false;
}

// Restores an environment variable when it goes.
struct EnvGuard {
    QByteArray name, old;
    bool had;
    EnvGuard(const char* n, const QByteArray& value) : name(n), old(qgetenv(n)), had(qEnvironmentVariableIsSet(n)) {
        qputenv(n, value);
    }
    ~EnvGuard() {
        if (had) qputenv(name.constData(), old);
        else qunsetenv(name.constData());
    }
};

}  // namespace

class TestQuit : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(config_.isValid());
        qputenv("RBMSCOPE_CONFIG_DIR", config_.path().toUtf8());
    }

    // 784 x 500 GRBM: 2^500 hidden configurations, so the moment base estimates the target's
    // moments by 100 Gibbs chains x 5100 sweeps (87 s in the issue). The window goes once the
    // estimation has reported from inside its sweep loop.
    void quitDuringTargetMomentEstimation() {
        rbm::Grbm g;
        g.W = rbm::Mat(784, 500);
        rbm::ChainRngs rngs(3, 1, rbm::StreamPurpose::Misc);
        for (rbm::Index k = 0; k < g.W.size(); ++k) g.W.data()[k] = 0.01 * rngs[0].normal();
        g.b = rbm::Vec::Zero(784);
        g.c = rbm::Vec::Zero(500);
        g.sigma = rbm::Vec::Ones(784);
        g.hidden_values = {0.0, 1.0};
        rbm::Model m;
        m.params = g;
        m.name = "784 x 500";
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("big.npz"));
        rbm::save_model(m, path.toStdString());

        auto* w = new MainWindow;
        w->setInteractive(false);
        w->setAutosave(false);
        QSignalSpy progress(w, &MainWindow::pathProgress);
        QVERIFY(w->loadFile(path));
        QVERIFY(progress.wait(120000));  // posted by gibbs_moments' progress hook, i.e. inside the estimation
        QVERIFY2(progress.last().at(0).toString().contains(QStringLiteral("Gibbs")),
                 qPrintable(progress.last().at(0).toString()));
        QVERIFY(w->jobs()->isRunning(QStringLiteral("paths")));
        QVERIFY(!lanesReadyOf(*w));
        QElapsedTimer clock;
        clock.start();
        delete w;  // ~MainWindow cancels every job and waits for the workers
        const qint64 ms = clock.elapsed();
        qInfo("the window went %lld ms after the quit, during the Gibbs moment estimation", ms);
        QVERIFY2(ms < 1000, qPrintable(QString::number(ms)));
    }

    // The config folder cannot be made (its parent is a regular file: chmod does nothing for root).
    void unwritableConfigFolderIsReported() {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("not-a-folder"));
        {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
        }
        EnvGuard env("RBMSCOPE_CONFIG_DIR", (file + QStringLiteral("/rbmscope")).toUtf8());
        QVERIFY(MainWindow::autosaveLocationProblem().contains(QStringLiteral("cannot create the folder")));
        {
            MainWindow w;
            w.setInteractive(false);
            QVERIFY(w.loadPreset(QStringLiteral("four-mode")));
            QSignalSpy problems(&w, &MainWindow::sessionProblem);
            w.checkAutosaveLocation();  // at start
            QCOMPARE(problems.count(), 1);
            QVERIFY2(statusText(w).contains(QStringLiteral("will not be saved")), qPrintable(statusText(w)));
            QVERIFY(w.sessionMessage().contains(file));
            QSignalSpy failed(&w, &MainWindow::autosaveFailed);
            w.show();
            QVERIFY(w.close());  // not interactive: told on stderr and the status bar, and quits
            QCOMPARE(failed.count(), 1);
            QVERIFY2(failed.first().at(0).toString().contains(QStringLiteral("was not saved")),
                     qPrintable(failed.first().at(0).toString()));
        }
        // Interactive: the first close stays open with a non-modal message; the second quits.
        MainWindow w;
        w.setInteractive(true);
        QVERIFY(w.loadPreset(QStringLiteral("four-mode")));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(!w.close());
        QVERIFY(w.isVisible());
        auto* box = w.findChild<QMessageBox*>();
        QVERIFY(box && box->isVisible() && !box->isModal());
        QVERIFY2(box->text().contains(QStringLiteral("close the window again")), qPrintable(box->text()));
        QVERIFY(w.close());
        QVERIFY(!w.isVisible());
        // A writable folder has no problem.
        EnvGuard ok("RBMSCOPE_CONFIG_DIR", dir.filePath(QStringLiteral("fine")).toUtf8());
        QVERIFY(MainWindow::autosaveLocationProblem().isEmpty());
    }

    void terminationSignalSavesTheSession_data() {
        QTest::addColumn<int>("sig");
        QTest::newRow("SIGTERM") << int(SIGTERM);
        QTest::newRow("SIGHUP") << int(SIGHUP);
    }
    void terminationSignalSavesTheSession() {
        QFETCH(int, sig);
        QTemporaryDir dir;
        const QString config = dir.filePath(QStringLiteral("config"));
        const QString sessionPath = dir.filePath(QStringLiteral("session.json"));
        rbm::Session s;
        s.model = rbm::load_preset("four-mode");
        s.preset = "four-mode";
        s.settings["chains"] = rbm::SessionValue::scalar(std::int64_t{37});
        s.view = "annealing";
        rbm::save_session(s, sessionPath.toStdString());

        QProcess app;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("RBMSCOPE_CONFIG_DIR"), config);
        app.setProcessEnvironment(env);
        app.start(QStringLiteral(RBMSCOPE_GUI_BINARY), {QStringLiteral("--session"), sessionPath});
        QVERIFY(app.waitForStarted());
        // The handler is installed (the process catches the signal): from then on the signal is
        // queued for the event loop, whatever the app is doing.
        QTRY_VERIFY_WITH_TIMEOUT(catchesSignal(app.processId(), sig), 60000);
        QVERIFY(::kill(static_cast<pid_t>(app.processId()), sig) == 0);
        QVERIFY(app.waitForFinished(60000));
        const QString err = QString::fromLocal8Bit(app.readAllStandardError());
        QCOMPARE(app.exitStatus(), QProcess::NormalExit);
        QVERIFY2(app.exitCode() == 0, qPrintable(err));
        QVERIFY2(err.contains(QStringLiteral("saving the session and quitting")), qPrintable(err));
        const rbm::Session saved = rbm::load_session((config + QStringLiteral("/last-session.json")).toStdString());
        QCOMPARE(QString::fromStdString(saved.view), QStringLiteral("annealing"));
        QCOMPARE(QString::fromStdString(saved.preset), QStringLiteral("four-mode"));
        QVERIFY(saved.settings.count("chains") == 1);
        QVERIFY(saved.settings.at("chains") == rbm::SessionValue::scalar(std::int64_t{37}));
    }

    // `rbmscope --help` and `--version` answer with no display at all (over SSH): no platform
    // plugin is loaded, where the default xcb one would abort.
    void helpAndVersionWithoutADisplay() {
        for (const QString& option : {QStringLiteral("--version"), QStringLiteral("--help")}) {
            QProcess app;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            for (const char* name : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"})
                env.remove(QString::fromLatin1(name));
            app.setProcessEnvironment(env);
            app.start(QStringLiteral(RBMSCOPE_GUI_BINARY), {option});
            QVERIFY(app.waitForFinished(30000));
            const QString out = QString::fromLocal8Bit(app.readAllStandardOutput());
            const QString err = QString::fromLocal8Bit(app.readAllStandardError());
            QCOMPARE(app.exitStatus(), QProcess::NormalExit);
            QVERIFY2(app.exitCode() == 0, qPrintable(option + QLatin1String(": ") + err));
            if (option == QLatin1String("--version")) {
                QVERIFY2(out.startsWith(QStringLiteral("rbmscope 0.")), qPrintable(out));
                for (const char* part : {"(commit ", "built with ", "SIMD paths built: ", "selected: "})
                    QVERIFY2(out.contains(QLatin1String(part)), qPrintable(out));
            } else {
                QVERIFY2(out.contains(QStringLiteral("--preset")) && out.contains(QStringLiteral("--version")),
                         qPrintable(out));
            }
        }
    }

private:
    QTemporaryDir config_;
};

QTEST_MAIN(TestQuit)
#include "tst_quit.moc"
