// The fused GRBM step (kernels/grbm_block.hpp), compiled once per instruction set into namespace
// rbm::detail::RBMSCOPE_SIMD_NS (kernels/simd.hpp).
#include <cmath>
#include <memory>
#include <stdexcept>

#include "core/kernels/active_lists.hpp"
#include "core/kernels/kernel_table.hpp"
#include "core/kernels/line_aligned.hpp"
#include "core/kernels/panels.hpp"
#include "core/kernels/vector_math.hpp"

namespace rbm::detail::inline RBMSCOPE_SIMD_NS {

namespace {

class GrbmStep final : public BlockStep {
public:
    GrbmStep(const Grbm& m, const Vec& a, const Vec& sa, bool float32);
    void step(double beta_prev, double beta, RowMat& X, Index begin, Index end, Vec* lw,
              ChainRngs& rngs) const override;
    // Per-row betas and the outputs on the float64 step; the float32 step takes neither.
    void sweep(double beta, const double* row_beta, RowMat& X, Index begin, Index end, ChainRngs& rngs,
               const SweepOutputs& out) const override;

private:
    template <int N, int M, bool Fused>
    void step_sized(double beta_prev, double beta, RowMat& X, Index begin, Index end, Vec* lw, ChainRngs& rngs,
                    const double* row_beta = nullptr, const SweepOutputs& out = {}) const;
    // The float32 step: the whole step in single precision, the weights summed in double.
    void step_f32(double beta_prev, double beta, RowMat& X, Index begin, Index end, Vec* lw, ChainRngs& rngs) const;
    // v_i = ma_i + mb_i u_i + sd_i z_i at beta: the mean and deviation of v_i given u = W h,
    // computed in double and stored in the step's precision S.
    template <class S>
    void visible_coefficients(double beta, Index n, S* ma, S* mb, S* sd) const {
        for (Index i = 0; i < n; ++i) {
            const double prec = beta * inv_s2_(i) + (1.0 - beta) * inv_sa2_(i);
            const double lin = beta * b_(i) * inv_s2_(i) + (1.0 - beta) * a_(i) * inv_sa2_(i);
            ma[i] = static_cast<S>(lin / prec);
            mb[i] = static_cast<S>(beta * inv_s_(i) / prec);
            sd[i] = static_cast<S>(1.0 / std::sqrt(prec));
        }
    }
    // (beta - beta')(Q_A - Q_B)/2 + sum_j inc_j for one chain of the float32 step, in double: each
    // sum in kLanes interleaved partial sums (vector lanes; the order is fixed, so the result does
    // not depend on the blocking or the thread count), then added pairwise.
    double increment_f32(const double* x, double d, const float* inc) const {
        constexpr int kLanes = 16;
        double q[kLanes] = {}, acc[kLanes] = {};
        const double *a = a_.data(), *b = b_.data(), *is = inv_s_.data(), *isa2 = inv_sa2_.data();
        Index i = 0;
        for (; i + kLanes <= n_; i += kLanes)
            for (int k = 0; k < kLanes; ++k) {
                const double za = x[i + k] - a[i + k], zb = (x[i + k] - b[i + k]) * is[i + k];
                q[k] += za * za * isa2[i + k] - zb * zb;
            }
        for (int k = 0; i < n_; ++i, ++k) {
            const double za = x[i] - a[i], zb = (x[i] - b[i]) * is[i];
            q[k] += za * za * isa2[i] - zb * zb;
        }
        Index j = 0;
        for (; j + kLanes <= m_; j += kLanes)
            for (int k = 0; k < kLanes; ++k) acc[k] += static_cast<double>(inc[j + k]);
        for (int k = 0; j < m_; ++j, ++k) acc[k] += static_cast<double>(inc[j]);
        for (int w = kLanes / 2; w >= 1; w /= 2)
            for (int k = 0; k < w; ++k) q[k] += q[k + w], acc[k] += acc[k + w];
        return 0.5 * d * q[0] + acc[0];
    }
    // lw(row) += (beta - beta')(Q_A - Q_B)/2 + sum_j inc_j for G chains from `row`, each in unit order.
    template <int G, int N, int M>
    void add_increments(const RowMat& X, Index row, Index n, Index m, double d, const double* inc, Vec& lw) const;

