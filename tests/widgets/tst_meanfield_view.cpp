// The mean-field panel on the four-mode GRBM shows three free energies and the exact one in the
// order Proposition 2 demands (-log Z <= F_II <= F_I), draws every method's ellipses on the exact
// density, shows a clear message for a BRBM, and the background sweep fills its table and chart
// row by row with type I above type II above the exact free energy at every scale. The convergence
// chart holds, for each method, the residual after every sweep of the restart the table reports,
// and follows the model when it changes.
// Screenshot: meanfield.png in screenshotDir() (docs/screenshots via scripts/screenshots.sh).
#include <QSignalSpy>
#include <QXYSeries>
#include <QtTest>
#include <cmath>

#include "views/meanfield/meanfield_view.hpp"

#include <algorithm>
#include "core/io/presets.hpp"
#include "screenshot_dir.hpp"

using namespace rbmscope;

namespace {

rbm::Model fiveByThree() {
    rbm::Model m;
    rbm::Grbm g;
    g.W = rbm::Mat::Constant(5, 3, 0.2);
    g.W(0, 1) = -0.4;
    g.b = rbm::Vec::LinSpaced(5, -1, 1);
    g.c = rbm::Vec::Constant(3, -0.5);
    g.sigma = rbm::Vec::Ones(5);
    m.params = g;
    m.name = "5x3";
    return m;
}

// The convergence chart shows exactly the traces the engine records for `model` with the view's
// options: one series per method, one point (sweep, residual) per sweep of the reported restart,
// as many as the table's iteration count, in the colour the sweep chart gives that method.
void checkConvergenceChart(const MeanFieldView& v, const rbm::Model& model) {
    const auto series = v.convergenceChartView()->chart()->series();
    QCOMPARE(series.size(), 3);
    const auto sweepSeries = v.sweepChartView()->chart()->series();
    const rbm::MeanFieldType types[3] = {rbm::MeanFieldType::TypeI, rbm::MeanFieldType::TypeII,
                                         rbm::MeanFieldType::Tap};
    for (int i = 0; i < 3; ++i) {
        rbm::MeanFieldOptions o = v.runOptions();
        o.type = types[i];
        const rbm::MeanFieldResult r = rbm::mean_field(model, o);
        const auto* s = static_cast<const QXYSeries*>(series[i]);
        QVERIFY(r.iterations > 0);
        QCOMPARE(static_cast<long long>(s->count()), r.iterations);
        QCOMPARE(v.table()->item(i, 2)->text().toLongLong(), r.iterations);
        QCOMPARE(s->pen().color(), static_cast<const QXYSeries*>(sweepSeries[i])->pen().color());
        for (int k = 0; k < s->count(); ++k) {
            QCOMPARE(s->at(k).x(), double(k + 1));
            QCOMPARE(s->at(k).y(), std::max(MeanFieldView::kTraceFloor, r.trace.residual[static_cast<std::size_t>(k)]));
        }
    }
}

}  // namespace

