#pragma once
// Private to core/exact/*.cpp: the machinery every enumeration shares (configuration
// chunks, overflow-free weighted sums, deterministic parallel reduction, the sampling table)
// and the per-kind entry points that exact.cpp dispatches to.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/exact/exact.hpp"
#include "core/numerics/parallel.hpp"

namespace rbm::exact_detail {

// All configurations of `units` units with values in `values`, in mixed-radix order (unit 0 is
// the fastest digit), cut into chunks of |values|^low_units() consecutive configurations: a
// chunk fixes the high units and runs over every setting of the low ones, so the low part is
// tabulated once. The cut depends only on the sizes, never on the thread count.
class ConfigSpace {
public:
    ConfigSpace(std::vector<double> values, Index units, Index max_chunk = 4096)
        : values_(std::move(values)), units_(units) {
        const auto r = static_cast<Index>(values_.size());
        low_units_ = 0;
        chunk_size_ = 1;
        while (low_units_ < units_ && chunk_size_ * r <= std::max<Index>(max_chunk, r)) {
            chunk_size_ *= r;
            ++low_units_;
        }
        chunks_ = 1;
        for (Index j = low_units_; j < units_; ++j) {
            if (chunks_ > (Index(1) << 40) / r) throw InputError("enumeration too large");
            chunks_ *= r;
        }
        low_.resize(chunk_size_, low_units_);
        for (Index t = 0; t < chunk_size_; ++t) {
            Index rest = t;
            for (Index j = 0; j < low_units_; ++j) {
                low_(t, j) = values_[static_cast<std::size_t>(rest % r)];
                rest /= r;
            }
        }
    }

    Index units() const { return units_; }
    Index low_units() const { return low_units_; }
    Index high_units() const { return units_ - low_units_; }
    Index chunk_size() const { return chunk_size_; }
    Index chunks() const { return chunks_; }
    Index size() const { return chunks_ * chunk_size_; }
    // chunk_size x low_units: the low units of every configuration of a chunk, in order.
    const RowMat& low() const { return low_; }
    // The high units (low_units .. units-1) of a chunk.
    Vec high(Index chunk) const { return digits(chunk, high_units()); }
    // Every configuration of a chunk: chunk_size x units.
    void configs(Index chunk, RowMat& H) const {
        H.resize(chunk_size_, units_);
        H.leftCols(low_units_) = low_;
        if (high_units() > 0) H.rightCols(high_units()).rowwise() = high(chunk).transpose();
    }
    // Configuration number `index` of the enumeration order.
    Vec config(Index index) const { return digits(index, units_); }

private:
    Vec digits(Index index, Index count) const {
        const auto r = static_cast<Index>(values_.size());
        Vec x(count);
        for (Index j = 0; j < count; ++j) {
            x(j) = values_[static_cast<std::size_t>(index % r)];
            index /= r;
        }
        return x;
    }

    std::vector<double> values_;
    Index units_ = 0, low_units_ = 0, chunk_size_ = 1, chunks_ = 1;
    RowMat low_;
};

// Sums over configurations weighted by w = exp(log_w), kept relative to a running maximum so
// nothing overflows: s0 = sum w, s1 = sum w x, s2 = sum w x x' (all times exp(-max)).
struct WeightedSums {
    double max = -std::numeric_limits<double>::infinity();
    double s0 = 0;
    Vec s1;
    Mat s2;
    bool second = true;

