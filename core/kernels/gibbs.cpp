#include "core/kernels/gibbs.hpp"

#include "core/kernels/gibbs_leaky.hpp"
#include "core/kernels/simd.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/numerics/parallel.hpp"
#include "core/numerics/scalar.hpp"

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

namespace {

void grbm_sweep_block(const Grbm& m, RowMat& V, Index begin, Index end, ChainRngs& rngs, double beta,
                      const DiagGaussianBase* base) {
    RowMat Lambda, H;
    grbm_hidden_field(m, V, begin, end, Lambda);
    grbm_sample_hidden(m, Lambda, beta, H, rngs, begin);
    grbm_sample_visible(m, H, beta, base, V, begin, rngs);
}

// Rows [begin, end) of V; their hidden states go to rows [h_begin, h_begin + end - begin) of H.
void brbm_sweep_block(const Brbm& m, RowMat& V, RowMat& H, Index h_begin, Index begin, Index end, ChainRngs& rngs,
                      double beta, const Vec& vbias, const Vec& hbias) {
    const Index n = m.n_visible(), k = m.n_hidden(), rows = end - begin;
    RowMat A = V.middleRows(begin, rows) * m.W;
    for (Index r = 0; r < rows; ++r) {
        Rng& rng = rngs[begin + r];
        for (Index j = 0; j < k; ++j)
            H(h_begin + r, j) = rng.uniform() < sigmoid(beta * A(r, j) + hbias(j)) ? 1.0 : 0.0;
    }
    RowMat Bv = H.middleRows(h_begin, rows) * m.W.transpose();
    for (Index r = 0; r < rows; ++r) {
        Rng& rng = rngs[begin + r];
        for (Index i = 0; i < n; ++i) V(begin + r, i) = rng.uniform() < sigmoid(beta * Bv(r, i) + vbias(i)) ? 1.0 : 0.0;
    }
}

}  // namespace

void gibbs_sweep(const Grbm& m, RowMat& V, ChainRngs& rngs, double beta, const DiagGaussianBase* base) {
    if (beta != 1.0 && base == nullptr) throw InputError("a GRBM sweep at beta < 1 needs a base distribution");
    for_each_block(V.rows(), [&](Index begin, Index end) { grbm_sweep_block(m, V, begin, end, rngs, beta, base); });
}

// ---------------- BRBM ----------------
void gibbs_sweep(const Brbm& m, RowMat& V, RowMat& H, ChainRngs& rngs, double beta, const Vec* base_bias) {
    H.resize(V.rows(), m.n_hidden());
    Vec vbias = beta * m.b;
    if (base_bias) vbias += (1.0 - beta) * *base_bias;
    const Vec hbias = beta * m.c;
    for_each_block(V.rows(), [&](Index begin, Index end) {
        brbm_sweep_block(m, V, H, begin, begin, end, rngs, beta, vbias, hbias);
    });
}

void gibbs_sweep(const Brbm& m, RowMat& V, ChainRngs& rngs, double beta, const Vec* base_bias) {
    RowMat H;
    gibbs_sweep(m, V, H, rngs, beta, base_bias);
}

// ---------------- Leaky ----------------
const char* leaky_kernel_name(LeakyKernel k) { return k == LeakyKernel::PaperGibbs ? "paper-gibbs" : "exact-mh"; }

LeakySweepStats leaky_sweep_block(const Leaky& m, RowMat& V, Index begin, Index end, ChainRngs& rngs,
                                  LeakyKernel kernel, double beta, double cl) {
    return detail::leaky_sweep_block_gram(m, nullptr, V, begin, end, rngs, kernel, beta, cl);
}

detail::LeakyConstants::LeakyConstants(const Leaky& m)
    : gram(m.W.transpose() * m.W), c_plus_wb(m.c.transpose() + m.b.transpose() * m.W) {}

