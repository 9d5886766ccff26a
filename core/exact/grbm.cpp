// Exact GRBM answers (docs/methods/models.md#grbm-hidden-marginal): integrate v out and enumerate h in X^m under
//   p(h) ∝ exp(B.h + h'Jh/2),  log Z = sum_i log(sqrt(2 pi) sigma_i) + logsumexp_h [B.h + h'Jh/2].
#include <algorithm>
#include <sstream>

#include "core/exact/enumeration.hpp"
#include "core/numerics/scalar.hpp"

namespace rbm {
namespace exact_detail {
namespace {

// log weights of one chunk without an O(m^2) product per configuration: with h = (h_lo, h_hi)
//   B.h + h'Jh/2 = q_lo + h_lo.(J_lh h_hi) + B_hi.h_hi + h_hi'J_hh h_hi/2,
// where q_lo = B_lo.h_lo + h_lo'J_ll h_lo/2 is tabulated once for the low part.
struct HiddenMarginal {
    ConfigSpace space;
    Vec B;
    Mat J;
    Vec q_lo;

    explicit HiddenMarginal(const Grbm& m)
        : space(m.hidden_values, m.n_hidden()), B(m.hidden_marginal_field()), J(m.hidden_marginal_coupling()) {
        const Index lo = space.low_units();
        const RowMat& L = space.low();
        const RowMat LJ = L * J.topLeftCorner(lo, lo);
        q_lo = L * B.head(lo) + 0.5 * (LJ.array() * L.array()).rowwise().sum().matrix();
    }
    void log_weights(Index chunk, Vec& lw) const {
        lw = q_lo;
        const Index lo = space.low_units(), hi = space.high_units();
        if (hi == 0) return;
        const Vec hh = space.high(chunk);
        const double k = B.tail(hi).dot(hh) + 0.5 * hh.dot(J.bottomRightCorner(hi, hi) * hh);
        lw.noalias() += space.low() * (J.topRightCorner(lo, hi) * hh);
        lw.array() += k;
    }
};

// sum_i log(sqrt(2 pi) sigma_i): the Gaussian integral over v for every h.
double visible_log_const(const Grbm& m) {
    return m.sigma.array().log().sum() + 0.5 * kLog2Pi * static_cast<double>(m.n_visible());
}

double hidden_log_total(const Grbm& m, const ExactOptions& opts) {
    require_size(grbm_enumeration_size(m), opts);
    const HiddenMarginal hm(m);
    return reduce_chunks(
               hm.space.chunks(), LogTotal{},
               [&](Index c, LogTotal& acc) {
                   Vec lw;
                   hm.log_weights(c, lw);
                   acc.add(lw);
               },
               opts.cancel)
        .value();
}

// Keeps (configuration index, log p(h)) of the configurations above a threshold.
struct HeavyList {
    std::vector<std::pair<Index, double>> items;
    void merge(const HeavyList& o) { items.insert(items.end(), o.items.begin(), o.items.end()); }
};

}  // namespace

EnumerationSize grbm_enumeration_size(const Grbm& m) {
    const std::size_t r = m.hidden_values.size();
    EnumerationSize s;
    s.configurations = std::pow(static_cast<double>(r), static_cast<double>(m.n_hidden()));
    std::ostringstream os;
    os << power_text(r, m.n_hidden()) << " hidden configurations";
    if (!m.binary01()) {
        // At most 8 values: the text goes into one-line messages (a 100 000-value list made 1 MB lines).
        constexpr std::size_t kShown = 8;
        os << " (hidden values {";
        for (std::size_t k = 0; k < std::min(r, kShown); ++k) os << (k ? ", " : "") << m.hidden_values[k];
        if (r > kShown) os << ", ... (" << r << " values)";
        os << "})";
    }
    s.what = os.str();
    return s;
}

double grbm_log_z(const Grbm& m, const ExactOptions& opts) { return visible_log_const(m) + hidden_log_total(m, opts); }

HiddenMoments grbm_hidden_moments(const Grbm& m, const ExactOptions& opts) {
    require_size(grbm_enumeration_size(m), opts);
    const HiddenMarginal hm(m);
    const ConfigMomentSums s = reduce_chunks(
        hm.space.chunks(), ConfigMomentSums(hm.space),
        [&](Index c, ConfigMomentSums& acc) {
            Vec lw;
            hm.log_weights(c, lw);
            acc.add(hm.space, c, lw);
        },
        opts.cancel);
    HiddenMoments out;
    s.finish(hm.space, out.mean, out.cov);
    return out;
}

// E[v] = b + sigma∘(W E[h]);  Cov v = diag(sigma^2) + diag(sigma) W Cov(h) W' diag(sigma).
Moments grbm_visible_moments(const Grbm& m, const ExactOptions& opts) {
    const HiddenMoments h = grbm_hidden_moments(m, opts);
    Moments out;
    out.mean = m.b + m.sigma.cwiseProduct(m.W * h.mean);
    const Mat SW = m.sigma.asDiagonal() * m.W;
    out.cov = SW * h.cov * SW.transpose();
    out.cov.diagonal() += m.sigma.cwiseAbs2();
    out.cov = 0.5 * (out.cov + out.cov.transpose());
    return out;
}

// h from p(h) by the cumulative table, then v | h ~ N(b + sigma∘(W h), sigma^2).
RowMat grbm_samples(const Grbm& m, Index count, std::uint64_t seed, const ExactOptions& opts) {
    require_size(grbm_enumeration_size(m), opts);
    const Index n = m.n_visible();
    RowMat V(count, n);
    if (count == 0) return V;
    const HiddenMarginal hm(m);
    const ConfigTable table = make_config_table(
        hm.space, [&](Index c, Vec& lw) { hm.log_weights(c, lw); }, opts.cancel);
    ChainRngs rngs(seed, count, StreamPurpose::Exact);
    for_each_block(count, [&](Index begin, Index end) {
        for (Index r = begin; r < end; ++r) {
            Rng& rng = rngs[r];
            const Vec u = m.W * hm.space.config(table.draw(rng.uniform()));
            for (Index i = 0; i < n; ++i) V(r, i) = m.b(i) + m.sigma(i) * (u(i) + rng.normal());
        }
    });
    return V;
}

std::vector<std::pair<Vec, double>> grbm_heavy_configs(const Grbm& m, double min_probability,
                                                       const ExactOptions& opts) {
    const double log_z = hidden_log_total(m, opts);
    const double threshold = std::log(min_probability) + log_z;
    const HiddenMarginal hm(m);
    const Index S = hm.space.chunk_size();
    HeavyList heavy = reduce_chunks(
        hm.space.chunks(), HeavyList{},
        [&](Index c, HeavyList& acc) {
            Vec lw;
            hm.log_weights(c, lw);
            for (Index t = 0; t < S; ++t)
                if (lw(t) >= threshold) acc.items.emplace_back(c * S + t, lw(t) - log_z);
        },
        opts.cancel);
    std::stable_sort(heavy.items.begin(), heavy.items.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    std::vector<std::pair<Vec, double>> out;
    for (const auto& [index, lp] : heavy.items) out.emplace_back(hm.space.config(index), std::exp(lp));
    return out;
}

}  // namespace exact_detail

double grbm_hidden_log_z(const Grbm& m, const ExactOptions& opts) { return exact_detail::hidden_log_total(m, opts); }

}  // namespace rbm
