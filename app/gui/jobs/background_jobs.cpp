#include "jobs/background_jobs.hpp"

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <QMetaObject>
#include <QPointer>
#include <memory>

#include "core/numerics/types.hpp"

namespace rbmscope {

namespace {
int cores() { return std::max(1, tbb::info::default_concurrency()); }
}  // namespace

int BackgroundJobs::arenaConcurrency() {
    // One more oneTBB thread than cores for the process (see the header); created once, kept for
    // the life of the program.
    static const auto* extra =
        new tbb::global_control(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(cores() + 1));
    (void)extra;
    return cores() + 1;
}

BackgroundJobs::BackgroundJobs(QObject* parent) : QObject(parent) {}

BackgroundJobs::~BackgroundJobs() {
    cancelAll();
    waitForAll();
}

void BackgroundJobs::waitForAll() {
    arena_.execute([this] { group_->wait(); });
}

std::pair<std::uint64_t, BackgroundJobs::CancelFlag> BackgroundJobs::begin(const QString& channel) {
    Channel& c = channels_[channel];
    if (c.flag) c.flag->store(true);
    c.flag = std::make_shared<std::atomic<bool>>(false);
    ++c.generation;
    if (!c.running) {
        c.running = true;
        Q_EMIT runningChanged(channel, true);
    }
    return {c.generation, c.flag};
}

void BackgroundJobs::enqueue(std::function<void()> task) {
    arena_.execute([this, &task] {
        group_->run([task = std::move(task)] { tbb::this_task_arena::isolate([&task] { task(); }); });
    });
}

void BackgroundJobs::post(const QString& channel, std::uint64_t generation, std::function<void()> onGui) {
    dispatchToGui(channel, generation, std::move(onGui), true);
}

void BackgroundJobs::postProgress(const QString& channel, std::uint64_t generation, std::function<void()> onGui) {
    dispatchToGui(channel, generation, std::move(onGui), false);
}

void BackgroundJobs::dispatchToGui(const QString& channel, std::uint64_t generation, std::function<void()> onGui,
                                   bool finishes) {
    QPointer<BackgroundJobs> self(this);
    QMetaObject::invokeMethod(
        this,
        [self, channel, generation, finishes, onGui = std::move(onGui)] {
            if (!self) return;
            auto it = self->channels_.find(channel);
            if (it == self->channels_.end() || it->second.generation != generation) return;  // stale
            if (finishes) {
                it->second.running = false;
                Q_EMIT self->runningChanged(channel, false);
            }
            if (onGui) onGui();
        },
        Qt::QueuedConnection);
}

void BackgroundJobs::stop(const QString& channel) {
    auto it = channels_.find(channel);
    if (it != channels_.end() && it->second.flag) it->second.flag->store(true);
}

void BackgroundJobs::cancel(const QString& channel) {
    stop(channel);
    auto it = channels_.find(channel);
    if (it == channels_.end()) return;
    ++it->second.generation;  // whatever arrives now is stale
    if (it->second.running) {
        it->second.running = false;
        Q_EMIT runningChanged(channel, false);
    }
}

void BackgroundJobs::cancelAll() {
    for (auto& [name, c] : channels_)
        if (c.flag) c.flag->store(true);
}

bool BackgroundJobs::isRunning(const QString& channel) const {
    auto it = channels_.find(channel);
    return it != channels_.end() && it->second.running;
}

std::uint64_t BackgroundJobs::generation(const QString& channel) const {
    auto it = channels_.find(channel);
    return it == channels_.end() ? 0 : it->second.generation;
}

bool BackgroundJobs::isCancelled(const std::exception& e) { return dynamic_cast<const rbm::Cancelled*>(&e) != nullptr; }

}  // namespace rbmscope
