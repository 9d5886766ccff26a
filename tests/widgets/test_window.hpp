#pragma once
// The main window as the widget suites drive it: no modal boxes, no autosave, a fixed size, shown
// (offscreen); and waiting until every view shows results for the current model and settings.
#include <QElapsedTimer>
#include <QtTest>
#include <memory>

#include "main_window/main_window.hpp"
#include "window_views.hpp"

inline std::unique_ptr<rbmscope::MainWindow> testWindow(int width = 1200, int height = 800) {
    auto w = std::make_unique<rbmscope::MainWindow>();
    w->setInteractive(false);
    w->setAutosave(false);
    w->resize(width, height);
    w->show();
    return w;
}

// True once MainWindow::idle() (within `ms`; the event loop runs meanwhile).
inline bool waitIdle(const rbmscope::MainWindow& w, int ms = 60000) {
    QElapsedTimer t;
    t.start();
    while (!w.idle() && t.elapsed() < ms) QTest::qWait(10);
    return w.idle();
}

// A key as the user types it: to the widget with focus (a field keeps Space), else the window.
inline void press(rbmscope::MainWindow& w, Qt::Key key, Qt::KeyboardModifiers mods = Qt::NoModifier) {
    QWidget* target = QApplication::focusWidget() ? QApplication::focusWidget() : &w;
    QTest::keyClick(target, key, mods);
}

// Settings under which no view's job ends during a test (AIS 10^6 steps, 10^7 PT scans, 10^8
// sampling sweeps, 10^8 training updates), each unit paced at 1000 a second; AIS does not re-run
// by itself. The window is idle again once the AIS settings are applied.
inline void makeRunsLong(rbmscope::MainWindow& w, int idleMs) {
    rbmscope::RunSettings s = w.settings();
    s.autoRun = false;
    s.schedule.steps = 1000000;
    s.chains = 20;
    s.sweepSteps = {1000000};
    s.reverse = false;
    w.applySettings(s);
    QTRY_VERIFY_WITH_TIMEOUT(w.idle(), idleMs);
    rbmscope::TemperingSettings t = temperingViewOf(w)->settings();
    t.scans = 10000000;
    temperingViewOf(w)->setSettings(t);
    rbmscope::SamplesSettings samples;
    samples.sweeps = 100000000;
    samples.chains = 16;
    samplesViewOf(w)->setSettings(samples);
    rbm::TrainOptions o = trainingViewOf(w)->options();
    o.updates = 100000000;
    trainingViewOf(w)->setOptions(o);
    for (const QString& v : w.viewNames()) w.setPace(1000, v);  // each view's transport has its own speed
}
