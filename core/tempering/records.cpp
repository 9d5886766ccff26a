// What a PT run records: the replica index process (compact, decimated under a memory cap),
// run lengths along a replica's trajectory, the pooled statistics, and option checks.
#include <cmath>
#include <limits>
#include <numeric>

#include "core/tempering/pt.hpp"

namespace rbm {

// ---------------- index history ----------------
IndexHistory::IndexHistory(Index chains, Index rungs, std::size_t max_bytes)
    : chains_(chains), rungs_(rungs), bytes_(rungs <= 256 ? 1 : 2) {
    const Index width = chains * rungs * bytes_;
    const Index capacity = width > 0 ? static_cast<Index>(max_bytes) / width : 0;
    records_ = DecimatedRecords<std::uint8_t>(width, capacity);
}

void IndexHistory::push(Index scan, const std::vector<std::uint16_t>& replica_at) {
    if (!records_.wants(scan)) return;
    const Index entries = chains_ * rungs_;
    std::vector<std::uint8_t> rec(static_cast<std::size_t>(entries * bytes_));
    for (Index e = 0; e < entries; ++e) {
        const std::uint16_t v = replica_at[static_cast<std::size_t>(e)];
        if (bytes_ == 1) {
            rec[static_cast<std::size_t>(e)] = static_cast<std::uint8_t>(v);
        } else {
            rec[static_cast<std::size_t>(2 * e)] = static_cast<std::uint8_t>(v & 0xff);
            rec[static_cast<std::size_t>(2 * e + 1)] = static_cast<std::uint8_t>(v >> 8);
        }
    }
    records_.push(scan, rec.data());
}

int IndexHistory::replica_at(Index i, Index chain, Index rung) const {
    const std::uint8_t* r = records_.record(i);
    const Index e = chain * rungs_ + rung;
    if (bytes_ == 1) return r[e];
    return r[2 * e] | (r[2 * e + 1] << 8);
}

std::vector<int> IndexHistory::trajectory(Index chain, Index replica) const {
    std::vector<int> out(static_cast<std::size_t>(size()), -1);
    for (Index i = 0; i < size(); ++i)
        for (Index k = 0; k < rungs_; ++k)
            if (replica_at(i, chain, k) == replica) {
                out[static_cast<std::size_t>(i)] = static_cast<int>(k);
                break;
            }
    return out;
}

double mean_monotone_run(const std::vector<int>& trajectory) {
    std::int64_t runs = 0, moves = 0;
    int last_dir = 0;
    for (std::size_t t = 1; t < trajectory.size(); ++t) {
        const int d = trajectory[t] - trajectory[t - 1];
        if (d == 0) continue;
        const int dir = d > 0 ? 1 : -1;
        ++moves;
        if (dir != last_dir) ++runs;
        last_dir = dir;
    }
    return runs == 0 ? 0.0 : static_cast<double>(moves) / static_cast<double>(runs);
}

// ---------------- statistics ----------------
std::vector<double> PtStats::acceptance() const {
    std::vector<double> a(rejection.size());
    for (std::size_t k = 0; k < a.size(); ++k) a[k] = 1.0 - rejection[k];
    return a;
}

double PtStats::barrier() const { return std::accumulate(rejection.begin(), rejection.end(), 0.0); }

std::int64_t PtStats::total_round_trips() const {
    return std::accumulate(round_trips.begin(), round_trips.end(), std::int64_t(0));
}
std::int64_t PtStats::total_restarts() const {
    return std::accumulate(restarts.begin(), restarts.end(), std::int64_t(0));
}

double PtStats::round_trip_rate() const {
    if (scans <= 0 || chains <= 0) return 0;
    return static_cast<double>(total_round_trips()) / (static_cast<double>(scans) * static_cast<double>(chains));
}
double PtStats::lifted_round_trip_rate() const {
    if (scans <= 0 || chains <= 0) return 0;
    return static_cast<double>(lifted_round_trips) / (static_cast<double>(scans) * static_cast<double>(chains));
}

// ---------------- options ----------------
void validate(const PtOptions& o) {
    validate_ladder(o.betas);
    const Index rungs = static_cast<Index>(o.betas.size());
    if (o.chains < 1) throw InputError("PT needs at least 1 chain, got " + std::to_string(o.chains));
    if (o.scans < 1) throw InputError("PT needs at least 1 scan (sweeps), got " + std::to_string(o.scans));
    if (o.adaptive_rounds < 0 || o.adaptive_rounds > 30)
        throw InputError("adaptive rounds must be from 0 to 30, got " + std::to_string(o.adaptive_rounds));
    if (o.scheme == PtScheme::Lifted && (o.lifted_replica < 0 || o.lifted_replica >= rungs))
        throw InputError("the lifted replica must be a rung from 0 to " + std::to_string(rungs - 1) + ", got " +
                         std::to_string(o.lifted_replica));
    if (o.burn_in < 0) throw InputError("burn-in must be >= 0, got " + std::to_string(o.burn_in));
    if (o.sample_every < 1) throw InputError("sample_every must be >= 1, got " + std::to_string(o.sample_every));
    if (o.sample_chains < 0) throw InputError("sample_chains must be >= 0");
    if (o.max_samples < 0) throw InputError("max_samples must be >= 0");
    if (o.history_chains < 0) throw InputError("history_chains must be >= 0");
    if (o.window < 0) throw InputError("window must be >= 0");
    if (!(o.log_z_burn_in >= 0 && o.log_z_burn_in < 1))
        throw InputError("the log Z burn-in is a fraction of the scans in [0, 1), got " +
                         std::to_string(o.log_z_burn_in));
    if (o.log_z_batches < 2) throw InputError("log Z needs at least 2 batches, got " + std::to_string(o.log_z_batches));
    if (static_cast<double>(o.chains) * static_cast<double>(rungs) > 1e8)
        throw InputError("chains x replicas = " + std::to_string(o.chains * rungs) + " states is too many (limit 1e8)");
}

}  // namespace rbm
