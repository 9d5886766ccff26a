#include "core/ais/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

#include "core/numerics/memory_budget.hpp"
#include "core/numerics/parallel.hpp"
#include "core/numerics/scalar.hpp"

namespace rbm {

Index ais_block_size(Index dim) {
    // One block should stay well under ~20 ms on big models (so cancel is prompt) and hold
    // enough chains to reuse each panel of W from cache: 64 chains up to 1024 units, fewer above.
    return std::clamp<Index>(65536 / std::max<Index>(1, dim), 8, kChainBlock);
}

namespace {

bool is_share(const AisOptions& o) { return o.chain_end > 0; }

// The forward estimate of a run that reached step `done` of `steps` (of all o.chains chains).
AisEstimate forward_estimate(const Vec& lw, double log_z0, const AisOptions& o, Index done, Index steps) {
    EstimateOptions eo;
    eo.seed = o.seed;
    eo.bootstrap_resamples = o.bootstrap_resamples;
    // A cancelled run must return promptly: cap the bootstrap at ~2e6 draws (a few ms).
    if (done < steps)
        eo.bootstrap_resamples =
            static_cast<int>(std::min<Index>(o.bootstrap_resamples, std::max<Index>(20, 2'000'000 / o.chains)));
    eo.histogram_bins = o.histogram_bins;
    return estimate_log_z(lw, log_z0, eo);
}

void reverse_summary(ReverseAisResult& rev, double log_z0, const AisOptions& o) {
    EstimateOptions eo;
    eo.seed = o.seed ^ 0x5245564552534555ull;  // bootstrap streams apart from the forward ones
    eo.bootstrap_resamples = o.bootstrap_resamples;
    eo.histogram_bins = o.histogram_bins;
    const AisEstimate e = estimate_log_z(rev.log_weights, 0.0, eo);
    rev.log_z_upper = log_z0 - e.log_z;
    rev.ci95_low = log_z0 - e.ci95_high;
    rev.ci95_high = log_z0 - e.ci95_low;
    rev.ess = e.ess;
    rev.ess_fraction = e.ess_fraction;
    rev.log_w_mean = e.log_w_mean;
    rev.log_w_var = e.log_w_var;
}

// The streams of chains [first, first + n) of the whole run: element r is chain first + r, keyed
// (seed, purpose, chain index) exactly as ChainRngs keys chain first + r of a whole run.
ChainRngs chain_streams(std::uint64_t seed, Index n, StreamPurpose purpose, Index first) {
    ChainRngs rngs(seed, n, purpose);
    if (first != 0)
        for (Index r = 0; r < n; ++r)
            rngs[r].reset(seed, (static_cast<std::uint64_t>(purpose) << 48) + static_cast<std::uint64_t>(first + r));
    return rngs;
}

using Clock = std::chrono::steady_clock;

class Runner {
public:
    Runner(const AnnealingPath& path, const Schedule& betas, const AisOptions& opt, const AisControl& ctl)
        : path_(path), betas_(betas), opt_(opt), ctl_(ctl),
          n_(is_share(opt) ? opt.chain_end - opt.chain_begin : opt.chains), first_(is_share(opt) ? opt.chain_begin : 0),
          k_(static_cast<Index>(betas.size()) - 1), block_(opt.block > 0 ? opt.block : ais_block_size(path.dim())),
          start_(Clock::now()), last_progress_(start_) {
        const int c = std::max(1, opt.checkpoints);
        for (int i = 1; i <= c; ++i) {
            const Index step = std::max<Index>(1, (static_cast<Index>(i) * k_ + c - 1) / c);
            if (checkpoint_steps_.empty() || checkpoint_steps_.back() != step) checkpoint_steps_.push_back(step);
        }
        if (checkpoint_steps_.back() != k_) checkpoint_steps_.push_back(k_);
    }

