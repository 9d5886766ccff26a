#pragma once
// log Z of the target from the scans parallel tempering runs anyway (docs/methods/tempering.md#log-z).
//
// The tempered family p_beta(x) ∝ f_ref(x) exp(beta V(x)) (tempering/tempered_model.hpp) gives, for
// adjacent rungs k, k+1 with d_k = beta_{k+1} - beta_k and l(x) = d_k V(x) = log f_{k+1}(x) - log f_k(x),
//   log Z_N = log Z_ref + sum_k r_k,   r_k = log Z_{k+1} / Z_k,
// with r_k from the potentials V(x) the swaps already need:
//  - stepping stone (Xie, Lewis, Fan, Kuo & Chen 2011): r_k = log E_k[exp(l(x))], estimated by the
//    log-mean-exp of l over the samples at rung k;
//  - BAR (Bennett 1976; Meng & Wong 1996, optimal bridge): with n samples at each of the two rungs,
//    r_k is the root of  g(r) = mean_{x ~ k} s(l(x) - r) - mean_{y ~ k+1} s(r - l(y)) = 0,  s the
//    logistic sigmoid; g decreases in r, so the root is unique (safeguarded Newton).
// When the ladder starts above 0, rung -1 at beta = 0 is added with independent exact draws from
// the reference (so every pair has samples on both sides).
//
// Standard errors: batch means over scans. The recorded scans of each chain are cut into
// `batches` consecutive batches of equal length; the units (chain, batch) are nearly independent
// when a batch is much longer than the autocorrelation time. Both estimators are linearized
// around their value (delta method): stepping stone r_k = log m_k, m_k the mean of exp(l - max l),
// so a unit u contributes psi_u = sum_k (m_{k,u} - m_k) / m_k; BAR r_k solves g_k = 0, so
// psi_u = sum_k g_{k,u}(r_k) / (-g_k'(r_k)). Summing over the pairs inside each unit keeps the
// correlation between pairs (the same scans feed adjacent pairs). With U units,
//   SE^2 = sum_u psi_u^2 / (U (U - 1)).
// Every sum runs in a fixed order: same potentials, same numbers at any thread count.
#include <cstdint>
#include <vector>

#include "core/numerics/types.hpp"

namespace rbm {

// The potentials V(x) of every chain's state at every rung after the recorded scans.
struct PotentialTrace {
    std::vector<double> betas;  // the rungs; betas[0] = 0 is the reference
    Index chains = 0;
    std::vector<double> values;  // [(t chains + c) rungs + k]: scan t, chain c, rung k
    Index rungs() const { return static_cast<Index>(betas.size()); }
    Index scans() const;
    // One scan: chains x rungs values, chain-major.
    void push_scan(const double* chain_major);
    double at(Index scan, Index chain, Index rung) const {
        return values[static_cast<std::size_t>((scan * chains + chain) * rungs() + rung)];
    }
};

struct LogZEstimate {
    double log_z = 0, se = 0;                 // log Z of the target and its standard error
    std::vector<double> log_ratio, ratio_se;  // r_k = log Z_{k+1} / Z_k and its SE, per pair
    double ci95_low() const { return log_z - 1.96 * se; }
    double ci95_high() const { return log_z + 1.96 * se; }
};

struct PtLogZ {
    double reference_log_z = 0;
    std::vector<double> betas;                       // of the trace (0 first)
    Index chains = 0, batches = 0, batch_scans = 0;  // U = chains x batches units of batch_scans scans
    Index scans_used = 0;                            // batches x batch_scans (the first scans left out)
    LogZEstimate stepping_stone, bar;
};

// Both estimators on a trace with betas[0] = 0 and log Z_ref = reference_log_z. Uses the last
// batches x floor(T / batches) scans (T recorded; fewer batches when T < batches). InputError when
// there are fewer than 2 units or a beta is not 0 first and increasing.
PtLogZ estimate_pt_log_z(const PotentialTrace& trace, double reference_log_z, Index batches = 20);

// One pair alone, for tests: l_lower = l(x) at the lower rung, l_upper = l(y) at the upper rung
// (equal counts). The BAR root of g above; the stepping-stone log-mean-exp of l_lower.
double bar_log_ratio(const std::vector<double>& l_lower, const std::vector<double>& l_upper);
double stepping_stone_log_ratio(const std::vector<double>& l_lower);

}  // namespace rbm
