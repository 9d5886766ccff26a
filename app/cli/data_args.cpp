#include "data_args.hpp"

#include <filesystem>

namespace rbm::cli {

const std::vector<Args::Option>& data_options() {
    static const std::vector<Args::Option> o{
        {"binarize", "T", "pixel -> 1 if pixel >= T x the format's largest value (T in (0,1]; digits 16, IDX 255)"},
        {"scale", "", "divide by the format's largest value, so values lie in [0,1]"},
        {"standardize", "", "zero mean, unit standard deviation per column (the leaky-RBM paper's preprocessing)"},
        {"shifts", "", "add one-pixel shifts up, down, left, right of every image (5x the data; the tempering paper)"},
        {"limit", "N", "use the first N examples only (before shifts)"},
        {"csv-header", "yes|no|auto", "CSV: first row is a header (default auto: when it is not all numbers)"},
        {"csv-label", "COL", "CSV: 1-based column holding an integer label, or 'last' (default: none)"}};
    return o;
}

bool has_data_transform(const Args& a) {
    for (const auto& o : data_options())
        if (a.has(o.name)) return true;
    return false;
}

TrainingData training_data_from_args(const Args& a, const std::string& spec) {
    TrainingData t;
    t.data = spec;
    const std::string header = a.get_choice("csv-header", "auto", {"yes", "no", "auto"});
    t.csv_header = header == "yes"  ? TrainingData::CsvHeader::Yes
                   : header == "no" ? TrainingData::CsvHeader::No
                                    : TrainingData::CsvHeader::Auto;
    if (a.has("csv-label")) {
        const std::string l = a.get("csv-label", "");
        t.csv_label = l == "last" ? -2 : static_cast<int>(a.get_int("csv-label", 0, 1, 1 << 20)) - 1;
    }
    if (a.has("limit")) t.limit = a.get_int("limit", 0, 1);
    t.shifts = a.flag("shifts");
    const int transforms = (a.has("binarize") ? 1 : 0) + (a.flag("scale") ? 1 : 0) + (a.flag("standardize") ? 1 : 0);
    if (transforms > 1) throw InputError("choose one of --binarize, --scale and --standardize");
    if (a.has("binarize")) t.binarize = a.get_double("binarize", 0.5);  // its range is checked by binarize()
    t.scale = a.flag("scale");
    t.standardize = a.flag("standardize");
    return t;
}

std::optional<InspectionData> inspection_data(const Args& a, const Model& model, const std::string& model_path) {
    InspectionData out;
    if (auto d = a.get("data")) {
        out.spec = training_data_from_args(a, *d);
        out.attached = true;
        out.data = load_training_data(out.spec);
    } else if (model.training) {
        if (has_data_transform(a))
            throw InputError(
                "--binarize, --scale, --standardize, --shifts, --limit and --csv-* describe --data SPEC; "
                "the model's recorded training data has its own preprocessing");
        out.spec = *model.training;
        std::error_code ec;
        const std::filesystem::path dir = std::filesystem::path(model_path).parent_path();
        try {
            out.data =
                load_training_data(out.spec, std::filesystem::is_directory(dir, ec) ? dir : std::filesystem::path());
        } catch (const InputError& e) {
            throw InputError(std::string("the model's training data (file key 'training') cannot be loaded: ") +
                             e.what() + "; give --data SPEC instead");
        }
    } else {
        if (has_data_transform(a))
            throw InputError("--binarize, --scale, --standardize, --shifts, --limit and --csv-* need --data SPEC");
        return std::nullopt;
    }
    const Dataset& d = out.data;
    if (d.dim() != model.n_visible())
        throw InputError("the data " + d.name + " has " + std::to_string(d.dim()) +
                         " values per example; the model has n = " + std::to_string(model.n_visible()) +
                         " visible units");
    if (d.size() == 0) throw InputError("the data " + d.name + " has no examples");
    if (model.kind() == ModelKind::Brbm && (d.X.minCoeff() < 0 || d.X.maxCoeff() > 1))
        throw InputError("a BRBM's data must lie in [0, 1]; " + d.name + " has values from " +
                         std::to_string(d.X.minCoeff()) + " to " + std::to_string(d.X.maxCoeff()) +
                         " (add --binarize T or --scale)");
    return out;
}

}  // namespace rbm::cli
