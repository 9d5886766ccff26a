#include "jobs/transport.hpp"

#include <QTimer>

namespace rbmscope {

Transport::Transport(Job job, QObject* parent) : QObject(parent), job_(std::move(job)), poll_(new QTimer(this)) {
    poll_->setInterval(15);
    connect(poll_, &QTimer::timeout, this, &Transport::poll);
}

QString stateName(Transport::State s) {
    switch (s) {
        case Transport::State::Idle: return QStringLiteral("idle");
        case Transport::State::Running: return QStringLiteral("running");
        case Transport::State::Pausing: return QStringLiteral("pausing");
        case Transport::State::Paused: return QStringLiteral("paused");
        case Transport::State::Stopped: return QStringLiteral("stopped");
        case Transport::State::Finished: return QStringLiteral("finished");
    }
    return {};
}

long long Transport::units() const {
    const rbm::StepGate* g = job_.gate();
    return g ? g->done.load() : 0;
}

double Transport::fraction() const { return job_.fraction ? job_.fraction() : -1.0; }

Transport::State Transport::state() const {
    const rbm::StepGate* g = job_.gate();
    if (stopping()) return State::Stopped;
    if (job_.active()) {
        if (!g || !g->pause.load()) return State::Running;
        return g->holding.load() ? State::Paused : State::Pausing;
    }
    if (!g) return State::Idle;
    return cancelled_ || !job_.finished() ? State::Stopped : State::Finished;
}

std::shared_ptr<rbm::StepGate> Transport::freshGate(bool paused) const {
    auto g = std::make_shared<rbm::StepGate>();
    g->pace.store(pace_);
    g->pause.store(paused);
    g->budget.store(paused ? 1 : 0);
    return g;
}

void Transport::run() {
    if (!cannotRun().isEmpty()) return;
    if (job_.active()) job_.stop();
    cancelled_ = false;
    stoppedGate_ = nullptr;
    job_.start(freshGate(false));
    refresh();
}

void Transport::setPaused(bool on) {
    rbm::StepGate* g = job_.gate();
    if (!active() || !g) return;
    g->pause.store(on);
    refresh();
}

void Transport::togglePause() {
    if (rbm::StepGate* g = job_.gate(); active() && g) setPaused(!g->pause.load());
}

void Transport::step() {
    if (!job_.canStep) return;
    rbm::StepGate* g = job_.gate();
    if (!active() || !g) {
        if (!cannotRun().isEmpty()) return;
        cancelled_ = false;
        stoppedGate_ = nullptr;
        job_.start(freshGate(true));  // paused, with one unit granted
    } else if (!g->pause.load()) {
        g->pause.store(true);  // running: stop where it is
    } else {
        g->budget.fetch_add(1);
    }
    refresh();
}

void Transport::cancel() {
    if (!active()) return;
    cancelled_ = true;
    job_.stop();  // raises the cancel flag, which a worker waiting in a pause sees at once
    if (rbm::StepGate* g = job_.gate()) g->pause.store(false);
    // Stopped from now on (see the header); a job with no gate ends within this call or is
    // shown running until it does.
    stoppedGate_ = job_.active() ? job_.gate() : nullptr;
    refresh();
}

void Transport::setPace(double unitsPerSecond) {
    pace_ = unitsPerSecond > 0 ? unitsPerSecond : 0;
    if (rbm::StepGate* g = job_.gate()) g->pace.store(pace_);
}

void Transport::refresh() {
    const bool active = job_.active();
    if (active && !poll_->isActive()) poll_->start();
    if (!active) {
        poll_->stop();
        stoppedGate_ = nullptr;  // the worker handed over its end
    }
    last_ = state();
    Q_EMIT stateChanged();
}

void Transport::poll() {
    // A state change at once; a moving counter about ten times a second.
    if (state() != last_ || !job_.active() || (++ticks_ % 6 == 0 && units() != lastUnits_)) {
        lastUnits_ = units();
        refresh();
    }
}

}  // namespace rbmscope
