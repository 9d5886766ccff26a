#pragma once
// The rbmscope-cli command that gives the same numbers as a run of the app: the app and the CLI
// call the same core (build_path, make_schedule, run_ais) with the same seed, and a result does
// not depend on the thread count, so `--threads` is left out. tests/widgets/tst_report.cpp runs
// both and compares the estimates exactly.
#include <QString>
#include <string>
#include <vector>

#include "core/meanfield/meanfield.hpp"
#include "core/models/models.hpp"
#include "run_settings.hpp"
#include "views/tempering/tempering_job.hpp"
#include "views/training/training_job.hpp"

namespace rbmscope {

struct CliEquivalent {
    std::vector<std::string> argv;  // empty when the CLI has no option for a setting in use
    QString missing;                // then: which setting, for the report to say so
};

// `model` is what the CLI is given as MODEL (a file name, or preset:NAME).
// ais: one method (lane) of the Annealing and Compare views' run.
CliEquivalent aisCommand(const std::string& model, rbm::ModelKind kind, const RunSettings& s, const MethodSpec& m);
// ais-sweep: the Estimates view's sweep (every method at every K, one run each: --repeats 1).
CliEquivalent sweepCommand(const std::string& model, rbm::ModelKind kind, const RunSettings& s);

// meanfield: one method (type I, II or TAP) of the Mean-field view, with the options it ran with.
CliEquivalent meanFieldCommand(const std::string& model, const rbm::MeanFieldOptions& o, rbm::MeanFieldType type);

// pt: the Tempering view's run with the settings it ran with (the view drives the same PtSampler
// scan by scan, with run_pt's adaptive rounds, so the CLI gives the same statistics).
CliEquivalent ptCommand(const std::string& model, const TemperingSettings& s);

// train: one run of the Training view (its data and options); the CLI writes the model to `out`.
// The trainer's streams are keyed by update, so a run stopped and resumed equals the command.
CliEquivalent trainCommand(const TrainDataSpec& data, const rbm::TrainOptions& o, const std::string& out);

}  // namespace rbmscope