    AisResult run() {
        AisResult res;
        res.steps = k_;
        res.perfect = opt_.perfect;
        res.path_name = path_.name();
        res.kernel = opt_.perfect ? "exact draws (perfect transitions)" : path_.kernel_name();
        res.notes = path_.notes();
        res.log_z0 = path_.log_z0();
        res.cost_functional = opt_.cost_functional ? path_.cost_functional() : std::numeric_limits<double>::quiet_NaN();
        log_z0_ = res.log_z0;

        forward(res);
        res.complete = res.steps_done == k_;
        if (opt_.reverse && res.complete) {
            res.reverse = reverse();
            res.complete = res.reverse->complete;
        }
        res.seconds = elapsed();
        res.chain_sweeps_per_s = res.seconds > 0 ? static_cast<double>(sweeps_) / res.seconds : 0.0;
        return res;
    }

private:
    bool cancelled() const {
        if (ctl_.agree_stop) return agreed_stop_;
        return ctl_.cancel && ctl_.cancel->load(std::memory_order_relaxed);
    }

    double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count() - paused_s_; }

    // False when cancelled while waiting. on_hold reports the state the run holds in a pause.
    bool wait_turn(const std::function<void()>& on_hold) {
        if (ctl_.agree_stop) {
            agreed_stop_ = ctl_.agree_stop(ctl_.cancel && ctl_.cancel->load(std::memory_order_relaxed));
            return !agreed_stop_;
        }
        if (ctl_.gate) {
            const double before = ctl_.gate->waited_s.load();
            const bool go = ctl_.gate->before_unit(ctl_.cancel, on_hold);
            paused_s_ += ctl_.gate->waited_s.load() - before;
            return go;
        }
        wait_while_paused();
        return !cancelled();
    }

