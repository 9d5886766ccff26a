// Paced playback of a tempering run: every run of the Tempering view is recorded
// (views/tempering/tempering_recording.hpp) and replayed — Space with nothing running plays it at
// the default speed, the slider scrubs to any recorded scan, Step (→ or .) shows the next one; the
// memory is bounded by an even decimation; and the headless `--view tempering --run --screenshot`
// renders the PT run, not an empty chart. Pictures: tempering-replay-{playing,scrubbed}.png in
// screenshotDir() (docs/screenshots via scripts/screenshots.sh).
#include <QElapsedTimer>
#include <QLabel>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <atomic>
#include <set>

#include "core/io/presets.hpp"
#include "main_window/main_window.hpp"
#include "screenshot_dir.hpp"
#include "test_window.hpp"
#include "views/tempering/tempering_recording.hpp"

using namespace rbmscope;

namespace {

// Rung of `replica` in every row of a window (replica ids per rung, oldest first).
std::vector<int> trajectoryOf(const std::vector<std::uint16_t>& recent, int rungs, int replica) {
    std::vector<int> out;
    for (std::size_t s = 0; s + static_cast<std::size_t>(rungs) <= recent.size(); s += static_cast<std::size_t>(rungs))
        for (int k = 0; k < rungs; ++k)
            if (recent[s + static_cast<std::size_t>(k)] == replica) out.push_back(k);
    return out;
}

void saveShot(QWidget* w, const QString& name) { QVERIFY(w->grab().save(screenshotDir() + QLatin1Char('/') + name)); }

}  // namespace

