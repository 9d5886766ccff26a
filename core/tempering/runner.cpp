// The PT engine: scans (local moves in parallel, then one communication step per chain), the
// round-trip bookkeeping, and run_pt with its adaptive rounds, records and progress reports.
#include <chrono>
#include <cmath>

#include "core/numerics/memory_budget.hpp"
#include "core/numerics/parallel.hpp"
#include "core/tempering/pt.hpp"

namespace rbm {

namespace {

// Where a replica last was, for counting restarts (reference -> target) and round trips
// (reference -> target -> reference).
enum EndState : std::uint8_t { kNowhere = 0, kFromReference = 1, kTargetAfterReference = 2, kTargetOnly = 3 };

}  // namespace

PtSampler::PtSampler(TemperedModel& model, const PtOptions& o)
    : model_(model), scheme_(o.scheme), chains_(o.chains), rungs_(static_cast<Index>(o.betas.size())),
      lifted_replica_(o.lifted_replica) {
    validate(o);
    model_.set_ladder(o.betas);
    const Index rows = chains_ * rungs_, pairs = rungs_ - 1;
    V_ = RowMat(rows, model_.visible_dim());
    H_ = RowMat(rows, model_.hidden_dim());
    pot_ = Vec::Zero(rows);
    chain_rngs_ = ChainRngs(o.seed, rows, StreamPurpose::Chains);
    swap_rngs_ = ChainRngs(o.seed, chains_, StreamPurpose::Swaps);
    for_each_block(rows, [&](Index begin, Index end) { model_.initialize(V_, H_, begin, end, chain_rngs_); });
    replica_at_.resize(static_cast<std::size_t>(rows));
    rung_of_.resize(static_cast<std::size_t>(rows));
    end_state_.assign(static_cast<std::size_t>(rows), kNowhere);
    for (Index c = 0; c < chains_; ++c) {
        for (Index k = 0; k < rungs_; ++k) {
            replica_at_[static_cast<std::size_t>(c * rungs_ + k)] = static_cast<std::uint16_t>(k);
            rung_of_[static_cast<std::size_t>(c * rungs_ + k)] = k;
        }
        end_state_[static_cast<std::size_t>(c * rungs_)] = kFromReference;
        end_state_[static_cast<std::size_t>(c * rungs_ + pairs)] = kTargetOnly;
    }
    LiftedState start;
    start.rung = lifted_replica_;
    start.direction = lifted_replica_ == pairs ? -1 : +1;
    lifted_.assign(static_cast<std::size_t>(chains_), start);
    rej_sum_.assign(static_cast<std::size_t>(chains_ * pairs), 0.0);
    proposed_.assign(static_cast<std::size_t>(chains_ * pairs), 0);
    accepted_.assign(static_cast<std::size_t>(chains_ * pairs), 0);
    trips_.assign(static_cast<std::size_t>(rows), 0);
    restarts_.assign(static_cast<std::size_t>(rows), 0);
    lifted_trips_.assign(static_cast<std::size_t>(chains_), 0);
    slot_end_ = rungs_;
}

Index PtSampler::part_slot_begin(Index q) const {
    return exchange_ ? q * rungs_ / exchange_->parts() : (q == 0 ? 0 : rungs_);
}

void PtSampler::set_exchange(PtExchange* exchange, const std::atomic<bool>* cancel) {
    exchange_ = exchange && exchange->parts() > 1 ? exchange : nullptr;
    cancel_ = cancel;
    stop_agreed_ = false;
    slot_begin_ = 0;
    slot_end_ = rungs_;
    if (!exchange_) return;
    const Index parts = exchange_->parts(), q = exchange_->part();
    if (parts > rungs_)
        throw InputError(std::to_string(parts) + " processes share the " + std::to_string(rungs_) +
                         " rungs of the ladder, each needs at least one; use at most " + std::to_string(rungs_) +
                         " processes or more --replicas");
    slot_begin_ = part_slot_begin(q);
    slot_end_ = part_slot_begin(q + 1);
}

void PtSampler::set_ladder(const std::vector<double>& betas) {
    validate_ladder(betas);
    if (static_cast<Index>(betas.size()) != rungs_)
        throw InputError("a new ladder must keep the number of replicas (" + std::to_string(rungs_) + "), got " +
                         std::to_string(betas.size()));
    model_.set_ladder(betas);
    reset_stats();
}

void PtSampler::reset_stats() {
    std::fill(rej_sum_.begin(), rej_sum_.end(), 0.0);
    std::fill(proposed_.begin(), proposed_.end(), 0);
    std::fill(accepted_.begin(), accepted_.end(), 0);
    std::fill(trips_.begin(), trips_.end(), 0);
    std::fill(restarts_.begin(), restarts_.end(), 0);
    std::fill(lifted_trips_.begin(), lifted_trips_.end(), 0);
    stat_scans_ = 0;
}

void PtSampler::scan() {
    local_moves();
    if (exchange_) share_potentials();
    for_each_block(chains_, [&](Index begin, Index end) {
        for (Index c = begin; c < end; ++c) {
            communicate(c);
            track_ends(c);
        }
    });
    changed();
    ++scan_index_;
    ++stat_scans_;
}

// One task per (slot, block of chains): rows [s C + b B, s C + min(C, (b+1) B)), each row at the
// rung its slot holds in its chain. The blocks are fixed, whoever owns them.
void PtSampler::local_moves() {
    if (model_.rows_independent()) {
        // A row's bits do not depend on its block: this part's rows, slot-major, in blocks of
        // kChainBlock across slots (8 chains x 16 rungs: 2 blocks of 64 rows, not 16 of 8).
        const Index first = slot_begin_ * chains_, count = (slot_end_ - slot_begin_) * chains_;
        auto run = [&](Index b, Index e) {
            Index rungs[kChainBlock];
            for (Index r = b; r < e; ++r) {
                const Index s = (first + r) / chains_, c = (first + r) % chains_;
                rungs[r - b] = rung_of_[static_cast<std::size_t>(c * rungs_ + s)];
            }
            model_.local_move(rungs, V_, H_, first + b, first + e, chain_rngs_, pot_);
        };
        if (V_.rows() * (V_.cols() + H_.cols() + 1) < 4096) {
            for (Index b = 0; b < count; b += kChainBlock) run(b, std::min(count, b + kChainBlock));
            return;
        }
        for_each_block(count, run, kChainBlock);
        return;
    }
    const Index blocks = (chains_ + kChainBlock - 1) / kChainBlock, tasks = (slot_end_ - slot_begin_) * blocks;
    auto run = [&](Index t) {
        const Index s = slot_begin_ + t / blocks, b = t % blocks;
        const Index c0 = b * kChainBlock, c1 = std::min(chains_, (b + 1) * kChainBlock);
        Index rungs[kChainBlock];
        for (Index c = c0; c < c1; ++c) rungs[c - c0] = rung_of_[static_cast<std::size_t>(c * rungs_ + s)];
        model_.local_move(rungs, V_, H_, s * chains_ + c0, s * chains_ + c1, chain_rngs_, pot_);
    };
    // Tiny scans cost less than a parallel dispatch; the result is the same either way.
    if (V_.rows() * (V_.cols() + H_.cols() + 1) < 4096) {  // the whole run's size: same choice on every part
        for (Index t = 0; t < tasks; ++t) run(t);
        return;
    }
    for_each_block(
        tasks,
        [&](Index t0, Index t1) {
            for (Index t = t0; t < t1; ++t) run(t);
        },
        1);
}

// Slot-major rows: this part's potentials are the contiguous rows [begin C, end C), and the parts'
// segments in part order are all the rows in order.
void PtSampler::share_potentials() {
    const Index first = slot_begin_ * chains_, count = (slot_end_ - slot_begin_) * chains_;
    const std::vector<double> mine(pot_.data() + first, pot_.data() + first + count);
    bool stop = cancel_ && cancel_->load(std::memory_order_relaxed);
    const std::vector<double> all = exchange_->all_gather(mine, stop);
    if (static_cast<Index>(all.size()) != pot_.size())
        throw std::runtime_error("PT exchange: " + std::to_string(all.size()) + " potentials gathered, expected " +
                                 std::to_string(pot_.size()));
    pot_ = Eigen::Map<const Vec>(all.data(), pot_.size());
    stop_agreed_ = stop;
}

void PtSampler::gather_states() {
    if (!exchange_) return;
    for (RowMat* M : {&V_, &H_}) {
        const Index w = M->cols();
        if (w == 0) continue;
        std::vector<double> mine(M->data() + slot_begin_ * chains_ * w, M->data() + slot_end_ * chains_ * w);
        bool stop = false;  // a pending stop travels with the next scan's potentials
        const std::vector<double> all = exchange_->all_gather(mine, stop);
        if (static_cast<Index>(all.size()) != M->size())
            throw std::logic_error("the parts' slots do not add up to the ladder");
        std::copy(all.begin(), all.end(), M->data());
    }
    changed();
}

RowMat PtSampler::gather_rung(Index rung) {
    const Index n = V_.cols();
    RowMat out(chains_, n);
    if (!exchange_) {
        for (Index c = 0; c < chains_; ++c) out.row(c) = V_.row(row_at(rung, c));
        return out;
    }
    // Part q sends, in chain order, the chains whose slot at `rung` it owns; every part knows the
    // permutation, so it knows which rows arrive from whom.
    auto slot = [&](Index c) { return static_cast<Index>(replica_at_[static_cast<std::size_t>(c * rungs_ + rung)]); };
    std::vector<double> mine;
    for (Index c = 0; c < chains_; ++c)
        if (slot(c) >= slot_begin_ && slot(c) < slot_end_)
            mine.insert(mine.end(), V_.row(row_at(rung, c)).data(), V_.row(row_at(rung, c)).data() + n);
    bool stop = false;  // a stop travels with the caller's own exchange
    const std::vector<double> all = exchange_->all_gather(mine, stop);
    if (static_cast<Index>(all.size()) != out.size()) throw std::logic_error("the rung's chains did not arrive whole");
    std::size_t at = 0;
    for (Index q = 0; q < exchange_->parts(); ++q)
        for (Index c = 0; c < chains_; ++c)
            if (slot(c) >= part_slot_begin(q) && slot(c) < part_slot_begin(q + 1)) {
                for (Index i = 0; i < n; ++i) out(c, i) = all[at++];
            }
    return out;
}

const RowMat& PtSampler::states() const {
    if (!rung_major_valid_) {
        rung_major_V_.resize(V_.rows(), V_.cols());
        rung_major_H_.resize(H_.rows(), H_.cols());
        for (Index k = 0; k < rungs_; ++k)
            for (Index c = 0; c < chains_; ++c) {
                rung_major_V_.row(k * chains_ + c) = V_.row(row_at(k, c));
                if (H_.cols() > 0) rung_major_H_.row(k * chains_ + c) = H_.row(row_at(k, c));
            }
        rung_major_valid_ = true;
    }
    return rung_major_V_;
}

const RowMat& PtSampler::hidden() const {
    states();
    return rung_major_H_;
}

void PtSampler::communicate(Index c) {
    const Index pairs = rungs_ - 1;
    const std::vector<double>& beta = model_.ladder();
    Rng& rng = swap_rngs_[c];
    std::uint16_t* at = replica_at_.data() + c * rungs_;  // rung -> slot
    Index* rung_of = rung_of_.data() + c * rungs_;        // slot -> rung
    auto pot = [&](Index k) { return pot_(static_cast<Index>(at[k]) * chains_ + c); };
    // alpha_k = min(1, exp((beta_{k+1} - beta_k)(V(x_k) - V(x_{k+1})))).
    auto alpha = [&](Index k) {
        const double a =
            (beta[static_cast<std::size_t>(k + 1)] - beta[static_cast<std::size_t>(k)]) * (pot(k) - pot(k + 1));
        return a >= 0 ? 1.0 : std::exp(a);
    };
    // Rao-Blackwellised rejection: every pair, every step, from the states before any swap.
    double* rej = rej_sum_.data() + c * pairs;
    for (Index k = 0; k < pairs; ++k) rej[k] += 1.0 - alpha(k);
    // Pairs proposed in one step are disjoint, so alpha below equals the pre-swap value.
    // An accepted swap exchanges the rungs of the two slots; the states stay where they are.
    auto attempt = [&](Index k) {
        const std::size_t s = static_cast<std::size_t>(c * pairs + k);
        ++proposed_[s];
        if (!(rng.uniform() < alpha(k))) return false;
        ++accepted_[s];
        std::swap(at[k], at[k + 1]);
        rung_of[at[k]] = k;
        rung_of[at[k + 1]] = k + 1;
        return true;
    };
    switch (scheme_) {
        case PtScheme::Deo:
        case PtScheme::Reversible: {
            const Index parity = scheme_ == PtScheme::Deo ? scan_index_ % 2 : (rng.uniform() < 0.5 ? 0 : 1);
            for (Index k = parity; k < pairs; k += 2) attempt(k);
            break;
        }
        case PtScheme::Single: attempt(static_cast<Index>(rng.below(static_cast<std::uint64_t>(pairs)))); break;
        case PtScheme::Lifted: {
            LiftedState& l = lifted_[static_cast<std::size_t>(c)];
            l.advance(attempt(l.pair()), pairs);
            break;
        }
    }
}

void PtSampler::track_ends(Index c) {
    const Index last = rungs_ - 1;
    const std::size_t base = static_cast<std::size_t>(c * rungs_);
    const std::uint16_t at_ref = replica_at_[base], at_target = replica_at_[base + static_cast<std::size_t>(last)];
    std::uint8_t& s0 = end_state_[base + at_ref];
    if (s0 == kTargetAfterReference) {
        ++trips_[base + at_ref];
        if (scheme_ == PtScheme::Lifted && at_ref == lifted_replica_) ++lifted_trips_[static_cast<std::size_t>(c)];
    }
    s0 = kFromReference;
    std::uint8_t& s1 = end_state_[base + at_target];
    if (s1 == kFromReference) {
        ++restarts_[base + at_target];
        s1 = kTargetAfterReference;
    } else if (s1 == kNowhere) {
        s1 = kTargetOnly;
    }
}

PtSampler::State PtSampler::state() const {
    return State{states(), hidden(), replica_at_, lifted_, end_state_, scan_index_};
}

void PtSampler::set_state(const State& s) {
    if (s.V.rows() != V_.rows() || s.V.cols() != V_.cols() || s.H.rows() != H_.rows() || s.H.cols() != H_.cols() ||
        s.replica_at.size() != replica_at_.size() || s.lifted.size() != lifted_.size() ||
        s.end_state.size() != end_state_.size() || s.scan_index < 0)
        throw InputError("tempering state does not fit this sampler (" + std::to_string(chains_) + " chains x " +
                         std::to_string(rungs_) + " rungs of " + std::to_string(V_.cols()) + " visible units)");
    // The swap and round-trip bookkeeping index arrays by these values: refuse what would
    // index outside them (an edited checkpoint) instead of corrupting memory.
    if (!s.V.allFinite() || !s.H.allFinite()) throw InputError("tempering state: V or H holds a non-finite value");
    for (Index c = 0; c < chains_; ++c) {
        std::vector<bool> seen(static_cast<std::size_t>(rungs_), false);
        for (Index k = 0; k < rungs_; ++k) {
            const std::uint16_t r = s.replica_at[static_cast<std::size_t>(c * rungs_ + k)];
            if (r >= rungs_ || seen[r])
                throw InputError("tempering state: replica_at of chain " + std::to_string(c) +
                                 " is not a permutation of the replicas 0.." + std::to_string(rungs_ - 1));
            seen[r] = true;
        }
    }
    for (std::size_t c = 0; c < s.lifted.size(); ++c) {
        const LiftedState& l = s.lifted[c];
        if (l.rung < 0 || l.rung > rungs_ - 1 || (l.direction != 1 && l.direction != -1))
            throw InputError("tempering state: lifted[" + std::to_string(c) + "] must have a rung from 0 to " +
                             std::to_string(rungs_ - 1) + " and a direction of 1 or -1");
        // LiftedState::advance turns a replica round at either end, so the next proposal's pair
        // (rung, rung + 1 going up; rung - 1, rung going down) always exists; communicate()
        // indexes the pair arrays by it.
        if ((l.direction == 1 && l.rung == rungs_ - 1) || (l.direction == -1 && l.rung == 0))
            throw InputError("tempering state: lifted[" + std::to_string(c) + "] moves " +
                             (l.direction == 1 ? "up from the top rung " : "down from rung ") + std::to_string(l.rung) +
                             ", where there is no pair to propose (a lifted replica turns round at either end)");
    }
    for (std::uint8_t e : s.end_state)
        if (e > kTargetOnly)
            throw InputError("tempering state: end_state holds " + std::to_string(e) + ", expected 0 to 3");
    replica_at_ = s.replica_at;
    for (Index c = 0; c < chains_; ++c)
        for (Index k = 0; k < rungs_; ++k) {
            const Index r = row_at(k, c);
            rung_of_[static_cast<std::size_t>(c * rungs_ + replica_at_[static_cast<std::size_t>(c * rungs_ + k)])] = k;
            V_.row(r) = s.V.row(k * chains_ + c);
            if (H_.cols() > 0) H_.row(r) = s.H.row(k * chains_ + c);
        }
    lifted_ = s.lifted;
    end_state_ = s.end_state;
    scan_index_ = s.scan_index;
    changed();
}

void PtSampler::reseed(std::uint64_t seed) {
    chain_rngs_ = ChainRngs(seed, V_.rows(), StreamPurpose::Chains);
    swap_rngs_ = ChainRngs(seed, chains_, StreamPurpose::Swaps);
}

PtStats PtSampler::stats() const {
    const Index pairs = rungs_ - 1;
    PtStats s;
    s.scheme = scheme_;
    s.betas = model_.ladder();
    s.scans = stat_scans_;
    s.chains = chains_;
    s.rejection.assign(static_cast<std::size_t>(pairs), 0.0);
    s.proposed.assign(static_cast<std::size_t>(pairs), 0);
    s.accepted.assign(static_cast<std::size_t>(pairs), 0);
    s.round_trips.assign(static_cast<std::size_t>(rungs_), 0);
    s.restarts.assign(static_cast<std::size_t>(rungs_), 0);
    for (Index c = 0; c < chains_; ++c) {  // fixed order: the sums do not depend on threads
        for (Index k = 0; k < pairs; ++k) {
            const std::size_t i = static_cast<std::size_t>(c * pairs + k);
            s.rejection[static_cast<std::size_t>(k)] += rej_sum_[i];
            s.proposed[static_cast<std::size_t>(k)] += proposed_[i];
            s.accepted[static_cast<std::size_t>(k)] += accepted_[i];
        }
        for (Index r = 0; r < rungs_; ++r) {
            s.round_trips[static_cast<std::size_t>(r)] += trips_[static_cast<std::size_t>(c * rungs_ + r)];
            s.restarts[static_cast<std::size_t>(r)] += restarts_[static_cast<std::size_t>(c * rungs_ + r)];
        }
        s.lifted_round_trips += lifted_trips_[static_cast<std::size_t>(c)];
    }
    if (stat_scans_ > 0)
        for (double& r : s.rejection) r /= static_cast<double>(stat_scans_) * static_cast<double>(chains_);
    return s;
}

// ---------------- run_pt ----------------
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The last `window` scans of chain 0's index process.
class RecentWindow {
public:
    RecentWindow(Index window, Index rungs)
        : window_(window), rungs_(rungs), data_(static_cast<std::size_t>(window * rungs)) {}
    void push(Index scan, const std::vector<std::uint16_t>& replica_at) {
        if (window_ == 0) return;
        std::copy(replica_at.begin(), replica_at.begin() + rungs_, data_.begin() + (next_ % window_) * rungs_);
        ++next_;
        last_scan_ = scan;
    }
    void fill(PtSnapshot& s) const {
        const Index count = std::min(next_, window_);
        s.recent.resize(static_cast<std::size_t>(count * rungs_));
        for (Index i = 0; i < count; ++i) {
            const Index slot = (next_ - count + i) % window_;
            std::copy(data_.begin() + slot * rungs_, data_.begin() + (slot + 1) * rungs_,
                      s.recent.begin() + i * rungs_);
        }
        s.recent_scans = count;
        s.recent_first_scan = count > 0 ? last_scan_ - count + 1 : 0;
    }

private:
    Index window_, rungs_, next_ = 0, last_scan_ = 0;
    std::vector<std::uint16_t> data_;
};

}  // namespace

