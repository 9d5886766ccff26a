// Explicit transport states: every job's transport has one state (idle, running,
// pausing, paused, stepping, stopped, finished, replaying, playing) changed only through one
// transition table, which refuses what cannot happen; and every label that shows a state or a
// counter (the toolbar's transport label, the presenter strip) reads it from the transport. Before,
// the strip said "Stopped" during a tempering replay and "Finished" during Play β, the toolbar said
// "stopped · 20000 PT scans" after the model changed and "finished · 0 training updates" with
// restored training runs.
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <set>

#include "main_window/main_window.hpp"
#include "main_window/presenter_overlay.hpp"
#include "test_window.hpp"
#include "views/training/training_view.hpp"
#include "window_views.hpp"

using namespace rbmscope;

namespace {

constexpr int kIdleMs = 60000;
using S = Transport::State;
using E = Transport::Event;

// A job whose worker the test plays by hand: it raises `holding`, takes the budget and counts.
struct FakeJob {
    bool active = false, finished = false;
    std::shared_ptr<rbm::StepGate> gate;
    std::optional<Transport::Restored> restored;
    S playback = S::Idle;

    Transport::Job job() {
        Transport::Job j;
        j.unit = QStringLiteral("unit");
        j.start = [this](std::shared_ptr<rbm::StepGate> g) {
            gate = std::move(g);
            active = true;
            finished = false;
            restored.reset();
        };
        j.stop = [this] { active = false; };
        j.active = [this] { return active; };
        j.finished = [this] { return finished; };
        j.gate = [this] { return gate.get(); };
        j.playback = [this] { return playback; };
        j.restored = [this] { return restored; };
        return j;
    }
    // The worker does the units granted and waits in the pause again.
    void workUntilHeld() {
        while (gate->budget.load() > 0) {
            gate->budget.fetch_sub(1);
            gate->done.fetch_add(1);
        }
        gate->holding.store(gate->pause.load());
    }
};

QString label(const MainWindow& w) { return w.findChild<QLabel*>(QStringLiteral("transportState"))->text(); }
QString strip(const MainWindow& w) { return w.presenterOverlay()->info().state; }

void open(MainWindow& w, const char* preset) {
    QVERIFY(w.loadPreset(QString::fromLatin1(preset)));
    QVERIFY(waitIdle(w, kIdleMs));
}

// `view` of `preset` in presenter mode, its runs made long, running until it has done a few units.
// Returns its transport (null after a failed check).
Transport* runningInPresenter(MainWindow& w, const char* preset, const QString& view) {
    open(w, preset);
    if (QTest::currentTestFailed()) return nullptr;
    makeRunsLong(w, kIdleMs);
    if (QTest::currentTestFailed()) return nullptr;
    if (!w.setCurrentView(view)) {
        QTest::qFail("no such view", __FILE__, __LINE__);
        return nullptr;
    }
    w.setPresenter(true);
    Transport* t = w.transport();
    w.runCurrent();
    if (!QTest::qWaitFor([&] { return t->units() > 3; }, kIdleMs)) {
        QTest::qFail("the run did not get past 3 units", __FILE__, __LINE__);
        return nullptr;
    }
    return t;
}

// A finished PT run of `scans` scans on the Tempering view, computed and shown at full speed.
void finishedTemperingRun(MainWindow& w, long long scans) {
    QVERIFY(w.setCurrentView(QStringLiteral("tempering")));
    TemperingView* v = temperingViewOf(w);
    TemperingSettings s = v->settings();
    s.scans = scans;
    s.scansPerSecond = 0;
    v->setSettings(s);
    QSignalSpy done(v, &TemperingView::runFinished);
    w.runCurrent();
    QVERIFY(done.wait(kIdleMs));
    QTRY_COMPARE_WITH_TIMEOUT(w.transport()->state(), S::Finished, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(v->canReplay(), 5000);
}

}  // namespace

class TestTransportStates : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // The table: what each state does with each event, the refusals included.
    void transitionTable_data() {
        QTest::addColumn<S>("from");
        QTest::addColumn<E>("event");
        QTest::addColumn<bool>("allowed");
        QTest::addColumn<S>("to");
        const auto ok = [](const char* name, S from, E e, S to) { QTest::newRow(name) << from << e << true << to; };
        const auto no = [](const char* name, S from, E e) { QTest::newRow(name) << from << e << false << from; };
        ok("idle run", S::Idle, E::Run, S::Running);
        ok("idle step", S::Idle, E::StepRun, S::Stepping);
        ok("running pause", S::Running, E::Pause, S::Pausing);
        ok("running step stops where it is", S::Running, E::Step, S::Pausing);
        ok("pausing held", S::Pausing, E::Held, S::Paused);
        ok("paused step", S::Paused, E::Step, S::Stepping);
        ok("stepping held", S::Stepping, E::Held, S::Paused);
        ok("paused resume", S::Paused, E::Resume, S::Running);
        ok("stepping resume", S::Stepping, E::Resume, S::Running);
        ok("running cancel", S::Running, E::Cancel, S::Stopped);
        ok("paused cancel", S::Paused, E::Cancel, S::Stopped);
        ok("running finish", S::Running, E::Finish, S::Finished);
        ok("running end", S::Running, E::End, S::Stopped);
        ok("finished replay", S::Finished, E::Replay, S::Replaying);
        ok("stopped replay", S::Stopped, E::Replay, S::Replaying);
        ok("finished play", S::Finished, E::Play, S::Playing);
        ok("replaying back to the end", S::Replaying, E::Finish, S::Finished);
        ok("playing back to the end", S::Playing, E::Finish, S::Finished);
        ok("replaying run", S::Replaying, E::Run, S::Running);
        ok("stopped forget", S::Stopped, E::Forget, S::Idle);
        ok("finished forget", S::Finished, E::Forget, S::Idle);
        ok("idle restored", S::Idle, E::Finish, S::Finished);
        ok("finished restart", S::Finished, E::Run, S::Running);
        no("idle cancel", S::Idle, E::Cancel);
        no("idle pause", S::Idle, E::Pause);
        no("idle step", S::Idle, E::Step);
        no("idle held", S::Idle, E::Held);
        no("running held", S::Running, E::Held);
        no("running forget", S::Running, E::Forget);
        no("paused forget", S::Paused, E::Forget);
        no("running replay", S::Running, E::Replay);
        no("paused play", S::Paused, E::Play);
        no("paused held again", S::Paused, E::Held);
        no("stopped cancel", S::Stopped, E::Cancel);
        no("stopped step", S::Stopped, E::Step);
        no("finished cancel", S::Finished, E::Cancel);
        no("finished pause", S::Finished, E::Pause);
        no("replaying cancel", S::Replaying, E::Cancel);
        no("playing held", S::Playing, E::Held);
    }
    void transitionTable() {
        QFETCH(S, from);
        QFETCH(E, event);
        QFETCH(bool, allowed);
        QFETCH(S, to);
        const std::optional<S> next = Transport::next(from, event);
        QCOMPARE(next.has_value(), allowed);
        if (allowed) QCOMPARE(*next, to);
    }

