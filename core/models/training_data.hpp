#pragma once
// What a model was trained on (model-file key "training"; docs/reference/model-files.md lets readers ignore unknown
// keys): the data spec exactly as given to `train --data` and the preprocessing train applied,
// in train's order: CSV reading options, the first `limit` examples, one-pixel shifts, then at
// most one of binarize / scale / standardize. core/io/ reads and writes it, core/data/ applies it
// (load_training_data), so the Samples view and AIS see the data the way the model saw it.
#include <optional>
#include <string>

#include "core/numerics/types.hpp"

namespace rbm {

struct TrainingData {
    std::string data;  // "bars:4", "digits", a CSV / IDX path as given
    enum class CsvHeader { Auto, Yes, No } csv_header = CsvHeader::Auto;
    int csv_label = -1;                    // CsvOptions::label_column: -1 none, -2 last, else 0-based
    Index limit = 0;                       // the first `limit` examples only (0: all)
    bool shifts = false;                   // with_shifts before the transform
    std::optional<double> binarize;        // threshold in (0, 1] of the format's largest value
    bool scale = false;                    // divide by the format's largest value
    bool standardize = false;              // (x - mean) / sd per unit
    Vec standardize_mean, standardize_sd;  // the values applied (sd 1 where a unit was constant);
                                           // empty until the data was first standardized
};

// "digits, binarized at 0.5" — for labels and logs.
std::string describe(const TrainingData& t);

}  // namespace rbm
