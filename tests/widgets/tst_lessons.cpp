// Lessons (docs/user/lessons.md): every shipped lesson played headless stop by stop with the keys
// (PgDn), at full speed, in a 1280×720 window. At each stop: the stop's view is current, the caption
// is shown inside the window with "stop k of N" and covers less than half of the view, the figures
// the caption relies on exist (an estimate, a sweep point per K and method, a PT run, the mean-field
// table, samples), and the claims a caption makes in numbers hold (the tour's −9.6 and −1.6, no
// round trips across the ladder's gap, TAP that does not converge undamped, ...). Then PgUp goes
// back a stop and Esc leaves the lesson. Malformed lesson files are refused with a message naming
// the problem, and nothing in the window changes.
#include <QMenu>
#include <QtTest>
#include <cmath>
#include <map>

#include "core/io/presets.hpp"
#include "lessons/lesson_player.hpp"
#include "main_window/presenter_overlay.hpp"
#include "test_window.hpp"
#include "views/estimates/sweep_job.hpp"
#include "views/meanfield/meanfield_view.hpp"
#include "views/samples/samples_job.hpp"
#include "views/samples/samples_view.hpp"
#include "views/tempering/tempering_view.hpp"

using namespace rbmscope;

namespace {

constexpr int kLongMs = 300000;  // a loaded CI machine runs slowly

double oneDecimal(double x) { return std::round(x * 10) / 10; }

// What one stop showed, for claims that compare stops.
struct Shown {
    long long roundTrips = -1;
    rbm::RowMat samples;
};

// The AIS lanes of the annealing views: every one complete with a finite estimate.
void checkAisLanes(const MainWindow& w) {
    const auto& lanes = aisJobOf(w)->lanes();
    QCOMPARE(lanes.size(), w.settings().methods().size());
    for (const LaneRun& l : lanes) {
        QVERIFY2(l.result && l.result->complete, qPrintable(l.label));
        QVERIFY(std::isfinite(l.result->estimate.log_z));
    }
}

const SweepPoint* sweepPoint(const MainWindow& w, int lane, rbm::Index k) {
    for (const SweepPoint& p : sweepJobOf(w)->points())
        if (p.lane == lane && p.steps == k) return &p;
    return nullptr;
}

// The figures a stop's view shows after its action.
void checkFigures(const MainWindow& w, const LessonStop& st) {
    QVERIFY(exactLogZOf(w).has_value() || st.session.model.kind() == rbm::ModelKind::Brbm);
    const QString v = st.view;
    if ((v == QLatin1String("annealing") || v == QLatin1String("compare")) && st.action != LessonAction::None)
        checkAisLanes(w);
    if (st.action == LessonAction::Sweep) {
        QTRY_VERIFY_WITH_TIMEOUT(!sweepJobOf(w)->running(), kLongMs);
        QCOMPARE(sweepJobOf(w)->points().size(), w.settings().sweepSteps.size() * w.settings().methods().size());
        for (const SweepPoint& p : sweepJobOf(w)->points()) QVERIFY(std::isfinite(p.estimate.log_z));
    }
    if (v == QLatin1String("tempering")) {
        QVERIFY(temperingViewOf(w)->shownFrame());
        QVERIFY(temperingViewOf(w)->lastRunFinished());
    }
    if (v == QLatin1String("meanfield")) {
        const auto f = meanFieldViewOf(w)->freeEnergies();
        for (int i = 0; i < 3; ++i) QVERIFY(std::isfinite(f[static_cast<std::size_t>(i)]));
    }
    if (v == QLatin1String("samples")) {
        QVERIFY(samplesViewOf(w)->shownFrame());
        QVERIFY(samplesViewOf(w)->shownFrame()->finished);
        QVERIFY(samplesViewOf(w)->shownFrame()->states.rows() > 0);
    }
}

// The claims captions make in numbers, by "lesson/stop" (1-based).
void checkClaims(const MainWindow& w, const QString& key, std::map<QString, Shown>& shown) {
    Shown& now = shown[key];
    if (temperingViewOf(w)->shownFrame()) now.roundTrips = temperingViewOf(w)->shownFrame()->stats.total_round_trips();
    if (samplesViewOf(w)->shownFrame()) now.samples = samplesViewOf(w)->shownFrame()->states;
    const double exact = exactLogZOf(w).value_or(NAN);
    const auto laneLogZ = [&w](int i) { return aisJobOf(w)->lanes()[static_cast<std::size_t>(i)].result->estimate; };
    if (key == QLatin1String("tour/6") || key == QLatin1String("moments/2")) {
        // Grosse et al.'s Figure 1 as the tour prints it: geometric −9.6, moment averages −1.6, true 0.
        QCOMPARE(oneDecimal(laneLogZ(0).log_z), -9.6);
        QCOMPARE(oneDecimal(laneLogZ(1).log_z), -1.6);
        QVERIFY(std::fabs(exact) < 1e-9);
    }
    if (key == QLatin1String("geometric-collapse/1")) QCOMPARE(oneDecimal(laneLogZ(0).log_z), -9.6);
    if (key == QLatin1String("tour/8")) {  // DEO, then reversible swaps: both go round, DEO more often
        QVERIFY(shown[QStringLiteral("tour/7")].roundTrips > now.roundTrips);
        QVERIFY(now.roundTrips > 0);
    }
    if (key == QLatin1String("tempering/2")) QVERIFY(shown[QStringLiteral("tempering/1")].roundTrips > now.roundTrips);
    if (key == QLatin1String("tour/9") || key == QLatin1String("meanfield/1")) {
        const auto f = meanFieldViewOf(w)->freeEnergies();
        QVERIFY(f[3] <= f[1] + 1e-9);
        QVERIFY(f[1] <= f[0] + 1e-9);
    }
    if (key == QLatin1String("pt-gap/1")) QCOMPARE(now.roundTrips, 0LL);
    if (key == QLatin1String("pt-gap/2")) QVERIFY(now.roundTrips > 0);
    if (key == QLatin1String("too-few-steps/1")) {
        // K = 3 and 10: forward intervals entirely below the exact log Z.
        for (rbm::Index k : {3, 10}) {
            const SweepPoint* p = sweepPoint(w, 0, k);
            QVERIFY(p);
            QVERIFY2(p->estimate.log_z_high < exact, qPrintable(QString::number(p->estimate.log_z_high)));
        }
    }
    if (key == QLatin1String("aisc/3")) {  // AISC's ESS above AIS's at K = 3
        const SweepPoint *a = sweepPoint(w, 0, 3), *b = sweepPoint(w, 1, 3);
        QVERIFY(a && b);
        QVERIFY(b->estimate.ess > a->estimate.ess);
    }
    if (key == QLatin1String("leaky/3"))  // on the 2-D model both intervals contain log Z at K = 3 and 10
        for (int lane = 0; lane < 2; ++lane)
            for (rbm::Index k : {3, 10}) {
                const SweepPoint* p = sweepPoint(w, lane, k);
                QVERIFY(p);
                QVERIFY(p->estimate.log_z_low <= exact && exact <= p->estimate.log_z_high);
            }
    if (key == QLatin1String("leaky-paper-gibbs/1"))
        for (int i = 0; i < 2; ++i) QVERIFY(laneLogZ(i).log_z_low <= exact && exact <= laneLogZ(i).log_z_high);
    if (key == QLatin1String("leaky-paper-gibbs/2")) QVERIFY(laneLogZ(1).log_z_high < exact);
    if (key == QLatin1String("tap-oscillating/1"))
        QVERIFY2(meanFieldViewOf(w)->table()->item(2, 3)->text().startsWith(QStringLiteral("no")),
                 qPrintable(meanFieldViewOf(w)->table()->item(2, 3)->text()));
    if (key == QLatin1String("tap-oscillating/2"))
        QCOMPARE(meanFieldViewOf(w)->table()->item(2, 3)->text(), QStringLiteral("yes"));
}

// The caption: shown, inside the window, "stop k of N", less than half of the view.
void checkCaption(const MainWindow& w, const LessonPlayer& player, int k, int n) {
    const LessonCaption* c = player.caption();
    QVERIFY(c->isVisible());
    const QRect inWindow(c->mapTo(&w, QPoint(0, 0)), c->size());
    QVERIFY2(w.rect().contains(inWindow), qPrintable(QStringLiteral("%1,%2 %3x%4")
                                                         .arg(inWindow.x())
                                                         .arg(inWindow.y())
                                                         .arg(inWindow.width())
                                                         .arg(inWindow.height())));
    QVERIFY(c->plainText().contains(QStringLiteral("stop %1 of %2").arg(k + 1).arg(n)));
    const QWidget* view = w.activeView()->widget();
    QVERIFY(2 * c->width() * c->height() < view->width() * view->height());
    QCOMPARE(c->font().pointSizeF(), w.font().pointSizeF());  // the window's font: presenter mode scales it
}

std::unique_ptr<MainWindow> lessonWindow(LessonPlayer** player) {
    auto w = testWindow(1280, 720);
    *player = new LessonPlayer(w.get());
    (*player)->setInteractive(false);
    (*player)->setFullSpeed(true);
    w->activateWindow();
    if (!QTest::qWaitForWindowActive(w.get())) qWarning("the window did not become active: keys may not reach it");
    return w;
}

}  // namespace

