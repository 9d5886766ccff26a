// The "15-minute tour for a class" (docs/user/tour.md) ("a teacher can run the whole tour from the
// keyboard alone, in presenter mode, with the defaults"), step by step, with keys only after the
// preset is chosen, in presenter mode (F11), checking what each step of the tour says one sees:
//   1 four-mode target, Ctrl+L switches the log colour scale;
//   2 Annealing (Ctrl+2), F5: the particles of the whole path arrive, the run completes;
//   3 Compare (Ctrl+3), F5: AIS and AISC both finish and the status bar sets them against the exact log Z;
//   4 Estimates (Ctrl+4), Shift+F5: log Ẑ and ESS against K for both methods;
//   5 two-gaussians, geometric vs moment averages, perfect transitions, K = 25: the tour's
//     log Ẑ ≈ −9.6 and ≈ −1.6 (true 0), to the one decimal it prints;
//   6 Tempering (Ctrl+5), F5 under DEO then reversible: round trips happen, more under DEO;
//   7 Mean field (Ctrl+6), F5: −log Z ≤ F_II ≤ F_I.
// Step 5's settings are the only ones set through the API: the panel that sets them is hidden in
// presenter mode (the tour does this step outside it).
#include <QtTest>
#include <cmath>

#include "main_window/main_window.hpp"
#include "test_window.hpp"
#include "views/meanfield/meanfield_view.hpp"
#include "views/tempering/tempering_view.hpp"

using namespace rbmscope;

namespace {

constexpr int kLongMs = 180000;  // a loaded CI machine builds paths and runs slowly

// One decimal, as the tour prints it.
double oneDecimal(double x) { return std::round(x * 10) / 10; }

}  // namespace

