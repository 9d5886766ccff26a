#pragma once
// A "lane" is one annealing method shown side by side with others: its spec, its label, and the
// annealing path rbm::build_path made for it (or build_path's refusal). Built on a worker.
#include <QString>
#include <atomic>
#include <functional>
#include <vector>

#include "core/ais/path.hpp"
#include "core/models/models.hpp"
#include "run_settings.hpp"

namespace rbmscope {

struct Lane {
    MethodSpec spec;
    QString label;
    rbm::PathPtr path;  // null when build_path refused
    QString error;      // build_path's message
    QString notes;      // the path's name and notes
};

// One lane per method of settings.methods(), built in order; stops (throwing rbm::Cancelled) when
// *cancel is raised: between methods, and inside the long parts of building one (Gibbs target
// moments, MAS knot fits). `progress` (optional, called on the worker) hears how far a Gibbs
// moment estimation is, at most about a hundred times per estimation.
std::vector<Lane> buildLanes(const rbm::Model& model, const RunSettings& settings, const std::atomic<bool>* cancel,
                             const std::function<void(const QString&)>& progress = {});

// What decides the paths: a change in anything else (schedule, chains, ...) keeps them.
struct LaneKey {
    std::vector<MethodSpec> methods;
    rbm::LeakyKernel leakyKernel = rbm::LeakyKernel::ExactMH;
    bool operator==(const LaneKey&) const = default;
};
LaneKey laneKey(const RunSettings& s);

}  // namespace rbmscope
