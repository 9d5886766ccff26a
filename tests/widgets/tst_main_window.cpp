// The main window opens every preset, draws the exact density off the GUI thread, puts the
// brightest pixels on the four-mode toy's heavy modes, and keeps the model when a file is bad.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "main_window.hpp"
#include "rbmscope/presets.hpp"

using rbmscope::MainWindow;

class TestMainWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void opensEveryPreset_data() {
        QTest::addColumn<QString>("preset");
        for (const auto& p : rbm::list_presets()) QTest::newRow(p.name.c_str()) << QString::fromStdString(p.name);
    }
    void opensEveryPreset() {
        QFETCH(QString, preset);
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QSignalSpy ready(&w, &MainWindow::densityReady);
        QVERIFY(w.loadPreset(preset));
        QVERIFY(ready.count() > 0 || ready.wait(20000));
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), 20000);
        QCOMPARE(QString::fromStdString(w.model().name).isEmpty(), false);
    }

    void brightestPixelsSitOnTheHeavyModes() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QSignalSpy ready(&w, &MainWindow::densityReady);
        QVERIFY(w.loadPreset(QStringLiteral("four-mode")));
        QVERIFY(ready.wait(20000));
        const QImage img = w.densityView()->image();
        QVERIFY(!img.isNull());
        const QRectF dom = w.densityView()->domain();
        // Brightest pixel (largest colour index) in model units.
        int best = -1;
        QPointF at;
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < img.width(); ++x) {
                const int v = img.pixelIndex(x, y);
                if (v > best) {
                    best = v;
                    at = QPointF(dom.left() + (x + 0.5) / img.width() * dom.width(),
                                 dom.bottom() - (y + 0.5) / img.height() * dom.height());
                }
            }
        // The heavy modes of four-mode.json are at (0,0) and (4,4) (b + sigma W h, h = 00 and 11).
        const double d0 = std::hypot(at.x(), at.y()), d1 = std::hypot(at.x() - 4, at.y() - 4);
        QVERIFY2(std::min(d0, d1) < 0.15, qPrintable(QStringLiteral("brightest at (%1,%2)").arg(at.x()).arg(at.y())));
    }

    void badFileKeepsTheCurrentModel() {
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(w.loadPreset(QStringLiteral("four-mode")));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("broken.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"kind\": \"grbm\", \"W\": [[1, 2], [3]]}");
        f.close();
        QVERIFY(!w.loadFile(path));
        QCOMPARE(QString::fromStdString(w.model().name), QStringLiteral("Four-mode 2-D GRBM"));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
