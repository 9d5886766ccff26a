#include "views/samples/samples_view.hpp"

#include <QCompleter>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "core/numerics/memory_budget.hpp"
#include "jobs/autoload_limit.hpp"
#include "views/export_hidden.hpp"

namespace rbmscope {
namespace {

constexpr int kSamplesFrameGateMs = 40;
constexpr int kMaxDataTiles = 64;

}  // namespace

bool sameTrainingData(const rbm::TrainingData& a, const rbm::TrainingData& b) {
    return a.data == b.data && a.csv_header == b.csv_header && a.csv_label == b.csv_label && a.limit == b.limit &&
           a.shifts == b.shifts && a.binarize == b.binarize && a.scale == b.scale && a.standardize == b.standardize;
}

SamplesView::SamplesView(QWidget* parent, BackgroundJobs* jobs)
    : QWidget(parent), jobs_(jobs ? jobs : new BackgroundJobs(this)) {
    gate_ = std::make_unique<FrameGate>(this, kSamplesFrameGateMs, [this] {
        if (!pending_) return;
        shown_ = std::move(pending_);
        showFrame();
        // While the run goes on, the status line says whether it is held (the worker sends a frame as
        // it stops in a pause, and frames again once it goes on).
        if (!shown_->finished && jobs_->isRunning(channel()) && stepGate_)
            status_->setText((stepGate_->pause.load() ? tr("Paused — ") : QString()) +
                             tr("%1 %2 of %3").arg(runningText_).arg(shown_->done).arg(shown_->total));
    });
    auto* root = new QVBoxLayout(this);
    root->setContentsMargins(4, 4, 4, 4);
    buildControls();
    auto* controls = new QWidget(this);
    controls->setProperty(kExportHidden, true);  // image and playback exports leave the controls out
    auto* rowsBox = new QVBoxLayout(controls);
    rowsBox->setContentsMargins(0, 0, 0, 0);
    auto* row0 = new QHBoxLayout;
    auto* row1 = new QHBoxLayout;
    rowsBox->addLayout(row0);
    rowsBox->addLayout(row1);
    const auto add = [&](QHBoxLayout* row, const QString& label, QWidget* w) {
        if (!label.isEmpty()) row->addWidget(new QLabel(label, controls));
        row->addWidget(w);
    };
    add(row0, tr("Sampler"), sampler_);
    add(row0, tr("Chains"), chains_);
    add(row0, tr("Sweeps"), sweeps_);
    add(row0, tr("Seed"), seed_);
    add(row0, tr("Speed"), speed_);
    add(row0, QString(), runButton_);
    add(row0, QString(), cancelButton_);
    add(row0, QString(), progress_);
    row0->addStretch(1);
    add(row1, tr("Show"), display_);
    add(row1, tr("Shape"), rows_);
    add(row1, QStringLiteral("×"), cols_);
    add(row1, tr("Data"), dataSpec_);
    add(row1, QString(), prep_);
    auto* browse = new QPushButton(tr("Browse…"), controls);
    add(row1, QString(), browse);
    row1->addWidget(dataStatus_, 1);
    root->addWidget(controls);
    root->addWidget(status_);

    auto* split = new QSplitter(Qt::Horizontal, this);
    samples_ = new SampleGrid(split);
    data_ = new SampleGrid(split);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    root->addWidget(split, 1);

    connect(runButton_, &QPushButton::clicked, this, [this] { run(); });
    connect(cancelButton_, &QPushButton::clicked, this, [this] { cancel(); });
    connect(display_, &QComboBox::currentIndexChanged, this, [this] { showFrame(); });
    for (QSpinBox* s : {rows_, cols_}) connect(s, &QSpinBox::valueChanged, this, [this] { updateShape(); });
    connect(dataSpec_, &QLineEdit::editingFinished, this, [this] {
        // Only a changed spec: focus leaving the field must not replace recorded preprocessing.
        const QString spec = dataSpec_->text().trimmed();
        if (!trainingData_ || spec != QString::fromStdString(trainingData_->data)) setDataSpec(spec);
    });
    connect(prep_, &QComboBox::activated, this, [this] {
        if (!dataSpec_->text().trimmed().isEmpty()) setDataSpec(dataSpec_->text().trimmed());
    });
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Data set"), QString(), tr("Data (*.csv *.csv.gz *idx3-ubyte *idx3-ubyte.gz);;All files (*)"));
        if (path.isEmpty()) return;
        dataSpec_->setText(path);
        setDataSpec(path);
    });
    connect(jobs_, &BackgroundJobs::runningChanged, this, [this](const QString& channel, bool on) {
        if (channel != this->channel()) return;
        updateEnabled();
        Q_EMIT runningChanged(on);
    });
    data_->setTitle(tr("Data examples"));
    data_->setMessage(
        tr("Choose a data set (bars:4, digits, fashion-mnist, a CSV or IDX file) to show examples here."));
    samples_->setTitle(tr("Samples"));
    message_ = tr("Open an image-shaped model (or train one in the Training tab) to see its samples.");
    samples_->setMessage(message_);
    updateEnabled();
}

