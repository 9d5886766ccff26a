// Deep nesting in every JSON reader (100 000 levels crashed `info`, `ais-sweep
// --resume` and the app): the same bytes go to the model, result, session, sweep-checkpoint and
// train-checkpoint readers, each of which must end in a value or an InputError. Seeded with
// nesting around the 256-level limit and far beyond it (tests/data/fuzz/json_depth/).
#include "core/data/datasets.hpp"
#include "core/io/json_text.hpp"
#include "core/io/result_file.hpp"
#include "core/io/session_io.hpp"
#include "core/io/sweep_checkpoint.hpp"
#include "core/training/training.hpp"
#include "fuzz_target.hpp"

namespace {
template <class F>
void refused_or_read(F&& f) {
    try {
        f();
    } catch (const rbm::InputError&) {
    }
}
}  // namespace

RBM_FUZZ_TARGET(bytes) {
    static const rbm::Dataset data = rbm::bars_and_stripes(3);
    refused_or_read([&] { (void)rbm::json_text::parse(bytes, "numbers must be finite"); });
    refused_or_read([&] { (void)rbm::model_from_json_text(bytes, "fuzz.json"); });
    refused_or_read([&] { (void)rbm::result_from_json_text(bytes, "fuzz.json"); });
    refused_or_read([&] { (void)rbm::session_from_json_text(bytes, "fuzz.json"); });
    refused_or_read([&] { (void)rbm::sweep_checkpoint_from_json(bytes, nlohmann::json::array(), "fuzz.json"); });
    refused_or_read([&] { (void)rbm::Trainer::from_checkpoint_json(bytes, data, "fuzz.json"); });
}
