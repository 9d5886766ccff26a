#pragma once
// Timing bounds that hold the figures (cancel within 100 ms, no event-loop stall above
// 50 ms) whenever the machine can measure them, without failing because other processes load it.
// The idle event loop is timed first; when even that stalls (another build on the same cores),
// the loose bound applies, which still catches work on the GUI thread or a cancel that never
// reaches the engine (both cost seconds), and a warning says so.
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTimer>
#include <QtGlobal>
#include <algorithm>

// Longest gap between ticks of a 10 ms timer over `ms` of an otherwise idle event loop.
inline double idleEventLoopWorstGapMs(int ms = 400) {
    QElapsedTimer clock, total;
    double worst = 0;
    int ticks = 0;
    QTimer timer;
    timer.setInterval(10);
    QObject::connect(&timer, &QTimer::timeout, [&] {
        if (ticks++ > 0) worst = std::max(worst, clock.nsecsElapsed() / 1e6);
        clock.restart();
    });
    clock.start();
    total.start();
    timer.start();
    while (total.elapsed() < ms) QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    return worst;
}

// strictMs when the idle loop keeps its 10 ms ticks within 10 ms of schedule, else looseMs.
inline double loadAwareBoundMs(double strictMs, double looseMs) {
    const double idle = idleEventLoopWorstGapMs();
    if (idle < 20.0) return strictMs;
    qWarning("machine loaded by other processes (idle event loop stalls %.1f ms): using the %.0f ms bound instead of %.0f ms",
             idle, looseMs, strictMs);
    return looseMs;
}
