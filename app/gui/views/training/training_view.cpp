#include "views/training/training_view.hpp"

#include <nlohmann/json.hpp>

#include "core/io/provenance.hpp"
#include "core/kernels/build_info.hpp"

#include <QFileDialog>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include "text_preview.hpp"
#include "views/export_hidden.hpp"

namespace rbmscope {
namespace {

constexpr int kMaxNegativeTiles = 100;

QString llLabel(const std::vector<rbm::TrainRecord>& log) {
    for (auto it = log.rbegin(); it != log.rend(); ++it) {
        if (it->log_likelihood_method == "exact") return QStringLiteral("exact");
        if (it->log_likelihood_method == "ais") return QStringLiteral("AIS ±95%");
    }
    return QStringLiteral("not available");
}

QString statusWord(const TrainingRun& r) {
    if (!r.error.isEmpty()) return QStringLiteral("failed");
    if (r.running) return QStringLiteral("running");
    if (!r.snapshot) return QStringLiteral("waiting");
    return QString::fromLatin1(rbm::train_status_name(r.snapshot->status));
}

}  // namespace

QColor methodColor(rbm::TrainMethod m) {
    switch (m) {
        case rbm::TrainMethod::Cd: return {90, 90, 90};
        case rbm::TrainMethod::Pcd: return {230, 120, 20};
        case rbm::TrainMethod::Pt: return {30, 140, 60};
        case rbm::TrainMethod::Lpt: return {120, 60, 200};
        case rbm::TrainMethod::Deo: return {210, 40, 50};
        case rbm::TrainMethod::Leaky: return {30, 110, 200};
        case rbm::TrainMethod::Mix: return {200, 60, 160};
    }
    return Qt::black;
}

TrainingView::TrainingView(QWidget* parent, BackgroundJobs* jobs) : QWidget(parent) {
    session_ = new TrainingJob(jobs ? jobs : new BackgroundJobs(this), this);
    auto* root = new QHBoxLayout(this);
    root->setContentsMargins(4, 4, 4, 4);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(buildSettings());
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(scroll->widget()->sizeHint().width() + 20);
    scroll->setMaximumWidth(scroll->widget()->sizeHint().width() + 40);
    scroll->setProperty(kExportHidden, true);  // image exports show the curves, samples and filters
    root->addWidget(scroll);

    auto* right = new QSplitter(Qt::Vertical, this);
    root->addWidget(right, 1);
    auto* top = new QSplitter(Qt::Horizontal, right);
    llChart_ = new RunCurves(top);
    llChart_->setTitles(tr("Average log-likelihood of the training data"), tr("updates"), tr("log-likelihood"));
    llChart_->setEmptyText(tr("Press Train or Compare methods"));
    auto* listBox = new QWidget(top);
    auto* lv = new QVBoxLayout(listBox);
    lv->setContentsMargins(0, 0, 0, 0);
    lv->addWidget(new QLabel(tr("Runs (select one to see its samples and filters)"), listBox));
    runList_ = new QListWidget(listBox);
    lv->addWidget(runList_, 1);
    runInfo_ = new QLabel(listBox);
    runInfo_->setWordWrap(true);
    runInfo_->setTextFormat(Qt::RichText);
    runInfo_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    lv->addWidget(runInfo_);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 1);
    top->setSizes({800, 260});

