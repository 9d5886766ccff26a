#pragma once
// Training RBMs by stochastic gradient ascent on the average log-likelihood (docs/methods/training.md).
//
// For every model kind, log p(v) = log p*(v) - log Z and d log Z / d theta = E_model[d log p*(v)/d theta],
// so the gradient is   mean over a data batch of s(v)  -  mean over negative samples of s(v),
// with the score s(v) = d log p*(v) / d theta (free energies of docs/methods/models.md; hidden units summed out).
// The negative samples come from one of the samplers below; everything else is shared.
//
// Negative phase (one update each):
//   cd      CD-k: k block-Gibbs sweeps from the batch.
//   pcd     PCD: k sweeps of persistent chains (Tieleman 2008).
//   pt      PCD whose chains are parallel-tempering ladders (Kadan et al., Procedure 1): one scan
//           (a sweep on every rung, then swaps) per update; reversible even-odd swaps. Ladder beta_k = gamma^(N-k), k =
//           0..N (the paper's beta_t = gamma^t, renumbered, docs/methods/annealing-paths.md#tempering-ladder).
//   lpt     the same with lifted swaps; deo  with deterministic even-odd swaps.
//   leaky   leaky RBM only: Algorithm 2 of Li et al.: exact draws at leakiness 1, then k sweeps
//           with the leakiness lowered linearly to the model's; fresh chains every update.
//   mix     leaky RBM only: the same annealing started from the batch (the paper's "mix").
// Leaky RBMs: after every update W's singular values are clipped to 1 - 1e-6 (projection step,
// Li et al. eq. 7); whether it was active is recorded per update.
//
// Determinism: the random streams of update t are keyed by (seed, t), so a run depends only on
// its options and data, not on the thread count or on where it was checkpointed and resumed.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/data/datasets.hpp"
#include "core/kernels/gibbs.hpp"
#include "core/models/models.hpp"
#include "core/models/train_record.hpp"
#include "core/numerics/parallel.hpp"

