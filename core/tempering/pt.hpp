#pragma once
// Parallel tempering (docs/methods/tempering.md; Kadan, Syed & Wøien 2018; round-trip theory of Syed et al. 2021).
//
// Ladder numbering follows docs/methods/tempering.md, not the paper: rung k = 0 … N, beta_0 = 0 (or beta_min) the
// reference, beta_N = 1 the target. A "replica" is a state that travels along the ladder; the
// index process records which replica sits at which rung after every scan.
//
// One scan = one local move per rung at its beta (parallel over slots and over independent PT
// chains) followed by one communication step whose decisions come from the chain's
// StreamPurpose::Swaps stream. A swap exchanges the rungs of two states, not the states (see
// PtExchange): the states stay in their rows and each row moves at its slot's current rung. Several independent PT
// chains (each a full ladder) run side by side and their statistics are pooled. Same seed, same index process, any
// thread count.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/tempering/logz.hpp"
#include "core/tempering/tempered_model.hpp"

namespace rbm {

// ---------------- schemes ----------------
//  Reversible: stochastic even-odd, each communication step proposes all even or all odd pairs
//              (pair k joins rungs k, k+1), the parity drawn at random.
//  Single:     one pair drawn uniformly per communication step (reversible).
//  Deo:        deterministic even-odd: even pairs at even scans, odd pairs at odd scans.
//  Lifted:     one lifted replica with a direction (paper §4.2.2); see LiftedState.
enum class PtScheme { Reversible, Single, Deo, Lifted };
const char* pt_scheme_name(PtScheme s);             // "reversible", "single", "deo", "lifted"
PtScheme parse_pt_scheme(const std::string& name);  // InputError listing the names

// ---------------- ladders ----------------
// Every ladder is strictly increasing, starts at beta_0 >= 0 and ends at beta_N = 1; it has
// `replicas` = N + 1 >= 2 rungs.
// Geometric (the paper's beta_t = gamma^t, renumbered): beta_k = gamma^(N-k), so beta_0 =
// gamma^N is beta_min > 0; the paper trains with gamma = 0.7, N = 6 (7 replicas).
std::vector<double> geometric_ladder(Index replicas, double gamma = 0.7);
// beta_k = beta_min + (1 - beta_min) k / N.
std::vector<double> linear_ladder(Index replicas, double beta_min = 0.0);
// InputError naming the problem (fewer than 2 rungs, not strictly increasing, last != 1, ...).
void validate_ladder(const std::vector<double>& betas);

// Monotone piecewise-cubic Hermite interpolant (Fritsch & Carlson 1980) through points with
// strictly increasing x and nondecreasing y; it is nondecreasing between the knots too.
class MonotoneCubic {
public:
    MonotoneCubic() = default;
    MonotoneCubic(std::vector<double> x, std::vector<double> y);
    double value(double x) const;       // clamped to the end values outside [x_0, x_N]
    double derivative(double x) const;  // 0 outside
    // Smallest x in [x_0, x_N] with value(x) >= y (bisection; y clamped to the range).
    double inverse(double y) const;
    const std::vector<double>& x() const { return x_; }
    const std::vector<double>& y() const { return y_; }

private:
    Index segment(double x) const;
    std::vector<double> x_, y_, d_;  // knots, values, slopes
};

// Cumulative barrier Lambda(beta) = sum of r_k over the pairs below beta, interpolated
// monotonically between rungs; its derivative is the local barrier lambda(beta), and
// Lambda(1) = sum_k r_k is the global barrier.
struct BarrierProfile {
    MonotoneCubic cumulative;
    double total() const { return cumulative.y().empty() ? 0.0 : cumulative.y().back(); }
    double local(double beta) const { return cumulative.derivative(beta); }
};
BarrierProfile barrier_profile(const std::vector<double>& betas, const std::vector<double>& rejection);
// New ladder with `replicas` rungs at equal increments of the cumulative barrier, same end
// points (the adaptive scheme of Syed et al. 2021). Returns the old ladder unchanged (when it
// has that many rungs) if the barrier is zero.
std::vector<double> equalize_ladder(const std::vector<double>& betas, const std::vector<double>& rejection,
                                    Index replicas);
// Ladder size recommended for a barrier: N = ceil(2 Lambda) pairs (docs/methods/tempering.md#adaptive-ladder), at least
// 1; the ladder then has N + 1 replicas.
Index recommended_n(double barrier);

// ---------------- round-trip theory (efficient local exploration) ----------------
// With E = sum_k r_k / (1 - r_k) over the N pairs, round trips of all replicas together per scan:
//   Deo:        1 / (2 + 2E)                  (Syed et al. 2021)
//   Reversible: 1 / (2N + 2E)                 (birth-death commute time; exact when every rung's
//                                              local move is an exact draw)
//   Single:     1 / (N^2 + N E)               (the reversible walk slowed by 2/N)
//   Lifted:     1 / (2N + 2N E), the lifted replica alone: it starts 1/(2N) of its steps at the
//               reference heading up and crosses the ladder with probability 1/(1 + E).
// Infinite when some r_k = 1 is excluded: returns 0.
double predicted_round_trip_rate(PtScheme scheme, const std::vector<double>& rejection);

// ---------------- lifted replica ----------------
// Direction state machine of lifted PT (paper §4.2.2): the lifted replica at `rung` proposes a
// swap with rung + direction. Accepted: it moves and keeps its direction. Rejected: the
// direction flips. At either end the direction turns back inwards (an outward proposal would
// be rejected for sure, so it is skipped).
struct LiftedState {
    Index rung = 0;
    int direction = +1;
    // The pair (lower rung) that the next proposal concerns.
    Index pair() const { return direction > 0 ? rung : rung - 1; }
    void advance(bool accepted, Index last_rung);
};

// ---------------- records ----------------
// Equally spaced records under a memory cap: every `stride`-th scan is kept; when the buffer is
// full, every other record is dropped and the stride doubles.
template <class T>
class DecimatedRecords {
public:
    DecimatedRecords() = default;
    DecimatedRecords(Index width, Index capacity) : width_(width), capacity_(std::max<Index>(2, capacity)) {}
    bool wants(Index scan) const { return width_ > 0 && scan % stride_ == 0; }
    void push(Index scan, const T* record);
    Index size() const { return static_cast<Index>(scans_.size()); }
    Index width() const { return width_; }
    Index stride() const { return stride_; }
    Index scan(Index i) const { return scans_[static_cast<std::size_t>(i)]; }
    const T* record(Index i) const { return data_.data() + i * width_; }

private:
    Index width_ = 0, capacity_ = 2, stride_ = 1;
    std::vector<Index> scans_;
    std::vector<T> data_;
};

// The replica index process of the first few chains: which replica sits at each rung after a
// scan, one byte per entry when there are at most 256 rungs, two bytes otherwise.
class IndexHistory {
public:
    IndexHistory() = default;
    IndexHistory(Index chains, Index rungs, std::size_t max_bytes);
    bool wants(Index scan) const { return records_.wants(scan); }
    // replica_at: chains x rungs (chain-major) replica ids.
    void push(Index scan, const std::vector<std::uint16_t>& replica_at);
    Index size() const { return records_.size(); }
    Index stride() const { return records_.stride(); }
    Index chains() const { return chains_; }
    Index rungs() const { return rungs_; }
    Index scan(Index i) const { return records_.scan(i); }
    int replica_at(Index i, Index chain, Index rung) const;
    // The rung of `replica` in every record.
    std::vector<int> trajectory(Index chain, Index replica) const;

private:
    Index chains_ = 0, rungs_ = 0;
    int bytes_ = 1;
    DecimatedRecords<std::uint8_t> records_;
};

// Mean length of the maximal runs of moves in one direction along a trajectory (scans without a
// move are skipped): about 2 for a diffusive walk, of order N for a lifted (ballistic) one.
double mean_monotone_run(const std::vector<int>& trajectory);

// ---------------- options, statistics, results ----------------
struct PtOptions {
    PtScheme scheme = PtScheme::Deo;
    std::vector<double> betas = geometric_ladder(7, 0.7);
    Index chains = 1;         // independent PT runs, statistics pooled
    Index scans = 1000;       // scans of the (final) run
    int adaptive_rounds = 0;  // tuning rounds before the final run (see run_pt)
    std::uint64_t seed = 1;
    PtReference reference;
    Index lifted_replica = 0;  // lifted scheme: the replica that starts at this rung is lifted
    // Target-rung samples (visible, and hidden when the state has them) of the first
    // sample_chains chains, every sample_every scans from scan burn_in on, decimated beyond
    // max_samples rows.
    Index burn_in = 0;
    Index sample_every = 1;
    Index sample_chains = 1 << 20;
    Index max_samples = 1 << 16;
    Index history_chains = 16;  // chains whose index process is recorded
    std::size_t max_history_bytes = 32u << 20;
    Index window = 256;  // recent scans of chain 0 kept for progress reports
    // log Z of the target by stepping stone and BAR (tempering/logz.hpp) from the potentials of
    // the final run's scans after the first log_z_burn_in of them (a fraction), in log_z_batches
    // batches per chain; when the trace would exceed max_log_z_bytes, every s-th scan is kept.
    // A ladder that starts above 0 gets rung beta = 0 with exact reference draws (one per chain
    // and recorded scan, StreamPurpose::Reference).
    bool log_z = false;
    double log_z_burn_in = 0.1;
    Index log_z_batches = 20;
    std::size_t max_log_z_bytes = 64u << 20;
};
// InputError naming the option.
void validate(const PtOptions& options);

struct PtStats {
    PtScheme scheme = PtScheme::Deo;
    std::vector<double> betas;
    Index scans = 0, chains = 0;
    // r_k: mean over scans and chains of 1 - alpha_k, alpha_k the swap acceptance probability of
    // pair k evaluated at every communication step for every pair (proposed or not).
    std::vector<double> rejection;
    std::vector<std::int64_t> proposed, accepted;     // swaps actually attempted, per pair
    std::vector<std::int64_t> round_trips, restarts;  // per replica, summed over chains
    std::int64_t lifted_round_trips = 0;              // lifted scheme: the lifted replica alone

