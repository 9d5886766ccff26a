// The fused BRBM step (kernels/brbm_block.hpp), compiled once per instruction set into namespace
// rbm::detail::RBMSCOPE_SIMD_NS (kernels/simd.hpp).
#include <cmath>
#include <cstring>
#include <memory>
#include <tuple>

#include "core/kernels/active_lists.hpp"
#include "core/kernels/kernel_table.hpp"
#include "core/kernels/line_aligned.hpp"
#include "core/kernels/panels.hpp"
#include "core/kernels/vector_math.hpp"

namespace rbm::detail::inline RBMSCOPE_SIMD_NS {

namespace {

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
             const SweepOutputs& out, ChainRngs& rngs) const;

    RowPanels<S> w_, wt_;      // rows of W (visible units), rows of W' (hidden units)
    std::vector<S> c_, zero_;  // padded hidden bias, padded zeros
    Vec a_, b_, c_d_;          // c_d_: c in double, for the potential
    Vec ba_;                   // b - a, for the potential
};

// Per-thread buffers, so a step allocates nothing once they have grown.
template <class S>
struct Scratch {
    LineVector<int> vis_idx, vis_off, hid_idx, hid_off, on_idx;
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
    run(beta_prev, beta, nullptr, X, begin, end, lw, {}, rngs);
}

template <class S>
void BrbmStep<S>::sweep(double beta, const double* row_beta, RowMat& X, Index begin, Index end, ChainRngs& rngs,
                        const SweepOutputs& out) const {
    run(beta, beta, row_beta, X, begin, end, nullptr, out, rngs);
}

template <class S>
bool BrbmStep<S>::hidden_sums(const double* const* rows, Index count, bool float32, void* out, Index ld) const {
    if (float32 != (sizeof(S) == 4) || ld < w_.padded_cols()) return false;
    if (count == 0) return true;
    Scratch<S>& s = scratch<S>();
    const Index n = w_.rows();
    s.vis_idx.resize(static_cast<std::size_t>(count * n));
    s.vis_off.resize(static_cast<std::size_t>(count + 1));
    s.vis_off[0] = 0;
    for (Index r = 0; r < count; ++r)
        s.vis_off[static_cast<std::size_t>(r + 1)] =
            append_nonzero(rows[r], n, s.vis_idx.data(), s.vis_off[static_cast<std::size_t>(r)]);
    w_.sum_rows(s.vis_idx.data(), s.vis_off.data(), count, c_.data(), static_cast<S*>(out), ld);
    return true;
}

template <class S>
void BrbmStep<S>::run(double beta_prev, double beta, const double* row_beta, RowMat& X, Index begin, Index end, Vec* lw,
                      const SweepOutputs& out, ChainRngs& rngs) const {
    const Index rows = end - begin, n = w_.rows(), m = w_.cols();
    const Index ldh = w_.padded_cols(), ldv = wt_.padded_cols();
    Scratch<S>& s = scratch<S>();
    s.vis_idx.resize(static_cast<std::size_t>(rows * n));
    s.vis_off.resize(static_cast<std::size_t>(rows + 1));
    s.hid_idx.resize(static_cast<std::size_t>(rows * m));
    s.hid_off.resize(static_cast<std::size_t>(rows + 1));
    s.lambda.resize(static_cast<std::size_t>(rows * ldh));
    s.act.resize(static_cast<std::size_t>(rows * ldv));
    for (auto* v : {&s.x, &s.e1, &s.e0, &s.inc}) v->resize(static_cast<std::size_t>(m));
    s.words.resize(static_cast<std::size_t>(rows * std::max(n, m)));
    s.on.resize(static_cast<std::size_t>(std::max(n, m)));
    if (out.potential) s.on_idx.resize(static_cast<std::size_t>(n));
    auto beta_of = [&](Index r) { return row_beta ? row_beta[r] : beta; };

    // Active visible units; their part of the increment, (beta - beta')(b - a)'v.
    const double d = beta - beta_prev;
    int* vis_idx = s.vis_idx.data();
    int* vis_off = s.vis_off.data();
    vis_off[0] = 0;
    for (Index r = 0; r < rows; ++r) {
        vis_off[r + 1] = append_nonzero(&X(begin + r, 0), n, vis_idx, vis_off[r]);
    }
    if (lw)
        for (Index r = 0; r < rows; ++r) {
            double lin = 0;
            for (int t = vis_off[r]; t < vis_off[r + 1]; ++t) lin += b_(vis_idx[t]) - a_(vis_idx[t]);
            (*lw)(begin + r) += d * lin;
        }
    w_.sum_rows(s.vis_idx.data(), s.vis_off.data(), rows, c_.data(), s.lambda.data(), ldh);
    if (out.hidden_sums)
        for (Index r = 0; r < rows; ++r)
            std::memcpy(static_cast<S*>(out.hidden_sums) + (begin + r) * out.hidden_sums_ld, s.lambda.data() + r * ldh,
                        sizeof(S) * static_cast<std::size_t>(m));

    // Hidden layer: the increment sum_j softplus(beta x_j) - softplus(beta' x_j) (softplus_step)
    // shares e1 = exp(-beta|x|) with the hidden draw.
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
        hid_off[r + 1] = append_set(on, m, hid_idx, hid_off[r]);
        if (out.hidden)
            for (Index j = 0; j < m; ++j) (*out.hidden)(begin + r, j) = on[j];
    }
    wt_.sum_rows(s.hid_idx.data(), s.hid_off.data(), rows, zero_.data(), s.act.data(), ldv);

    // Visible layer: y = beta W h + (1-beta) a + beta b, in S; the bias is recomputed only where the
    // row's beta changes.
    s.bias.resize(static_cast<std::size_t>(n));
    s.y.resize(static_cast<std::size_t>(n));
    s.e.resize(static_cast<std::size_t>(n));
    S* bias = s.bias.data();
    S* y = s.y.data();
    S* e = s.e.data();
    double bias_beta = std::nan("");
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
        if (out.potential) {
            // V(v, h) = v'W h + (b - a)'v + c'h, over the units that are on (u = W h is in act),
            // added in increasing unit order. The list of on units first: a branch on each unit
            // (on with probability about 1/2 near beta = 0) cost PT a sixth of its time.
            int* on_idx = s.on_idx.data();
            const int count = append_set(on, n, on_idx, 0);
            double vu = 0, bv = 0, ch = 0;
            for (int t = 0; t < count; ++t) {
                vu += static_cast<double>(u[on_idx[t]]);
                bv += ba_(on_idx[t]);
            }
            for (int t = hid_off[r]; t < hid_off[r + 1]; ++t) ch += c_d_(hid_idx[t]);
            (*out.potential)(begin + r) = vu + bv + ch;
        }
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