    Index n_ = 0, m_ = 0;
    bool f32_ = false, small_ = false;
    Mat w_;                   // n x m (the dense product)
    Eigen::MatrixXf wf_;      // the same in float
    std::vector<double> wr_;  // small models: W row-major
    RowPanels<double> wtd_;   // rows of W' for W h (float64)
    RowPanels<float> wtf_;    // the same in float
    std::vector<float> cf_;   // c in float
    Vec c_, b_, a_, inv_s_, inv_s2_, inv_sa2_;
};

using RowMatF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Models this small use plain loops for both products (no GEMM set-up per block).
constexpr Index kSmallProduct = 64;
// Chains whose increment sums run side by side (GrbmStep::add_increments).
constexpr int kSumGroup = 8;

struct Scratch {
    LineVector<double> xs, lam, e1, e0, inc, h, z, u, mean_a, mean_b, sd;
    LineVector<float> xf, lf, uf, e1f, incf, hf, zf, maf, mbf, sdf;
    LineVector<std::uint32_t> hw, vw, cw;
    LineVector<int> hid_idx, hid_off;
};
Scratch& scratch() {
    thread_local Scratch s;
    return s;
}
template <class T>
T* grow(LineVector<T>& v, Index size) {
    if (v.size() < static_cast<std::size_t>(size)) v.resize(static_cast<std::size_t>(size));
    return v.data();
}

// Each chain's words for one step, from its own stream, all rows at once (kernels/philox_rows.cpp):
// m for its hidden draws, then nv for its visible normals (the same words as two draws), gathered
// into hw (rows x m) and vw (rows x nv) so that each draw runs as one loop over the block.
struct StepWords {
    const std::uint32_t* hidden;
    const std::uint32_t* visible;
};
inline StepWords draw_words(ChainRngs& rngs, Index begin, Index rows, Index m, Index nv, Scratch& s) {
    const Index nw = m + nv;
    std::uint32_t* cw = grow(s.cw, rows * nw);
    std::uint32_t* hw = grow(s.hw, rows * m);
    std::uint32_t* vw = grow(s.vw, rows * nv);
    detail::fill_rows_u32(rngs, begin, rows, static_cast<std::size_t>(nw), cw);
    for (Index r = 0; r < rows; ++r) {
        for (Index j = 0; j < m; ++j) hw[r * m + j] = cw[r * nw + j];
        for (Index i = 0; i < nv; ++i) vw[r * nv + i] = cw[r * nw + m + i];
    }
    return {hw, vw};
}

// u = W h for every chain of the block: append(r, idx, end) lists chain r's hidden units that are on
// (kernels/active_lists.hpp), and the rows of W' they name are summed (RowPanels::sum_rows) into
// `out`, rows x wt.padded_cols().
template <class S, class Append>
const S* sum_active_rows(const RowPanels<S>& wt, Index rows, Append append, LineVector<S>& out, Scratch& s) {
    int* idx = grow(s.hid_idx, rows * wt.rows());
    int* off = grow(s.hid_off, rows + 1);
    off[0] = 0;
    for (Index r = 0; r < rows; ++r) off[r + 1] = append(r, idx, off[r]);
    const Index ld = wt.padded_cols();
    S* u = grow(out, rows * ld + ld);
    S* zero = u + rows * ld;
    std::fill(zero, zero + ld, S(0));
    wt.sum_rows(idx, off, rows, zero, u, ld);
    return u;
}

GrbmStep::GrbmStep(const Grbm& m, const Vec& a, const Vec& sa, bool float32)
    : n_(m.n_visible()), m_(m.n_hidden()), f32_(float32),
      small_(!float32 && m.n_visible() * m.n_hidden() <= kSmallProduct), w_(m.W), c_(m.c), b_(m.b), a_(a) {
    inv_s_ = m.sigma.cwiseInverse();
    inv_s2_ = inv_s_.cwiseAbs2();
    inv_sa2_ = sa.cwiseAbs2().cwiseInverse();
    if (small_) {
        wr_.resize(static_cast<std::size_t>(n_ * m_));
        for (Index i = 0; i < n_; ++i)
            for (Index j = 0; j < m_; ++j) wr_[static_cast<std::size_t>(i * m_ + j)] = m.W(i, j);
    } else if (f32_) {
        wf_ = m.W.cast<float>();
        wtf_ = RowPanels<float>(m.W, true);
        cf_.resize(static_cast<std::size_t>(m_));
        for (Index j = 0; j < m_; ++j) cf_[static_cast<std::size_t>(j)] = static_cast<float>(m.c(j));
    } else {
        wtd_ = RowPanels<double>(m.W, true);
    }
}

void GrbmStep::step(double beta_prev, double beta, RowMat& X, Index begin, Index end, Vec* lw, ChainRngs& rngs) const {
    if (f32_) return step_f32(beta_prev, beta, X, begin, end, lw, rngs);
    // The 2-D toys (2 visible, 2 hidden units) get their sizes at compile time: the unit loops
    // unroll (callgrind: 785 -> 537 instructions per chain-sweep of four-mode).
    if (n_ == 2 && m_ == 2) return step_sized<2, 2, false>(beta_prev, beta, X, begin, end, lw, rngs);
    // Models small enough for plain loops keep the two-rounding math too, so they are bitwise the
    // same on every path; the others use fused multiply-adds in exp/log1p/Box-Muller where the
    // target has them (kernels/vector_math.hpp, mad), as their GEMM already does.
    if (small_) return step_sized<0, 0, false>(beta_prev, beta, X, begin, end, lw, rngs);
    step_sized<0, 0, true>(beta_prev, beta, X, begin, end, lw, rngs);
}

void GrbmStep::sweep(double beta, const double* row_beta, RowMat& X, Index begin, Index end, ChainRngs& rngs,
                     const SweepOutputs& out) const {
    if (f32_) {
        if (row_beta || out.hidden || out.means || out.potential)
            throw std::logic_error("the float32 GRBM step has no per-row betas or sweep outputs");
        return step_f32(beta, beta, X, begin, end, nullptr, rngs);
    }
    if (n_ == 2 && m_ == 2) return step_sized<2, 2, false>(beta, beta, X, begin, end, nullptr, rngs, row_beta, out);
    if (small_) return step_sized<0, 0, false>(beta, beta, X, begin, end, nullptr, rngs, row_beta, out);
    step_sized<0, 0, true>(beta, beta, X, begin, end, nullptr, rngs, row_beta, out);
}

template <int G, int N, int M>
void GrbmStep::add_increments(const RowMat& X, Index row, Index nvis, Index nhid, double d, const double* inc,
                              Vec& lw) const {
    const Index n = N ? N : nvis, m = M ? M : nhid;  // fixed for the 2-D toys: the unit loops unroll
    double q[G] = {};
    for (Index i = 0; i < n; ++i)
        for (int t = 0; t < G; ++t) {
            const double x = X(row + t, i), za = x - a_(i), zb = (x - b_(i)) * inv_s_(i);
            q[t] += za * za * inv_sa2_(i) - zb * zb;
        }
    double acc[G];
    for (int t = 0; t < G; ++t) acc[t] = 0.5 * d * q[t];
    for (Index j = 0; j < m; ++j)
        for (int t = 0; t < G; ++t) acc[t] += inc[t * m + j];
    for (int t = 0; t < G; ++t) lw(row + t) += acc[t];
}

template <int N, int M, bool Fused>
void GrbmStep::step_sized(double beta_prev, double beta, RowMat& X, Index begin, Index end, Vec* lw, ChainRngs& rngs,
                          const double* row_beta, const SweepOutputs& out) const {
    // N, M: the unit counts when fixed at compile time, 0 when taken from the model.
    const Index rows = end - begin, n = N ? N : n_, m = M ? M : m_, nv = 2 * ((n + 1) / 2);  // nv: normals per chain
    const Index th = rows * m;
    Scratch& s = scratch();
    double* xs = grow(s.xs, rows * n);
    double* lam = grow(s.lam, th);
    double* e1 = grow(s.e1, th);
    double* h = grow(s.h, th);
    double* z = grow(s.z, rows * nv);

    // Hidden field L = c + W'(v/s).
    for (Index r = 0; r < rows; ++r)
        for (Index i = 0; i < n; ++i) xs[r * n + i] = X(begin + r, i) * inv_s_(i);
    if (small_) {
        const double* w = wr_.data();
        for (Index r = 0; r < rows; ++r)
            for (Index j = 0; j < m; ++j) {
                double acc = c_(j);
                for (Index i = 0; i < n; ++i) acc += xs[r * n + i] * w[i * m + j];
                lam[r * m + j] = acc;
            }
    } else {
        // Onto the bias: Eigen's "=" would zero L first and add the product to it, and the bias
        // after it (a memset and a pass, 5 % of the instructions).
        Eigen::Map<RowMat> L(lam, rows, m);
        L.rowwise() = c_.transpose();
        L.noalias() += Eigen::Map<const RowMat>(xs, rows, n) * w_;
    }

    // Increment: (beta - beta')(Q_A - Q_B) + sum_j softplus_step, sharing e1 = exp(-beta|L|) with the draw.
    if (row_beta) {
        for (Index r = 0; r < rows; ++r)
            for (Index t = r * m; t < (r + 1) * m; ++t)
                e1[t] = exp_nonpositive<Fused>(-row_beta[r] * std::fabs(lam[t]));
    } else {
        for (Index t = 0; t < th; ++t) e1[t] = exp_nonpositive<Fused>(-beta * std::fabs(lam[t]));
    }
    if (lw) {
        double* e0 = grow(s.e0, th);
        double* inc = grow(s.inc, th);
        for (Index t = 0; t < th; ++t) e0[t] = exp_nonpositive<Fused>(-beta_prev * std::fabs(lam[t]));
        for (Index t = 0; t < th; ++t) inc[t] = softplus_step<Fused>(lam[t], beta_prev, beta, e1[t], e0[t]);
        const double d = beta - beta_prev;
        // Each chain sums in unit order (its sums do not depend on the others); kSumGroup chains
        // at a time, so their additions are independent chains the processor overlaps (one
        // chain's serial sum waited on the add latency: 12 % of this step's samples).
        // (The 2-D toys' sums are two terms: they stay one chain at a time.)
        Index r0 = 0;
        if constexpr (N == 0)
            for (; r0 + kSumGroup <= rows; r0 += kSumGroup)
                add_increments<kSumGroup, N, M>(X, begin + r0, n, m, d, inc + r0 * m, *lw);
        for (; r0 < rows; ++r0) add_increments<1, N, M>(X, begin + r0, n, m, d, inc + r0 * m, *lw);
    }

    // Random words (draw_words): with m + nv = 4, as in the 2-D toys, one Philox block per chain,
    // computed in vector lanes across chains.
    const auto [hw, vw] = draw_words(rngs, begin, rows, m, nv, s);
    if (row_beta) {
        for (Index r = 0; r < rows; ++r)
            for (Index t = r * m; t < (r + 1) * m; ++t)
                h[t] = bernoulli_sigmoid_as(unit_from_word(hw[t]), row_beta[r] * lam[t], e1[t]);
    } else {
        for (Index t = 0; t < th; ++t) h[t] = bernoulli_sigmoid_as(unit_from_word(hw[t]), beta * lam[t], e1[t]);
    }
    for (Index t = 0; t < rows * nv; t += 2) normal_pair<Fused>(vw[t], vw[t + 1], z[t], z[t + 1]);
    if (out.hidden)
        for (Index r = 0; r < rows; ++r)
            for (Index j = 0; j < m; ++j) (*out.hidden)(begin + r, j) = h[r * m + j];

    // u = W h.
    Index ldu = n;
    const double* u = nullptr;
    if (small_) {
        double* ud = grow(s.u, rows * n);
        const double* w = wr_.data();
        for (Index r = 0; r < rows; ++r)
            for (Index i = 0; i < n; ++i) {
                double acc = 0;
                for (Index j = 0; j < m; ++j) acc += h[r * m + j] * w[i * m + j];
                ud[r * n + i] = acc;
            }
        u = ud;
    } else {
        ldu = wtd_.padded_cols();
        u = sum_active_rows(
            wtd_, rows, [&](Index r, int* idx, int at) { return append_nonzero(h + r * m, m, idx, at); }, s.u, s);
    }

    // v_i = (l_i + beta u_i / s_i) / P_i + z_i / sqrt(P_i).
    double* ma = grow(s.mean_a, n);
    double* mb = grow(s.mean_b, n);
    double* sd = grow(s.sd, n);
    if (!row_beta && !out.potential) {
        visible_coefficients(beta, n, ma, mb, sd);
        for (Index r = 0; r < rows; ++r)
            for (Index i = 0; i < n; ++i) X(begin + r, i) = ma[i] + mb[i] * u[r * ldu + i] + sd[i] * z[r * nv + i];
        return;
    }
    // Per-row betas (coefficients recomputed where the beta changes) and the swap potential
    // V(v, h) = -|(v - b)/s|^2/2 + (v/s)'W h + c'h + |(v - a)/s_A|^2/2 from the same u = W h.
    double coef_beta = std::nan("");
    for (Index r = 0; r < rows; ++r) {
        const double br = row_beta ? row_beta[r] : beta;
        if (!(br == coef_beta)) {
            visible_coefficients(br, n, ma, mb, sd);
            coef_beta = br;
        }
        for (Index i = 0; i < n; ++i) X(begin + r, i) = ma[i] + mb[i] * u[r * ldu + i] + sd[i] * z[r * nv + i];
        if (out.potential) {
            double pot = 0;
            for (Index j = 0; j < m; ++j) pot += c_(j) * h[r * m + j];
            for (Index i = 0; i < n; ++i) {
                const double v = X(begin + r, i), zb = (v - b_(i)) * inv_s_(i), za = v - a_(i);
                pot += -0.5 * zb * zb + v * inv_s_(i) * u[r * ldu + i] + 0.5 * za * za * inv_sa2_(i);
            }
            (*out.potential)(begin + r) = pot;
        }
    }
}

// The same step in single precision: L = c + W'(v/s) by Eigen's float GEMM onto the bias, exp,
// the softplus step, the hidden draws (24-bit uniforms), W h and the Box-Muller normals in float
// (kernels/vector_math.hpp), twice the lanes per vector of double and shorter polynomials. Each
// increment term is within a few float ulp of its size, plus a few ulp of exp(-beta'|L|) from the
// two float exps (softplus_step_f); the terms and the quadratic part are summed in double (log
// weights always accumulate in double, whatever the precision of the products).
void GrbmStep::step_f32(double beta_prev, double beta, RowMat& X, Index begin, Index end, Vec* lw,
                        ChainRngs& rngs) const {
    const Index rows = end - begin, n = n_, m = m_, nv = 2 * ((n + 1) / 2), th = rows * m;
    Scratch& s = scratch();
    float* xf = grow(s.xf, rows * n);
    float* lf = grow(s.lf, th);
    float* e1 = grow(s.e1f, th);
    for (Index r = 0; r < rows; ++r)
        for (Index i = 0; i < n; ++i) xf[r * n + i] = static_cast<float>(X(begin + r, i) * inv_s_(i));
    Eigen::Map<RowMatF> L(lf, rows, m);
    L.rowwise() = Eigen::Map<const Eigen::RowVectorXf>(cf_.data(), m);
    L.noalias() += Eigen::Map<const RowMatF>(xf, rows, n) * wf_;

    const float bf = static_cast<float>(beta), bpf = static_cast<float>(beta_prev);
    for (Index t = 0; t < th; ++t) e1[t] = exp_nonpositive<true>(-bf * std::fabs(lf[t]));
    if (lw) {
        float* inc = grow(s.incf, th);
        const double d = beta - beta_prev;
        const float df = static_cast<float>(d);
        for (Index t = 0; t < th; ++t) {
            const float e0 = exp_nonpositive<true>(-bpf * std::fabs(lf[t]));
            inc[t] = softplus_step_f<true>(lf[t], df, e1[t], e0);
        }
        for (Index r = 0; r < rows; ++r) (*lw)(begin + r) += increment_f32(&X(begin + r, 0), d, inc + r * m);
    }

    // The draws as two long loops over the block (draw_words; per row, the 54 pairs of a 108-unit
    // model left a scalar tail of 6 Box-Muller pairs per chain).
    const auto [hw, vw] = draw_words(rngs, begin, rows, m, nv, s);
    float* h = grow(s.hf, th);
    float* z = grow(s.zf, rows * nv);
    for (Index t = 0; t < th; ++t) h[t] = bernoulli_sigmoid_as(unit_from_word_f(hw[t]), bf * lf[t], e1[t]);
    for (Index t = 0; t < rows * nv; t += 2) normal_pair<true>(vw[t], vw[t + 1], z[t], z[t + 1]);

    const Index ldu = wtf_.padded_cols();
    const float* u = sum_active_rows(
        wtf_, rows, [&](Index r, int* idx, int at) { return append_nonzero(h + r * m, m, idx, at); }, s.uf, s);

    float* ma = grow(s.maf, n);
    float* mb = grow(s.mbf, n);
    float* sd = grow(s.sdf, n);
    visible_coefficients(beta, n, ma, mb, sd);
    for (Index r = 0; r < rows; ++r) {
        const float* ur = u + r * ldu;
        const float* zr = z + r * nv;
        for (Index i = 0; i < n; ++i) X(begin + r, i) = static_cast<double>(ma[i] + mb[i] * ur[i] + sd[i] * zr[i]);
    }
}

}  // namespace

std::unique_ptr<BlockStep> make_grbm(const Grbm& m, const Vec& a, const Vec& sa, bool float32) {
    return std::make_unique<GrbmStep>(m, a, sa, float32);
}

}  // namespace rbm::detail::inline RBMSCOPE_SIMD_NS
