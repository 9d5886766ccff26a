// ais-sweep checkpoints (rbmscope-cli ais-sweep --resume), through sweep_checkpoint_from_json.
// Half the inputs are checked against the options they carry themselves (so the run entries are
// reached), the other half against a fixed list (the option comparison). A checkpoint that loads
// must write and read back the same runs.
#include "core/io/sweep_checkpoint.hpp"
#include "fuzz_target.hpp"

RBM_FUZZ_TARGET(bytes) {
    nlohmann::json options = nlohmann::json::array({{{"option", "MODEL"}, {"value", "four-mode"}}});
    if (bytes.size() % 2 == 0) {
        const nlohmann::json j = nlohmann::json::parse(bytes, nullptr, false);
        if (j.is_object() && j.contains("options") && j["options"].is_array()) {
            options = nlohmann::json::array();
            // The comparison reads "option" as a string: the CLI's list always has one.
            for (const auto& o : j["options"])
                if (o.is_object() && o.contains("option") && o["option"].is_string()) options.push_back(o);
        }
    }
    const rbm::SweepCheckpoint c = rbm::sweep_checkpoint_from_json(bytes, options, "fuzz.json");
    const rbm::SweepCheckpoint back =
        rbm::sweep_checkpoint_from_json(rbm::sweep_checkpoint_json(c), c.options, "round trip");
    if (back.runs.size() != c.runs.size()) __builtin_trap();
}
