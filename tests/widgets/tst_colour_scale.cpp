// View → Logarithmic colour scale: the colours of the Target density and the
// annealing views on a log axis four decades deep, so the four-mode preset's two low modes, which
// a linear scale paints as background, show.
#include <QtTest>

#include "colormap.hpp"
#include "main_window/main_window.hpp"
#include "test_window.hpp"

using namespace rbmscope;

class TestColourScale : public QObject {
    Q_OBJECT
private:
    // Colour index (0..255) of the density image at each marked mode.
    static std::vector<int> atModes(const HeatmapView* h) {
        std::vector<int> out;
        const QImage& img = h->image();
        const QRectF d = h->domain();
        for (const QPointF& m : h->markers()) {
            const int x =
                std::clamp(static_cast<int>((m.x() - d.left()) / d.width() * img.width()), 0, img.width() - 1);
            const int y =
                std::clamp(static_cast<int>((d.bottom() - m.y()) / d.height() * img.height()), 0, img.height() - 1);
            out.push_back(img.pixelIndex(x, y));
        }
        return out;
    }

private Q_SLOTS:
    void logMapping() {
        // vmax -> top colour, each decade below it a quarter of the table lower, 10^-4 and below (and 0, NaN) the
        // bottom.
        const std::vector<double> v{1.0, 0.1, 0.01, 1e-3, 1e-4, 1e-6, 0.0, std::nan("")};
        const QImage img = colorize(v, static_cast<int>(v.size()), 1, 0.0, 1.0, ColourScale::Log);
        const int expected[] = {255, 191, 127, 63, 0, 0, 0, 0};
        for (int i = 0; i < static_cast<int>(v.size()); ++i)
            QVERIFY2(std::abs(img.pixelIndex(i, 0) - expected[i]) <= 1,
                     qPrintable(QString::number(img.pixelIndex(i, 0))));
        // The linear map is unchanged: 0.1 of the maximum is a tenth of the table.
        const QImage lin = colorize(v, static_cast<int>(v.size()), 1, 0.0, 1.0);
        QCOMPARE(lin.pixelIndex(0, 0), 255);
        QCOMPARE(lin.pixelIndex(1, 0), 25);
    }

    void fourModesShowOnTheLogScale() {
        const auto window = testWindow();
        MainWindow& w = *window;
        QVERIFY(w.loadPreset(QStringLiteral("four-mode")));
        QVERIFY(waitIdle(w));
        HeatmapView* h = densityViewOf(w);
        QCOMPARE(h->markers().size(), 4);
        const std::vector<int> linear = atModes(h);
        // Linear: some mode is painted within 10 % of the bottom colour (it does not show).
        QVERIFY2(*std::min_element(linear.begin(), linear.end()) < 26, qPrintable(QString::number(linear[0])));
        QAction* log = w.action(QStringLiteral("logScale"));
        QVERIFY(log && !log->isChecked());
        QTest::keyClick(&w, Qt::Key_L, Qt::ControlModifier);
        QVERIFY(log->isChecked());
        QCOMPARE(h->colourScale(), ColourScale::Log);
        const std::vector<int> logged = atModes(h);
        qInfo("colour index at the four modes: linear %d %d %d %d, log %d %d %d %d", linear[0], linear[1], linear[2],
              linear[3], logged[0], logged[1], logged[2], logged[3]);
        // Log: every mode in the upper half of the colours (within two decades of the peak).
        QVERIFY2(*std::min_element(logged.begin(), logged.end()) >= 128, qPrintable(QString::number(logged[0])));
        // The annealing views follow, and their images are redrawn on the log scale.
        QTRY_COMPARE(annealingViewOf(w)->heatmap(0)->colourScale(), ColourScale::Log);
        QTRY_COMPARE(compareViewOf(w)->heatmap(0)->colourScale(), ColourScale::Log);
        QTest::keyClick(&w, Qt::Key_L, Qt::ControlModifier);
        QCOMPARE(h->colourScale(), ColourScale::Linear);
        QVERIFY(atModes(h) == linear);

        if (const QByteArray dir = qgetenv("RBMSCOPE_SCREENSHOT_DIR"); !dir.isEmpty()) {
            QTest::keyClick(&w, Qt::Key_L, Qt::ControlModifier);
            w.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/four-mode-log-scale.png"));
        }
    }
};

QTEST_MAIN(TestColourScale)
#include "tst_colour_scale.moc"
