#include "jobs/lanes.hpp"

#include <algorithm>

#include "core/ais/paths.hpp"
#include "core/data/datasets.hpp"
#include "core/numerics/memory_budget.hpp"
#include "jobs/autoload_limit.hpp"

namespace rbmscope {

std::vector<Lane> buildLanes(const rbm::Model& model, const RunSettings& settings, const std::atomic<bool>* cancel,
                             const std::function<void(const QString&)>& progress) {
    std::vector<Lane> out;
    for (const MethodSpec& m : settings.methods()) {
        if (cancel && cancel->load()) throw rbm::Cancelled();
        Lane lane;
        lane.spec = m;
        lane.label = methodLabel(m, model.kind());
        rbm::PathRequest req;
        req.path = m.path;
        req.base = m.base;
        req.leaky_kernel = settings.leakyKernel;
        req.moments.seed = settings.seed;
        req.mas.seed = settings.seed;
        // Gibbs moment estimation and MAS knot fits can take minutes: quitting must not wait for them.
        req.moments.cancel = cancel;
        req.mas.cancel = cancel;
        if (progress)
            req.moments.on_sweep = [&progress, label = lane.label](rbm::Index done, rbm::Index total) {
                const rbm::Index step = std::max<rbm::Index>(1, total / 100);
                if (done % step == 0 || done == 1)
                    progress(QStringLiteral("%1: estimating the target's moments by Gibbs chains, sweep %2 of %3…")
                                 .arg(label)
                                 .arg(done)
                                 .arg(total));
            };
        try {
            if (m.base == "data" && model.training) {
                // The base rate of the data the model was trained on, preprocessed as it was; loaded
                // unasked, so at most kAutoLoadDataBytes of it.
                rbm::TrainingData t = *model.training;
                try {
                    const rbm::ScopedMemoryCap cap(kAutoLoadDataBytes);
                    req.moments.data = rbm::load_training_data(t).X;
                } catch (const rbm::InputError& e) {
                    throw rbm::InputError(
                        "the model's training data was not loaded (the app loads at most " +
                        rbm::bytes_text(static_cast<double>(kAutoLoadDataBytes)) +
                        " of it by itself): " + withoutBudgetAdvice(e.what()) +
                        "; choose another base, or run rbmscope-cli ais --base data with --max-memory");
                }
            }
            lane.path = rbm::build_path(model, req);
            lane.notes = QString::fromStdString(lane.path->name());
            const std::string notes = lane.path->notes();
            if (!notes.empty()) lane.notes += QStringLiteral(" — ") + QString::fromStdString(notes);
        } catch (const rbm::Cancelled&) {
            throw;
        } catch (const std::exception& e) {
            lane.error = QString::fromStdString(e.what());
        }
        out.push_back(std::move(lane));
    }
    return out;
}

LaneKey laneKey(const RunSettings& s) { return {s.methods(), s.leakyKernel}; }

}  // namespace rbmscope
