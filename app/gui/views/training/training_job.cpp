#include "views/training/training_job.hpp"

#include <chrono>
#include <numeric>

#include "core/io/model_io.hpp"
#include "core/kernels/build_info.hpp"
#include "core/numerics/parallel.hpp"

namespace rbmscope {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kSnapshotSeconds = 0.06;
constexpr int kGateMs = 40;

std::shared_ptr<TrainSnapshot> snapshotOf(const rbm::Trainer& t) {
    auto s = std::make_shared<TrainSnapshot>();
    s->log = t.log();
    s->model = t.model();
    s->negatives = t.negative_samples();
    s->status = t.status();
    s->message = QString::fromStdString(t.message());
    s->updatesDone = t.updates_done();
    s->totalUpdates = t.options().updates;
    const auto& p = t.projection_active();
    s->projections = std::accumulate(p.begin(), p.end(), rbm::Index(0));
    s->imageRows = t.data().image_rows;
    s->imageCols = t.data().image_cols;
    if (!s->log.empty()) s->seconds = s->log.back().seconds;
    return s;
}

}  // namespace

rbm::Dataset loadTrainingData(const TrainDataSpec& spec) {
    rbm::Dataset d = rbm::load_dataset(spec.source.trimmed().toStdString());
    if (spec.shifts) {
        if (!d.has_image_shape())
            throw rbm::InputError("one-pixel shifts need image data; " + d.name + " has no image shape");
        d = rbm::with_shifts(d);
    }
    switch (spec.prep) {
        case TrainDataSpec::Prep::AsIs: break;
        case TrainDataSpec::Prep::Binarize: rbm::binarize(d); break;
        case TrainDataSpec::Prep::Scale: rbm::scale_to_unit(d); break;
        case TrainDataSpec::Prep::Standardize: rbm::standardize(d); break;
    }
    return d;
}

rbm::Dataset loadTestData(const TrainDataSpec& spec) {
    if (spec.test.trimmed().isEmpty()) return {};
    TrainDataSpec t = spec;
    t.source = spec.test;
    t.shifts = false;  // augmentation belongs to the training set; the held-out rows are scored as they are
    rbm::Dataset d = loadTrainingData(t);
    if (d.size() == 0) throw rbm::InputError("the held-out data " + d.name + " has no examples");
    return d;
}

namespace {
// The held-out rows into a trainer that has none yet (a new run, a loaded checkpoint).
void attachTestData(rbm::Trainer& trainer, const TrainDataSpec& spec) {
    if (spec.test.trimmed().isEmpty()) return;
    const rbm::Dataset d = loadTestData(spec);
    if (d.dim() != trainer.data().dim())
        throw rbm::InputError("the held-out data " + d.name + " has " + std::to_string(d.dim()) +
                              " values per example, the training data " + std::to_string(trainer.data().dim()));
    trainer.set_test_data(d.X);
}
}  // namespace

rbm::TrainingData trainingDataOf(const TrainDataSpec& spec) {
    rbm::TrainingData t;
    t.data = spec.source.trimmed().toStdString();
    t.shifts = spec.shifts;
    switch (spec.prep) {
        case TrainDataSpec::Prep::AsIs: break;
        case TrainDataSpec::Prep::Binarize: t.binarize = 0.5; break;
        case TrainDataSpec::Prep::Scale: t.scale = true; break;
        case TrainDataSpec::Prep::Standardize: t.standardize = true; break;
    }
    return t;
}

QString describe(const TrainDataSpec& spec) {
    QString s = spec.source;
    if (spec.shifts) s += QStringLiteral(" + shifts");
    switch (spec.prep) {
        case TrainDataSpec::Prep::AsIs: break;
        case TrainDataSpec::Prep::Binarize: s += QStringLiteral(", binarized"); break;
        case TrainDataSpec::Prep::Scale: s += QStringLiteral(", scaled to [0,1]"); break;
        case TrainDataSpec::Prep::Standardize: s += QStringLiteral(", standardized"); break;
    }
    if (!spec.test.trimmed().isEmpty()) s += QStringLiteral("; held out: %1").arg(spec.test.trimmed());
    return s;
}

TrainingJob::TrainingJob(BackgroundJobs* jobs, QObject* parent) : QObject(parent), jobs_(jobs) {
    gate_ = std::make_unique<FrameGate>(this, kGateMs, [this] { flush(); });
    connect(jobs_, &BackgroundJobs::runningChanged, this, [this](const QString& channel, bool) {
        if (channel.startsWith(QStringLiteral("train."))) Q_EMIT busyChanged(busy());
    });
}