class TestLessons : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void theMenuListsEveryShippedLesson() {
        LessonPlayer* player = nullptr;
        auto w = lessonWindow(&player);
        const QStringList names = shippedLessons();
        QVERIFY(names.size() >= 11);
        QCOMPARE(names.front(), QStringLiteral("tour"));
        QStringList titles;
        for (QAction* a : player->menu()->actions()) titles << a->text();
        for (const QString& name : names) {
            QString err;
            const std::optional<Lesson> l = loadLesson(name, &err);
            QVERIFY2(l, qPrintable(err));
            QVERIFY(titles.contains(l->title));
        }
        QCOMPARE(titles.front(), QStringLiteral("The 15-minute tour"));
    }

    void everyShippedLessonPlays_data() {
        QTest::addColumn<QString>("name");
        for (const QString& name : shippedLessons()) QTest::newRow(qPrintable(name)) << name;
    }

    void everyShippedLessonPlays() {
        QFETCH(QString, name);
        LessonPlayer* player = nullptr;
        auto w = lessonWindow(&player);
        QCOMPARE(player->open(name), QString());
        const int n = static_cast<int>(player->lesson()->stops.size());
        std::map<QString, Shown> shown;
        for (int k = 0; k < n; ++k) {
            if (k > 0) {
                w->centralWidget()->setFocus();
                press(*w, Qt::Key_PageDown);
            }
            QCOMPARE(player->currentStop(), k);
            QElapsedTimer clock;
            clock.start();
            QTRY_VERIFY_WITH_TIMEOUT(player->settled() && w->idle() && !temperingViewOf(*w)->running(), kLongMs);
            qInfo("%s, stop %d: settled in %lld ms", qPrintable(name), k + 1, static_cast<long long>(clock.elapsed()));
            QTest::qWait(20);  // the caption is placed on the next turn of the event loop
            const LessonStop& st = player->lesson()->stops[static_cast<std::size_t>(k)];
            QCOMPARE(w->currentView(), st.view);
            QCOMPARE(w->action(QStringLiteral("logScale"))->isChecked(), st.logScale);
            checkCaption(*w, *player, k, n);
            checkFigures(*w, st);
            checkClaims(*w, QStringLiteral("%1/%2").arg(name).arg(k + 1), shown);
            if (QTest::currentTestFailed()) return;  // a helper's QVERIFY returned from the helper only
        }
        // PgDn at the last stop stays there; PgUp goes back one; Esc (nothing runs) leaves.
        press(*w, Qt::Key_PageDown);
        QCOMPARE(player->currentStop(), n - 1);
        if (n > 1) {
            press(*w, Qt::Key_PageUp);
            QCOMPARE(player->currentStop(), n - 2);
            QTRY_VERIFY_WITH_TIMEOUT(player->settled() && w->idle() && !temperingViewOf(*w)->running(), kLongMs);
        }
        QSignalSpy left(player, &LessonPlayer::left);
        press(*w, Qt::Key_Escape);
        QCOMPARE(left.count(), 1);
        QVERIFY(!player->active());
        QVERIFY(!player->caption()->isVisible());
    }

    void theCaptionFollowsPresenterMode() {
        LessonPlayer* player = nullptr;
        auto w = lessonWindow(&player);
        QCOMPARE(player->open(QStringLiteral("tour"), 2), QString());
        QTRY_VERIFY_WITH_TIMEOUT(player->settled() && w->idle(), kLongMs);
        const double normal = player->caption()->font().pointSizeF();
        w->setPresenter(true);
        // The full-screen window takes its final size a few turns of the event loop later.
        const auto captionInWindow = [&w, player] {
            return w->rect().contains(
                QRect(player->caption()->mapTo(w.get(), QPoint(0, 0)), player->caption()->size()));
        };
        QTRY_VERIFY_WITH_TIMEOUT(captionInWindow() && w->isFullScreen(), 10000);
        QTest::qWait(200);
        QTRY_VERIFY_WITH_TIMEOUT(captionInWindow(), 10000);
        qInfo("caption font %.2f pt in normal mode, %.2f in presenter mode (window %.2f); window %dx%d, centre %dx%d",
              normal, player->caption()->font().pointSizeF(), w->font().pointSizeF(), w->width(), w->height(),
              w->centralWidget()->width(), w->centralWidget()->height());
        QVERIFY(player->caption()->font().pointSizeF() > normal);
        checkCaption(*w, *player, 2, static_cast<int>(player->lesson()->stops.size()));
        // The caption stays above the transport strip.
        const QRect caption(player->caption()->mapTo(w.get(), QPoint(0, 0)), player->caption()->size());
        const QWidget* strip = w->presenterOverlay();
        QVERIFY(!caption.intersects(QRect(strip->mapTo(w.get(), QPoint(0, 0)), strip->size())));
        // B hides and shows it.
        press(*w, Qt::Key_B);
        QVERIFY(!player->caption()->isVisible());
        press(*w, Qt::Key_B);
        QVERIFY(player->caption()->isVisible());
        w->setPresenter(false);
    }

    void aLessonFileNamesItsModelFile() {
        QTemporaryDir dir;
        QFile model(dir.filePath(QStringLiteral("m.json")));
        QVERIFY(model.open(QIODevice::WriteOnly));
        model.write(QByteArray::fromStdString(rbm::preset_json_text("leaky-2d")));
        model.close();
        QFile lesson(dir.filePath(QStringLiteral("l.json")));
        QVERIFY(lesson.open(QIODevice::WriteOnly));
        lesson.write(R"({"format": "rbmscope-lesson", "version": 1, "title": "File",
                       "stops": [{"model": "m.json", "view": "density", "caption": "A model from a file."}]})");
        lesson.close();
        LessonPlayer* player = nullptr;
        auto w = lessonWindow(&player);
        QCOMPARE(player->open(lesson.fileName()), QString());
        QCOMPARE(w->model().kind(), rbm::ModelKind::Leaky);
        QCOMPARE(player->lesson()->stops[0].origin, model.fileName());
    }

    void malformedLessonsAreRefused_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");
        const QByteArray head = R"({"format": "rbmscope-lesson", "version": 1, "title": "T", "stops": [)";
        const auto stop = [&head](const QByteArray& s) { return head + s + "]}"; };
        QTest::newRow("not json") << QByteArray("{\"format\": ") << QStringLiteral("not valid JSON");
        QTest::newRow("an array") << QByteArray("[]") << QStringLiteral("must be a JSON object");
        QTest::newRow("format") << QByteArray(R"({"format": "rbmscope-session", "version": 1})")
                                << QStringLiteral("'format' must be \"rbmscope-lesson\"");
        QTest::newRow("version") << QByteArray(R"({"format": "rbmscope-lesson", "version": 2})")
                                 << QStringLiteral("'version' must be 1");
        QTest::newRow("no stops") << QByteArray(head + "]}") << QStringLiteral("'stops' must be a non-empty array");
        QTest::newRow("typo") << stop(R"({"preset": "four-mode", "view": "density", "captoin": "x"})")
                              << QStringLiteral("stop 1: unknown key 'captoin'");
        QTest::newRow("no caption") << stop(R"({"preset": "four-mode", "view": "density"})")
                                    << QStringLiteral("'caption' is missing");
        QTest::newRow("preset") << stop(R"({"preset": "five-mode", "view": "density", "caption": "x"})")
                                << QStringLiteral("'preset' must be one of");
        QTest::newRow("two models")
            << stop(R"({"preset": "four-mode", "model": "m.json", "view": "density", "caption": "x"})")
            << QStringLiteral("exactly one of 'preset'");
        QTest::newRow("no model file") << stop(R"({"model": "nowhere.json", "view": "density", "caption": "x"})")
                                       << QStringLiteral("'model': no file");
        QTest::newRow("action") << stop(R"({"preset": "four-mode", "view": "density", "caption": "x", "action": "go"})")
                                << QStringLiteral("'action' must be one of none, run, sweep, play, not 'go'");
        QTest::newRow("beta") << stop(R"({"preset": "four-mode", "view": "density", "caption": "x", "beta": 2})")
                              << QStringLiteral("'beta' must be a number from 0 to 1");
        QTest::newRow("view") << stop(R"({"preset": "four-mode", "view": "nosuch", "caption": "x"})")
                              << QStringLiteral("stop 1: 'view' is 'nosuch', expected one of density");
        QTest::newRow("setting")
            << stop(R"({"preset": "four-mode", "view": "density", "caption": "x", "settings": {"chains": 0}})")
            << QStringLiteral("stop 1: setting 'chains'");
        QTest::newRow("settings type")
            << stop(R"({"preset": "four-mode", "view": "density", "caption": "x", "settings": 3})")
            << QStringLiteral("'settings' must be an object");
        QTest::newRow("view setting")
            << stop(
                   R"({"preset": "four-mode", "view": "tempering", "caption": "x", "views": {"tempering": {"scheme": "fast"}}})")
            << QStringLiteral("views.tempering.scheme");
        QTest::newRow("second stop") << QByteArray(head + R"({"preset": "four-mode", "view": "density", "caption": "x"},
                                                          {"preset": "four-mode", "view": "density", "caption": 3}]})")
                                     << QStringLiteral("stop 2: 'caption' must be a string");
        QTest::newRow("nothing to run")
            << stop(R"({"preset": "four-mode", "view": "filters", "caption": "x", "action": "run"})")
            << QStringLiteral("'action' is 'run' but");
    }

    void malformedLessonsAreRefused() {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        QFile f(dir.filePath(QStringLiteral("bad.json")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
        f.close();
        LessonPlayer* player = nullptr;
        auto w = lessonWindow(&player);
        QVERIFY(w->loadPreset(QStringLiteral("two-gaussians")));
        QVERIFY(w->setCurrentView(QStringLiteral("annealing")));
        QSignalSpy problems(player, &LessonPlayer::problem);
        const QString err = player->open(f.fileName());
        QVERIFY2(err.contains(expected), qPrintable(err));
        QVERIFY2(err.startsWith(f.fileName()), qPrintable(err));  // the message names the file
        QCOMPARE(problems.count(), 1);
        // Nothing changed.
        QVERIFY(!player->active());
        QVERIFY(!player->caption()->isVisible());
        QCOMPARE(w->currentView(), QStringLiteral("annealing"));
        QCOMPARE(w->model().kind(), rbm::ModelKind::Gaussian);
    }

    void unknownLessonsAndStopsAreSaid() {
        LessonPlayer* player = nullptr;
        auto w = lessonWindow(&player);
        QString err = player->open(QStringLiteral("no-such-lesson"));
        QVERIFY2(err.contains(QStringLiteral("no shipped lesson of that name (tour")), qPrintable(err));
        err = player->open(QStringLiteral("tour"), 99);
        QVERIFY2(err.contains(QStringLiteral("there is no stop 100")), qPrintable(err));
        QVERIFY(!player->active());
    }
};

QTEST_MAIN(TestLessons)
#include "tst_lessons.moc"
