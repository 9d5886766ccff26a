#pragma once
// The Trainer's state, shared by its update loop, monitor and checkpoint files. Internal to core.
#include <memory>
#include <utility>
#include <vector>

#include "core/kernels/line_aligned.hpp"
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
    // The products' work space (uses_update_products): the hidden factors of the batch's and the
    // negatives' rows and the weight sums G, in float or double (training/score_table.hpp), and
    // with an exchange the negative rows gathered from every part.
    detail::LineVector<double> update_M, update_G;
    void size_update_M(Index rows);  // room for `rows` rows of hidden factors
    std::vector<int> update_ones;    // 0/1 rows: the batch's and the negatives' ones per visible unit
    RowMat batch_copy;               // cd, mix: the update's batch rows, for the sampler that starts from them
    RowMat shared_neg;
    // The last update's W gradient is update_G / gradient_rows until materialize_gradient() writes
    // it to last_gradient.W (the update itself never stores it).
    bool gradient_pending = false;
    Index gradient_rows = 0;
    void materialize_gradient();
    // With momentum 0 an update does not write the velocity's W (step_weights in trainer.cpp):
    // it is velocity_lr (g - velocity_decay W_before) until materialize_velocity() writes it, with
    // W_before model's W (velocity_base_is_model) or next_model's.
    bool velocity_pending = false, velocity_base_is_model = false;
    double velocity_lr = 0.0, velocity_decay = 0.0;
    void materialize_velocity();
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
    // BRBM and leaky RBM (sigma not learned): the gradient from an update's products
    // (HiddenPass, WeightPass in training/score_table.hpp) instead of tile sums.
    bool uses_update_products() const;
    // Their pass: g's b and c, and update_G for W; with an exchange the parts share their rows'
    // hidden factors (and negative rows) and each computes the same sums. Returns why the update
    // failed, or nothing.
    std::string product_gradient(const Index* batch_rows, Index rows, const RowMat* neg, Index neg_rows,
                                 std::pair<Index, Index> pos_tiles, std::pair<Index, Index> neg_tiles,
                                 const std::string& failed, const std::string& not_finite, bool stop_requested);
    TrainRecord record();  // monitor now
    RowMat monitor_rows();
    const std::vector<Index>& epoch_order(Index epoch);
    double learning_rate_at(Index t) const;
    bool learns_sigma() const { return options.kind == ModelKind::Grbm && options.learn_sigma; }
};

// f(the products' buffer as float*) when float32, else f(as double*).
template <class F>
void with_update_sums(bool float32, detail::LineVector<double>& store, F&& f) {
    if (float32) f(reinterpret_cast<float*>(store.data()));
    else f(store.data());
}

// A fingerprint of the data (FNV-1a over shape and values) so a checkpoint refuses other data.
std::uint64_t data_fingerprint(const Dataset& d);

}  // namespace rbm
