// The Trainer: initial parameters, one update (batch, negative phase, gradient, momentum, weight
// decay, projection, divergence checks) and the step loop.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <vector>

#include "core/tempering/pt.hpp"
#include "core/training/column_blocks.hpp"
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

// Adds `step` to the parameters of `m`.
void apply(Model& m, const ParamGrad& step) {
    std::visit(
        [&](auto& p) {
            using T = std::decay_t<decltype(p)>;
            if constexpr (std::is_same_v<T, Gaussian>) {
                throw InputError("gaussian models are not trained");
            } else {
                on_column_blocks(p.W.cols(),
                                 [&](Index j0, Index w) { p.W.middleCols(j0, w) += step.W.middleCols(j0, w); });
                p.b += step.b;
                p.c += step.c;
                if constexpr (std::is_same_v<T, Grbm>)
                    if (step.log_sigma.size() > 0)
                        p.sigma = (p.sigma.array().log() + step.log_sigma.array()).exp().matrix();
            }
        },
        m.params);
}

// Empty when every parameter is finite and in range, else what went wrong.
std::string invalid_parameters(const Model& m) {
    std::ostringstream os;
    std::visit(
        [&](const auto& p) {
            using T = std::decay_t<decltype(p)>;
            if constexpr (!std::is_same_v<T, Gaussian>) {
                // W's column blocks checked on the threads (a pass over W at every update).
                const Index blocks = (p.W.cols() + kColumnBlock - 1) / kColumnBlock;
                std::vector<char> finite(static_cast<std::size_t>(blocks), 1);
                std::vector<double> largest(static_cast<std::size_t>(blocks), 0.0);
                on_column_blocks(p.W.cols(), [&](Index j0, Index w) {
                    const auto block = p.W.middleCols(j0, w);
                    const std::size_t k = static_cast<std::size_t>(j0 / kColumnBlock);
                    finite[k] = block.allFinite();
                    if (finite[k] && block.size() > 0) largest[k] = block.cwiseAbs().maxCoeff();
                });
                const bool w_finite = std::all_of(finite.begin(), finite.end(), [](char f) { return f != 0; });
                const double w_largest = largest.empty() ? 0.0 : *std::max_element(largest.begin(), largest.end());
                if (!w_finite) os << "W has a non-finite entry";
                else if (!p.b.allFinite()) os << "b has a non-finite entry";
                else if (!p.c.allFinite()) os << "c has a non-finite entry";
                else if (w_largest > 1e6) os << "|W| exceeds 1e6";
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
    RowMat batch;
    if (options.method == TrainMethod::Cd || options.method == TrainMethod::Mix) {
        batch.resize(rows, data.dim());
        for (Index r = 0; r < rows; ++r) batch.row(r) = data.X.row(batch_rows[r]);
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
    if (!exchange) {
        if (!failed.empty()) return diverge(failed);
        // The tile sums go to buffers kept from the previous update (resize to the same size zeroes
        // nothing); the batch's and the negatives' tiles in one parallel pass (64 + 36 rows each on
        // 2 threads left one waiting twice per update).
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
    // per update on a 784 x 500 model), swapped in when the update is accepted.
    const double lr = learning_rate_at(t), mu = options.momentum, decay = options.weight_decay;
    ParamGrad& v = next_velocity;
    std::visit(
        [&](const auto& p) {
            v.W.resize(g.W.rows(), g.W.cols());
            on_column_blocks(g.W.cols(), [&](Index j0, Index w) {
                if constexpr (!std::is_same_v<std::decay_t<decltype(p)>, Gaussian>)
                    v.W.middleCols(j0, w).noalias() = mu * velocity.W.middleCols(j0, w) +
                                                      lr * (g.W.middleCols(j0, w) - decay * p.W.middleCols(j0, w));
                else v.W.middleCols(j0, w).noalias() = mu * velocity.W.middleCols(j0, w) + lr * g.W.middleCols(j0, w);
            });
        },
        model.params);
    v.b.noalias() = mu * velocity.b + lr * g.b;
    v.c.noalias() = mu * velocity.c + lr * g.c;
    if (learns_sigma()) v.log_sigma.noalias() = mu * velocity.log_sigma + lr * g.log_sigma;
    else v.log_sigma = velocity.log_sigma;
    Model& next = next_model;
    next = model;
    apply(next, v);
    bool active = false;
    if (Leaky* l = next.as<Leaky>()) {
        if (options.projection) {
            active = l->project(projection_limit);
        } else if (std::string bad = invalid_parameters(next); bad.empty()) {
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
    if (const std::string bad = invalid_parameters(next); !bad.empty()) {
        diverge(bad + "; lower the learning rate");
        return;
    }
    std::swap(model, next);
    std::swap(velocity, v);
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
const ParamGrad& Trainer::last_gradient() const { return impl_->last_gradient; }
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
