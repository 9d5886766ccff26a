#pragma once
// One AIS run of every lane (method) with the same settings and seed, on a worker (channel
// "ais"): lanes run one after the other, each on all cores. Progress (the chains' beta, the
// particles, the running estimate) reaches the GUI through a coalesced mailbox, at most ~30
// times per second; particle frames at every checkpoint are kept so the views can scrub beta
// after the run. stop() keeps what was computed (AIS returns its partial result); cancel()
// drops the run and its results. Pause holds the chains between steps.
#include <QObject>
#include <QPointF>
#include <QVector>
#include <memory>
#include <optional>

#include "core/ais/runner.hpp"
#include "jobs/background_jobs.hpp"
#include "jobs/coalesced_mailbox.hpp"
#include "jobs/lanes.hpp"

namespace rbmscope {

// The first snapshot_chains chains at one point of the forward run (step 0: the base draws).
struct ParticleFrame {
    double beta = 0;
    rbm::Index step = 0;
    QVector<QPointF> points;
};

struct LaneRun {
    QString label;
    MethodSpec spec;
    rbm::Schedule schedule;
    std::vector<ParticleFrame> frames;       // forward, in order of beta
    std::vector<rbm::RunningPoint> running;  // forward running estimate log Zhat_beta
    std::optional<rbm::AisResult> result;    // when this lane's run ended (complete or stopped)
    QString error;                           // build_path / schedule / run_ais refusal
    // Frame whose beta is nearest `beta`, or null.
    const ParticleFrame* frameNear(double beta) const;
};

struct RunStatus {
    bool running = false;
    bool paused = false;
    bool stopped = false;  // ended by stop(): the results are partial
    int lane = -1;         // lane being run
    rbm::AisPhase phase = rbm::AisPhase::Forward;
    double beta = 0;  // where that lane's chains are
    rbm::Index step = 0, steps = 0;
    double fraction = 0;    // of the whole run (all lanes)
    double elapsed = 0;     // seconds, pauses excluded
    double speed = 0;       // chain-sweeps per second
    QVector<QPointF> live;  // current particles of `lane`
};

class AisJob : public QObject {
    Q_OBJECT
public:
    explicit AisJob(BackgroundJobs* jobs, const QString& channel = QStringLiteral("ais"), QObject* parent = nullptr);

    // Starts a run of every lane (replacing any run in progress). snapshotChains: particles
    // kept per frame (0 for models that are not 2-D).
    // gate: pause, single steps and pacing of the run (jobs/transport.hpp); null: a gate of its own.
    void start(const std::vector<Lane>& lanes, const RunSettings& settings, rbm::Index snapshotChains,
               std::shared_ptr<rbm::StepGate> gate = {});
    void stop();
    void cancel();
    // A run computed elsewhere (a reopened `ais` result): its lanes with their results, shown
    // as a finished run (no particle frames). Cancels any run in progress; nothing is run.
    void showResult(std::vector<LaneRun> lanes, rbm::Index chains);
    void setPaused(bool on);
    bool paused() const { return status_.running && stepGate_ && stepGate_->pause.load(); }
    rbm::StepGate* stepGate() const { return stepGate_.get(); }
    bool running() const { return status_.running; }

    const std::vector<LaneRun>& lanes() const { return lanes_; }
    const RunStatus& status() const { return status_; }
    rbm::Index chains() const { return chains_; }  // N of the run (the views draw only some)
    std::uint64_t runId() const { return runId_; }
    const QString& channel() const { return channel_; }
    int progressUpdates() const { return updates_; }

Q_SIGNALS:
    void started();
    void progressed();  // coalesced: at most ~30 per second
    void laneFinished(int lane);
    void finished(bool complete);

public:
    struct Live {
        int lane = -1;
        rbm::AisPhase phase = rbm::AisPhase::Forward;
        rbm::Index step = 0, steps = 0;
        double beta = 0, fraction = 0, elapsed = 0, speed = 0;
        std::vector<rbm::RunningPoint> running;
        QVector<QPointF> particles;
    };
    struct LaneOutcome {
        std::optional<rbm::AisResult> result;
        QString error;
        rbm::Schedule schedule;
    };
    struct Update {
        std::optional<Live> live;
        std::vector<std::pair<int, ParticleFrame>> frames;
        std::vector<std::pair<int, LaneOutcome>> done;
    };
    struct Outcome {
        std::vector<LaneOutcome> lanes;
        bool complete = false;
    };

private:
    void flush();
    void finish(Outcome out, const QString& error);
    void apply(Update u);
    void applyOutcome(int lane, LaneOutcome o);

    BackgroundJobs* jobs_;
    QString channel_;
    std::vector<LaneRun> lanes_;
    RunStatus status_;
    std::uint64_t runId_ = 0;
    int updates_ = 0;
    rbm::Index chains_ = 0;
    std::shared_ptr<rbm::StepGate> stepGate_;
    std::shared_ptr<Mailbox<Update>> mailbox_;
    FrameGate gate_;
};

}  // namespace rbmscope
