#include "logz_json.hpp"

#include <cmath>

namespace rbm::cli {

// An se that is not finite (BAR on rungs whose samples do not overlap at all) prints as null, with
// the interval: the estimate stands, its error is unknown.
json log_z_estimate_json(const LogZEstimate& e) {
    const bool known = std::isfinite(e.se);
    json se_k = json::array();
    for (double s : e.ratio_se) se_k.push_back(std::isfinite(s) ? json(s) : json(nullptr));
    return {{"estimate", e.log_z},
            {"se", known ? json(e.se) : json(nullptr)},
            {"ci95", known ? json{e.ci95_low(), e.ci95_high()} : json(nullptr)},
            {"log_ratios", e.log_ratio},
            {"log_ratio_se", se_k}};
}

json pt_log_z_json(const PtResult& r) {
    if (!r.log_z) return nullptr;
    const PtLogZ& z = *r.log_z;
    return {{"stepping_stone", log_z_estimate_json(z.stepping_stone)},
            {"bar", log_z_estimate_json(z.bar)},
            {"reference_log_z", z.reference_log_z},
            {"betas", z.betas},
            {"reference_draws", r.betas.front() > 0},
            {"chains", z.chains},
            {"batches", z.batches},
            {"batch_scans", z.batch_scans},
            {"scans_used", z.scans_used},
            {"burn_in", r.log_z_burn_in},
            {"stride", r.log_z_stride}};
}

}  // namespace rbm::cli