SamplesView::~SamplesView() { jobs_->cancel(channel()); }

void SamplesView::buildControls() {
    sampler_ = new QComboBox(this);
    sampler_->addItem(samplerName(SamplerKind::Gibbs), static_cast<int>(SamplerKind::Gibbs));
    sampler_->addItem(samplerName(SamplerKind::Pt), static_cast<int>(SamplerKind::Pt));
    sampler_->addItem(samplerName(SamplerKind::Anneal), static_cast<int>(SamplerKind::Anneal));
    // PT by default (SamplesSettings): on bars-and-stripes about half the Gibbs chains sit in the
    // all-hidden-off basin after 2000 sweeps (flat grey tiles), PT's 60 of 64 tiles are patterns.
    sampler_->setCurrentIndex(sampler_->findData(static_cast<int>(SamplesSettings{}.sampler)));
    sampler_->setToolTip(
        tr("Gibbs: independent block-Gibbs chains. PT: each tile is the β = 1 rung of its own "
           "ladder (γ = 0.7, N = 6, deterministic even-odd swaps). Algorithm 2 (leaky RBMs): "
           "exact draws at leakiness 1, then the leakiness lowered to the model's over the sweeps."));
    chains_ = new QSpinBox(this);
    chains_->setRange(1, 1024);
    chains_->setValue(64);
    chains_->setToolTip(tr("Independent chains, one tile each"));
    sweeps_ = new QSpinBox(this);
    sweeps_->setRange(1, 100000000);
    sweeps_->setValue(2000);
    sweeps_->setToolTip(tr("Gibbs sweeps, PT scans, or annealing steps (Algorithm 2)"));
    seed_ = new QSpinBox(this);
    seed_->setRange(0, 1 << 30);
    seed_->setValue(1);
    speed_ = new QComboBox(this);
    speed_->addItem(tr("fast"), 0.0);
    speed_->addItem(tr("200 sweeps/s"), 200.0);
    speed_->addItem(tr("20 sweeps/s"), 20.0);
    speed_->addItem(tr("2 sweeps/s"), 2.0);
    speed_->setToolTip(tr("Slow the chains down to watch them mix"));
    display_ = new QComboBox(this);
    display_->addItem(tr("probabilities"));
    display_->addItem(tr("binary"));
    display_->setToolTip(
        tr("Probabilities: P(v = 1 | h) of the last half-step (BRBM; other kinds show their values "
           "in grey). Binary: the sampled states (thresholded at mid-range for continuous models)."));
    rows_ = new QSpinBox(this);
    cols_ = new QSpinBox(this);
    for (QSpinBox* s : {rows_, cols_}) {
        s->setRange(0, 4096);
        s->setSpecialValueText(tr("auto"));
        s->setToolTip(tr("Image shape (rows × columns = n); auto: the data set's shape, else square"));
    }
    dataSpec_ = new QLineEdit(this);
    dataSpec_->setPlaceholderText(tr("bars:4, digits, fashion-mnist, or a file"));
    // The sets known by name (rbm::load_dataset); Fashion-MNIST from Debian's dataset-fashion-mnist.
    auto* known = new QCompleter(QStringList{QStringLiteral("bars:4"), QStringLiteral("digits"),
                                             QStringLiteral("fashion-mnist"), QStringLiteral("fashion-mnist:test")},
                                 dataSpec_);
    dataSpec_->setCompleter(known);
    dataSpec_->setToolTip(
        tr("bars:D, digits, fashion-mnist (training set), fashion-mnist:test (apt-get install "
           "dataset-fashion-mnist), or a .csv, .csv.gz or IDX (.gz) file"));
    dataSpec_->setMinimumWidth(160);
    prep_ = new QComboBox(this);
    prep_->addItem(tr("as is"));
    prep_->addItem(tr("binarized at 0.5"));
    prep_->addItem(tr("scaled to [0,1]"));
    prep_->addItem(tr("standardized"));
    prep_->setToolTip(
        tr("The preprocessing the model was trained with (rbmscope-cli train --binarize / --scale /\n"
           "--standardize); a model file written by train records it and sets this box."));
    runButton_ = new QPushButton(tr("Run"), this);
    cancelButton_ = new QPushButton(tr("Cancel"), this);
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 1000);
    progress_->setMaximumWidth(180);
    status_ = new QLabel(this);
    status_->setWordWrap(true);
    dataStatus_ = new QLabel(this);
    dataStatus_->setWordWrap(true);
}

