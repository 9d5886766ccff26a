// Exact BRBM answers (docs/methods/models.md#brbm): enumerate one layer (the smaller one unless told otherwise)
// and sum the other out analytically.
#include "core/exact/enumeration.hpp"
#include "core/numerics/scalar.hpp"

namespace rbm {
namespace exact_detail {
namespace {

// The enumerated layer x (K units, bias e) and the other layer y (L units, bias f), coupled by
// x'Ay:  log p*(x) = e.x + sum_l softplus(f_l + (A'x)_l),  p(y_l = 1 | x) = sigm(f_l + (A'x)_l).
// With x = (x_lo, x_hi) the pre-activations of a chunk are (x_lo A_lo), tabulated once, plus a
// row shift f + A_hi' x_hi.
struct Layers {
    ConfigSpace space;
    Vec e, f;
    Mat A;
    RowMat LA;  // chunk_size x L
    Vec q_lo;   // e_lo . x_lo

    static Index chunk_for(Index other_units) {
        return std::clamp<Index>((Index(1) << 20) / std::max<Index>(other_units, 1), 16, 4096);
    }
    Layers(const Brbm& m, bool visible)
        : space({0.0, 1.0}, visible ? m.n_visible() : m.n_hidden(), chunk_for(visible ? m.n_hidden() : m.n_visible())),
          e(visible ? m.b : m.c), f(visible ? m.c : m.b), A(visible ? m.W : Mat(m.W.transpose())) {
        const Index lo = space.low_units();
        LA = space.low() * A.topRows(lo);
        q_lo = space.low() * e.head(lo);
    }
    Index other_units() const { return A.cols(); }

    void chunk(Index c, Vec& lw, RowMat& P) const {
        const Index hi = space.high_units(), S = space.chunk_size();
        Eigen::RowVectorXd shift = f.transpose();
        double k = 0;
        if (hi > 0) {
            const Vec xh = space.high(c);
            shift.noalias() += xh.transpose() * A.bottomRows(hi);
            k = e.tail(hi).dot(xh);
        }
        P = LA;
        P.rowwise() += shift;
        lw.resize(S);
        for (Index t = 0; t < S; ++t) {
            double s = q_lo(t) + k;
            for (Index l = 0; l < P.cols(); ++l) s += softplus(P(t, l));
            lw(t) = s;
        }
    }
};

// Moments of the summed-out layer: E[y] = E[s], E[yy'] = E[ss'] + diag(E[s(1-s)]), s = sigm(P).
struct OtherLayerSums {
    WeightedSums means, variances;
    explicit OtherLayerSums(Index L) : means(L, true), variances(L, false) {}
    void merge(const OtherLayerSums& o) {
        means.merge(o.means);
        variances.merge(o.variances);
    }
};

}  // namespace

bool brbm_enumerates_visible(const Brbm& m, const ExactOptions& opts) {
    switch (opts.brbm_layer) {
        case ExactOptions::Layer::Visible: return true;
        case ExactOptions::Layer::Hidden: return false;
        case ExactOptions::Layer::Auto: break;
    }
    return m.n_visible() < m.n_hidden();
}

EnumerationSize brbm_enumeration_size(const Brbm& m, const ExactOptions& opts) {
    const bool visible = brbm_enumerates_visible(m, opts);
    const Index k = visible ? m.n_visible() : m.n_hidden();
    return {std::pow(2.0, static_cast<double>(k)),
            power_text(2, k) + (visible ? " visible configurations" : " hidden configurations")};
}

double brbm_log_z(const Brbm& m, const ExactOptions& opts) {
    require_size(brbm_enumeration_size(m, opts), opts);
    const Layers lay(m, brbm_enumerates_visible(m, opts));
    return reduce_chunks(
               lay.space.chunks(), LogTotal{},
               [&](Index c, LogTotal& acc) {
                   Vec lw;
                   RowMat P;
                   lay.chunk(c, lw, P);
                   acc.add(lw);
               },
               opts.cancel)
        .value();
}

Moments brbm_layer_moments(const Brbm& m, bool visible, const ExactOptions& opts) {
    require_size(brbm_enumeration_size(m, opts), opts);
    const bool enum_visible = brbm_enumerates_visible(m, opts);
    const Layers lay(m, enum_visible);
    if (visible == enum_visible) {
        const ConfigMomentSums s = reduce_chunks(
            lay.space.chunks(), ConfigMomentSums(lay.space),
            [&](Index c, ConfigMomentSums& acc) {
                Vec lw;
                RowMat P;
                lay.chunk(c, lw, P);
                acc.add(lay.space, c, lw);
            },
            opts.cancel);
        Moments out;
        s.finish(lay.space, out.mean, out.cov);
        return out;
    }
    const Index L = lay.other_units();
    const OtherLayerSums s = reduce_chunks(
        lay.space.chunks(), OtherLayerSums(L),
        [&](Index c, OtherLayerSums& acc) {
            Vec lw;
            RowMat P;
            lay.chunk(c, lw, P);
            const RowMat S = P.unaryExpr([](double a) { return sigmoid(a); });
            const RowMat D = (S.array() * (1.0 - S.array())).matrix();
            acc.means.add(lw, S);
            acc.variances.add(lw, D);
        },
        opts.cancel);
    Moments out;
    out.mean = s.means.mean();
    out.cov = s.means.second_moment() - out.mean * out.mean.transpose();
    out.cov.diagonal() += s.variances.mean();
    out.cov = 0.5 * (out.cov + out.cov.transpose());
    return out;
}

// The enumerated layer from its marginal by the cumulative table; v | h ~ Bernoulli(sigm(b + W h)).
RowMat brbm_samples(const Brbm& m, Index count, std::uint64_t seed, const ExactOptions& opts) {
    require_size(brbm_enumeration_size(m, opts), opts);
    const Index n = m.n_visible();
    RowMat V(count, n);
    if (count == 0) return V;
    const bool enum_visible = brbm_enumerates_visible(m, opts);
    const Layers lay(m, enum_visible);
    const ConfigTable table = make_config_table(
        lay.space,
        [&](Index c, Vec& lw) {
            RowMat P;
            lay.chunk(c, lw, P);
        },
        opts.cancel);
    ChainRngs rngs(seed, count, StreamPurpose::Exact);
    for_each_block(count, [&](Index begin, Index end) {
        for (Index r = begin; r < end; ++r) {
            Rng& rng = rngs[r];
            const Vec x = lay.space.config(table.draw(rng.uniform()));
            if (enum_visible) {
                V.row(r) = x.transpose();
                continue;
            }
            const Vec a = m.b + m.W * x;
            for (Index i = 0; i < n; ++i) V(r, i) = rng.uniform() < sigmoid(a(i)) ? 1.0 : 0.0;
        }
    });
    return V;
}

}  // namespace exact_detail
}  // namespace rbm
