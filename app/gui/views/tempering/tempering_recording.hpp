#pragma once
// A tempering run as recorded for replay (paced playback): at every recorded scan, what
// the tempering view draws — the replica at each rung of chain 0 over the chart's window of recent
// scans, the ladder, the swap statistics of the round so far (acceptance, barrier, round trips) and,
// for a 2-D model, the state of chain 0 at each rung (the dots on the rung heatmaps).
//
// Memory is bounded whatever the run's length: the records are rbm::DecimatedRecords (every
// stride-th scan; when full, every other record goes and the stride doubles), so a long run keeps
// evenly spaced scans. The last scan of the run is kept besides, so a replay ends where the run did.
// Written by the worker while the GUI thread reads it (the view shows the run at a pace while the
// engine computes at full speed): every member takes a lock. While the run goes on, a record's
// index can change (a halving drops every other one), so a reader that follows the run asks by
// scan (frameAt, frameAfter), which is answered under one lock.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

#include "core/tempering/pt.hpp"
#include "views/tempering/tempering_job.hpp"

namespace rbmscope {

class TemperingRecording {
public:
    // At most maxRecords records (the last scan included) and about maxBytes of them.
    explicit TemperingRecording(int maxRecords = 4096, std::size_t maxBytes = std::size_t{16} << 20);

    // Called by runTempering before the first scan. stateDim: columns of the states kept (0: none).
    void begin(rbm::PtScheme scheme, int rungs, int stateDim, int window, long long scansTotal, int rounds);
    bool wants(long long scan) const {
        const std::lock_guard lock(mutex_);
        return records_.wants(scan);
    }
    // The view at `scan`: window rows oldest first (each `rungs` replica ids), states rungs x stateDim.
    void record(long long scan, int round, const rbm::PtStats& stats,
                const std::deque<std::vector<std::uint16_t>>& window, const rbm::RowMat& states);
    // The run's last scan (kept outside the decimated records).
    void recordLast(long long scan, int round, const rbm::PtStats& stats,
                    const std::deque<std::vector<std::uint16_t>>& window, const rbm::RowMat& states, bool finished);

    // recordLast has run: the worker writes no more, the GUI thread may read.
    bool ended() const { return ended_.load(std::memory_order_acquire); }
    void markEnded() { ended_.store(true, std::memory_order_release); }  // the run failed: keep what is there
    int size() const;                                                    // records, the last scan included
    int capacity() const { return maxRecords_; }
    long long stride() const {
        const std::lock_guard lock(mutex_);
        return records_.stride();
    }
    long long scan(int i) const;
    long long lastScan() const;  // of the newest record (-1 when none)
    // The newest record at or before `scan`, and the oldest one after it (none: not recorded yet).
    std::optional<TemperingFrame> frameAt(long long scan) const;
    std::optional<TemperingFrame> frameAfter(long long scan) const;
    // The frame the view draws at record i (finished only for the last record of a finished run).
    TemperingFrame frame(int i) const;
    // Index of the last record at or before `scan` (0 when none).
    int indexAt(long long scan) const;
    long long scansTotal() const { return scansTotal_; }
    int rungs() const { return rungs_; }

private:
    int decimated() const { return static_cast<int>(records_.size()); }
    int sizeLocked() const;
    long long scanLocked(int i) const;
    int indexAtLocked(long long scan) const;
    TemperingFrame frameLocked(int i) const;
    void pack(int round, const rbm::PtStats& stats, const std::deque<std::vector<std::uint16_t>>& window,
              const rbm::RowMat& states, std::vector<double>& nums, std::vector<std::uint16_t>& ids) const;
    TemperingFrame unpack(long long scan, const double* nums, const std::uint16_t* ids) const;

    int maxRecords_;
    std::size_t maxBytes_;
    rbm::PtScheme scheme_ = rbm::PtScheme::Deo;
    int rungs_ = 0, stateDim_ = 0, window_ = 0, rounds_ = 1;
    long long scansTotal_ = 0;
    // Numbers: round, stats.scans, stats.chains, rows of the window, lifted round trips, betas (R),
    // rejection, proposed, accepted (R-1 each), round trips, restarts (R each), states (R x stateDim).
    rbm::DecimatedRecords<double> records_;
    rbm::DecimatedRecords<std::uint16_t> windows_;  // window x rungs replica ids, oldest first
    struct Last {
        long long scan = 0;
        std::vector<double> nums;
        std::vector<std::uint16_t> ids;
        bool finished = false;
    };
    std::optional<Last> last_;
    std::atomic<bool> ended_{false};
    mutable std::mutex mutex_;
};

}  // namespace rbmscope
