// The Trainer: initial parameters, one update (batch, negative phase, gradient, momentum, weight
// decay, projection, divergence checks) and the step loop.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <vector>

#include "core/tempering/pt.hpp"
#include "core/training/column_blocks.hpp"
#include "core/training/score_table.hpp"
#include "core/training/trainer_impl.hpp"

namespace rbm {

namespace {

constexpr std::uint64_t kOrderSalt = 3, kInitSalt = 4, kUpdateSalt = 5;

Model initial_model(const TrainOptions& o, const Dataset& data, double projection_limit) {
    const Index n = data.dim(), m = o.hidden;
    Rng rng(detail::update_key(o.seed, 0, kInitSalt), static_cast<std::uint64_t>(StreamPurpose::Training) << 48);
    Mat W(n, m);
    for (Index j = 0; j < m; ++j)
        for (Index i = 0; i < n; ++i) W(i, j) = o.init_scale * rng.normal();
    const Vec mean = data.X.colwise().mean().transpose();
    Model model;
    switch (o.kind) {
        case ModelKind::Brbm: {
            Vec b = Vec::Zero(n);
            if (o.init_bias_from_data)
                b = mean.unaryExpr([](double p) {
                    p = std::clamp(p, 1e-3, 1 - 1e-3);
                    return std::log(p / (1 - p));
                });
            model.params = Brbm{W, b, Vec::Zero(m)};
            break;
        }
        case ModelKind::Grbm: {
            Vec sigma = Vec::Constant(n, o.sigma);
            if (o.sigma <= 0) {
                const Vec var = (data.X.rowwise() - mean.transpose()).array().square().colwise().mean().transpose();
                sigma = var.cwiseSqrt().cwiseMax(1e-2);
            }
            model.params = Grbm{W, o.init_bias_from_data ? mean : Vec::Zero(n), Vec::Zero(m), sigma, {0.0, 1.0}};
            break;
        }
        case ModelKind::Leaky: {
            Leaky l{W, Vec::Zero(n), Vec::Zero(m), o.leakiness};
            if (o.projection) l.project(projection_limit);
            model.params = l;
            break;
        }
        default: throw InputError("training supports brbm, grbm and leaky models");
    }
    return model;
}

ParamGrad zero_like(const Model& m, bool with_sigma) {
    const Index n = m.n_visible(), k = m.n_hidden();
    return ParamGrad{Mat::Zero(n, k), Vec::Zero(n), Vec::Zero(k), with_sigma ? Vec::Zero(n) : Vec()};
}

Mat& weights_of(Model& m) {
    if (Brbm* p = m.as<Brbm>()) return p->W;
    if (Grbm* p = m.as<Grbm>()) return p->W;
    if (Leaky* p = m.as<Leaky>()) return p->W;
    throw InputError("gaussian models are not trained");
}

// to = from but for W, whose storage `to` keeps (an update writes the next W itself; copying the
// 3 MB of a 784 x 500 W first was a pass of its own).
void copy_all_but_weights(Model& from, Model& to) {
    Mat kept, mine;
    if (to.kind() == from.kind()) kept.swap(weights_of(to));
    mine.swap(weights_of(from));
    try {
        to = from;
    } catch (...) {
        weights_of(from).swap(mine);
        throw;
    }
    weights_of(from).swap(mine);
    weights_of(to).swap(kept);
}

// W's state after a step, gathered block by block: all finite, and the largest |entry|.
struct WeightCheck {
    bool finite = true;
    double largest = 0.0;
};

// Per column block of W, as the update's pass over W checks them (training/score_table.hpp,
// WeightStep); then joined (in block order).
class BlockChecks {
public:
    explicit BlockChecks(Index cols)
        : finite_(static_cast<std::size_t>((cols + kColumnBlock - 1) / kColumnBlock), 1),
          largest_(finite_.size(), 0.0) {}
    // Where the pass writes them, one entry per block of kColumnBlock columns.
    void target(detail::WeightStep& pass) {
        pass.block = kColumnBlock;
        pass.finite = finite_.data();
        pass.largest = largest_.data();
    }
    WeightCheck joined() const {
        WeightCheck c;
        c.finite = std::all_of(finite_.begin(), finite_.end(), [](char f) { return f != 0; });
        c.largest = largest_.empty() ? 0.0 : *std::max_element(largest_.begin(), largest_.end());
        return c;
    }

private:
    std::vector<char> finite_;
    std::vector<double> largest_;
};

// The update's pass over W, in column blocks on the threads, each block while it is in cache:
// g = G * inv_rows (the gradient before weight decay: G an update's weight sums, float or double,
// or with inv_rows 1 the gradient itself), then
//   v = mu velocity + lr (g - decay W),   next = W + v
// and the block's check. Every entry is computed the same way whoever computes it.
// With mu = 0 the velocity is not an input of the next step, so v is neither read nor written
// (v == nullptr): next = W + lr (g - decay W), the same values (0 velocity + x is x), and a
// third less memory traffic on a pass that is bound by it. Trainer::Impl::materialize_velocity
// writes v when asked. The pass runs on the kernels' instruction set (training/score_table.hpp,
// WeightStep): as an Eigen expression compiled for baseline x86-64 it ran on 2-double vectors and
// took about a tenth of a 784 x 500 float32 PCD-1 update.
WeightCheck step_weights(const Mat& W, const void* G, bool float32, double inv_rows, const Mat& velocity, Mat* v,
                         Mat& next, double lr, double mu, double decay) {
    const Index n = W.rows(), m = W.cols();
    if (v) v->resize(n, m);
    next.resize(n, m);
    BlockChecks checks(m);
    detail::WeightStep step;
    step.W = W.data();
    step.G = G;
    step.float32 = float32;
    step.inv_rows = inv_rows;
    step.next = next.data();
    step.n = n;
    step.m = m;
    step.lr = lr;
    step.decay = decay;
    if (v) {
        step.velocity = velocity.data();
        step.v = v->data();
        step.mu = mu;
    }
    checks.target(step);
    detail::score_table().weight_step(step);
    return checks.joined();
}

// W's check on its own (after a leaky projection changed it).
WeightCheck check_weights(const Mat& W) {
    BlockChecks checks(W.cols());
    detail::WeightStep pass;
    pass.W = W.data();
    pass.n = W.rows();
    pass.m = W.cols();
    checks.target(pass);
    detail::score_table().weight_check(pass);
    return checks.joined();
}

// Empty when every parameter is finite and in range, else what went wrong; W's part from `w`.
std::string invalid_parameters(const Model& m, const WeightCheck& w) {
    std::ostringstream os;
    std::visit(
        [&](const auto& p) {
            using T = std::decay_t<decltype(p)>;
            if constexpr (!std::is_same_v<T, Gaussian>) {
                if (!w.finite) os << "W has a non-finite entry";
                else if (!p.b.allFinite()) os << "b has a non-finite entry";
                else if (!p.c.allFinite()) os << "c has a non-finite entry";
                else if (w.largest > 1e6) os << "|W| exceeds 1e6";
                if constexpr (std::is_same_v<T, Grbm>)
                    if (os.tellp() == 0 && !(p.sigma.array() > 0).all()) os << "sigma is not positive";
            }
        },
        m.params);
    return os.str();
}

}  // namespace

Trainer::Impl::Impl(const TrainOptions& o, Dataset d) : options(o), data(std::move(d)) {
    validate(options, data);
    if (options.kind == ModelKind::Leaky && options.projection)
        projection_limit = effective_projection_limit(options, data);
    model = initial_model(options, data, projection_limit);
    validate(model);  // once: the negative phase's kernels then skip the check (SampleOptions::model_checked)
    model.name =
        std::string(kind_name(options.kind)) + " trained by " + train_method_name(options.method) + " on " + data.name;
    velocity = zero_like(model, learns_sigma());
    last_gradient = velocity;
    sampler = detail::make_negative_sampler(options, model);
}

double Trainer::Impl::learning_rate_at(Index t) const {
    if (options.schedule == LearningRateSchedule::Constant || options.updates == 0) return options.learning_rate;
    return options.learning_rate * std::max(0.0, 1.0 - static_cast<double>(t) / static_cast<double>(options.updates));
}

const std::vector<Index>& Trainer::Impl::epoch_order(Index epoch) {
    if (perm_epoch == epoch) return perm;
    const Index N = data.size();
    perm.resize(static_cast<std::size_t>(N));
    for (Index i = 0; i < N; ++i) perm[static_cast<std::size_t>(i)] = i;
    Rng rng(detail::update_key(options.seed, static_cast<std::uint64_t>(epoch), kOrderSalt),
            static_cast<std::uint64_t>(StreamPurpose::Training) << 48);
    for (Index i = N - 1; i > 0; --i)  // Fisher-Yates
        std::swap(perm[static_cast<std::size_t>(i)],
                  perm[static_cast<std::size_t>(rng.below(static_cast<std::uint64_t>(i + 1)))]);
    perm_epoch = epoch;
    return perm;
}

std::pair<Index, Index> Trainer::Impl::share_of(Index tiles) const {
    if (!exchange) return {0, tiles};
    const Index P = exchange->parts(), q = exchange->part();
    return {q * tiles / P, (q + 1) * tiles / P};
}

void Trainer::Impl::one_update(bool stop_requested) {
    const Index t = done, N = data.size(), B = options.batch;
    const Index per_epoch = (N + B - 1) / B, epoch = t / per_epoch, first = (t % per_epoch) * B;
    const std::vector<Index>& order = epoch_order(epoch);
    const Index rows = std::min(N, first + B) - first;
    // The batch is read from the data in place (rows order[first..first + rows) of data.X); only the
    // samplers that start from it (cd, mix) get a copy.
    const Index* batch_rows = order.data() + first;
    RowMat& batch = batch_copy;
    if (options.method == TrainMethod::Cd || options.method == TrainMethod::Mix) {
        // Rows scattered over the data (cache misses, not arithmetic): gathered on the threads into
        // a buffer kept from update to update.
        batch.resize(rows, data.dim());
        for_each_block(
            rows,
            [&](Index r0, Index r1) {
                for (Index r = r0; r < r1; ++r) batch.row(r) = data.X.row(batch_rows[r]);
            },
            16);
    } else {
        batch.resize(0, 0);
    }

    auto diverge = [&](const std::string& why) {
        status = TrainStatus::Diverged;
        std::ostringstream os;
        os << "training diverged at update " << t + 1 << ": " << why;
        message = os.str();
    };
    // This part's share of the negative rows and of both phases' gradient tiles.
    const Index neg_rows = sampler->rows(rows);
    const auto [pos0, pos1] = share_of(gradient_tiles(rows));
    const auto [neg0, neg1] = share_of(gradient_tiles(neg_rows));
    const RowMat* neg = nullptr;
    std::string failed;
    const bool products = uses_update_products();
    if (products && options.kind == ModelKind::Brbm && options.method == TrainMethod::Cd &&
        std::pair{pos0, pos1} == std::pair{neg0, neg1}) {
        // CD's first sweep starts from the batch and sums c + v'W for it: the batch's hidden sums,
        // kept in the update's M rows (product_gradient reads them when wrote_hidden_sums()).
        size_update_M(rows + neg_rows);
        sampler->keep_hidden_sums(update_M.data(), detail::update_ld(model.n_hidden()), options.float32);
    }
    try {
        neg =
            &sampler->sample(model, batch, detail::update_key(options.seed, static_cast<std::uint64_t>(t), kUpdateSalt),
                             neg0 * kGradientTile, std::min(neg_rows, neg1 * kGradientTile));
    } catch (const InputError& e) {
        failed = std::string("the negative phase failed (") + e.what() + ")";
    }
    const std::string not_finite = "the negative-phase samples are not finite (the model has no normalizer any more)" +
                                   std::string(options.kind == ModelKind::Leaky && !options.projection
                                                   ? "; train leaky RBMs with the projection step"
                                                   : "");
    if (failed.empty()) {
        const Index r0 = neg0 * kGradientTile, r1 = std::min(neg_rows, neg1 * kGradientTile);
        if (!neg->middleRows(r0, r1 - r0).allFinite()) failed = not_finite;
    }
    ParamGrad& g = last_gradient;  // written in place: its storage is reused from update to update
    if (products) {
        const std::string why = product_gradient(batch_rows, rows, neg, neg_rows, {pos0, pos1}, {neg0, neg1}, failed,
                                                 not_finite, stop_requested);
        if (!why.empty()) return diverge(why);
    } else if (!exchange) {
        if (!failed.empty()) return diverge(failed);
        // The tile sums go to buffers kept from the previous update (resize to the same size zeroes
        // nothing); the batch's and the negatives' tiles in one parallel pass.
        const Index S = score_tile_values(model, learns_sigma());
        pos_sums.resize(static_cast<std::size_t>(gradient_tiles(rows) * S));
        neg_sums.resize(static_cast<std::size_t>(gradient_tiles(neg_rows) * S));
        score_tile_sums_to(model,
                           {ScoreRows{&data.X, batch_rows, rows, 0, gradient_tiles(rows), pos_sums.data()},
                            ScoreRows{neg, nullptr, neg_rows, 0, gradient_tiles(neg_rows), neg_sums.data()}},
                           learns_sigma(), options.float32);
        gradient_from_tile_sums(model, pos_sums.data(), rows, neg_sums.data(), neg_rows, learns_sigma(), g);
    } else {
        // Sums of this part's tiles (batch, then negatives), then 1 if its negative phase failed.
        std::vector<double> mine;
        if (failed.empty()) {
            score_tile_sums(model, data.X, batch_rows, rows, pos0, pos1, learns_sigma(), options.float32, mine);
            score_tile_sums(model, *neg, nullptr, neg_rows, neg0, neg1, learns_sigma(), options.float32, mine);
        } else {
            mine.assign(
                static_cast<std::size_t>((pos1 - pos0 + neg1 - neg0) * score_tile_values(model, learns_sigma())), 0.0);
        }
        mine.push_back(failed.empty() ? 0.0 : 1.0);
        values_shared += mine.size();
        bool stop = stop_requested;
        const std::vector<double> all = exchange->all_gather(mine, stop);
        stop_agreed = stop;
        // Part q's block: its batch tiles, its negative tiles, its flag (the shares are known to all).
        const Index S = score_tile_values(model, learns_sigma()), P = exchange->parts();
        const Index pos_tiles = gradient_tiles(rows), neg_tiles = gradient_tiles(neg_rows);
        std::vector<double> pos(static_cast<std::size_t>(pos_tiles * S)), negs(static_cast<std::size_t>(neg_tiles * S));
        std::size_t at = 0;
        bool any_failed = false;
        for (Index q = 0; q < P; ++q) {
            const Index p0 = q * pos_tiles / P, p1 = (q + 1) * pos_tiles / P, n0 = q * neg_tiles / P,
                        n1 = (q + 1) * neg_tiles / P;
            std::copy_n(all.begin() + static_cast<std::ptrdiff_t>(at), (p1 - p0) * S, pos.begin() + p0 * S);
            at += static_cast<std::size_t>((p1 - p0) * S);
            std::copy_n(all.begin() + static_cast<std::ptrdiff_t>(at), (n1 - n0) * S, negs.begin() + n0 * S);
            at += static_cast<std::size_t>((n1 - n0) * S);
            any_failed = any_failed || all[at] != 0.0;
            ++at;
        }
        if (at != all.size()) throw std::logic_error("the parts' gradient tiles do not add up");
        if (any_failed) return diverge(failed.empty() ? not_finite + " (on another process)" : failed);
        gradient_from_tile_sums(model, pos.data(), rows, negs.data(), neg_rows, learns_sigma(), g);
    }
    // last_gradient (= g) is the gradient before weight decay; the velocity takes g - decay W. The
    // next velocity and model go to buffers kept from the previous update (no 3 MB allocations
    // per update on a 784 x 500 model), swapped in when the update is accepted. W's gradient (from
    // the products' sums G / rows), velocity, step and check in one pass over column blocks.
    const double lr = learning_rate_at(t), mu = options.momentum, decay = options.weight_decay;
    ParamGrad& v = next_velocity;
    Model& next = next_model;
    copy_all_but_weights(model, next);
    const Mat& W = weights_of(model);
    WeightCheck checked;
    Mat* v_W = mu == 0.0 ? nullptr : &v.W;  // see step_weights
    if (products) {
        // g = G / rows from the products' sums (column-major as W; update_products.cpp), formed
        // block by block and not stored (materialize_gradient writes it when asked).
        checked = step_weights(W, update_G.data(), options.float32, 1.0 / static_cast<double>(rows), velocity.W, v_W,
                               weights_of(next), lr, mu, decay);
    } else {
        checked = step_weights(W, g.W.data(), false, 1.0, velocity.W, v_W, weights_of(next), lr, mu, decay);
    }
    gradient_pending = products;
    gradient_rows = rows;
    // Without v_W the velocity's W is this step's lr (g - decay W) with W the model before it:
    // `model` until the update is accepted, then next_model (swapped below; kept until the next
    // update writes it). A rejected update leaves it this update's, as last_gradient is.
    velocity_pending = v_W == nullptr;
    velocity_lr = lr;
    velocity_decay = decay;
    velocity_base_is_model = true;
    v.b.noalias() = mu * velocity.b + lr * g.b;
    v.c.noalias() = mu * velocity.c + lr * g.c;
    if (learns_sigma()) v.log_sigma.noalias() = mu * velocity.log_sigma + lr * g.log_sigma;
    else v.log_sigma = velocity.log_sigma;
    std::visit(
        [&](auto& p) {
            if constexpr (!std::is_same_v<std::decay_t<decltype(p)>, Gaussian>) {
                p.b += v.b;
                p.c += v.c;
                if constexpr (std::is_same_v<std::decay_t<decltype(p)>, Grbm>)
                    if (v.log_sigma.size() > 0) p.sigma = (p.sigma.array().log() + v.log_sigma.array()).exp().matrix();
            }
        },
        next.params);
    bool active = false;
    if (Leaky* l = next.as<Leaky>()) {
        if (options.projection) {
            active = l->project(projection_limit);
            if (active) checked = check_weights(l->W);
        } else if (std::string bad = invalid_parameters(next, checked); bad.empty()) {
            const double s = l->max_singular_value();
            if (!(s < 1.0)) {
                std::ostringstream os;
                os.precision(6);
                os << "the largest singular value of W reached " << s
                   << " >= 1, so I - W W' is not positive definite and the leaky RBM has no normalizer (Li et al. "
                      "Theorem 1); train with the projection step (drop --no-projection)";
                diverge(os.str());
                return;
            }
        }
    }
    if (const std::string bad = invalid_parameters(next, checked); !bad.empty()) {
        diverge(bad + "; lower the learning rate");
        return;
    }
    std::swap(model, next);
    std::swap(velocity, v);
    velocity_base_is_model = false;
    if (options.kind == ModelKind::Leaky) projected.push_back(active ? 1 : 0);
    projections_since += active ? 1 : 0;
    const std::vector<double> acc = sampler->last_acceptance();
    if (!acc.empty()) {
        if (acceptance_sum.size() != acc.size()) acceptance_sum.assign(acc.size(), 0.0);
        for (std::size_t k = 0; k < acc.size(); ++k) acceptance_sum[k] += acc[k];
        ++acceptance_updates;
    }
    ++done;
}

// ---------------- Trainer ----------------
Trainer::Trainer(const TrainOptions& options, Dataset data) : impl_(std::make_unique<Impl>(options, std::move(data))) {}
Trainer::Trainer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Trainer::~Trainer() = default;
Trainer::Trainer(Trainer&&) noexcept = default;
Trainer& Trainer::operator=(Trainer&&) noexcept = default;

TrainStatus Trainer::step(Index n, const std::atomic<bool>* cancel) {
    Impl& s = *impl_;
    if (s.status == TrainStatus::Diverged) return s.status;
    if (s.status == TrainStatus::Cancelled) s.status = TrainStatus::Running;
    if (s.done >= s.options.updates) {
        s.status = TrainStatus::Finished;
        if (s.log.empty() || s.log.back().update != s.done) s.log.push_back(s.record());
        return s.status;
    }
    using Clock = std::chrono::steady_clock;
    // The monitor runs between updates, off their clock: its time is kept apart (monitor_seconds).
    auto take_record = [&s] {
        const auto start = Clock::now();
        TrainRecord r = s.record();
        s.monitor_seconds += std::chrono::duration<double>(Clock::now() - start).count();
        return r;
    };
    if (s.log.empty()) s.log.push_back(take_record());
    for (Index i = 0; i < n && s.done < s.options.updates; ++i) {
        // With an exchange the flag only travels with the update; all parts obey the agreed stop below.
        if (!s.exchange && cancel && cancel->load()) {
            s.status = TrainStatus::Cancelled;
            return s.status;
        }
        const auto start = Clock::now();
        s.one_update(cancel && cancel->load());
        s.seconds += std::chrono::duration<double>(Clock::now() - start).count();
        if (s.status == TrainStatus::Diverged) return s.status;
        const bool due =
            (s.options.monitor_every > 0 && s.done % s.options.monitor_every == 0) || s.done == s.options.updates;
        if (due) {
            TrainRecord r = take_record();
            s.log.push_back(r);
            if (r.log_likelihood_method == "exact" && !std::isfinite(r.log_likelihood)) {
                s.status = TrainStatus::Diverged;
                s.message =
                    "training diverged at update " + std::to_string(s.done) + ": the log-likelihood is not finite";
                return s.status;
            }
        }
        if (s.exchange && s.stop_agreed && s.done < s.options.updates) {
            s.status = TrainStatus::Cancelled;
            return s.status;
        }
    }
    if (s.done >= s.options.updates) s.status = TrainStatus::Finished;
    return s.status;
}

TrainStatus Trainer::status() const { return impl_->status; }
const std::string& Trainer::message() const { return impl_->message; }
Index Trainer::updates_done() const { return impl_->done; }
double Trainer::update_seconds() const { return impl_->seconds; }
double Trainer::monitor_seconds() const { return impl_->monitor_seconds; }
const TrainOptions& Trainer::options() const { return impl_->options; }
const Dataset& Trainer::data() const { return impl_->data; }
double Trainer::projection_limit() const { return impl_->projection_limit; }
Model Trainer::model() const { return impl_->model; }
const std::vector<TrainRecord>& Trainer::log() const { return impl_->log; }
const std::vector<std::uint8_t>& Trainer::projection_active() const { return impl_->projected; }
RowMat Trainer::negative_samples() const { return impl_->sampler->states(); }
const ParamGrad& Trainer::last_gradient() const {
    impl_->materialize_gradient();
    return impl_->last_gradient;
}

void Trainer::Impl::materialize_velocity() {
    if (!velocity_pending) return;
    materialize_gradient();
    const Mat& before = weights_of(velocity_base_is_model ? model : next_model);
    velocity.W = velocity_lr * (last_gradient.W - velocity_decay * before);  // as step_weights forms it
    velocity_pending = false;
}

void Trainer::Impl::materialize_gradient() {
    if (!gradient_pending) return;
    const Index n = model.n_visible(), m = model.n_hidden();
    const double inv_rows = 1.0 / static_cast<double>(gradient_rows);
    last_gradient.W.resize(n, m);
    with_update_sums(options.float32, update_G, [&](const auto* G) {
        using S = std::remove_const_t<std::remove_pointer_t<decltype(G)>>;
        last_gradient.W =
            Eigen::Map<const Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>>(G, n, m).template cast<double>() *
            inv_rows;
    });
    gradient_pending = false;
}
void Trainer::set_test_data(const RowMat& rows) {
    if (rows.rows() > 0 && rows.cols() != impl_->data.dim())
        throw InputError("the held-out rows have " + std::to_string(rows.cols()) + " values each, the model " +
                         std::to_string(impl_->data.dim()) + " visible units");
    const Index cap = impl_->options.monitor_examples;
    impl_->test_rows = cap > 0 && rows.rows() > cap ? RowMat(rows.topRows(cap)) : rows;
}

TrainRecord Trainer::evaluate() {
    Impl& s = *impl_;  // an extra record must not consume the counters of the next scheduled one
    const std::vector<double> acc = s.acceptance_sum;
    const Index acc_updates = s.acceptance_updates, projections = s.projections_since;
    TrainRecord r = s.record();
    s.acceptance_sum = acc;
    s.acceptance_updates = acc_updates;
    s.projections_since = projections;
    return r;
}

void Trainer::set_exchange(PtExchange* exchange, bool allow_idle) {
    Impl& s = *impl_;
    if (exchange && exchange->parts() > 1 && !allow_idle) {
        const Index P = exchange->parts(), neg_rows = s.sampler->rows(s.options.batch),
                    tiles = gradient_tiles(neg_rows);
        if (P > tiles) {
            const bool chains = s.options.method != TrainMethod::Cd && s.options.method != TrainMethod::Mix;
            throw InputError("mpirun -np " + std::to_string(P) + ": more ranks than the " + std::to_string(tiles) +
                             " tile(s) of " + std::to_string(kGradientTile) + " rows the " + std::to_string(neg_rows) +
                             (chains ? " chains" : " batch rows") +
                             " of the negative phase make (each rank sums whole tiles); use at most " +
                             std::to_string(tiles) + " ranks or " + (chains ? "more --chains" : "a larger --batch"));
        }
    }
    if (exchange && exchange->parts() > 1 && is_tempered(s.options.method) &&
        exchange->parts() > s.options.temperatures + 1)
        throw InputError("mpirun -np " + std::to_string(exchange->parts()) + ": more ranks than the " +
                         std::to_string(s.options.temperatures + 1) +
                         " rungs of the ladder (each rank runs whole rungs); use at most " +
                         std::to_string(s.options.temperatures + 1) + " ranks or more --rungs");
    s.exchange = exchange && exchange->parts() > 1 ? exchange : nullptr;
    s.sampler->set_exchange(s.exchange);
    s.stop_agreed = false;
}

void Trainer::share_states() {
    Impl& s = *impl_;
    if (!s.exchange) return;
    const Index neg_rows = s.sampler->rows(s.options.batch);
    const auto [t0, t1] = s.share_of(gradient_tiles(neg_rows));
    s.sampler->share(*s.exchange, t0 * kGradientTile, std::min(neg_rows, t1 * kGradientTile));
}

std::uint64_t Trainer::values_shared() const { return impl_->values_shared; }

std::vector<Index> Trainer::idle_parts(Index parts) const {
    const Impl& s = *impl_;
    const Index pos = gradient_tiles(std::min(s.options.batch, s.data.size())),
                neg = gradient_tiles(s.sampler->rows(s.options.batch));
    const bool whole =
        s.options.method == TrainMethod::Leaky || s.options.method == TrainMethod::Mix;  // sampler on every part
    std::vector<Index> idle;
    for (Index q = 0; q < parts && !whole; ++q)
        if ((q + 1) * pos / parts == q * pos / parts && (q + 1) * neg / parts == q * neg / parts) idle.push_back(q);
    return idle;
}

void Trainer::set_total_updates(Index updates) {
    if (updates < impl_->done)
        throw InputError("--updates " + std::to_string(updates) + " is less than the " + std::to_string(impl_->done) +
                         " updates already done");
    impl_->options.updates = updates;
    if (impl_->status == TrainStatus::Finished && updates > impl_->done) impl_->status = TrainStatus::Running;
}

}  // namespace rbm
