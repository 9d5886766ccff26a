#include "suggest.hpp"

#include <algorithm>

namespace rbm::cli {

std::size_t edit_distance(const std::string& a, const std::string& b) {
    // d[i][j]: edits from a[0..i) to b[0..j); three rows suffice for the transposition rule.
    const std::size_t n = a.size(), m = b.size();
    std::vector<std::size_t> prev2(m + 1), prev(m + 1), cur(m + 1);
    for (std::size_t j = 0; j <= m; ++j) prev[j] = j;
    for (std::size_t i = 1; i <= n; ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= m; ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                cur[j] = std::min(cur[j], prev2[j - 2] + 1);
        }
        prev2.swap(prev);
        prev.swap(cur);
    }
    return prev[m];
}

std::string closest_match(const std::string& typed, const std::vector<std::string>& candidates) {
    if (typed.empty()) return {};
    const std::size_t limit = std::max<std::size_t>(1, typed.size() / 3);
    std::string best;
    std::size_t best_d = limit + 1;
    for (const auto& c : candidates) {
        const std::size_t d = edit_distance(typed, c);
        if (d < best_d) {
            best = c;
            best_d = d;
        }
    }
    if (!best.empty()) return best;
    for (const auto& c : candidates)  // a prefix of exactly one candidate ("--step" of "--steps")
        if (c.size() > typed.size() && c.compare(0, typed.size(), typed) == 0) {
            if (!best.empty()) return {};
            best = c;
        }
    return best;
}

std::string did_you_mean(const std::string& typed, const std::vector<std::string>& candidates,
                         const std::string& prefix) {
    const std::string c = closest_match(typed, candidates);
    return c.empty() ? std::string() : " (did you mean '" + prefix + c + "'?)";
}

}  // namespace rbm::cli
