#include "core/ais/log_z_verdict.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <cstdio>
#include "core/numerics/types.hpp"

namespace rbm {

namespace {

std::string fixed(double x, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, x);
    return buf;
}

std::string interval_text(const LogZCandidate& c) {
    return c.method + " " + fixed(c.log_z, 4) + " [" + fixed(c.low, 4) + ", " + fixed(c.high, 4) + "]";
}

// The gap between two intervals that do not overlap (> 0), or 0.
double gap(const LogZCandidate& a, const LogZCandidate& b) { return std::max({0.0, a.low - b.high, b.low - a.high}); }

}  // namespace

LogZVerdict judge_log_z(const std::vector<LogZCandidate>& c, std::optional<double> exact) {
    if (c.empty()) throw InputError("log Z verdict: no estimates");
    for (const auto& e : c)
        if (!std::isfinite(e.log_z) || !std::isfinite(e.low) || !std::isfinite(e.high) || e.low > e.high)
            throw InputError("log Z verdict: " + e.method + " has no finite interval around its estimate");
    if (exact && !std::isfinite(*exact)) throw InputError("log Z verdict: the exact log Z is not finite");

    LogZVerdict v;
    v.used.assign(c.size(), true);
    for (std::size_t i = 0; i < c.size(); ++i) {
        const auto& e = c[i];
        if (!e.complete) {
            v.used[i] = false;
            v.warnings.push_back(e.method + " was interrupted: left out");
        } else if (e.pareto_k && e.pareto_threshold && !(*e.pareto_k <= *e.pareto_threshold)) {
            v.used[i] = false;
            v.warnings.push_back(e.method + ": its weights have a heavy tail (Pareto k = " + fixed(*e.pareto_k, 2) +
                                 " > " + fixed(*e.pareto_threshold, 2) +
                                 "), so its interval is not to be trusted: left out");
        }
    }
    std::set<std::string> sources;
    bool overlap = true;
    for (std::size_t i = 0; i < c.size(); ++i) {
        if (!v.used[i]) continue;
        sources.insert(c[i].source.empty() ? c[i].method : c[i].source);
        for (std::size_t j = i + 1; j < c.size(); ++j) {
            if (!v.used[j] || gap(c[i], c[j]) == 0) continue;
            overlap = false;
            const auto& lo = c[i].log_z < c[j].log_z ? c[i] : c[j];
            const auto& hi = c[i].log_z < c[j].log_z ? c[j] : c[i];
            std::string why = " (" + fixed(gap(c[i], c[j]), 3) + " nats between the intervals)";
            if (lo.side == LogZSide::Upper && hi.side == LogZSide::Lower)
                why +=
                    ": the forward estimate is above the reverse one, a broken sandwich (the reverse chains "
                    "did not start at the target, or the forward weights missed their tail)";
            else
                why +=
                    ": the lower one missed probability mass the higher one found (a mode its chains "
                    "never reached), or the higher one is wrong";
            v.warnings.push_back(interval_text(lo) + " and " + interval_text(hi) + " disagree" + why);
        }
    }
    v.agree = overlap && sources.size() >= 2;
    if (sources.size() < 2)
        v.warnings.push_back(sources.empty() ? "every estimate was left out: no verdict can be given"
                                             : "one independent estimate only: nothing to compare it with");

    // The verdict's estimate and interval from the estimates kept (all of them when none is).
    std::vector<std::size_t> kept;
    for (std::size_t i = 0; i < c.size(); ++i)
        if (v.used[i]) kept.push_back(i);
    if (kept.empty())
        for (std::size_t i = 0; i < c.size(); ++i) kept.push_back(i);
    v.low = c[kept[0]].low;
    v.high = c[kept[0]].high;
    for (std::size_t i : kept) v.low = std::min(v.low, c[i].low), v.high = std::max(v.high, c[i].high);
    if (v.agree) {
        double sw = 0, swx = 0;
        for (std::size_t i : kept) {
            const double se = std::max((c[i].high - c[i].low) / 3.92, 1e-12);
            sw += 1 / (se * se);
            swx += c[i].log_z / (se * se);
        }
        v.log_z = swx / sw;
    } else {
        v.log_z = c[kept[0]].log_z;
        for (std::size_t i : kept) v.log_z = std::max(v.log_z, c[i].log_z);
    }

    if (exact) {
        for (std::size_t i = 0; i < c.size(); ++i)
            if (*exact < c[i].low || *exact > c[i].high)
                v.warnings.push_back(interval_text(c[i]) + " misses the exact log Z " + fixed(*exact, 4) + " by " +
                                     fixed(std::max(c[i].low - *exact, *exact - c[i].high), 3) + " nats");
        v.log_z = v.low = v.high = *exact;
    }
    v.trusted = v.agree && v.warnings.empty();
    return v;
}

}  // namespace rbm
