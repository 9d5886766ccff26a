// The View interface (app/gui/views/view.hpp): every view of the window is driven
// through it alone — its transport (Run, Pause, Step, Cancel), its own speed, its part of a session
// (written, read back with checks, applied) — and a view with nothing to run says so. Data-driven
// over the view names, as Tiled's editor tests are over its editors.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSpinBox>
#include <QStandardPaths>
#include <QToolBar>
#include <QtTest>
#include <algorithm>
#include <variant>

#include "core/io/presets.hpp"
#include "test_window.hpp"
#include "validated_field.hpp"

using namespace rbmscope;

namespace {

constexpr int kStartMs = 60000;  // first units of a job (a loaded machine builds paths slowly)

const char* const kViews[] = {"density",   "annealing", "compare", "estimates", "tempering",
                              "meanfield", "samples",   "filters", "training"};

QString presetFor(const QString& view) {
    return view == QLatin1String("samples") ? QStringLiteral("bars-and-stripes") : QStringLiteral("four-mode");
}

// A view's part as a session file gives it back: an unsigned integer that fits reads as a signed
// one (JSON has one kind of integer; session_io keeps uint64 only above INT64_MAX).
rbm::Session saved(const View* v) {
    rbm::Session s;
    v->saveSession(s);
    for (auto& [view, map] : s.views)
        for (auto& [key, value] : map)
            for (rbm::SessionScalar& x : value.items)
                if (const auto* u = std::get_if<std::uint64_t>(&x); u && *u <= static_cast<std::uint64_t>(INT64_MAX))
                    x = static_cast<std::int64_t>(*u);
    return s;
}

const std::map<std::string, rbm::SessionValue>* part(const rbm::Session& s, const QString& view) {
    const auto it = s.views.find(view.toStdString());
    return it == s.views.end() ? nullptr : &it->second;
}

// Changes a setting the view keeps in sessions, as a user would in its controls: through its
// session fields where its settings are just its controls, else through its own settings.
bool perturb(MainWindow& w, View* v) {
    for (const SessionField& f : v->sessionFields()) {
        if (auto* c = std::get_if<QCheckBox*>(&f.widget)) {
            (*c)->setChecked(!(*c)->isChecked());
            return true;
        }
        if (auto* s = std::get_if<QSpinBox*>(&f.widget)) {
            (*s)->setValue((*s)->value() < (*s)->maximum() ? (*s)->value() + 1 : (*s)->value() - 1);
            return true;
        }
        if (auto* c = std::get_if<QComboBox*>(&f.widget); c && (*c)->count() > 1) {
            (*c)->setCurrentIndex(((*c)->currentIndex() + 1) % (*c)->count());
            return true;
        }
    }
    const QString name = v->name();
    if (name == QLatin1String("tempering")) {
        TemperingSettings t = temperingViewOf(w)->settings();
        t.scans = 12345;
        temperingViewOf(w)->setSettings(t);
        return true;
    }
    if (name == QLatin1String("samples")) {
        SamplesSettings s = samplesViewOf(w)->settings();
        s.sweeps = 777;
        s.seed = 4242;
        samplesViewOf(w)->setSettings(s);
        return true;
    }
    if (name == QLatin1String("training")) {
        rbm::TrainOptions o = trainingViewOf(w)->options();
        o.seed = 4242;
        trainingViewOf(w)->setOptions(o);
        return true;
    }
    return false;
}

}  // namespace

class TestViewInterface : public QObject {
    Q_OBJECT

