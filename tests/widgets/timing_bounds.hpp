#pragma once
// Timing bounds that hold the figures (cancel within 100 ms, no event-loop stall above
// 50 ms) whenever the machine can measure them, without failing because other processes load it.
// The idle event loop is timed first; when even that stalls (another build on the same cores),
// the loose bound applies, which still catches work on the GUI thread or a cancel that never
// reaches the engine (both cost seconds), and a warning says so.
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>
#include <QtGlobal>
#include <algorithm>

// Longest gap between ticks of a 10 ms timer over the next `ms` of the event loop. The loop
// sleeps between events as the app's does (a QEventLoop, not a processEvents spin: a spinning
// GUI thread is one more CPU-bound thread, and the scheduler then shares two cores among three
// busy threads, which the app never asks it to do).
inline double worstTickGapMs(int ms) {
    QElapsedTimer clock;
    double worst = 0;
    const auto gap = [&] {  // every gap counts, the first and the last too: a loop blocked
        worst = std::max(worst, clock.nsecsElapsed() / 1e6);  // throughout cannot pass as 0 ms
        clock.restart();
    };
    QTimer timer;
    timer.setTimerType(Qt::PreciseTimer);
    timer.setInterval(10);
    QObject::connect(&timer, &QTimer::timeout, gap);
    QEventLoop loop;
    QTimer::singleShot(ms, Qt::PreciseTimer, &loop, &QEventLoop::quit);
    clock.start();
    timer.start();
    loop.exec();
    gap();
    return worst;
}

// The same over an otherwise idle event loop (nothing of the test's running yet).
inline double idleEventLoopWorstGapMs(int ms = 400) { return worstTickGapMs(ms); }

// strictMs when the idle loop keeps its 10 ms ticks within 10 ms of schedule, else looseMs.
inline double loadAwareBoundMs(double strictMs, double looseMs) {
    const double idle = idleEventLoopWorstGapMs();
    if (idle < 20.0) return strictMs;
    qWarning(
        "machine loaded by other processes (idle event loop stalls %.1f ms): using the %.0f ms bound instead of %.0f "
        "ms",
        idle, looseMs, strictMs);
    return looseMs;
}
