#include "logz_json.hpp"

namespace rbm::cli {

json log_z_estimate_json(const LogZEstimate& e) {
    return {{"estimate", e.log_z},
            {"se", e.se},
            {"ci95", {e.ci95_low(), e.ci95_high()}},
            {"log_ratios", e.log_ratio},
            {"log_ratio_se", e.ratio_se}};
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
