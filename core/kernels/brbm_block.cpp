// The fused BRBM step (kernels/brbm_block.hpp), compiled once per instruction set into namespace
// rbm::detail::RBMSCOPE_SIMD_NS (kernels/simd.hpp).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <tuple>
#include <type_traits>

#include "core/kernels/active_lists.hpp"
#include "core/kernels/kernel_table.hpp"
#include "core/kernels/line_aligned.hpp"
#include "core/kernels/panels.hpp"
#include "core/kernels/vector_math.hpp"

namespace rbm::detail::inline RBMSCOPE_SIMD_NS {

namespace {

template <class S>
struct Scratch;

template <class S>
class BrbmStep final : public BlockStep {
public:
    BrbmStep(const Brbm& m, const Vec& base_bias);
    void step(double beta_prev, double beta, RowMat& X, Index begin, Index end, Vec* lw,
              ChainRngs& rngs) const override;
    void sweep(double beta, const double* row_beta, RowMat& X, Index begin, Index end, ChainRngs& rngs,
               const SweepOutputs& out) const override;
    bool hidden_sums(const double* const* rows, Index count, bool float32, void* out, Index ld) const override;

private:
    void run(double beta_prev, double beta, const double* row_beta, RowMat& X, Index begin, Index end, Vec* lw,
             const SweepOutputs& out, ChainRngs& rngs, bool is_sweep) const;
    // lambda = c + W'v of `count` 0/1 rows into out + r ld, row r at row_of(r) (its units that are
    // on listed in s.vis_idx / s.vis_off); a null row is not summed (lambda = c, an empty list).
    template <class RowOf>
    void sum_hidden(RowOf row_of, Index count, S* out, Index ld, Scratch<S>& s) const;
    void potentials(Index g, const S* act, Index ldv, const int* on_idx, const int* on_off, const int* hid_idx,
                    const int* hid_off, double* pot) const;