    void prepare(MainWindow& w, const QString& view) {
        w.setInteractive(false);
        w.setAutosave(false);
        w.resize(1280, 800);
        w.show();
        QVERIFY(w.loadPreset(presetFor(view)));
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kStartMs);
        makeRunsLong(w, kStartMs);  // no job ends by itself during a case; every view at 1000 units/s
    }

    static void viewColumn() {
        QTest::addColumn<QString>("view");
        for (const char* v : kViews) QTest::newRow(v) << QString::fromLatin1(v);
    }

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // The window lists exactly the registry's views, each a tab of its own, found by its name.
    void everyViewIsListedAndShown_data() { viewColumn(); }
    void everyViewIsListedAndShown() {
        QFETCH(QString, view);
        auto w = testWindow();
        QCOMPARE(w->viewNames().size(), static_cast<qsizetype>(std::size(kViews)));
        View* v = w->view(view);
        QVERIFY(v);
        QCOMPARE(v->name(), view);
        QVERIFY(!v->title().isEmpty());
        QVERIFY(w->setCurrentView(view));
        QCOMPARE(w->activeView(), v);
        QCOMPARE(w->currentView(), view);
        QVERIFY(v->widget()->isVisible());
    }

    // Run, Pause, Step, Resume and Cancel of each view's job, through View::transport() and
    // View::cancel() only; a view without a job says why.
    void transportThroughTheInterface_data() { viewColumn(); }
    void transportThroughTheInterface() {
        QFETCH(QString, view);
        MainWindow w;
        prepare(w, view);
        if (QTest::currentTestFailed()) return;
        View* v = w.view(view);
        QVERIFY(v);
        Transport* t = v->transport();
        if (!t) {
            QVERIFY2(!v->noTransport().isEmpty(), "a view without a job says why");
            QVERIFY(w.setCurrentView(view));
            w.runCurrent();
            QVERIFY2(w.statusLine().contains(v->noTransport()), qPrintable(w.statusLine()));
            return;
        }
        QVERIFY2(t->cannotRun().isEmpty(), qPrintable(t->cannotRun()));
        t->run();
        if (!t->canStep()) {
            // One solve per method (mean field): it runs or is done already; Cancel leaves it inactive.
            QTRY_VERIFY_WITH_TIMEOUT(t->state() != Transport::State::Idle, kStartMs);
            v->cancel();
            QTRY_VERIFY_WITH_TIMEOUT(!t->active(), 10000);
            return;
        }
        QTRY_VERIFY_WITH_TIMEOUT(t->units() > 3, kStartMs);
        QCOMPARE(t->state(), Transport::State::Running);
        t->setPaused(true);
        QTRY_COMPARE_WITH_TIMEOUT(t->state(), Transport::State::Paused, 10000);
        const long long held = t->units();
        QTest::qWait(300);
        QCOMPARE(t->units(), held);
        t->step();
        QTRY_VERIFY_WITH_TIMEOUT(t->units() > held && t->state() == Transport::State::Paused, 10000);
        const long long stepped = t->units();
        QTest::qWait(100);
        QCOMPARE(t->units(), stepped);
        t->setPaused(false);
        QTRY_VERIFY_WITH_TIMEOUT(t->units() > stepped + 3, 10000);
        v->cancel();
        QCOMPARE(t->state(), Transport::State::Stopped);
        QVERIFY(!t->active());
        QTRY_VERIFY_WITH_TIMEOUT(!t->jobActive(), 10000);
    }

    // Each view's speed is its own: set on one view, every view with another transport keeps its
    // own; the window's speed control follows the current view's.
    void speedIsPerView_data() { viewColumn(); }
    void speedIsPerView() {
        QFETCH(QString, view);
        auto w = testWindow();
        QVERIFY(w->loadPreset(presetFor(view)));
        View* v = w->view(view);
        QVERIFY(v);
        if (!v->transport()) {
            QVERIFY(!v->noTransport().isEmpty());
            return;
        }
        for (View* u : w->views()) QCOMPARE(u->pace(), 0.0);
        v->setPace(10);
        QCOMPARE(v->pace(), 10.0);
        QCOMPARE(v->transport()->pace(), 10.0);
        for (View* u : w->views())
            if (u->transport() && u->transport() != v->transport()) QVERIFY2(u->pace() == 0.0, qPrintable(u->name()));
        // The window's control sets the current view's pace, and only its.
        QVERIFY(w->setCurrentView(view));
        w->setPace(3);
        QCOMPARE(v->pace(), 3.0);
        for (View* u : w->views())
            if (u->transport() && u->transport() != v->transport()) QVERIFY2(u->pace() == 0.0, qPrintable(u->name()));
        auto* bar = w->findChild<QToolBar*>(QStringLiteral("transportBar"));
        QVERIFY(bar);
        auto* box = bar->findChild<QComboBox*>();
        QVERIFY(box);
        QCOMPARE(box->currentData().toDouble(), 3.0);
        // Another view shows its own speed in the same control.
        for (View* u : w->views())
            if (u->transport() && u->transport() != v->transport()) {
                QVERIFY(w->setCurrentView(u->name()));
                QCOMPARE(box->currentData().toDouble(), 0.0);
                break;
            }
    }

    // A speed chosen on Tempering does not slow the AIS run of Annealing: 10 scans a second there,
    // full speed here, and the run does far more than 10 steps a second.
    void aSlowViewLeavesTheOthersAtFullSpeed() {
        auto w = testWindow();
        QVERIFY(w->loadPreset(QStringLiteral("four-mode")));
        QTRY_VERIFY_WITH_TIMEOUT(w->idle(), kStartMs);
        RunSettings s = w->settings();
        s.autoRun = false;
        s.schedule.steps = 1000000;
        s.chains = 20;
        s.reverse = false;
        w->applySettings(s);
        QTRY_VERIFY_WITH_TIMEOUT(w->idle(), kStartMs);
        QVERIFY(w->setCurrentView(QStringLiteral("tempering")));
        w->setPace(10);
        View* annealing = w->view(QStringLiteral("annealing"));
        QCOMPARE(annealing->pace(), 0.0);
        Transport* t = annealing->transport();
        t->run();
        QTRY_VERIFY_WITH_TIMEOUT(t->units() > 0, kStartMs);
        const long long from = t->units();
        QElapsedTimer clock;
        clock.start();
        QTest::qWait(1000);
        const double perSecond = static_cast<double>(t->units() - from) * 1000.0 / static_cast<double>(clock.elapsed());
        qInfo("annealing steps per second with Tempering at 10/s: %.0f", perSecond);
        QVERIFY2(perSecond > 50, qPrintable(QString::number(perSecond)));
        annealing->cancel();
        QTRY_VERIFY_WITH_TIMEOUT(!t->jobActive(), 10000);
    }

    // Each view's part of a session: written by saveSession, checked by readSession (nothing
    // changes when it is refused), applied by applySession — into another window, which then
    // writes the same part. A view with no part writes none.
    void sessionPartRoundTrips_data() { viewColumn(); }
    void sessionPartRoundTrips() {
        QFETCH(QString, view);
        auto a = testWindow();
        QVERIFY(a->loadPreset(presetFor(view)));
        QTRY_VERIFY_WITH_TIMEOUT(a->idle(), kStartMs);
        View* va = a->view(view);
        QVERIFY(va);
        const rbm::Session before = saved(va);
        if (!perturb(*a, va)) {
            QVERIFY2(!part(before, view), "a view with no settings of its own writes no part");
            QCOMPARE(va->readSession(before), QString());
            return;
        }
        const rbm::Session changed = saved(va);
        QVERIFY(part(changed, view));
        QVERIFY2(!part(before, view) || *part(before, view) != *part(changed, view),
                 "the change shows in the saved part");

        auto b = testWindow();
        QVERIFY(b->loadPreset(presetFor(view)));
        QTRY_VERIFY_WITH_TIMEOUT(b->idle(), kStartMs);
        View* vb = b->view(view);
        const rbm::Session fresh = saved(vb);
        QVERIFY(part(fresh, view) && *part(fresh, view) != *part(changed, view));

        // A part with a value of the wrong kind is refused, and nothing changes.
        rbm::Session bad = changed;
        auto& map = bad.views[view.toStdString()];
        auto it = std::find_if(map.begin(), map.end(), [](const auto& kv) { return !kv.second.is_list; });
        QVERIFY(it != map.end());
        const bool isText = std::holds_alternative<std::string>(it->second.items.front());
        it->second = rbm::SessionValue::scalar(isText ? rbm::SessionScalar{std::int64_t{-987654321}}
                                                      : rbm::SessionScalar{std::string("not a value")});
        const QString err = vb->readSession(bad);
        QVERIFY2(!err.isEmpty(), qPrintable("views." + view + "." + QString::fromStdString(it->first) + " accepted"));
        QVERIFY2(*part(saved(vb), view) == *part(fresh, view), "a refused part changes nothing");

        QCOMPARE(vb->readSession(changed), QString());
        vb->applySession(changed);
        QVERIFY2(*part(saved(vb), view) == *part(changed, view), "the part applied is the part saved");
    }
};

QTEST_MAIN(TestViewInterface)
#include "tst_view_interface.moc"
