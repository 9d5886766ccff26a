#pragma once
// An estimates sweep: AIS for every lane (method) at every K of the sweep, same seed, on a
// worker (channel "sweep"). Runs go in order of K, all methods at one K before the next K, so
// every method's curve grows together; each finished run becomes a point at once (through the
// coalesced mailbox). stop() keeps the points already computed.
#include <QObject>
#include <memory>
#include <optional>

#include "core/ais/runner.hpp"
#include "jobs/background_jobs.hpp"
#include "jobs/coalesced_mailbox.hpp"
#include "jobs/lanes.hpp"

namespace rbmscope {

struct SweepPoint {
    int lane = 0;
    rbm::Index steps = 0;  // K
    rbm::AisEstimate estimate;
    std::optional<double> reverseUpper;      // reverse AIS: stochastic upper bound on log Z
    double reverseLow = 0, reverseHigh = 0;  // its bootstrap interval
    double seconds = 0;
};

class SweepJob : public QObject {
    Q_OBJECT
public:
    explicit SweepJob(BackgroundJobs* jobs, const QString& channel = QStringLiteral("sweep"),
                      QObject* parent = nullptr);

    // gate: pause, single steps (one annealing step of the run in progress) and pacing; null: its own.
    void start(const std::vector<Lane>& lanes, const RunSettings& settings, std::shared_ptr<rbm::StepGate> gate = {});
    void stop();
    void cancel();
    void setPaused(bool on);
    void clear();
    // A sweep computed elsewhere (a reopened ais-sweep result): its methods, its K and its
    // points, shown as a finished sweep. Cancels any sweep in progress; nothing is run.
    void showResult(const QStringList& labels, std::vector<rbm::Index> steps, std::vector<SweepPoint> points);

    bool running() const { return running_; }
    bool paused() const { return running_ && pause_ && pause_->pause.load(); }
    rbm::StepGate* stepGate() const { return pause_.get(); }
    double fraction() const { return fraction_; }
    double elapsed() const { return elapsed_; }
    double speed() const { return speed_; }
    const QStringList& laneLabels() const { return labels_; }
    const QStringList& laneErrors() const { return errors_; }
    const std::vector<SweepPoint>& points() const { return points_; }
    const std::vector<rbm::Index>& steps() const { return steps_; }

Q_SIGNALS:
    void started();
    void progressed();
    void finished(bool complete);

public:
    struct Update {
        std::vector<SweepPoint> points;
        std::vector<std::pair<int, QString>> errors;
        double fraction = -1, elapsed = 0, speed = 0;
    };

private:
    void flush();
    void finish(bool complete);

    BackgroundJobs* jobs_;
    QString channel_;
    QStringList labels_, errors_;
    std::vector<rbm::Index> steps_;
    std::vector<SweepPoint> points_;
    bool running_ = false;
    double fraction_ = 0, elapsed_ = 0, speed_ = 0;
    std::shared_ptr<rbm::StepGate> pause_;
    std::shared_ptr<Mailbox<Update>> mailbox_;
    FrameGate gate_;
};

}  // namespace rbmscope
