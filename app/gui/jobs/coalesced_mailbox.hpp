#pragma once
// Producer/consumer hand-over for progress from a worker to the GUI (the PlotJuggler pattern):
// the worker merges what it has into a pending update and, only when that update was clean,
// asks the GUI to come and take it; the GUI takes it after a short single-shot timer, so however
// often the worker reports, the GUI redraws at most about 30 times per second.
#include <QTimer>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>

namespace rbmscope {

template <class Update>
class Mailbox {
public:
    // Merge into the pending update; true when it was clean before (the caller wakes the GUI).
    template <class F>
    bool merge(F&& f) {
        std::lock_guard<std::mutex> lock(mutex_);
        f(pending_);
        return !std::exchange(dirty_, true);
    }
    Update take() {
        std::lock_guard<std::mutex> lock(mutex_);
        dirty_ = false;
        return std::exchange(pending_, Update{});
    }

private:
    std::mutex mutex_;
    Update pending_{};
    bool dirty_ = false;
};

// GUI side: wake() arms a single-shot timer (if not armed); when it fires, `flush` runs once.
class FrameGate {
public:
    FrameGate(QObject* owner, int intervalMs, std::function<void()> flush) : flush_(std::move(flush)) {
        timer_ = new QTimer(owner);
        timer_->setSingleShot(true);
        timer_->setInterval(intervalMs);
        QObject::connect(timer_, &QTimer::timeout, owner, [this] { flush_(); });
    }
    void wake() {
        if (!timer_->isActive()) timer_->start();
    }
    void flushNow() {
        timer_->stop();
        flush_();
    }

private:
    QTimer* timer_;
    std::function<void()> flush_;
};

}  // namespace rbmscope
