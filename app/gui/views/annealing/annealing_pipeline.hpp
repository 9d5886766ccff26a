#pragma once
// The AIS pipeline that the Target density, Annealing, Compare and Estimates views share (issue
// #30: it was the main window's): the model and the panel's settings give the lanes (one annealing
// path per method, built on a worker); the lanes feed the annealing views' heatmaps, the AIS run
// (AisJob) and the sweep over K (SweepJob). A change restarts only what it affects; a Run asked
// for while the lanes are being built waits for them with its transport's gate.
//
// The view registry makes one and hands it to those views; the Annealing view forwards the model,
// the settings and the exact log Z to it, and it sets the model of every view it feeds. Its two
// transports: the AIS run (the density, Annealing and Compare views') and the sweep (Estimates').
#include <QObject>
#include <QTimer>
#include <memory>
#include <optional>
#include <vector>

#include "jobs/lanes.hpp"
#include "jobs/transport.hpp"
#include "views/view.hpp"

namespace rbmscope {

class AisJob;
class AnnealingView;
class EstimatesView;
class SweepJob;

class AnnealingPipeline : public QObject {
    Q_OBJECT
public:
    explicit AnnealingPipeline(const ViewContext& ctx);

    AisJob* run() const { return run_; }
    SweepJob* sweep() const { return sweep_; }
    Transport* runTransport() const { return aisTransport_; }
    Transport* sweepTransport() const { return sweepTransport_; }
    const std::vector<Lane>& lanes() const { return lanes_; }
    bool lanesReady() const { return lanesReady_; }
    std::optional<double> exactLogZ() const { return exactLogZ_; }
    const RunSettings& settings() const { return settings_; }

    // The views it feeds (the registry adds them).
    void addAnnealingView(AnnealingView* v);
    void setEstimatesView(EstimatesView* v);

    void setModel(const rbm::Model& m, const ModelEvent& e);
    void setSettings(const RunSettings& s);
    void setExactLogZ(std::optional<double> logZ);
    bool busy() const;
    StatusReport status() const;
    // Per finished method "label: log Ẑ = x, 95 % [lo, hi], ESS n", then the exact log Z (presenter strip).
    QStringList presenterFigures() const;
    QStringList sweepFigures() const;  // the Estimates view's
    void stop();                       // every run and sweep, keeping results; the β animations stop
    void stopPlaying();                // the β animations of the annealing views
    void holdRuns();                   // a reopened result is shown: nothing replaces it until Run
    bool twoD() const;

Q_SIGNALS:
    void lanesChanged();

private:
    void rebuildLanes();
    void onLanes(std::vector<Lane> lanes);
    void maybeAutoRun();
    void startRun() { aisTransport_->run(); }
    void startSweep() { sweepTransport_->run(); }
    void launchRun(std::shared_ptr<rbm::StepGate> gate);  // the AIS run, with the transport's gate
    void launchSweep(std::shared_ptr<rbm::StepGate> gate);
    void progressed();

    ViewContext ctx_;
    rbm::Model model_;
    RunSettings settings_;
    LaneKey laneKey_;
    std::vector<Lane> lanes_;
    bool lanesReady_ = false;
    bool runAfterLanes_ = false;
    bool sweepAfterLanes_ = false;
    std::optional<double> exactLogZ_;
    AisJob* run_ = nullptr;
    SweepJob* sweep_ = nullptr;
    Transport* aisTransport_ = nullptr;
    Transport* sweepTransport_ = nullptr;
    std::shared_ptr<rbm::StepGate> pendingRunGate_, pendingSweepGate_;  // for a run waiting for its lanes
    QTimer* autoRunTimer_ = nullptr;                                    // debounces runs while the user types
    std::vector<AnnealingView*> annealing_;
    EstimatesView* estimates_ = nullptr;
};

}  // namespace rbmscope