    // Every state is reached from Idle, none is a dead end (Run starts a new run from each), and
    // each has a name for the toolbar.
    void everyStateIsReachable() {
        const QMetaEnum states = QMetaEnum::fromType<S>();
        const QMetaEnum events = QMetaEnum::fromType<E>();
        std::set<S> seen{S::Idle};
        std::vector<S> todo{S::Idle};
        while (!todo.empty()) {
            const S s = todo.back();
            todo.pop_back();
            for (int e = 0; e < events.keyCount(); ++e)
                if (const auto to = Transport::next(s, static_cast<E>(events.value(e))); to && seen.insert(*to).second)
                    todo.push_back(*to);
        }
        QCOMPARE(static_cast<int>(seen.size()), states.keyCount());
        for (int i = 0; i < states.keyCount(); ++i) {
            const S s = static_cast<S>(states.value(i));
            QVERIFY2(Transport::next(s, E::Run) == S::Running, states.key(i));
            QVERIFY2(!stateName(s).isEmpty(), states.key(i));
        }
    }

    // A transport over a job whose worker the test plays: stepping until the unit is done, paused
    // after it, Esc keeps the count, a model change forgets it, a restored run shows its own.
    void transportFollowsItsJob() {
        FakeJob fake;
        Transport t(fake.job());
        QCOMPARE(t.state(), S::Idle);
        t.cancel();  // nothing runs: refused
        t.setPaused(true);
        QCOMPARE(t.state(), S::Idle);
        QCOMPARE(t.units(), 0LL);

        t.step();  // a new run, held after its first unit
        QVERIFY(fake.active);
        QCOMPARE(t.state(), S::Stepping);
        QVERIFY(t.describe().startsWith(QStringLiteral("stepping · 0 units")));
        fake.gate->holding.store(true);  // still waiting with the unit granted: stepping
        QCOMPARE(t.state(), S::Stepping);
        fake.workUntilHeld();
        QCOMPARE(t.state(), S::Paused);
        QCOMPARE(t.units(), 1LL);
        t.step();
        QCOMPARE(t.state(), S::Stepping);
        fake.workUntilHeld();
        QCOMPARE(t.state(), S::Paused);
        QCOMPARE(t.units(), 2LL);
        t.togglePause();
        fake.gate->holding.store(false);
        QCOMPARE(t.state(), S::Running);
        fake.gate->done.store(40);

        t.cancel();
        QCOMPARE(t.state(), S::Stopped);
        QCOMPARE(t.units(), 40LL);
        QCOMPARE(t.describe(), QStringLiteral("stopped · 40 units"));
        t.refresh();
        QCOMPARE(t.state(), S::Stopped);  // the job's end after Esc: still stopped, still counted
        QCOMPARE(t.units(), 40LL);

        fake.playback = S::Replaying;
        QCOMPARE(t.state(), S::Replaying);
        QCOMPARE(t.units(), 40LL);
        fake.playback = S::Idle;
        QCOMPARE(t.state(), S::Stopped);

        t.reset();  // the model changed
        QCOMPARE(t.state(), S::Idle);
        QCOMPARE(t.units(), 0LL);
        QCOMPARE(t.describe(), QStringLiteral("idle · 0 units"));

        fake.restored = Transport::Restored{57, true};  // restored from a session
        t.refresh();
        QCOMPARE(t.state(), S::Finished);
        QCOMPARE(t.units(), 57LL);
        fake.restored = Transport::Restored{12, false};
        QCOMPARE(t.state(), S::Stopped);
        QCOMPARE(t.units(), 12LL);

        t.run();
        QCOMPARE(t.state(), S::Running);
        QCOMPARE(t.units(), 0LL);  // the new run's counter
        t.reset();                 // refused while a run is in progress
        QCOMPARE(t.state(), S::Running);
        fake.finished = true;
        fake.active = false;
        QCOMPARE(t.state(), S::Finished);
    }

