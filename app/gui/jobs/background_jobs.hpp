#pragma once
// Runs computations on oneTBB workers and hands results back to the GUI thread.
// Each job belongs to a channel ("density", "ais", ...). A new request on a channel cancels the
// previous one and bumps the channel's generation; a late result from an older generation is
// dropped on arrival, so the view never shows a stale answer (oneTBB's GUI-thread pattern, and
// the restart-on-new-request of Qt's Mandelbrot example).
//
// Threads: a job runs on a oneTBB worker inside this_task_arena::isolate, so a worker waiting in
// one job's parallel loop never picks up another job (a short heatmap job would otherwise wait
// for a long AIS run it stole). The arena has one slot per core for workers plus one for the GUI
// thread (which only enqueues), and the process allows one more oneTBB thread than cores so the
// worker hosting a job does not take a core away from that job's parallel loops.
#include <tbb/task_arena.h>
#include <tbb/task_group.h>
#include <QObject>
#include <QString>
#include <atomic>
#include <functional>
#include <map>
#include <memory>

namespace rbmscope {

class BackgroundJobs : public QObject {
    Q_OBJECT
public:
    explicit BackgroundJobs(QObject* parent = nullptr);
    ~BackgroundJobs() override;  // cancels everything and waits for the workers

    using CancelFlag = std::shared_ptr<std::atomic<bool>>;

    // work(cancel) runs on a worker; deliver(result) and fail(message) run on the GUI thread,
    // only if this is still the newest job of its channel. rbm::Cancelled thrown by work is silent.
    // Either way the channel stops being "running" once the newest job has ended.
    template <class R>
    void submit(const QString& channel, std::function<R(const CancelFlag&)> work, std::function<void(R)> deliver,
                std::function<void(QString)> fail = {}) {
        submitWithProgress<R>(
            channel, [work = std::move(work)](const Context& ctx) { return work(ctx.cancel); }, std::move(deliver),
            std::move(fail));
    }

    // What a job that reports progress receives: its cancel flag and post(f), which runs f on the
    // GUI thread later, only if the job is still the newest of its channel (the job keeps running).
    struct Context {
        CancelFlag cancel;
        std::function<void(std::function<void()>)> post;
    };
    template <class R>
    void submitWithProgress(const QString& channel, std::function<R(const Context&)> work,
                            std::function<void(R)> deliver, std::function<void(QString)> fail = {}) {
        auto [generation, flag] = begin(channel);
        Context ctx{flag, [this, channel, generation = generation](std::function<void()> f) {
                        postProgress(channel, generation, std::move(f));
                    }};
        enqueue([this, channel, generation = generation, ctx = std::move(ctx), work = std::move(work),
                 deliver = std::move(deliver), fail = std::move(fail)]() mutable {
            std::function<void()> onGui;
            try {
                auto result = std::make_shared<R>(work(ctx));
                onGui = [deliver, result] { deliver(std::move(*result)); };
            } catch (const std::exception& e) {
                // A cancelled job delivers nothing, but still ends its channel's running state.
                const QString msg = QString::fromStdString(e.what());
                if (fail && !isCancelled(e)) onGui = [fail, msg] { fail(msg); };
            }
            post(channel, generation, std::move(onGui));
        });
    }

    // Cancel: raise the flag and drop whatever the job delivers.
    void cancel(const QString& channel);
    // Stop: raise the flag but keep the generation, so a job that returns what it has so far
    // (AIS returns its partial result) still delivers it.
    void stop(const QString& channel);
    // Block until every job has finished (destruction, tests).
    void waitForAll();
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
    void postProgress(const QString& channel, std::uint64_t generation, std::function<void()> onGui);
    // Runs onGui on the GUI thread unless the channel moved on to a newer generation; a final
    // delivery (finishes) also ends the channel's running state.
    void dispatchToGui(const QString& channel, std::uint64_t generation, std::function<void()> onGui, bool finishes);
    static bool isCancelled(const std::exception& e);

    std::map<QString, Channel> channels_;  // GUI thread only
    tbb::task_arena arena_{arenaConcurrency(), 1};
    static int arenaConcurrency();
    // Held by pointer: tbb::task_group's destructor may throw, which a QObject destructor must not.
    std::unique_ptr<tbb::task_group> group_ = std::make_unique<tbb::task_group>();
};

}  // namespace rbmscope
