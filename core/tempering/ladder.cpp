// Ladders, the cumulative barrier and its monotone interpolation, the adaptive re-placement of
// betas, the round-trip predictions and the lifted direction state machine (docs/methods/tempering.md).
#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/numerics/format.hpp"
#include "core/tempering/pt.hpp"

namespace rbm {

const char* pt_scheme_name(PtScheme s) {
    switch (s) {
        case PtScheme::Reversible: return "reversible";
        case PtScheme::Single: return "single";
        case PtScheme::Deo: return "deo";
        case PtScheme::Lifted: return "lifted";
    }
    return "?";
}

PtScheme parse_pt_scheme(const std::string& name) {
    for (PtScheme s : {PtScheme::Reversible, PtScheme::Single, PtScheme::Deo, PtScheme::Lifted})
        if (name == pt_scheme_name(s)) return s;
    throw InputError("unknown tempering scheme '" + name + "' (expected reversible, single, deo or lifted)");
}

namespace {

void require_replicas(Index replicas) {
    if (replicas < 2)
        throw InputError("a tempering ladder needs at least 2 replicas (N >= 1 pairs), got " +
                         std::to_string(replicas));
}

}  // namespace

std::vector<double> geometric_ladder(Index replicas, double gamma) {
    require_replicas(replicas);
    if (!(gamma > 0 && gamma < 1))
        throw InputError("the geometric ladder needs 0 < gamma < 1, got " + format_number(gamma));
    const Index n = replicas - 1;
    // beta_0 = gamma^N must stay a normal double, or the lowest betas underflow to the same 0
    // (--gamma 1e-300 gave "beta_1 = 0 follows beta_0 = 0"). Say which gamma would work.
    constexpr double kSmallestBeta = 1e-300;
    if (!(static_cast<double>(n) * std::log(gamma) >= std::log(kSmallestBeta))) {
        const double least = std::exp(std::log(kSmallestBeta) / static_cast<double>(n));
        throw InputError("gamma = " + format_number(gamma) + " is too small for " + std::to_string(replicas) +
                         " betas: the lowest, gamma^" + std::to_string(n) +
                         ", underflows (below 1e-300); choose gamma >= " + format_number(least) + " or fewer rungs");
    }
    std::vector<double> b(static_cast<std::size_t>(replicas));
    for (Index k = 0; k <= n; ++k) b[static_cast<std::size_t>(k)] = std::pow(gamma, static_cast<double>(n - k));
    b.back() = 1.0;
    validate_ladder(b);  // gamma just below 1 may round two betas to the same double
    return b;
}

std::vector<double> linear_ladder(Index replicas, double beta_min) {
    require_replicas(replicas);
    if (!(beta_min >= 0 && beta_min < 1))
        throw InputError("the linear ladder needs 0 <= beta_min < 1, got " + format_number(beta_min));
    const Index n = replicas - 1;
    std::vector<double> b(static_cast<std::size_t>(replicas));
    for (Index k = 0; k <= n; ++k)
        b[static_cast<std::size_t>(k)] = beta_min + (1.0 - beta_min) * static_cast<double>(k) / static_cast<double>(n);
    b.back() = 1.0;
    return b;
}

void validate_ladder(const std::vector<double>& b) {
    if (b.size() < 2)
        throw InputError("a tempering ladder needs at least 2 betas (N >= 1 pairs), got " + std::to_string(b.size()));
    if (b.size() > 65535)
        throw InputError("a tempering ladder may have at most 65535 betas, got " + std::to_string(b.size()));
    for (std::size_t k = 0; k < b.size(); ++k)
        if (!std::isfinite(b[k])) throw InputError("beta_" + std::to_string(k) + " is not a finite number");
    if (b.front() < 0) throw InputError("betas must be >= 0, but beta_0 = " + format_number(b.front()));
    for (std::size_t k = 1; k < b.size(); ++k)
        if (!(b[k] > b[k - 1]))
            throw InputError("betas must be strictly increasing, but beta_" + std::to_string(k) + " = " +
                             format_number(b[k]) + " follows beta_" + std::to_string(k - 1) + " = " +
                             format_number(b[k - 1]));
    if (b.back() != 1.0) throw InputError("the last beta must be 1 (the target), got " + format_number(b.back()));
}

// ---------------- monotone cubic ----------------
MonotoneCubic::MonotoneCubic(std::vector<double> x, std::vector<double> y) : x_(std::move(x)), y_(std::move(y)) {
    const std::size_t n = x_.size();
    if (n < 2 || y_.size() != n)
        throw InputError("monotone interpolation needs at least 2 points with x and y of equal length");
    for (std::size_t k = 1; k < n; ++k) {
        if (!(x_[k] > x_[k - 1])) throw InputError("monotone interpolation needs strictly increasing x");
        if (y_[k] < y_[k - 1]) throw InputError("monotone interpolation needs nondecreasing y");
    }
    std::vector<double> delta(n - 1);
    for (std::size_t k = 0; k + 1 < n; ++k) delta[k] = (y_[k + 1] - y_[k]) / (x_[k + 1] - x_[k]);
    d_.assign(n, 0.0);
    d_[0] = delta[0];
    d_[n - 1] = delta[n - 2];
    for (std::size_t k = 1; k + 1 < n; ++k)
        d_[k] = (delta[k - 1] > 0 && delta[k] > 0) ? 0.5 * (delta[k - 1] + delta[k]) : 0.0;
    // Fritsch-Carlson: keep (alpha, beta) = (d_k, d_{k+1}) / delta_k inside the circle of radius 3.
    for (std::size_t k = 0; k + 1 < n; ++k) {
        if (delta[k] == 0) {
            d_[k] = d_[k + 1] = 0;
            continue;
        }
        const double a = d_[k] / delta[k], b = d_[k + 1] / delta[k];
        const double s = a * a + b * b;
        if (s > 9) {
            const double t = 3.0 / std::sqrt(s);
            d_[k] = t * a * delta[k];
            d_[k + 1] = t * b * delta[k];
        }
    }
}

Index MonotoneCubic::segment(double x) const {
    const auto it = std::upper_bound(x_.begin(), x_.end(), x);
    const Index k = static_cast<Index>(it - x_.begin()) - 1;
    return std::clamp<Index>(k, 0, static_cast<Index>(x_.size()) - 2);
}

double MonotoneCubic::value(double x) const {
    if (x_.empty()) return 0;
    if (x <= x_.front()) return y_.front();
    if (x >= x_.back()) return y_.back();
    const std::size_t k = static_cast<std::size_t>(segment(x));
    const double h = x_[k + 1] - x_[k], t = (x - x_[k]) / h, t2 = t * t, t3 = t2 * t;
    return (2 * t3 - 3 * t2 + 1) * y_[k] + (t3 - 2 * t2 + t) * h * d_[k] + (-2 * t3 + 3 * t2) * y_[k + 1] +
           (t3 - t2) * h * d_[k + 1];
}

double MonotoneCubic::derivative(double x) const {
    if (x_.empty() || x < x_.front() || x > x_.back()) return 0;
    const std::size_t k = static_cast<std::size_t>(segment(x));
    const double h = x_[k + 1] - x_[k], t = (x - x_[k]) / h, t2 = t * t;
    return (6 * t2 - 6 * t) / h * y_[k] + (3 * t2 - 4 * t + 1) * d_[k] + (-6 * t2 + 6 * t) / h * y_[k + 1] +
           (3 * t2 - 2 * t) * d_[k + 1];
}

double MonotoneCubic::inverse(double y) const {
    if (x_.empty()) return 0;
    if (y <= y_.front()) return x_.front();
    if (y >= y_.back())
        return x_[static_cast<std::size_t>(std::lower_bound(y_.begin(), y_.end(), y_.back()) - y_.begin())];
    // First knot with y_k >= y; the answer lies in the segment ending there.
    const std::size_t k = static_cast<std::size_t>(std::lower_bound(y_.begin(), y_.end(), y) - y_.begin());
    double lo = x_[k - 1], hi = x_[k];
    for (int it = 0; it < 200 && hi - lo > 1e-15 * std::max(1.0, std::fabs(hi)); ++it) {
        const double mid = 0.5 * (lo + hi);
        if (value(mid) >= y) hi = mid;
        else lo = mid;
    }
    return hi;
}

// ---------------- barrier ----------------
BarrierProfile barrier_profile(const std::vector<double>& betas, const std::vector<double>& rejection) {
    validate_ladder(betas);
    if (rejection.size() + 1 != betas.size())
        throw InputError("the barrier needs one rejection rate per pair: " + std::to_string(betas.size() - 1) +
                         " pairs, got " + std::to_string(rejection.size()));
    std::vector<double> cum(betas.size(), 0.0);
    for (std::size_t k = 0; k < rejection.size(); ++k) {
        if (std::isnan(rejection[k]))
            throw InputError(
                "the swap rejection rate between beta_" + std::to_string(k) + " and beta_" + std::to_string(k + 1) +
                " is not a number: the model's energies overflowed at these temperatures; use a model within "
                "the supported range (|W| <= 50, |bias| <= 500)");
        if (!(rejection[k] >= 0 && rejection[k] <= 1))
            throw InputError("rejection rate " + std::to_string(k) +
                             " is outside [0, 1]: " + format_number(rejection[k]));
        cum[k + 1] = cum[k] + rejection[k];
    }
    return {MonotoneCubic(betas, cum)};
}

std::vector<double> equalize_ladder(const std::vector<double>& betas, const std::vector<double>& rejection,
                                    Index replicas) {
    require_replicas(replicas);
    const BarrierProfile p = barrier_profile(betas, rejection);
    const double total = p.total();
    if (!(total > 0)) {
        if (static_cast<Index>(betas.size()) == replicas) return betas;
        return linear_ladder(replicas, betas.front());
    }
    const Index n = replicas - 1;
    std::vector<double> out(static_cast<std::size_t>(replicas));
    out.front() = betas.front();
    out.back() = 1.0;
    for (Index j = 1; j < n; ++j) {
        double b = p.cumulative.inverse(total * static_cast<double>(j) / static_cast<double>(n));
        const double prev = out[static_cast<std::size_t>(j - 1)];
        if (!(b > prev)) b = std::nextafter(prev, 2.0);  // only under round-off
        out[static_cast<std::size_t>(j)] = b;
    }
    validate_ladder(out);
    return out;
}

Index recommended_n(double barrier) {
    if (!(barrier > 0)) return 1;
    return std::max<Index>(1, static_cast<Index>(std::ceil(2.0 * barrier)));
}

double predicted_round_trip_rate(PtScheme scheme, const std::vector<double>& rejection) {
    const double n = static_cast<double>(rejection.size());
    if (rejection.empty()) return 0;
    double e = 0;
    for (double r : rejection) {
        if (!(r < 1)) return 0;
        e += r / (1 - r);
    }
    switch (scheme) {
        case PtScheme::Deo: return 1.0 / (2.0 + 2.0 * e);
        case PtScheme::Reversible: return 1.0 / (2.0 * n + 2.0 * e);
        case PtScheme::Single: return 1.0 / (n * n + n * e);
        case PtScheme::Lifted: return 1.0 / (2.0 * n * (1.0 + e));
    }
    return 0;
}

// ---------------- lifted ----------------
void LiftedState::advance(bool accepted, Index last_rung) {
    if (accepted) rung += direction;
    else direction = -direction;
    if (rung <= 0) {
        rung = 0;
        direction = +1;
    } else if (rung >= last_rung) {
        rung = last_rung;
        direction = -1;
    }
}

}  // namespace rbm
