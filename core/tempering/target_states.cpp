#include "core/tempering/target_states.hpp"

#include <algorithm>
#include <sstream>

#include "core/tempering/pt.hpp"

namespace rbm {

TargetStates pt_target_states(const Model& model, Index count, const TargetStatesOptions& o) {
    if (count < 1) throw InputError("PT target states: count must be >= 1");
    if (o.burn_in < 0 || o.spacing < 1 || o.replicas < 2 || o.ladders < 0)
        throw InputError("PT target states: burn-in >= 0, spacing >= 1, replicas >= 2 and ladders >= 0 needed");
    PtOptions p;
    p.scheme = PtScheme::Deo;
    p.betas = geometric_ladder(o.replicas, o.gamma);
    p.chains = o.ladders > 0 ? std::min(o.ladders, count) : std::max<Index>(1, (count + 9) / 10);
    const Index per = (count + p.chains - 1) / p.chains;  // states each ladder hands over
    p.burn_in = o.burn_in;
    p.sample_every = o.spacing;
    // Samples are taken at scans burn_in, burn_in + spacing, ... before the end.
    p.scans = o.burn_in + o.spacing * per;
    p.seed = o.seed;
    p.max_samples = std::max<Index>(p.max_samples, (per + 1) * p.chains);
    p.history_chains = 0;
    validate(p);
    PtControl ctl;
    ctl.cancel = o.cancel;
    const PtResult r = run_pt(model, p, ctl);
    if (r.cancelled) throw Cancelled();
    if (r.target_samples.rows() < count)
        throw InputError("PT target states: the run kept " + std::to_string(r.target_samples.rows()) + " states, " +
                         std::to_string(count) + " needed");
    TargetStates out;
    out.V = r.target_samples.topRows(count);
    out.ladders = p.chains;
    out.scans = r.scans_done;
    out.seconds = r.seconds;
    const std::vector<double> acc = r.stats.acceptance();
    out.min_acceptance = acc.empty() ? 1.0 : *std::min_element(acc.begin(), acc.end());
    std::ostringstream os;
    os << "parallel tempering (deterministic even-odd): " << p.chains << " ladders x " << o.replicas
       << " rungs (geometric, gamma " << o.gamma << "), " << o.burn_in << " burn-in scans, then the target rung every "
       << o.spacing << " scans";
    out.description = os.str();
    return out;
}

}  // namespace rbm