TrainingJob::~TrainingJob() {
    for (const auto& [id, r] : runs_) jobs_->cancel(channelOf(id));
}

TrainingRun* TrainingJob::find(int id) {
    const auto it = runs_.find(id);
    return it == runs_.end() ? nullptr : &it->second;
}

const TrainingRun* TrainingJob::run(int id) const {
    const auto it = runs_.find(id);
    return it == runs_.end() ? nullptr : &it->second;
}

std::vector<int> TrainingJob::ids() const {
    std::vector<int> out;
    for (const auto& [id, r] : runs_) out.push_back(id);
    return out;
}

bool TrainingJob::busy() const {
    if (!queue_.empty()) return true;
    for (const auto& [id, r] : runs_)
        if (r.running) return true;
    return false;
}

int TrainingJob::add(const TrainDataSpec& data, const rbm::TrainOptions& options) {
    TrainingRun r;
    r.id = nextId_++;
    const QString base = QString::fromLatin1(rbm::train_method_name(options.method));
    int same = 0;
    for (const auto& [id, other] : runs_)
        if (other.label == base || other.label.startsWith(base + QLatin1Char(' '))) ++same;
    r.label = same == 0 ? base : QStringLiteral("%1 %2").arg(base).arg(same + 1);
    r.data = data;
    r.options = options;
    const int id = r.id;
    runs_.emplace(id, std::move(r));
    Q_EMIT runAdded(id);
    return id;
}

int TrainingJob::start(const TrainDataSpec& data, const rbm::TrainOptions& options) {
    const int id = add(data, options);
    launch(id);
    return id;
}

void TrainingJob::startQueue(const TrainDataSpec& data, const std::vector<rbm::TrainOptions>& runs) {
    for (const auto& o : runs) queue_.emplace_back(data, o);
    bool anyRunning = false;
    for (const auto& [id, r] : runs_) anyRunning = anyRunning || r.running;
    if (!anyRunning) startNextQueued();
    Q_EMIT busyChanged(busy());
}

void TrainingJob::startNextQueued() {
    if (queue_.empty()) return;
    auto [data, options] = queue_.front();
    queue_.pop_front();
    start(data, options);
}

void TrainingJob::launch(int id) {
    TrainingRun* r = find(id);
    if (!r) return;
    restoredLast_ = false;
    r->running = true;
    r->error.clear();
    struct Done {
        std::shared_ptr<rbm::Trainer> trainer;
        std::shared_ptr<TrainSnapshot> snapshot;
    };
    auto trainer = r->trainer;
    const TrainDataSpec data = r->data;
    const rbm::TrainOptions options = r->options;
    if (!stepGate_) stepGate_ = std::make_shared<rbm::StepGate>();
    jobs_->submitWithProgress<Done>(
        channelOf(id),
        [this, id, trainer, data, options, gate = stepGate_](const BackgroundJobs::Context& ctx) mutable {
            if (!trainer) {
                trainer = std::make_shared<rbm::Trainer>(options, loadTrainingData(data));
                attachTestData(*trainer, data);  // before the first record
            }
            const auto post = [this, id, ctx](std::shared_ptr<TrainSnapshot> s) {
                ctx.post([this, id, s] {
                    pending_[id] = s;
                    gate_->wake();
                });
            };
            post(snapshotOf(*trainer));
            auto last = Clock::now();
            while (trainer->status() == rbm::TrainStatus::Running || trainer->status() == rbm::TrainStatus::Cancelled) {
                if (ctx.cancel->load()) break;
                if (!gate->before_unit(ctx.cancel.get(), [&] { post(snapshotOf(*trainer)); })) break;
                trainer->step(1, ctx.cancel.get());
                gate->after_unit();
                if (std::chrono::duration<double>(Clock::now() - last).count() >= kSnapshotSeconds) {
                    post(snapshotOf(*trainer));
                    last = Clock::now();
                }
            }
            auto last_snapshot = snapshotOf(*trainer);
            // Stopped between updates: step() had nothing left to cancel, but the run is stopped.
            if (last_snapshot->status == rbm::TrainStatus::Running) last_snapshot->status = rbm::TrainStatus::Cancelled;
            return Done{trainer, last_snapshot};
        },
        [this, id](Done d) {
            pending_.erase(id);
            if (TrainingRun* run = find(id)) {
                run->trainer = d.trainer;
                run->snapshot = d.snapshot;
                run->running = false;
                Q_EMIT runUpdated(id);
                Q_EMIT runEnded(id);
            }
            startNextQueued();
            Q_EMIT busyChanged(busy());
        },
        [this, id](QString message) {
            pending_.erase(id);
            if (TrainingRun* run = find(id)) {
                run->running = false;
                run->error = message;
                Q_EMIT runUpdated(id);
                Q_EMIT runEnded(id);
            }
            startNextQueued();
            Q_EMIT busyChanged(busy());
        });
    Q_EMIT busyChanged(true);
}

