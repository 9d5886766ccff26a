// Results of rbmscope-cli read back for the app (core/io/result_file.hpp), through the
// entry point load_result_file uses. Any bytes end in a ResultFile or an InputError; the sniffing
// looks_like_result never throws; a result that parses holds exactly its command's numbers.
#include "core/io/result_file.hpp"
#include "fuzz_target.hpp"

RBM_FUZZ_TARGET(bytes) {
    (void)rbm::looks_like_result(bytes);  // noexcept in effect: an exception here is a finding
    const rbm::ResultFile f = rbm::result_from_json_text(bytes, "fuzz.json");
    using C = rbm::ResultCommand;
    const int payloads =
        f.ais.has_value() + f.sweep.has_value() + f.pt.has_value() + f.meanfield.has_value() + f.train.has_value();
    const bool right = (f.command == C::Ais && f.ais) || (f.command == C::AisSweep && f.sweep) ||
                       (f.command == C::Pt && f.pt) || (f.command == C::MeanField && f.meanfield) ||
                       ((f.command == C::Train || f.command == C::TrainLog) && f.train);
    if (payloads != 1 || !right) __builtin_trap();
    if (f.pt && (f.pt->betas.size() < 2 || f.pt->rejection.size() + 1 != f.pt->betas.size())) __builtin_trap();
}