    RowPanels<S> w_, wt_;      // rows of W (visible units), rows of W' (hidden units)
    std::vector<S> c_, zero_;  // padded hidden bias, padded zeros
    Vec a_, b_, c_d_;          // c_d_: c in double, for the potential
    Vec ba_;                   // b - a, for the potential
};

// Rows whose swap potentials are summed together (BrbmStep::potentials).
constexpr int kPotentialRows = 4;

// Per-thread buffers, so a step allocates nothing once they have grown.
template <class S>
struct Scratch {
    LineVector<int> vis_idx, vis_off, hid_idx, hid_off, on_idx, on_off;
    LineVector<S> lambda, act, bias, y, e;
    LineVector<double> x, e1, e0, inc;
    LineVector<std::uint32_t> words;
    LineVector<unsigned char> on;
};
template <class S>
Scratch<S>& scratch() {
    thread_local Scratch<S> s;
    return s;
}

template <class S>
BrbmStep<S>::BrbmStep(const Brbm& m, const Vec& base_bias) : a_(base_bias), b_(m.b), c_d_(m.c), ba_(m.b - base_bias) {
    std::tie(w_, wt_) = RowPanels<S>::of_matrix_and_transpose(m.W);
    c_.assign(static_cast<std::size_t>(w_.padded_cols()), S(0));
    for (Index j = 0; j < m.n_hidden(); ++j) c_[static_cast<std::size_t>(j)] = static_cast<S>(m.c(j));
    zero_.assign(static_cast<std::size_t>(wt_.padded_cols()), S(0));
}

template <class S>
void BrbmStep<S>::step(double beta_prev, double beta, RowMat& X, Index begin, Index end, Vec* lw,
                       ChainRngs& rngs) const {
    run(beta_prev, beta, nullptr, X, begin, end, lw, {}, rngs, false);
}

template <class S>
void BrbmStep<S>::sweep(double beta, const double* row_beta, RowMat& X, Index begin, Index end, ChainRngs& rngs,
                        const SweepOutputs& out) const {
    run(beta, beta, row_beta, X, begin, end, nullptr, out, rngs, true);
}

template <class S>
bool BrbmStep<S>::hidden_sums(const double* const* rows, Index count, bool float32, void* out, Index ld) const {
    if (float32 != (sizeof(S) == 4) || ld < w_.padded_cols()) return false;
    if (count > 0) sum_hidden([rows](Index r) { return rows[r]; }, count, static_cast<S*>(out), ld, scratch<S>());
    return true;
}

template <class S>
template <class RowOf>
void BrbmStep<S>::sum_hidden(RowOf row_of, Index count, S* out, Index ld, Scratch<S>& s) const {
    const Index n = w_.rows();
    s.vis_idx.resize(static_cast<std::size_t>(count * n));
    s.vis_off.resize(static_cast<std::size_t>(count + 1));
    int* idx = s.vis_idx.data();
    int* off = s.vis_off.data();
    off[0] = 0;
    for (Index r = 0; r < count; ++r) {
        const double* row = row_of(r);
        off[r + 1] = row ? append_nonzero(row, n, idx, off[r]) : off[r];
    }
    w_.sum_rows(idx, off, count, c_.data(), out, ld);
}

template <class S>
void BrbmStep<S>::run(double beta_prev, double beta, const double* row_beta, RowMat& X, Index begin, Index end, Vec* lw,
                      const SweepOutputs& out, ChainRngs& rngs, bool is_sweep) const {
    const Index rows = end - begin, n = w_.rows(), m = w_.cols();
    const Index ldh = w_.padded_cols(), ldv = wt_.padded_cols();
    Scratch<S>& s = scratch<S>();
    s.hid_idx.resize(static_cast<std::size_t>(rows * m));
    s.hid_off.resize(static_cast<std::size_t>(rows + 1));
    s.lambda.resize(static_cast<std::size_t>(rows * ldh));
    s.e.resize(static_cast<std::size_t>(std::max(n, m)));  // the float hidden draw's exps, then the visible ones
    s.act.resize(static_cast<std::size_t>(rows * ldv));
    for (auto* v : {&s.x, &s.e1, &s.e0, &s.inc}) v->resize(static_cast<std::size_t>(m));
    const bool float_draw = std::is_same_v<S, float> && is_sweep;
    s.words.resize(static_cast<std::size_t>(rows * std::max(n, m)));
    s.on.resize(static_cast<std::size_t>(std::max(n, m)));
    if (out.potential) {
        s.on_idx.resize(static_cast<std::size_t>(kPotentialRows * n));
        s.on_off.resize(static_cast<std::size_t>(kPotentialRows + 1));
    }
    auto beta_of = [&](Index r) { return row_beta ? row_beta[r] : beta; };

    // lambda over the active visible units. A sweep's row at beta = 0 draws every hidden unit with
    // probability 1/2 (e1 = 1 below, whatever lambda), so its lambda is not summed. Not so when the
    // sums are wanted (an AIS increment, SweepOutputs::hidden_sums). One row in 16 on the bench's
    // PT ladder.
    const bool skip_cold = is_sweep && !out.hidden_sums && row_beta;
    sum_hidden([&](Index r) { return skip_cold && row_beta[r] == 0.0 ? nullptr : &X(begin + r, 0); }, rows,
               s.lambda.data(), ldh, s);
    // The active units' part of the increment, (beta - beta')(b - a)'v.
    const double d = beta - beta_prev;
    const int* vis_idx = s.vis_idx.data();
    const int* vis_off = s.vis_off.data();
    if (lw)
        for (Index r = 0; r < rows; ++r) {
            double lin = 0;
            for (int t = vis_off[r]; t < vis_off[r + 1]; ++t) lin += b_(vis_idx[t]) - a_(vis_idx[t]);
            (*lw)(begin + r) += d * lin;
        }
    if (out.hidden_sums)
        for (Index r = 0; r < rows; ++r)
            std::memcpy(static_cast<S*>(out.hidden_sums) + (begin + r) * out.hidden_sums_ld, s.lambda.data() + r * ldh,
                        sizeof(S) * static_cast<std::size_t>(m));

    // Hidden layer: the increment sum_j softplus(beta x_j) - softplus(beta' x_j) (softplus_step)
    // shares e1 = exp(-beta|x|) with the hidden draw, in double. A float sweep draws in float, as
    // its visible layer does (twice the lanes, a degree-6 exp: the double one was a twelfth of a
    // float32 PT scan); a float step stays in double, so that step(beta, beta) without an increment
    // moves the chains exactly as with one (AnnealingPath::advance is the increment, then
    // transition).
    double* x = s.x.data();
    double* e1 = s.e1.data();
    double* e0 = s.e0.data();
    double* inc = s.inc.data();
    unsigned char* on = s.on.data();
    // Each chain's m words for its hidden draws, all rows at once (kernels/philox_rows.cpp).
    detail::fill_rows_u32(rngs, begin, rows, static_cast<std::size_t>(m), s.words.data());
    int* hid_idx = s.hid_idx.data();
    int* hid_off = s.hid_off.data();
    hid_off[0] = 0;
    for (Index r = 0; r < rows; ++r) {
        const double br = beta_of(r);
        const std::uint32_t* words = s.words.data() + r * m;
        const S* lam = s.lambda.data() + r * ldh;
        if (float_draw) {
            if constexpr (std::is_same_v<S, float>) {
                S* eh = s.e.data();  // free until the visible layer
                const S bt = static_cast<S>(br);
                for (Index j = 0; j < m; ++j) eh[j] = exp_nonpositive(-bt * std::fabs(lam[j]));
                for (Index j = 0; j < m; ++j) on[j] = bernoulli_sigmoid(unit_from_word_f(words[j]), lam[j], eh[j]);
            }
        } else {
            for (Index j = 0; j < m; ++j) x[j] = static_cast<double>(lam[j]);
            for (Index j = 0; j < m; ++j) e1[j] = exp_nonpositive(-br * std::fabs(x[j]));
            if (lw) {
                for (Index j = 0; j < m; ++j) e0[j] = exp_nonpositive(-beta_prev * std::fabs(x[j]));
                for (Index j = 0; j < m; ++j) inc[j] = softplus_step(x[j], beta_prev, beta, e1[j], e0[j]);
                double acc = 0;
                for (Index j = 0; j < m; ++j) acc += inc[j];
                (*lw)(begin + r) += acc;
            }
            for (Index j = 0; j < m; ++j) on[j] = bernoulli_sigmoid(unit_from_word(words[j]), x[j], e1[j]);
        }
        hid_off[r + 1] = append_set(on, m, hid_idx, hid_off[r]);
        if (out.hidden)
            for (Index j = 0; j < m; ++j) (*out.hidden)(begin + r, j) = on[j];
    }
    wt_.sum_rows(s.hid_idx.data(), s.hid_off.data(), rows, zero_.data(), s.act.data(), ldv);

    // Visible layer: y = beta W h + (1-beta) a + beta b, in S; the bias is recomputed only where the
    // row's beta changes.
    s.bias.resize(static_cast<std::size_t>(n));
    s.y.resize(static_cast<std::size_t>(n));
    S* bias = s.bias.data();
    S* y = s.y.data();
    S* e = s.e.data();
    double bias_beta = std::nan("");
    if (out.potential) s.on_off[0] = 0;
    Index group = 0;  // first row whose potential is still to come
    detail::fill_rows_u32(rngs, begin, rows, static_cast<std::size_t>(n), s.words.data());
    for (Index r = 0; r < rows; ++r) {
        const double br = beta_of(r);
        if (!(br == bias_beta)) {
            for (Index i = 0; i < n; ++i) bias[i] = static_cast<S>((1.0 - br) * a_(i) + br * b_(i));
            bias_beta = br;
        }
        const S bt = static_cast<S>(br);
        const std::uint32_t* words = s.words.data() + r * n;
        const S* u = s.act.data() + r * ldv;
        for (Index i = 0; i < n; ++i) y[i] = bt * u[i] + bias[i];
        for (Index i = 0; i < n; ++i) e[i] = exp_nonpositive(-std::fabs(y[i]));
        if constexpr (sizeof(S) == 4) {
            for (Index i = 0; i < n; ++i) on[i] = bernoulli_sigmoid(unit_from_word_f(words[i]), y[i], e[i]);
        } else {
            for (Index i = 0; i < n; ++i) on[i] = bernoulli_sigmoid(unit_from_word(words[i]), y[i], e[i]);
        }
        for (Index i = 0; i < n; ++i) X(begin + r, i) = on[i];
        if (out.means)  // sigmoid(y) = 1/(1+e) for y >= 0, e/(1+e) below
            for (Index i = 0; i < n; ++i)
                (*out.means)(begin + r, i) =
                    (y[i] >= S(0) ? 1.0 : static_cast<double>(e[i])) / (1.0 + static_cast<double>(e[i]));
        // The potential from lists of on units (a branch on each unit, on with probability about
        // 1/2 near beta = 0, cost PT a sixth of its time), kPotentialRows rows' lists at a time.
        if (out.potential) {
            const Index q = r - group;
            s.on_off[q + 1] = append_set(on, n, s.on_idx.data(), s.on_off[q]);
            if (q + 1 == kPotentialRows || r + 1 == rows) {
                potentials(q + 1, s.act.data() + group * ldv, ldv, s.on_idx.data(), s.on_off.data(), hid_idx,
                           hid_off + group, out.potential->data() + begin + group);
                group = r + 1;
            }
        }
    }
}

// V(v, h) = v'W h + (b - a)'v + c'h of rows [0, g), g <= kPotentialRows, over the units that are
// on (u = W h is row r of act), each sum added in increasing unit order. A row's sums are chains of
// dependent adds, bound by the adder's latency, so the rows go together: the same additions in the
// same order per row, several chains in flight (a sixteenth of a PT scan went to waiting on them).
template <class S>
void BrbmStep<S>::potentials(Index g, const S* act, Index ldv, const int* on_idx, const int* on_off, const int* hid_idx,
                             const int* hid_off, double* pot) const {
    constexpr int G = kPotentialRows;
    const double* ba = ba_.data();
    const double* c = c_d_.data();
    double vu[G] = {}, bv[G] = {}, ch[G] = {};
    const S* u[G] = {};
    const int* on[G] = {};
    const int* hid[G] = {};
    int n_on[G] = {}, n_hid[G] = {};
    for (Index q = 0; q < g; ++q) {
        u[q] = act + q * ldv;
        on[q] = on_idx + on_off[q];
        n_on[q] = on_off[q + 1] - on_off[q];
        hid[q] = hid_idx + hid_off[q];
        n_hid[q] = hid_off[q + 1] - hid_off[q];
    }
    // A full group adds its rows' common length together; every row's rest goes alone.
    if (g == G) {
        const int both = *std::min_element(n_on, n_on + G), hboth = *std::min_element(n_hid, n_hid + G);
        for (int t = 0; t < both; ++t)
            for (int q = 0; q < G; ++q) {
                const int i = on[q][t];
                vu[q] += static_cast<double>(u[q][i]);
                bv[q] += ba[i];
            }
        for (int t = 0; t < hboth; ++t)
            for (int q = 0; q < G; ++q) ch[q] += c[hid[q][t]];
        for (int q = 0; q < G; ++q) {
            on[q] += both;
            n_on[q] -= both;
            hid[q] += hboth;
            n_hid[q] -= hboth;
        }
    }
    for (Index q = 0; q < g; ++q) {
        for (int t = 0; t < n_on[q]; ++t) {
            vu[q] += static_cast<double>(u[q][on[q][t]]);
            bv[q] += ba[on[q][t]];
        }
        for (int t = 0; t < n_hid[q]; ++t) ch[q] += c[hid[q][t]];
        pot[q] = vu[q] + bv[q] + ch[q];
    }
}

}  // namespace

std::unique_ptr<BlockStep> make_brbm_float(const Brbm& m, const Vec& base_bias) {
    return std::make_unique<BrbmStep<float>>(m, base_bias);
}
std::unique_ptr<BlockStep> make_brbm_double(const Brbm& m, const Vec& base_bias) {
    return std::make_unique<BrbmStep<double>>(m, base_bias);
}

}  // namespace rbm::detail::inline RBMSCOPE_SIMD_NS