    void wait_while_paused() {
        if (!ctl_.pause) return;
        const auto t0 = Clock::now();
        bool waited = false;
        while (ctl_.pause->load(std::memory_order_relaxed) && !cancelled()) {
            waited = true;
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        if (waited) paused_s_ += std::chrono::duration<double>(Clock::now() - t0).count();
    }

    // One annealing step from `from` to `to` for every chain. Returns false (and leaves lw as
    // it was) when cancelled part way; X may then be partly advanced.
    bool step(double from, double to, RowMat& X, Vec& lw, ChainRngs& rngs) {
        lw_prev_ = lw;
        std::atomic<bool> aborted{false};
        for_each_block(
            n_,
            [&](Index b, Index e) {
                if (aborted.load(std::memory_order_relaxed)) return;
                if (cancelled()) {
                    aborted.store(true, std::memory_order_relaxed);
                    return;
                }
                if (opt_.perfect) {
                    path_.log_f(to, X, b, e, fa_);
                    path_.log_f(from, X, b, e, fb_);
                    for (Index r = b; r < e; ++r) lw(r) += fa_(r) - fb_(r);
                    path_.sample_exact(to, X, b, e, rngs);
                } else {
                    path_.advance(from, to, X, b, e, lw, rngs);
                }
            },
            block_);
        if (aborted.load()) {
            lw = lw_prev_;
            return false;
        }
        sweeps_ += n_;
        return true;
    }

    RowMat particles(const RowMat& X) const {
        const Index rows = std::min(opt_.snapshot_chains, n_);
        return X.topRows(rows).leftCols(path_.visible_dim());
    }

    void progress(AisPhase phase, Index step, double beta, const RowMat& X, const Vec& lw, bool at_checkpoint,
                  bool force, bool held = false) {
        if (!ctl_.on_progress) return;
        const auto now = Clock::now();
        const bool due = std::chrono::duration<double>(now - last_progress_).count() >= opt_.progress_interval_s;
        if (!(due || at_checkpoint || force)) return;
        last_progress_ = now;
        AisSnapshot s;
        s.phase = phase;
        s.step = step;
        s.steps = k_;
        s.beta = beta;
        const double total = static_cast<double>(k_) * (opt_.reverse ? 2.0 : 1.0);
        s.fraction = (phase == AisPhase::Forward ? static_cast<double>(step) : static_cast<double>(k_ + step)) / total;
        s.elapsed_s = elapsed();
        s.chain_sweeps_per_s = s.elapsed_s > 0 ? static_cast<double>(sweeps_) / s.elapsed_s : 0.0;
        s.at_checkpoint = at_checkpoint;
        s.held = held;
        s.running = running_;
        const double lme = log_mean_exp(lw);
        s.log_z = phase == AisPhase::Forward ? log_z0_ + lme : log_z0_ - lme;
        s.ess = effective_sample_size(lw);
        s.ess_fraction = s.ess / static_cast<double>(n_);
        s.log_w_mean = lw.mean();
        s.particles = particles(X);
        ctl_.on_progress(s);
    }

    void prepare(RowMat& X) {
        X.resize(n_, path_.dim());
        fa_.resize(n_);
        fb_.resize(n_);
    }

    void forward(AisResult& res) {
        ChainRngs rngs = chain_streams(opt_.seed, n_, StreamPurpose::Chains, first_);
        RowMat X;
        prepare(X);
        for_each_block(
            n_, [&](Index b, Index e) { path_.sample_base(X, b, e, rngs); }, block_);
        Vec lw = Vec::Zero(n_);
        Index done = 0;
        std::size_t next_cp = 0;
        for (Index k = 1; k <= k_; ++k) {
            const auto hold = [&] { progress(AisPhase::Forward, k - 1, betas_[k - 1], X, lw, false, true, true); };
            if (!wait_turn(hold) || !step(betas_[k - 1], betas_[k], X, lw, rngs)) break;
            if (ctl_.gate) ctl_.gate->after_unit();
            done = k;
            const bool cp = next_cp < checkpoint_steps_.size() && checkpoint_steps_[next_cp] == k;
            if (cp) {
                ++next_cp;
                running_.push_back({betas_[k], log_z0_ + log_mean_exp(lw), effective_sample_size(lw)});
                if (is_share(opt_) && k < k_) res.running_log_weights.push_back(lw);  // at k_: log_weights
            }
            progress(AisPhase::Forward, k, betas_[k], X, lw, cp, k == k_);
        }
        res.steps_done = done;
        res.beta_reached = betas_[done];
        res.running = running_;
        res.particles = particles(X);
        if (!is_share(opt_)) res.estimate = forward_estimate(lw, log_z0_, opt_, done, k_);
        res.log_weights = std::move(lw);
    }

    ReverseAisResult reverse() {
        ReverseAisResult rev;
        ChainRngs rngs = chain_streams(opt_.seed, n_, StreamPurpose::Misc, first_);
        RowMat X;
        prepare(X);
        if (opt_.reverse_states.rows() > 0) {
            // Given target states (PT samples, data rows): chain first_ + r starts at row first_ + r.
            for_each_block(
                n_, [&](Index b, Index e) { path_.set_visible(X, b, e, opt_.reverse_states, first_ + b); }, block_);
        } else {
            for_each_block(
                n_, [&](Index b, Index e) { path_.sample_exact(1.0, X, b, e, rngs); }, block_);
        }
        Vec lw = Vec::Zero(n_);
        Index done = 0;
        for (Index k = k_; k >= 1; --k) {
            const auto hold = [&] { progress(AisPhase::Reverse, k_ - k, betas_[k], X, lw, false, true, true); };
            if (!wait_turn(hold) || !step(betas_[k], betas_[k - 1], X, lw, rngs)) break;
            if (ctl_.gate) ctl_.gate->after_unit();
            done = k_ - k + 1;
            progress(AisPhase::Reverse, done, betas_[k - 1], X, lw, false, k == 1);
        }
        rev.steps_done = done;
        rev.beta_reached = betas_[k_ - done];
        rev.complete = done == k_;
        rev.log_weights = std::move(lw);
        if (rev.complete && !is_share(opt_)) reverse_summary(rev, log_z0_, opt_);
        return rev;
    }

    const AnnealingPath& path_;
    const Schedule& betas_;
    const AisOptions& opt_;
    const AisControl& ctl_;
    Index n_, first_, k_, block_;
    Clock::time_point start_, last_progress_;
    double paused_s_ = 0;
    bool agreed_stop_ = false;  // with ctl_.agree_stop: the processes agreed to stop
    double log_z0_ = 0;
    std::int64_t sweeps_ = 0;
    std::vector<Index> checkpoint_steps_;
    std::vector<RunningPoint> running_;
    Vec lw_prev_, fa_, fb_;
};

}  // namespace

double ais_run_bytes(Index chains, Index dim) {
    return static_cast<double>(chains) * (8.0 * (static_cast<double>(dim) + 6) + sizeof(Rng));
}

void check_ais_memory(Index chains, Index dim) {
    check_memory_budget(ais_run_bytes(chains, dim),
                        "AIS with " + std::to_string(chains) + " chains of " + std::to_string(dim) + " values");
}

AisResult run_ais(const AnnealingPath& path, const Schedule& schedule, const AisOptions& options,
                  const AisControl& control) {
    validate_schedule(schedule);
    if (options.chains < 1) throw InputError("AIS needs at least one chain, got " + std::to_string(options.chains));
    if (options.snapshot_chains < 0) throw InputError("snapshot_chains must be >= 0");
    if (is_share(options) &&
        !(options.chain_begin >= 0 && options.chain_begin < options.chain_end && options.chain_end <= options.chains))
        throw InputError("chain range [" + std::to_string(options.chain_begin) + ", " +
                         std::to_string(options.chain_end) + ") is not a nonempty part of the " +
                         std::to_string(options.chains) + " chains");
    check_ais_memory(is_share(options) ? options.chain_end - options.chain_begin : options.chains, path.dim());
    const bool given_reverse = options.reverse_states.rows() > 0;
    if (given_reverse && (options.reverse_states.rows() != options.chains ||
                          options.reverse_states.cols() != path.visible_dim() || !options.reverse_states.allFinite()))
        throw InputError("reverse AIS start states must be " + std::to_string(options.chains) + " x " +
                         std::to_string(path.visible_dim()) + " finite values (one row per chain), got " +
                         std::to_string(options.reverse_states.rows()) + " x " +
                         std::to_string(options.reverse_states.cols()));
    if ((options.perfect || (options.reverse && !given_reverse)) && !path.can_sample_exactly())
        throw InputError(std::string(options.perfect ? "perfect transitions" : "reverse AIS") +
                         " need exact samples from " +
                         (options.perfect ? "every intermediate distribution" : "the target") + ", which the " +
                         path.name() + " path cannot draw (model too large to enumerate, or no exact sampler)");
    return Runner(path, schedule, options, control).run();
}

void summarize_ais(AisResult& r, const AisOptions& o) {
    const auto n = static_cast<Index>(o.chains);
    auto check = [&](const Vec& v, const char* what) {
        if (v.size() != n)
            throw InputError(std::string("summarize_ais: ") + what + " has " + std::to_string(v.size()) +
                             " chains, expected " + std::to_string(n));
    };
    check(r.log_weights, "log_weights");
    r.estimate = forward_estimate(r.log_weights, r.log_z0, o, r.steps_done, r.steps);
    for (std::size_t i = 0; i < r.running.size(); ++i) {
        const Vec& lw = i < r.running_log_weights.size() ? r.running_log_weights[i] : r.log_weights;
        check(lw, "running_log_weights");
        r.running[i].log_z = r.log_z0 + log_mean_exp(lw);
        r.running[i].ess = effective_sample_size(lw);
    }
    if (r.reverse && r.reverse->complete) {
        check(r.reverse->log_weights, "reverse log_weights");
        reverse_summary(*r.reverse, r.log_z0, o);
    }
}

}  // namespace rbm