    // Tempering: Replay (Space with nothing running) says Replaying in the toolbar and on the
    // strip, with the run's count; a scrubbed record is still the replay; back at the run's end it
    // says Finished.
    void temperingReplaySaysReplaying() {
        const auto window = testWindow();
        MainWindow& w = *window;
        open(w, "four-mode");
        if (QTest::currentTestFailed()) return;
        finishedTemperingRun(w, 600);
        if (QTest::currentTestFailed()) return;
        w.setPresenter(true);
        Transport* t = w.transport();
        QCOMPARE(strip(w), QStringLiteral("Finished"));
        const long long units = t->units();
        QCOMPARE(units, 600LL);
        w.togglePause();  // Space: Replay run
        QVERIFY(temperingViewOf(w)->playing());
        QCOMPARE(t->state(), S::Replaying);
        QVERIFY2(label(w).contains(QStringLiteral("replaying · 600 PT scans")), qPrintable(label(w)));
        QCOMPARE(strip(w), QStringLiteral("Replaying"));
        w.togglePause();  // Space: the replay holds on its record
        QVERIFY(!temperingViewOf(w)->playing());
        QCOMPARE(t->state(), S::Replaying);
        QCOMPARE(strip(w), QStringLiteral("Replaying"));
        w.stepCurrent();  // → the next record
        QCOMPARE(t->state(), S::Replaying);
        QCOMPARE(t->units(), units);
        QVERIFY2(label(w).contains(
                     QStringLiteral(" · replay: scan %1").arg(temperingViewOf(w)->displayedFrame()->scansDone)),
                 qPrintable(label(w)));
        temperingViewOf(w)->endReplay();
        QCOMPARE(t->state(), S::Finished);
        QTRY_COMPARE(strip(w), QStringLiteral("Finished"));
        QVERIFY2(label(w).contains(QStringLiteral("finished · 600 PT scans")), qPrintable(label(w)));
        w.setPresenter(false);
    }

