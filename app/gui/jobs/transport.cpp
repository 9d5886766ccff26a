#include "jobs/transport.hpp"

#include <QTimer>

namespace rbmscope {

Transport::Transport(Job job, QObject* parent) : QObject(parent), job_(std::move(job)), poll_(new QTimer(this)) {
    poll_->setInterval(15);
    connect(poll_, &QTimer::timeout, this, &Transport::poll);
}

bool Transport::apply(Event e) const {
    const std::optional<State> to = next(state_, e);
    if (!to) return false;
    if (e == Event::Run || e == Event::StepRun) {
        ran_ = true;
        restoredUnits_.reset();
    } else if (e == Event::Forget) {
        ran_ = false;
        restoredUnits_.reset();
    }
    state_ = *to;
    return true;
}

std::optional<Transport::State> Transport::endOfRun() const {
    if (job_.restored)
        if (const std::optional<Restored> r = job_.restored()) {
            restoredUnits_ = r->units;
            return r->finished ? State::Finished : State::Stopped;
        }
    restoredUnits_.reset();
    if (!ran_) return std::nullopt;
    return cancelled_ || !job_.finished() ? State::Stopped : State::Finished;
}

void Transport::sync() const {
    if (stopping()) return;  // Stopped, as cancel() left it, until the cancelled worker has handed over
    if (job_.active()) {
        const rbm::StepGate* g = job_.gate();
        const bool pause = g && g->pause.load();
        if (!isRun(state_)) {
            // A run the job started itself (the view's own Run button, an auto-run).
            cancelled_ = false;
            apply(pause ? Event::StepRun : Event::Run);
        }
        if (!g) return;
        if (!pause) {
            if (state_ != State::Running) apply(Event::Resume);
            return;
        }
        if (state_ == State::Running) apply(Event::Pause);
        // Held: the worker waits and has no unit left to take (refused when Paused already).
        if (g->holding.load() && g->budget.load() == 0) apply(Event::Held);
        return;
    }
    const std::optional<State> end = endOfRun();
    if (job_.playback) {
        const State p = job_.playback();
        if (p == State::Replaying || p == State::Playing) {
            apply(p == State::Replaying ? Event::Replay : Event::Play);
            return;
        }
    }
    if (!end) apply(Event::Forget);
    else apply(*end == State::Finished ? Event::Finish : Event::End);
}

Transport::State Transport::state() const {
    sync();
    return state_;
}

long long Transport::units() const {
    if (state() == State::Idle) return 0;
    if (restoredUnits_) return *restoredUnits_;
    const rbm::StepGate* g = job_.gate();
    return g ? g->done.load() : 0;
}

double Transport::fraction() const { return job_.fraction ? job_.fraction() : -1.0; }

QString Transport::describe() const {
    return tr("%1 · %2 %3s%4").arg(stateName(state())).arg(units()).arg(unitName()).arg(detail());
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
    apply(Event::Run);
    refresh();
}

void Transport::setPaused(bool on) {
    rbm::StepGate* g = job_.gate();
    if (!active() || !g) return;
    g->pause.store(on);
    apply(on ? Event::Pause : Event::Resume);  // refused when it is so already
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
        apply(Event::StepRun);
    } else if (!g->pause.load()) {
        g->pause.store(true);  // running: stop where it is
        apply(Event::Step);
    } else {
        g->budget.fetch_add(1);
        apply(Event::Step);
    }
    refresh();
}

void Transport::cancel() {
    if (!active()) return;
    cancelled_ = true;
    job_.stop();  // raises the cancel flag, which a worker waiting in a pause sees at once
    if (rbm::StepGate* g = job_.gate()) g->pause.store(false);
    apply(Event::Cancel);
    // Stopped from now on (see the header); a job with no gate ends within this call or is
    // shown running until it does.
    stoppedGate_ = job_.active() ? job_.gate() : nullptr;
    refresh();
}

void Transport::reset() {
    if (job_.active()) return;  // a run of the new model already started
    cancelled_ = false;
    stoppedGate_ = nullptr;
    apply(Event::Forget);
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
