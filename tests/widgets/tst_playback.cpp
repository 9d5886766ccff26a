// Paced playback of a finished run: the engine runs at full speed (the default
// four-mode run takes a fraction of a second), and the Annealing view replays what it recorded —
// the particles at every checkpoint — from β = 0 to 1 at a watchable pace. Space starts it when
// nothing runs; the slider scrubs back and forth through the same recording.
#include <QElapsedTimer>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <set>

#include "main_window/main_window.hpp"
#include "test_window.hpp"

using namespace rbmscope;

class TestPlayback : public QObject {
    Q_OBJECT
private:
    // The checkpoint step the view's particles come from ("… (step 37)" / "… step 37 (β = …)").
    static int shownStep(const HeatmapView* h) {
        static const QRegularExpression re(QStringLiteral("step (\\d+)"));
        const auto m = re.match(h->overlayText());
        return m.hasMatch() ? m.captured(1).toInt() : -1;
    }

private Q_SLOTS:
    void defaultRunPlaysForSecondsWithMotion() {
        const auto window = testWindow();
        MainWindow& w = *window;
        QVERIFY(w.loadPreset(QStringLiteral("four-mode")));
        QVERIFY(w.setCurrentView(QStringLiteral("annealing")));
        w.startRun();  // the defaults: nothing about K or N is touched
        QVERIFY(waitIdle(w));
        QVERIFY(aisJobOf(w)->lanes().front().result && aisJobOf(w)->lanes().front().result->complete);
        const double computeSeconds = aisJobOf(w)->lanes().front().result->seconds;
        const std::size_t frames = aisJobOf(w)->lanes().front().frames.size();
        QVERIFY2(frames >= 20, qPrintable(QString::number(frames)));

        AnnealingView* v = annealingViewOf(w);
        QVERIFY(!v->playing());
        QTest::keyClick(&w, Qt::Key_Space);  // nothing runs: Space plays the recording
        QVERIFY(v->playing());
        QElapsedTimer clock;
        clock.start();
        std::set<int> steps;
        std::set<double> betas;
        while (v->playing() && clock.elapsed() < 30000) {
            QTest::qWait(50);
            steps.insert(shownStep(v->heatmap(0)));
            betas.insert(v->beta());
        }
        const double seconds = clock.elapsed() / 1000.0;
        qInfo("computed in %.3f s; played back in %.2f s through %zu checkpoints (%zu recorded), %zu betas",
              computeSeconds, seconds, steps.size(), frames, betas.size());
        QVERIFY(!v->playing());
        QVERIFY2(seconds >= 3.0, qPrintable(QString::number(seconds)));
        QVERIFY2(steps.size() >= 20, qPrintable(QString::number(steps.size())));  // the particles move
        QCOMPARE(v->beta(), 1.0);

        // Scrubbing back shows an earlier checkpoint, forward a later one.
        v->setBeta(0.25);
        QTRY_VERIFY(shownStep(v->heatmap(0)) >= 0);
        const int early = shownStep(v->heatmap(0));
        v->setBeta(0.75);
        QTRY_VERIFY(shownStep(v->heatmap(0)) > early);
    }

    // File → Export playback frames: numbered PNGs of what Play shows, at the chosen resolution.
    void playbackFramesExport() {
        const auto window = testWindow(1000, 700);
        MainWindow& w = *window;
        QVERIFY(w.loadPreset(QStringLiteral("four-mode")));
        QVERIFY(w.setCurrentView(QStringLiteral("annealing")));
        QVERIFY(w.exportPlayback(QDir::tempPath(), 12).contains(QStringLiteral("run AIS first")));
        w.startRun();
        QVERIFY(waitIdle(w));
        QVERIFY(w.exportPlayback(QDir::tempPath(), 1).contains(QStringLiteral("from 2 to")));
        QVERIFY(w.exportPlayback(QDir::tempPath(), 12, 5000).contains(QStringLiteral("dpi")));
        QTemporaryDir dir;
        QSignalSpy done(&w, &MainWindow::playbackExported);
        QCOMPARE(w.exportPlayback(dir.path(), 12, 192), QString());
        QVERIFY(done.wait(60000));
        QCOMPARE(done.front().front().toString(), QString());
        const QSize expected = annealingViewOf(w)->size() * 2;
        std::set<QByteArray> distinct;
        for (int i = 1; i <= 12; ++i) {
            const QString file = dir.filePath(QStringLiteral("frame-%1.png").arg(i, 4, 10, QLatin1Char('0')));
            const QImage img(file);
            QVERIFY2(!img.isNull(), qPrintable(file));
            QCOMPARE(img.size(), expected);
            QCOMPARE(img.dotsPerMeterX(), qRound(192 / 0.0254));
            distinct.insert(
                QByteArray(reinterpret_cast<const char*>(img.constBits()), static_cast<int>(img.sizeInBytes())));
        }
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("frame-0013.png"))));
        QCOMPARE(distinct.size(), std::size_t{12});  // every frame shows another beta
        QCOMPARE(annealingViewOf(w)->beta(), 1.0);   // the view is back where it was

        // Other views have no playback (Tempering's: tst_tempering_playback).
        QVERIFY(w.setCurrentView(QStringLiteral("density")));
        QVERIFY(w.exportPlayback(dir.path(), 12).contains(QStringLiteral("Annealing, Compare or Tempering")));
    }
};

QTEST_MAIN(TestPlayback)
#include "tst_playback.moc"