    // Annealing: Play β (Space with nothing running) says Playing; at β = 1 it is Finished again.
    void annealingPlayBetaSaysPlaying_data() {
        QTest::addColumn<QString>("view");
        QTest::newRow("annealing") << QStringLiteral("annealing");
        QTest::newRow("compare") << QStringLiteral("compare");
    }
    void annealingPlayBetaSaysPlaying() {
        QFETCH(QString, view);
        const auto window = testWindow();
        MainWindow& w = *window;
        open(w, "four-mode");  // runs AIS once (auto-run)
        if (QTest::currentTestFailed()) return;
        QVERIFY(w.setCurrentView(view));
        w.setPresenter(true);
        Transport* t = w.transport();
        QCOMPARE(t->state(), S::Finished);
        const long long units = t->units();
        QVERIFY(units > 0);
        w.togglePause();  // Space: Play β
        QCOMPARE(t->state(), S::Playing);
        QCOMPARE(t->units(), units);
        QVERIFY2(label(w).contains(QStringLiteral("playing · %1 annealing steps").arg(units)), qPrintable(label(w)));
        QCOMPARE(strip(w), QStringLiteral("Playing"));
        // Play β ends by itself at β = 1.
        QTRY_COMPARE_WITH_TIMEOUT(t->state(), S::Finished, 30000);
        QTRY_COMPARE(strip(w), QStringLiteral("Finished"));
        QVERIFY2(label(w).contains(QStringLiteral("finished · %1 annealing steps").arg(units)), qPrintable(label(w)));
        w.setPresenter(false);
    }

    // Space holds the Tempering view's show (Paused), → grants one unit (Stepping, until the next
    // record is on screen: the show is the gate's worker, on the GUI thread), then Paused again.
    void pausedAndStepping() {
        const auto window = testWindow();
        MainWindow& w = *window;
        Transport* t = runningInPresenter(w, "four-mode", QStringLiteral("tempering"));
        if (!t) return;
        w.togglePause();
        QTRY_COMPARE_WITH_TIMEOUT(t->state(), S::Paused, 10000);
        QTRY_COMPARE(strip(w), QStringLiteral("Paused"));
        const long long held = t->units();
        QVERIFY2(label(w).contains(QStringLiteral("paused · %1 PT scans").arg(held)), qPrintable(label(w)));
        w.stepCurrent();
        QCOMPARE(t->state(), S::Stepping);  // no tick of the show has run yet
        QVERIFY2(label(w).contains(QStringLiteral("stepping · %1 PT scans").arg(held)), qPrintable(label(w)));
        QCOMPARE(strip(w), QStringLiteral("Stepping"));
        QTRY_VERIFY_WITH_TIMEOUT(t->state() == S::Paused && t->units() > held, 10000);
        QTRY_COMPARE(strip(w), QStringLiteral("Paused"));
        QVERIFY2(label(w).contains(QStringLiteral("paused · %1 PT scans").arg(t->units())), qPrintable(label(w)));
        w.cancelCurrent();
        QTRY_VERIFY_WITH_TIMEOUT(!t->jobActive(), 10000);
        w.setPresenter(false);
    }

    // Esc keeps what was computed, and the count says so for as long as nothing else happens; a
    // replay of it says Replaying and goes back to the stopped run.
    void stoppedKeepsCounts_data() {
        QTest::addColumn<QString>("view");
        QTest::addColumn<QString>("unit");
        QTest::newRow("tempering") << QStringLiteral("tempering") << QStringLiteral("PT scans");
        QTest::newRow("samples") << QStringLiteral("samples") << QStringLiteral("sampling sweeps");
    }
    void stoppedKeepsCounts() {
        QFETCH(QString, view);
        QFETCH(QString, unit);
        const auto window = testWindow();
        MainWindow& w = *window;
        Transport* t = runningInPresenter(w, view == QLatin1String("samples") ? "bars-and-stripes" : "four-mode", view);
        if (!t) return;
        w.cancelCurrent();
        QCOMPARE(t->state(), S::Stopped);
        QTRY_VERIFY_WITH_TIMEOUT(!t->jobActive(), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!temperingViewOf(w)->lastScanPending(), 5000);
        const long long units = t->units();
        QVERIFY(units > 3);
        QTest::qWait(300);
        QCOMPARE(t->state(), S::Stopped);
        QCOMPARE(t->units(), units);
        QVERIFY2(label(w).contains(QStringLiteral("stopped · %1 %2").arg(units).arg(unit)), qPrintable(label(w)));
        QCOMPARE(strip(w), QStringLiteral("Stopped"));
        if (view == QLatin1String("tempering")) {
            // What the stopped run computed replays (Replaying, the run's count), and then it is
            // the stopped run again, not a finished one.
            QTRY_VERIFY_WITH_TIMEOUT(temperingViewOf(w)->canReplay(), 5000);
            w.togglePause();
            QVERIFY(temperingViewOf(w)->playing());
            QCOMPARE(t->state(), S::Replaying);
            QCOMPARE(strip(w), QStringLiteral("Replaying"));
            QCOMPARE(t->units(), units);
            temperingViewOf(w)->endReplay();
            QCOMPARE(t->state(), S::Stopped);
            QCOMPARE(t->units(), units);
            QVERIFY2(label(w).contains(QStringLiteral("stopped · %1 %2").arg(units).arg(unit)), qPrintable(label(w)));
            QTRY_COMPARE(strip(w), QStringLiteral("Stopped"));
        }
        w.setPresenter(false);
    }