void SamplesView::setModel(const rbm::Model& model) {
    jobs_->cancel(channel());
    model_ = model;
    hasModel_ = true;
    pending_.reset();
    shown_.reset();
    samples_->clear();
    status_->clear();
    progress_->setValue(0);
    if (model_.kind() == rbm::ModelKind::Leaky) sampler_->setCurrentIndex(2);
    else if (sampler_->currentIndex() == 2) sampler_->setCurrentIndex(0);
    // A BRBM sees 0/1 data: binarized unless the model records otherwise.
    if (!model_.training && !dataset_) prep_->setCurrentIndex(model_.kind() == rbm::ModelKind::Brbm ? 1 : 0);
    if (model_.training && (!trainingData_ || !sameTrainingData(*trainingData_, *model_.training))) {
        // Loaded unasked, on open: at most kAutoLoadDataBytes (a 2 KB model recording
        // bars:3:40000000:1 made the app peak at 11 GB); a larger one waits for the user to load it.
        bool loaded = false;
        {
            const rbm::ScopedMemoryCap cap(kAutoLoadDataBytes);
            loaded = setTrainingData(*model_.training);
        }
        if (loaded) return;  // it shaped and drew the data
        dataStatus_->setText(
            QString::fromStdString(withoutBudgetAdvice(dataStatus_->text().toStdString())) +
            tr(" (on open the app loads at most %1 of a model's data by itself; enter the spec under Data to load it)")
                .arg(QString::fromStdString(rbm::bytes_text(static_cast<double>(kAutoLoadDataBytes)))));
    }
    updateShape();
    showData();
}

bool SamplesView::setTrainingData(const rbm::TrainingData& t) {
    try {
        rbm::TrainingData applied = t;
        rbm::Dataset d = rbm::load_training_data(applied, modelDir_.toStdString());
        trainingData_ = std::move(applied);
        prep_->setCurrentIndex(trainingData_->binarize      ? 1
                               : trainingData_->scale       ? 2
                               : trainingData_->standardize ? 3
                                                            : 0);
        prep_->setToolTip(QString::fromStdString(rbm::describe(*trainingData_)));
        dataSpec_->setText(QString::fromStdString(trainingData_->data));
        dataset_ = std::move(d);
        dataStatus_->setText(tr("%1: %2 examples of %3 values")
                                 .arg(QString::fromStdString(dataset_->name))
                                 .arg(dataset_->size())
                                 .arg(dataset_->dim()));
        updateShape();
        showData();
        return true;
    } catch (const std::exception& e) {
        dataStatus_->setText(tr("Cannot load the training data: %1").arg(QString::fromStdString(e.what())));
        return false;
    }
}

void SamplesView::setData(const rbm::Dataset& data) {
    dataset_ = data;
    trainingData_.reset();
    dataSpec_->setText(QString::fromStdString(data.name));
    dataStatus_->setText(tr("%1 examples of %2 values").arg(data.size()).arg(data.dim()));
    updateShape();
    showData();
}

bool SamplesView::setDataSpec(const QString& spec) {
    if (spec.isEmpty()) {
        dataset_.reset();
        trainingData_.reset();
        dataStatus_->clear();
        data_->clear();
        data_->setMessage(tr("No data set chosen."));
        updateShape();
        return true;
    }
    rbm::TrainingData t;
    t.data = spec.toStdString();
    switch (prep_->currentIndex()) {
        case 1: t.binarize = 0.5; break;
        case 2: t.scale = true; break;
        case 3: t.standardize = true; break;
        default: break;
    }
    if (!setTrainingData(t)) return false;
    if (hasModel_ && dataset_->dim() == model_.n_visible()) Q_EMIT trainingDataChosen(*trainingData_);
    return true;
}

