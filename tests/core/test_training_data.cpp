// A model's training data (model-file key "training"): written and read back exactly
// (JSON and .npz), applied in train's order (limit, shifts, then one transform), a recorded
// standardization reapplied with its own mean and sd, and relative paths found beside the model.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "check.hpp"
#include "core/data/datasets.hpp"
#include "core/io/model_io.hpp"
#include "test_files.hpp"

namespace fs = std::filesystem;
using namespace rbm;
using namespace rbm::test;  // test_files.hpp

namespace {

fs::path scratch() {
    const fs::path d = fs::temp_directory_path() / ("rbmscope-training-data-" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
}

Model small_brbm() {
    Mat W(2, 1);
    W << 0.5, -0.25;
    Model m;
    m.params = Brbm{W, Vec::Zero(2), Vec::Zero(1)};
    return m;
}

bool same_training(const TrainingData& a, const TrainingData& b) {
    return a.data == b.data && a.csv_header == b.csv_header && a.csv_label == b.csv_label && a.limit == b.limit &&
           a.shifts == b.shifts && a.binarize == b.binarize && a.scale == b.scale && a.standardize == b.standardize &&
           a.standardize_mean.size() == b.standardize_mean.size() && a.standardize_mean == b.standardize_mean &&
           a.standardize_sd == b.standardize_sd;
}

}  // namespace

TEST_CASE("a model without training data writes no 'training' key; one with it round-trips (JSON, npz)") {
    Model m = small_brbm();
    CHECK(model_to_json_text(m).find("training") == std::string::npos);
    TrainingData t;
    t.data = "data/x.csv";
    t.csv_header = TrainingData::CsvHeader::No;
    t.csv_label = -2;
    t.limit = 7;
    t.shifts = true;
    t.binarize = 0.3;
    m.training = t;
    const std::string text = model_to_json_text(m);
    CHECK(text.find("\"training\"") != std::string::npos);
    const Model back = model_from_json_text(text, "m.json");
    CHECK(back.training.has_value());
    if (back.training) CHECK(same_training(*back.training, t));
    // The rest of the file is what it was without the key.
    Model plain = m;
    plain.training.reset();
    CHECK(text.rfind(model_to_json_text(plain).substr(0, model_to_json_text(plain).size() - 3), 0) == 0);

    TrainingData s;
    s.data = "digits";
    s.standardize = true;
    s.standardize_mean = Vec(2);
    s.standardize_mean << 0.125, -3.0000000000000004;
    s.standardize_sd = Vec(2);
    s.standardize_sd << 1.0, 0.30000000000000004;
    m.training = s;
    for (const char* ext : {".json", ".npz"}) {
        const fs::path p = scratch() / (std::string("m") + ext);
        save_model(m, p);
        const Model r = load_model(p);
        CHECK_MSG(r.training.has_value() && same_training(*r.training, s), ext);
    }
}

TEST_CASE("the recorded preprocessing is train's: binarized digits are 0/1 and equal binarize(load_digits())") {
    TrainingData t;
    t.data = "digits";
    t.binarize = 0.5;
    const Dataset d = load_training_data(t);
    Dataset ref = load_digits();
    binarize(ref, 0.5);
    CHECK(d.X.rows() == ref.X.rows() && d.X == ref.X);
    CHECK((d.X.array() == 0.0 || d.X.array() == 1.0).all());
    CHECK(d.has_image_shape() && d.image_rows == 8 && d.image_cols == 8);
    // limit before shifts before the transform: 10 images, 5 copies each.
    t.limit = 10;
    t.shifts = true;
    const Dataset s = load_training_data(t);
    CHECK(s.size() == 50);
    Dataset ref2 = load_digits();
    ref2.X = ref2.X.topRows(10).eval();
    ref2.labels.resize(10);
    ref2 = with_shifts(ref2);
    binarize(ref2, 0.5);
    CHECK(s.X == ref2.X);
}

TEST_CASE("standardization: computed once, recorded, and reapplied with the recorded mean and sd") {
    TrainingData t;
    t.data = "bars:3";
    t.standardize = true;
    const Dataset first = load_training_data(t);  // fills mean and sd
    CHECK(t.standardize_mean.size() == 9 && t.standardize_sd.size() == 9);
    Dataset ref = load_dataset("bars:3");
    standardize(ref);
    CHECK(first.X == ref.X);  // the same numbers as train's standardize()
    // Reapplied with the stored values (as after reading the model file): identical; with other
    // stored values the data follow them, not a fresh estimate.
    TrainingData again = t;
    CHECK(load_training_data(again).X == first.X);
    again.standardize_mean.setZero();
    again.standardize_sd.setOnes();
    CHECK(load_training_data(again).X == load_dataset("bars:3").X);
}

TEST_CASE("a relative data path is looked up beside the model when not found as given") {
    const fs::path dir = scratch() / "beside";
    fs::create_directories(dir);
    std::ofstream(dir / "tiny-train.csv") << "1,0\n0,1\n1,1\n";
    TrainingData t;
    t.data = "tiny-train.csv";
    CHECK(error_of([&] { load_training_data(t); }).find("tiny-train.csv") != std::string::npos);
    const Dataset d = load_training_data(t, dir);
    CHECK(d.size() == 3 && d.dim() == 2);
}

TEST_CASE("malformed 'training' objects are refused naming the key") {
    const std::string head = R"({"kind": "brbm", "W": [[0.5], [-0.5]], "training": )";
    const auto msg = [&](const std::string& t) {
        return error_of([&] { model_from_json_text(head + t + "}", "m.json"); });
    };
    CHECK(msg(R"({"data": "digits", "preprocessing": {"binarize": 0}})").find("'training.preprocessing.binarize'") !=
          std::string::npos);
    CHECK(msg(R"({"data": ""})").find("'training.data' must be a non-empty string") != std::string::npos);
    CHECK(msg(R"({"data": "digits", "preprocessing": {"standardize": {"mean": [0, null], "sd": [1, 1]}}})")
              .find("'training.preprocessing.standardize.mean' must be an array of 2 finite numbers") !=
          std::string::npos);
    // null members are "not applied"; unknown members are ignored (docs/reference/model-files.md).
    const Model ok = model_from_json_text(
        head + R"({"data": "digits", "preprocessing": {"binarize": null, "later": 1}, "x": 2})" + "}", "m.json");
    CHECK(ok.training && !ok.training->binarize && ok.training->data == "digits");
}

RBM_TEST_MAIN
