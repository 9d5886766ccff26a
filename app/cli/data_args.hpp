#pragma once
// The data options shared by `train`, `data-info`, `ais`, `sample` and `convert`: a data spec
// and the preprocessing train applies to it, as a TrainingData (core/models/training_data.hpp)
// so a model can carry it and the other commands apply it the same way.
#include <optional>
#include <string>
#include <vector>

#include "cli_command.hpp"
#include "core/data/datasets.hpp"

namespace rbm::cli {

// --binarize, --scale, --standardize, --shifts, --limit, --csv-header, --csv-label.
const std::vector<Args::Option>& data_options();
// True when any of data_options() is given.
bool has_data_transform(const Args& a);
// The spec and the transforms given (InputError for more than one of binarize/scale/standardize).
TrainingData training_data_from_args(const Args& a, const std::string& spec);

// The data to inspect `model` with: --data SPEC with its transforms when given (attached for
// this run), else the data recorded in the model file (`model_path`'s directory resolves a
// relative path), else nothing. The rows must have the model's n values; a BRBM's lie in [0, 1].
struct InspectionData {
    TrainingData spec;
    Dataset data;
    bool attached = false;  // from --data (true) or from the model file (false)
};
std::optional<InspectionData> inspection_data(const Args& a, const Model& model, const std::string& model_path);

}  // namespace rbm::cli