LeakySweepStats detail::leaky_sweep_block_gram(const Leaky& m, const LeakyConstants* pre, RowMat& V, Index begin,
                                               Index end, ChainRngs& rngs, LeakyKernel kernel, double beta, double cl,
                                               const double* row_beta) {
    // Built here when the exact-MH kernel needs it and the caller has none: the kernel object
    // reads it and never allocates one.
    if (!pre && kernel == LeakyKernel::ExactMH) {
        const LeakyConstants own(m);
        return detail::kernel_table().leaky_sweep(m, &own, V, begin, end, rngs, kernel, beta, cl, row_beta);
    }
    return detail::kernel_table().leaky_sweep(m, pre, V, begin, end, rngs, kernel, beta, cl, row_beta);
}

void detail::leaky_eta(const Leaky& m, const RowMat& X, Index begin, Index rows, RowMat& E) {
    // Sized here, so the kernel writes into it without allocating: Eigen compiled for AVX2 or
    // AVX-512 allocates 32/64-byte aligned blocks by its own scheme, which free() here cannot take.
    E.resize(rows, m.n_hidden());
    detail::kernel_table().leaky_eta(m, X, begin, rows, E);
}

LeakySweepStats leaky_sweep(const Leaky& m, RowMat& V, ChainRngs& rngs, LeakyKernel kernel, double beta, double cl) {
    const Index blocks = (V.rows() + kChainBlock - 1) / kChainBlock;
    std::vector<LeakySweepStats> per(static_cast<std::size_t>(blocks));
    const detail::LeakyConstants pre(m);  // once for every block
    for_each_block(V.rows(), [&](Index begin, Index end) {
        per[static_cast<std::size_t>(begin / kChainBlock)] =
            detail::leaky_sweep_block_gram(m, &pre, V, begin, end, rngs, kernel, beta, cl);
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

PartialSweep::PartialSweep(const Model& model, const SweepOptions& opts) : model_(model), opts_(opts) {
    if (const auto* l = model.as<Leaky>()) leaky_ = std::make_unique<const detail::LeakyConstants>(*l);
    if (const auto* g = model.as<Gaussian>()) gaussian_chol_ = g->cholesky();
    if (const auto* b = model.as<Brbm>()) brbm_ = detail::kernel_table().brbm_double(*b, Vec::Zero(b->n_visible()));
}

PartialSweep::~PartialSweep() = default;

void PartialSweep::sweep_rows(RowMat& V, Index begin, Index end, ChainRngs& rngs) const {
    if (begin % kChainBlock != 0 || begin < 0 || end > V.rows() || end < begin)
        throw std::logic_error("PartialSweep: rows must start on a block boundary and lie inside V");
    // Offsets inside [begin, end) are block boundaries of the whole sweep, as begin is one.
    const auto blocks = [&](const auto& f) {
        for_each_block(end - begin, [&](Index b, Index e) { f(begin + b, begin + e); });
    };
    std::visit(
        [&](const auto& m) {
            using T = std::decay_t<decltype(m)>;
            if constexpr (std::is_same_v<T, Grbm>) {
                blocks([&](Index b, Index e) { grbm_sweep_block(m, V, b, e, rngs, 1.0, nullptr); });
            } else if constexpr (std::is_same_v<T, Brbm>) {
                blocks([&](Index b, Index e) { brbm_->sweep(1.0, nullptr, V, b, e, rngs, {}); });
            } else if constexpr (std::is_same_v<T, Leaky>) {
                blocks([&](Index b, Index e) {
                    detail::leaky_sweep_block_gram(m, leaky_.get(), V, b, e, rngs, opts_.leaky_kernel, 1.0, -1.0);
                });
            } else {
                blocks([&](Index b, Index e) { gaussian_sample(m.mean, gaussian_chol_, V, b, e, rngs); });
            }
        },
        model_.params);
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
                            else if constexpr (std::is_same_v<T, Brbm>)
                                V(r, i) = rng.uniform() < sigmoid(m.b(i)) ? 1.0 : 0.0;
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
