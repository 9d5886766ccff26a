#pragma once
// Runs computations on oneTBB workers and hands results back to the GUI thread.
// Each job belongs to a channel ("density", "ais", ...). A new request on a channel cancels the
// previous one and bumps the channel's generation; a late result from an older generation is
// dropped on arrival, so the view never shows a stale answer (oneTBB's GUI-thread pattern, and
// the restart-on-new-request of Qt's Mandelbrot example).
#include <QObject>
#include <QString>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

namespace rbmscope {

class BackgroundJobs : public QObject {
    Q_OBJECT
public:
    explicit BackgroundJobs(QObject* parent = nullptr);
    ~BackgroundJobs() override;  // cancels everything and waits for the workers

    using CancelFlag = std::shared_ptr<std::atomic<bool>>;

    // work(cancel) runs on a worker; deliver(result) and fail(message) run on the GUI thread,
    // only if this is still the newest job of its channel. rbm::Cancelled thrown by work is silent.
    template <class R>
    void submit(const QString& channel, std::function<R(const CancelFlag&)> work, std::function<void(R)> deliver,
                std::function<void(QString)> fail = {}) {
        auto [generation, flag] = begin(channel);
        enqueue([this, channel, generation, flag, work = std::move(work), deliver = std::move(deliver),
                 fail = std::move(fail)]() mutable {
            std::function<void()> onGui;
            try {
                auto result = std::make_shared<R>(work(flag));
                onGui = [deliver, result] { deliver(std::move(*result)); };
            } catch (const std::exception& e) {
                if (isCancelled(e)) return;
                const QString msg = QString::fromStdString(e.what());
                if (fail) onGui = [fail, msg] { fail(msg); };
            }
            post(channel, generation, std::move(onGui));
        });
    }

    void cancel(const QString& channel);
    void cancelAll();
    bool isRunning(const QString& channel) const;
    std::uint64_t generation(const QString& channel) const;

Q_SIGNALS:
    void runningChanged(const QString& channel, bool running);

private:
    struct Channel {
        std::uint64_t generation = 0;
        CancelFlag flag;
        bool running = false;
    };
    std::pair<std::uint64_t, CancelFlag> begin(const QString& channel);
    void enqueue(std::function<void()> task);
    void post(const QString& channel, std::uint64_t generation, std::function<void()> onGui);
    static bool isCancelled(const std::exception& e);

    std::map<QString, Channel> channels_;  // GUI thread only
    tbb::task_arena arena_;
    // Held by pointer: tbb::task_group's destructor may throw, which a QObject destructor must not.
    std::unique_ptr<tbb::task_group> group_ = std::make_unique<tbb::task_group>();
};

}  // namespace rbmscope