namespace rbm {

class PtExchange;  // core/tempering/pt.hpp

enum class TrainMethod { Cd, Pcd, Pt, Lpt, Deo, Leaky, Mix };
const char* train_method_name(TrainMethod m);             // "cd", "pcd", "pt", "lpt", "deo", "leaky", "mix"
TrainMethod parse_train_method(const std::string& name);  // InputError listing the names
bool is_tempered(TrainMethod m);                          // pt, lpt, deo

enum class LearningRateSchedule { Constant, Linear };  // linear: lr (1 - t / updates), t from 0

struct TrainOptions {
    ModelKind kind = ModelKind::Brbm;  // brbm, grbm or leaky
    Index hidden = 16;
    TrainMethod method = TrainMethod::Pcd;
    int k = 1;             // sweeps per update (cd, pcd), annealing steps (leaky, mix); pt: scans
    Index updates = 1000;  // total updates of the run
    Index batch = 10;
    double learning_rate = 0.01;
    LearningRateSchedule schedule = LearningRateSchedule::Constant;
    double momentum = 0.0;      // velocity = momentum * velocity + lr * gradient
    double weight_decay = 0.0;  // adds -weight_decay * W to the gradient of W
    double gamma = 0.7;         // tempered: ladder ratio, 0 < gamma < 1
    Index temperatures = 6;     // tempered: N, rungs besides the target (ladder has N + 1)
    Index chains = 0;           // persistent chains (pcd, pt, lpt, deo); 0: the batch size
    std::uint64_t seed = 1;
    double init_scale = 0.01;  // W_ij ~ N(0, init_scale^2); c = 0; b from the data (see below)
    // Visible bias at the start: BRBM logit of the data mean (clipped to [1e-3, 1 - 1e-3], Hinton's
    // guide), GRBM the data mean, leaky 0 (the paper's model has none; it is still learned).
    bool init_bias_from_data = true;
    // GRBM
    bool learn_sigma = false;  // learn log sigma too
    double sigma = 1.0;        // initial (or fixed) sigma; <= 0: the data standard deviation per unit
    // Leaky RBM
    double leakiness = 0.01;
    bool projection = true;
    // Largest singular value the projection allows. 0 (auto): projection_limit_for(data), which keeps
    // the model's c_L = 1 variance within kProjectionVarianceFactor times the data's largest one.
    double projection_limit = 0.0;
    LeakyKernel leaky_kernel = LeakyKernel::ExactMH;
    // Monitoring: a record at update 0, every monitor_every updates, and at the end.
    Index monitor_every = 100;  // 0: only at the start and the end
    // Rows used for the log-likelihood and reconstruction: at most this many, a subset drawn once
    // from `seed` (sorted, so a record does not depend on row order) when the data has more (0: all).
    Index monitor_examples = 1000;
    double exact_limit = 262144.0;             // exact log Z when enumeration needs at most this many terms
    Index ais_chains = 100, ais_steps = 1000;  // otherwise AIS (linear schedule)
    std::uint64_t ais_seed = 4242;             // the same AIS streams at every record (smoother curves)
    // BRBM and leaky RBM: the gradient's products (v W and v' E[h|v] per tile) in single precision;
    // the parameters, the tile sums and the update stay double.
    bool float32 = false;
};
// The automatic projection bound for leaky RBMs: s_max = sqrt(1 - 1 / (F * max(lambda, 1))), with
// lambda the largest eigenvalue of the data's covariance and F = kProjectionVarianceFactor, capped
// at 1 - 1e-6 (docs/methods/models.md#leaky-validity). At c_L = 1 the model is N(., (I - WW')^-1), whose largest
// variance is 1 / (1 - s^2): a fit never needs much more than the data's largest variance (the noise floor of
// p(v | h) is 1, hence max(lambda, 1)), while a bound at 1 - 1e-6 lets one overshooting step leave a
// nearly improper model (variance 5e5) from which the negative phase and the biases explode.
inline constexpr double kProjectionVarianceFactor = 10.0;
double projection_limit_for(const Dataset& data);
// The bound in force for these options and data (the explicit one, or the automatic one).
double effective_projection_limit(const TrainOptions& options, const Dataset& data);

// InputError naming the option (e.g. "--method leaky needs --kind leaky").
void validate(const TrainOptions& options, const Dataset& data);

// The parameters a gradient has (log_sigma only for a GRBM that learns sigma).
struct ParamGrad {
    Mat W;
    Vec b, c, log_sigma;
    Vec flat() const;  // W (column-major), b, c, log_sigma
};

// Mean over the rows of V of the score d log p*(v) / d theta of a GRBM (binary hidden units {0,1}
// or any value set), BRBM or leaky RBM; with_sigma adds d/d log sigma (GRBM).
ParamGrad mean_score(const Model& model, const RowMat& V, bool with_sigma = false);
// Gradient tiles: a mean of scores over rows is the sum over fixed tiles of
// kGradientTile rows (the Gibbs kernels' chain blocks), each tile summed on its own, the tile sums
// added in tile order (acc = s_0; acc += s_1; ...), then divided by the rows (W: times 1/rows).
// A tile's sum depends only on its rows, so processes that each sum some of the tiles and then
// add everyone's sums in tile order hold bitwise the mean of one process, whatever the split.
inline constexpr Index kGradientTile = kChainBlock;
inline Index gradient_tiles(Index rows) { return (rows + kGradientTile - 1) / kGradientTile; }
// Values per tile sum: W (column-major), b, c, then log_sigma when with_sigma (ParamGrad::flat()).
Index score_tile_values(const Model& model, bool with_sigma);
// Appends to `out` the score sums of tiles [first, end) of V's rows, score_tile_values each.
// BRBM and leaky RBMs run their products on the dispatched path (kernels/simd.hpp).
void score_tile_sums(const Model& model, const RowMat& V, Index first, Index end, bool with_sigma,
                     std::vector<double>& out);
// The same over `count` rows: X's rows, or with `index` the rows index[0..count) of X (a minibatch
// read from the data where it lies, no copy of the batch). float32: BRBM and leaky products in
// single precision (each tile's sums still added in double).
void score_tile_sums(const Model& model, const RowMat& X, const Index* index, Index count, Index first, Index end,
                     bool with_sigma, bool float32, std::vector<double>& out);
// The same written to dst (gradient_tiles(count) ... sized by the caller: (end - first) *
// score_tile_values values), so a caller that sums every update reuses one buffer.
void score_tile_sums_to(const Model& model, const RowMat& X, const Index* index, Index count, Index first, Index end,
                        bool with_sigma, bool float32, double* dst);
// Several row sets in one parallel pass (an update's minibatch and its negative samples): part k's
// tiles [first, end) of its `count` rows go to its dst, each tile summed as score_tile_sums_to sums
// it (so the same bits); the tiles of all parts share the threads, and W is put in float once.
struct ScoreRows {
    const RowMat* X = nullptr;
    const Index* index = nullptr;  // null: X's rows in order
    Index count = 0, first = 0, end = 0;
    double* dst = nullptr;
};
void score_tile_sums_to(const Model& model, const std::vector<ScoreRows>& parts, bool with_sigma, bool float32);
// The mean from the sums of all gradient_tiles(rows) tiles, in tile order.
ParamGrad mean_from_tile_sums(const Model& model, const double* sums, Index rows, bool with_sigma);
// mean_from_tile_sums(pos, rows) - mean_from_tile_sums(neg, neg_rows) in one pass, into g (whose
// storage is reused): the same operations on every value, so bitwise the same difference.
void gradient_from_tile_sums(const Model& model, const double* pos, Index rows, const double* neg, Index neg_rows,
                             bool with_sigma, ParamGrad& g);
// The same per row: rows x parameters, in the order of ParamGrad::flat() (for standard errors).
Mat score_rows(const Model& model, const RowMat& V, bool with_sigma = false);
// Exact E_model[score] by enumeration: BRBM over the visible layer (n <= 24), GRBM over the hidden
// configurations (|X|^m <= 2^24). InputError otherwise.
ParamGrad exact_model_score(const Model& model, bool with_sigma = false);
// Exact gradient of the average log-likelihood of `data`: mean_score(data) - exact_model_score.
ParamGrad exact_log_likelihood_gradient(const Model& model, const RowMat& data, bool with_sigma = false);
// Mean of log p*(v) over the rows minus log_z.
double average_log_likelihood(const Model& model, const RowMat& data, double log_z);

enum class TrainStatus { Running, Finished, Diverged, Cancelled };
const char* train_status_name(TrainStatus s);  // "running", "finished", "diverged", "cancelled"

// Drives a run in pieces so that a GUI worker can show progress and stop it:
//   Trainer t(options, data);                   // InputError for bad options
//   while (t.status() == TrainStatus::Running) { t.step(50, &cancel); show(t.model(), t.log()); }
// step() is not thread-safe against concurrent reads: copy what you show between steps.
class Trainer {
public:
    Trainer(const TrainOptions& options, Dataset data);
    ~Trainer();
    Trainer(Trainer&&) noexcept;
    Trainer& operator=(Trainer&&) noexcept;

