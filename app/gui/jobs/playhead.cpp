#include "jobs/playhead.hpp"

#include <QTimer>
#include <algorithm>

namespace rbmscope {
namespace {
constexpr int kPlayheadTickMs = 33;  // the show's and the replay's frame interval
}

bool Playhead::allowed(State from, State to) {
    using S = State;
    if (to == S::Off || to == S::Showing) return true;  // a new model / result, a new run: from anywhere
    switch (from) {
        case S::Off: return false;  // nothing recorded: nothing to cut, end or replay
        case S::Showing: return to == S::Cutting || to == S::Ended;
        case S::Cutting: return to == S::Ended;
        case S::Ended: return to == S::Replaying;  // Play and Step start at a record
        case S::Replaying: return to == S::Playing || to == S::Ended;
        case S::Playing: return to == S::Replaying || to == S::Ended;
    }
    return false;
}

Playhead::Playhead(Source source, QObject* parent)
    : QObject(parent), source_(std::move(source)), timer_(new QTimer(this)) {
    timer_->setTimerType(Qt::PreciseTimer);
    timer_->setInterval(kPlayheadTickMs);
    connect(timer_, &QTimer::timeout, this, &Playhead::tick);
}

bool Playhead::enter(State to) {
    if (to == state_) return true;
    if (!allowed(state_, to)) return false;
    const State from = state_;
    state_ = to;
    Q_EMIT stateChanged(from, to);
    return true;
}

double Playhead::secondsSinceLastTick() {
    // Capped, so a stalled event loop slows the show or replay down instead of jumping ahead.
    return std::min(0.1, static_cast<double>(clock_.restart()) / 1000.0);
}

double Playhead::showPace() const {
    if (pace_ > 0) return pace_;
    if (gate_ && gate_->pace.load() > 0) return gate_->pace.load();
    return source_.showPace ? source_.showPace() : 0.0;
}

double Playhead::replayRate() const {
    if (pace_ > 0) return pace_;
    return source_.replayPace ? source_.replayPace() : 0.0;
}

void Playhead::start(std::shared_ptr<rbm::StepGate> gate) {
    timer_->stop();
    gate_ = gate ? std::move(gate) : std::make_shared<rbm::StepGate>();
    shown_ = -1;
    pos_ = 0;
    complete_ = false;
    cut_ = false;
    enter(State::Showing);
    clock_.start();
    timer_->start();
    tickShow();
}

void Playhead::engineEnded(bool complete) { complete_ = complete; }

void Playhead::abort() {
    if (state_ != State::Showing && state_ != State::Cutting) return;
    timer_->stop();
    enter(State::Ended);
}

void Playhead::cancel() {
    cut_ = state_ == State::Showing;
    if (!cut_) return;
    if (gate_) {
        gate_->pause.store(false);
        gate_->holding.store(false);
    }
    enter(State::Cutting);             // stopped at once; the last computed unit goes on screen once it is written
    if (source_.written()) endShow();  // else the next ticks look again
}

void Playhead::clear() {
    timer_->stop();
    gate_.reset();
    shown_ = -1;
    pos_ = 0;
    complete_ = false;
    cut_ = false;
    enter(State::Off);
}

void Playhead::tick() {
    switch (state_) {
        case State::Showing: return tickShow();
        case State::Cutting:
            if (source_.written()) endShow();
            return;
        case State::Playing: return tickReplay();
        default: timer_->stop();
    }
}

void Playhead::tickShow() {
    rbm::StepGate* g = gate_.get();
    if (state_ != State::Showing || !g) return;
    const double dt = secondsSinceLastTick();
    if (shown_ < 0) {  // unit 0 first, whatever the pace
        const long long u = source_.seek(0, false);
        if (u < 0) return;
        shown_ = u;
        pos_ = 0;
    } else if (g->pause.load()) {
        // Held: the shown unit stays; each unit of budget shows exactly the next record.
        while (g->budget.load() > 0) {
            const long long u = source_.seek(shown_, true);
            if (u < 0) break;  // not computed yet: the next tick looks again
            g->budget.fetch_sub(1);
            shown_ = u;
            pos_ = static_cast<double>(u);
        }
    } else {
        const double pace = showPace();
        const double newest = static_cast<double>(source_.newest());
        pos_ = pace > 0 ? std::min(pos_ + pace * dt, newest) : newest;  // waits when it catches up
        if (const long long u = source_.seek(static_cast<long long>(pos_), false); u >= 0) shown_ = u;
    }
    g->done.store(std::max(0LL, shown_));
    const bool atEnd = source_.written() && !source_.computing() && shown_ == source_.newest();
    if (atEnd) g->budget.store(0);  // nothing is left to show: a step granted now is spent
    g->holding.store(g->pause.load() && g->budget.load() == 0);
    Q_EMIT ticked();
    if (atEnd && !g->pause.load()) endShow();
}

void Playhead::endShow() {
    if (!allowed(state_, State::Ended)) return;
    timer_->stop();
    const State from = state_;
    // The state first, so what the view draws of the end describes an ended show.
    state_ = State::Ended;
    const long long end = source_.showEnd ? source_.showEnd() : -1;
    if (end >= 0) shown_ = end;
    if (gate_) {
        if (end >= 0) gate_->done.store(end);
        gate_->holding.store(false);
    }
    Q_EMIT stateChanged(from, State::Ended);
}

bool Playhead::canReplay() const {
    return (state_ == State::Ended || replaying()) && source_.written() && source_.newest() >= 0;
}

void Playhead::setPlaying(bool on) {
    if (on == (state_ == State::Playing)) return;
    if (on) {
        if (!canReplay()) return;
        if (state_ == State::Ended || shown_ >= source_.newest()) {  // from the first record (again)
            enter(State::Replaying);
            if (const long long u = source_.seek(0, false); u >= 0) shown_ = u;
        }
        pos_ = static_cast<double>(shown_);
        clock_.start();
        enter(State::Playing);
        timer_->start();
    } else {
        timer_->stop();
        enter(State::Replaying);
    }
}

void Playhead::tickReplay() {
    if (!canReplay()) return setPlaying(false);
    pos_ += replayRate() * secondsSinceLastTick();
    if (const long long u = source_.seek(static_cast<long long>(pos_), false); u >= 0) shown_ = u;
    if (shown_ >= source_.newest()) setPlaying(false);
}

bool Playhead::step() {
    if (!canReplay()) return false;
    setPlaying(false);
    if (state_ == State::Ended) {
        enter(State::Replaying);
        if (const long long u = source_.seek(0, false); u >= 0) shown_ = u;
        return true;
    }
    if (shown_ >= source_.newest()) return false;
    const long long u = source_.seek(shown_, true);
    if (u < 0) return false;
    shown_ = u;
    return true;
}

void Playhead::seek(long long unit) {
    if (!canReplay()) return;
    if (state_ == State::Ended) enter(State::Replaying);
    if (const long long u = source_.seek(unit, false); u >= 0) shown_ = u;
}

void Playhead::endReplay() {
    if (!replaying()) return;
    timer_->stop();
    shown_ = source_.newest();
    enter(State::Ended);
}

}  // namespace rbmscope
