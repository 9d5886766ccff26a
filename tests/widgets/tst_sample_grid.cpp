// The sample grid draws known vectors with the right pixel values in every mode (grey, binary,
// diverging with a shared or a per-tile scale), keeps the data set's row-major image layout,
// infers square shapes and refuses others with a message, and lays the tiles out without overlap
// inside the widget; what reaches the screen is the tile's colour.
#include <QtTest>

#include "sample_grid.hpp"

using namespace rbmscope;

class TestSampleGrid : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void greyLevelsAndRowMajorLayout() {
        SampleGrid g;
        rbm::RowMat X(2, 6);
        X << 0.0, 0.5, 1.0, 0.25, 0.75, 2.0,  // 2 x 3 image: row 0 = 0 .5 1, row 1 = .25 .75 2 (clamped)
            1.0, 1.0, 1.0, 0.0, 0.0, 0.0;
        g.setSamples(X, 2, 3);
        QCOMPARE(g.tileCount(), 2);
        QCOMPARE(g.imageRows(), 2);
        QCOMPARE(g.imageCols(), 3);
        const QImage t0 = g.tileImage(0);
        QCOMPARE(t0.size(), QSize(3, 2));
        QCOMPARE(qGray(t0.pixel(0, 0)), 0);
        QCOMPARE(qGray(t0.pixel(1, 0)), 128);  // round(127.5)
        QCOMPARE(qGray(t0.pixel(2, 0)), 255);
        QCOMPARE(qGray(t0.pixel(0, 1)), 64);   // round(63.75)
        QCOMPARE(qGray(t0.pixel(1, 1)), 191);  // round(191.25)
        QCOMPARE(qGray(t0.pixel(2, 1)), 255);  // 2 clamped to the range top
        const QImage t1 = g.tileImage(1);      // top row on, bottom row off: not transposed
        for (int c = 0; c < 3; ++c) {
            QCOMPARE(qGray(t1.pixel(c, 0)), 255);
            QCOMPARE(qGray(t1.pixel(c, 1)), 0);
        }
        g.setValueRange(0, 2);
        QCOMPARE(qGray(g.tileImage(0).pixel(2, 0)), 128);  // 1 is now mid-range
    }

    void binaryThresholdsAtMidRange() {
        SampleGrid g;
        g.setMode(SampleGrid::Mode::Binary);
        rbm::RowMat X(1, 4);
        X << 0.49, 0.51, 0.0, 1.0;
        g.setSamples(X);  // 4 values: 2 x 2 inferred
        QCOMPARE(g.imageRows(), 2);
        const QImage t = g.tileImage(0);
        QCOMPARE(t.pixel(0, 0), qRgb(0, 0, 0));
        QCOMPARE(t.pixel(1, 0), qRgb(255, 255, 255));
        QCOMPARE(t.pixel(0, 1), qRgb(0, 0, 0));
        QCOMPARE(t.pixel(1, 1), qRgb(255, 255, 255));
    }

    void divergingSharedAndPerTileScales() {
        SampleGrid g;
        g.setMode(SampleGrid::Mode::Diverging);
        rbm::RowMat W(2, 4);
        W << -2.0, 0.0, 1.0, 2.0,  // largest |w| of all: 2
            0.5, -0.5, 0.25, 0.0;  // its own largest: 0.5
        g.setSamples(W, 2, 2);
        QCOMPARE(g.tileImage(0).pixel(0, 0), divergingColor(-1));
        QCOMPARE(g.tileImage(0).pixel(1, 0), qRgb(255, 255, 255));
        QCOMPARE(g.tileImage(0).pixel(0, 1), divergingColor(0.5));
        QCOMPARE(g.tileImage(0).pixel(1, 1), divergingColor(1));
        QCOMPARE(g.tileImage(1).pixel(0, 0), divergingColor(0.25));  // shared: 0.5 / 2
        g.setPerTileScale(true);
        QCOMPARE(g.tileImage(1).pixel(0, 0), divergingColor(1));  // per tile: 0.5 / 0.5
        QCOMPARE(g.tileImage(1).pixel(1, 0), divergingColor(-1));
        QCOMPARE(g.tileImage(0).pixel(0, 1), divergingColor(0.5));  // tile 0 unchanged
        // The map's ends and middle.
        QCOMPARE(divergingColor(0), qRgb(255, 255, 255));
        QCOMPARE(divergingColor(1), qRgb(178, 24, 43));
        QCOMPARE(divergingColor(-1), qRgb(33, 102, 172));
    }

    void shapesInferredOrRefused() {
        SampleGrid g;
        g.setSamples(rbm::RowMat::Zero(3, 64));
        QCOMPARE(g.imageRows(), 8);
        QVERIFY(g.message().isEmpty());
        g.setSamples(rbm::RowMat::Zero(3, 10));
        QCOMPARE(g.tileCount(), 0);
        QVERIFY2(g.message().contains(QStringLiteral("10 values")), qPrintable(g.message()));
        g.setSamples(rbm::RowMat::Zero(3, 10), 2, 5);
        QCOMPARE(g.tileCount(), 3);
        QVERIFY(g.message().isEmpty());
        g.setSamples(rbm::RowMat::Zero(3, 10), 3, 3);  // 9 != 10
        QCOMPARE(g.tileCount(), 0);
        QVERIFY(g.message().contains(QStringLiteral("3×3")));
    }

    void tilesFitWithoutOverlapAndPaintTheirColours() {
        SampleGrid g;
        g.resize(400, 300);
        rbm::RowMat X = rbm::RowMat::Zero(30, 16);
        for (int t = 0; t < 30; t += 2) X.row(t).setOnes();  // even tiles white, odd tiles black
        g.setSamples(X);
        g.show();
        QVERIFY(QTest::qWaitForWindowExposed(&g));
        const QImage shot = g.grab().toImage();
        QRegion used;
        for (int t = 0; t < 30; ++t) {
            const QRect r = g.tileRect(t);
            QVERIFY(r.width() >= 4 && r.height() >= 4);
            QVERIFY2(g.rect().contains(r), qPrintable(QStringLiteral("tile %1 outside").arg(t)));
            QVERIFY(!used.intersects(r));
            used += r;
            const QRgb c = shot.pixel(r.center() * shot.devicePixelRatio());
            QCOMPARE(qGray(c), t % 2 == 0 ? 255 : 0);
        }
        // Square tiles of a whole number of screen pixels per image pixel.
        QCOMPARE(g.tileRect(0).width(), g.tileRect(0).height());
        QCOMPARE(g.tileRect(0).width() % 4, 0);
        g.setColumns(3);
        QCOMPARE(g.layoutColumns(), 3);
        QCOMPARE(g.tileRect(3).left(), g.tileRect(0).left());  // tile 3 starts the second row
    }
};

QTEST_MAIN(TestSampleGrid)
#include "tst_sample_grid.moc"
