// Negative phases: CD-k, PCD, PCD on tempering ladders (PtSampler on the current model), and the
// leakiness-annealing sampler of Li et al. (Algorithm 2) with its "mix" variant.
#include "core/training/samplers.hpp"

#include <cmath>
#include <limits>
#include <optional>

#include "core/io/json_fields.hpp"

#include "core/numerics/parallel.hpp"
#include "core/sampling/runner.hpp"
#include "core/tempering/pt.hpp"

namespace rbm::detail {

std::uint64_t update_key(std::uint64_t seed, std::uint64_t t, std::uint64_t salt) {
    std::uint64_t z = seed ^ (0x9e3779b97f4a7c15ULL * (t + 1)) ^ (salt << 56);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

nlohmann::json matrix_json(const RowMat& M) {
    nlohmann::json rows = nlohmann::json::array();
    for (Index r = 0; r < M.rows(); ++r) {
        nlohmann::json row = nlohmann::json::array();
        for (Index c = 0; c < M.cols(); ++c) row.push_back(M(r, c));
        rows.push_back(std::move(row));
    }
    return nlohmann::json{{"rows", M.rows()}, {"cols", M.cols()}, {"data", std::move(rows)}};
}

RowMat matrix_from_json(const nlohmann::json& j, const std::string& what) {
    namespace f = json_fields;
    if (!j.is_object() || !j.contains("rows") || !j.contains("cols") || !j.contains("data"))
        throw InputError(what + ": expected an object with rows, cols and data");
    // Shapes a matrix of a checkpoint can have (the element count of a model array at most).
    constexpr std::int64_t kMaxSide = std::int64_t{1} << 28;
    const Index rows = f::integer_at(j, "rows", what, 0, kMaxSide), cols = f::integer_at(j, "cols", what, 0, kMaxSide);
    const auto& d = j.at("data");
    if (!d.is_array() || static_cast<Index>(d.size()) != rows)
        throw InputError(what + ": data does not hold " + std::to_string(rows) + " rows");
    RowMat M(rows, cols);
    for (Index r = 0; r < rows; ++r) {
        const auto& row = d[static_cast<std::size_t>(r)];
        if (!row.is_array() || static_cast<Index>(row.size()) != cols)
            throw InputError(what + ": row " + std::to_string(r + 1) + " does not hold " + std::to_string(cols) +
                             " numbers");
        for (Index c = 0; c < cols; ++c) {
            const auto& x = row[static_cast<std::size_t>(c)];
            if (!x.is_number()) throw InputError(what + ": row " + std::to_string(r + 1) + " holds a non-number");
            M(r, c) = x.get<double>();
        }
    }
    return M;
}

namespace {

constexpr std::uint64_t kChainSalt = 1, kInitSalt = 2;

Index persistent_chains(const TrainOptions& o) { return o.chains > 0 ? o.chains : o.batch; }

// Where a sweep keeps the hidden sums of the rows it starts from (CdSampler::keep_hidden_sums).
struct HiddenSumsTarget {
    void* out = nullptr;
    Index ld = 0;
    bool float32 = false;
};

// k sweeps of rows [begin, end) of V with the streams of chains begin.. of `key`, on the sampling
// engine's kernels (sampling/runner.hpp). The kernels other than the fused BRBM one cut the rows
// into blocks of kChainBlock and begin is a multiple of kChainBlock, so every row gets the bits it
// gets when all of V is swept; the BRBM rows do not depend on the cut. The kernel stays in
// kernel_out (NegativeSampler::last_step), reset when no rows ran. With `sums`, the first sweep
// also writes the hidden sums of the rows it starts from (row r of V at sums->out + r sums->ld);
// returns whether it did.
bool sweep_rows(const Model& model, RowMat& V, Index begin, Index end, std::uint64_t key, const TrainOptions& o,
                std::optional<GibbsKernel>& kernel_out, const HiddenSumsTarget* sums = nullptr) {
    kernel_out.reset();
    if (begin >= end) return false;
    SampleOptions so;
    so.leaky_kernel = o.leaky_kernel;
    // The fused BRBM kernel's rows do not depend on its blocks (each chain its own stream, its own
    // panel sums), so it takes a quarter of the rows a block (8 to 64): 100 chains in blocks of 64
    // were 64 rows on one thread and 36 on the other. The other kernels' bits depend on the cut:
    // they keep kChainBlock.
    so.block = model.as<Brbm>() ? std::clamp<Index>((end - begin + 3) / 4, 8, kChainBlock) : kChainBlock;
    so.model_checked = true;  // the trainer checks every model it makes (trainer.cpp, invalid_parameters)
    so.float32 = o.float32;   // BRBM: the sweeps' products with W in single precision, as the gradient's
    const GibbsKernel& kernel = kernel_out.emplace(model, so);
    // The first sweep, keeping the hidden sums when asked (row begin's at sums->out + begin ld).
    auto first_sweep = [&](RowMat& rows, ChainRngs& rngs) {
        if (!sums) {
            kernel.sweep(rows, rngs);
            return false;
        }
        const std::size_t bytes = sums->float32 ? sizeof(float) : sizeof(double);
        void* out = static_cast<char*>(sums->out) + static_cast<std::size_t>(begin * sums->ld) * bytes;
        return kernel.sweep_keeping_hidden_sums(rows, rngs, sums->float32, out, sums->ld);
    };
    bool kept = false;
    if (begin == 0 && end == V.rows()) {
        ChainRngs rngs(key, V.rows(), StreamPurpose::Training);
        kept = first_sweep(V, rngs);
        for (int s = 1; s < o.k; ++s) kernel.sweep(V, rngs);
        return kept;
    }
    RowMat part = V.middleRows(begin, end - begin);
    ChainRngs rngs(key, begin, end - begin, StreamPurpose::Training);
    kept = first_sweep(part, rngs);
    for (int s = 1; s < o.k; ++s) kernel.sweep(part, rngs);
    V.middleRows(begin, end - begin) = part;
    return kept;
}

// Every part's rows [begin, end) of V, gathered into V on every part.
void share_rows(PtExchange& exchange, RowMat& V, Index begin, Index end) {
    std::vector<double> mine(V.data() + begin * V.cols(), V.data() + end * V.cols());
    bool stop = false;  // a pending stop travels again with the next update
    const std::vector<double> all = exchange.all_gather(mine, stop);
    if (static_cast<Index>(all.size()) != V.size()) throw std::logic_error("shared chains do not add up to the chains");
    std::copy(all.begin(), all.end(), V.data());
}

// CD-k: k sweeps from the batch.
class CdSampler final : public NegativeSampler {
public:
    explicit CdSampler(const TrainOptions& o) : o_(o) {}
    const RowMat& sample(const Model& model, const RowMat& batch, std::uint64_t key, Index begin, Index end) override {
        const HiddenSumsTarget target = target_;
        target_ = {};
        wrote_ = false;
        V_ = batch;
        wrote_ = sweep_rows(model, V_, begin, end, key, o_, kernel_, target.out ? &target : nullptr);
        return V_;
    }
    Index rows(Index batch_rows) const override { return batch_rows; }
    RowMat states() const override { return V_; }
    const BlockStep* last_step() const override { return kernel_ ? kernel_->fused_step() : nullptr; }
    void keep_hidden_sums(void* out, Index ld, bool float32) override { target_ = {out, ld, float32}; }
    bool wrote_hidden_sums() const override { return wrote_; }

private:
    TrainOptions o_;
    RowMat V_;
    std::optional<GibbsKernel> kernel_;
    HiddenSumsTarget target_;  // for the next sample() only
    bool wrote_ = false;
};

// PCD: k sweeps of persistent chains, started from the reference of the initial model.
class PcdSampler final : public NegativeSampler {
public:
    PcdSampler(const TrainOptions& o, const Model& initial) : o_(o) {
        ChainRngs rngs(update_key(o.seed, 0, kInitSalt), persistent_chains(o), StreamPurpose::Training);
        V_ = initial_states(initial, persistent_chains(o), rngs);
    }
    const RowMat& sample(const Model& model, const RowMat&, std::uint64_t key, Index begin, Index end) override {
        sweep_rows(model, V_, begin, end, key, o_, kernel_);
        return V_;
    }
    Index rows(Index) const override { return V_.rows(); }
    const BlockStep* last_step() const override { return kernel_ ? kernel_->fused_step() : nullptr; }
    void share(PtExchange& exchange, Index begin, Index end) override { share_rows(exchange, V_, begin, end); }
    RowMat states() const override { return V_; }
    nlohmann::json save() const override { return {{"chains", matrix_json(V_)}}; }
    void load(const nlohmann::json& j, const std::string& origin) override {
        RowMat V = matrix_from_json(json_fields::member(j, "chains", origin), origin + ".chains");
        if (V.rows() != V_.rows() || V.cols() != V_.cols())
            throw InputError(origin + ".chains has the wrong shape for these options");
        V_ = std::move(V);
    }

private:
    TrainOptions o_;
    RowMat V_;
    std::optional<GibbsKernel> kernel_;
};

// The tempered family of the model being trained: PtSampler keeps a reference to one
// TemperedModel, so this one forwards to a tempered model rebuilt after every update.
class LiveTempered final : public TemperedModel {
public:
    // float32: BRBM local moves with W in single precision (train --float32).
    LiveTempered(const Model& m, bool float32) {
        reference_.brbm_float32 = float32;
        update(m);
    }
    void update(const Model& m) {
        inner_ = make_tempered_model(m, reference_);
        if (!betas_.empty()) inner_->set_ladder(betas_);
    }
    std::string description() const override { return inner_->description(); }
    std::string kernel_name() const override { return inner_->kernel_name(); }
    Index visible_dim() const override { return inner_->visible_dim(); }
    Index hidden_dim() const override { return inner_->hidden_dim(); }
    void set_ladder(const std::vector<double>& betas) override {
        TemperedModel::set_ladder(betas);
        inner_->set_ladder(betas);
    }
    void initialize(RowMat& V, RowMat& H, Index begin, Index end, ChainRngs& rngs) const override {
        inner_->initialize(V, H, begin, end, rngs);
    }
    void local_move(const Index* rungs, RowMat& V, RowMat& H, Index begin, Index end, ChainRngs& rngs,
                    Vec& pot) const override {
        inner_->local_move(rungs, V, H, begin, end, rngs, pot);
    }
    void potential(const RowMat& V, const RowMat& H, Index begin, Index end, Vec& pot) const override {
        inner_->potential(V, H, begin, end, pot);
    }

private:
    std::unique_ptr<TemperedModel> inner_;
    PtReference reference_;
};

PtScheme scheme_of(TrainMethod m) {
    switch (m) {
        case TrainMethod::Lpt: return PtScheme::Lifted;
        case TrainMethod::Deo: return PtScheme::Deo;
        default: return PtScheme::Reversible;
    }
}

// Procedure 1 of the tempering paper: every persistent chain is a ladder; each update runs k
// scans (a sweep at every rung, then one swap step); the target rung gives the negatives.
class TemperedSampler final : public NegativeSampler {
public:
    TemperedSampler(const TrainOptions& o, const Model& initial) : o_(o) {
        live_ = std::make_unique<LiveTempered>(initial, o.float32);
        PtOptions p;
        p.scheme = scheme_of(o.method);
        p.betas = geometric_ladder(o.temperatures + 1, o.gamma);
        p.chains = persistent_chains(o);
        p.seed = update_key(o.seed, 0, kInitSalt);
        pt_ = std::make_unique<PtSampler>(*live_, p);
    }
    Index rows(Index) const override { return pt_->chains(); }
    const RowMat& sample(const Model& model, const RowMat&, std::uint64_t key, Index, Index) override {
        live_->update(model);
        pt_->reseed(key);
        pt_->reset_stats();
        for (int s = 0; s < o_.k; ++s) pt_->scan();
        acceptance_ = pt_->stats().acceptance();
        // The target rung's chains sit in slots any part may own: under an exchange every part
        // sends the ones it owns (8 C n bytes in all), and every part gets them all.
        V_ = pt_->gather_rung(pt_->rungs() - 1);
        return V_;
    }
    void set_exchange(PtExchange* exchange) override {
        pt_->set_exchange(exchange, nullptr);
        ex_ = exchange && exchange->parts() > 1 ? exchange : nullptr;
    }
    // Every part's slots (V and H) to every part.
    void share(PtExchange&, Index, Index) override {
        if (ex_) pt_->gather_states();
    }
    RowMat states() const override {
        const Index C = pt_->chains();
        return pt_->states().middleRows((pt_->rungs() - 1) * C, C);
    }
    std::vector<double> last_acceptance() const override { return acceptance_; }
    nlohmann::json save() const override {
        const PtSampler::State s = pt_->state();
        nlohmann::json lifted = nlohmann::json::array();
        for (const LiftedState& l : s.lifted) lifted.push_back({l.rung, l.direction});
        return {{"V", matrix_json(s.V)}, {"H", matrix_json(s.H)},    {"replica_at", s.replica_at},
                {"lifted", lifted},      {"end_state", s.end_state}, {"scan_index", s.scan_index}};
    }
    void load(const nlohmann::json& j, const std::string& origin) override {
        namespace f = json_fields;
        try {
            PtSampler::State s;
            s.V = matrix_from_json(f::member(j, "V", origin), origin + ".V");
            s.H = matrix_from_json(f::member(j, "H", origin), origin + ".H");
            const std::string rp = origin + ".replica_at";
            const auto& ra = f::array(f::member(j, "replica_at", origin), rp);
            for (std::size_t i = 0; i < ra.size(); ++i)
                s.replica_at.push_back(static_cast<std::uint16_t>(f::integer(ra[i], f::at(rp, i), 0, 65535)));
            const std::string lp = origin + ".lifted";
            const auto& lifted = f::array(f::member(j, "lifted", origin), lp);
            for (std::size_t i = 0; i < lifted.size(); ++i) {
                const auto& l = f::array_of_size(lifted[i], f::at(lp, i), 2);
                s.lifted.push_back(
                    LiftedState{f::integer(l[0], f::at(lp, i) + "[0] (rung)", 0, 65535),
                                static_cast<int>(f::integer(l[1], f::at(lp, i) + "[1] (direction)", -1, 1))});
            }
            const std::string ep = origin + ".end_state";
            const auto& es = f::array(f::member(j, "end_state", origin), ep);
            for (std::size_t i = 0; i < es.size(); ++i)
                s.end_state.push_back(static_cast<std::uint8_t>(f::integer(es[i], f::at(ep, i), 0, 3)));
            s.scan_index = f::integer_at(j, "scan_index", origin, 0, std::numeric_limits<std::int64_t>::max());
            pt_->set_state(s);
        } catch (const nlohmann::json::exception& e) {
            throw InputError(origin + ": tempering state is malformed (" + e.what() + ")");
        }
    }

private:
    TrainOptions o_;
    std::unique_ptr<LiveTempered> live_;
    std::unique_ptr<PtSampler> pt_;
    PtExchange* ex_ = nullptr;
    RowMat V_;
    std::vector<double> acceptance_;
};

// Algorithm 2 of Li et al.: start at leakiness 1 (exact Gaussian draws; "mix": the batch), then
// k sweeps at leakiness c_s = 1 - (s/k)(1 - c_L), s = 1..k. Fresh chains every update.
class LeakyAnnealSampler final : public NegativeSampler {
public:
    LeakyAnnealSampler(const TrainOptions& o, bool from_data) : o_(o), from_data_(from_data) {}
    Index rows(Index batch_rows) const override { return from_data_ ? batch_rows : persistent_chains(o_); }
    const RowMat& sample(const Model& model, const RowMat& batch, std::uint64_t key, Index, Index) override {
        const Leaky* m = model.as<Leaky>();
        if (!m) throw InputError("the leaky and mix samplers need a leaky RBM");
        const Index count = from_data_ ? batch.rows() : persistent_chains(o_);
        ChainRngs rngs(key, count, StreamPurpose::Training);
        if (from_data_) {
            V_ = batch;
        } else {
            // Leakiness 1: log f = -v'(I - WW')v/2 + v'(b + Wc) + const, so v ~ N(P^{-1}(b + Wc), P^{-1}).
            const Index n = m->n_visible();
            const Mat P = Mat::Identity(n, n) - m->W * m->W.transpose();
            Eigen::LLT<Mat> llt(P);
            if (llt.info() != Eigen::Success)
                throw InputError("leaky sampler: I - W W' is not positive definite (largest singular value of W >= 1)");
            const Vec mean = llt.solve(m->b + m->W * m->c);
            V_.resize(count, n);
            for (Index r = 0; r < count; ++r) {
                Vec z(n);
                for (Index i = 0; i < n; ++i) z(i) = rngs[r].normal();
                V_.row(r) = (mean + llt.matrixU().solve(z)).transpose();  // cov (L L')^{-1} = L'^{-1} L^{-1}
            }
        }
        for (int s = 1; s <= o_.k; ++s) {
            const double cl = 1.0 - (static_cast<double>(s) / o_.k) * (1.0 - m->leakiness);
            leaky_sweep(*m, V_, rngs, o_.leaky_kernel, 1.0, cl);
        }
        return V_;
    }
    RowMat states() const override { return V_; }

private:
    TrainOptions o_;
    bool from_data_;
    RowMat V_;
};

}  // namespace

std::unique_ptr<NegativeSampler> make_negative_sampler(const TrainOptions& o, const Model& initial) {
    switch (o.method) {
        case TrainMethod::Cd: return std::make_unique<CdSampler>(o);
        case TrainMethod::Pcd: return std::make_unique<PcdSampler>(o, initial);
        case TrainMethod::Pt:
        case TrainMethod::Lpt:
        case TrainMethod::Deo: return std::make_unique<TemperedSampler>(o, initial);
        case TrainMethod::Leaky: return std::make_unique<LeakyAnnealSampler>(o, false);
        case TrainMethod::Mix: return std::make_unique<LeakyAnnealSampler>(o, true);
    }
    throw InputError("unknown training method");
}

}  // namespace rbm::detail