    WeightedSums(Index dim, bool with_second) : s1(Vec::Zero(dim)), second(with_second) {
        if (second) s2 = Mat::Zero(dim, dim);
    }
    // Rows of X are the features of the configurations whose log weights are log_w.
    void add(const Vec& log_w, const RowMat& X) {
        const double cm = log_w.size() ? log_w.maxCoeff() : max;
        if (!(cm > -std::numeric_limits<double>::infinity())) return;
        if (cm > max) rescale(cm);
        const Vec w = (log_w.array() - max).exp().matrix();
        s0 += w.sum();
        if (s1.size() == 0) return;
        s1.noalias() += X.transpose() * w;
        if (second) {
            const RowMat Xw = X.array().colwise() * w.array();
            s2.noalias() += X.transpose() * Xw;
        }
    }
    void merge(const WeightedSums& o) {
        if (o.s0 == 0) return;
        if (s0 == 0) {
            *this = o;
            return;
        }
        const double f = std::exp(o.max - std::max(max, o.max));
        if (o.max > max) rescale(o.max);
        s0 += f * o.s0;
        s1 += f * o.s1;
        if (second) s2 += f * o.s2;
    }
    double log_total() const { return max + std::log(s0); }
    Vec mean() const { return s1 / s0; }
    Mat second_moment() const { return s2 / s0; }
    Mat covariance() const {
        const Vec mu = mean();
        Mat c = second_moment() - mu * mu.transpose();
        return 0.5 * (c + c.transpose());
    }

private:
    void rescale(double new_max) {
        if (s0 != 0) {
            const double f = std::exp(max - new_max);
            s0 *= f;
            s1 *= f;
            if (second) s2 *= f;
        }
        max = new_max;
    }
};

// Weighted mean and second moment of the configurations themselves. Every chunk shares its
// low part L, so sum_c L' diag(w_c) L = L' diag(sum_c w_c) L: a chunk costs O(chunk_size x
// low_units), not O(chunk_size x units^2).
struct ConfigMomentSums {
    double max = -std::numeric_limits<double>::infinity();
    double s0 = 0;
    Vec w_lo;   // sum_c w_c, one entry per low configuration
    Mat lo_hi;  // sum_c (L' w_c) h_hi(c)'
    Vec hi1;    // sum_c (sum w_c) h_hi(c)
    Mat hi_hi;  // sum_c (sum w_c) h_hi(c) h_hi(c)'

    explicit ConfigMomentSums(const ConfigSpace& space)
        : w_lo(Vec::Zero(space.chunk_size())), lo_hi(Mat::Zero(space.low_units(), space.high_units())),
          hi1(Vec::Zero(space.high_units())), hi_hi(Mat::Zero(space.high_units(), space.high_units())) {}

