#pragma once
// The training runs of the training view and the jobs that drive them. Each run owns an
// rbm::Trainer; a job on channel "train.<id>" builds it (loading the data there, so a bad file
// fails in the background and comes back as a message), then calls step() one update at a time
// and posts a snapshot (log, model, negative samples) about every 60 ms; snapshots are coalesced
// on the GUI side (newest per run, ~40 ms timer). The GUI touches a run's Trainer only while no
// job runs it (save, checkpoint, open in app). Stop raises the flag: step() returns Cancelled and
// the job delivers the run as it is, so nothing is lost; Resume continues it (the Trainer's
// streams are keyed by update, so a resumed run equals an uninterrupted one).
// A queue runs several setups one after another ("Compare methods").
#include <QObject>
#include <QString>
#include <deque>
#include <map>
#include <memory>
#include <vector>

#include "core/numerics/step_gate.hpp"
#include "core/training/training.hpp"
#include "jobs/background_jobs.hpp"
#include "jobs/coalesced_mailbox.hpp"

namespace rbmscope {

struct TrainDataSpec {
    QString source = QStringLiteral("bars:4");  // "bars:D", "digits", or a CSV / IDX path
    bool shifts = false;                        // the tempering paper's one-pixel shifts (image data)
    enum class Prep { AsIs, Binarize, Scale, Standardize } prep = Prep::Binarize;
    // Held-out rows scored at every record (Trainer::set_test_data): a spec as `source` takes
    // ("fashion-mnist:test", "bars:4:200:7", a file), with the same `prep` and no shifts; "" none.
    QString test;
};
// InputError naming the problem.
rbm::Dataset loadTrainingData(const TrainDataSpec& spec);
// The held-out set of spec.test (empty Dataset when there is none); InputError naming the problem.
rbm::Dataset loadTestData(const TrainDataSpec& spec);
QString describe(const TrainDataSpec& spec);
// The same as a model's record of its training data (Model::training; binarized at 0.5).
rbm::TrainingData trainingDataOf(const TrainDataSpec& spec);

struct TrainSnapshot {
    std::vector<rbm::TrainRecord> log;
    rbm::Model model;
    rbm::RowMat negatives;
    rbm::TrainStatus status = rbm::TrainStatus::Running;
    QString message;
    rbm::Index updatesDone = 0, totalUpdates = 0;
    rbm::Index projections = 0;  // leaky: updates with an active projection so far
    rbm::Index imageRows = 0, imageCols = 0;
    double seconds = 0;
};

struct TrainingRun {
    int id = 0;
    QString label;  // the method, made unique ("pcd", "pcd 2")
    TrainDataSpec data;
    rbm::TrainOptions options;
    std::shared_ptr<rbm::Trainer> trainer;  // null until the first job built it
    std::shared_ptr<const TrainSnapshot> snapshot;
    bool running = false;
    QString error;           // the job failed (bad data, bad options)
    QString fromCheckpoint;  // the checkpoint file it continued, else "" (its first updates were not seen here)
};

class TrainingJob : public QObject {
    Q_OBJECT
public:
    explicit TrainingJob(BackgroundJobs* jobs, QObject* parent = nullptr);
    ~TrainingJob() override;

    int start(const TrainDataSpec& data, const rbm::TrainOptions& options);  // returns the run id
    // The gate the runs launched from now on share (pause, single updates, pacing; one unit = one
    // update). Null: a fresh gate of their own.
    void setStepGate(std::shared_ptr<rbm::StepGate> gate) { stepGate_ = std::move(gate); }
    rbm::StepGate* stepGate() const { return stepGate_.get(); }
    // Runs these one after another (each waits for the previous to end).
    void startQueue(const TrainDataSpec& data, const std::vector<rbm::TrainOptions>& runs);
    void stop(int id);
    void stopAll();  // also empties the queue
    // Continues a stopped run; a finished run gets `more` further updates.
    bool resume(int id, rbm::Index more);
    void remove(int id);
    void clear();

    // Empty on success, else why not.
    QString saveModel(int id, const QString& path) const;
    QString saveCheckpoint(int id, const QString& path) const;
    // A run restored from a session (views/training/training_session.hpp): shown from its
    // snapshot, with no trainer (it cannot be resumed or checkpointed). Returns its id.
    int restore(const QString& label, const TrainDataSpec& data, const rbm::TrainOptions& options,
                std::shared_ptr<const TrainSnapshot> snapshot);
    // A new (stopped) run from a checkpoint with this data; -1 and `error` on failure.
    int loadCheckpoint(const QString& path, const TrainDataSpec& data, QString& error);

    const TrainingRun* run(int id) const;
    std::vector<int> ids() const;
    // The newest run when it was restored from a session or loaded from a checkpoint and no run
    // has been launched here since: what the transport counts (its units were not counted here).
    const TrainingRun* shownNotRun() const;
    bool busy() const;  // a run is running or queued
    int queued() const { return static_cast<int>(queue_.size()); }
    static QString channelOf(int id) { return QStringLiteral("train.%1").arg(id); }

Q_SIGNALS:
    void runAdded(int id);
    void runUpdated(int id);
    void runEnded(int id);  // stopped, finished, diverged or failed
    void busyChanged(bool busy);

private:
    int add(const TrainDataSpec& data, const rbm::TrainOptions& options);
    void launch(int id);
    void flush();
    void startNextQueued();
    TrainingRun* find(int id);

    BackgroundJobs* jobs_;
    std::map<int, TrainingRun> runs_;
    std::map<int, std::shared_ptr<const TrainSnapshot>> pending_;
    std::deque<std::pair<TrainDataSpec, rbm::TrainOptions>> queue_;
    std::unique_ptr<FrameGate> gate_;
    int nextId_ = 1;
    bool restoredLast_ = false;  // restore / loadCheckpoint came after the last launch
    std::shared_ptr<rbm::StepGate> stepGate_ = std::make_shared<rbm::StepGate>();
};

}  // namespace rbmscope
