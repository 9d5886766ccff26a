// The leaky-ReLU RBM's sweep over a block of chains (kernels/gibbs_leaky.hpp) and the eta product
// the AIS paths weigh with, compiled once per instruction set into namespace
// rbm::detail::RBMSCOPE_SIMD_NS (kernels/simd.hpp): the products are Eigen GEMMs, which run at
// the width the processor has only when compiled for it.
//
// The exact-MH sweep (docs/methods/models.md#leaky-kernels) proposes v' ~ N(b + beta W(alpha∘eta), I + beta W
// diag(alpha) W') and accepts with the Metropolis-Hastings ratio of the two proposal densities. It takes two
// n x k products per block: P = (beta Hm + Hn) W' (the draw) and P W (eta at the proposal).
// Everything the proposal densities need from x = v' - mean(v) and from the reverse move is
// k-dimensional (G = W'W):
//   W'(v' - b) = eta' - c,   W'x = W'(v' - b) - beta G hm,
//   |x|^2 = |v' - b|^2 - 2 beta hm.W'(v' - b) + beta^2 hm'G hm,
// so no per-chain product with W is left (there were two matrix-vector products per chain and
// two more block products, seven in all).
#include <Eigen/Cholesky>
#include <cmath>
#include <vector>

#include "core/kernels/gibbs_leaky.hpp"
#include "core/kernels/kernel_table.hpp"
#include "core/kernels/line_aligned.hpp"
#include "core/kernels/vector_math.hpp"