    void add(const ConfigSpace& space, Index chunk, const Vec& log_w) {
        const double cm = log_w.maxCoeff();
        if (!(cm > -std::numeric_limits<double>::infinity())) return;
        if (cm > max) scale_to(cm);
        const Vec w = (log_w.array() - max).exp().matrix();
        const double sw = w.sum();
        s0 += sw;
        w_lo += w;
        if (space.high_units() == 0) return;
        const Vec hh = space.high(chunk);
        lo_hi.noalias() += (space.low().transpose() * w) * hh.transpose();
        hi1 += sw * hh;
        hi_hi.noalias() += sw * hh * hh.transpose();
    }
    void merge(const ConfigMomentSums& o) {
        if (o.s0 == 0) return;
        if (s0 == 0) {
            *this = o;
            return;
        }
        const double f = std::exp(o.max - std::max(max, o.max));
        if (o.max > max) scale_to(o.max);
        s0 += f * o.s0;
        w_lo += f * o.w_lo;
        lo_hi += f * o.lo_hi;
        hi1 += f * o.hi1;
        hi_hi += f * o.hi_hi;
    }
    void finish(const ConfigSpace& space, Vec& mean, Mat& cov) const {
        const Index lo = space.low_units(), hi = space.high_units();
        const RowMat& L = space.low();
        mean.resize(lo + hi);
        mean.head(lo) = L.transpose() * w_lo / s0;
        mean.tail(hi) = hi1 / s0;
        Mat second(lo + hi, lo + hi);
        second.topLeftCorner(lo, lo) = L.transpose() * w_lo.asDiagonal() * L / s0;
        second.topRightCorner(lo, hi) = lo_hi / s0;
        second.bottomLeftCorner(hi, lo) = lo_hi.transpose() / s0;
        second.bottomRightCorner(hi, hi) = hi_hi / s0;
        cov = second - mean * mean.transpose();
        cov = 0.5 * (cov + cov.transpose());
    }

private:
    void scale_to(double new_max) {
        if (s0 != 0) {
            const double f = std::exp(max - new_max);
            s0 *= f;
            w_lo *= f;
            lo_hi *= f;
            hi1 *= f;
            hi_hi *= f;
        }
        max = new_max;
    }
};

// log-sum-exp of chunks of log weights, mergeable in a fixed order.
struct LogTotal {
    double max = -std::numeric_limits<double>::infinity();
    double sum = 0;
    void add(const Vec& log_w) {
        WeightedSums w(0, false);
        w.add(log_w, RowMat());
        merge({w.max, w.s0});
    }
    void merge(const LogTotal& o) {
        if (o.sum == 0) return;
        if (sum == 0) {
            *this = o;
            return;
        }
        const double m = std::max(max, o.max);
        sum = sum * std::exp(max - m) + o.sum * std::exp(o.max - m);
        max = m;
    }
    double value() const { return sum == 0 ? -std::numeric_limits<double>::infinity() : max + std::log(sum); }
};

// f(chunk, acc) for every chunk; fixed groups of `group` chunks run in parallel, each into its
// own copy of `init`, and the groups are merged in order: the same result for any thread count.
// A raised *cancel (ExactOptions::cancel) throws Cancelled before the next chunk.
template <class Acc, class F>
Acc reduce_chunks(Index chunks, const Acc& init, F&& f, const std::atomic<bool>* cancel = nullptr, Index group = 4) {
    const Index blocks = (chunks + group - 1) / group;
    std::vector<Acc> part(static_cast<std::size_t>(blocks), init);
    for_each_block(
        chunks,
        [&](Index begin, Index end) {
            Acc& acc = part[static_cast<std::size_t>(begin / group)];
            for (Index c = begin; c < end; ++c) {
                if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
                f(c, acc);
            }
        },
        group);
    Acc out = init;
    for (const Acc& p : part) out.merge(p);
    return out;
}

// Cumulative distribution over every configuration (enumeration order), for exact draws by
// binary search. chunk_log_w(chunk, lw) fills the log weights of one chunk.
struct ConfigTable {
    std::vector<double> cdf;
    double log_z = 0;
    Index draw(double u) const {
        const auto it = std::upper_bound(cdf.begin(), cdf.end(), u * cdf.back());
        return std::min<Index>(static_cast<Index>(it - cdf.begin()), static_cast<Index>(cdf.size()) - 1);
    }
};
template <class F>
ConfigTable make_config_table(const ConfigSpace& space, F&& chunk_log_w, const std::atomic<bool>* cancel = nullptr) {
    ConfigTable t;
    t.cdf.resize(static_cast<std::size_t>(space.size()));
    const Index S = space.chunk_size();
    const LogTotal total = reduce_chunks(
        space.chunks(), LogTotal{},
        [&](Index c, LogTotal& acc) {
            Vec lw;
            chunk_log_w(c, lw);
            std::copy(lw.data(), lw.data() + S, t.cdf.begin() + c * S);
            acc.add(lw);
        },
        cancel);
    t.log_z = total.value();
    double acc = 0;
    for (double& x : t.cdf) {
        acc += std::exp(x - t.log_z);
        x = acc;
    }
    return t;
}

// "2^20" or "3^12"
inline std::string power_text(std::size_t base, Index exponent) {
    return std::to_string(base) + "^" + std::to_string(exponent);
}
// Throws the InputError of require_enumerable when `size` exceeds the limit.
void require_size(const EnumerationSize& size, const ExactOptions& opts);

// ---- per-kind entry points (exact.cpp dispatches to these) ----
EnumerationSize grbm_enumeration_size(const Grbm& m);
double grbm_log_z(const Grbm& m, const ExactOptions& opts);
HiddenMoments grbm_hidden_moments(const Grbm& m, const ExactOptions& opts);
Moments grbm_visible_moments(const Grbm& m, const ExactOptions& opts);
RowMat grbm_samples(const Grbm& m, Index count, std::uint64_t seed, const ExactOptions& opts);
// Hidden configurations with p(h) >= min_probability, heaviest first, with their probabilities.
std::vector<std::pair<Vec, double>> grbm_heavy_configs(const Grbm& m, double min_probability, const ExactOptions& opts);

// Which layer a BRBM enumeration runs over (opts.brbm_layer, or the smaller one).
bool brbm_enumerates_visible(const Brbm& m, const ExactOptions& opts);
EnumerationSize brbm_enumeration_size(const Brbm& m, const ExactOptions& opts);
double brbm_log_z(const Brbm& m, const ExactOptions& opts);
// Mean and covariance of the visible (visible = true) or hidden layer.
Moments brbm_layer_moments(const Brbm& m, bool visible, const ExactOptions& opts);
RowMat brbm_samples(const Brbm& m, Index count, std::uint64_t seed, const ExactOptions& opts);

bool leaky_has_exact_log_z(const Leaky& m);
double leaky_log_z(const Leaky& m);  // closed forms or quadrature; InputError otherwise
Moments leaky_visible_moments(const Leaky& m);
RowMat leaky_samples(const Leaky& m, Index count, std::uint64_t seed);

}  // namespace rbm::exact_detail
