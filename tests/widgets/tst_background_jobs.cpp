// BackgroundJobs: a newer request on a channel drops the older one's late result and progress;
// stop() keeps a partial result; a cancelled job ends its channel's running state; a job's
// parallel loops get every core while the GUI thread stays free.
#include <tbb/parallel_for.h>
#include <QSignalSpy>
#include <QtTest>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "core/numerics/types.hpp"
#include "jobs/background_jobs.hpp"

using rbmscope::BackgroundJobs;

class TestBackgroundJobs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void lateResultOfAnOlderJobIsDropped() {
        BackgroundJobs jobs;
        std::vector<int> delivered;
        std::atomic<bool> slowDone{false};
        // The first job ignores its cancel flag and finishes after the second: its result is stale.
        jobs.submit<int>(
            "c",
            [&slowDone](const BackgroundJobs::CancelFlag&) {
                std::this_thread::sleep_for(std::chrono::milliseconds(150));
                slowDone = true;
                return 1;
            },
            [&delivered](int v) { delivered.push_back(v); });
        QCOMPARE(jobs.generation("c"), std::uint64_t(1));
        jobs.submit<int>(
            "c", [](const BackgroundJobs::CancelFlag&) { return 2; }, [&delivered](int v) { delivered.push_back(v); });
        QCOMPARE(jobs.generation("c"), std::uint64_t(2));
        QTRY_VERIFY_WITH_TIMEOUT(slowDone.load(), 5000);
        QTRY_VERIFY_WITH_TIMEOUT(!jobs.isRunning("c"), 5000);
        QTest::qWait(50);  // let the late result's queued call arrive
        QCOMPARE(delivered, std::vector<int>{2});
    }

    void cancelDropsTheResultAndStopKeepsIt() {
        BackgroundJobs jobs;
        // A job that runs until its flag is raised and returns how far it got.
        const auto work = [](const BackgroundJobs::CancelFlag& f) {
            int n = 0;
            while (!f->load()) {
                ++n;
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
            return n;
        };
        std::optional<int> got;
        jobs.submit<int>("s", work, [&got](int v) { got = v; });
        QTest::qWait(30);
        jobs.stop("s");
        QTRY_VERIFY_WITH_TIMEOUT(got.has_value(), 5000);
        QVERIFY(*got > 0);
        QVERIFY(!jobs.isRunning("s"));

        got.reset();
        jobs.submit<int>("s", work, [&got](int v) { got = v; });
        QTest::qWait(30);
        jobs.cancel("s");
        QVERIFY(!jobs.isRunning("s"));
        jobs.waitForAll();
        QTest::qWait(30);
        QVERIFY(!got.has_value());
    }

    void cancelledJobEndsRunning() {
        BackgroundJobs jobs;
        bool failed = false;
        jobs.submit<int>(
            "x",
            [](const BackgroundJobs::CancelFlag& f) -> int {
                while (!f->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
                throw rbm::Cancelled();
            },
            [](int) {}, [&failed](QString) { failed = true; });
        QVERIFY(jobs.isRunning("x"));
        jobs.stop("x");
        QTRY_VERIFY_WITH_TIMEOUT(!jobs.isRunning("x"), 5000);
        QVERIFY(!failed);  // Cancelled is silent
    }

    void errorsReachFail() {
        BackgroundJobs jobs;
        QString message;
        jobs.submit<int>(
            "e", [](const BackgroundJobs::CancelFlag&) -> int { throw rbm::InputError("bad K: 0"); }, [](int) {},
            [&message](QString m) { message = m; });
        QTRY_COMPARE_WITH_TIMEOUT(message, QStringLiteral("bad K: 0"), 5000);
    }

    void progressOfAStaleJobIsDropped() {
        BackgroundJobs jobs;
        std::atomic<bool> go{false};
        int fresh = 0, stale = 0;
        jobs.submitWithProgress<int>(
            "p",
            [&go, &stale](const BackgroundJobs::Context& ctx) {
                while (!go) std::this_thread::sleep_for(std::chrono::milliseconds(1));
                ctx.post([&stale] { ++stale; });
                return 0;
            },
            [](int) {});
        jobs.submitWithProgress<int>(
            "p",
            [&fresh](const BackgroundJobs::Context& ctx) {
                ctx.post([&fresh] { ++fresh; });
                return 0;
            },
            [](int) {});
        go = true;
        jobs.waitForAll();
        QTest::qWait(50);
        QCOMPARE(fresh, 1);
        QCOMPARE(stale, 0);
    }

    // A job's parallel loop runs on every core although the GUI thread never joins the work
    // (with oneTBB's default of cores - 1 workers it would get one thread only).
    void aJobGetsEveryCore() {
        const int cores = static_cast<int>(std::thread::hardware_concurrency());
        if (cores < 2) QSKIP("one core");
        BackgroundJobs jobs;
        std::optional<std::size_t> threads;
        jobs.submit<std::size_t>(
            "t",
            [](const BackgroundJobs::CancelFlag&) {
                std::mutex m;
                std::set<std::thread::id> ids;
                tbb::parallel_for(0, 400, [&](int) {
                    const auto t0 = std::chrono::steady_clock::now();
                    while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(2)) {
                    }
                    std::lock_guard<std::mutex> lock(m);
                    ids.insert(std::this_thread::get_id());
                });
                return ids.size();
            },
            [&threads](std::size_t n) { threads = n; });
        QTRY_VERIFY_WITH_TIMEOUT(threads.has_value(), 20000);
        QVERIFY2(*threads >= static_cast<std::size_t>(cores), qPrintable(QString::number(*threads)));
    }
};

QTEST_MAIN(TestBackgroundJobs)
#include "tst_background_jobs.moc"