    auto* bottom = new QSplitter(Qt::Horizontal, right);
    diag_ = new QTabWidget(bottom);
    reconChart_ = new RunCurves(diag_);
    reconChart_->setTitles(QString(), tr("updates"), tr("mean |v − E[v|E[h|v]]|²"));
    swapChart_ = new RunCurves(diag_);
    swapChart_->setTitles(QString(), tr("updates"), tr("mean swap acceptance"));
    swapChart_->setEmptyText(tr("Tempered runs (pt, lpt, deo) show their swap acceptance here"));
    projChart_ = new RunCurves(diag_);
    projChart_->setTitles(QString(), tr("updates"), tr("largest singular value of W"));
    projChart_->setEmptyText(tr(
        "Leaky runs show the largest singular value of W here; ● marks intervals in which the projection was active"));
    diag_->addTab(reconChart_, tr("Reconstruction"));
    diag_->addTab(swapChart_, tr("Swaps"));
    diag_->addTab(projChart_, tr("Projection"));
    diag_->setTabToolTip(0, tr("Reconstruction error: mean |v − E[v | E[h | v]]|² over the monitored rows"));
    diag_->setTabToolTip(1, tr("Mean swap acceptance over the ladder pairs since the previous record (pt, lpt, deo)"));
    diag_->setTabToolTip(
        2, tr("Leaky RBMs: the largest singular value of W and how often the projection step clipped it"));
    diag_->setMinimumWidth(380);
    negatives_ = new SampleGrid(bottom);
    negatives_->setTitle(tr("Negative samples of the selected run"));
    negatives_->setMessage(tr("Select a run"));
    filters_ = new FiltersView(bottom, true);
    bottom->setStretchFactor(0, 3);
    bottom->setStretchFactor(1, 2);
    bottom->setStretchFactor(2, 2);
    bottom->setSizes({400, 400, 400});
    negatives_->setMinimumWidth(220);
    // filters_: its own controls set its minimum width (a fixed one cut its scale box's text).
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 2);

    connect(session_, &TrainingJob::runAdded, this, [this](int id) {
        selected_ = id;
        refreshList();
        updateEnabled();
    });
    connect(session_, &TrainingJob::runUpdated, this, &TrainingView::onRunUpdated);
    connect(session_, &TrainingJob::runEnded, this, &TrainingView::onRunEnded);
    connect(session_, &TrainingJob::busyChanged, this, [this] { updateEnabled(); });
    connect(runList_, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row < 0) return;
        const int id = runList_->item(row)->data(Qt::UserRole).toInt();
        if (id != selected_) selectRun(id);
    });
    methodOrKindChanged();
    updateEnabled();
}

TrainingView::~TrainingView() = default;

void TrainingView::setStatus(const QString& text, bool error) {
    status_->setText(text);
    status_->setStyleSheet(error ? QStringLiteral("color: #b00020") : QString());
}

bool TrainingView::train(std::shared_ptr<rbm::StepGate> gate) {
    try {
        const rbm::TrainOptions o = options();
        const TrainDataSpec d = dataSpec();
        if (d.source.isEmpty()) throw rbm::InputError("choose a data file (CSV or IDX) first");
        session_->setStepGate(gate ? std::move(gate) : std::make_shared<rbm::StepGate>());
        session_->start(d, o);
        runningText_ = tr("Training %1 on %2…").arg(QString::fromLatin1(rbm::train_method_name(o.method)), describe(d));
        setStatus(runningText_);
        return true;
    } catch (const std::exception& e) {
        setStatus(QString::fromStdString(e.what()), true);
        return false;
    }
}

bool TrainingView::compareMethods(const std::vector<rbm::TrainMethod>& methods) {
    try {
        const rbm::TrainOptions base = options();
        const TrainDataSpec d = dataSpec();
        if (d.source.isEmpty()) throw rbm::InputError("choose a data file (CSV or IDX) first");
        std::vector<rbm::TrainOptions> runs;
        QStringList names;
        for (auto m : methods) {
            rbm::TrainOptions o = base;
            o.method = m;
            runs.push_back(o);
            names << QString::fromLatin1(rbm::train_method_name(m));
        }
        session_->startQueue(d, runs);
        runningText_ = tr("Comparing %1 on %2 (one after another)…").arg(names.join(QStringLiteral(", ")), describe(d));
        setStatus(runningText_);
        return true;
    } catch (const std::exception& e) {
        setStatus(QString::fromStdString(e.what()), true);
        return false;
    }
}

void TrainingView::stop() {
    session_->stopAll();
    setStatus(tr("Stopping; the models are kept (Resume continues the selected run)."));
}

