#include "views/tempering/tempering_recording.hpp"

#include <algorithm>
#include <type_traits>

namespace rbmscope {
namespace {

constexpr int kHead = 5;  // round, stats.scans, stats.chains, window rows, lifted round trips

}  // namespace

TemperingRecording::TemperingRecording(int maxRecords, std::size_t maxBytes)
    : maxRecords_(std::max(3, maxRecords)), maxBytes_(maxBytes) {}

void TemperingRecording::begin(rbm::PtScheme scheme, int rungs, int stateDim, int window, long long scansTotal,
                               int rounds) {
    scheme_ = scheme;
    rungs_ = rungs;
    stateDim_ = stateDim;
    window_ = std::max(1, window);
    scansTotal_ = scansTotal;
    rounds_ = rounds;
    const rbm::Index nums = kHead + rungs + 3 * (rungs - 1) + 2 * rungs + rungs * stateDim;
    const rbm::Index ids = static_cast<rbm::Index>(window_) * rungs;
    const std::size_t bytes =
        static_cast<std::size_t>(nums) * sizeof(double) + static_cast<std::size_t>(ids) * sizeof(std::uint16_t);
    // One place is the last scan's; the decimated records share the rest (at least 2, as the buffer needs).
    const rbm::Index cap =
        std::max<rbm::Index>(2, std::min<rbm::Index>(maxRecords_ - 1, static_cast<rbm::Index>(maxBytes_ / bytes)));
    const std::lock_guard lock(mutex_);
    records_ = rbm::DecimatedRecords<double>(nums, cap);
    windows_ = rbm::DecimatedRecords<std::uint16_t>(ids, cap);
    last_.reset();
    ended_.store(false, std::memory_order_release);
}

void TemperingRecording::pack(int round, const rbm::PtStats& st, const std::deque<std::vector<std::uint16_t>>& window,
                              const rbm::RowMat& states, std::vector<double>& nums,
                              std::vector<std::uint16_t>& ids) const {
    const auto R = static_cast<std::size_t>(rungs_);
    nums.assign(static_cast<std::size_t>(records_.width()), 0.0);
    ids.assign(static_cast<std::size_t>(windows_.width()), 0);
    const std::size_t rows = std::min(window.size(), static_cast<std::size_t>(window_));
    nums[0] = round;
    nums[1] = static_cast<double>(st.scans);
    nums[2] = static_cast<double>(st.chains);
    nums[3] = static_cast<double>(rows);
    nums[4] = static_cast<double>(st.lifted_round_trips);
    std::size_t at = kHead;
    const auto put = [&](const auto& v, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) nums[at + i] = i < v.size() ? static_cast<double>(v[i]) : 0.0;
        at += n;
    };
    put(st.betas, R);
    put(st.rejection, R - 1);
    put(st.proposed, R - 1);
    put(st.accepted, R - 1);
    put(st.round_trips, R);
    put(st.restarts, R);
    if (stateDim_ > 0 && states.rows() == rungs_ && states.cols() == stateDim_)
        for (int k = 0; k < rungs_; ++k)
            for (int d = 0; d < stateDim_; ++d) nums[at++] = states(k, d);
    // The newest `rows` scans of the window.
    std::size_t o = 0;
    for (std::size_t r = window.size() - rows; r < window.size(); ++r)
        for (std::size_t k = 0; k < R; ++k) ids[o++] = window[r][k];
}

void TemperingRecording::record(long long scan, int round, const rbm::PtStats& stats,
                                const std::deque<std::vector<std::uint16_t>>& window, const rbm::RowMat& states) {
    if (!wants(scan)) return;
    std::vector<double> nums;
    std::vector<std::uint16_t> ids;
    pack(round, stats, window, states, nums, ids);
    const std::lock_guard lock(mutex_);
    records_.push(scan, nums.data());
    windows_.push(scan, ids.data());
}

void TemperingRecording::recordLast(long long scan, int round, const rbm::PtStats& stats,
                                    const std::deque<std::vector<std::uint16_t>>& window, const rbm::RowMat& states,
                                    bool finished) {
    Last l;
    l.scan = scan;
    l.finished = finished;
    pack(round, stats, window, states, l.nums, l.ids);
    const std::lock_guard lock(mutex_);
    last_ = std::move(l);
    ended_.store(true, std::memory_order_release);
}