    // Runs up to n updates (fewer when the run ends, diverges or *cancel is raised, checked after
    // every update); takes the records that fall due. Returns status(). Once Diverged or Finished,
    // it does nothing. A raised cancel flag gives Cancelled; a later step() resumes (Running again).
    TrainStatus step(Index n_updates, const std::atomic<bool>* cancel = nullptr);
    // Runs to the end (status Finished or Diverged, or Cancelled).
    TrainStatus run(const std::atomic<bool>* cancel = nullptr) {
        return step(options().updates - updates_done(), cancel);
    }

    TrainStatus status() const;
    // Diverged: which parameter or quantity went wrong, at which update, and what to do. The
    // model stays at the last update whose parameters were valid.
    const std::string& message() const;
    Index updates_done() const;
    // Wall time in the updates so far (kept across checkpoints), and in the monitor's records
    // (log-likelihood, reconstruction) taken by this Trainer: the monitor is off the updates' clock.
    double update_seconds() const;
    double monitor_seconds() const;
    const TrainOptions& options() const;
    // A longer or shorter run on resume (>= updates_done()); Finished becomes Running if more remain.
    void set_total_updates(Index updates);
    const Dataset& data() const;
    double projection_limit() const;  // leaky with projection: the bound in force

    Model model() const;  // a copy of the current parameters
    const std::vector<TrainRecord>& log() const;
    const std::vector<std::uint8_t>& projection_active() const;  // leaky: one 0/1 per update
    RowMat negative_samples() const;                             // current negative-phase states (visible)
    const ParamGrad& last_gradient() const;                      // estimate used by the last update (before decay)
    // Takes a record now (outside the schedule) and returns it; it is not added to the log.
    TrainRecord evaluate();
    // Held-out rows: every record also scores the first options().monitor_examples of them (all
    // when 0) against the record's log Z (TrainRecord::test_log_likelihood). Not kept in
    // checkpoints: give them again on resume. InputError when their width is not the model's.
    void set_test_data(const RowMat& rows);