class TestTour : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void theTourRunsFromTheKeyboardInPresenterMode() {
        MainWindow w;
        w.setInteractive(false);
        w.setAutosave(false);
        w.resize(1600, 900);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QVERIFY(w.loadPreset(QStringLiteral("four-mode")));
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kLongMs);
        w.centralWidget()->setFocus();
        press(w, Qt::Key_F11);
        QVERIFY(w.action(QStringLiteral("presenter"))->isChecked());

        // 1. The target, then the log colour scale.
        press(w, Qt::Key_1, Qt::ControlModifier);
        QCOMPARE(w.currentView(), QStringLiteral("density"));
        QVERIFY(!w.action(QStringLiteral("logScale"))->isChecked());
        press(w, Qt::Key_L, Qt::ControlModifier);
        QVERIFY(w.action(QStringLiteral("logScale"))->isChecked());
        QVERIFY(exactLogZOf(w).has_value());

        // 2. Annealing, F5: a complete run with particles at every recorded beta.
        press(w, Qt::Key_2, Qt::ControlModifier);
        QCOMPARE(w.currentView(), QStringLiteral("annealing"));
        press(w, Qt::Key_F5);
        QTRY_VERIFY_WITH_TIMEOUT(!aisJobOf(w)->lanes().empty() && aisJobOf(w)->lanes().front().result &&
                                     aisJobOf(w)->lanes().front().result->complete && w.idle(),
                                 kLongMs);
        QVERIFY(aisJobOf(w)->lanes().front().frames.size() > 10);

        // 3. Compare: AIS and AISC both finish; the status bar has both and the exact log Z.
        press(w, Qt::Key_3, Qt::ControlModifier);
        QCOMPARE(w.currentView(), QStringLiteral("compare"));
        press(w, Qt::Key_F5);
        QTRY_VERIFY_WITH_TIMEOUT(w.idle() && aisJobOf(w)->lanes().size() >= 2 &&
                                     std::all_of(aisJobOf(w)->lanes().begin(), aisJobOf(w)->lanes().end(),
                                                 [](const LaneRun& l) { return l.result && l.result->complete; }),
                                 kLongMs);
        QStringList labels;
        for (const LaneRun& l : aisJobOf(w)->lanes()) labels << l.label;
        QVERIFY2(labels.contains(QStringLiteral("AIS")) && labels.contains(QStringLiteral("AISC")),
                 qPrintable(labels.join(',')));

        // 4. Estimates, Shift+F5: points for both methods at every K of the sweep.
        press(w, Qt::Key_4, Qt::ControlModifier);
        QCOMPARE(w.currentView(), QStringLiteral("estimates"));
        press(w, Qt::Key_F5, Qt::ShiftModifier);
        QTRY_VERIFY_WITH_TIMEOUT(w.idle() && !sweepJobOf(w)->running() && !sweepJobOf(w)->points().empty(), kLongMs);
        QCOMPARE(static_cast<std::size_t>(estimatesViewOf(w)->plottedPoints()),
                 w.settings().sweepSteps.size() * w.settings().methods().size());

        // 6. Tempering under DEO, then reversible: the red replica goes round the ladder, more often under DEO.
        press(w, Qt::Key_5, Qt::ControlModifier);
        QCOMPARE(w.currentView(), QStringLiteral("tempering"));
        TemperingView* t = temperingViewOf(w);
        long long trips[2] = {0, 0};
        for (int variant = 0; variant < 2; ++variant) {
            TemperingSettings ts = t->settings();
            ts.scheme = variant == 0 ? rbm::PtScheme::Deo : rbm::PtScheme::Reversible;
            ts.scans = 3000;  // the default 20 000 at the default "watch" pace would take minutes here
            ts.scansPerSecond = 0;
            t->setSettings(ts);
            QSignalSpy finished(t, &TemperingView::runFinished);
            w.centralWidget()->setFocus();
            press(w, Qt::Key_F5);
            QVERIFY(finished.wait(kLongMs));
            QVERIFY(t->shownFrame());
            trips[variant] = t->shownFrame()->stats.total_round_trips();
        }
        qInfo("round trips in 3000 scans: DEO %lld, reversible %lld", trips[0], trips[1]);
        QVERIFY(trips[1] > 0);
        QVERIFY(trips[0] > trips[1]);

        // 7. Mean field: the table's order, -log Z <= F_II <= F_I.
        press(w, Qt::Key_6, Qt::ControlModifier);
        QCOMPARE(w.currentView(), QStringLiteral("meanfield"));
        QSignalSpy shown(meanFieldViewOf(w), &MeanFieldView::resultsShown);
        press(w, Qt::Key_F5);
        QVERIFY(shown.wait(kLongMs));
        const auto f = meanFieldViewOf(w)->freeEnergies();
        for (double x : f) QVERIFY(std::isfinite(x));
        QVERIFY(f[3] <= f[1] + 1e-9);
        QVERIFY(f[1] <= f[0] + 1e-9);

        // 5. (last: it changes the model) two-gaussians, geometric vs moment averages, perfect
        // transitions, K = 25, on Compare: the tour's -9.6 and -1.6.
        QVERIFY(w.loadPreset(QStringLiteral("two-gaussians")));
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kLongMs);
        RunSettings s = w.settings();
        s.method = MethodSpec{"geometric", s.method.base};
        s.compare = {MethodSpec{"moments", s.method.base}};
        s.perfect = true;
        s.schedule.steps = 25;
        s.autoRun = false;
        w.applySettings(s);
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kLongMs);
        w.centralWidget()->setFocus();
        press(w, Qt::Key_3, Qt::ControlModifier);
        press(w, Qt::Key_F5);
        QTRY_VERIFY_WITH_TIMEOUT(w.idle() && aisJobOf(w)->lanes().size() == 2 &&
                                     std::all_of(aisJobOf(w)->lanes().begin(), aisJobOf(w)->lanes().end(),
                                                 [](const LaneRun& l) { return l.result && l.result->complete; }),
                                 kLongMs);
        const double ga = aisJobOf(w)->lanes()[0].result->estimate.log_z,
                     ma = aisJobOf(w)->lanes()[1].result->estimate.log_z;
        qInfo("two-gaussians, K = 25, perfect transitions: geometric %.4f, moment averages %.4f, exact %.4f", ga, ma,
              exactLogZOf(w).value_or(NAN));
        QCOMPARE(oneDecimal(ga), -9.6);
        QCOMPARE(oneDecimal(ma), -1.6);
        QVERIFY(exactLogZOf(w) && std::fabs(*exactLogZOf(w)) < 1e-9);
    }
};

QTEST_MAIN(TestTour)
#include "tst_tour.moc"
