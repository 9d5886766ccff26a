#pragma once
// Negative-phase samplers of the Trainer (training.hpp lists them). Internal to core.
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/training/training.hpp"

namespace rbm::detail {

class BlockStep;  // kernels/kernel_table.hpp

class NegativeSampler {
public:
    virtual ~NegativeSampler() = default;
    // Negative samples for one update of `model` (rows: visible states), from the streams of
    // `key`; batch is the update's data batch. Only rows [begin, end) need to be current (a
    // process's share of the gradient tiles, multiples of kGradientTile): samplers whose chains
    // are independent (cd, pcd) run only those, with the streams of their global indices, and
    // leave the other rows as they were; the others run every row.
    virtual const RowMat& sample(const Model& model, const RowMat& batch, std::uint64_t key, Index begin,
                                 Index end) = 0;
    // Rows sample() returns for a batch of `batch_rows` rows.
    virtual Index rows(Index batch_rows) const = 0;
    // Tempered samplers share the ladder's rungs with the other parts (PtSampler::set_exchange).
    virtual void set_exchange(PtExchange* exchange) { (void)exchange; }
    // Persistent rows run only in part (sample's range): every part's rows [begin, end) to every
    // part, so that states() and save() are whole. Collective over `exchange`.
    virtual void share(PtExchange& exchange, Index begin, Index end) { (void)exchange, (void)begin, (void)end; }
    // Current states for display (empty before the first update for samplers without state).
    virtual RowMat states() const = 0;
    // Tempered samplers: mean swap acceptance per ladder pair over the scans of the last sample().
    virtual std::vector<double> last_acceptance() const { return {}; }
    // The fused step the last sample() swept with, built from that model (cd, pcd on a BRBM; null
    // for the others or when this part swept no rows): its hidden sums serve the update's hidden
    // pass (training/update_products.cpp). Valid until the next sample().
    virtual const BlockStep* last_step() const { return nullptr; }
    // cd on a BRBM: the next sample() writes the hidden sums c + v'W of the batch rows it starts
    // from (BlockStep::hidden_sums; rows [begin, end), row r at out + r ld, float when float32)
    // and says so by wrote_hidden_sums(); the update's hidden pass then only applies f to them.
    virtual void keep_hidden_sums(void* out, Index ld, bool float32) { (void)out, (void)ld, (void)float32; }
    virtual bool wrote_hidden_sums() const { return false; }
    // Persistent state for checkpoints (null when there is none).
    virtual nlohmann::json save() const { return nullptr; }
    virtual void load(const nlohmann::json& state, const std::string& origin) { (void)state, (void)origin; }
};

// initial: the model the persistent chains start from (their reference draws).
std::unique_ptr<NegativeSampler> make_negative_sampler(const TrainOptions& options, const Model& initial);

// Stream key of update t: a SplitMix64 hash of (seed, t, purpose salt).
std::uint64_t update_key(std::uint64_t seed, std::uint64_t t, std::uint64_t salt);

// JSON <-> matrices, doubles printed to round-trip exactly.
nlohmann::json matrix_json(const RowMat& M);
RowMat matrix_from_json(const nlohmann::json& j, const std::string& what);

}  // namespace rbm::detail
