#pragma once
// The training view: choose data (bars-and-stripes d, the 8×8 digits with one-pixel shifts and
// binarized / scaled / standardized, a CSV or IDX file), the model (kind, hidden units) and the
// method (cd, pcd, pt, lpt, deo, leaky, mix) with k, batch, learning rate, momentum, weight
// decay, γ, N, updates, monitor interval and seed; Train / Stop (keeps the model) / Resume /
// Compare methods (cd, pcd, pt, lpt, deo one after another on the same settings, as in the
// tempering paper's figure) / Save model / Save and load checkpoints / Open in app.
// Live: the average log-likelihood of every run on one chart (legend says "exact" or "AIS ±95%",
// the AIS interval drawn as a band), with the held-out set's (when one is chosen: the test split
// or a file, same preprocessing) dashed in the run's colour against the same log Z, reconstruction
// error, mean swap acceptance of tempered runs and projection activity of leaky runs, and for the
// selected run its negative samples and filters. Errors (bad data file, bad option) show in the
// status line; the runs and settings stay.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QWidget>

#include "jobs/background_jobs.hpp"
#include "jobs/transport.hpp"
#include "run_curves.hpp"
#include "sample_grid.hpp"
#include "views/filters/filters_view.hpp"
#include "views/training/training_job.hpp"
#include "views/training/training_session.hpp"

namespace rbmscope {

class TrainingView : public QWidget {
    Q_OBJECT
public:
    explicit TrainingView(QWidget* parent = nullptr, BackgroundJobs* jobs = nullptr);
    ~TrainingView() override;

    // Controls <-> settings. options() throws InputError for settings that cannot work together.
    void setDataSpec(const TrainDataSpec& d);
    TrainDataSpec dataSpec() const;
    void setOptions(const rbm::TrainOptions& o);
    rbm::TrainOptions options() const;

    // Sessions (views/training/training_session.cpp): the controls and the selected run as the
    // view's settings; every run with results (finished, stopped, diverged; one still running as
    // stopped) with its curves, negative samples and model.
    struct SessionState {
        TrainDataSpec data;
        rbm::TrainOptions options;
        long long selected = -1;  // index into runs
        std::vector<RestoredRun> runs;
    };
    std::map<std::string, rbm::SessionValue> sessionSettings() const;
    std::vector<rbm::SessionTrainingRun> sessionRuns() const;
    // Checks everything and changes nothing: "" or one message naming the key. `settings` null:
    // the file has none (the controls stay as they are).
    QString readSession(const std::map<std::string, rbm::SessionValue>* settings,
                        const std::vector<rbm::SessionTrainingRun>& runs, SessionState& out) const;
    void applySession(const SessionState& state);  // replaces every run; shows their curves

    // Actions (the buttons). Problems go to the status line; false when nothing started.
    // gate: shared by the runs started now (jobs/transport.hpp); null: a fresh one.
    bool train(std::shared_ptr<rbm::StepGate> gate = {});
    bool compareMethods(const std::vector<rbm::TrainMethod>& methods = {rbm::TrainMethod::Cd, rbm::TrainMethod::Pcd,
                                                                        rbm::TrainMethod::Pt, rbm::TrainMethod::Lpt,
                                                                        rbm::TrainMethod::Deo});
    void stop();
    bool resume();
    QString saveModel(const QString& path);
    QString saveCheckpoint(const QString& path);
    QString loadCheckpoint(const QString& path);
    void openInApp();
    void selectRun(int id);
    // A training log computed elsewhere (a reopened `train` result or its --log file): its
    // log-likelihood (with the AIS band) and reconstruction error drawn as one more curve named
    // `name`, `source` in the status line. Replaces the previous reopened log; runs are kept.
    void showLog(const std::vector<rbm::TrainRecord>& log, const QString& name, const QString& source);
    static constexpr int kReopenedCurve = -1;  // the curve key of a reopened log (runs have ids >= 0)
    // The key of the held-out curve of run (or reopened log) `key` in likelihoodChart(): dashed, the run's colour.
    static int heldOutCurve(int key) { return key + (1 << 20); }

