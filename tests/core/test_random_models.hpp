#pragma once
// Random small models for tests (fixed seeds).
#include <random>

#include "core/models/models.hpp"

namespace rbm::test {

// b_i ~ N(0, bias_scale^2); sigma_i ~ U(0.5, 1.5) unless unit_sigma (then no draw is spent on it).
inline Grbm random_grbm(unsigned seed, Index n, Index m, std::vector<double> hidden = {0, 1}, double scale = 0.8,
                        double bias_scale = 1.0, bool unit_sigma = false) {
    std::mt19937_64 g(seed);
    std::normal_distribution<double> N(0, 1);
    std::uniform_real_distribution<double> U(0.5, 1.5);
    Grbm r;
    r.W = Mat(n, m);
    r.b = Vec(n);
    r.c = Vec(m);
    r.sigma = Vec(n);
    for (Index i = 0; i < n; ++i)
        for (Index j = 0; j < m; ++j) r.W(i, j) = scale * N(g);
    for (Index i = 0; i < n; ++i) r.b(i) = bias_scale * N(g), r.sigma(i) = unit_sigma ? 1.0 : U(g);
    for (Index j = 0; j < m; ++j) r.c(j) = 0.5 * N(g);
    r.hidden_values = std::move(hidden);
    return r;
}

inline Brbm random_brbm(unsigned seed, Index n, Index m, double scale = 0.8) {
    std::mt19937_64 g(seed);
    std::normal_distribution<double> N(0, 1);
    Brbm r;
    r.W = Mat(n, m);
    r.b = Vec(n);
    r.c = Vec(m);
    for (Index i = 0; i < n; ++i)
        for (Index j = 0; j < m; ++j) r.W(i, j) = scale * N(g);
    for (Index i = 0; i < n; ++i) r.b(i) = 0.5 * N(g);
    for (Index j = 0; j < m; ++j) r.c(j) = 0.5 * N(g);
    return r;
}

// Singular values of W are rescaled to at most max_sv (< 1) so the model is valid.
inline Leaky random_leaky(unsigned seed, Index n, Index m, double leakiness, double max_sv = 0.9, bool biases = true) {
    std::mt19937_64 g(seed);
    std::normal_distribution<double> N(0, 1);
    Leaky r;
    r.W = Mat(n, m);
    for (Index i = 0; i < n; ++i)
        for (Index j = 0; j < m; ++j) r.W(i, j) = N(g);
    r.project(max_sv);
    // project() only clips; scale up small ones is not needed for tests.
    r.b = Vec::Zero(n);
    r.c = Vec::Zero(m);
    if (biases) {
        for (Index i = 0; i < n; ++i) r.b(i) = 0.3 * N(g);
        for (Index j = 0; j < m; ++j) r.c(j) = 0.5 * N(g);
    }
    r.leakiness = leakiness;
    return r;
}

}  // namespace rbm::test
