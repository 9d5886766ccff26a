// Presenter mode hides the status bar, so its strip carries each view's key figures
// (View::presenterFigures): AIS log Ẑ with its 95 % interval and ESS per method and the exact
// log Z (Annealing), round trips measured vs predicted and log Z (Tempering), the free-energy
// table with the exact −log Z row (Mean field); a job without units (mean field) shows no
// "0 computations". Every figure line fits the strip's width at 1280×1024 (tst_projector_fit: at 1280×720, 1024×768).
#include <QChartView>
#include <QStandardPaths>
#include <QtTest>

#include "main_window/main_window.hpp"
#include "main_window/presenter_overlay.hpp"
#include "test_window.hpp"
#include "views/annealing/ais_job.hpp"

using namespace rbmscope;

namespace {
constexpr int kRunMs = 120000;

void presentAt(MainWindow& w, QSize size) {
    w.setPresenter(true);
    w.setWindowState(Qt::WindowNoState);  // offscreen: the layout at `size`, not the screen's
    w.resize(size);
    QTRY_COMPARE(w.size(), size);
}

// Every figure line is drawn inside the strip without eliding.
void checkFiguresFit(const MainWindow& w) {
    const PresenterOverlay* strip = w.presenterOverlay();
    const QFontMetrics fm(strip->figureFont());
    const QStringList& figures = strip->info().figures;
    for (int i = 0; i < figures.size(); ++i) {
        const QRect r = strip->figureRect(i);
        QVERIFY2(strip->rect().contains(r), qPrintable(QStringLiteral("line %1 outside the strip").arg(i)));
        QVERIFY2(fm.horizontalAdvance(figures[i]) <= r.width(), qPrintable(QStringLiteral("elided: %1 (%2 > %3 px)")
                                                                               .arg(figures[i])
                                                                               .arg(fm.horizontalAdvance(figures[i]))
                                                                               .arg(r.width())));
    }
    QCOMPARE(strip->height(), strip->barHeight());
}
}  // namespace