void SamplesView::setImageShape(int rows, int cols) {
    rows_->setValue(rows);
    cols_->setValue(cols);
}

QSize SamplesView::shape() const {
    if (!hasModel_) return {};
    const rbm::Index n = model_.n_visible();
    if (rows_->value() > 0 && cols_->value() > 0 && static_cast<rbm::Index>(rows_->value()) * cols_->value() == n)
        return {cols_->value(), rows_->value()};
    if (dataset_ && dataset_->has_image_shape() && dataset_->dim() == n)
        return {static_cast<int>(dataset_->image_cols), static_cast<int>(dataset_->image_rows)};
    if (n >= 4) return squareShape(n);
    return {};
}

void SamplesView::updateShape() {
    if (!hasModel_) return;
    const rbm::Index n = model_.n_visible();
    const QSize s = shape();
    if (s.isEmpty()) {
        if (n == 2)
            message_ = tr("This is a 2-D model (%1): its samples are points, not images. The Target density, "
                          "Annealing and Tempering tabs show them; this tab shows image-shaped models "
                          "(n a square such as 16 = 4×4 or 64 = 8×8, or a shape set above).")
                           .arg(QString::fromLatin1(rbm::kind_name(model_.kind())));
        else
            message_ = tr("n = %1 visible units is not a square image: set the image shape above "
                          "(rows × columns = %1), or choose a data set with an image shape.")
                           .arg(n);
    } else if (model_.kind() == rbm::ModelKind::Gaussian) {
        message_ = tr("A gaussian toy has no sampler to watch here; open an RBM.");
    } else {
        message_.clear();
    }
    if (!message_.isEmpty()) {
        jobs_->cancel(channel());
        samples_->clear();
        samples_->setMessage(message_);
    } else if (shown_) {
        showFrame();
    } else {
        samples_->clear();
        samples_->setMessage(
            tr("Press Run to draw %1 samples with %2.").arg(chains_->value()).arg(sampler_->currentText()));
    }
    updateEnabled();
}

void SamplesView::showData() {
    if (!dataset_) return;
    const rbm::Dataset& d = *dataset_;
    int r = 0, c = 0;
    if (d.has_image_shape()) {
        r = static_cast<int>(d.image_rows);
        c = static_cast<int>(d.image_cols);
    }
    if (hasModel_ && d.dim() != model_.n_visible())
        dataStatus_->setText(tr("%1 has %2 values per example but the model has n = %3")
                                 .arg(QString::fromStdString(d.name))
                                 .arg(d.dim())
                                 .arg(model_.n_visible()));
    // Evenly spread examples, so a set ordered by class shows every class.
    const rbm::Index count = std::min<rbm::Index>(kMaxDataTiles, d.size());
    rbm::RowMat X(count, d.dim());
    for (rbm::Index i = 0; i < count; ++i) X.row(i) = d.X.row(i * d.size() / std::max<rbm::Index>(1, count));
    data_->setValueRange(std::min(0.0, X.minCoeff()), std::max(X.maxCoeff(), X.minCoeff() + 1e-12));
    data_->setSamples(X, r, c);
    data_->setTitle(tr("Data: %1").arg(QString::fromStdString(d.name)));
}

void SamplesView::setSettings(const SamplesSettings& s) {
    sampler_->setCurrentIndex(sampler_->findData(static_cast<int>(s.sampler)));
    chains_->setValue(s.chains);
    sweeps_->setValue(static_cast<int>(std::min<long long>(s.sweeps, sweeps_->maximum())));
    seed_->setValue(static_cast<int>(s.seed));
    int best = 0;
    for (int i = 0; i < speed_->count(); ++i)
        if (std::fabs(speed_->itemData(i).toDouble() - s.sweepsPerSecond) < 1e-9) best = i;
    speed_->setCurrentIndex(best);
}

