// Nothing stale: every label describes the state it sits next to. An edited
// preset says "edited" in the window title and the description; the tempering trajectory's β
// labels follow a rung drag; after Esc the status line says "partial (β = …)" and shows no exact
// log Z beside a partial log Ẑ_β; the particle overlay gives the real N; the training chart's
// ticks are distinct; the mean-field density does not say "computing…" before Run. Each view's own
// status line says paused while its job is held; Esc with nothing running leaves a finished run
// finished.
#include <QLabel>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

#include "core/io/presets.hpp"
#include "ladder_plot.hpp"
#include "main_window/main_window.hpp"
#include "run_curves.hpp"
#include "test_window.hpp"

using namespace rbmscope;

namespace {

constexpr int kIdleMs = 60000;

void open(MainWindow& w, const char* preset) {
    w.setInteractive(false);
    w.setAutosave(false);
    QVERIFY(w.loadPreset(QString::fromLatin1(preset)));
    QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kIdleMs);
}

}  // namespace

class TestStaleLabels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void editedPresetIsCalledEdited() {
        MainWindow w;
        open(w, "four-mode");
        if (QTest::currentTestFailed()) return;
        QVERIFY(!w.windowTitle().contains(QStringLiteral("edited")));
        QVERIFY(!w.modelSummary().contains(QStringLiteral("edited")));
        // Dragging a hidden-unit arrow.
        Q_EMIT densityViewOf(w)->arrowDragged(0, QPointF(1.5, -2.0));
        Q_EMIT densityViewOf(w)->arrowDragFinished(0);
        QVERIFY2(w.windowTitle().contains(QStringLiteral("(edited)")), qPrintable(w.windowTitle()));
        QTRY_VERIFY_WITH_TIMEOUT(w.modelSummary().contains(QStringLiteral("(edited)")), kIdleMs);
        QVERIFY(w.modelSummary().contains(QStringLiteral("Edited by hand")));
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kIdleMs);
        // Reopening the preset: the original again.
        QVERIFY(w.loadPreset(QStringLiteral("four-mode")));
        QVERIFY(!w.windowTitle().contains(QStringLiteral("edited")));
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kIdleMs);
        QVERIFY(!w.modelSummary().contains(QStringLiteral("edited")));
        // Editing in the GRBM editor.
        rbm::Grbm g = *w.model().as<rbm::Grbm>();
        g.b(0) += 0.25;
        Q_EMIT w.panel()->grbmEditor()->edited(g);
        QVERIFY2(w.windowTitle().contains(QStringLiteral("(edited)")), qPrintable(w.windowTitle()));
        QTRY_VERIFY_WITH_TIMEOUT(w.modelSummary().contains(QStringLiteral("(edited)")), kIdleMs);
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kIdleMs);
    }

    void trajectoryAxisFollowsARungDrag() {
        TemperingView v;
        v.resize(1100, 700);
        v.show();
        v.setModel(rbm::load_preset("four-mode"));
        TemperingSettings s = v.settings();
        s.ladder = LadderKind::Geometric;
        s.replicas = 5;
        s.scans = 400;
        v.setSettings(s);
        std::vector<double> betas = v.ladderPlot()->ladder();
        QCOMPARE(betas.size(), std::size_t(5));
        betas[2] = 0.5 * (betas[1] + betas[3]) + 0.01;  // a rung dragged
        Q_EMIT v.ladderPlot()->ladderEdited(betas);
        QVERIFY(v.trajectoryChart()->betas() == betas);  // at once
        QTRY_VERIFY_WITH_TIMEOUT(v.framesShown() > 0, kIdleMs);
        QVERIFY(v.trajectoryChart()->betas() == betas);  // and with the run's frames
        QTRY_VERIFY_WITH_TIMEOUT(!v.running(), kIdleMs);
        QVERIFY(v.trajectoryChart()->betas() == betas);
    }

    void cancelledRunSaysPartial() {
        MainWindow w;
        open(w, "four-mode");
        if (QTest::currentTestFailed()) return;
        QTRY_VERIFY_WITH_TIMEOUT(exactLogZOf(w).has_value(), kIdleMs);
        RunSettings s = w.settings();
        s.autoRun = false;
        s.schedule.steps = 1000000;
        s.chains = 50;
        w.applySettings(s);
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kIdleMs);
        QVERIFY(w.setCurrentView(QStringLiteral("annealing")));
        w.runCurrent();
        QTRY_VERIFY_WITH_TIMEOUT(w.transport()->units() > 20, kIdleMs);
        w.cancelCurrent();
        QTRY_VERIFY_WITH_TIMEOUT(!aisJobOf(w)->running(), kIdleMs);
        const QString line = w.statusLine();
        QVERIFY2(line.contains(QStringLiteral("partial (β = ")), qPrintable(line));
        QVERIFY2(line.contains(QStringLiteral("log Ẑ_β")), qPrintable(line));
        QVERIFY2(!line.contains(QStringLiteral("exact")), qPrintable(line));
    }

    void overlayGivesTheRealParticleCount() {
        MainWindow w;
        open(w, "four-mode");
        if (QTest::currentTestFailed()) return;
        RunSettings s = w.settings();
        s.autoRun = false;
        s.schedule.steps = 20;
        s.chains = 5000;  // the view draws the first 1000
        w.applySettings(s);
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kIdleMs);
        QVERIFY(w.setCurrentView(QStringLiteral("annealing")));
        w.runCurrent();
        QTRY_VERIFY_WITH_TIMEOUT(w.transport()->state() == Transport::State::Finished && w.idle(), kIdleMs);
        annealingViewOf(w)->setBeta(1.0);
        const QString overlay = annealingViewOf(w)->heatmap(0)->overlayText();
        const QChar thin(0x2009);  // thousands are grouped with thin spaces
        QVERIFY2(overlay.contains(QStringLiteral("1") + thin + QStringLiteral("000 of 5") + thin +
                                  QStringLiteral("000 AIS particles shown")),
                 qPrintable(overlay));
    }

    void trainingTicksAreDistinct() {
        RunCurves c;
        c.resize(600, 400);
        c.show();
        std::vector<QPointF> pts;
        for (int i = 0; i <= 40; ++i) pts.emplace_back(i * 25, -11.09 + 0.001 * i);  // -11.09 .. -11.05
        c.setCurve(1, QStringLiteral("cd"), Qt::blue, pts);
        const QStringList y = c.tickLabels(Qt::Vertical);
        QVERIFY2(y.size() >= 3, qPrintable(y.join(QStringLiteral(" | "))));
        QCOMPARE(QSet<QString>(y.begin(), y.end()).size(), y.size());
        const QStringList x = c.tickLabels(Qt::Horizontal);
        QCOMPARE(QSet<QString>(x.begin(), x.end()).size(), x.size());
    }

    // A y title longer than the plot is tall is hidden rather than printed clipped ("log-likel…"
    // in presenter mode at 1280 x 720), and shown again when the chart grows.
    void yTitleHiddenWhenItWouldBeClipped() {
        RunCurves c;
        c.setTitles(QStringLiteral("Average log-likelihood"), QStringLiteral("updates"),
                    QStringLiteral("log-likelihood"));
        QFont big = c.chart()->axes(Qt::Vertical).front()->titleFont();
        big.setPointSizeF(24);
        c.chart()->axes(Qt::Vertical).front()->setTitleFont(big);
        c.setCurve(1, QStringLiteral("pcd"), Qt::blue, {QPointF(0, -80), QPointF(100, -40)});
        c.resize(500, 220);
        c.show();
        QVERIFY(QTest::qWaitForWindowExposed(&c));
        QTRY_VERIFY(!c.yTitleShown());
        c.resize(500, 700);
        QTRY_VERIFY(c.yTitleShown());
    }

    // Space on a view's job: its own status line says paused (not "running…") until Space resumes.
    void statusLineSaysPausedWhilePaused_data() {
        QTest::addColumn<QString>("view");
        for (const char* v : {"annealing", "estimates", "tempering", "samples"})
            QTest::newRow(v) << QString::fromLatin1(v);
    }
    void statusLineSaysPausedWhilePaused() {
        QFETCH(QString, view);
        MainWindow w;
        open(w, view == QLatin1String("samples") ? "bars-and-stripes" : "four-mode");
        if (QTest::currentTestFailed()) return;
        makeRunsLong(w, kIdleMs);
        if (QTest::currentTestFailed()) return;
        QVERIFY(w.setCurrentView(view));
        // The line the view's user reads: the view's own, or the main window's for the AIS views.
        const auto line = [&] {
            if (view == QLatin1String("tempering")) return temperingViewOf(w)->statusText();
            if (view == QLatin1String("samples")) return samplesViewOf(w)->statusText();
            return w.statusLine();
        };
        Transport* t = w.transport();
        w.runCurrent();
        QTRY_VERIFY_WITH_TIMEOUT(t->units() > 3, kIdleMs);
        QTRY_VERIFY_WITH_TIMEOUT(!line().contains(QStringLiteral("aused")), 5000);
        w.togglePause();
        QTRY_COMPARE_WITH_TIMEOUT(t->state(), Transport::State::Paused, 10000);
        QTRY_VERIFY2_WITH_TIMEOUT(line().contains(QStringLiteral("aused")), qPrintable(line()), 5000);
        QVERIFY2(!line().contains(QStringLiteral("running")), qPrintable(line()));
        QTest::qWait(200);
        QVERIFY2(line().contains(QStringLiteral("aused")), qPrintable(line()));
        w.togglePause();
        QTRY_VERIFY2_WITH_TIMEOUT(!line().contains(QStringLiteral("aused")), qPrintable(line()), 5000);
        w.cancelCurrent();
        QTRY_VERIFY_WITH_TIMEOUT(!t->jobActive(), 10000);
    }

    // Esc with nothing running changes nothing: a finished run stays finished, in every view.
    void escAfterAFinishedRunKeepsItFinished_data() {
        QTest::addColumn<QString>("view");
        for (const char* v : {"annealing", "estimates", "tempering", "meanfield", "samples"})
            QTest::newRow(v) << QString::fromLatin1(v);
    }
    void escAfterAFinishedRunKeepsItFinished() {
        QFETCH(QString, view);
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        open(w, view == QLatin1String("samples") ? "bars-and-stripes" : "four-mode");
        if (QTest::currentTestFailed()) return;
        RunSettings s = w.settings();
        s.autoRun = false;
        s.schedule.steps = 200;
        s.chains = 20;
        s.sweepSteps = {20, 40};
        w.applySettings(s);
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kIdleMs);
        if (view == QLatin1String("tempering")) {
            TemperingSettings t = temperingViewOf(w)->settings();
            t.scans = 400;
            t.scansPerSecond = 0;
            temperingViewOf(w)->setSettings(t);
        }
        QVERIFY(w.setCurrentView(view));
        w.centralWidget()->setFocus();
        Transport* t = w.transport();
        press(w, Qt::Key_F5);
        QTRY_VERIFY_WITH_TIMEOUT(t->state() == Transport::State::Finished && w.idle(), kIdleMs);
        auto* label = w.findChild<QLabel*>(QStringLiteral("transportState"));
        QVERIFY(label);
        const QString before = label->text();
        QVERIFY2(before.contains(QStringLiteral("finished")), qPrintable(before));
        press(w, Qt::Key_Escape);
        QTest::qWait(100);
        QCOMPARE(t->state(), Transport::State::Finished);
        QCOMPARE(label->text(), before);
    }

    // A restored session re-runs AIS (auto-run); the Compare view's toolbar then describes that run.
    void restoredSessionToolbarDescribesItsRun() {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("s.json"));
        {
            MainWindow w;
            open(w, "four-mode");
            if (QTest::currentTestFailed()) return;
            QVERIFY(w.setCurrentView(QStringLiteral("compare")));
            QVERIFY(w.saveSession(file));
        }
        MainWindow w;
        w.setInteractive(false);
        w.setAutosave(false);
        QVERIFY(w.openSession(file));
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kIdleMs);
        QCOMPARE(w.currentView(), QStringLiteral("compare"));
        QVERIFY(!aisJobOf(w)->lanes().empty() && aisJobOf(w)->lanes().front().result);
        auto* label = w.findChild<QLabel*>(QStringLiteral("transportState"));
        QVERIFY(label);
        QTest::qWait(50);
        QVERIFY2(label->text().contains(QStringLiteral("finished")) && !label->text().contains(QStringLiteral(" 0 ")),
                 qPrintable(label->text()));
        QCOMPARE(w.transport()->state(), Transport::State::Finished);
    }

    void meanFieldSaysPressRunNotComputing() {
        MeanFieldView v;
        v.resize(1000, 700);
        v.show();
        v.setModel(rbm::load_preset("four-mode"));
        QVERIFY2(v.heatmap()->message().contains(QStringLiteral("Press Run")), qPrintable(v.heatmap()->message()));
        v.run();
        QTRY_VERIFY_WITH_TIMEOUT(!v.running(), kIdleMs);
        QVERIFY(v.heatmap()->message().isEmpty());
    }
};

QTEST_MAIN(TestStaleLabels)
#include "tst_stale_labels.moc"
