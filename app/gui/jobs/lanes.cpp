#include "jobs/lanes.hpp"

#include "core/ais/paths.hpp"

namespace rbmscope {

std::vector<Lane> buildLanes(const rbm::Model& model, const RunSettings& settings, const std::atomic<bool>* cancel) {
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
        try {
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
