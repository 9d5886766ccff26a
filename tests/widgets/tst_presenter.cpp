// Presenter mode: F11 shows one large view at a time (no menu, tab, tool or
// status bar, no docks: only the current view and the transport strip drawn on the canvas below
// it), Ctrl+1…9 still change the view and the strip names it; the strip follows the current
// view's Transport (Running → Paused → Stopped as Space and Esc are pressed) and its buttons do
// what the keys do; Ctrl+= scales text and strip and is remembered (QSettings of a test
// organisation, in a test location). Pictures of it during runs at 1920×1080 go to
// screenshotDir() (scripts/screenshots.sh: docs/screenshots/presenter-*.png).
#include <QDockWidget>
#include <QMenuBar>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QToolBar>
#include <QtTest>

#include "main_window/main_window.hpp"
#include "main_window/presenter_overlay.hpp"
#include "screenshot_dir.hpp"
#include "test_window.hpp"

using namespace rbmscope;

namespace {

constexpr int kStartMs = 60000;  // first units of a job (a loaded machine builds paths slowly)

bool isAncestorOrSelf(const QWidget* a, const QWidget* w) {
    for (; w; w = w->parentWidget())
        if (w == a) return true;
    return false;
}

}  // namespace

class TestPresenter : public QObject {
    Q_OBJECT