SamplesSettings SamplesView::settings() const {
    SamplesSettings s;
    s.sampler = static_cast<SamplerKind>(sampler_->currentData().toInt());
    s.chains = chains_->value();
    s.sweeps = sweeps_->value();
    s.seed = static_cast<std::uint64_t>(seed_->value());
    s.sweepsPerSecond = speed_->currentData().toDouble();
    return s;
}

void SamplesView::setShowProbabilities(bool on) { display_->setCurrentIndex(on ? 0 : 1); }

void SamplesView::run(std::shared_ptr<rbm::StepGate> gate) {
    if (!hasModel_ || !message_.isEmpty()) return;
    const SamplesSettings s = settings();
    try {
        checkSampler(model_, s);
    } catch (const std::exception& e) {
        status_->setText(QString::fromStdString(e.what()));
        return;
    }
    pending_.reset();
    runningText_ = tr("Running %1…").arg(samplerName(s.sampler));
    status_->setText(runningText_);
    const rbm::Model model = model_;
    stepGate_ = gate ? std::move(gate) : std::make_shared<rbm::StepGate>();
    lastRunFinished_ = false;
    jobs_->submitWithProgress<SamplesFrame>(
        channel(),
        [model, s, this, gate = stepGate_](const BackgroundJobs::Context& ctx) {
            return runSamples(
                model, s, *ctx.cancel,
                [ctx, this](const SamplesFrame& f) {
                    auto copy = std::make_shared<SamplesFrame>(f);
                    ctx.post([this, copy] {
                        pending_ = copy;
                        gate_->wake();
                    });
                },
                0.04, gate.get());
        },
        [this, s](SamplesFrame f) {
            pending_ = std::make_shared<SamplesFrame>(std::move(f));
            gate_->flushNow();
            lastRunFinished_ = true;
            status_->setText(tr("%1: %2 %3 done.")
                                 .arg(samplerName(s.sampler))
                                 .arg(s.sweeps)
                                 .arg(s.sampler == SamplerKind::Pt       ? tr("scans")
                                      : s.sampler == SamplerKind::Anneal ? tr("annealing steps")
                                                                         : tr("sweeps")));
            Q_EMIT runFinished();
        },
        [this](QString message) { status_->setText(message); });
    updateEnabled();
}

void SamplesView::cancel() {
    jobs_->cancel(channel());
    if (shown_ && !shown_->finished)
        status_->setText(tr("Cancelled after %1 of %2.").arg(shown_->done).arg(shown_->total));
}

bool SamplesView::busy() const { return jobs_->isRunning(channel()) || pending_ != nullptr; }

void SamplesView::showFrame() {
    if (!shown_ || !message_.isEmpty()) return;
    const SamplesFrame& f = *shown_;
    const QSize s = shape();
    const bool probs = display_->currentIndex() == 0;
    const bool binaryModel = model_.kind() == rbm::ModelKind::Brbm;
    const rbm::RowMat& X = probs && f.means.rows() == f.states.rows() && f.means.size() > 0 ? f.means : f.states;
    if (binaryModel) {
        samples_->setValueRange(0, 1);
    } else if (dataset_ && dataset_->dim() == X.cols()) {
        samples_->setValueRange(std::min(0.0, dataset_->X.minCoeff()), dataset_->X.maxCoeff());
    } else if (X.size() > 0) {
        samples_->setValueRange(X.minCoeff(), std::max(X.maxCoeff(), X.minCoeff() + 1e-12));
    }
    samples_->setMode(probs ? SampleGrid::Mode::Grey : SampleGrid::Mode::Binary);
    samples_->setSamples(X, s.height(), s.width());
    samples_->setTitle(tr("%1 — %2 %3 of %4")
                           .arg(samplerName(settings().sampler), probs && binaryModel ? tr("P(v=1|h)") : tr("samples"))
                           .arg(f.done)
                           .arg(f.total));
    progress_->setValue(f.total > 0 ? static_cast<int>(1000 * f.done / f.total) : 0);
    ++framesShown_;
    Q_EMIT frameShown();
}

void SamplesView::updateEnabled() {
    const bool running = jobs_->isRunning(channel());
    runButton_->setEnabled(hasModel_ && message_.isEmpty());
    cancelButton_->setEnabled(running);
    progress_->setVisible(running || (shown_ && !shown_->finished));
}

QPixmap SamplesView::grabForScreenshot() { return grab(); }

}  // namespace rbmscope
