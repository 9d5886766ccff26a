// The gradient of a BRBM or leaky RBM update from its products (training/score_table.hpp):
//   M = f(v W + c) for the batch's and the negatives' rows (HiddenPass),
//   G = sum_batch v' M - (rows / neg_rows) sum_negatives v' M (WeightPass),
// so W's gradient is G / rows, with b and c the rows' means in double. On 0/1 rows both products
// sum rows selected by the active units (kernels/panels.hpp), a third of a GEMM's arithmetic, and
// W's gradient is one sum over the update's rows instead of a matrix of sums per tile.
//
// With an exchange (Trainer::set_exchange), part q computes M for its tiles only; the parts
// all-gather those rows (and their negative rows) and each runs the same weight pass on the
// same values, so every part holds bitwise the parameters of one process.
#include <algorithm>
#include <stdexcept>

#include "core/numerics/parallel.hpp"
#include "core/tempering/pt.hpp"
#include "core/training/score_table.hpp"
#include "core/training/trainer_impl.hpp"

namespace rbm {

void Trainer::Impl::size_update_M(Index rows) {
    const std::size_t values = static_cast<std::size_t>(rows * detail::update_ld(model.n_hidden()));
    update_M.resize(options.float32 ? (values + 1) / 2 : values);  // floats two to a double
}

bool Trainer::Impl::uses_update_products() const {
    return (options.kind == ModelKind::Brbm || options.kind == ModelKind::Leaky) && !learns_sigma();
}

std::string Trainer::Impl::product_gradient(const Index* batch_rows, Index rows, const RowMat* neg, Index neg_rows,
                                            std::pair<Index, Index> pos_tiles, std::pair<Index, Index> neg_tiles,
                                            const std::string& failed, const std::string& not_finite,
                                            bool stop_requested) {
    const Index n = model.n_visible(), m = model.n_hidden(), ld = detail::update_ld(m), R = rows + neg_rows;
    const bool f32 = options.float32;
    const std::size_t per_double = f32 ? 2 : 1;
    size_update_M(R);
    update_G.resize((static_cast<std::size_t>(n * m) + per_double - 1) / per_double);
    const Brbm* brbm = model.as<Brbm>();
    const Leaky* leaky = model.as<Leaky>();
    // A BRBM's data are 0/1 (validate refuses others) and so are its Gibbs samples.
    const bool binary = brbm != nullptr;
    const detail::ScoreTable& table = detail::score_table();

    detail::HiddenPass h;
    h.rows[0] = {data.X.data(), data.X.cols(), batch_rows, rows};
    h.rows[1] = {neg ? neg->data() : nullptr, n, nullptr, neg_rows};
    h.first[0] = pos_tiles.first;
    h.end[0] = pos_tiles.second;
    h.first[1] = neg_tiles.first;
    h.end[1] = failed.empty() ? neg_tiles.second : neg_tiles.first;  // a failed negative phase is not read
    h.m_row[1] = rows;
    h.binary[0] = h.binary[1] = binary;
    h.M = update_M.data();
    h.n = n;
    h.m = m;
    h.W = brbm ? brbm->W.data() : leaky->W.data();
    h.c = brbm ? brbm->c.data() : leaky->c.data();
    h.leaky = leaky != nullptr;
    h.leakiness = leaky ? leaky->leakiness : 0.0;
    h.float32 = f32;
    h.step = sampler->last_step();                  // built from this model's W in this update's negative phase
    h.have_sums[0] = sampler->wrote_hidden_sums();  // cd: the batch's, from its first sweep
    table.hidden_pass(h);

    const RowMat* negs = neg;
    if (exchange) {
        // This part's rows: for its batch tiles their M rows, for its negative tiles their visible
        // rows and M rows; then 1 if its negative phase failed.
        auto rows_of = [&](std::pair<Index, Index> tiles, Index count) {
            return std::pair<Index, Index>{tiles.first * kGradientTile, std::min(count, tiles.second * kGradientTile)};
        };
        std::vector<double> mine;
        with_update_sums(f32, update_M, [&](const auto* M) {
            const auto [p0, p1] = rows_of(pos_tiles, rows);
            for (Index r = p0; r < p1; ++r) mine.insert(mine.end(), M + r * ld, M + r * ld + m);
            const auto [n0, n1] = rows_of(neg_tiles, neg_rows);
            for (Index r = n0; r < n1; ++r) {
                if (failed.empty()) {
                    mine.insert(mine.end(), neg->data() + r * n, neg->data() + (r + 1) * n);
                    mine.insert(mine.end(), M + (rows + r) * ld, M + (rows + r) * ld + m);
                } else {
                    mine.insert(mine.end(), static_cast<std::size_t>(n + m), 0.0);
                }
            }
        });
        mine.push_back(failed.empty() ? 0.0 : 1.0);
        values_shared += mine.size();
        bool stop = stop_requested;
        const std::vector<double> all = exchange->all_gather(mine, stop);
        stop_agreed = stop;
        // Part q's block, in the order it was sent (the shares are known to all).
        const Index P = exchange->parts(), tp = gradient_tiles(rows), tn = gradient_tiles(neg_rows);
        shared_neg.resize(neg_rows, n);
        std::size_t at = 0;
        bool any_failed = false;
        with_update_sums(f32, update_M, [&](auto* M) {
            using S = std::remove_pointer_t<decltype(M)>;
            auto take = [&](S* dst, Index count) {
                if (at + static_cast<std::size_t>(count) > all.size())
                    throw std::logic_error("the parts' rows do not add up");
                for (Index j = 0; j < count; ++j) dst[j] = static_cast<S>(all[at + static_cast<std::size_t>(j)]);
                at += static_cast<std::size_t>(count);
            };
            for (Index q = 0; q < P; ++q) {
                const auto [p0, p1] = rows_of({q * tp / P, (q + 1) * tp / P}, rows);
                for (Index r = p0; r < p1; ++r) take(M + r * ld, m);
                const auto [n0, n1] = rows_of({q * tn / P, (q + 1) * tn / P}, neg_rows);
                for (Index r = n0; r < n1; ++r) {
                    if (at + static_cast<std::size_t>(n) > all.size())
                        throw std::logic_error("the parts' rows do not add up");
                    std::copy_n(all.begin() + static_cast<std::ptrdiff_t>(at), n, shared_neg.row(r).data());
                    at += static_cast<std::size_t>(n);
                    take(M + (rows + r) * ld, m);
                }
                if (at >= all.size()) throw std::logic_error("the parts' rows do not add up");
                any_failed = any_failed || all[at] != 0.0;
                ++at;
            }
        });
        if (at != all.size()) throw std::logic_error("the parts' rows do not add up");
        if (any_failed) return failed.empty() ? not_finite + " (on another process)" : failed;
        negs = &shared_neg;
    } else if (!failed.empty()) {
        return failed;
    }

    // b and c: each part's rows added in row order in double, then divided by its rows; blocks of
    // 128 of the n + m columns on the threads (a column's sums do not depend on the blocks). On 0/1
    // rows b's sums are counts of ones, which the weight pass below makes anyway (ones[q]): b is
    // formed after it from those, the same values, without reading the rows again.
    ParamGrad& g = last_gradient;
    g.b.resize(n);
    g.c.resize(m);
    g.log_sigma.resize(0);
    const Index b_cols = binary ? 0 : n;  // b's columns summed here
    with_update_sums(f32, update_M, [&](const auto* M) {
        for_each_block(
            b_cols + m,
            [&](Index k0, Index k1) {
                // The block's columns of b (k < b_cols) and of c (k >= b_cols).
                const Index b0 = std::min(k0, b_cols), b1 = std::min(k1, b_cols), c0 = std::max(k0, b_cols) - b_cols,
                            c1 = std::max(k1, b_cols) - b_cols;
                double sum[128];
                double* out_b = g.b.data();
                double* out_c = g.c.data();
                for (Index k = b0; k < b1; ++k) out_b[k] = 0.0;
                for (Index k = c0; k < c1; ++k) out_c[k] = 0.0;
                for (int q = 0; q < 2; ++q) {
                    const Index count = q == 0 ? rows : neg_rows, first = q == 0 ? 0 : rows;
                    const double sign = q == 0 ? 1.0 : -1.0, count_d = static_cast<double>(count);
                    std::fill(sum, sum + (k1 - k0), 0.0);
                    for (Index r = 0; r < count; ++r) {
                        if (b1 > b0) {
                            const double* v = q == 0 ? data.X.row(batch_rows[r]).data() : negs->row(r).data();
                            for (Index k = b0; k < b1; ++k) sum[k - b0] += v[k];
                        }
                        const auto* mr = M + (first + r) * ld;
                        for (Index k = c0; k < c1; ++k) sum[(b1 - b0) + k - c0] += static_cast<double>(mr[k]);
                    }
                    for (Index k = b0; k < b1; ++k) out_b[k] += sign * (sum[k - b0] / count_d);
                    for (Index k = c0; k < c1; ++k) out_c[k] += sign * (sum[(b1 - b0) + k - c0] / count_d);
                }
            },
            128);
    });

    detail::WeightPass w;
    w.rows[0] = h.rows[0];
    w.rows[1] = {negs->data(), n, nullptr, neg_rows};
    w.m_row[1] = rows;
    w.binary[0] = w.binary[1] = binary;
    w.M = update_M.data();
    w.neg_scale = -static_cast<double>(rows) / static_cast<double>(neg_rows);
    w.G = update_G.data();
    w.n = n;
    w.m = m;
    w.float32 = f32;
    if (binary) {
        update_ones.resize(static_cast<std::size_t>(2 * n));
        w.ones[0] = update_ones.data();
        w.ones[1] = update_ones.data() + n;
    }
    table.weight_pass(w);
    if (binary) {
        // As the row sums above would form them: 0 + (ones / rows), then - (ones / neg_rows).
        const double rows_d = static_cast<double>(rows), neg_d = static_cast<double>(neg_rows);
        for (Index k = 0; k < n; ++k) {
            double b = 0.0;
            b += 1.0 * (static_cast<double>(w.ones[0][k]) / rows_d);
            b += -1.0 * (static_cast<double>(w.ones[1][k]) / neg_d);
            g.b[k] = b;
        }
    }
    return {};
}

}  // namespace rbm
