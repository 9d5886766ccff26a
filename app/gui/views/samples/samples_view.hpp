#pragma once
// The samples view: for an image-shaped model (any kind; n a square, or a shape set here or
// taken from the data set), a grid of visible samples from a chosen sampler — Gibbs chains, the
// target rung of PT ladders, or Algorithm 2 for leaky RBMs — refreshing live as the chains run,
// next to a grid of data examples when a data set is chosen. Probabilities (BRBM: P(v = 1 | h) of
// the last half-step) or binary states; continuous models show their values in grey.
//
// The run goes through BackgroundJobs on channel "samples" (a new run cancels the old one);
// frames from the worker are coalesced (the newest kept, drawn by a ~40 ms single-shot timer).
// 2-D models (the density toys) show a message saying why the tab is empty.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QWidget>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "core/io/session_io.hpp"

#include "core/data/datasets.hpp"
#include "jobs/background_jobs.hpp"
#include "jobs/coalesced_mailbox.hpp"
#include "sample_grid.hpp"
#include "views/samples/samples_job.hpp"

namespace rbmscope {

// The same data set and preprocessing (a standardization's values aside).
bool sameTrainingData(const rbm::TrainingData& a, const rbm::TrainingData& b);

class SamplesView : public QWidget {
    Q_OBJECT
public:
    explicit SamplesView(QWidget* parent = nullptr, BackgroundJobs* jobs = nullptr);
    ~SamplesView() override;

    void setModel(const rbm::Model& model);  // cancels a run, clears the samples
    // Data examples shown beside the samples (and their image shape used when it fits).
    void setData(const rbm::Dataset& data);
    // "bars:4", "digits", a CSV / IDX path, preprocessed as the Preprocessing box says (default
    // for a BRBM: binarized at 0.5); empty: no data. False (message shown) on failure. On success
    // trainingDataChosen says what to attach to the model.
    bool setDataSpec(const QString& spec);
    // The data a model was trained on, in its recorded preprocessing (Model::training); the
    // Preprocessing box follows it. False (message shown) when it cannot be loaded.
    bool setTrainingData(const rbm::TrainingData& t);
    // What the data grid shows: the spec and preprocessing (empty when the data came from setData).
    const std::optional<rbm::TrainingData>& trainingData() const { return trainingData_; }
    const rbm::Dataset* dataset() const { return dataset_ ? &*dataset_ : nullptr; }
    // Directory a relative data path recorded in the model file is looked up in (the model's).
    void setModelDirectory(const QString& dir) { modelDir_ = dir; }
    void setImageShape(int rows, int cols);  // 0, 0: inferred
    void setSettings(const SamplesSettings& s);
    SamplesSettings settings() const;
    void setShowProbabilities(bool on);
    // Sessions (samples_session.cpp): the controls as the view's settings — sampler, chains,
    // sweeps, seed, speed (sweeps per second, 0 = fast), display (probabilities | binary),
    // rows, cols (0 = auto), prep (as-is | binarize | scale | standardize); the data set is the
    // session's "samples_data" (trainingData()). readSession checks and changes nothing ("" or
    // one message naming the key); applySession sets the controls, then loads the data set (a
    // data set that cannot be loaded any more says so in the view; the rest is restored).
    struct SessionState {
        bool hasSettings = false;  // the file had "views.samples" (else the controls stay as setModel left them)
        SamplesSettings settings;
        bool probabilities = true;
        int rows = 0, cols = 0, prep = 0;
        std::optional<rbm::TrainingData> data;
    };
    std::map<std::string, rbm::SessionValue> sessionSettings() const;
    QString readSession(const std::map<std::string, rbm::SessionValue>* map,
                        const std::optional<rbm::TrainingData>& data, SessionState& out) const;
    void applySession(const SessionState& s);

    // gate: pause, single steps and pacing (jobs/transport.hpp); null: a gate of its own.
    void run(std::shared_ptr<rbm::StepGate> gate = {});
    rbm::StepGate* stepGate() const { return stepGate_.get(); }
    QString statusText() const { return status_->text(); }
    bool lastRunFinished() const { return lastRunFinished_; }  // the last run ended complete
    void cancel();
    bool busy() const;
    QPixmap grabForScreenshot();

    SampleGrid* sampleGrid() const { return samples_; }
    SampleGrid* dataGrid() const { return data_; }
    // Why nothing is drawn ("" when the model is image-shaped).
    QString message() const { return message_; }
    QString dataMessage() const { return dataStatus_->text(); }
    int framesShown() const { return framesShown_; }
    const SamplesFrame* shownFrame() const { return shown_.get(); }
    QString channel() const { return QStringLiteral("samples"); }

Q_SIGNALS:
    void frameShown();
    void runFinished();
    void runningChanged(bool running);
    // The user chose data and preprocessing for a model that records none (or other ones).
    void trainingDataChosen(const rbm::TrainingData& t);

private:
    void buildControls();
    void receive(std::shared_ptr<SamplesFrame> f);
    void showFrame();
    void showData();
    void updateShape();
    void updateEnabled();
    QSize shape() const;  // (cols, rows); empty when the model is not image-shaped

    BackgroundJobs* jobs_;
    rbm::Model model_;
    bool hasModel_ = false;
    std::optional<rbm::Dataset> dataset_;
    QString message_;
    std::shared_ptr<SamplesFrame> pending_, shown_;
    std::unique_ptr<FrameGate> gate_;
    int framesShown_ = 0;

    QComboBox* sampler_ = nullptr;
    QSpinBox* chains_ = nullptr;
    QSpinBox* sweeps_ = nullptr;
    QSpinBox* seed_ = nullptr;
    QComboBox* speed_ = nullptr;
    QComboBox* display_ = nullptr;
    QSpinBox* rows_ = nullptr;
    QSpinBox* cols_ = nullptr;
    QLineEdit* dataSpec_ = nullptr;
    QComboBox* prep_ = nullptr;  // as is, binarize at 0.5, scale to [0,1], standardize
    std::optional<rbm::TrainingData> trainingData_;
    QString modelDir_;
    QPushButton* runButton_ = nullptr;
    QPushButton* cancelButton_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* status_ = nullptr;
    QString runningText_;  // the status line of the run in progress, without its pause or progress
    QLabel* dataStatus_ = nullptr;
    SampleGrid* samples_ = nullptr;
    SampleGrid* data_ = nullptr;
    std::shared_ptr<rbm::StepGate> stepGate_;
    bool lastRunFinished_ = false;
};

}  // namespace rbmscope