// ---------------- log Z recorder ----------------
PtLogZRecorder::PtLogZRecorder(const TemperedModel& tm, const PtOptions& o)
    : tm_(tm), on_(o.log_z), chains_(o.chains), rungs_(static_cast<Index>(o.betas.size())), batches_(o.log_z_batches),
      virtual_ref_(o.betas.front() > 0) {
    if (!on_) return;
    burn_in_ = static_cast<Index>(std::floor(o.log_z_burn_in * static_cast<double>(o.scans)));
    const Index width = rungs_ + (virtual_ref_ ? 1 : 0);
    const double bytes = 8.0 * static_cast<double>(o.scans - burn_in_) * static_cast<double>(chains_ * width);
    stride_ = std::max<Index>(1, static_cast<Index>(std::ceil(bytes / static_cast<double>(o.max_log_z_bytes))));
    trace_.chains = chains_;
    if (virtual_ref_) {
        rngs_ = ChainRngs(o.seed, chains_, StreamPurpose::Reference);
        Vr_ = RowMat(chains_, tm.visible_dim());
        Hr_ = RowMat(chains_, tm.hidden_dim());
        pot_ = Vec::Zero(chains_);
    }
    row_.resize(static_cast<std::size_t>(chains_ * width));
}

void PtLogZRecorder::record(Index i, const PtSampler& sampler) {
    if (!on_ || i < burn_in_ || (i - burn_in_) % stride_ != 0) return;
    if (trace_.values.empty()) {  // the final run's ladder (tuned when adaptive)
        trace_.betas.assign(virtual_ref_ ? 1 : 0, 0.0);
        trace_.betas.insert(trace_.betas.end(), sampler.betas().begin(), sampler.betas().end());
    }
    if (virtual_ref_)
        for_each_block(chains_,
                       [&](Index begin, Index end) { tm_.sample_reference(Vr_, Hr_, begin, end, rngs_, pot_); });
    const Index width = trace_.rungs(), off = virtual_ref_ ? 1 : 0;
    for (Index c = 0; c < chains_; ++c) {
        if (virtual_ref_) row_[static_cast<std::size_t>(c * width)] = pot_(c);
        for (Index k = 0; k < rungs_; ++k)
            row_[static_cast<std::size_t>(c * width + off + k)] = sampler.potential_at(k, c);
    }
    trace_.push_scan(row_.data());
}

