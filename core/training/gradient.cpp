// Scores d log p*(v) / d theta (free energies of docs/methods/models.md, hidden units summed out), their exact
// model expectations by enumeration, and the average log-likelihood.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/exact/exact.hpp"
#include "core/numerics/scalar.hpp"
#include "core/training/column_blocks.hpp"
#include "core/training/score_table.hpp"
#include "core/training/training.hpp"

namespace rbm {

Vec ParamGrad::flat() const {
    Vec out(W.size() + b.size() + c.size() + log_sigma.size());
    out << Eigen::Map<const Vec>(W.data(), W.size()), b, c, log_sigma;
    return out;
}

namespace {

// The per-row pieces every score is made of: s_W = A' M (rows of A times rows of M), s_b = Bv,
// s_c = M, s_logsigma = S, for a block of rows.
struct ScoreParts {
    RowMat A;   // n columns: the visible factor of s_W (v, or v / sigma)
    RowMat M;   // m columns: E[h | v] (BRBM, GRBM) or alpha∘eta (leaky)
    RowMat Bv;  // n columns: s_b
    RowMat S;   // n columns: s_logsigma (GRBM with sigma learned), else empty
};

ScoreParts score_parts(const Model& model, const RowMat& V, bool with_sigma) {
    ScoreParts p;
    if (const auto* m = model.as<Brbm>()) {
        RowMat L = V * m->W;
        L.rowwise() += m->c.transpose();
        p.M = L.unaryExpr([](double x) { return sigmoid(x); });
        p.A = V;
        p.Bv = V;
    } else if (const auto* m = model.as<Grbm>()) {
        const RowMat L = m->hidden_field(V);
        p.M = L.unaryExpr([&](double x) { return m->mean_hidden(x); });
        p.A = V.array().rowwise() / m->sigma.transpose().array();
        p.Bv = (V.rowwise() - m->b.transpose()).array().rowwise() / m->sigma.array().square().transpose();
        if (with_sigma) {
            // d/d log sigma_i: (v_i - b_i)^2 / sigma_i^2 - (v_i / sigma_i) (W E[h|v])_i
            const RowMat D = (V.rowwise() - m->b.transpose()).array().rowwise() / m->sigma.transpose().array();
            const RowMat U = p.M * m->W.transpose();
            p.S = D.array().square() - p.A.array() * U.array();
        }
    } else if (const auto* m = model.as<Leaky>()) {
        RowMat E = V * m->W;
        E.rowwise() += m->c.transpose();
        const double cl = m->leakiness;
        p.M = E.unaryExpr([cl](double e) { return e > 0 ? e : cl * e; });
        p.A = V;
        p.Bv = V;
    } else {
        throw InputError(std::string("training scores exist for brbm, grbm and leaky models, not ") +
                         kind_name(model.kind()));
    }
    if (with_sigma && !model.as<Grbm>()) throw InputError("only a GRBM has sigma to learn");
    return p;
}

}  // namespace

Index score_tile_values(const Model& model, bool with_sigma) {
    const Index n = model.n_visible(), m = model.n_hidden();
    return n * m + n + m + (with_sigma ? n : 0);
}

void score_tile_sums(const Model& model, const RowMat& V, Index first, Index end, bool with_sigma,
                     std::vector<double>& out) {
    score_tile_sums(model, V, nullptr, V.rows(), first, end, with_sigma, false, out);
}

void score_tile_sums(const Model& model, const RowMat& X, const Index* index, Index count, Index first, Index end,
                     bool with_sigma, bool float32, std::vector<double>& out) {
    const std::size_t at = out.size();
    out.resize(at + static_cast<std::size_t>(std::max<Index>(0, end - first) * score_tile_values(model, with_sigma)));
    try {
        score_tile_sums_to(model, X, index, count, first, end, with_sigma, float32, out.data() + at);
    } catch (...) {
        out.resize(at);  // refused: `out` as it was
        throw;
    }
}

void score_tile_sums_to(const Model& model, const RowMat& X, const Index* index, Index count, Index first, Index end,
                        bool with_sigma, bool float32, double* base) {
    score_tile_sums_to(model, {ScoreRows{&X, index, count, first, end, base}}, with_sigma, float32);
}

void score_tile_sums_to(const Model& model, const std::vector<ScoreRows>& parts, bool with_sigma, bool float32) {
    const Index n = model.n_visible(), m = model.n_hidden(), S = score_tile_values(model, with_sigma);
    // Tile k of all parts' tiles, in part order: its part and its tile within that part.
    std::vector<std::pair<std::size_t, Index>> tiles;
    for (std::size_t q = 0; q < parts.size(); ++q) {
        const ScoreRows& p = parts[q];
        if (p.X->cols() != n)
            throw InputError("score rows have " + std::to_string(p.X->cols()) + " columns, the model " +
                             std::to_string(n));
        if (!p.index && p.count != p.X->rows())
            throw InputError("score rows: a count without an index must be every row");
        if (p.first < 0 || p.end < p.first || p.end > gradient_tiles(p.count))
            throw InputError("score tiles out of range");
        for (Index t = p.first; t < p.end; ++t) tiles.emplace_back(q, t);
    }
    // BRBM and leaky RBM: the products on the dispatched path (training/score_table.hpp); W in
    // float once per call when the run asks for single precision.
    const auto* brbm = model.as<Brbm>();
    const auto* leaky = model.as<Leaky>();
    Eigen::MatrixXf Wf;
    detail::ScoreTile proto;
    const bool dispatched = (brbm || leaky) && !with_sigma;
    if (dispatched) {
        const Mat& W = brbm ? brbm->W : leaky->W;
        proto.n = n;
        proto.m = m;
        proto.W = W.data();
        proto.c = brbm ? brbm->c.data() : leaky->c.data();
        proto.leaky = leaky != nullptr;
        proto.leakiness = leaky ? leaky->leakiness : 0.0;
        if (float32) {
            Wf.resize(n, m);
            on_column_blocks(m, [&](Index j0, Index w) { Wf.middleCols(j0, w) = W.middleCols(j0, w).cast<float>(); });
            proto.Wf = Wf.data();
        }
    }
    const detail::ScoreTable* table = dispatched ? &detail::score_table() : nullptr;
    // The tiles in parallel (each into its own slot); what a tile holds never depends on who sums it.
    for_each_block(
        static_cast<Index>(tiles.size()),
        [&](Index k0, Index k1) {
            for (Index k = k0; k < k1; ++k) {
                const ScoreRows& p = parts[tiles[static_cast<std::size_t>(k)].first];
                const Index t = tiles[static_cast<std::size_t>(k)].second;
                const Index r0 = t * kGradientTile, rows = std::min(p.count, r0 + kGradientTile) - r0;
                double* s = p.dst + (t - p.first) * S;
                if (table) {
                    detail::ScoreTile tile = proto;
                    tile.X = p.X->data();
                    tile.ld = p.X->cols();
                    tile.index = p.index ? p.index + r0 : nullptr;
                    tile.first = r0;
                    tile.rows = rows;
                    table->tile_sums(tile, s);
                    continue;
                }
                const RowMat& X = *p.X;
                RowMat tile(rows, n);
                for (Index r = 0; r < rows; ++r) tile.row(r) = X.row(p.index ? p.index[r0 + r] : r0 + r);
                const ScoreParts sp = score_parts(model, tile, with_sigma);
                Eigen::Map<Mat>(s, n, m).noalias() = sp.A.transpose() * sp.M;
                Eigen::Map<Vec>(s + n * m, n) = sp.Bv.colwise().sum().transpose();
                Eigen::Map<Vec>(s + n * m + n, m) = sp.M.colwise().sum().transpose();
                if (with_sigma) Eigen::Map<Vec>(s + n * m + n + m, n) = sp.S.colwise().sum().transpose();
            }
        },
        1);
}

namespace {
// Value k summed over the tiles in tile order (s_0 + s_1 + ...): the one order every process and
// thread count adds them in (training.hpp, gradient tiles).
double tile_total(const double* sums, Index tiles, Index S, Index k) {
    double acc = sums[k];
    for (Index t = 1; t < tiles; ++t) acc += sums[t * S + k];
    return acc;
}
}  // namespace

ParamGrad mean_from_tile_sums(const Model& model, const double* sums, Index rows, bool with_sigma) {
    if (rows <= 0) throw InputError("a score needs at least one row");
    const Index n = model.n_visible(), m = model.n_hidden(), S = score_tile_values(model, with_sigma);
    Vec acc(S);
    for (Index k = 0; k < S; ++k) acc(k) = tile_total(sums, gradient_tiles(rows), S, k);
    const double inv = 1.0 / static_cast<double>(rows), count = static_cast<double>(rows);
    ParamGrad g;
    g.W = Eigen::Map<const Mat>(acc.data(), n, m) * inv;
    g.b = acc.segment(n * m, n) / count;
    g.c = acc.segment(n * m + n, m) / count;
    if (with_sigma) g.log_sigma = acc.segment(n * m + n + m, n) / count;
    return g;
}

void gradient_from_tile_sums(const Model& model, const double* pos, Index rows, const double* neg, Index neg_rows,
                             bool with_sigma, ParamGrad& g) {
    if (rows <= 0 || neg_rows <= 0) throw InputError("a score needs at least one row");
    const Index n = model.n_visible(), m = model.n_hidden(), S = score_tile_values(model, with_sigma);
    const Index tp = gradient_tiles(rows), tn = gradient_tiles(neg_rows);
    const double inv_p = 1.0 / static_cast<double>(rows), inv_n = 1.0 / static_cast<double>(neg_rows);
    const double count_p = static_cast<double>(rows), count_n = static_cast<double>(neg_rows);
    g.W.resize(n, m);
    g.b.resize(n);
    g.c.resize(m);
    g.log_sigma.resize(with_sigma ? n : 0);
    // As mean_from_tile_sums twice and a subtraction: W: total * (1/rows); b, c, log_sigma: total /
    // rows; then positive minus negative.
    // W in blocks of entries on the threads: each entry's operations are the same whoever does them.
    double* w = g.W.data();
    for_each_block(
        n * m,
        [&](Index k0, Index k1) {
            for (Index k = k0; k < k1; ++k)
                w[k] = tile_total(pos, tp, S, k) * inv_p - tile_total(neg, tn, S, k) * inv_n;
        },
        16384);
    double* tail[3] = {g.b.data(), g.c.data(), g.log_sigma.data()};
    const Index len[3] = {n, m, with_sigma ? n : 0};
    Index k = n * m;
    for (int part = 0; part < 3; ++part)
        for (Index i = 0; i < len[part]; ++i, ++k)
            tail[part][i] = tile_total(pos, tp, S, k) / count_p - tile_total(neg, tn, S, k) / count_n;
}

ParamGrad mean_score(const Model& model, const RowMat& V, bool with_sigma) {
    if (V.rows() == 0) throw InputError("a score needs at least one row");
    std::vector<double> sums;
    score_tile_sums(model, V, 0, gradient_tiles(V.rows()), with_sigma, sums);
    return mean_from_tile_sums(model, sums.data(), V.rows(), with_sigma);
}

Mat score_rows(const Model& model, const RowMat& V, bool with_sigma) {
    const ScoreParts p = score_parts(model, V, with_sigma);
    const Index n = p.A.cols(), m = p.M.cols();
    Mat out(V.rows(), n * m + n + m + (with_sigma ? n : 0));
    for (Index r = 0; r < V.rows(); ++r) {
        for (Index j = 0; j < m; ++j)
            for (Index i = 0; i < n; ++i) out(r, j * n + i) = p.A(r, i) * p.M(r, j);
        out.row(r).segment(n * m, n) = p.Bv.row(r);
        out.row(r).segment(n * m + n, m) = p.M.row(r);
        if (with_sigma) out.row(r).segment(n * m + n + m, n) = p.S.row(r);
    }
    return out;
}

ParamGrad exact_model_score(const Model& model, bool with_sigma) {
    if (const auto* m = model.as<Brbm>()) {
        const Index n = m->n_visible();
        if (with_sigma) throw InputError("only a GRBM has sigma to learn");
        if (n > 24)
            throw InputError("exact model score of a BRBM enumerates 2^" + std::to_string(n) +
                             " visible states; at most 2^24");
        const double log_z = exact_log_z(model);
        ParamGrad g{Mat::Zero(n, m->n_hidden()), Vec::Zero(n), Vec::Zero(m->n_hidden()), Vec()};
        const std::uint64_t total = std::uint64_t(1) << n, chunk = 4096;
        for (std::uint64_t start = 0; start < total; start += chunk) {
            const Index rows = static_cast<Index>(std::min(chunk, total - start));
            RowMat V(rows, n);
            for (Index r = 0; r < rows; ++r)
                for (Index i = 0; i < n; ++i) V(r, i) = ((start + static_cast<std::uint64_t>(r)) >> i) & 1u ? 1.0 : 0.0;
            const Vec p = (m->log_unnorm(V).array() - log_z).exp().matrix();
            const ScoreParts s = score_parts(model, V, false);
            g.W += s.A.transpose() * p.asDiagonal() * s.M;
            g.b += s.Bv.transpose() * p;
            g.c += s.M.transpose() * p;
        }
        return g;
    }
    if (const auto* m = model.as<Grbm>()) {
        // Over p(h) of docs/methods/models.md#grbm-hidden-marginal, with u = W h and E[v | h] = b + sigma∘u:
        //   E[s_W_ij] = E[(b_i/sigma_i + u_i) h_j], E[s_b] = E[u / sigma], E[s_c] = E[h],
        //   E[s_logsigma_i] = E[1 + u_i^2 - (b_i/sigma_i + u_i) u_i] = E[1 - (b_i/sigma_i) u_i].
        const Index n = m->n_visible(), k = m->n_hidden();
        const std::size_t X = m->hidden_values.size();
        const double configs = std::pow(static_cast<double>(X), static_cast<double>(k));
        if (configs > 16777216.0)
            throw InputError("exact model score of a GRBM enumerates " +
                             std::to_string(static_cast<long long>(configs)) + " hidden configurations; at most 2^24");
        const Vec B = m->hidden_marginal_field();
        const Mat J = m->hidden_marginal_coupling();
        const Vec bs = m->b.cwiseQuotient(m->sigma);
        std::vector<int> digit(static_cast<std::size_t>(k), 0);
        Vec h(k);
        LogSumExp lse;
        std::vector<double> logw;
        std::vector<Vec> hs;
        logw.reserve(static_cast<std::size_t>(configs));
        for (long long c = 0; c < static_cast<long long>(configs); ++c) {
            for (Index j = 0; j < k; ++j)
                h(j) = m->hidden_values[static_cast<std::size_t>(digit[static_cast<std::size_t>(j)])];
            const double lw = B.dot(h) + 0.5 * h.dot(J * h);
            lse.add(lw);
            logw.push_back(lw);
            hs.push_back(h);
            for (Index j = 0; j < k; ++j) {  // next configuration, mixed radix
                if (++digit[static_cast<std::size_t>(j)] < static_cast<int>(X)) break;
                digit[static_cast<std::size_t>(j)] = 0;
            }
        }
        const double log_z = lse.value();
        ParamGrad g{Mat::Zero(n, k), Vec::Zero(n), Vec::Zero(k), with_sigma ? Vec::Zero(n) : Vec()};
        for (std::size_t c = 0; c < hs.size(); ++c) {
            const double p = std::exp(logw[c] - log_z);
            const Vec u = m->W * hs[c];
            g.W += p * (bs + u) * hs[c].transpose();
            g.b += p * u.cwiseQuotient(m->sigma);
            g.c += p * hs[c];
            if (with_sigma) g.log_sigma += p * (Vec::Ones(n) - bs.cwiseProduct(u));
        }
        return g;
    }
    throw InputError(std::string("no exact model score for a ") + kind_name(model.kind()) + " model");
}

ParamGrad exact_log_likelihood_gradient(const Model& model, const RowMat& data, bool with_sigma) {
    ParamGrad g = mean_score(model, data, with_sigma);
    const ParamGrad e = exact_model_score(model, with_sigma);
    g.W -= e.W;
    g.b -= e.b;
    g.c -= e.c;
    if (with_sigma) g.log_sigma -= e.log_sigma;
    return g;
}

double average_log_likelihood(const Model& model, const RowMat& data, double log_z) {
    return model.log_unnorm(data).mean() - log_z;
}

}  // namespace rbm