bool TrainingView::resume() {
    if (!session_->resume(selected_, updates_->value())) {
        const TrainingRun* r = session_->run(selected_);
        setStatus(!r           ? tr("Select a run to resume.")
                  : r->running ? tr("The run is already running.")
                  : r->snapshot && r->snapshot->status == rbm::TrainStatus::Diverged
                      ? tr("A diverged run cannot be resumed.")
                  : r->snapshot ? tr("This run was restored from a session, which keeps its curves and model but not "
                                     "the trainer's state: it cannot be resumed.")
                                : tr("This run has no trainer to resume (it failed to start)."),
                  true);
        return false;
    }
    setStatus(tr("Resumed %1.").arg(session_->run(selected_)->label));
    return true;
}

QString TrainingView::saveModel(const QString& path) {
    const QString err = session_->saveModel(selected_, path);
    setStatus(err.isEmpty() ? tr("Saved the model to %1").arg(path) : tr("Cannot save the model: %1").arg(err),
              !err.isEmpty());
    return err;
}

QString TrainingView::saveCheckpoint(const QString& path) {
    const QString err = session_->saveCheckpoint(selected_, path);
    setStatus(err.isEmpty() ? tr("Saved a checkpoint to %1").arg(path) : tr("Cannot save the checkpoint: %1").arg(err),
              !err.isEmpty());
    return err;
}

QString TrainingView::loadCheckpoint(const QString& path) {
    QString err;
    const int id = session_->loadCheckpoint(path, dataSpec(), err);
    if (id < 0) {
        setStatus(tr("Cannot load the checkpoint: %1").arg(err), true);
        return err;
    }
    const TrainingRun* r = session_->run(id);
    if (r) setOptions(r->options);
    QString text =
        tr("Loaded %1: %2 updates done; Resume continues it.").arg(path).arg(session_->run(id)->snapshot->updatesDone);
    // Made by another build or SIMD path: say so rather than promise the same bits on resume.
    if (r && r->trainer && !r->trainer->recorded_provenance().empty()) {
        const auto recorded = nlohmann::json::parse(r->trainer->recorded_provenance(), nullptr, false);
        if (!recorded.is_discarded()) {
            const std::string d =
                rbm::build_difference(rbm::build_record(recorded), rbm::build_record(rbm::build_json()));
            if (!d.empty()) text += QStringLiteral(" ") + tr("The checkpoint was %1.").arg(QString::fromStdString(d));
        }
    }
    setStatus(text);
    return {};
}

void TrainingView::openInApp() {
    const TrainingRun* r = session_->run(selected_);
    if (!r || !r->snapshot || r->running) {
        setStatus(tr("Select a run that has stopped or finished, then Open in app."), true);
        return;
    }
    rbm::Model m = r->snapshot->model;
    m.name = QStringLiteral("%1 on %2 (%3 updates)")
                 .arg(r->label, describe(r->data))
                 .arg(r->snapshot->updatesDone)
                 .toStdString();
    // The model carries its data and preprocessing, so saving it keeps them (as train's files do).
    m.training = trainingDataOf(r->data);
    if (m.training->standardize) {
        // The mean and sd the run applied: the trainer's data are the standardized examples, so
        // recompute them from the source (the same numbers, by load_training_data's construction).
        try {
            (void)rbm::load_training_data(*m.training);
        } catch (const std::exception&) {
            m.training.reset();
        }
    }
    rbm::Dataset data;
    if (r->trainer) {
        data = r->trainer->data();
    } else {
        // A run restored from a session keeps no data: load it again from its spec.
        try {
            data = loadTrainingData(r->data);
        } catch (const std::exception& e) {
            setStatus(tr("Cannot load the data of %1: %2").arg(r->label, QString::fromStdString(e.what())), true);
            return;
        }
    }
    Q_EMIT openModel(m, data, QStringLiteral("trained: %1").arg(r->label));
    setStatus(tr("Opened %1 in the other views.").arg(textPreview(m.name, kNamePreviewChars)));
}

void TrainingView::selectRun(int id) {
    selected_ = id;
    for (int i = 0; i < runList_->count(); ++i)
        if (runList_->item(i)->data(Qt::UserRole).toInt() == id && runList_->currentRow() != i)
            runList_->setCurrentRow(i);
    showSelected();
    updateEnabled();
}