class TestTemperingPlayback : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // The default preset and the default settings; Space replays, the slider scrubs, Step steps.
    void defaultRunReplaysScrubsAndSteps() {
        const auto window = testWindow(1400, 900);
        MainWindow& w = *window;
        QVERIFY(w.loadPreset(QString::fromStdString(rbm::default_preset_name())));
        QVERIFY(waitIdle(w));
        QVERIFY(w.setCurrentView(QStringLiteral("tempering")));
        TemperingView* v = temperingViewOf(w);
        const TemperingSettings defaults = v->settings();
        QCOMPARE(defaults.scansPerSecond, 300.0);  // the speed box's default, "watch"
        QVERIFY(!v->canReplay());
        // The run is shown as it is computed ("fast": the show follows the engine; the numbers do not
        // depend on the pace, see showIsPacedEngineIsNot) and replayed at the default speed.
        TemperingSettings fast = defaults;
        fast.scansPerSecond = 0;
        v->setSettings(fast);
        QSignalSpy done(v, &TemperingView::runFinished);
        QElapsedTimer computeClock;
        computeClock.start();
        w.runCurrent();
        QVERIFY(done.wait(120000));
        qInfo("default run (%lld scans) computed and shown at fast in %.2f s", defaults.scans,
              computeClock.elapsed() / 1000.0);
        v->setSettings(defaults);
        QTRY_VERIFY_WITH_TIMEOUT(v->rungHeatmapCount() == defaults.replicas, 20000);
        QVERIFY(v->canReplay());
        const TemperingRecording* rec = v->recording();
        const int n = rec->size();
        QVERIFY(n <= 4096);
        QCOMPARE(rec->scan(0), 0LL);
        QCOMPARE(rec->scan(n - 1), defaults.scans);
        // The last record is what the run ended with.
        const TemperingFrame lastRec = rec->frame(n - 1);
        QVERIFY(lastRec.finished);
        QVERIFY(lastRec.recent == v->shownFrame()->recent);
        QVERIFY(lastRec.states == v->shownFrame()->states);
        QCOMPARE(lastRec.stats.total_round_trips(), v->shownFrame()->stats.total_round_trips());
        QVERIFY(lastRec.stats.rejection == v->shownFrame()->stats.rejection);

        // Space (nothing runs) replays from the first scan at the default speed.
        QCOMPARE(v->replayRate(), 300.0);
        w.centralWidget()->setFocus();
        QTest::keyClick(&w, Qt::Key_Space);
        QVERIFY(v->playing());
        QVERIFY(!w.transport()->active());  // a replay, not a new run
        std::set<int> records;              // every recorded scan that reached the screen
        const auto conn = connect(v, &TemperingView::frameShown, this, [&] { records.insert(v->shownRecord()); });
        QElapsedTimer clock;
        clock.start();
        bool midShot = false;
        // At least 3 s and 20 distinct recorded scans on screen (a loaded machine draws fewer frames a
        // second and takes longer; the replay is paced by its own ticks, so it lasts the longer too).
        while ((clock.elapsed() < 3000 || records.size() < 20) && clock.elapsed() < 60000) {
            QTest::qWait(40);
            if (!midShot && clock.elapsed() > 1500) {
                saveShot(v, QStringLiteral("tempering-replay-playing.png"));
                midShot = true;
            }
        }
        const double seconds = clock.elapsed() / 1000.0;
        disconnect(conn);
        QVERIFY2(v->playing(), "the replay has ended already");
        qInfo(
            "default run: %d scans recorded (one in %lld) of %lld; replay at %.0f scans/s lasts %.1f s; %zu distinct "
            "recorded scans shown in the first %.1f s (still playing)",
            n, rec->stride(), rec->scan(n - 1), v->replayRate(),
            static_cast<double>(rec->scan(n - 1)) / v->replayRate(), records.size(), seconds);
        QVERIFY2(records.size() >= 20, qPrintable(QString::number(records.size())));
        QTest::keyClick(&w, Qt::Key_Space);
        QVERIFY(!v->playing());

        // Scrubbing (the slider, as a drag moves it) forward, then back, shows those scans as recorded.
        const auto shows = [&](int k) {
            v->replaySlider()->setValue(k);
            QCOMPARE(v->shownRecord(), k);
            const TemperingFrame at = rec->frame(k);
            QCOMPARE(v->displayedFrame()->scansDone, rec->scan(k));
            QCOMPARE(v->trajectoryChart()->lastScan(), rec->scan(k) - 1);  // the chart numbers its rows from 0, as live
            for (int r = 0; r < at.rungs; ++r)
                QVERIFY(v->trajectoryChart()->trajectory(r) == trajectoryOf(at.recent, at.rungs, r));
            for (int rung = 0; rung < at.rungs; ++rung) {
                QVERIFY(v->rungHeatmap(rung)->hasSpot());
                QCOMPARE(v->rungHeatmap(rung)->spot(), QPointF(at.states(rung, 0), at.states(rung, 1)));
            }
            QVERIFY(v->statusText().contains(QStringLiteral("replay: scan %1").arg(rec->scan(k))));
        };
        shows(n / 2);
        if (QTest::currentTestFailed()) return;
        saveShot(v, QStringLiteral("tempering-replay-scrubbed.png"));
        const int k = 10;  // before what the replay showed (at least 20 records in)
        QVERIFY(*records.rbegin() > k);
        shows(k);
        if (QTest::currentTestFailed()) return;
        const TemperingFrame at = rec->frame(k);

        // The recorded values are the run's: the same settings stopped at that scan end there.
        {
            TemperingSettings s = defaults;
            s.scansPerSecond = 0;
            s.scans = rec->scan(k);
            std::atomic<bool> cancel{false};
            const TemperingFrame truth = runTempering(w.model(), s, cancel, {});
            QVERIFY(truth.states == at.states);
            QVERIFY(truth.recent == at.recent);
            QCOMPARE(truth.recentFirstScan, at.recentFirstScan);
            QVERIFY(truth.stats.rejection == at.stats.rejection);
            QVERIFY(truth.stats.accepted == at.stats.accepted);
            QVERIFY(truth.stats.round_trips == at.stats.round_trips);
        }

        // Step (→, then .) shows exactly the next recorded scan, and starts no run.
        const long long units = w.transport()->units();
        QTest::keyClick(&w, Qt::Key_Right);
        QCOMPARE(v->shownRecord(), k + 1);
        QCOMPARE(v->displayedFrame()->scansDone, rec->scan(k + 1));
        QTest::keyClick(&w, Qt::Key_Period);
        QCOMPARE(v->shownRecord(), k + 2);
        QCOMPARE(v->displayedFrame()->scansDone, rec->scan(k + 2));
        QVERIFY(!w.transport()->active());
        QCOMPARE(w.transport()->units(), units);

        // File → Export playback frames: evenly spaced recorded scans, first to last; the view is back after.
        {
            QTemporaryDir dir;
            QSignalSpy exported(&w, &MainWindow::playbackExported);
            QCOMPARE(w.exportPlayback(dir.path(), 5), QString());
            QVERIFY(exported.wait(60000));
            QCOMPARE(exported.front().front().toString(), QString());
            std::set<QByteArray> distinct;
            for (int i = 1; i <= 5; ++i) {
                const QImage img(dir.filePath(QStringLiteral("frame-%1.png").arg(i, 4, 10, QLatin1Char('0'))));
                QVERIFY(!img.isNull());
                distinct.insert(
                    QByteArray(reinterpret_cast<const char*>(img.constBits()), static_cast<int>(img.sizeInBytes())));
            }
            QCOMPARE(distinct.size(), std::size_t{5});
            QCOMPARE(v->shownRecord(), k + 2);
        }

        // A new run ends the replay; cancelled (Esc; a long run, so its engine still computes), what it
        // computed can be replayed, up to where it stopped.
        {
            TemperingSettings s = defaults;
            s.scans = 10000000;
            v->setSettings(s);
        }
        w.runCurrent();
        QVERIFY(!v->replaying());
        QVERIFY(!v->canReplay());
        QTRY_VERIFY_WITH_TIMEOUT(v->shownFrame() && v->shownFrame()->scansDone > 0, 20000);
        w.cancelCurrent();
        // The worker writes its last record a moment after Esc; then Run → Replay run is enabled.
        QTRY_VERIFY_WITH_TIMEOUT(v->canReplay() && w.action("pause")->isEnabled(), 5000);
        const TemperingRecording* cut = v->recording();
        const TemperingFrame end = cut->frame(cut->size() - 1);
        QVERIFY(!end.finished);
        QVERIFY(end.scansDone >= v->shownFrame()->scansDone && end.scansDone < 10000000);
        QCOMPARE(v->displayedFrame()->scansDone, end.scansDone);  // Esc shows the last computed scan
        QTest::keyClick(&w, Qt::Key_Space);
        QVERIFY(v->playing());
        QCOMPARE(v->shownRecord(), 0);
        QTest::keyClick(&w, Qt::Key_Space);
        QVERIFY(!v->playing());
    }

    // The engine computes at full speed, what is shown is paced: at "watch" (300 scans per
    // second) a 1200-scan run of the default preset is shown for at least 4 s by construction (the
    // shown position moves at most 300 scans per second of wall time), while its engine is done before
    // the show is half way (paced as it was, the engine ended with the show). Space holds the shown
    // scan; the toolbar says what is shown and what was computed; the numbers are the same at any pace.
    void showIsPacedEngineIsNot() {
        const auto window = testWindow(1400, 900);
        MainWindow& w = *window;
        QVERIFY(w.loadPreset(QString::fromStdString(rbm::default_preset_name())));
        QVERIFY(waitIdle(w));
        QVERIFY(w.setCurrentView(QStringLiteral("tempering")));
        w.centralWidget()->setFocus();
        TemperingView* v = temperingViewOf(w);
        TemperingSettings watch = v->settings();
        QCOMPARE(watch.scansPerSecond, 300.0);
        watch.scans = 1200;
        v->setSettings(watch);
        Transport* t = w.transport();
        auto* label = w.findChild<QLabel*>(QStringLiteral("transportState"));
        QVERIFY(label);

        std::set<long long> scans;  // distinct recorded scans on screen
        const auto conn = connect(v, &TemperingView::frameShown, this, [&] {
            if (v->running()) scans.insert(v->displayedFrame()->scansDone);
        });
        long long shownAtEngineEnd = -1;
        const auto engineEnd =
            connect(v->jobs(), &BackgroundJobs::runningChanged, this, [&](const QString& ch, bool on) {
                if (ch == v->runChannel() && !on) shownAtEngineEnd = t->units();
            });
        QSignalSpy finished(v, &TemperingView::runFinished);
        QElapsedTimer clock;
        clock.start();
        press(w, Qt::Key_F5);
        QVERIFY(t->active());
        QTRY_VERIFY_WITH_TIMEOUT(shownAtEngineEnd >= 0, 60000);
        const double engineSeconds = clock.elapsed() / 1000.0;
        QVERIFY(v->running() && !v->computing());  // the job is still showing what was computed
        QVERIFY2(shownAtEngineEnd <= watch.scans / 2, qPrintable(QString::number(shownAtEngineEnd)));
        QTRY_VERIFY2_WITH_TIMEOUT(label->text().contains(QStringLiteral("1200 of 1200 computed")),
                                  qPrintable(label->text()), 2000);
        QVERIFY2(v->statusText().contains(QStringLiteral("of 1200 computed")), qPrintable(v->statusText()));
        QVERIFY2(v->replaySlider()->isEnabled() == false, "no replay while the run is shown");

        // Space holds what is shown: the shown scan does not move for 500 ms; Space again goes on.
        QTRY_VERIFY_WITH_TIMEOUT(t->units() > 0, 10000);
        press(w, Qt::Key_Space);
        QTRY_COMPARE_WITH_TIMEOUT(t->state(), Transport::State::Paused, 5000);
        const long long held = t->units();
        QVERIFY2(held < watch.scans, "the show ended before the pause");
        QTest::qWait(500);
        QCOMPARE(t->units(), held);
        QCOMPARE(v->displayedFrame()->scansDone, held);
        QCOMPARE(v->statusText(), QStringLiteral("paused at scan %1 of 1200 computed").arg(held));
        press(w, Qt::Key_Space);
        QTRY_VERIFY_WITH_TIMEOUT(t->units() > held, 5000);

        QVERIFY(finished.wait(60000));
        const double showSeconds = clock.elapsed() / 1000.0;
        disconnect(conn);
        disconnect(engineEnd);
        QCOMPARE(t->state(), Transport::State::Finished);
        QCOMPARE(t->units(), watch.scans);
        qInfo(
            "1200 scans at watch: engine done after %.2f s, show ended after %.2f s (%.2f s of it held by Space); "
            "%zu distinct recorded scans shown",
            engineSeconds, showSeconds, 0.5, scans.size());
        QVERIFY2(showSeconds >= 3.0, qPrintable(QString::number(showSeconds)));
        QVERIFY2(scans.size() >= 20, qPrintable(QString::number(scans.size())));
        const TemperingFrame atWatch = *v->shownFrame();
        QVERIFY(atWatch.finished);

        // The same run at "fast": bit for bit the same end.
        TemperingSettings fast = watch;
        fast.scansPerSecond = 0;
        v->setSettings(fast);
        press(w, Qt::Key_F5);
        QVERIFY(finished.wait(60000));
        const TemperingFrame atFast = *v->shownFrame();
        QVERIFY(atFast.finished);
        QVERIFY(atFast.states == atWatch.states);
        QVERIFY(atFast.recent == atWatch.recent);
        QVERIFY(atFast.stats.rejection == atWatch.stats.rejection);
        QVERIFY(atFast.stats.accepted == atWatch.stats.accepted);
        QVERIFY(atFast.stats.round_trips == atWatch.stats.round_trips);
        QCOMPARE(atFast.stats.lifted_round_trips, atWatch.stats.lifted_round_trips);
    }

    // A run longer than the cap keeps at most cap records, evenly spaced, ending at the last scan.
    void longRunIsDecimatedEvenly() {
        TemperingView v;
        v.resize(1200, 800);
        v.show();
        v.setModel(rbm::load_preset("four-mode"));
        TemperingSettings s = v.settings();
        s.scansPerSecond = 0;
        s.scans = 5000;
        v.setSettings(s);
        const int cap = 64;
        v.setMaxRecords(cap);
        QSignalSpy done(&v, &TemperingView::runFinished);
        v.run();
        QVERIFY(done.wait(60000));
        const TemperingRecording* rec = v.recording();
        QVERIFY(rec);
        const int n = rec->size();
        const long long stride = rec->stride();
        qInfo("%lld scans, cap %d: %d records, one in %lld", s.scans, cap, n, stride);
        QVERIFY2(n <= cap, qPrintable(QString::number(n)));
        QVERIFY(stride > 1);
        for (int i = 0; i + 1 < n; ++i) QCOMPARE(rec->scan(i), i * stride);  // evenly spaced from scan 0
        QCOMPARE(rec->scan(n - 1), s.scans);                                 // and the end
        QVERIFY(rec->scan(n - 2) + stride > s.scans);                        // no gap before it
        QVERIFY2(n - 1 > (cap - 1) / 2, "decimated more than needed");       // one halving too many would halve this
        // Every record is a full view: the chart's window and the states at that scan.
        const TemperingFrame mid = rec->frame(n / 2);
        QCOMPARE(mid.scansDone, rec->scan(n / 2));
        QCOMPARE(static_cast<int>(mid.recent.size()), std::min<int>(150, static_cast<int>(mid.scansDone)) * mid.rungs);
        QCOMPARE(mid.states.rows(), static_cast<rbm::Index>(mid.rungs));
    }

    // Headless: --view tempering --run starts the PT run (not AIS), waits for it, and the shot shows it.
    void headlessScreenshotRendersTheRun() {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("tempering.png"));
        QProcess app;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("RBMSCOPE_CONFIG_DIR"), dir.path());
        app.setProcessEnvironment(env);
        app.start(QStringLiteral(RBMSCOPE_GUI_BINARY),
                  {QStringLiteral("--preset"), QStringLiteral("four-mode"), QStringLiteral("--view"),
                   QStringLiteral("tempering"), QStringLiteral("--run"), QStringLiteral("--size"),
                   QStringLiteral("1200x800"), QStringLiteral("--screenshot"), file});
        QVERIFY(app.waitForFinished(180000));
        const QString err = QString::fromLocal8Bit(app.readAllStandardError());
        QVERIFY2(app.exitStatus() == QProcess::NormalExit && app.exitCode() == 0, qPrintable(err));
        const QImage img = QImage(file).convertToFormat(QImage::Format_RGB32);
        QVERIFY(!img.isNull());
        // The highlighted replica's line is drawn in (230, 60, 40); the empty chart has none of it.
        const QRgb red = qRgb(230, 60, 40);
        int hits = 0;
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < img.width(); ++x) hits += img.pixel(x, y) == red;
        qInfo("headless tempering shot: %d pixels of the highlighted replica's line", hits);
        QVERIFY2(hits >= 200, qPrintable(QString::number(hits)));
    }
};

QTEST_MAIN(TestTemperingPlayback)
#include "tst_tempering_playback.moc"