class TestPresenterFigures : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("rbmscope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_presenter_figures"));
        QSettings().clear();
    }

    void annealingShowsLogZIntervalEssAndExact() {
        auto w = testWindow(1280, 1024);
        QVERIFY(w->loadPreset(QStringLiteral("four-mode")));
        QVERIFY(waitIdle(*w, kRunMs));
        RunSettings s = w->settings();
        s.autoRun = false;
        s.schedule.steps = 300;
        w->applySettings(s);
        QVERIFY(waitIdle(*w, kRunMs));
        QVERIFY(w->setCurrentView(QStringLiteral("annealing")));
        presentAt(*w, QSize(1280, 1024));
        QVERIFY(w->presenterOverlay()->info().figures.isEmpty() || !aisJobOf(*w)->lanes().empty());
        w->startRun();
        QVERIFY(waitIdle(*w, kRunMs));
        QTRY_VERIFY(!w->presenterOverlay()->info().figures.isEmpty());
        const QStringList figures = w->presenterOverlay()->info().figures;
        const auto& lanes = aisJobOf(*w)->lanes();
        int finished = 0;
        for (const auto& l : lanes) {
            if (!l.result) continue;
            const rbm::AisEstimate& e = l.result->estimate;
            const QString line = figures.value(finished++);
            QVERIFY2(line.startsWith(l.label + QStringLiteral(": log Ẑ = ") + QString::number(e.log_z, 'f', 3)),
                     qPrintable(line));
            QVERIFY2(
                line.contains(QStringLiteral("95 % [%1, %2]").arg(e.ci95_low, 0, 'f', 3).arg(e.ci95_high, 0, 'f', 3)),
                qPrintable(line));
            QVERIFY2(line.contains(QStringLiteral("ESS %1 of %2").arg(e.ess, 0, 'f', 1).arg(e.n)), qPrintable(line));
        }
        QVERIFY(finished >= 1);
        const std::optional<double> exact = exactLogZOf(*w);
        QVERIFY(exact);
        QCOMPARE(figures.size(), finished + 1);
        QCOMPARE(figures.back(), QStringLiteral("exact log Z = %1").arg(*exact, 0, 'f', 3));
        checkFiguresFit(*w);
        // The view is laid out above the taller strip.
        QWidget* centre = w->centralWidget();
        QCOMPARE(w->presenterOverlay()->geometry().bottom(), centre->height() - 1);
    }

    // Estimates: each method's estimate at the largest K swept, then the exact log Z; the charts'
    // titles, tick labels and legends grow with the presenter scale like the widgets' text.
    void estimatesShowsTheLargestKAndChartFontsScale() {
        auto w = testWindow(1280, 1024);
        QVERIFY(w->loadPreset(QStringLiteral("four-mode")));
        QVERIFY(waitIdle(*w, kRunMs));
        RunSettings s = w->settings();
        s.autoRun = false;
        s.sweepSteps = {10, 30};
        w->applySettings(s);
        QVERIFY(waitIdle(*w, kRunMs));
        QVERIFY(w->setCurrentView(QStringLiteral("estimates")));
        auto* chart = w->findChild<QChartView*>()->chart();  // the first chart of the views
        const double normalTitle = chart->titleFont().pointSizeF();
        presentAt(*w, QSize(1280, 1024));
        QCOMPARE(chart->titleFont().pointSizeF(), normalTitle * w->presenterScale());
        w->startSweep();
        QVERIFY(waitIdle(*w, kRunMs));
        QTRY_VERIFY(!w->presenterOverlay()->info().figures.isEmpty());
        const QStringList figures = w->presenterOverlay()->info().figures;
        QVERIFY2(figures.size() >= 2, qPrintable(figures.join(QLatin1Char('|'))));
        for (int i = 0; i + 1 < figures.size(); ++i)
            QVERIFY2(figures[i].contains(QStringLiteral(" at K = 30: log Ẑ = ")) &&
                         figures[i].contains(QStringLiteral("95 % [")),
                     qPrintable(figures[i]));
        const std::optional<double> exact = exactLogZOf(*w);
        QVERIFY(exact);
        QCOMPARE(figures.back(), QStringLiteral("exact log Z = %1").arg(*exact, 0, 'f', 3));
        checkFiguresFit(*w);
        w->setPresenter(false);
        QCOMPARE(chart->titleFont().pointSizeF(), normalTitle);
    }

    void temperingShowsRoundTripsMeasuredVsPredicted() {
        auto w = testWindow(1280, 1024);
        QVERIFY(w->loadPreset(QStringLiteral("four-mode")));
        QVERIFY(waitIdle(*w, kRunMs));
        RunSettings s = w->settings();
        s.autoRun = false;
        w->applySettings(s);
        QVERIFY(waitIdle(*w, kRunMs));
        TemperingSettings t = temperingViewOf(*w)->settings();
        t.scans = 2000;
        temperingViewOf(*w)->setSettings(t);
        QVERIFY(w->setCurrentView(QStringLiteral("tempering")));
        presentAt(*w, QSize(1280, 1024));
        w->setPace(0);  // full speed
        w->runCurrent();
        QTRY_VERIFY_WITH_TIMEOUT(!temperingViewOf(*w)->running() && temperingViewOf(*w)->lastRunFinished(), kRunMs);
        QTRY_VERIFY(!w->presenterOverlay()->info().figures.isEmpty());
        const QStringList figures = w->presenterOverlay()->info().figures;
        QVERIFY(temperingViewOf(*w)->shownFrame());
        const rbm::PtStats st = temperingViewOf(*w)->shownFrame()->stats;
        QVERIFY2(figures.front().startsWith(QStringLiteral("Round trips")), qPrintable(figures.join('\n')));
        QVERIFY2(figures.front().contains(QStringLiteral(": %1 measured").arg(st.total_round_trips())),
                 qPrintable(figures.front()));
        QVERIFY(figures.front().contains(QStringLiteral("predicted")));
        checkFiguresFit(*w);
    }

    void meanFieldShowsTheTableWithExactAndNoUnitCount() {
        auto w = testWindow(1280, 1024);
        QVERIFY(w->loadPreset(QStringLiteral("four-mode")));
        QVERIFY(waitIdle(*w, kRunMs));
        QVERIFY(w->setCurrentView(QStringLiteral("meanfield")));
        presentAt(*w, QSize(1280, 1024));
        w->runCurrent();
        QVERIFY(waitIdle(*w, kRunMs));
        QTRY_VERIFY2(!w->presenterOverlay()->info().figures.isEmpty(),
                     qPrintable(QStringLiteral("state %1, F exact %2")
                                    .arg(w->presenterOverlay()->info().state)
                                    .arg(meanFieldViewOf(*w)->freeEnergies()[3])));
        const PresenterOverlay::Info& in = w->presenterOverlay()->info();
        QCOMPARE(in.state, QStringLiteral("Finished"));
        QVERIFY2(in.units.isEmpty(), qPrintable(in.units));  // not "0 mean-field computations"
        const std::array<double, 4> f = meanFieldViewOf(*w)->freeEnergies();
        QVERIFY(std::isfinite(f[3]));
        QCOMPARE(in.figures.size(), 1);
        QVERIFY2(in.figures[0].contains(QStringLiteral("exact −log Z = %1").arg(f[3], 0, 'f', 4)),
                 qPrintable(in.figures[0]));
        QVERIFY2(in.figures[0].contains(QStringLiteral("F type II = %1").arg(f[1], 0, 'f', 4)),
                 qPrintable(in.figures[0]));
        checkFiguresFit(*w);
    }
};

QTEST_MAIN(TestPresenterFigures)
#include "tst_presenter_figures.moc"
