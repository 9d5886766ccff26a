#pragma once
// The likelihood of a data set under a model (docs/methods/training.md#held-out-likelihood):
//   average log-likelihood  LL = mean_v log p*(v) - log Z   (log p*(v) = -F(v), the free energy),
// and the exact pseudo-log-likelihood of a BRBM (Besag 1975), summed over every site rather than
// sampled at one:
//   PLL(v) = sum_i log p(v_i | v_-i) = -sum_i softplus(log p*(v^(i)) - log p*(v)),
// v^(i) = v with bit i flipped; log p*(v^(i)) - log p*(v) = s_i b_i + sum_j [softplus(a_j + s_i W_ij) -
// softplus(a_j)], a = c + W'v, s_i = 1 - 2 v_i. It needs no log Z: a cheap companion of LL.
#include "core/models/models.hpp"

namespace rbm {

// log p*(v) of every row (the model's log_unnorm), parallel over fixed row blocks.
Vec log_unnorm_rows(const Model& model, const RowMat& V);
// PLL of every row of 0/1 data (InputError for a value that is not 0 or 1).
Vec brbm_pseudo_log_likelihood(const Brbm& m, const RowMat& V);
// Whether every value is 0 or 1 (a BRBM's p*(v) and PLL are meant for such rows).
bool is_binary(const RowMat& V);

}  // namespace rbm