void TrainingJob::flush() {
    auto pending = std::move(pending_);
    pending_.clear();
    for (auto& [id, s] : pending)
        if (TrainingRun* r = find(id); r && r->running) {
            r->snapshot = s;
            Q_EMIT runUpdated(id);
        }
}

void TrainingJob::stop(int id) {
    if (const TrainingRun* r = run(id); r && r->running) jobs_->stop(channelOf(id));
}

void TrainingJob::stopAll() {
    queue_.clear();
    for (const auto& [id, r] : runs_)
        if (r.running) jobs_->stop(channelOf(id));
    Q_EMIT busyChanged(busy());
}

bool TrainingJob::resume(int id, rbm::Index more) {
    TrainingRun* r = find(id);
    if (!r || r->running || !r->trainer) return false;
    if (r->trainer->status() == rbm::TrainStatus::Diverged) return false;
    if (r->trainer->status() == rbm::TrainStatus::Finished) {
        r->trainer->set_total_updates(r->trainer->updates_done() + std::max<rbm::Index>(1, more));
        r->options.updates = r->trainer->options().updates;
    }
    launch(id);
    return true;
}

void TrainingJob::remove(int id) {
    jobs_->cancel(channelOf(id));
    pending_.erase(id);
    runs_.erase(id);
    Q_EMIT busyChanged(busy());
}

void TrainingJob::clear() {
    queue_.clear();
    for (const int id : ids()) remove(id);
}

QString TrainingJob::saveModel(int id, const QString& path) const {
    const TrainingRun* r = run(id);
    if (!r || !r->snapshot) return tr("no trained model to save yet");
    try {
        rbm::Model m = r->snapshot->model;
        m.name = QStringLiteral("%1 on %2, %3 hidden, %4 updates")
                     .arg(r->label, describe(r->data))
                     .arg(r->options.hidden)
                     .arg(r->snapshot->updatesDone)
                     .toStdString();
        rbm::save_model(m, path.toStdString());
        return {};
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
}

QString TrainingJob::saveCheckpoint(int id, const QString& path) const {
    const TrainingRun* r = run(id);
    if (!r || !r->trainer)
        return r && r->snapshot
                   ? tr("this run was restored from a session, which keeps its curves and model but not the "
                        "trainer's state; save checkpoints before saving the session to continue a run later")
                   : tr("the run has not started yet");
    if (r->running) return tr("stop the run before saving a checkpoint");
    try {
        r->trainer->set_provenance(rbm::provenance_json(rbm::threads_in_force(), 1).dump());  // which build wrote it
        r->trainer->save_checkpoint(path.toStdString());
        return {};
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
}

int TrainingJob::restore(const QString& label, const TrainDataSpec& data, const rbm::TrainOptions& options,
                         std::shared_ptr<const TrainSnapshot> snapshot) {
    const int id = add(data, options);
    TrainingRun* r = find(id);
    if (!label.isEmpty()) r->label = label;
    r->snapshot = std::move(snapshot);
    restoredLast_ = true;
    Q_EMIT runUpdated(id);
    Q_EMIT runEnded(id);
    return id;
}

const TrainingRun* TrainingJob::shownNotRun() const {
    if (!restoredLast_ || runs_.empty()) return nullptr;
    const TrainingRun& r = runs_.rbegin()->second;
    return r.snapshot && !r.running ? &r : nullptr;
}

int TrainingJob::loadCheckpoint(const QString& path, const TrainDataSpec& data, QString& error) {
    try {
        auto t =
            std::make_shared<rbm::Trainer>(rbm::Trainer::load_checkpoint(path.toStdString(), loadTrainingData(data)));
        attachTestData(*t, data);
        const int id = add(data, t->options());
        TrainingRun* r = find(id);
        r->trainer = t;
        r->fromCheckpoint = path;
        r->snapshot = snapshotOf(*t);
        restoredLast_ = true;
        Q_EMIT runUpdated(id);
        Q_EMIT runEnded(id);
        return id;
    } catch (const std::exception& e) {
        error = QString::fromStdString(e.what());
        return -1;
    }
}

}  // namespace rbmscope
