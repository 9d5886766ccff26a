#include "core/ais/estimates.hpp"

#include <cstdio>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "core/kernels/philox_rows.hpp"
#include "core/numerics/parallel.hpp"
#include "core/numerics/scalar.hpp"
#include "core/random/rng.hpp"

namespace rbm {

namespace {

void require_weights(const Vec& log_w) {
    if (log_w.size() == 0) throw InputError("no AIS weights to estimate from (zero chains)");
    for (Index i = 0; i < log_w.size(); ++i)
        if (!std::isfinite(log_w(i))) {
            std::ostringstream os;
            os << "AIS log weight of chain " << i << " is " << log_w(i)
               << ": the annealing overflowed (model parameters or schedule out of range)";
            throw InputError(os.str());
        }
}

// Type-7 quantile of sorted values.
double quantile_sorted(const std::vector<double>& v, double q) {
    const double pos = q * static_cast<double>(v.size() - 1);
    const std::size_t i = static_cast<std::size_t>(std::floor(pos));
    if (i + 1 >= v.size()) return v.back();
    const double f = pos - static_cast<double>(i);
    return v[i] + f * (v[i + 1] - v[i]);
}

}  // namespace

double log_mean_exp_weights(const Vec& log_w) { return log_mean_exp(log_w); }

double effective_sample_size(const Vec& log_w) {
    if (log_w.size() == 0) return 0.0;
    // N / (1 + s^2(w*)) with s^2 = (1/N) sum (w*_i - 1)^2 = N sum w^2 / (sum w)^2 - 1.
    const double lse = log_sum_exp(log_w);
    const double lse2 = log_sum_exp(Vec(2.0 * log_w));
    return std::exp(2.0 * lse - lse2);
}

SigmaBounds sigma_bounds(const Vec& log_w, double log_z0, double k) {
    const Index n = log_w.size();
    const double mx = log_w.maxCoeff();
    const Vec u = (log_w.array() - mx).exp().matrix();  // w / max w, in (0, 1]
    const double mean = u.mean();
    double sd = 0;
    if (n > 1) sd = std::sqrt((u.array() - mean).square().sum() / static_cast<double>(n - 1));
    const double half = k * sd / std::sqrt(static_cast<double>(n));
    SigmaBounds b;
    b.high = std::log(mean + half) + mx + log_z0;
    if (mean - half > 0) b.low = std::log(mean - half) + mx + log_z0;
    return b;
}

std::vector<double> bootstrap_replicates(const Vec& log_w, std::uint64_t seed, int resamples) {
    if (resamples < 2) throw InputError("the bootstrap needs at least 2 resamples, got " + std::to_string(resamples));
    const Index n = log_w.size();
    const double mx = log_w.maxCoeff();
    const Vec u = (log_w.array() - mx).exp().matrix();
    ChainRngs rngs(seed, resamples, StreamPurpose::Bootstrap);
    std::vector<double> rep(static_cast<std::size_t>(resamples));
    const double dn = static_cast<double>(n);
    // Each pick takes two words of its resample's stream (Rng::uniform). They are drawn for the
    // block's resamples together, kPicks at a time, by the dispatched block Philox (in
    // the 2-D toys' runs the bootstrap's scalar Philox was 39 % of the instructions); the words,
    // and so the picks, are exactly those of rng.uniform() called pick by pick.
    constexpr std::size_t kPicks = 512;
    for_each_block(
        resamples,
        [&](Index begin, Index end) {
            const Index rows = end - begin;
            std::vector<double> sums(static_cast<std::size_t>(rows), 0.0);
            std::vector<std::uint32_t> words(static_cast<std::size_t>(rows) * 2 * kPicks);
            for (Index first = 0; first < n; first += static_cast<Index>(kPicks)) {
                const std::size_t count =
                    static_cast<std::size_t>(std::min<Index>(static_cast<Index>(kPicks), n - first));
                fill_rows_u32(rngs, begin, rows, 2 * count, words.data());
                for (Index r = 0; r < rows; ++r) {
                    const std::uint32_t* w = words.data() + static_cast<std::size_t>(r) * 2 * count;
                    double s = sums[static_cast<std::size_t>(r)];
                    for (std::size_t k = 0; k < count; ++k) {
                        // Rng::below(n) without its 64-bit modulo (a division, ~40 cycles, per pick):
                        // floor(uniform * n) is at most n, and below maps n to 0.
                        Index i = static_cast<Index>(Rng::uniform_of(w[2 * k], w[2 * k + 1]) * dn);
                        i -= static_cast<Index>(i == n) * n;
                        s += u(i);
                    }
                    sums[static_cast<std::size_t>(r)] = s;
                }
            }
            for (Index r = 0; r < rows; ++r) {
                const Index j = begin + r;
                const double s = sums[static_cast<std::size_t>(r)];
                if (s > 1e-250) {
                    rep[static_cast<std::size_t>(j)] = mx + std::log(s / static_cast<double>(n));
                    continue;
                }
                // The resample missed every chain near the overall maximum and their u underflowed
                // (log weights spread over more than ~575 nats): shift by this resample's own maximum.
                // Its picks are drawn again from a fresh copy of its stream (rare; keeps memory O(n)).
                std::vector<Index> pick(static_cast<std::size_t>(n));
                ChainRngs fresh(seed, j, 1, StreamPurpose::Bootstrap);
                Rng& rng = fresh[0];
                for (auto& i : pick) {
                    i = static_cast<Index>(rng.uniform() * dn);
                    i -= static_cast<Index>(i == n) * n;
                }
                double m = log_w(pick[0]);
                for (Index i : pick) m = std::max(m, log_w(i));
                double t = 0;
                for (Index i : pick) t += std::exp(log_w(i) - m);
                rep[static_cast<std::size_t>(j)] = m + std::log(t / static_cast<double>(n));
            }
        },
        8);
    return rep;
}

BootstrapInterval bootstrap_log_mean_exp(const Vec& log_w, std::uint64_t seed, int resamples, double level) {
    if (!(level > 0 && level < 1)) throw InputError("the bootstrap level must be in (0, 1)");
    std::vector<double> rep = bootstrap_replicates(log_w, seed, resamples);
    double mean = 0;
    for (double x : rep) mean += x;
    mean /= resamples;
    double var = 0;
    for (double x : rep) var += (x - mean) * (x - mean);
    std::sort(rep.begin(), rep.end());
    BootstrapInterval out;
    out.low = quantile_sorted(rep, 0.5 * (1 - level));
    out.high = quantile_sorted(rep, 0.5 * (1 + level));
    out.sd = std::sqrt(var / (resamples - 1));
    return out;
}

Histogram log_weight_histogram(const Vec& log_w, int bins) {
    if (bins < 1) throw InputError("the log-weight histogram needs at least one bin");
    Histogram h;
    h.counts.assign(static_cast<std::size_t>(bins), 0);
    if (log_w.size() == 0) return h;
    // The range of the finite log weights; a zero weight (log w = -inf) counts in the lowest bin.
    // (Taking the range over all of them made the bin of every weight NaN when one was -inf.)
    h.lo = std::numeric_limits<double>::infinity();
    h.hi = -h.lo;
    for (Index i = 0; i < log_w.size(); ++i)
        if (std::isfinite(log_w(i))) {
            h.lo = std::min(h.lo, log_w(i));
            h.hi = std::max(h.hi, log_w(i));
        }
    if (!(h.lo <= h.hi)) h.lo = h.hi = 0;  // no finite weight
    if (!(h.hi > h.lo)) {
        h.lo -= 0.5;
        h.hi += 0.5;
    }
    const double width = (h.hi - h.lo) / bins;
    for (Index i = 0; i < log_w.size(); ++i) {
        const double at = (log_w(i) - h.lo) / width;
        const long long b = !(at > 0) ? 0 : at >= bins ? bins - 1 : static_cast<long long>(std::floor(at));
        ++h.counts[static_cast<std::size_t>(b)];
    }
    return h;
}

AisEstimate estimate_log_z(const Vec& log_w, double log_z0, const EstimateOptions& opts) {
    require_weights(log_w);
    AisEstimate e;
    e.n = log_w.size();
    e.log_z0 = log_z0;
    e.log_z = log_z0 + log_mean_exp(log_w);
    const SigmaBounds b = sigma_bounds(log_w, log_z0, opts.sigma_k);
    e.log_z_high = b.high;
    e.log_z_low = b.low;
    const BootstrapInterval ci = bootstrap_log_mean_exp(log_w, opts.seed, opts.bootstrap_resamples);
    e.ci95_low = ci.low + log_z0;
    e.ci95_high = ci.high + log_z0;
    e.bootstrap_sd = ci.sd;
    e.bootstrap_resamples = opts.bootstrap_resamples;
    e.ess = effective_sample_size(log_w);
    e.ess_fraction = e.ess / static_cast<double>(e.n);
    e.log_w_mean = log_w.mean();
    e.log_w_var = e.n > 1 ? (log_w.array() - e.log_w_mean).square().sum() / static_cast<double>(e.n - 1) : 0.0;
    e.histogram = log_weight_histogram(log_w, opts.histogram_bins);
    return e;
}

std::string ess_warning(double ess, const std::string& what) {
    if (!(ess < kReliableEss)) return {};
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f", ess);
    return "the 95% interval of " + what + " is unreliable: ESS = " + buf +
           " is under 30 (too few weights carry the estimate: such intervals miss the exact value more often than 95%, "
           "mostly low)";
}

}  // namespace rbm