class TestMeanFieldView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fourModeShowsFreeEnergiesAndEllipses() {
        MeanFieldView v;
        v.resize(1300, 950);
        v.show();
        v.setModel(rbm::load_preset("four-mode"));
        QVERIFY(v.message().isEmpty());
        QSignalSpy shown(&v, &MeanFieldView::resultsShown);
        QSignalSpy sweep(&v, &MeanFieldView::sweepFinished);
        v.run();
        QVERIFY(shown.wait(30000));
        const auto f = v.freeEnergies();
        for (double x : f) QVERIFY(std::isfinite(x));
        qInfo("F_I %.6f F_II %.6f F_TAP %.6f -logZ %.6f", f[0], f[1], f[2], f[3]);
        QVERIFY(f[3] <= f[1] + 1e-9);  // -log Z <= F_II
        QVERIFY(f[1] <= f[0] + 1e-9);  // F_II <= F_I
        QVERIFY(f[0] - f[3] > 1e-3);   // four modes: one Gaussian ball is visibly worse
        for (int r = 0; r < 4; ++r) QVERIFY(!v.table()->item(r, 0)->text().isEmpty());
        QVERIFY(!v.heatmap()->image().isNull());
        // type I, type II components (>= 1) and covariance, TAP covariance, exact covariance.
        QVERIFY2(v.heatmap()->ellipseCount() >= 5, qPrintable(QString::number(v.heatmap()->ellipseCount())));
        // The type I ellipse is a sigma-ball: axis-aligned with the model's sigma^2.
        bool sawTypeI = false;
        for (const auto& e : v.heatmap()->ellipses())
            if (e.width > 2.55) {  // only type I is drawn this thick
                QCOMPARE(e.cxy, 0.0);
                QCOMPARE(e.cxx, 1.0);  // sigma_1^2
                QCOMPARE(e.cyy, 1.0);
                sawTypeI = true;
            }
        QVERIFY(sawTypeI);
        checkConvergenceChart(v, rbm::load_preset("four-mode"));
        if (QTest::currentTestFailed()) return;
        qInfo("iterations I %lld II %lld TAP %lld", v.table()->item(0, 2)->text().toLongLong(),
              v.table()->item(1, 2)->text().toLongLong(), v.table()->item(2, 2)->text().toLongLong());
        // Start a sweep so the screenshot shows a few rows too.
        v.setSweepTrials(4);
        v.runSweep();
        QVERIFY(sweep.wait(60000));
        QVERIFY(v.grabForScreenshot().save(screenshotDir() + QStringLiteral("/meanfield.png")));
    }

    void brbmShowsAMessage() {
        MeanFieldView v;
        v.show();
        v.setModel(rbm::load_preset("bars-and-stripes"));
        QVERIFY(v.message().contains(QStringLiteral("Gaussian RBM")));
        QVERIFY(v.message().contains(QStringLiteral("brbm")));
        v.setSweepTrials(2);
        QSignalSpy sweep(&v, &MeanFieldView::sweepFinished);
        v.run();  // runs only the sweep
        QVERIFY(sweep.wait(60000));
        for (double x : v.freeEnergies()) QVERIFY(std::isnan(x));
    }

    void sweepFillsRowByRowWithTheBoundsInOrder() {
        MeanFieldView v;
        v.show();
        v.setSweepTrials(3);
        QSignalSpy rows(&v, &MeanFieldView::sweepRowShown);
        QSignalSpy done(&v, &MeanFieldView::sweepFinished);
        v.runSweep();
        QVERIFY(done.wait(60000));
        const int n = static_cast<int>(v.sweepOptions().scales.size());
        QCOMPARE(rows.count(), n);
        QCOMPARE(v.sweepTable()->rowCount(), n);
        const auto series = v.sweepChartView()->chart()->series();
        QCOMPARE(series.size(), 4);
        for (auto* s : series) QCOMPARE(static_cast<QXYSeries*>(s)->count(), n);
        // Series order: type I, type II, TAP, exact.
        for (int i = 0; i < n; ++i) {
            const auto y = [&](int k) { return static_cast<QXYSeries*>(series[k])->at(i).y(); };
            const double f1 = y(0), f2 = y(1), fz = y(3);
            QVERIFY2(fz <= f2 + 1e-9 && f2 <= f1 + 1e-9,
                     qPrintable(QStringLiteral("%1 %2 %3").arg(f1).arg(f2).arg(fz)));
        }
        // The gap of type I grows with the coupling (common random numbers).
        const auto at = [&](int k, int i) { return static_cast<QXYSeries*>(series[k])->at(i).y(); };
        QVERIFY(at(0, n - 1) - at(3, n - 1) > at(0, 0) - at(3, 0));
    }

    void convergenceChartFollowsTheModel() {
        MeanFieldView v;
        v.resize(1300, 950);
        v.show();
        v.setSweepTrials(2);
        const rbm::Model fourMode = rbm::load_preset("four-mode");
        v.setModel(fourMode);
        for (auto* s : v.convergenceChartView()->chart()->series()) QCOMPARE(static_cast<QXYSeries*>(s)->count(), 0);
        QSignalSpy shown(&v, &MeanFieldView::resultsShown);
        v.run();
        QVERIFY(shown.wait(30000));
        checkConvergenceChart(v, fourMode);
        if (QTest::currentTestFailed()) return;
        // A new model empties the chart at once (nothing stale while it computes), and its run
        // shows the new traces, not the old ones.
        const rbm::Model other = fiveByThree();
        v.setModel(other);
        for (auto* s : v.convergenceChartView()->chart()->series()) QCOMPARE(static_cast<QXYSeries*>(s)->count(), 0);
        v.run();
        QVERIFY(shown.wait(30000));
        checkConvergenceChart(v, other);
        v.cancel();
    }

    void largerGrbmShowsTheTableWithoutAPicture() {
        const rbm::Model m = fiveByThree();
        MeanFieldView v;
        v.show();
        v.setSweepTrials(2);
        v.setModel(m);
        QSignalSpy shown(&v, &MeanFieldView::resultsShown);
        v.run();
        QVERIFY(shown.wait(30000));
        for (double x : v.freeEnergies()) QVERIFY(std::isfinite(x));
        QCOMPARE(v.heatmap()->ellipseCount(), 0);
        v.cancel();
    }
};

QTEST_MAIN(TestMeanFieldView)
#include "tst_meanfield_view.moc"