    // A new model, or an edit of this one: the runs of the views that follow the model are no
    // longer its runs: idle, 0 units.
    void countersResetOnModelChange_data() {
        QTest::addColumn<bool>("edit");
        QTest::newRow("opened") << false;
        QTest::newRow("edited") << true;
    }
    void countersResetOnModelChange() {
        QFETCH(bool, edit);
        const auto window = testWindow();
        MainWindow& w = *window;
        Transport* t = runningInPresenter(w, "four-mode", QStringLiteral("tempering"));
        if (!t) return;
        w.cancelCurrent();
        QTRY_VERIFY_WITH_TIMEOUT(!t->jobActive() && !temperingViewOf(w)->lastScanPending(), 10000);
        QVERIFY2(label(w).contains(QStringLiteral("stopped · ")), qPrintable(label(w)));
        if (edit) {
            Q_EMIT densityViewOf(w)->arrowDragged(0, QPointF(1.5, -2.0));
            Q_EMIT densityViewOf(w)->arrowDragFinished(0);
        } else {
            QVERIFY(w.loadPreset(QStringLiteral("four-mode")));
        }
        QCOMPARE(t->state(), S::Idle);
        QCOMPARE(t->units(), 0LL);
        QVERIFY2(label(w).contains(QStringLiteral("idle · 0 PT scans")), qPrintable(label(w)));
        QTRY_COMPARE(strip(w), QStringLiteral("Idle"));
        QCOMPARE(w.presenterOverlay()->info().fraction, -1.0);
        QVERIFY(waitIdle(w, kIdleMs));
        QCOMPARE(t->state(), S::Idle);
        w.setPresenter(false);
    }

    // A session with two training runs: restored, the Training view's transport counts the newest
    // run's updates and says how it ended (not "finished · 0 training updates").
    void countersSetOnSessionRestore() {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("s.json"));
        long long newest = 0;
        {
            const auto window = testWindow();
            MainWindow& a = *window;
            open(a, "four-mode");
            if (QTest::currentTestFailed()) return;
            TrainingView* v = trainingViewOf(a);
            rbm::TrainOptions o = v->options();
            o.kind = rbm::ModelKind::Brbm;
            o.hidden = 8;
            o.batch = 10;
            o.monitor_every = 20;
            TrainDataSpec d;
            d.source = QStringLiteral("bars:4");
            d.prep = TrainDataSpec::Prep::AsIs;
            v->setDataSpec(d);
            for (const rbm::Index updates : {200, 120}) {
                o.updates = updates;
                v->setOptions(o);
                QSignalSpy ended(v, &TrainingView::runEnded);
                QVERIFY(v->train());
                QVERIFY(ended.wait(kIdleMs));
            }
            QTRY_VERIFY_WITH_TIMEOUT(!v->busy(), kIdleMs);
            const TrainingRun* r = v->session()->run(v->session()->ids().back());
            QVERIFY(r && r->snapshot);
            newest = r->snapshot->updatesDone;
            QCOMPARE(newest, 120LL);
            QVERIFY(a.saveSession(file));
        }
        const auto window = testWindow();
        MainWindow& w = *window;
        QVERIFY(w.openSession(file));
        QVERIFY(waitIdle(w, kIdleMs));
        QVERIFY(w.setCurrentView(QStringLiteral("training")));
        QCOMPARE(trainingViewOf(w)->session()->ids().size(), std::size_t{2});
        w.setPresenter(true);
        Transport* t = w.transport();
        QCOMPARE(t->state(), S::Finished);
        QCOMPARE(t->units(), newest);
        QVERIFY2(label(w).contains(QStringLiteral("finished · %1 training updates").arg(newest)), qPrintable(label(w)));
        QTRY_COMPARE(strip(w), QStringLiteral("Finished"));
        w.setPresenter(false);
    }
};

QTEST_MAIN(TestTransportStates)
#include "tst_transport_states.moc"