    Index pairs() const { return static_cast<Index>(rejection.size()); }
    std::vector<double> acceptance() const;  // 1 - r_k
    double barrier() const;                  // Lambda = sum r_k
    std::int64_t total_round_trips() const;
    std::int64_t total_restarts() const;
    double round_trip_rate() const;  // all replicas together, per scan and chain
    double lifted_round_trip_rate() const;
    double predicted_round_trip_rate() const { return rbm::predicted_round_trip_rate(scheme, rejection); }
};

struct PtRound {  // one tuning round of the adaptive ladder
    std::vector<double> betas;
    std::vector<double> rejection;
    double barrier = 0;
    Index scans = 0;
};

struct PtResult {
    std::string description, kernel;
    std::vector<double> betas;    // ladder of the final run
    PtStats stats;                // final run
    std::vector<PtRound> rounds;  // adaptive tuning rounds, in order
    IndexHistory history;         // scan numbers count from the first scan of the first round
    RowMat target_samples, target_hidden;
    std::vector<Index> sample_scans;  // one per sample row
    std::vector<Index> sample_chains;
    // Current states, rung-major: row k * chains + c is chain c at rung k.
    RowMat states, hidden;
    std::vector<std::uint16_t> replica_at;  // chains x rungs: replica id at each rung
    std::vector<LiftedState> lifted;        // per chain (lifted scheme)
    Index scans_done = 0;                   // all rounds together
    std::optional<PtLogZ> log_z;            // with options.log_z, when there were enough scans
    std::string log_z_error;                // why log_z is empty
    Index log_z_burn_in = 0, log_z_stride = 1;
    bool cancelled = false;
    double seconds = 0;
};

// ---------------- streaming ----------------
struct PtSnapshot {
    Index scans_done = 0, scans_total = 0;  // all rounds together
    int round = 0, rounds = 0;              // rounds = adaptive rounds + 1; round counts from 1
    PtStats stats;                          // of the current round so far
    // Replica id at each rung of chain 0 for the last recent_scans scans (row-major, oldest first).
    std::vector<std::uint16_t> recent;
    Index recent_scans = 0, recent_first_scan = 0;
    RowMat states;  // chain 0: visible state at each rung (rows = rungs)
};

// One PT run shared by several processes (the Pigeons.jl way), without the core
// knowing how they talk (the CLI implements it over MPI). States never move: every state lives
// in a fixed slot (row slot s C + c for chain c of C, slot s = 0 … K-1), and a swap exchanges
// the rungs of two slots (replica_at, the rung -> slot map; replica i is slot i). Part q of P
// owns slots [q K / P, (q+1) K / P) of every chain and runs exactly the local-move tasks (slot,
// block of chains) one process runs for them, each row at the beta of the rung its slot holds,
// on the same rows and streams (keyed by slot), so every state and potential is bitwise that of
// one process. After the local moves the parts all-gather the potentials (8 bytes per replica,
// plus the stop flag); every part then takes the same swap decisions (the swap streams, keyed by
// seed and chain, are on every part) and keeps the same permutation, statistics and index
// process. Nothing model-sized is sent per scan; the states meet only when a caller gathers them.
class PtExchange {
public:
    virtual ~PtExchange() = default;
    virtual Index parts() const = 0;
    virtual Index part() const = 0;
    // Every part's `mine` concatenated in part order, on every part; `stop` in: this part wants
    // to stop (cancel), out: some part does -- so all parts stop after the same scan.
    virtual std::vector<double> all_gather(const std::vector<double>& mine, bool& stop) = 0;
};

struct PtControl {
    std::atomic<bool>* cancel = nullptr;  // checked after every scan
    // Shares the slots with other processes (see PtExchange). Target samples (options.sample_chains
    // > 0) are refused with it; progress snapshots then show this part's slots current only.
    PtExchange* exchange = nullptr;
    // With an exchange: all-gather every part's states once at the end, so PtResult::states and
    // hidden are whole (8 C K (n + m) bytes in all); false leaves other parts' rows stale.
    bool gather_states = true;
    std::function<void(const PtSnapshot&)> on_progress;  // from the worker thread
    double progress_interval_seconds = 0.03;
};

// Runs PT on any model kind. With adaptive_rounds = R > 0, R tuning rounds of doubling length
// (ceil(scans / 2^R), …, ceil(scans / 2)) each end by re-placing the betas at equal increments
// of the cumulative barrier (same number of rungs), then the final run of `scans` scans on the
// tuned ladder gives every statistic. States carry over between rounds. A cancelled run returns
// what it has (cancelled = true). InputError for bad options or an unfit reference.
PtResult run_pt(const Model& model, const PtOptions& options, const PtControl& control = {});

// ---------------- the engine, scan by scan ----------------
// For callers that interleave PT with other work (training with PT, the GUI driver).
class PtSampler {
public:
    PtSampler(TemperedModel& model, const PtOptions& options);
    // Shares the slots with the other parts of `exchange` from the next scan on (null: alone).
    // InputError when there are more parts than rungs. Rows of slots other parts own are stale.
    void set_exchange(PtExchange* exchange, const std::atomic<bool>* cancel);
    // With an exchange: some part asked to stop during the last scan (every part agrees).
    bool stop_agreed() const { return stop_agreed_; }
    Index first_slot() const { return slot_begin_; }
    Index end_slot() const { return slot_end_; }
    void set_ladder(const std::vector<double>& betas);  // resets the statistics
    void scan();                                        // one local move per rung + one communication step
    void reset_stats();
    PtStats stats() const;
    Index scans_done() const { return scan_index_; }
    Index chains() const { return chains_; }
    Index rungs() const { return rungs_; }
    const std::vector<double>& betas() const { return model_.ladder(); }
    // Rung-major views (see PtResult), built from the slots on first use after a change.
    const RowMat& states() const;
    const RowMat& hidden() const;
    // Row of the slot that holds `rung` of `chain` in slot_states() / slot_hidden().
    Index row_at(Index rung, Index chain) const {
        return static_cast<Index>(replica_at_[static_cast<std::size_t>(chain * rungs_ + rung)]) * chains_ + chain;
    }
    const RowMat& slot_states() const { return V_; }  // slot-major: row s C + c
    const RowMat& slot_hidden() const { return H_; }
    // Visible states at `rung` of every chain (C x n). With an exchange it is collective: every
    // part sends the rows it owns (8 C n bytes in all), and every part gets them all.
    RowMat gather_rung(Index rung);
    // With an exchange: every part's slots to every part (collective; 8 C K (n + m) bytes in
    // all), so the states are whole everywhere. Alone: nothing.
    void gather_states();
    const std::vector<std::uint16_t>& replica_at() const { return replica_at_; }  // rung -> slot
    // V of the state at `rung` of `chain` after the last scan (every part has all of them).
    double potential_at(Index rung, Index chain) const { return pot_(row_at(rung, chain)); }
    const std::vector<LiftedState>& lifted() const { return lifted_; }
    // Number of the scan just completed (scans count from 0).
    Index last_scan() const { return scan_index_ - 1; }