    // Shares every update with the other parts of `exchange` (the CLI implements it
    // over MPI). Part q of P sums the scores of gradient tiles [q T / P, (q+1) T / P) of the
    // batch and of the negative samples (T tiles of kGradientTile rows each); cd and pcd run only
    // the chains of its negative tiles (streams keyed by the chains' global indices); pt, lpt and
    // deo share the slots of every ladder as PtSampler::set_exchange does, and after the scans
    // each part sends the target-rung chains whose slots it holds (8 C n bytes in all); leaky and
    // mix run whole on every part. The parts all-gather their tile sums and each adds them
    // in tile order (see kGradientTile), so every part holds bitwise the parameters of one
    // process. step()'s cancel flag is sent with the sums, and every part stops after the update
    // in which some part raised it. Call it on every part alike, before the first step.
    // InputError when a part would have no negative-phase tile (or, tempered, no rung); with
    // allow_idle, parts beyond the tiles are accepted and sit idle (they sum no tile and run no
    // chain, but take part in every exchange and hold the same parameters); tempered methods still
    // need a rung per part.
    void set_exchange(PtExchange* exchange, bool allow_idle = false);
    // Of `parts` parts sharing the updates, those with no gradient tile of the batch or of the
    // negative phase (idle), in order; none for leaky and mix (their sampler runs on every part).
    std::vector<Index> idle_parts(Index parts) const;
    // With an exchange: brings every part's persistent chains to every part, so negative_samples()
    // and the checkpoint are whole. Collective: every part calls it after the same update.
    void share_states();
    // With an exchange: payload values (doubles) this part sent in update sums so far.
    std::uint64_t values_shared() const;

    // Checkpoint: JSON with the options, a fingerprint of the data, the model, the optimizer
    // velocity, the persistent chains (tempering: ladder states and lifted directions), the
    // counters and the log. Resuming with the same data continues exactly as an uninterrupted run.
    void save_checkpoint(const std::filesystem::path& path) const;
    static Trainer load_checkpoint(const std::filesystem::path& path, Dataset data);
    std::string checkpoint_json() const;
    static Trainer from_checkpoint_json(const std::string& text, Dataset data,
                                        const std::string& origin = "checkpoint");
    // The "build" record the checkpoint carries (a JSON object's text, provenance_json in
    // core/kernels/build_info.hpp; "" writes none), and the one the loaded checkpoint carried ("" when
    // none, or when it was not an object: an old checkpoint still resumes). Neither changes the run.
    void set_provenance(std::string build_json_text);
    const std::string& recorded_provenance() const;

    // The log as CSV (one line per record) or as a JSON array.
    std::string log_csv() const;
    std::string log_json() const;

    struct Impl;

private:
    explicit Trainer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace rbm