namespace rbm::detail::inline RBMSCOPE_SIMD_NS {

namespace {

// log q(x | from) up to the constant -n/2 log 2pi, for the proposal from a state with (eta,
// alpha): N(mean, I + beta W diag(alpha) W'). By Woodbury and the determinant lemma, with
// K = G + diag(1/(beta alpha)):
//   x'(I + beta W D W')^{-1} x = |x|^2 - y'K^{-1}y,  y = W'x,
//   log det(I + beta W D W') = log det K + sum_j log(beta alpha_j).
// Takes |x|^2 and y (see the file comment). The work space is reused from chain to chain.
struct ProposalWork {
    Eigen::VectorXd solved;
    Mat K;
    Eigen::LLT<Mat> llt;
    explicit ProposalWork(Index k) : solved(k), K(k, k), llt(k) {}
};

// alpha_j is 1 or cl, so sum_j log(beta alpha_j) = k log beta + #{alpha_j = cl} log cl: two logs.
double log_proposal(const Mat& G, double beta, double cl, double x_sq, const Eigen::VectorXd& y, const double* alpha,
                    ProposalWork& w) {
    const Index k = G.rows();
    w.K = G;
    const double inv_one = 1.0 / beta, inv_cl = 1.0 / (beta * cl);
    Index leaking = 0;
    for (Index j = 0; j < k; ++j) {
        const bool one = alpha[j] == 1.0;
        w.K(j, j) += one ? inv_one : inv_cl;
        leaking += !one;
    }
    const double logdet_d =
        static_cast<double>(k) * std::log(beta) + (leaking ? static_cast<double>(leaking) * std::log(cl) : 0.0);
    w.llt.compute(w.K);
    // log det K = 2 sum log L_jj; the factor's diagonal as LLT stores it.
    const double logdet = logdet_d + 2.0 * w.llt.matrixLLT().diagonal().array().log().sum();
    w.solved = y;
    w.llt.solveInPlace(w.solved);
    const double quad = x_sq - y.dot(w.solved);
    return -0.5 * quad - 0.5 * logdet;
}

// |x - b|^2 over n entries as kLanes interleaved partial sums added in a fixed order: the loop
// vectorizes at any width (one running sum would be added lane by lane, in order, a chain of
// dependent adds) and rounds the same on every instruction set.
constexpr Index kLanes = 8;
double squared_distance(const double* x, const double* b, Index n) {
    double sx[kLanes] = {};
    Index i = 0;
    for (; i + kLanes <= n; i += kLanes)
        for (Index l = 0; l < kLanes; ++l) {
            const double u = x[i + l] - b[i + l];
            sx[l] += u * u;
        }
    for (Index l = 0; i < n; ++i, ++l) {
        const double u = x[i] - b[i];
        sx[l] += u * u;
    }
    double d = 0;
    for (Index l = 0; l < kLanes; ++l) d += sx[l];
    return d;
}

}  // namespace

// E must have rows x m already (detail::leaky_eta sizes it): a matrix that crosses the table is
// never allocated or freed on this side of it.
void leaky_block_eta(const Leaky& m, const RowMat& X, Index begin, Index rows, RowMat& E) {
    // c first, then the product accumulated onto it: Eigen's GEMM would otherwise clear E first.
    E.rowwise() = m.c.transpose();
    E.noalias() += X.block(begin, 0, rows, m.n_visible()) * m.W;
}

LeakySweepStats leaky_block_sweep(const Leaky& m, const LeakyConstants* pre, RowMat& V, Index begin, Index end,
                                  ChainRngs& rngs, LeakyKernel kernel, double beta, double cl, const double* row_beta) {
    if (cl < 0) cl = m.leakiness;
    const Index n = m.n_visible(), k = m.n_hidden(), rows = end - begin;
    auto beta_of = [&](Index r) { return row_beta ? row_beta[r] : beta; };
    LeakySweepStats stats;
    // With n + k + 1 columns, V carries each row's eta and |v - b|^2 after its visible units (the
    // AIS paths' state, kernels/gibbs_leaky.hpp): read here instead of a product with W and a pass
    // over v, and kept current below.
    const bool carried = V.cols() == n + k + 1;
    RowMat E(rows, k);
    if (carried) E = V.block(begin, n, rows, k);
    else leaky_block_eta(m, V, begin, rows, E);
    // Each chain's k + n normals (z1, then z2) from 2 ceil((k + n)/2) words of its stream, by
    // Box-Muller pairs in one flat loop over the block (kernels/vector_math.hpp: it vectorizes).
    const Index nz = 2 * ((k + n + 1) / 2);
    thread_local LineVector<std::uint32_t> words;
    thread_local LineVector<double> normals;
    if (words.size() < static_cast<std::size_t>(rows * nz)) {
        words.resize(static_cast<std::size_t>(rows * nz));
        normals.resize(words.size());
    }
    fill_rows_u32(rngs, begin, rows, static_cast<std::size_t>(nz), words.data());
    {
        const std::uint32_t* w = words.data();
        double* z = normals.data();
        for (Index t = 0; t < rows * nz; t += 2) normal_pair(w[t], w[t + 1], z[t], z[t + 1]);
    }
    // The draw v' = b + W(beta alpha∘eta + sqrt(beta alpha)∘z1) + z2: one product for the mean
    // and the W-part of the noise together.
    RowMat A(rows, k), Hm(rows, k), S(rows, k);
    for (Index r = 0; r < rows; ++r) {
        const double br = beta_of(r);
        for (Index j = 0; j < k; ++j) {
            const double a = E(r, j) > 0 ? 1.0 : cl;
            A(r, j) = a;
            Hm(r, j) = a * E(r, j);
            S(r, j) = br * Hm(r, j) + std::sqrt(br * a) * normals[static_cast<std::size_t>(r * nz + j)];
        }
    }
    RowMat P(rows, n);
    for (Index r = 0; r < rows; ++r) {
        const double* z2 = normals.data() + r * nz + k;
        for (Index i = 0; i < n; ++i) P(r, i) = m.b(i) + z2[i];
    }
    P.noalias() += S * m.W.transpose();
    RowMat Ep(rows, k);
    // Row r takes the proposal: its visible units, and when V carries them its eta and |v' - b|^2.
    auto take = [&](Index r, double dvp) {
        V.row(begin + r).head(n) = P.row(r);
        if (carried) {
            V.block(begin + r, n, 1, k) = Ep.row(r);
            V(begin + r, n + k) = dvp;
        }
    };
    if (kernel == LeakyKernel::PaperGibbs || (!row_beta && beta == 0.0)) {
        // At beta = 0 the proposal is an exact draw from N(b, I), which is f_0 itself.
        if (carried) leaky_block_eta(m, P, 0, rows, Ep);
        for (Index r = 0; r < rows; ++r) take(r, carried ? squared_distance(&P(r, 0), m.b.data(), n) : 0.0);
        stats.proposed = stats.accepted = rows;
        return stats;
    }
    const Mat& G = pre->gram;
    const Eigen::RowVectorXd& c_plus_wb = pre->c_plus_wb;  // eta - W'(v - b) = c + W'b
    leaky_block_eta(m, P, 0, rows, Ep);
    ProposalWork work(k);
    Eigen::VectorXd t(k), g(k), y(k), hm(k), hmp(k), ap(k);
    for (Index r = 0; r < rows; ++r) {
        const double br = beta_of(r);
        const double dvp = squared_distance(&P(r, 0), m.b.data(), n);
        if (br == 0.0) {  // as above: an exact draw from f_0
            take(r, dvp);
            ++stats.proposed;
            ++stats.accepted;
            continue;
        }
        // |v - b|^2 and |v' - b|^2; log f(v) = -|v - b|^2/2 + |b|^2/2 + beta sum_j alpha_j eta_j^2/2.
        const double dv = carried ? V(begin + r, n + k) : squared_distance(&V(begin + r, 0), m.b.data(), n);
        double log_ratio = -0.5 * (dvp - dv);
        for (Index j = 0; j < k; ++j) {
            ap(j) = Ep(r, j) > 0 ? 1.0 : cl;
            hmp(j) = ap(j) * Ep(r, j);
            hm(j) = Hm(r, j);
            log_ratio += 0.5 * br * (hmp(j) * Ep(r, j) - hm(j) * E(r, j));
        }
        // Forward: x = v' - b - beta W hm, from (eta, alpha) of v.
        t = (Ep.row(r) - c_plus_wb).transpose();
        g.noalias() = G * hm;
        y = t - br * g;
        const double fwd_sq = dvp - 2.0 * br * hm.dot(t) + br * br * hm.dot(g);
        const double log_q_fwd = log_proposal(G, br, cl, fwd_sq, y, A.row(r).data(), work);
        // Reverse: x = v - b - beta W hm', from (eta', alpha') of v'.
        t = (E.row(r) - c_plus_wb).transpose();
        g.noalias() = G * hmp;
        y = t - br * g;
        const double rev_sq = dv - 2.0 * br * hmp.dot(t) + br * br * hmp.dot(g);
        const double log_q_rev = log_proposal(G, br, cl, rev_sq, y, ap.data(), work);
        log_ratio += log_q_rev - log_q_fwd;
        ++stats.proposed;
        // The uniform is drawn whatever the ratio: where both states have every eta > 0 the
        // proposal is the exact conditional and log_ratio is 0 up to rounding, whose sign differs
        // between instruction sets; drawing only below 0 shifted that chain's stream on one path.
        if (std::log(rngs[begin + r].uniform()) < log_ratio) {
            take(r, dvp);
            ++stats.accepted;
        }
    }
    return stats;
}

}  // namespace rbm::detail::inline RBMSCOPE_SIMD_NS
