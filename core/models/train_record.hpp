#pragma once
// One monitoring record of a training run (docs/methods/training.md): plain data, so that core/io can write and
// read it (training checkpoints, session files) without depending on the trainer.
#include <limits>
#include <string>
#include <vector>

#include "core/numerics/types.hpp"

namespace rbm {

// One monitoring record.
struct TrainRecord {
    Index update = 0;          // updates done when it was taken
    double epoch = 0;          // update * batch / data rows
    double learning_rate = 0;  // of the next update
    // Average log-likelihood of the monitored rows: "exact" (enumeration) or "ais" (estimate; low /
    // high its bootstrap 95% interval). NaN with "ais-failed" (AIS refused: non-finite weights) or
    // "ais-unreliable" (the estimate exceeded the largest value log p(v) can take for the kind,
    // log_z holds it): AIS does not work on this (near-degenerate) model. An exact value that is
    // not finite stops the run (Diverged).
    double log_likelihood = 0, log_likelihood_low = 0, log_likelihood_high = 0;
    std::string log_likelihood_method;
    // The same for held-out rows (Trainer::set_test_data, train --test-data): mean log p*(v) over
    // them minus the same log Z, so its interval is log Z's too. NaN without test rows.
    double test_log_likelihood = std::numeric_limits<double>::quiet_NaN();
    double test_log_likelihood_low = std::numeric_limits<double>::quiet_NaN();
    double test_log_likelihood_high = std::numeric_limits<double>::quiet_NaN();
    double log_z = 0;
    double ais_ess = 0;                   // effective sample size of the AIS weights (ais only)
    double reconstruction_error = 0;      // mean over rows of |v - E[v | E[h | v]]|^2
    std::vector<double> swap_acceptance;  // tempered: per ladder pair, since the previous record
    Index projections = 0;                // leaky: updates since the previous record with an active projection
    double max_singular_value = 0;        // leaky: of W now
    double seconds = 0;                   // training time so far (monitoring excluded)
};

}  // namespace rbm
