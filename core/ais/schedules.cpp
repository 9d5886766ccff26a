#include "core/ais/schedules.hpp"
#include "core/numerics/format.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "core/numerics/scalar.hpp"

namespace rbm {

namespace {

void require_steps(Index steps, Index min_steps, const std::string& what) {
    if (steps < min_steps)
        throw InputError("the " + what + " schedule needs at least " + std::to_string(min_steps) + " steps, got " +
                         std::to_string(steps));
}

// Split `total` steps over pieces in proportion to `weights`, at least one each, by largest
// remainder (ties to the earlier piece), so the counts sum to exactly `total`.
std::vector<Index> allocate(Index total, const std::vector<double>& weights) {
    const std::size_t r = weights.size();
    const double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
    std::vector<double> target(r);
    for (std::size_t i = 0; i < r; ++i)
        target[i] = sum > 0 ? static_cast<double>(total) * weights[i] / sum : static_cast<double>(total) / r;
    std::vector<Index> k(r);
    Index used = 0;
    for (std::size_t i = 0; i < r; ++i) {
        k[i] = std::max<Index>(1, static_cast<Index>(std::floor(target[i])));
        used += k[i];
    }
    while (used < total) {  // add where the shortfall is largest
        std::size_t best = 0;
        for (std::size_t i = 1; i < r; ++i)
            if (target[i] - k[i] > target[best] - k[best]) best = i;
        ++k[best];
        ++used;
    }
    while (used > total) {  // the minimum of one step overshot: take from the most over-served
        std::size_t best = r;
        for (std::size_t i = 0; i < r; ++i)
            if (k[i] > 1 && (best == r || k[i] - target[i] > k[best] - target[best])) best = i;
        --k[best];
        --used;
    }
    return k;
}

// Concatenate linear pieces: piece i runs from edges[i] to edges[i+1] in counts[i] steps.
Schedule piecewise_linear(const std::vector<double>& edges, const std::vector<Index>& counts) {
    Schedule s{0.0};
    for (std::size_t p = 0; p < counts.size(); ++p) {
        const double a = edges[p], b = edges[p + 1];
        for (Index i = 1; i <= counts[p]; ++i)
            s.push_back(i == counts[p] ? b : a + (b - a) * static_cast<double>(i) / static_cast<double>(counts[p]));
    }
    s.front() = 0.0;
    s.back() = 1.0;
    return s;
}

}  // namespace

void validate_schedule(const Schedule& s) {
    if (s.size() < 2)
        throw InputError("a schedule needs at least two betas (0 and 1, i.e. one step), got " +
                         std::to_string(s.size()));
    for (std::size_t k = 0; k < s.size(); ++k)
        if (!std::isfinite(s[k])) throw InputError("schedule has a non-finite beta at step " + std::to_string(k));
    if (s.front() != 0.0)
        throw InputError("schedule must start at beta = 0, but starts at " + format_number(s.front()));
    if (s.back() != 1.0) throw InputError("schedule must end at beta = 1, but ends at " + format_number(s.back()));
    for (std::size_t k = 1; k < s.size(); ++k) {
        if (!(s[k] > s[k - 1]))
            throw InputError("schedule is not increasing at step " + std::to_string(k) + ": " +
                             format_number(s[k - 1]) + " then " + format_number(s[k]));
        if (s[k] > 1.0)
            throw InputError("schedule leaves [0, 1] at step " + std::to_string(k) + ": " + format_number(s[k]));
    }
}

Schedule linear_schedule(Index steps) {
    require_steps(steps, 1, "linear");
    Schedule s(static_cast<std::size_t>(steps) + 1);
    for (Index k = 0; k <= steps; ++k)
        s[static_cast<std::size_t>(k)] = static_cast<double>(k) / static_cast<double>(steps);
    s.back() = 1.0;
    return s;
}

Schedule geometric_schedule(Index steps, double start) {
    require_steps(steps, 1, "geometric");
    if (!(start > 0 && start < 1))
        throw InputError("the geometric schedule's first beta must be in (0, 1), got " + format_number(start));
    Schedule s{0.0};
    if (steps == 1) {
        s.push_back(1.0);
        return s;
    }
    const double log_start = std::log(start);
    for (Index k = 1; k <= steps; ++k)
        s.push_back(std::exp(log_start * (1.0 - static_cast<double>(k - 1) / static_cast<double>(steps - 1))));
    s.back() = 1.0;
    validate_schedule(s);  // a start too close to 1 for K steps collapses adjacent betas
    return s;
}

Schedule sigmoid_schedule(Index steps, double delta) {
    require_steps(steps, 1, "sigmoid");
    if (!(delta > 0)) throw InputError("the sigmoid schedule's delta must be > 0, got " + format_number(delta));
    const double lo = sigmoid(-delta), hi = sigmoid(delta);
    Schedule s(static_cast<std::size_t>(steps) + 1);
    for (Index k = 0; k <= steps; ++k) {
        const double t = static_cast<double>(k) / static_cast<double>(steps);
        s[static_cast<std::size_t>(k)] = (sigmoid(delta * (2 * t - 1)) - lo) / (hi - lo);
    }
    s.front() = 0.0;
    s.back() = 1.0;
    validate_schedule(s);
    return s;
}

Schedule four_period_schedule(Index steps) {
    require_steps(steps, 4, "four-period");
    std::vector<Index> counts(4, steps / 4);
    for (Index p = 0; p < steps % 4; ++p) ++counts[static_cast<std::size_t>(p)];
    return piecewise_linear({0.0, 0.1, 0.25, 0.5, 1.0}, counts);
}

Schedule piecewise_schedule(Index steps) {
    const std::vector<double> edges{0.0, 0.5, 0.9, 1.0};
    if (steps == 0) return piecewise_linear(edges, {500, 4000, 10000});
    require_steps(steps, 3, "piecewise");
    return piecewise_linear(edges, allocate(steps, {500.0, 4000.0, 10000.0}));
}

Schedule binned_schedule(const std::vector<AnnealingPath::Knot>& knots, Index steps) {
    if (knots.size() < 2)
        throw InputError(
            "the binned schedule needs a path with knots (an exponential-family view such as the "
            "moments path); this path has none");
    if (knots.front().beta != 0.0 || knots.back().beta != 1.0)
        throw InputError("the binned schedule needs knots from beta = 0 to beta = 1; the path's run from " +
                         format_number(knots.front().beta) + " to " + format_number(knots.back().beta));
    const std::size_t segments = knots.size() - 1;
    if (steps < static_cast<Index>(segments))
        throw InputError("the binned schedule needs at least one step per knot segment: " + std::to_string(segments) +
                         " segments, but " + std::to_string(steps) + " steps");
    std::vector<double> edges{0.0}, weights;
    for (std::size_t r = 0; r < segments; ++r) {
        const auto& a = knots[r];
        const auto& b = knots[r + 1];
        if (!(b.beta > a.beta))
            throw InputError("the path's knots are not increasing in beta at knot " + std::to_string(r + 1));
        if (a.eta.size() != b.eta.size() || a.s.size() != b.s.size() || a.eta.size() != a.s.size())
            throw InputError("the path's knots have mismatched natural parameter and moment sizes");
        // (eta_{r+1}-eta_r)'(s_{r+1}-s_r) >= 0 in exact arithmetic (monotone gradient of log Z).
        weights.push_back(std::sqrt(std::max(0.0, (b.eta - a.eta).dot(b.s - a.s))));
        edges.push_back(b.beta);
    }
    Schedule s = piecewise_linear(edges, allocate(steps, weights));
    validate_schedule(s);
    return s;
}

const std::vector<std::string>& schedule_kinds() {
    static const std::vector<std::string> k{"linear", "sigmoid",   "four-period", "piecewise",
                                            "binned", "geometric", "list"};
    return k;
}

Schedule make_schedule(const ScheduleRequest& req, const AnnealingPath* path) {
    const std::string& k = req.kind;
    if (k == "list") {
        if (req.steps != 0 && static_cast<std::size_t>(req.steps) + 1 != req.list.size())
            throw InputError("the schedule list has " + std::to_string(req.list.size()) + " betas (" +
                             std::to_string(static_cast<long long>(req.list.size()) - 1) + " steps), but " +
                             std::to_string(req.steps) + " steps were asked for");
        validate_schedule(req.list);
        return req.list;
    }
    if (k == "linear") return linear_schedule(req.steps);
    if (k == "geometric") return geometric_schedule(req.steps, req.geometric_start);
    if (k == "sigmoid") return sigmoid_schedule(req.steps, req.sigmoid_delta);
    if (k == "four-period") return four_period_schedule(req.steps);
    if (k == "piecewise") return piecewise_schedule(req.steps);
    if (k == "binned") {
        if (!path) throw InputError("the binned schedule needs the annealing path (for its knots)");
        return binned_schedule(path->knots(), req.steps);
    }
    std::string list;
    for (const auto& s : schedule_kinds()) list += (list.empty() ? "" : "|") + s;
    throw InputError("unknown schedule '" + k + "': expected " + list);
}

}  // namespace rbm
