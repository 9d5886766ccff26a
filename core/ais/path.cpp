#include "core/ais/path.hpp"

namespace rbm {

void AnnealingPath::advance(double beta_prev, double beta, RowMat& X, Index begin, Index end, Vec& lw,
                            ChainRngs& rngs) const {
    Vec a(X.rows()), b(X.rows());
    log_f(beta, X, begin, end, a);
    log_f(beta_prev, X, begin, end, b);
    for (Index r = begin; r < end; ++r) lw(r) += a(r) - b(r);
    transition(beta, X, begin, end, rngs);
}

void AnnealingPath::set_visible(RowMat& X, Index begin, Index end, const RowMat& V, Index v_first) const {
    if (dim() != visible_dim())
        throw InputError("the " + name() +
                         " path carries more than the visible units in its state: it cannot start "
                         "chains from given visible states");
    X.middleRows(begin, end - begin) = V.middleRows(v_first, end - begin);
}

void AnnealingPath::sample_exact(double, RowMat&, Index, Index, ChainRngs&) const {
    throw InputError("perfect transitions are not available for the " + name() +
                     " path: its intermediate distributions cannot be sampled exactly");
}

}  // namespace rbm
