// Paced playback of a finished run: the engine runs at full speed (the default
// four-mode run takes a fraction of a second), and the Annealing view replays what it recorded —
// the particles at every checkpoint — from β = 0 to 1 at a watchable pace. Space starts it when
// nothing runs; the slider scrubs back and forth through the same recording.
#include <QElapsedTimer>
#include <QImageReader>
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

        // The same frames as one animated GIF: read back frame by frame, each the view's size, each
        // another beta, the frame delay and the loop as asked; the colours near the PNG's.
        QSignalSpy gifDone(&w, &MainWindow::playbackExported);
        const QString gif = dir.filePath(QStringLiteral("slides/playback.gif"));
        QVERIFY(w.exportPlayback(gif, 8, 96, 5).contains(QStringLiteral("20 to 10000 ms")));
        QCOMPARE(w.exportPlayback(gif, 8, 96, 150), QString());
        QVERIFY(gifDone.wait(60000));
        QCOMPARE(gifDone.front().front().toString(), QString());
        QImageReader reader(gif);
        QVERIFY(reader.supportsAnimation());
        QCOMPARE(reader.imageCount(), 8);
        QCOMPARE(reader.loopCount(), -1);  // Qt: -1 is "forever"
        std::set<QByteArray> gifFrames;
        QImage first;
        for (int i = 0; i < 8; ++i) {
            const QImage frame = reader.read();
            QVERIFY2(!frame.isNull(), qPrintable(reader.errorString()));
            QCOMPARE(frame.size(), annealingViewOf(w)->size());
            QCOMPARE(reader.nextImageDelay(), 150);
            if (i == 0) first = frame.convertToFormat(QImage::Format_RGB32);
            const QImage rgb = frame.convertToFormat(QImage::Format_RGB32);
            gifFrames.insert(
                QByteArray(reinterpret_cast<const char*>(rgb.constBits()), static_cast<int>(rgb.sizeInBytes())));
        }
        QCOMPARE(gifFrames.size(), std::size_t{8});
        // The last frame shows beta = 1, as the first PNG at 96 dpi would show beta = 0: compare the
        // first GIF frame's mean colour with a PNG of beta = 0 (quantization moves it a little).
        QTemporaryDir dir96;
        QSignalSpy pngDone(&w, &MainWindow::playbackExported);
        QCOMPARE(w.exportPlayback(dir96.path(), 8, 96), QString());
        QVERIFY(pngDone.wait(60000));
        const QImage png =
            QImage(dir96.filePath(QStringLiteral("frame-0001.png"))).convertToFormat(QImage::Format_RGB32);
        QCOMPARE(png.size(), first.size());
        double diff = 0;
        for (int y = 0; y < png.height(); ++y)
            for (int x = 0; x < png.width(); ++x) {
                const QRgb a = png.pixel(x, y), b = first.pixel(x, y);
                diff += std::abs(qRed(a) - qRed(b)) + std::abs(qGreen(a) - qGreen(b)) + std::abs(qBlue(a) - qBlue(b));
            }
        diff /= 3.0 * png.width() * png.height();
        qInfo("GIF frame 1 against the PNG: mean |difference| %.2f of 255 per channel", diff);
        QVERIFY(diff < 3);  // 5-bit bins: a pixel is a few levels from its bin's mean; dithering gave 20

        // Other views have no playback (Tempering's: tst_tempering_playback).
        QVERIFY(w.setCurrentView(QStringLiteral("density")));
        QVERIFY(w.exportPlayback(dir.path(), 12).contains(QStringLiteral("Annealing, Compare or Tempering")));
    }
};

QTEST_MAIN(TestPlayback)
#include "tst_playback.moc"