void TrainingView::onRunUpdated(int id) {
    const TrainingRun* r = session_->run(id);
    if (!r) return;
    if (!r->error.isEmpty()) setStatus(tr("%1: %2").arg(r->label, r->error), true);
    // A run in progress: the status line says whether it is held (the worker posts a snapshot as it
    // stops in a pause, and snapshots again once it goes on).
    else if (session_->busy() && !runningText_.isEmpty() && r->snapshot &&
             r->snapshot->status == rbm::TrainStatus::Running)
        setStatus((stepGate() && stepGate()->pause.load() ? tr("Paused — ") : QString()) + runningText_);
    drawRun(*r);
    refreshList();
    if (id == selected_) showSelected();
    Q_EMIT runShown(id);
}

// One chart per data set: the curves of the runs on the selected run's data (log-likelihoods of
// bars-and-stripes near -4 and of Fashion-MNIST near -280 on one axis would flatten both).
void TrainingView::drawRun(const TrainingRun& run) {
    const TrainingRun* r = &run;
    const int id = run.id;
    const TrainingRun* chosen = session_->run(selected_);
    if (chosen && describe(chosen->data) != describe(run.data)) {
        for (RunCurves* c : {llChart_, reconChart_, swapChart_, projChart_}) c->removeCurve(id);
        llChart_->removeCurve(heldOutCurve(id));
        return;
    }
    if (r->snapshot) {
        const auto& log = r->snapshot->log;
        const QColor color = runColor(*r);
        std::vector<QPointF> rec, swap, sv;
        for (const auto& rec0 : log) {
            const double x = static_cast<double>(rec0.update);
            if (std::isfinite(rec0.reconstruction_error)) rec.emplace_back(x, rec0.reconstruction_error);
            if (!rec0.swap_acceptance.empty()) {
                const double mean = std::accumulate(rec0.swap_acceptance.begin(), rec0.swap_acceptance.end(), 0.0) /
                                    static_cast<double>(rec0.swap_acceptance.size());
                if (rec0.update > 0) swap.emplace_back(x, mean);
            }
            if (r->options.kind == rbm::ModelKind::Leaky) sv.emplace_back(x, rec0.max_singular_value);
        }
        drawLikelihood(id, r->label, color, log);
        reconChart_->setCurve(id, r->label, color, rec);
        if (rbm::is_tempered(r->options.method)) swapChart_->setCurve(id, r->label, color, swap);
        if (r->options.kind == rbm::ModelKind::Leaky) {
            projChart_->setCurve(id,
                                 QStringLiteral("%1 (projection active in %2 of %3 updates)")
                                     .arg(r->label)
                                     .arg(r->snapshot->projections)
                                     .arg(r->snapshot->updatesDone),
                                 color, sv);
        }
    }
}

// The curves of every run on the selected run's data set, once the selection moved to another one.
void TrainingView::redrawForSelectedData() {
    const TrainingRun* chosen = session_->run(selected_);
    const QString data = chosen ? describe(chosen->data) : QString();
    if (data == shownData_) return;
    shownData_ = data;
    for (const int id : session_->ids())
        if (const TrainingRun* r = session_->run(id)) drawRun(*r);
}

// The method's colour; a second, third, fourth run of one method a darker, lighter, much darker
// shade of it, and every further four the same shades of a hue turned 22 degrees, then back past
// the method's own, and so on. The shades stay bounded: the sixth run of one method was drawn
// white on white (lighter(220)) and the seventh near black.
QColor TrainingView::runColor(const TrainingRun& run) const {
    int n = 0;
    for (const int id : session_->ids())
        if (const TrainingRun* r = session_->run(id); r && id < run.id && r->options.method == run.options.method) ++n;
    const QColor base = methodColor(run.options.method);
    const int cycle = n / 4, shade = n % 4;
    QColor c = base;
    if (cycle > 0) {
        const int turn = (cycle % 2 == 1 ? 1 : -1) * 22 * ((cycle + 1) / 2);
        c.setHsv(((base.hsvHue() + turn) % 360 + 360) % 360, base.hsvSaturation(), base.value());
    }
    switch (shade) {
        case 1: return c.darker(145);
        case 2: return c.lighter(135);
        case 3: return c.darker(200);
        default: return c;
    }
}

