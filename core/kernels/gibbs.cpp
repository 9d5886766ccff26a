#include "core/kernels/gibbs.hpp"

#include "core/kernels/gibbs_leaky.hpp"
#include "core/kernels/philox_rows.hpp"
#include "core/kernels/vector_math.hpp"

#include <Eigen/Cholesky>
#include <cmath>
#include <vector>

#include "core/numerics/scalar.hpp"
#include "core/numerics/parallel.hpp"

namespace rbm {

// ---------------- GRBM ----------------
void grbm_hidden_field(const Grbm& m, const RowMat& V, Index begin, Index end, RowMat& Lambda) {
    const Index rows = end - begin;
    const Eigen::RowVectorXd inv_sigma = m.sigma.cwiseInverse().transpose();
    Lambda.noalias() = (V.middleRows(begin, rows).array().rowwise() * inv_sigma.array()).matrix() * m.W;
    Lambda.rowwise() += m.c.transpose();
}

void grbm_sample_hidden(const Grbm& m, const RowMat& Lambda, double beta, RowMat& H, ChainRngs& rngs, Index first) {
    H.resize(Lambda.rows(), Lambda.cols());
    for (Index r = 0; r < Lambda.rows(); ++r) {
        Rng& rng = rngs[first + r];
        for (Index j = 0; j < Lambda.cols(); ++j) H(r, j) = m.sample_hidden(beta * Lambda(r, j), rng);
    }
}

void grbm_sample_visible(const Grbm& m, const RowMat& H, double beta, const DiagGaussianBase* base, RowMat& V,
                         Index begin, ChainRngs& rngs) {
    const Index n = m.n_visible();
    RowMat U = H * m.W.transpose();  // u = W h, rows x n
    if (beta == 1.0 || base == nullptr) {
        for (Index r = 0; r < H.rows(); ++r) {
            Rng& rng = rngs[begin + r];
            for (Index i = 0; i < n; ++i) V(begin + r, i) = m.b(i) + m.sigma(i) * U(r, i) + m.sigma(i) * rng.normal();
        }
        return;
    }
    Vec prec(n), s(n), base_term(n);
    for (Index i = 0; i < n; ++i) {
        const double sb2 = m.sigma(i) * m.sigma(i), sa2 = base->sigma(i) * base->sigma(i);
        prec(i) = beta / sb2 + (1.0 - beta) / sa2;
        s(i) = 1.0 / std::sqrt(prec(i));
        base_term(i) = (1.0 - beta) * base->mean(i) / sa2;
    }
    for (Index r = 0; r < H.rows(); ++r) {
        Rng& rng = rngs[begin + r];
        for (Index i = 0; i < n; ++i) {
            const double sb2 = m.sigma(i) * m.sigma(i);
            const double mu = (beta * (m.b(i) + m.sigma(i) * U(r, i)) / sb2 + base_term(i)) / prec(i);
            V(begin + r, i) = mu + s(i) * rng.normal();
        }
    }
}

void gibbs_sweep(const Grbm& m, RowMat& V, ChainRngs& rngs, double beta, const DiagGaussianBase* base) {
    if (beta != 1.0 && base == nullptr) throw InputError("a GRBM sweep at beta < 1 needs a base distribution");
    for_each_block(V.rows(), [&](Index begin, Index end) {
        RowMat Lambda, H;
        grbm_hidden_field(m, V, begin, end, Lambda);
        grbm_sample_hidden(m, Lambda, beta, H, rngs, begin);
        grbm_sample_visible(m, H, beta, base, V, begin, rngs);
    });
}

// ---------------- BRBM ----------------
void gibbs_sweep(const Brbm& m, RowMat& V, RowMat& H, ChainRngs& rngs, double beta, const Vec* base_bias) {
    const Index n = m.n_visible(), k = m.n_hidden();
    H.resize(V.rows(), k);
    Vec vbias = beta * m.b;
    if (base_bias) vbias += (1.0 - beta) * *base_bias;
    const Vec hbias = beta * m.c;
    for_each_block(V.rows(), [&](Index begin, Index end) {
        const Index rows = end - begin;
        RowMat A = V.middleRows(begin, rows) * m.W;
        for (Index r = 0; r < rows; ++r) {
            Rng& rng = rngs[begin + r];
            for (Index j = 0; j < k; ++j)
                H(begin + r, j) = rng.uniform() < sigmoid(beta * A(r, j) + hbias(j)) ? 1.0 : 0.0;
        }
        RowMat Bv = H.middleRows(begin, rows) * m.W.transpose();
        for (Index r = 0; r < rows; ++r) {
            Rng& rng = rngs[begin + r];
            for (Index i = 0; i < n; ++i)
                V(begin + r, i) = rng.uniform() < sigmoid(beta * Bv(r, i) + vbias(i)) ? 1.0 : 0.0;
        }
    });
}

void gibbs_sweep(const Brbm& m, RowMat& V, ChainRngs& rngs, double beta, const Vec* base_bias) {
    RowMat H;
    gibbs_sweep(m, V, H, rngs, beta, base_bias);
}

// ---------------- Leaky ----------------
const char* leaky_kernel_name(LeakyKernel k) { return k == LeakyKernel::PaperGibbs ? "paper-gibbs" : "exact-mh"; }

namespace {

// log q(x | from) up to the constant -n/2 log 2pi, where the proposal from state `v` (with its
// eta, alpha) is N(b + beta W (alpha∘eta), I + beta W diag(alpha) W'). Uses Woodbury and the
// determinant lemma so the cost is O(n m + m^3) per chain instead of O(n^3).
// The work space is reused from chain to chain: two log proposals per chain per sweep allocated
// some ten small vectors and matrices each time, which on small models cost more than the
// arithmetic (and made the instrumented CI builds spend most of their time in the allocator).
// The arithmetic is the same operation for operation, so the results are bit for bit the same.
struct LeakyProposalWork {
    Eigen::VectorXd y, solved;
    Mat K;
    Eigen::LLT<Mat> llt;
    explicit LeakyProposalWork(Index k) : y(k), solved(k), K(k, k), llt(k) {}
};

double leaky_log_proposal(const Leaky& m, const Mat& G, double beta, const Eigen::RowVectorXd& x_minus_mean,
                          const Eigen::VectorXd& alpha, LeakyProposalWork& w) {
    const Index k = m.n_hidden();
    w.y.noalias() = m.W.transpose() * x_minus_mean.transpose();
    w.K = G;
    double logdet_d = 0;
    for (Index j = 0; j < k; ++j) {
        w.K(j, j) += 1.0 / (beta * alpha(j));
        logdet_d += std::log(beta * alpha(j));
    }
    w.llt.compute(w.K);
    // log det K = 2 sum log L_jj; the factor's diagonal as LLT stores it.
    const double logdet = logdet_d + 2.0 * w.llt.matrixLLT().diagonal().array().log().sum();
    w.solved = w.y;
    w.llt.solveInPlace(w.solved);
    const double quad = x_minus_mean.squaredNorm() - w.y.dot(w.solved);
    return -0.5 * quad - 0.5 * logdet;
}

}  // namespace

LeakySweepStats leaky_sweep_block(const Leaky& m, RowMat& V, Index begin, Index end, ChainRngs& rngs,
                                  LeakyKernel kernel, double beta, double cl, const RowMat* eta) {
    return detail::leaky_sweep_block_gram(m, nullptr, V, begin, end, rngs, kernel, beta, cl, eta);
}

LeakySweepStats detail::leaky_sweep_block_gram(const Leaky& m, const Mat* gram, RowMat& V, Index begin, Index end,
                                               ChainRngs& rngs, LeakyKernel kernel, double beta, double cl,
                                               const RowMat* eta, const double* row_beta) {
    if (cl < 0) cl = m.leakiness;
    const Index n = m.n_visible(), k = m.n_hidden(), rows = end - begin;
    auto beta_of = [&](Index r) { return row_beta ? row_beta[r] : beta; };
    // beta Hm, row by row: the scalar path keeps Eigen's scalar-times-product form (its bits).
    auto scaled_mean = [&](const RowMat& Hm) -> RowMat {
        if (!row_beta) return (beta * Hm) * m.W.transpose();
        RowMat S = Hm;
        for (Index r = 0; r < rows; ++r) S.row(r) *= row_beta[r];
        return S * m.W.transpose();
    };
    LeakySweepStats stats;
    // Forward pass: eta, alpha, the proposal mean and a draw v' = b + beta W(alpha∘eta) + W(sqrt(beta alpha)∘z1) + z2.
    RowMat E_own;
    if (!eta) {
        E_own.noalias() = V.middleRows(begin, rows) * m.W;
        E_own.rowwise() += m.c.transpose();
    }
    const RowMat& E = eta ? *eta : E_own;
    // Each chain's k + n normals (z1, then z2) from 2 ceil((k + n)/2) words of its stream, by
    // Box-Muller pairs in one flat loop over the block (kernels/vector_math.hpp: it vectorizes; the
    // libm-based Rng::normal was a fifth of a sweep at n = 3072).
    const Index nz = 2 * ((k + n + 1) / 2);
    thread_local std::vector<std::uint32_t> words;
    thread_local std::vector<double> normals;
    if (words.size() < static_cast<std::size_t>(rows * nz)) {
        words.resize(static_cast<std::size_t>(rows * nz));
        normals.resize(words.size());
    }
    fill_rows_u32(rngs, begin, rows, static_cast<std::size_t>(nz), words.data());
    {
        const std::uint32_t* w = words.data();
        double* z = normals.data();
        for (Index t = 0; t < rows * nz; t += 2) detail::normal_pair(w[t], w[t + 1], z[t], z[t + 1]);
    }
    RowMat A(rows, k), Hm(rows, k), Hn(rows, k);
    for (Index r = 0; r < rows; ++r) {
        for (Index j = 0; j < k; ++j) {
            const double a = E(r, j) > 0 ? 1.0 : cl;
            A(r, j) = a;
            Hm(r, j) = a * E(r, j);
            Hn(r, j) = std::sqrt(beta_of(r) * a) * normals[static_cast<std::size_t>(r * nz + j)];
        }
    }
    const RowMat Mean = scaled_mean(Hm);  // without b
    RowMat P = (Mean + Hn * m.W.transpose());
    for (Index r = 0; r < rows; ++r) {
        const double* z2 = normals.data() + r * nz + k;
        for (Index i = 0; i < n; ++i) P(r, i) += m.b(i) + z2[i];
    }
    if (kernel == LeakyKernel::PaperGibbs || (!row_beta && beta == 0.0)) {
        // At beta = 0 the proposal is an exact draw from N(b, I), which is f_0 itself.
        V.middleRows(begin, rows) = P;
        stats.proposed = stats.accepted = rows;
        return stats;
    }
    Mat G_own;
    if (!gram) G_own = m.W.transpose() * m.W;
    const Mat& G = gram ? *gram : G_own;
    RowMat Ep = P * m.W;
    Ep.rowwise() += m.c.transpose();
    RowMat Ap(rows, k), Hmp(rows, k);
    for (Index r = 0; r < rows; ++r)
        for (Index j = 0; j < k; ++j) {
            const double a = Ep(r, j) > 0 ? 1.0 : cl;
            Ap(r, j) = a;
            Hmp(r, j) = a * Ep(r, j);
        }
    const RowMat MeanP = scaled_mean(Hmp);
    LeakyProposalWork work(k);
    Eigen::RowVectorXd v(n), vp(n), fwd(n), rev(n);
    Eigen::VectorXd alpha(k), alpha_p(k);
    for (Index r = 0; r < rows; ++r) {
        const double br = beta_of(r);
        if (br == 0.0) {  // as above: an exact draw from f_0
            V.row(begin + r) = P.row(r);
            ++stats.proposed;
            ++stats.accepted;
            continue;
        }
        v = V.row(begin + r);
        vp = P.row(r);
        // log f at both points, sharing eta.
        double lf = -0.5 * v.squaredNorm() + v.dot(m.b.transpose()), lfp = -0.5 * vp.squaredNorm() + vp.dot(m.b.transpose());
        for (Index j = 0; j < k; ++j) {
            lf += 0.5 * br * A(r, j) * E(r, j) * E(r, j);
            lfp += 0.5 * br * Ap(r, j) * Ep(r, j) * Ep(r, j);
        }
        fwd = vp - Mean.row(r) - m.b.transpose();
        rev = v - MeanP.row(r) - m.b.transpose();
        alpha = A.row(r).transpose();
        alpha_p = Ap.row(r).transpose();
        const double log_q_fwd = leaky_log_proposal(m, G, br, fwd, alpha, work);
        const double log_q_rev = leaky_log_proposal(m, G, br, rev, alpha_p, work);
        const double log_ratio = lfp - lf + log_q_rev - log_q_fwd;
        ++stats.proposed;
        if (log_ratio >= 0 || std::log(rngs[begin + r].uniform()) < log_ratio) {
            V.row(begin + r) = vp;
            ++stats.accepted;
        }
    }
    return stats;
}

LeakySweepStats leaky_sweep(const Leaky& m, RowMat& V, ChainRngs& rngs, LeakyKernel kernel, double beta, double cl) {
    const Index blocks = (V.rows() + kChainBlock - 1) / kChainBlock;
    std::vector<LeakySweepStats> per(static_cast<std::size_t>(blocks));
    for_each_block(V.rows(), [&](Index begin, Index end) {
        per[static_cast<std::size_t>(begin / kChainBlock)] = leaky_sweep_block(m, V, begin, end, rngs, kernel, beta, cl);
    });
    LeakySweepStats total;
    for (const auto& s : per) {
        total.proposed += s.proposed;
        total.accepted += s.accepted;
    }
    return total;
}

// ---------------- Gaussian ----------------
void gaussian_sample(const Vec& mean, const Mat& L, RowMat& V, Index begin, Index end, ChainRngs& rngs) {
    const Index n = mean.size();
    RowMat Z(end - begin, n);
    for (Index r = 0; r < end - begin; ++r) {
        Rng& rng = rngs[begin + r];
        for (Index i = 0; i < n; ++i) Z(r, i) = rng.normal();
    }
    V.middleRows(begin, end - begin) = (Z * L.transpose()).rowwise() + mean.transpose();
}

void gaussian_sample(const Gaussian& g, RowMat& V, ChainRngs& rngs) {
    const Mat L = g.cholesky();
    for_each_block(V.rows(), [&](Index begin, Index end) { gaussian_sample(g.mean, L, V, begin, end, rngs); });
}

// ---------------- Any model ----------------
LeakySweepStats gibbs_sweep(const Model& model, RowMat& V, ChainRngs& rngs, const SweepOptions& opts) {
    LeakySweepStats stats;
    std::visit(
        [&](const auto& m) {
            using T = std::decay_t<decltype(m)>;
            if constexpr (std::is_same_v<T, Grbm>) gibbs_sweep(m, V, rngs);
            else if constexpr (std::is_same_v<T, Brbm>) gibbs_sweep(m, V, rngs);
            else if constexpr (std::is_same_v<T, Leaky>) stats = leaky_sweep(m, V, rngs, opts.leaky_kernel);
            else gaussian_sample(m, V, rngs);
        },
        model.params);
    return stats;
}

RowMat initial_states(const Model& model, Index chains, ChainRngs& rngs) {
    const Index n = model.n_visible();
    RowMat V(chains, n);
    std::visit(
        [&](const auto& m) {
            using T = std::decay_t<decltype(m)>;
            if constexpr (std::is_same_v<T, Gaussian>) {
                gaussian_sample(m, V, rngs);
            } else {
                for_each_block(chains, [&](Index begin, Index end) {
                    for (Index r = begin; r < end; ++r) {
                        Rng& rng = rngs[r];
                        for (Index i = 0; i < n; ++i) {
                            if constexpr (std::is_same_v<T, Grbm>) V(r, i) = m.b(i) + m.sigma(i) * rng.normal();
                            else if constexpr (std::is_same_v<T, Brbm>) V(r, i) = rng.uniform() < sigmoid(m.b(i)) ? 1.0 : 0.0;
                            else V(r, i) = m.b(i) + rng.normal();
                        }
                    }
                });
            }
        },
        model.params);
    return V;
}

}  // namespace rbm
