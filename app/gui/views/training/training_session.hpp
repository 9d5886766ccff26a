#pragma once
// The Training view in session files (core's session_io): its settings as a settings map, and
// each finished or stopped run as an rbm::SessionTrainingRun (the curves' records, the negative
// samples and the trained model, every double exact). A restored run is shown, saved and opened
// in the app like any other; it has no trainer state, so Resume and Save checkpoint say so.
//
// Keys (the view's settings, and each run's "settings"): data ("bars:D", "digits" or a CSV / IDX
// path), shifts, prep (binarize, scale, standardize, as-is), test_data (the held-out spec, "" for
// none; read as "" when absent), and the rbm::TrainOptions by the
// names of a training checkpoint: kind, hidden, method, k, updates, batch, learning_rate,
// schedule, momentum, weight_decay, gamma, temperatures, chains, seed, init_scale,
// init_bias_from_data, learn_sigma, sigma, leakiness, projection, projection_limit, leaky_kernel,
// monitor_every, monitor_examples, exact_limit, ais_chains, ais_steps, ais_seed. The view adds
// selected_run (the index of the selected run in "training_runs", -1 for none).
#include <QString>
#include <map>
#include <memory>
#include <string>

#include "core/io/session_io.hpp"
#include "views/training/training_job.hpp"

namespace rbmscope {

std::map<std::string, rbm::SessionValue> trainSettingsToMap(const TrainDataSpec& data,
                                                            const rbm::TrainOptions& options);
// Keys that are missing keep the values given; checked as a training checkpoint's options are
// (its ranges). "" on success, else one message naming `prefix` + the key; nothing is written then.
QString trainSettingsFromMap(const std::map<std::string, rbm::SessionValue>& map, const std::string& prefix,
                             TrainDataSpec& data, rbm::TrainOptions& options);

// A run with a snapshot as the session keeps it (a run still going is kept as "cancelled").
rbm::SessionTrainingRun sessionRunOf(const TrainingRun& run);

// A run read from a session, checked, ready for TrainingJob::restore.
struct RestoredRun {
    QString label;
    TrainDataSpec data;
    rbm::TrainOptions options;
    std::shared_ptr<TrainSnapshot> snapshot;
};
// "" on success, else one message naming `path` ("training_runs[2]") and the key.
QString restoredRunOf(const rbm::SessionTrainingRun& run, const std::string& path, RestoredRun& out);

}  // namespace rbmscope