void TrainingView::drawLikelihood(int key, const QString& label, const QColor& color,
                                  const std::vector<rbm::TrainRecord>& log) {
    // Training rows solid, held-out rows dashed; each with the AIS interval of the record's log Z as a band.
    for (const bool held : {false, true}) {
        std::vector<QPointF> ll;
        std::vector<double> lo, hi;
        bool ais = false;
        for (const rbm::TrainRecord& r : log) {
            const double y = held ? r.test_log_likelihood : r.log_likelihood;
            if (!std::isfinite(y)) continue;
            ll.emplace_back(static_cast<double>(r.update), y);
            ais = ais || r.log_likelihood_method == "ais";
            const double l = held ? r.test_log_likelihood_low : r.log_likelihood_low;
            const double h = held ? r.test_log_likelihood_high : r.log_likelihood_high;
            const bool band = r.log_likelihood_method == "ais" && std::isfinite(l) && std::isfinite(h);
            lo.push_back(band ? l : y);
            hi.push_back(band ? h : y);
        }
        const int k = held ? heldOutCurve(key) : key;
        if (held && ll.empty()) {
            llChart_->removeCurve(k);
            continue;
        }
        const QString name = held ? tr("%1 held out").arg(label) : QStringLiteral("%1 (%2)").arg(label, llLabel(log));
        if (ais) llChart_->setCurve(k, name, color, ll, lo, hi);
        else llChart_->setCurve(k, name, color, ll);
        if (held) {
            QPen pen = llChart_->series(k)->pen();
            pen.setStyle(Qt::DashLine);
            llChart_->series(k)->setPen(pen);
        }
    }
    bool anyHeld = false;
    for (const int k : llChart_->keys()) anyHeld = anyHeld || k >= heldOutCurve(kReopenedCurve);
    llChart_->setTitles(anyHeld ? tr("Average log-likelihood: training rows (solid), held-out rows (dashed)")
                                : tr("Average log-likelihood of the training data"),
                        tr("updates"), tr("log-likelihood"));
}

void TrainingView::showLog(const std::vector<rbm::TrainRecord>& log, const QString& name, const QString& source) {
    std::vector<QPointF> rec;
    for (const rbm::TrainRecord& r : log)
        if (std::isfinite(r.reconstruction_error))
            rec.emplace_back(static_cast<double>(r.update), r.reconstruction_error);
    const QColor color(90, 90, 90);
    drawLikelihood(kReopenedCurve, name, color, log);
    reconChart_->setCurve(kReopenedCurve, name, color, rec);
    setStatus(source);
}

void TrainingView::onRunEnded(int id) {
    const TrainingRun* r = session_->run(id);
    if (r && r->error.isEmpty() && r->snapshot) {
        const auto& s = *r->snapshot;
        QString text = tr("%1: %2 after %3 updates")
                           .arg(r->label, QString::fromLatin1(rbm::train_status_name(s.status)))
                           .arg(s.updatesDone);
        if (!s.log.empty() && std::isfinite(s.log.back().log_likelihood))
            text += tr(", log-likelihood %1 (%2)").arg(s.log.back().log_likelihood, 0, 'f', 4).arg(llLabel(s.log));
        if (!s.log.empty() && std::isfinite(s.log.back().test_log_likelihood))
            text += tr(", held out %1").arg(s.log.back().test_log_likelihood, 0, 'f', 4);
        if (s.status == rbm::TrainStatus::Diverged) text += QStringLiteral(". ") + s.message;
        setStatus(text + (session_->busy() ? tr(" — next run…") : QString()), s.status == rbm::TrainStatus::Diverged);
    }
    refreshList();
    updateEnabled();
    Q_EMIT runEnded(id);
}

