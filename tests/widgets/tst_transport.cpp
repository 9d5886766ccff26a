// One transport for every view: in each view, F5 starts that view's job,
// Space pauses it (the unit counter read once the worker has acknowledged the pause is the
// counter 500 ms later: exact by construction, StepGate::holding) and resumes it, → and . advance
// exactly one unit, Esc cancels it keeping what was computed and shows it stopped at once (a Run
// right after it is not overtaken by the cancelled run's late hand-over), and the Run menu says so. Space
// typed in a number field neither changes the field nor restarts the run; a half-typed value
// never restarts it. Keys go through the real window's shortcuts (QTest sends the shortcut
// override first, as a key press from the window system does).
// The speed control holds every run at 1000 units per second, so no job ends on its own during
// a case, however fast the machine.
#include <time.h>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSettings>
#include <QStandardPaths>
#include <QtTest>
#include <cmath>
#include <functional>

#include "main_window/main_window.hpp"
#include "test_window.hpp"

using namespace rbmscope;

namespace {

constexpr int kStartMs = 60000;  // first units of a job (a loaded machine builds paths slowly)

// CPU time of the calling thread (the GUI thread's own work, whatever else the machine does).
double threadCpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

}  // namespace

class TestTransport : public QObject {
    Q_OBJECT

    void prepare(MainWindow& w, const QString& view) {
        w.setInteractive(false);
        w.setAutosave(false);
        w.resize(1280, 800);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QVERIFY(w.loadPreset(view == QLatin1String("samples") ? QStringLiteral("bars-and-stripes")
                                                              : QStringLiteral("four-mode")));
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kStartMs);
        makeRunsLong(w, kStartMs);
        if (QTest::currentTestFailed()) return;
        QVERIFY(w.setCurrentView(view));
        w.centralWidget()->setFocus();
    }

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }  // QSettings (presenter scale) in a test location

    void keysDriveTheCurrentViewsJob_data() {
        QTest::addColumn<QString>("view");
        QTest::addColumn<QString>("unit");
        for (const char* v : {"annealing", "compare", "estimates", "tempering", "samples", "training"}) {
            const QString name = QString::fromLatin1(v);
            const QString unit = name == "tempering"  ? "PT scan"
                                 : name == "samples"  ? "sampling sweep"
                                 : name == "training" ? "training update"
                                                      : "annealing step";
            QTest::newRow(v) << name << unit;
        }
    }

    void keysDriveTheCurrentViewsJob() {
        QFETCH(QString, view);
        QFETCH(QString, unit);
        MainWindow w;
        prepare(w, view);
        if (QTest::currentTestFailed()) return;
        Transport* t = w.transport();
        QVERIFY(t);
        QCOMPARE(t->unitName(), unit);
        // Opening the preset ran AIS once ("Run again whenever something changes" is on by default).
        const bool ais = view == QLatin1String("annealing") || view == QLatin1String("compare");
        QCOMPARE(t->state(), ais ? Transport::State::Finished : Transport::State::Idle);
        QVERIFY(w.action("run")->isEnabled());
        QVERIFY(!w.action("cancel")->isEnabled());

        // F5 starts this view's job (and no other).
        press(w, Qt::Key_F5);
        QTRY_VERIFY_WITH_TIMEOUT(t->units() > 3, kStartMs);
        QCOMPARE(t->state(), Transport::State::Running);
        QVERIFY2(w.action("cancel")->isEnabled(), "Run → Cancel is enabled while the job runs");
        for (const QString& other :
             {QStringLiteral("tempering"), QStringLiteral("samples"), QStringLiteral("annealing")})
            if (w.transport(other) != t) QVERIFY2(!w.transport(other)->active(), qPrintable(other + " must not run"));

        // Space pauses: once the worker holds, the counter does not move.
        press(w, Qt::Key_Space);
        QTRY_COMPARE_WITH_TIMEOUT(t->state(), Transport::State::Paused, 10000);
        QVERIFY(w.action("pause")->isChecked());
        const long long held = t->units();
        QTest::qWait(500);
        QCOMPARE(t->units(), held);
        QCOMPARE(t->state(), Transport::State::Paused);

        // Step (→, then .) advances exactly one unit each, and holds again. The Tempering view's unit
        // is the next recorded scan of its run (its engine computes on at full speed; the transport
        // drives what is shown, and a long run's recording keeps every stride-th scan).
        const bool pt = view == QLatin1String("tempering");
        const auto oneUnitOn = [&](long long from) {
            if (!pt) return t->units() == from + 1;
            const TemperingFrame* f = temperingViewOf(w)->displayedFrame();
            return t->units() > from && f && f->scansDone == t->units() &&
                   t->units() - from <= temperingViewOf(w)->liveRecording()->stride();
        };
        press(w, Qt::Key_Right);
        QTRY_VERIFY_WITH_TIMEOUT(oneUnitOn(held) && t->state() == Transport::State::Paused, 10000);
        const long long once = t->units();
        QTest::qWait(100);
        QCOMPARE(t->units(), once);
        press(w, Qt::Key_Period);
        QTRY_VERIFY_WITH_TIMEOUT(oneUnitOn(once) && t->state() == Transport::State::Paused, 10000);
        const long long twice = t->units();
        QTest::qWait(100);
        QCOMPARE(t->units(), twice);

        // Space resumes.
        press(w, Qt::Key_Space);
        QTRY_VERIFY_WITH_TIMEOUT(t->units() > held + 5, 10000);
        QVERIFY(!w.action("pause")->isChecked());

        // Esc: the window shows the end with no turn of the event loop in between (the transport
        // says Stopped, the Run menu and the transport bar follow, inside the key's handler), so
        // what it costs is only the GUI thread's work on the key: measured as that thread's CPU
        // time (what it does, not the machine's load) and held to the 100 ms, its wall
        // time reported. The worker then hands over what it computed (the partial result). The
        // speed limit (1000 units per second) makes the units it did after Esc a clock of the
        // worker: at most 100 of them means it stopped within about 100 ms whatever the load; the
        // wall time until its hand-over is reported and held to 2 s (a cancel that never reaches
        // the worker costs seconds). Before the AIS views' hand-over moved its schedule instead of
        // copying it, that took 130-140 ms here (the 10^6-step schedule), now ~5-10 ms.
        const long long atEsc = t->units();
        const double cpu0 = threadCpuMs();
        QElapsedTimer clock;
        clock.start();
        press(w, Qt::Key_Escape);
        const double shownMs = clock.nsecsElapsed() / 1e6, shownCpu = threadCpuMs() - cpu0;
        QCOMPARE(t->state(), Transport::State::Stopped);
        QVERIFY(!t->active());
        QVERIFY2(!w.action("cancel")->isEnabled(), "Run → Cancel is disabled as soon as Esc is handled");
        QVERIFY(w.findChild<QLabel*>(QStringLiteral("transportState"))->text().contains(QStringLiteral("stopped")));
        // Polled every millisecond (QTRY's 50 ms steps would round the figure up).
        while (t->jobActive() && clock.elapsed() < 10000) QCoreApplication::processEvents(QEventLoop::AllEvents, 1);
        QVERIFY(!t->jobActive());
        const double endMs = clock.nsecsElapsed() / 1e6;
        // Tempering: the units at Esc are the shown scans, the end is the engine's last computed one.
        const QString counted = pt ? QStringLiteral("%1 %2s shown at Esc, the engine's last computed %3")
                                         .arg(atEsc)
                                         .arg(unit)
                                         .arg(t->units())
                                   : QStringLiteral("cancelled after %1 %2s, %3 more after Esc")
                                         .arg(t->units())
                                         .arg(unit)
                                         .arg(t->units() - atEsc);
        qInfo(
            "%s: %s; Stopped shown %.2f ms after Esc (GUI thread CPU %.2f ms, bound 100 ms); the worker handed over "
            "after %.1f ms (bound 2000 ms)",
            qPrintable(view), qPrintable(counted), shownMs, shownCpu, endMs);
        QVERIFY2(shownCpu < 100, qPrintable(QString::number(shownCpu)));
        // (The Tempering view shows the last scan its engine computed, far ahead of the shown one.)
        if (!pt) QVERIFY2(t->units() - atEsc <= 100, qPrintable(QString::number(t->units() - atEsc)));
        QVERIFY2(endMs < 2000, qPrintable(QString::number(endMs)));
        QCOMPARE(t->state(), Transport::State::Stopped);
        QVERIFY(t->units() > held + 5);
        QTRY_VERIFY_WITH_TIMEOUT(!w.action("cancel")->isEnabled(), 1000);
        if (view == QLatin1String("annealing") || view == QLatin1String("compare")) {
            QTRY_VERIFY_WITH_TIMEOUT(!aisJobOf(w)->lanes().empty() && aisJobOf(w)->lanes().front().result, 10000);
            const auto& r = *aisJobOf(w)->lanes().front().result;
            QVERIFY(!r.complete);
            QVERIFY(r.steps_done > 0);
        } else if (view == QLatin1String("tempering")) {
            QVERIFY(temperingViewOf(w)->shownFrame() && temperingViewOf(w)->shownFrame()->scansDone > 0);
            QTRY_VERIFY_WITH_TIMEOUT(!temperingViewOf(w)->lastScanPending(), 2000);
            QCOMPARE(temperingViewOf(w)->displayedFrame()->scansDone, temperingViewOf(w)->liveRecording()->lastScan());
            QCOMPARE(t->units(), temperingViewOf(w)->liveRecording()->lastScan());
        } else if (view == QLatin1String("samples")) {
            QVERIFY(samplesViewOf(w)->shownFrame() && samplesViewOf(w)->shownFrame()->done > 0);
        } else if (view == QLatin1String("training")) {
            const auto ids = trainingViewOf(w)->session()->ids();
            QVERIFY(!ids.empty());
            const TrainingRun* r = trainingViewOf(w)->session()->run(ids.back());
            QVERIFY(r && r->snapshot && r->snapshot->updatesDone > 0);
        }

        // Step from a stopped job: a new run that holds after its first unit.
        press(w, Qt::Key_Period);
        QTRY_VERIFY_WITH_TIMEOUT(t->state() == Transport::State::Paused, kStartMs);
        if (pt) QVERIFY(oneUnitOn(0));  // scan 0, then the next recorded one
        else QCOMPARE(t->units(), 1LL);
        press(w, Qt::Key_Escape);
        QTRY_VERIFY_WITH_TIMEOUT(!t->active(), 10000);
    }

    // Esc then F5 before the cancelled worker has handed over: the new run is not disturbed by the
    // old one's end (its channel moved on a generation, so the late hand-over is dropped).
    void runRightAfterEscIsNotOvertaken_data() {
        QTest::addColumn<QString>("view");
        for (const char* v : {"annealing", "tempering", "samples"}) QTest::newRow(v) << QString::fromLatin1(v);
    }

    void runRightAfterEscIsNotOvertaken() {
        QFETCH(QString, view);
        MainWindow w;
        prepare(w, view);
        if (QTest::currentTestFailed()) return;
        Transport* t = w.transport();
        press(w, Qt::Key_F5);
        QTRY_VERIFY_WITH_TIMEOUT(t->units() > 3, kStartMs);
        press(w, Qt::Key_Escape);
        QCOMPARE(t->state(), Transport::State::Stopped);
        // The AIS worker has not handed over yet (nothing ran the event loop since Esc).
        if (view == QLatin1String("annealing")) QVERIFY(t->jobActive());
        press(w, Qt::Key_F5);
        QCOMPARE(t->state(), Transport::State::Running);
        QTRY_VERIFY_WITH_TIMEOUT(t->units() > 5, kStartMs);
        QTest::qWait(300);  // the old run's end has long arrived (and been dropped)
        QCOMPARE(t->state(), Transport::State::Running);
        QVERIFY(t->active());
        if (view == QLatin1String("annealing")) {
            QVERIFY(aisJobOf(w)->running());
            for (const LaneRun& l : aisJobOf(w)->lanes())
                QVERIFY2(!l.result, "the cancelled run's partial result landed in the new run");
        }
        press(w, Qt::Key_Escape);
        QTRY_VERIFY_WITH_TIMEOUT(!t->jobActive(), 10000);
    }

    void spaceInAFieldPausesAndNeverRestarts() {
        MainWindow w;
        prepare(w, QStringLiteral("annealing"));
        if (QTest::currentTestFailed()) return;
        RunSettings s = w.settings();
        s.autoRun = true;  // "Run again whenever something changes"
        w.applySettings(s);
        QTRY_VERIFY_WITH_TIMEOUT(aisJobOf(w)->running(), kStartMs);
        Transport* t = w.transport();
        QTRY_VERIFY_WITH_TIMEOUT(t->units() > 3, kStartMs);
        const auto run = aisJobOf(w)->runId();

        QLineEdit* field = w.panel()->field(QStringLiteral("chains"))->lineEdit();
        field->setFocus();
        QTRY_VERIFY(field->hasFocus());
        const QString before = field->text();
        QTest::keyClick(field, Qt::Key_Space);
        QCOMPARE(field->text(), before);
        QTRY_COMPARE_WITH_TIMEOUT(t->state(), Transport::State::Paused, 10000);  // Space paused
        QTest::keyClick(field, Qt::Key_Space);
        QTRY_COMPARE_WITH_TIMEOUT(t->state(), Transport::State::Running, 10000);  // and resumed
        QCOMPARE(field->text(), before);

        // A half-typed value does not restart the run, however long it sits there.
        field->end(false);
        QTest::keyClick(field, Qt::Key_0);
        QTest::qWait(800);  // over three times the auto-run delay
        QCOMPARE(aisJobOf(w)->runId(), run);
        QVERIFY(aisJobOf(w)->running());
        // Enter commits it: now the run restarts with it, and the focus is back on the view.
        QTest::keyClick(field, Qt::Key_Return);
        QTRY_VERIFY_WITH_TIMEOUT(aisJobOf(w)->runId() != run, 10000);
        QCOMPARE(w.settings().chains, rbm::Index(200));
        QTRY_VERIFY(!field->hasFocus());
        press(w, Qt::Key_Escape);
        QTRY_VERIFY_WITH_TIMEOUT(!t->active(), 10000);
    }

    void meanFieldRunsAndCancelsButHasNoSteps() {
        MainWindow w;
        prepare(w, QStringLiteral("meanfield"));
        if (QTest::currentTestFailed()) return;
        Transport* t = w.transport();
        QVERIFY(t);
        QVERIFY(!t->canStep());
        QVERIFY(!w.action("step")->isEnabled());
        QVERIFY(!w.action("pause")->isEnabled());
        press(w, Qt::Key_F5);
        QTRY_VERIFY_WITH_TIMEOUT(!t->active() && t->state() == Transport::State::Finished, kStartMs);
        QVERIFY(!meanFieldViewOf(w)->running());
    }

    void presenterModeScalesAndRemembers() {
        QSettings().remove(QStringLiteral("presenter/scale"));
        MainWindow w;
        prepare(w, QStringLiteral("tempering"));
        if (QTest::currentTestFailed()) return;
        auto* dock = w.findChild<QDockWidget*>(QStringLiteral("parameterDock"));
        QVERIFY(dock && dock->isVisible());
        const double base = w.font().pointSizeF();
        press(w, Qt::Key_F11);
        QVERIFY(w.presenter());
        QVERIFY(w.action("presenter")->isChecked());
        QVERIFY(!dock->isVisible());
        QCOMPARE(w.presenterScale(), 1.5);
        QVERIFY(std::fabs(w.font().pointSizeF() - 1.5 * base) < 0.01);
        QTest::keyClick(&w, Qt::Key_Equal, Qt::ControlModifier);
        QVERIFY(std::fabs(w.presenterScale() - 1.5 * 1.15) < 1e-9);
        QVERIFY(std::fabs(w.font().pointSizeF() - 1.5 * 1.15 * base) < 0.01);
        QVERIFY(std::fabs(QSettings().value(QStringLiteral("presenter/scale")).toDouble() - 1.5 * 1.15) < 1e-9);
        // The transport keys work in presenter mode too.
        press(w, Qt::Key_F5);
        QTRY_VERIFY_WITH_TIMEOUT(w.transport()->units() > 0, kStartMs);
        press(w, Qt::Key_Escape);
        QTRY_VERIFY_WITH_TIMEOUT(!w.transport()->active(), 10000);
        press(w, Qt::Key_F11);
        QVERIFY(!w.presenter());
        QVERIFY(dock->isVisible());
        QVERIFY(std::fabs(w.font().pointSizeF() - base) < 0.01);
        // Remembered: a new window starts presenter mode at the scale last chosen.
        MainWindow w2;
        QVERIFY(std::fabs(w2.presenterScale() - 1.5 * 1.15) < 1e-9);
    }

    void densityAndFiltersKeysDoNothingStrange() {
        MainWindow w;
        prepare(w, QStringLiteral("filters"));
        if (QTest::currentTestFailed()) return;
        QVERIFY(!w.transport());
        QVERIFY(!w.action("run")->isEnabled());
        QVERIFY(!w.action("cancel")->isEnabled());
        press(w, Qt::Key_F5);
        QTest::qWait(300);
        QVERIFY(!aisJobOf(w)->running());
    }
};

QTEST_MAIN(TestTransport)
#include "tst_transport.moc"
