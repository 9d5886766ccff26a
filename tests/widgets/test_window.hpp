#pragma once
// The main window as the widget suites drive it: no modal boxes, no autosave, a fixed size, shown
// (offscreen); and waiting until every view shows results for the current model and settings.
#include <QElapsedTimer>
#include <QtTest>
#include <memory>

#include "main_window/main_window.hpp"

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