    // Checkpoints (training resumes exactly): everything later scans depend on except the
    // model, the statistics and the random streams. Callers that checkpoint re-key the
    // streams with reseed() before every scan, so no stream position needs saving.
    // V and H are rung-major (row k C + c: chain c at rung k), the meaning they had when states
    // moved between rungs; replica_at[c K + k] names the replica (= slot) there, so set_state
    // puts each row back into its slot and old checkpoints load unchanged.
    struct State {
        RowMat V, H;
        std::vector<std::uint16_t> replica_at;
        std::vector<LiftedState> lifted;
        std::vector<std::uint8_t> end_state;
        Index scan_index = 0;
    };
    State state() const;
    void set_state(const State& s);  // InputError when the shapes do not match this sampler
    // Replaces the chain and swap streams with those the constructor makes from `seed`.
    void reseed(std::uint64_t seed);

private:
    void local_moves();
    void share_potentials();
    void communicate(Index c);
    void track_ends(Index c);
    Index part_slot_begin(Index part) const;
    void changed() { rung_major_valid_ = false; }

    TemperedModel& model_;
    PtScheme scheme_;
    Index chains_ = 0, rungs_ = 0, lifted_replica_ = 0;
    Index scan_index_ = 0;
    RowMat V_, H_;                           // slot-major: row s C + c is slot s of chain c
    Vec pot_;                                // per slot row
    ChainRngs chain_rngs_, swap_rngs_;       // chain streams per slot row
    std::vector<std::uint16_t> replica_at_;  // chains x rungs: slot (= replica) at each rung
    std::vector<Index> rung_of_;             // chains x slots: rung each slot holds (inverse)
    std::vector<LiftedState> lifted_;
    // Per chain accumulators (reduced over chains in a fixed order).
    std::vector<double> rej_sum_;                    // chains x pairs
    std::vector<std::int64_t> proposed_, accepted_;  // chains x pairs
    std::vector<std::int64_t> trips_, restarts_;     // chains x replicas
    std::vector<std::int64_t> lifted_trips_;         // chains
    std::vector<std::uint8_t> end_state_;            // chains x replicas, see track_ends
    Index stat_scans_ = 0;
    PtExchange* exchange_ = nullptr;
    const std::atomic<bool>* cancel_ = nullptr;
    Index slot_begin_ = 0, slot_end_ = 0;
    bool stop_agreed_ = false;
    mutable RowMat rung_major_V_, rung_major_H_;
    mutable bool rung_major_valid_ = false;
};

// ---------------- log Z ----------------
// The potentials of the final run's scans for log Z (PtOptions::log_z, tempering/logz.hpp): from
// scan log_z_burn_in x scans on, every stride-th (the memory cap), plus rung beta = 0 from exact
// reference draws (StreamPurpose::Reference) when the ladder starts above 0. run_pt uses it; so can
// a caller that drives a PtSampler itself. Records nothing unless options.log_z.
class PtLogZRecorder {
public:
    PtLogZRecorder(const TemperedModel& model, const PtOptions& options);
    // After scan i (counted from 0) of the final run, on the sampler's current ladder.
    void record(Index i, const PtSampler& sampler);
    // Both estimates from the scans so far; nullopt, with the reason in *error, when there are too
    // few or the family does not know its reference's log Z.
    std::optional<PtLogZ> estimate(std::string* error = nullptr) const;
    Index burn_in() const { return burn_in_; }
    Index stride() const { return stride_; }
    Index scans_recorded() const { return trace_.scans(); }

private:
    const TemperedModel& tm_;
    bool on_;
    Index chains_, rungs_, batches_, burn_in_ = 0, stride_ = 1;
    bool virtual_ref_;
    PotentialTrace trace_;
    ChainRngs rngs_;
    RowMat Vr_, Hr_;
    Vec pot_;
    std::vector<double> row_;
};

// ---------------- template implementation ----------------
template <class T>
void DecimatedRecords<T>::push(Index at_scan, const T* values) {
    if (!wants(at_scan)) return;
    if (size() >= capacity_) {
        Index kept = 0;
        for (Index i = 0; i < size(); ++i) {
            if (scan(i) % (2 * stride_) != 0) continue;
            scans_[static_cast<std::size_t>(kept)] = scans_[static_cast<std::size_t>(i)];
            std::copy(record(i), record(i) + width_, data_.begin() + kept * width_);
            ++kept;
        }
        scans_.resize(static_cast<std::size_t>(kept));
        data_.resize(static_cast<std::size_t>(kept * width_));
        stride_ *= 2;
        if (!wants(at_scan)) return;
    }
    scans_.push_back(at_scan);
    data_.insert(data_.end(), values, values + width_);
}

}  // namespace rbm