int TemperingRecording::size() const {
    const std::lock_guard lock(mutex_);
    return sizeLocked();
}

long long TemperingRecording::scan(int i) const {
    const std::lock_guard lock(mutex_);
    return scanLocked(i);
}

int TemperingRecording::indexAt(long long at) const {
    const std::lock_guard lock(mutex_);
    return indexAtLocked(at);
}

TemperingFrame TemperingRecording::frame(int i) const {
    const std::lock_guard lock(mutex_);
    return frameLocked(i);
}

long long TemperingRecording::lastScan() const {
    const std::lock_guard lock(mutex_);
    const int n = sizeLocked();
    return n > 0 ? scanLocked(n - 1) : -1;
}

std::optional<TemperingFrame> TemperingRecording::frameAt(long long at) const {
    const std::lock_guard lock(mutex_);
    if (sizeLocked() == 0) return std::nullopt;
    return frameLocked(indexAtLocked(at));
}

std::optional<TemperingFrame> TemperingRecording::frameAfter(long long at) const {
    const std::lock_guard lock(mutex_);
    const int n = sizeLocked();
    if (n == 0) return std::nullopt;
    int i = indexAtLocked(at);
    if (scanLocked(i) <= at) ++i;
    if (i >= n) return std::nullopt;
    return frameLocked(i);
}

int TemperingRecording::sizeLocked() const {
    const int n = decimated();
    if (!last_) return n;
    return n > 0 && records_.scan(n - 1) == last_->scan ? n : n + 1;
}

long long TemperingRecording::scanLocked(int i) const { return i < decimated() ? records_.scan(i) : last_->scan; }

int TemperingRecording::indexAtLocked(long long at) const {
    int lo = 0, hi = sizeLocked() - 1;
    if (hi < 0 || scanLocked(0) > at) return 0;
    while (lo < hi) {  // the last index with scan(i) <= at
        const int mid = (lo + hi + 1) / 2;
        if (scanLocked(mid) <= at) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

TemperingFrame TemperingRecording::frameLocked(int i) const {
    const bool isLast = last_ && i == sizeLocked() - 1;
    // The last scan of the run may coincide with a decimated record: the kept last one says "finished".
    TemperingFrame f = isLast ? unpack(last_->scan, last_->nums.data(), last_->ids.data())
                              : unpack(records_.scan(i), records_.record(i), windows_.record(i));
    f.finished = isLast && last_->finished;
    return f;
}

TemperingFrame TemperingRecording::unpack(long long scan, const double* nums, const std::uint16_t* ids) const {
    const auto R = static_cast<std::size_t>(rungs_);
    TemperingFrame f;
    f.round = static_cast<int>(nums[0]);
    f.rounds = rounds_;
    f.rungs = rungs_;
    f.scansDone = scan;
    f.scansTotal = scansTotal_;
    rbm::PtStats& st = f.stats;
    st.scheme = scheme_;
    st.scans = static_cast<rbm::Index>(nums[1]);
    st.chains = static_cast<rbm::Index>(nums[2]);
    const auto rows = static_cast<std::size_t>(nums[3]);
    st.lifted_round_trips = static_cast<std::int64_t>(nums[4]);
    std::size_t at = kHead;
    const auto get = [&](auto& v, std::size_t n) {
        using T = typename std::decay_t<decltype(v)>::value_type;
        v.resize(n);
        for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<T>(nums[at + i]);
        at += n;
    };
    get(st.betas, R);
    get(st.rejection, R - 1);
    get(st.proposed, R - 1);
    get(st.accepted, R - 1);
    get(st.round_trips, R);
    get(st.restarts, R);
    f.betas = st.betas;
    if (stateDim_ > 0) {
        f.states = rbm::RowMat(rungs_, stateDim_);
        for (int k = 0; k < rungs_; ++k)
            for (int d = 0; d < stateDim_; ++d) f.states(k, d) = nums[at++];
    }
    f.recent.assign(ids, ids + rows * R);
    f.recentFirstScan = scan - static_cast<long long>(rows);
    return f;
}

}  // namespace rbmscope
