#pragma once
// One verdict from several independent estimates of log Z (docs/methods/log-z-verdict.md).
//
// Each estimator can miss in its own way: forward AIS is low when its chains never reach a mode
// (E[Z-hat] = Z, so by Markov's inequality P(log Z-hat > log Z + t) <= e^-t: a miss is low), with
// an interval as narrow as if nothing were wrong; reverse AIS from exact target samples is the
// mirror image (P(log Z-hat_rev < log Z - t) <= e^-t); tempering's stepping stone and BAR miss
// low when the ladder's top rungs miss a mode. Different starting points (bases, a ladder) miss
// different modes, so the estimates are compared:
//  1. an estimate whose own numbers say it is unreliable is set aside with a warning: Pareto
//     k-hat of its weights above its threshold (core/ais/pareto_khat.hpp), or an interrupted run;
//  2. the others agree when every two 95 % intervals overlap; each pair that does not is named,
//     with the gap, and a forward estimate above a reverse one as a broken sandwich;
//  3. agreeing (at least two independent sources): log Z = the inverse-variance mean (se from
//     each interval's width / 3.92), ci95 = the hull of their intervals (conservative: the AIS
//     bootstrap interval can be too narrow, docs/methods/log-z-verdict.md#calibration);
//     disagreeing: log Z = the highest estimate (every way of missing mass is low), ci95 = the
//     hull of all, and not trusted;
//  4. trusted = agree and no warning.
// With the exact value given, the verdict is the exact value, and every estimate whose interval
// misses it is named too (so the rule's calibration can be measured on enumerable models).
#include <optional>
#include <string>
#include <vector>

namespace rbm {

enum class LogZSide {
    TwoSided,  // PT stepping stone / BAR
    Lower,     // forward AIS: low in probability
    Upper,     // reverse AIS: high in probability when its chains start at the target
};

struct LogZCandidate {
    std::string method;  // e.g. "forward AIS, moment base"
    std::string source;  // runs that share samples share a source (BAR and stepping stone: "pt")
    double log_z = 0, low = 0, high = 0;
    LogZSide side = LogZSide::TwoSided;
    std::optional<double> pareto_k, pareto_threshold;  // forward AIS weights
    bool complete = true;
};

struct LogZVerdict {
    double log_z = 0, low = 0, high = 0;
    bool agree = false;    // >= 2 independent sources left, every two intervals overlap
    bool trusted = false;  // agree and no warning
    std::vector<std::string> warnings;
    std::vector<bool> used;  // per candidate: not set aside in step 1
};

// InputError when `c` is empty or a candidate's numbers are not finite or low > high.
LogZVerdict judge_log_z(const std::vector<LogZCandidate>& c, std::optional<double> exact_log_z = std::nullopt);

}  // namespace rbm
