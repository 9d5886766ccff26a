// Training checkpoints (rbmscope-cli train --resume), through Trainer::from_checkpoint_json with
// the data the seeds were made with (bars and stripes 3 x 3, tests/data/fuzz/train_checkpoint).
// A checkpoint that loads must also train on: an edited field that slipped through the checks
// crashed the next update, so two more updates run when they are cheap.
#include "core/data/datasets.hpp"
#include "core/training/training.hpp"
#include "fuzz_target.hpp"

RBM_FUZZ_TARGET(bytes) {
    static const rbm::Dataset data = rbm::bars_and_stripes(3);
    rbm::Trainer t = rbm::Trainer::from_checkpoint_json(bytes, data, "fuzz.json");
    const rbm::TrainOptions& o = t.options();
    // Only runs the fuzzer can afford: small ladders and chain counts, and an exact monitor
    // (bars 3 x 3 has 512 visible states) or a small AIS one.
    const bool cheap = o.hidden <= 16 && o.k <= 20 && o.temperatures <= 8 && o.chains <= 200 && o.batch <= 14 &&
                       (o.exact_limit >= 512 || o.ais_chains * o.ais_steps <= 20000) &&
                       (o.monitor_examples == 0 || o.monitor_examples <= 14);
    if (!cheap) return;
    t.set_total_updates(t.updates_done() + 2);
    t.step(2);
}
