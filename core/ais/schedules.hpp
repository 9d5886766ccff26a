#pragma once
// Annealing schedules (docs/methods/schedules.md). A schedule of K steps is K+1 values of beta, strictly
// increasing from exactly 0 to exactly 1; every builder returns one and every bad one is an
// InputError naming the problem.
#include <string>
#include <vector>

#include "core/ais/path.hpp"
#include "core/numerics/types.hpp"

namespace rbm {

using Schedule = std::vector<double>;

// InputError unless s has at least two entries, starts at exactly 0, ends at exactly 1, is
// finite and strictly increasing ("schedule is not increasing at step 7: 0.4 then 0.35").
void validate_schedule(const Schedule& s);

// beta_k = k / K.
Schedule linear_schedule(Index steps);
// Geometric in beta: beta_1..beta_K = start * (1/start)^((k-1)/(K-1)) (so beta_1 = start,
// beta_K = 1), with beta_0 = 0 prepended. K = 1 gives {0, 1}. start in (0, 1).
Schedule geometric_schedule(Index steps, double start = 1e-4);
// Grosse et al.: beta_k ∝ sigm(delta (2 k/K - 1)), shifted and scaled so beta_0 = 0, beta_K = 1.
Schedule sigmoid_schedule(Index steps, double delta = 4.0);
// Kiwaki & Aihara §5: K/4 steps spaced linearly on each of [0,0.1], [0.1,0.25], [0.25,0.5],
// [0.5,1]. When 4 does not divide K the first K mod 4 periods get one extra step. K >= 4.
Schedule four_period_schedule(Index steps);
// Salakhutdinov & Murray: step 1e-3 on [0,0.5], 1e-4 on [0.5,0.9], 1e-5 on [0.9,1], i.e.
// 500 + 4000 + 10000 = 14500 steps. steps = 0 keeps exactly that; any other K >= 3 keeps the
// proportions 500 : 4000 : 10000 (largest-remainder rounding, at least one step per piece),
// steps spaced linearly inside each piece.
inline constexpr Index kPiecewiseDefaultSteps = 14500;
Schedule piecewise_schedule(Index steps = 0);
// Optimal binned schedule (Grosse et al. Theorem 3): segment r between consecutive knots gets
// K_r ∝ sqrt((eta_{r+1}-eta_r)'(s_{r+1}-s_r)) steps (at least one each, largest-remainder
// rounding to sum to K), spaced linearly inside. The knots must run from beta = 0 to beta = 1
// in increasing order; InputError when there are none or K < number of segments.
Schedule binned_schedule(const std::vector<AnnealingPath::Knot>& knots, Index steps);

// By name, as the CLI and GUI ask for it: linear | geometric | sigmoid | four-period |
// piecewise | binned | list. `path` is needed for binned (its knots()), `list` for list (the
// user's betas, validated; steps must be 0 or equal to list.size() - 1).
struct ScheduleRequest {
    std::string kind = "linear";
    Index steps = 1000;             // K; for piecewise 0 means the original 14500
    double geometric_start = 1e-4;  // first nonzero beta of the geometric schedule
    double sigmoid_delta = 4.0;
    std::vector<double> list;  // kind == "list"
};
Schedule make_schedule(const ScheduleRequest& request, const AnnealingPath* path = nullptr);
const std::vector<std::string>& schedule_kinds();

}  // namespace rbm
