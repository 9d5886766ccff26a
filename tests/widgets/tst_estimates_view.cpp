// The estimates view: a sweep over K puts one point per (method, K) on the log Z and ESS charts as
// each run finishes, with error bars matching the estimates and the exact log Z as a line; the
// points are the runs' own estimates (the same seed gives the same numbers as a direct run);
// cancelling a sweep keeps the points computed; reverse AIS adds the upper side of the sandwich.
#include <QSignalSpy>
#include <QtTest>
#include <cmath>

#include "core/ais/paths.hpp"
#include "core/ais/runner.hpp"
#include "core/exact/exact.hpp"
#include "core/io/presets.hpp"
#include "main_window/main_window.hpp"
#include "window_views.hpp"

using namespace rbmscope;

namespace {

bool waitIdle(MainWindow& w, int ms = 60000) {
    QElapsedTimer t;
    t.start();
    while (!w.idle() && t.elapsed() < ms) QTest::qWait(10);
    return w.idle();
}

void open(MainWindow& w, const QString& preset) {
    w.setInteractive(false);
    w.resize(1200, 800);
    w.show();
    QVERIFY(w.loadPreset(preset));
    QVERIFY(waitIdle(w));
}

// The sweep's settings on the panel, nothing run until startSweep.
void setSweep(MainWindow& w, rbm::Index chains, std::vector<rbm::Index> steps) {
    RunSettings s = w.settings();
    s.autoRun = false;
    s.chains = chains;
    s.sweepSteps = std::move(steps);
    w.applySettings(s);
    QVERIFY(waitIdle(w));
}

}  // namespace