    bool busy() const { return session_->busy(); }
    rbm::StepGate* stepGate() const { return session_->stepGate(); }
    int selectedRun() const { return selected_; }
    TrainingJob* session() const { return session_; }
    // For the transport (Transport::Job::restored): the newest run when it was restored from a
    // session or loaded from a checkpoint and nothing was trained here since — its updates, and
    // whether it had finished.
    std::optional<Transport::Restored> restoredRun() const;
    RunCurves* likelihoodChart() const { return llChart_; }
    RunCurves* reconstructionChart() const { return reconChart_; }
    RunCurves* swapChart() const { return swapChart_; }
    RunCurves* projectionChart() const { return projChart_; }
    SampleGrid* negativeGrid() const { return negatives_; }
    FiltersView* filtersView() const { return filters_; }
    QString statusText() const { return status_->text(); }
    QPixmap grabForScreenshot() { return grab(); }
    // File > Export data: every run's monitoring records (one CSV line per record).
    Q_INVOKABLE QString exportCsv() const;
    Q_INVOKABLE QJsonObject exportJson() const;

Q_SIGNALS:
    // "Open in app": the trained model and the data it learned, for the other views.
    void openModel(const rbm::Model& model, const rbm::Dataset& data, const QString& origin);
    void runShown(int id);  // a run's curves / samples were redrawn
    void runEnded(int id);

private:
    QWidget* buildSettings();
    void onRunUpdated(int id);
    void onRunEnded(int id);
    void refreshList();
    void showSelected();
    void updateEnabled();
    void methodOrKindChanged();
    void setStatus(const QString& text, bool error = false);
    // The log's training and held-out curves (and bands) under `key` and heldOutCurve(key).
    void drawRun(const TrainingRun& run);
    void redrawForSelectedData();
    QColor runColor(const TrainingRun& run) const;
    void drawLikelihood(int key, const QString& label, const QColor& color, const std::vector<rbm::TrainRecord>& log);
    rbm::TrainOptions controlOptions() const;  // the controls as they are (options() also checks them)

    TrainingJob* session_;
    int selected_ = -1;

    QComboBox* dataKind_ = nullptr;
    QSpinBox* barsD_ = nullptr;
    QLineEdit* dataPath_ = nullptr;
    QPushButton* browse_ = nullptr;
    QCheckBox* shifts_ = nullptr;
    QComboBox* prep_ = nullptr;
    QComboBox* testKind_ = nullptr;
    QLineEdit* testPath_ = nullptr;
    QPushButton* testBrowse_ = nullptr;
    QWidget* testRow_ = nullptr;
    QComboBox* kind_ = nullptr;
    QSpinBox* hidden_ = nullptr;
    QComboBox* method_ = nullptr;
    QSpinBox* k_ = nullptr;
    QSpinBox* batch_ = nullptr;
    QDoubleSpinBox* lr_ = nullptr;
    QComboBox* schedule_ = nullptr;
    QDoubleSpinBox* momentum_ = nullptr;
    QDoubleSpinBox* decay_ = nullptr;
    QDoubleSpinBox* gamma_ = nullptr;
    QSpinBox* temps_ = nullptr;
    QDoubleSpinBox* leakiness_ = nullptr;
    QCheckBox* projection_ = nullptr;
    QSpinBox* updates_ = nullptr;
    QSpinBox* monitor_ = nullptr;
    QSpinBox* seed_ = nullptr;
    QDoubleSpinBox* initScale_ = nullptr;
    QPushButton* trainButton_ = nullptr;
    QPushButton* stopButton_ = nullptr;
    QPushButton* resumeButton_ = nullptr;
    QPushButton* compareButton_ = nullptr;
    QPushButton* saveModelButton_ = nullptr;
    QPushButton* saveCkptButton_ = nullptr;
    QPushButton* loadCkptButton_ = nullptr;
    QPushButton* openButton_ = nullptr;
    QPushButton* clearButton_ = nullptr;
    QLabel* status_ = nullptr;
    QString runningText_;  // the status line of the run in progress, without its pause
    QProgressBar* progress_ = nullptr;
    QListWidget* runList_ = nullptr;
    RunCurves* llChart_ = nullptr;
    RunCurves* reconChart_ = nullptr;
    RunCurves* swapChart_ = nullptr;
    RunCurves* projChart_ = nullptr;
    QTabWidget* diag_ = nullptr;
    QLabel* runInfo_ = nullptr;
    SampleGrid* negatives_ = nullptr;
    FiltersView* filters_ = nullptr;
    QString shownData_;  // the data set whose runs the charts show (describe(TrainDataSpec))
};

// Legend colour of a method (the same in every chart).
QColor methodColor(rbm::TrainMethod m);

}  // namespace rbmscope