std::optional<PtLogZ> PtLogZRecorder::estimate(std::string* error) const {
    const double ref = tm_.reference_log_z();
    try {
        if (!std::isfinite(ref)) throw InputError("the reference's log Z is not known for this family");
        return estimate_pt_log_z(trace_, ref, batches_);
    } catch (const InputError& e) {
        if (error) *error = e.what();
        return std::nullopt;
    }
}

PtResult run_pt(const Model& model, const PtOptions& o, const PtControl& control) {
    const auto start = Clock::now();
    validate(o);
    // Every rung of every chain holds its visible and hidden units and a random stream: checked
    // against the memory budget before the ladders are allocated.
    const double rung_states = static_cast<double>(o.chains) * static_cast<double>(o.betas.size());
    check_memory_budget(
        rung_states * (8.0 * static_cast<double>(model.n_visible() + model.n_hidden() + 2) + sizeof(Rng)),
        "parallel tempering with " + std::to_string(o.chains) + " chains x " + std::to_string(o.betas.size()) +
            " rungs of " + std::to_string(model.n_visible()) + " + " + std::to_string(model.n_hidden()) + " units");
    std::unique_ptr<TemperedModel> tm = make_tempered_model(model, o.reference);
    PtSampler sampler(*tm, o);
    sampler.set_exchange(control.exchange, control.cancel);
    const bool shared = control.exchange && control.exchange->parts() > 1;
    if (shared && o.sample_chains > 0)
        throw InputError(
            "PT shared between processes records no target samples (they would cross processes every "
            "scan): set sample_chains to 0");
    const Index rungs = sampler.rungs(), chains = sampler.chains(), last = rungs - 1;
    const Index n = tm->visible_dim(), m = tm->hidden_dim();

    std::vector<Index> lengths;
    for (int r = o.adaptive_rounds; r >= 1; --r) {
        const Index div = Index(1) << r;
        lengths.push_back(std::max<Index>(1, (o.scans + div - 1) / div));
    }
    lengths.push_back(o.scans);
    Index total = 0;
    for (Index l : lengths) total += l;

    PtResult res;
    res.description = tm->description();
    res.kernel = tm->kernel_name();
    res.history = IndexHistory(std::min(o.history_chains, chains), rungs, o.max_history_bytes);
    const Index sample_chains = std::min(o.sample_chains, chains);
    DecimatedRecords<double> samples(sample_chains * (n + m), sample_chains > 0 ? o.max_samples / sample_chains : 0);
    std::vector<double> record(static_cast<std::size_t>(sample_chains * (n + m)));
    RecentWindow recent(o.window, rungs);

    auto snapshot = [&](int round) {
        PtSnapshot s;
        s.scans_done = sampler.scans_done();
        s.scans_total = total;
        s.round = round;
        s.rounds = static_cast<int>(lengths.size());
        s.stats = sampler.stats();
        recent.fill(s);
        s.states = RowMat(rungs, n);
        for (Index k = 0; k < rungs; ++k) s.states.row(k) = sampler.slot_states().row(sampler.row_at(k, 0));
        return s;
    };

    PtLogZRecorder log_z(*tm, o);
    auto last_report = Clock::now();
    for (std::size_t round = 0; round < lengths.size() && !res.cancelled; ++round) {
        const bool final_round = round + 1 == lengths.size();
        for (Index i = 0; i < lengths[round]; ++i) {
            sampler.scan();
            if (final_round) log_z.record(i, sampler);
            const Index scan = sampler.last_scan();
            res.history.push(scan, sampler.replica_at());
            recent.push(scan, sampler.replica_at());
            if (scan >= o.burn_in && (scan - o.burn_in) % o.sample_every == 0) {
                const Index rel = (scan - o.burn_in) / o.sample_every;
                if (samples.wants(rel)) {
                    for (Index c = 0; c < sample_chains; ++c) {
                        const Index r = sampler.row_at(last, c);
                        for (Index d = 0; d < n; ++d)
                            record[static_cast<std::size_t>(c * (n + m) + d)] = sampler.slot_states()(r, d);
                        for (Index d = 0; d < m; ++d)
                            record[static_cast<std::size_t>(c * (n + m) + n + d)] = sampler.slot_hidden()(r, d);
                    }
                    samples.push(rel, record.data());
                }
            }
            if (control.exchange ? sampler.stop_agreed()
                                 : control.cancel && control.cancel->load(std::memory_order_relaxed)) {
                res.cancelled = true;
                break;
            }
            if (control.on_progress && since(last_report) >= control.progress_interval_seconds) {
                control.on_progress(snapshot(static_cast<int>(round) + 1));
                last_report = Clock::now();
            }
        }
        if (round + 1 < lengths.size() && !res.cancelled) {
            const PtStats st = sampler.stats();
            res.rounds.push_back({st.betas, st.rejection, st.barrier(), st.scans});
            sampler.set_ladder(equalize_ladder(st.betas, st.rejection, rungs));
        }
    }
    if (control.on_progress) control.on_progress(snapshot(static_cast<int>(lengths.size())));

    if (control.gather_states) sampler.gather_states();  // once, at the end (nothing when alone)
    res.betas = sampler.betas();
    res.stats = sampler.stats();
    res.states = sampler.states();
    res.hidden = sampler.hidden();
    res.replica_at = sampler.replica_at();
    if (o.scheme == PtScheme::Lifted) res.lifted = sampler.lifted();
    res.scans_done = sampler.scans_done();
    const Index rows = samples.size() * sample_chains;
    res.target_samples = RowMat(rows, n);
    res.target_hidden = RowMat(rows, m);
    for (Index i = 0; i < samples.size(); ++i) {
        const double* rec = samples.record(i);
        for (Index c = 0; c < sample_chains; ++c) {
            const Index r = i * sample_chains + c;
            for (Index d = 0; d < n; ++d) res.target_samples(r, d) = rec[c * (n + m) + d];
            for (Index d = 0; d < m; ++d) res.target_hidden(r, d) = rec[c * (n + m) + n + d];
            res.sample_scans.push_back(o.burn_in + samples.scan(i) * o.sample_every);
            res.sample_chains.push_back(c);
        }
    }
    if (o.log_z) {
        res.log_z_burn_in = log_z.burn_in();
        res.log_z_stride = log_z.stride();
        res.log_z = log_z.estimate(&res.log_z_error);
    }
    res.seconds = since(start);
    return res;
}

}  // namespace rbm