    void prepare(MainWindow& w, const QString& preset, const QString& view) {
        w.setInteractive(false);
        w.setAutosave(false);
        w.resize(1280, 800);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QVERIFY(w.loadPreset(preset));
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kStartMs);
        RunSettings s = w.settings();
        s.autoRun = false;
        s.schedule.steps = 100000;
        w.applySettings(s);
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kStartMs);
        TemperingSettings t = temperingViewOf(w)->settings();
        t.scans = 10000000;
        temperingViewOf(w)->setSettings(t);
        SamplesSettings m;
        m.sweeps = 100000000;
        m.chains = 16;
        samplesViewOf(w)->setSettings(m);
        QVERIFY(w.setCurrentView(view));
        w.centralWidget()->setFocus();
    }

    // Every visible widget of the window is the current view (or inside it), on the way to it,
    // or the strip; the view spans the width and reaches from the top to the strip.
    void checkOneView(MainWindow& w) {
        PresenterOverlay* strip = w.presenterOverlay();
        auto* tabs = w.findChild<QTabWidget*>();
        QWidget* view = tabs->currentWidget();
        QWidget* centre = w.centralWidget();
        QVERIFY(strip->isVisible());
        QVERIFY(view->isVisible());
        for (QWidget* x : w.findChildren<QWidget*>()) {
            if (!x->isVisible() || x->isWindow()) continue;
            const bool ok = isAncestorOrSelf(view, x) || isAncestorOrSelf(x, view) || isAncestorOrSelf(strip, x);
            QVERIFY2(ok, qPrintable(QStringLiteral("visible beside the view: %1 (%2)")
                                        .arg(x->metaObject()->className(), x->objectName())));
        }
        for (int i = 0; i < tabs->count(); ++i)
            if (tabs->widget(i) != view) QVERIFY(!tabs->widget(i)->isVisible());
        const QRect v(view->mapTo(centre, QPoint(0, 0)), view->size());
        const QRect s = strip->geometry();
        QCOMPARE(centre->mapTo(&w, QPoint(0, 0)), QPoint(0, 0));  // no menu or tool bar above
        QCOMPARE(centre->size(), w.size());                       // nor status bar or dock beside
        QCOMPARE(s.bottom(), centre->height() - 1);
        QCOMPARE(s.width(), centre->width());
        QCOMPARE(s.height(), strip->barHeight());
        QVERIFY2(v.left() <= 2 && v.right() >= centre->width() - 3,
                 qPrintable(QStringLiteral("view x %1..%2").arg(v.left()).arg(v.right())));
        QVERIFY2(v.top() <= 2, qPrintable(QString::number(v.top())));
        QVERIFY2(v.bottom() < s.top() && v.bottom() >= s.top() - 3,
                 qPrintable(QStringLiteral("view ends at %1, strip starts at %2").arg(v.bottom()).arg(s.top())));
    }

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("rbmscope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_presenter"));
        QSettings().remove(QStringLiteral("presenter/scale"));
    }

    void oneViewAtATime() {
        MainWindow w;
        prepare(w, QStringLiteral("four-mode"), QStringLiteral("annealing"));
        if (QTest::currentTestFailed()) return;
        auto* tabs = w.findChild<QTabWidget*>();
        auto* dock = w.findChild<QDockWidget*>(QStringLiteral("parameterDock"));
        QVERIFY(tabs->tabBar()->isVisible() && dock->isVisible() && w.menuBar()->isVisible() &&
                w.statusBar()->isVisible());
        QVERIFY(!w.presenterOverlay()->isVisible());
        press(w, Qt::Key_F11);
        QVERIFY(w.presenter());
        QVERIFY(!tabs->tabBar()->isVisible());
        QVERIFY(!dock->isVisible());
        QVERIFY(!w.menuBar()->isVisible());
        QVERIFY(!w.statusBar()->isVisible());
        QVERIFY(!w.findChild<QToolBar*>(QStringLiteral("transportBar"))->isVisible());
        QTest::qWait(50);  // the full-screen geometry is in
        checkOneView(w);
        QCOMPARE(w.presenterOverlay()->info().view, QStringLiteral("Annealing"));
        QCOMPARE(w.presenterOverlay()->info().viewKey,
                 QKeySequence(Qt::CTRL | Qt::Key_2).toString(QKeySequence::NativeText));
        // Ctrl+4 (a menu shortcut, with the menu bar hidden) changes the view; the strip names it.
        press(w, Qt::Key_4, Qt::ControlModifier);
        QCOMPARE(w.currentView(), QStringLiteral("estimates"));
        QCOMPARE(w.presenterOverlay()->info().view, QStringLiteral("Estimates"));
        checkOneView(w);
        press(w, Qt::Key_8, Qt::ControlModifier);  // Filters: no job; the strip only names the view
        QCOMPARE(w.currentView(), QStringLiteral("filters"));
        QVERIFY(!w.presenterOverlay()->info().transport);
        checkOneView(w);
        // F11 again: everything comes back, the strip goes.
        press(w, Qt::Key_F11);
        QVERIFY(!w.presenter());
        QVERIFY(tabs->tabBar()->isVisible() && dock->isVisible() && w.menuBar()->isVisible() &&
                w.statusBar()->isVisible());
        QVERIFY(w.findChild<QToolBar*>(QStringLiteral("transportBar"))->isVisible());
        QVERIFY(!w.presenterOverlay()->isVisible());
    }

    void stripFollowsTheTransportAndItsButtonsAct_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("view");
        QTest::newRow("annealing") << "four-mode"
                                   << "annealing";
        QTest::newRow("tempering") << "four-mode"
                                   << "tempering";
        QTest::newRow("samples") << "bars-and-stripes"
                                 << "samples";
    }

    void stripFollowsTheTransportAndItsButtonsAct() {
        QFETCH(QString, preset);
        QFETCH(QString, view);
        MainWindow w;
        prepare(w, preset, view);
        if (QTest::currentTestFailed()) return;
        w.setPace(1000);
        press(w, Qt::Key_F11);
        PresenterOverlay* strip = w.presenterOverlay();
        Transport* t = w.transport();
        const auto state = [strip] { return strip->info().state; };
        const auto click = [strip](const char* name) {
            const QRect r = strip->buttonRect(QString::fromLatin1(name));
            QVERIFY(r.isValid() && strip->rect().contains(r));
            QTest::mouseClick(strip, Qt::LeftButton, Qt::NoModifier, r.center());
        };
        QVERIFY(strip->info().transport);
        QVERIFY(strip->info().canRun && !strip->info().canCancel);

        // Keys: F5, Space, Esc. The strip changes with the transport, and is repainted.
        press(w, Qt::Key_F5);
        QTRY_VERIFY_WITH_TIMEOUT(t->units() > 3, kStartMs);
        QTRY_COMPARE(state(), QStringLiteral("Running"));
        QVERIFY(strip->info().canCancel);
        QTRY_VERIFY(strip->info().units.contains(t->unitName()));
        int paints = strip->paints();
        press(w, Qt::Key_Space);
        QTRY_COMPARE_WITH_TIMEOUT(state(), QStringLiteral("Paused"), 10000);
        QCOMPARE(t->state(), Transport::State::Paused);
        QVERIFY(strip->info().held);
        QTRY_VERIFY(strip->paints() > paints);
        press(w, Qt::Key_Escape);
        QCOMPARE(state(), QStringLiteral("Stopped"));  // in the key's handler, as the toolbar
        QVERIFY(!strip->info().canCancel);
        QTRY_VERIFY_WITH_TIMEOUT(!t->jobActive(), 10000);

        // Buttons: Run, Pause, Pause again (Resume), Step, Cancel.
        click("run");
        QTRY_VERIFY_WITH_TIMEOUT(t->state() == Transport::State::Running && t->units() > 3, kStartMs);
        QTRY_COMPARE(state(), QStringLiteral("Running"));
        click("pause");
        QTRY_COMPARE_WITH_TIMEOUT(t->state(), Transport::State::Paused, 10000);
        QTRY_COMPARE(state(), QStringLiteral("Paused"));
        const long long held = t->units();
        click("step");
        // One unit; on the Tempering view the next recorded scan of the run (its engine computes on
        // at full speed and a long run's recording keeps every stride-th scan).
        const auto stepped = [&] {
            if (view != QLatin1String("tempering")) return t->units() == held + 1;
            const TemperingFrame* f = temperingViewOf(w)->displayedFrame();
            return t->units() > held && f && f->scansDone == t->units() &&
                   t->units() - held <= temperingViewOf(w)->liveRecording()->stride();
        };
        QTRY_VERIFY_WITH_TIMEOUT(stepped() && t->state() == Transport::State::Paused, 10000);
        click("pause");  // Resume
        QTRY_VERIFY_WITH_TIMEOUT(t->units() > held + 5, 10000);
        QTRY_COMPARE(state(), QStringLiteral("Running"));
        QTRY_VERIFY_WITH_TIMEOUT(strip->info().speed.contains(QStringLiteral("per second")), 10000);
        QVERIFY(strip->info().speed.contains(QStringLiteral("1,000")) ||
                strip->info().speed.contains(QStringLiteral("1000")));
        click("cancel");
        QCOMPARE(t->state(), Transport::State::Stopped);
        QCOMPARE(state(), QStringLiteral("Stopped"));
        QTRY_VERIFY_WITH_TIMEOUT(!t->jobActive(), 10000);
        // A disabled button does nothing (Cancel with nothing running).
        click("cancel");
        QCOMPARE(t->state(), Transport::State::Stopped);
    }

    void scaleIsRememberedAndScalesTheStrip() {
        QSettings().remove(QStringLiteral("presenter/scale"));
        MainWindow w;
        prepare(w, QStringLiteral("four-mode"), QStringLiteral("density"));
        if (QTest::currentTestFailed()) return;
        const double base = w.font().pointSizeF();
        press(w, Qt::Key_F11);
        QCOMPARE(w.presenterScale(), 1.5);
        QVERIFY(std::fabs(w.presenterOverlay()->font().pointSizeF() - 1.5 * base) < 0.01);
        const int h = w.presenterOverlay()->barHeight();
        press(w, Qt::Key_Equal, Qt::ControlModifier);
        press(w, Qt::Key_Equal, Qt::ControlModifier);
        QVERIFY(std::fabs(w.presenterScale() - 1.5 * 1.15 * 1.15) < 1e-9);
        QVERIFY(w.presenterOverlay()->barHeight() > h);
        QTest::qWait(50);
        checkOneView(w);  // the strip is placed again at its new height
        press(w, Qt::Key_Minus, Qt::ControlModifier);
        QVERIFY(std::fabs(w.presenterScale() - 1.5 * 1.15) < 1e-9);
        QCOMPARE(QSettings().organizationName(), QStringLiteral("rbmscope-tests"));
        QVERIFY(std::fabs(QSettings().value(QStringLiteral("presenter/scale")).toDouble() - 1.5 * 1.15) < 1e-9);
        MainWindow w2;
        QVERIFY(std::fabs(w2.presenterScale() - 1.5 * 1.15) < 1e-9);
        QSettings().remove(QStringLiteral("presenter/scale"));
    }

    // Presenter mode during runs at 1920×1080 (the default scale ×1.5), for docs/user/app.md.
    void screenshots_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("view");
        QTest::newRow("annealing") << "four-mode"
                                   << "annealing";
        QTest::newRow("compare") << "four-mode"
                                 << "compare";
        QTest::newRow("tempering") << "four-mode"
                                   << "tempering";
    }

    void screenshots() {
        QFETCH(QString, preset);
        QFETCH(QString, view);
        QSettings().remove(QStringLiteral("presenter/scale"));
        MainWindow w;
        prepare(w, preset, view);
        if (QTest::currentTestFailed()) return;
        // Runs that are part way through when the picture is taken, with a visible progress.
        RunSettings s = w.settings();
        s.schedule.steps = 3000;
        w.applySettings(s);
        TemperingSettings ts = temperingViewOf(w)->settings();
        ts.scans = 3000;
        temperingViewOf(w)->setSettings(ts);
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kStartMs);
        w.setPace(view == QLatin1String("tempering") ? 100 : 1000);
        press(w, Qt::Key_F11);
        // The offscreen screen is smaller than a projector's: the window leaves the full-screen
        // state (presenter mode stays) and takes the projector's size.
        w.showNormal();
        w.resize(1920, 1080);
        QTRY_COMPARE(w.size(), QSize(1920, 1080));
        Transport* t = w.transport();
        press(w, Qt::Key_F5);
        QTRY_VERIFY_WITH_TIMEOUT(t->units() > 300, kStartMs);
        QTest::qWait(700);  // a measured speed is in
        QCOMPARE(w.size(), QSize(1920, 1080));
        checkOneView(w);
        const QString path = screenshotDir() + QStringLiteral("/presenter-%1.png").arg(view);
        QVERIFY(w.grab().save(path));
        qInfo("wrote %s", qPrintable(path));
        press(w, Qt::Key_Escape);
        QTRY_VERIFY_WITH_TIMEOUT(!t->jobActive(), 10000);
    }
};

QTEST_MAIN(TestPresenter)
#include "tst_presenter.moc"
