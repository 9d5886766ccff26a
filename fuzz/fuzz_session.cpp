// Session files (app sessions: an embedded model or a preset name, settings, view, the views'
// settings, the samples data, training runs with their records, negatives and models), through
// the same entry point load_session uses. A session that loads must write and read back the same.
#include "core/io/session_io.hpp"
#include "fuzz_target.hpp"

RBM_FUZZ_TARGET(bytes) {
    const rbm::Session s = rbm::session_from_json_text(bytes, "fuzz.json");
    rbm::fuzz::check_round_trip(s.model);
    const rbm::Session back = rbm::session_from_json_text(rbm::session_to_json_text(s), "round trip");
    if (!(back.settings == s.settings) || back.view != s.view || back.preset != s.preset ||
        rbm::model_to_json_text(back.model) != rbm::model_to_json_text(s.model) || back.views != s.views ||
        back.training_runs.size() != s.training_runs.size())
        __builtin_trap();
    for (const rbm::SessionTrainingRun& r : s.training_runs) rbm::fuzz::check_round_trip(r.model);
    // Everything else, to the bit: what was read writes the same text again.
    if (rbm::session_to_json_text(back) != rbm::session_to_json_text(s)) __builtin_trap();
}
