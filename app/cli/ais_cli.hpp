#pragma once
// Pieces shared by `rbmscope-cli ais` and `ais-sweep` (defined in cmd_ais.cpp): the options
// that say how to build an annealing path, and turning them into a PathRequest.
#include <string>
#include <vector>

#include "cli_command.hpp"
#include "core/ais/paths.hpp"
#include "core/ais/runner.hpp"
#include "progress.hpp"

namespace rbm::cli {

// --from, --data (+ train's data transforms), --moments, --moment-chains/-steps/-burn-in, --kernel, --knots.
std::vector<Args::Option> ais_path_options();
// The base `ais` uses when --base is not given: "data" for a BRBM with data (--data, or the
// training data its file records), else "moment".
std::string default_ais_base(const Args& a, const Model& model);
// The request for `path` and `base` on `target`, from the options above (InputError for
// options that do not apply, e.g. --kernel on a non-leaky path). `seed` seeds the Gibbs moments.
PathRequest ais_path_request(const Args& a, const Model& target, const std::string& path, const std::string& base,
                             std::uint64_t seed);
// A CSV (or whitespace-separated) file of visible vectors, one per row; '#' lines and a
// non-numeric first line (a header) are skipped. Binary: every value must be 0 or 1.
RowMat read_data_rows(const std::string& file, Index n_visible, bool binary);

// Progress and Ctrl-C of one AIS run, in chain-sweeps: the Gibbs target-moment phase (phase
// "moments", when build_path runs it) then the annealing chains ("annealing", "reverse").
// The run's fraction, moments + annealing, is mapped to [lo, hi] of the command's (ais-sweep: one
// run of many). Both phases get interrupt::flag() as their cancel flag.
class AisWork {
public:
    AisWork(Progress& progress, Index chains, Index steps_guess, bool reverse, double lo = 0, double hi = 1);
    void watch_moments(MomentSource& src);  // sets src.cancel and src.on_sweep (uses *this: keep it alive)
    AisControl control(Index steps);        // for run_ais; steps = K of the schedule
    Index moment_sweeps_done() const { return moment_done_; }
    Index moment_sweeps() const { return moment_total_; }

private:
    double map(double done_work, double all_work) const;
    Progress& progress_;
    Index chains_, moment_chains_ = 0, moment_done_ = 0, moment_total_ = 0;
    double anneal_work_;
    int phases_;
    double lo_, hi_;
};

}  // namespace rbm::cli