void TrainingView::refreshList() {
    const QSignalBlocker block(runList_);
    runList_->clear();
    for (const int id : session_->ids()) {
        const TrainingRun* r = session_->run(id);
        QString text = QStringLiteral("%1 — %2").arg(r->label, statusWord(*r));
        if (r->snapshot) {
            text += QStringLiteral(", %1/%2").arg(r->snapshot->updatesDone).arg(r->snapshot->totalUpdates);
            const auto& log = r->snapshot->log;
            if (!log.empty() && std::isfinite(log.back().log_likelihood))
                text += QStringLiteral(", LL %1").arg(log.back().log_likelihood, 0, 'f', 3);
            if (!log.empty() && std::isfinite(log.back().test_log_likelihood))
                text += tr(", held out %1").arg(log.back().test_log_likelihood, 0, 'f', 3);
        }
        auto* item = new QListWidgetItem(text, runList_);
        item->setData(Qt::UserRole, id);
        item->setForeground(methodColor(r->options.method));
        item->setToolTip(tr("%1 on %2, %3 hidden, k = %4, batch %5, lr %6")
                             .arg(r->label, describe(r->data))
                             .arg(r->options.hidden)
                             .arg(r->options.k)
                             .arg(r->options.batch)
                             .arg(r->options.learning_rate));
        if (id == selected_) runList_->setCurrentItem(item);
    }
}

void TrainingView::showSelected() {
    redrawForSelectedData();
    const TrainingRun* r = session_->run(selected_);
    if (!r || !r->snapshot) {
        negatives_->clear();
        negatives_->setMessage(r && !r->error.isEmpty() ? r->error : tr("Select a run"));
        runInfo_->clear();
        progress_->setValue(0);
        return;
    }
    const TrainSnapshot& s = *r->snapshot;
    progress_->setValue(s.totalUpdates > 0 ? static_cast<int>(1000 * s.updatesDone / s.totalUpdates) : 0);
    const rbm::Index tiles = std::min<rbm::Index>(kMaxNegativeTiles, s.negatives.rows());
    if (tiles > 0) {
        const rbm::RowMat X = s.negatives.topRows(tiles);
        if (r->options.kind == rbm::ModelKind::Brbm) negatives_->setValueRange(0, 1);
        else negatives_->setValueRange(X.minCoeff(), std::max(X.maxCoeff(), X.minCoeff() + 1e-12));
        negatives_->setSamples(X, static_cast<int>(s.imageRows), static_cast<int>(s.imageCols));
        negatives_->setTitle(tr("Negative samples of %1 (update %2)").arg(r->label).arg(s.updatesDone));
    } else {
        negatives_->clear();
        negatives_->setMessage(tr("No negative samples yet"));
    }
    filters_->setImageShape(static_cast<int>(s.imageRows), static_cast<int>(s.imageCols));
    filters_->setModel(s.model);
    QString info = QStringLiteral("<b>%1</b> on %2<br>%3 · %4 s")
                       .arg(r->label.toHtmlEscaped(), describe(r->data).toHtmlEscaped(),
                            QString::fromLatin1(rbm::train_status_name(s.status)))
                       .arg(s.seconds, 0, 'f', 1);
    if (!s.log.empty()) {
        const auto& last = s.log.back();
        if (last.log_likelihood_method == "ais")
            info += tr("<br>log-likelihood (AIS) %1 [%2, %3]")
                        .arg(last.log_likelihood, 0, 'f', 3)
                        .arg(last.log_likelihood_low, 0, 'f', 3)
                        .arg(last.log_likelihood_high, 0, 'f', 3);
        else if (std::isfinite(last.log_likelihood))
            info += tr("<br>log-likelihood (exact) %1").arg(last.log_likelihood, 0, 'f', 4);
        if (std::isfinite(last.test_log_likelihood)) {
            if (last.log_likelihood_method == "ais")
                info += tr("<br>held out (same log Z) %1 [%2, %3]")
                            .arg(last.test_log_likelihood, 0, 'f', 3)
                            .arg(last.test_log_likelihood_low, 0, 'f', 3)
                            .arg(last.test_log_likelihood_high, 0, 'f', 3);
            else info += tr("<br>held out (exact) %1").arg(last.test_log_likelihood, 0, 'f', 4);
        }
        if (r->options.kind == rbm::ModelKind::Leaky)
            info += tr("<br>projection active in %1 of %2 updates; σ_max(W) = %3")
                        .arg(s.projections)
                        .arg(s.updatesDone)
                        .arg(last.max_singular_value, 0, 'f', 4);
    }
    if (s.status == rbm::TrainStatus::Diverged)
        info += QStringLiteral("<br><span style='color:#b00020'>%1</span>").arg(s.message.toHtmlEscaped());
    runInfo_->setText(info);
}