class TestEstimatesView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sweepPointsAppearAsRunsFinish() {
        MainWindow w;
        open(w, "four-mode");
        setSweep(w, 1000,
                 {50, 400, 3000});  // 1000 chains: long enough that redraws (coalesced to ~30/s) land between runs
        std::vector<int> seen;      // points on the chart at each update
        connect(sweepJobOf(w), &SweepJob::progressed, this,
                [&] { seen.push_back(estimatesViewOf(w)->plottedPoints()); });
        w.startSweep();
        QCOMPARE(w.currentView(), QStringLiteral("estimates"));
        QVERIFY(waitIdle(w));
        EstimatesView* v = estimatesViewOf(w);
        QCOMPARE(v->plottedPoints(), 6);  // AIS and AISC at three K
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));
        QVERIFY2(std::count_if(seen.begin(), seen.end(), [](int n) { return n > 0 && n < 6; }) > 0,
                 "points must appear before the sweep ends");
        QCOMPARE(v->logZChart()->barCount(), std::size_t(6));
        // The first point is exactly what a direct run with the same settings gives.
        const SweepPoint& p = sweepJobOf(w)->points().front();
        QCOMPARE(p.steps, rbm::Index(50));
        QCOMPARE(p.lane, 0);
        rbm::PathRequest req;
        const rbm::Model m = rbm::load_preset("four-mode");
        const auto path = rbm::build_path(m, req);
        rbm::ScheduleRequest sr;
        sr.steps = 50;
        rbm::AisOptions opt;
        opt.chains = 1000;
        opt.seed = 1;
        const rbm::AisResult r = rbm::run_ais(*path, rbm::make_schedule(sr), opt);
        QCOMPARE(p.estimate.log_z, r.estimate.log_z);
        QCOMPARE(p.estimate.ci95_low, r.estimate.ci95_low);
        // Exact log Z known: the exact line is drawn across the K range.
        QVERIFY(exactLogZOf(w).has_value());
        QVERIFY(std::fabs(*exactLogZOf(w) - rbm::exact_log_z(m)) < 1e-12);
        // Every estimate within a few of its bootstrap widths of the truth (unbiased method).
        for (const SweepPoint& q : sweepJobOf(w)->points()) {
            const double width = std::max(0.01, q.estimate.ci95_high - q.estimate.ci95_low);
            QVERIFY2(std::fabs(q.estimate.log_z - *exactLogZOf(w)) < 3 * width,
                     qPrintable(QStringLiteral("K=%1 log Z %2").arg(q.steps).arg(q.estimate.log_z)));
        }
        // The CSV export carries the same numbers.
        const QStringList lines = v->exportCsv().split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 7);
        QVERIFY(lines[1].startsWith(QStringLiteral("\"AIS\",50,")));
        QCOMPARE(lines[1].split(',')[2].toDouble(), p.estimate.log_z);
    }

    void cancellingASweepKeepsItsPoints() {
        MainWindow w;
        open(w, "four-mode");
        setSweep(w, 2000, {5, 10, 400000});
        w.startSweep();
        QTRY_VERIFY_WITH_TIMEOUT(sweepJobOf(w)->points().size() >= 4, 30000);
        QTest::qWait(100);  // well into the long run
        QVERIFY(sweepJobOf(w)->running());
        QSignalSpy finished(sweepJobOf(w), &SweepJob::finished);
        QElapsedTimer t;
        t.start();
        w.stopAll();
        QVERIFY(finished.wait(5000));
        qInfo("sweep stopped %.1f ms after Cancel", t.nsecsElapsed() / 1e6);
        QCOMPARE(finished.first().first().toBool(), false);
        QCOMPARE(sweepJobOf(w)->points().size(), std::size_t(4));
        QCOMPARE(estimatesViewOf(w)->plottedPoints(), 4);
        QVERIFY(sweepJobOf(w)->fraction() < 1.0);
    }

    void reverseAisAddsTheUpperSide() {
        MainWindow w;
        open(w, "two-gaussians");
        RunSettings s = w.settings();
        s.autoRun = false;
        s.reverse = true;
        s.chains = 500;
        s.sweepSteps = {10, 100};
        w.applySettings(s);
        QVERIFY(waitIdle(w));
        w.startSweep();
        w.startRun();
        QVERIFY(waitIdle(w));
        QCOMPARE(sweepJobOf(w)->points().size(), std::size_t(4));
        for (const SweepPoint& p : sweepJobOf(w)->points()) QVERIFY(p.reverseUpper.has_value());
        // The summary shows the sandwich of the current run.
        QVERIFY(estimatesViewOf(w)->summaryLabel()->text().contains(QStringLiteral("(reverse)")));
        // Error-bar modes: +-3 sigma bars are the estimate's own bounds.
        estimatesViewOf(w)->setBars(EstimatesView::Bars::ThreeSigma);
        QCOMPARE(estimatesViewOf(w)->logZChart()->barCount(), std::size_t(8));  // forward and reverse
    }

    // A sweep whose K lie inside one decade (20 and 50: the padded range 12.5-80 holds no power of
    // ten) still gets labelled K axes.
    void kAxesAreLabelledInsideOneDecade() {
        MainWindow w;
        open(w, "four-mode");
        setSweep(w, 100, {20, 50});
        w.startSweep();
        QVERIFY(waitIdle(w));
        EstimatesView* v = estimatesViewOf(w);
        QCOMPARE(v->plottedPoints(), 4);
        for (QChart* c : {v->logZChart()->chart(), v->essChart()}) {
            const auto axes = c->axes(Qt::Horizontal);
            QCOMPARE(axes.size(), qsizetype(1));
            auto* x = qobject_cast<QLogValueAxis*>(axes.front());
            QVERIFY(x);
            int decades = 0;  // powers of ten inside the range: the only labelled ticks of a log axis
            for (double p = 1; p <= 1e9; p *= 10) decades += p >= x->min() * (1 - 1e-12) && p <= x->max() * (1 + 1e-12);
            QVERIFY2(decades >= 2, qPrintable(QStringLiteral("%1 to %2").arg(x->min()).arg(x->max())));
            QVERIFY(x->min() <= 20 && x->max() >= 50);
        }
    }
};

QTEST_MAIN(TestEstimatesView)
#include "tst_estimates_view.moc"
