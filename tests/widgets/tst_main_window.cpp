// The main window opens every preset, draws the exact density off the GUI thread, puts the
// brightest pixels on the four-mode toy's heavy modes, and keeps the model when a file is bad.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "core/exact/exact.hpp"
#include "core/io/presets.hpp"
#include "main_window/main_window.hpp"
#include "window_views.hpp"

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
        const QImage img = densityViewOf(w)->image();
        QVERIFY(!img.isNull());
        const QRectF dom = densityViewOf(w)->domain();
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

    // Every view of every preset renders once its results are in; the 2-D ones draw heatmaps,
    // the others say why they cannot.
    void everyViewRendersWithEveryPreset_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("view");
        for (const auto& p : rbm::list_presets())
            for (const char* v : {"annealing", "compare", "estimates"})
                QTest::newRow((p.name + "/" + v).c_str()) << QString::fromStdString(p.name) << QString::fromLatin1(v);
    }
    void everyViewRendersWithEveryPreset() {
        QFETCH(QString, preset);
        QFETCH(QString, view);
        MainWindow w;
        w.setInteractive(false);
        w.resize(1100, 720);
        w.show();
        QVERIFY(w.loadPreset(preset));
        QVERIFY(w.setCurrentView(view));
        QCOMPARE(w.currentView(), view);
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), 30000);
        QVERIFY(!w.grab().isNull());
        const bool twoD = w.model().n_visible() == 2 && w.model().kind() != rbm::ModelKind::Brbm;
        if (view != "estimates") {
            rbmscope::AnnealingView* a = view == "annealing" ? annealingViewOf(w) : compareViewOf(w);
            if (twoD) {
                QVERIFY(a->laneCount() >= 1);
                for (int i = 0; i < a->laneCount(); ++i) QVERIFY(!a->heatmap(i)->image().isNull());
                QCOMPARE(a->laneCount(), view == "annealing" ? 1 : 2);
            }
        } else {
            // The auto-run finished: the summary lists each method's estimate.
            QVERIFY(aisJobOf(w)->lanes().size() >= 1);
            for (const auto& lane : aisJobOf(w)->lanes()) QVERIFY2(lane.result, qPrintable(lane.error));
            QVERIFY(estimatesViewOf(w)->summaryLabel()->text().contains(QStringLiteral("log Ẑ")));
        }
    }

    // Dragging a hidden unit's arrow edits W live: the exact density and log Z follow at most
    // ~30 times a second, and the paths and the run follow when the drag ends.
    void draggingAnArrowEditsTheModelLive() {
        MainWindow w;
        w.setInteractive(false);
        w.resize(1200, 800);
        w.show();
        QVERIFY(w.loadPreset(QStringLiteral("four-mode")));
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), 30000);
        rbmscope::HeatmapView* v = densityViewOf(w);
        // Hidden unit 1's arrow: from b = (0,0) to sigma∘W_1 = (3,1).
        const QPoint tip = v->toWidget(QPointF(3, 1)).toPoint();
        QSignalSpy density(&w, &MainWindow::densityReady);
        QTest::mousePress(v, Qt::LeftButton, {}, tip);
        QElapsedTimer clock;
        clock.start();
        const int moves = 60;
        for (int i = 1; i <= moves; ++i) {
            const QPointF m(3.0 - 1.5 * i / moves, 1.0 + 1.0 * i / moves);  // drag towards (1.5, 2)
            // (QTest::mouseMove moves the cursor, which the offscreen platform does not turn into events.)
            const QPointF at = v->toWidget(m);
            QMouseEvent move(QEvent::MouseMove, at, v->mapToGlobal(at), Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
            QApplication::sendEvent(v, &move);
            QTest::qWait(8);
        }
        const QPointF end(1.5, 2.0);  // the last move's position, in model units
        const double seconds = clock.nsecsElapsed() / 1e9;
        QTest::qWait(60);
        const int liveRedraws = static_cast<int>(density.count());
        QVERIFY2(liveRedraws >= 2, "the density must follow the drag");
        QVERIFY2(liveRedraws <= seconds * 30 + 3,
                 qPrintable(QStringLiteral("%1 redraws in %2 s").arg(liveRedraws).arg(seconds)));
        QTest::mouseRelease(v, Qt::LeftButton, {}, v->toWidget(QPointF(1.5, 2.0)).toPoint());
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), 30000);
        const auto* g = w.model().as<rbm::Grbm>();
        QVERIFY(g);
        QVERIFY2(std::fabs(g->W(0, 0) - end.x()) < 1e-9 && std::fabs(g->W(1, 0) - end.y()) < 1e-9,
                 qPrintable(QStringLiteral("W_1 = (%1, %2)").arg(g->W(0, 0)).arg(g->W(1, 0))));
        QCOMPARE(g->W(0, 1), 1.0);  // the other unit is untouched
        QCOMPARE(w.panel()->grbmEditor()->weightBox(0, 0)->value(), std::round(end.x() * 1000) / 1000);
        QVERIFY(exactLogZOf(w).has_value());
        QVERIFY(std::fabs(*exactLogZOf(w) - rbm::exact_log_z(w.model())) < 1e-12);
        QVERIFY(std::fabs(*exactLogZOf(w) - rbm::exact_log_z(rbm::load_preset("four-mode"))) > 1e-3);
        // The run restarted on the edited model: its paths are built from it.
        QVERIFY(!aisJobOf(w)->lanes().empty() && aisJobOf(w)->lanes()[0].result);
        // Reset brings the preset back.
        w.reset();
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), 30000);
        QCOMPARE(w.model().as<rbm::Grbm>()->W(0, 0), 3.0);
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