void TrainingView::updateEnabled() {
    const TrainingRun* r = session_->run(selected_);
    const bool busy = session_->busy();
    stopButton_->setEnabled(busy);
    resumeButton_->setEnabled(r && !r->running && r->trainer && r->snapshot &&
                              r->snapshot->status != rbm::TrainStatus::Diverged);
    saveModelButton_->setEnabled(r && r->snapshot);
    saveCkptButton_->setEnabled(r && !r->running && r->trainer);
    openButton_->setEnabled(r && !r->running && r->snapshot);
    clearButton_->setEnabled(!busy);
}

QString TrainingView::exportCsv() const {
    QString out = QStringLiteral(
        "run,method,update,log_likelihood,estimator,low,high,reconstruction_error,mean_swap_acceptance,max_singular_"
        "value,test_log_likelihood,test_low,test_high\n");
    for (const int id : session_->ids()) {
        const TrainingRun* r = session_->run(id);
        if (!r->snapshot) continue;
        for (const auto& rec : r->snapshot->log) {
            double swap = std::numeric_limits<double>::quiet_NaN();
            if (!rec.swap_acceptance.empty())
                swap = std::accumulate(rec.swap_acceptance.begin(), rec.swap_acceptance.end(), 0.0) /
                       double(rec.swap_acceptance.size());
            out += QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9,%10")
                       .arg(r->label, QString::fromLatin1(rbm::train_method_name(r->options.method)))
                       .arg(rec.update)
                       .arg(rec.log_likelihood, 0, 'g', 17)
                       .arg(QString::fromStdString(rec.log_likelihood_method))
                       .arg(rec.log_likelihood_low, 0, 'g', 17)
                       .arg(rec.log_likelihood_high, 0, 'g', 17)
                       .arg(rec.reconstruction_error, 0, 'g', 17)
                       .arg(swap, 0, 'g', 17)
                       .arg(rec.max_singular_value, 0, 'g', 17) +
                   QStringLiteral(",%1,%2,%3\n")
                       .arg(rec.test_log_likelihood, 0, 'g', 17)
                       .arg(rec.test_log_likelihood_low, 0, 'g', 17)
                       .arg(rec.test_log_likelihood_high, 0, 'g', 17);
        }
    }
    return out;
}

QJsonObject TrainingView::exportJson() const {
    QJsonArray runs;
    for (const int id : session_->ids()) {
        const TrainingRun* r = session_->run(id);
        QJsonObject o;
        o[QStringLiteral("label")] = r->label;
        o[QStringLiteral("method")] = QString::fromLatin1(rbm::train_method_name(r->options.method));
        o[QStringLiteral("data")] = describe(r->data);
        o[QStringLiteral("test_data")] = r->data.test.trimmed();  // "" when no held-out set
        if (!r->error.isEmpty()) o[QStringLiteral("error")] = r->error;
        if (r->trainer && !r->running)
            o[QStringLiteral("log")] =
                QJsonDocument::fromJson(QByteArray::fromStdString(r->trainer->log_json())).array();
        runs.append(o);
    }
    return QJsonObject{{QStringLiteral("view"), QStringLiteral("training")}, {QStringLiteral("runs"), runs}};
}

std::optional<Transport::Restored> TrainingView::restoredRun() const {
    const TrainingRun* r = session_->shownNotRun();
    if (!r) return std::nullopt;
    return Transport::Restored{static_cast<long long>(r->snapshot->updatesDone),
                               r->snapshot->status == rbm::TrainStatus::Finished};
}

}  // namespace rbmscope
