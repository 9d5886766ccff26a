#pragma once
// Small helpers shared by the core suites: wrapping parameters into a Model, running code at a
// given thread count, and the exactness check every AIS path's advance() must pass.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "check.hpp"
#include "core/ais/path.hpp"
#include "core/models/models.hpp"
#include "core/numerics/parallel.hpp"

namespace rbm::test {

template <class Params>
Model as_model(Params params, bool validated = false) {
    Model m;
    m.params = std::move(params);
    if (validated) validate(m);
    return m;
}

// f() with at most `threads` oneTBB threads.
template <class F>
auto at_threads(int threads, F&& f) {
    ThreadLimit limit(threads);
    return f();
}

// advance(from, to) must add exactly log f_to - log f_from of the states it starts from, and move
// the chains exactly as transition(to) does with the same streams.
inline void check_advance_is_increment_then_transition(const AnnealingPath& p, Index chains, std::uint64_t seed,
                                                       const std::vector<std::pair<double, double>>& steps,
                                                       double rel_tol) {
    ChainRngs r0(seed, chains);
    RowMat X(chains, p.dim());
    p.sample_base(X, 0, chains, r0);
    for (const auto& [from, to] : steps) {
        RowMat X1 = X, X2 = X;
        ChainRngs ra(seed + 1, chains), rb(seed + 1, chains);
        Vec lw = Vec::Zero(chains), fa(chains), fb(chains);
        p.advance(from, to, X1, 0, chains, lw, ra);
        p.log_f(to, X, 0, chains, fa);
        p.log_f(from, X, 0, chains, fb);
        p.transition(to, X2, 0, chains, rb);
        double worst = 0;
        for (Index r = 0; r < chains; ++r)
            worst = std::max(worst, std::fabs(lw(r) - (fa(r) - fb(r))) / (1 + std::fabs(fa(r))));
        CHECK_MSG(worst < rel_tol, p.name() << " " << from << "->" << to << ": increment differs by " << worst);
        CHECK_MSG(X1 == X2, p.name() << ": advance moved the chains differently from transition");
    }
}

}  // namespace rbm::test
