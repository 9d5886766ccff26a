// Per-row log p*(v) and the exact pseudo-log-likelihood (training/heldout.hpp).
#include "core/training/heldout.hpp"

#include <string>

#include "core/numerics/parallel.hpp"
#include "core/numerics/scalar.hpp"

namespace rbm {

Vec log_unnorm_rows(const Model& model, const RowMat& V) {
    Vec out(V.rows());
    for_each_block(V.rows(), [&](Index begin, Index end) {
        out.segment(begin, end - begin) = model.log_unnorm(V.middleRows(begin, end - begin));
    });
    return out;
}

bool is_binary(const RowMat& V) { return ((V.array() == 0.0) || (V.array() == 1.0)).all(); }

Vec brbm_pseudo_log_likelihood(const Brbm& m, const RowMat& V) {
    const Index n = m.n_visible(), k = m.n_hidden();
    if (V.cols() != n)
        throw InputError("pseudo-likelihood: the data have " + std::to_string(V.cols()) +
                         " values per row, the model " + std::to_string(n) + " visible units");
    for (Index r = 0; r < V.rows(); ++r)
        for (Index i = 0; i < n; ++i)
            if (V(r, i) != 0.0 && V(r, i) != 1.0)
                throw InputError("pseudo-likelihood needs 0/1 data; row " + std::to_string(r) + " holds " +
                                 std::to_string(V(r, i)));
    Vec out(V.rows());
    for_each_block(V.rows(), [&](Index begin, Index end) {
        const RowMat A = (V.middleRows(begin, end - begin) * m.W).rowwise() + m.c.transpose();
        Vec sp(k);
        for (Index r = begin; r < end; ++r) {
            const auto a = A.row(r - begin);
            for (Index j = 0; j < k; ++j) sp(j) = softplus(a(j));
            double pll = 0;
            for (Index i = 0; i < n; ++i) {
                const double s = 1.0 - 2.0 * V(r, i);
                double d = s * m.b(i);
                for (Index j = 0; j < k; ++j) d += softplus(a(j) + s * m.W(i, j)) - sp(j);
                pll -= softplus(d);
            }
            out(r) = pll;
        }
    });
    return out;
}

}  // namespace rbm
