#pragma once
// The Trainer's state, shared by its update loop, monitor and checkpoint files. Internal to core.
#include <memory>
#include <utility>
#include <vector>

#include "core/training/samplers.hpp"

namespace rbm {

struct Trainer::Impl {
    TrainOptions options;
    Dataset data;
    Model model;
    ParamGrad velocity, last_gradient;
    // Work space of one_update, kept so an update allocates nothing: the tile sums of both phases,
    // the next velocity and the next model (swapped with velocity and model when accepted).
    std::vector<double> pos_sums, neg_sums;
    ParamGrad next_velocity;
    Model next_model;
    std::unique_ptr<detail::NegativeSampler> sampler;
    double projection_limit = 1.0;  // leaky: the bound in force (effective_projection_limit)
    Index done = 0;
    TrainStatus status = TrainStatus::Running;
    std::string message;
    std::vector<TrainRecord> log;
    std::vector<std::uint8_t> projected;
    // Since the previous record: summed swap acceptance per pair, updates, active projections.
    std::vector<double> acceptance_sum;
    Index acceptance_updates = 0;
    Index projections_since = 0;
    double seconds = 0;                           // in updates (checkpointed)
    double monitor_seconds = 0;                   // in records, since this Trainer was made
    std::string provenance, recorded_provenance;  // Trainer::set_provenance, recorded_provenance
    // Shared with other processes (set_exchange); stop agreed in the last update's exchange.
    PtExchange* exchange = nullptr;
    bool stop_agreed = false;
    std::uint64_t values_shared = 0;
    std::vector<Index> monitor_index;  // the monitored rows when they are a subset, drawn once
    RowMat test_rows;                  // held-out rows scored at every record (set_test_data)
    // Epoch order cache.
    Index perm_epoch = -1;
    std::vector<Index> perm;

    Impl(const TrainOptions& o, Dataset d);        // fresh run: initial parameters from the options
    void one_update(bool stop_requested = false);  // sets status / message when it diverges
    // This part's gradient tiles [first, end) of `tiles` (all of them without an exchange).
    std::pair<Index, Index> share_of(Index tiles) const;
    TrainRecord record();  // monitor now
    RowMat monitor_rows();
    const std::vector<Index>& epoch_order(Index epoch);
    double learning_rate_at(Index t) const;
    bool learns_sigma() const { return options.kind == ModelKind::Grbm && options.learn_sigma; }
};

// A fingerprint of the data (FNV-1a over shape and values) so a checkpoint refuses other data.
std::uint64_t data_fingerprint(const Dataset& d);

}  // namespace rbm
