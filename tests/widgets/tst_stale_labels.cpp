// Nothing stale (issue #15, item 4): every label describes the state it sits next to. An edited
// preset says "edited" in the window title and the description; the tempering trajectory's β
// labels follow a rung drag; after Esc the status line says "partial (β = …)" and shows no exact
// log Z beside a partial log Ẑ_β; the particle overlay gives the real N; the training chart's
// ticks are distinct; the mean-field density does not say "computing…" before Run.
#include <QSet>
#include <QtTest>

#include "main_window/main_window.hpp"
#include "core/io/presets.hpp"
#include "ladder_plot.hpp"
#include "run_curves.hpp"

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
        Q_EMIT w.densityView()->arrowDragged(0, QPointF(1.5, -2.0));
        Q_EMIT w.densityView()->arrowDragFinished(0);
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
        QTRY_VERIFY_WITH_TIMEOUT(w.exactLogZ().has_value(), kIdleMs);
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
        QTRY_VERIFY_WITH_TIMEOUT(!w.session()->running(), kIdleMs);
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
        w.annealingView()->setBeta(1.0);
        const QString overlay = w.annealingView()->heatmap(0)->overlayText();
        const QChar thin(0x2009);  // thousands are grouped with thin spaces
        QVERIFY2(overlay.contains(QStringLiteral("1") + thin + QStringLiteral("000 of 5") + thin + QStringLiteral("000 AIS particles shown")),
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
