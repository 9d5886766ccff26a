#include "views/training/training_session.hpp"

#include <limits>

#include "session_settings_reader.hpp"

namespace rbmscope {
namespace {

using rbm::SessionValue;
constexpr double kHuge = std::numeric_limits<double>::max();
constexpr long long kBig = 1LL << 53;  // counts a double still holds exactly

const char* prepName(TrainDataSpec::Prep p) {
    switch (p) {
        case TrainDataSpec::Prep::AsIs: return "as-is";
        case TrainDataSpec::Prep::Binarize: return "binarize";
        case TrainDataSpec::Prep::Scale: return "scale";
        case TrainDataSpec::Prep::Standardize: return "standardize";
    }
    return "as-is";
}

SessionValue integer(long long v) { return SessionValue::scalar(std::int64_t{v}); }

}  // namespace

std::map<std::string, SessionValue> trainSettingsToMap(const TrainDataSpec& d, const rbm::TrainOptions& o) {
    std::map<std::string, SessionValue> m;
    m["data"] = SessionValue::scalar(d.source.trimmed().toStdString());
    m["shifts"] = SessionValue::scalar(d.shifts);
    m["prep"] = SessionValue::scalar(std::string(prepName(d.prep)));
    m["test_data"] = SessionValue::scalar(d.test.trimmed().toStdString());
    m["kind"] = SessionValue::scalar(std::string(rbm::kind_name(o.kind)));
    m["hidden"] = integer(o.hidden);
    m["method"] = SessionValue::scalar(std::string(rbm::train_method_name(o.method)));
    m["k"] = integer(o.k);
    m["updates"] = integer(o.updates);
    m["batch"] = integer(o.batch);
    m["learning_rate"] = SessionValue::scalar(o.learning_rate);
    m["schedule"] =
        SessionValue::scalar(std::string(o.schedule == rbm::LearningRateSchedule::Linear ? "linear" : "constant"));
    m["momentum"] = SessionValue::scalar(o.momentum);
    m["weight_decay"] = SessionValue::scalar(o.weight_decay);
    m["gamma"] = SessionValue::scalar(o.gamma);
    m["temperatures"] = integer(o.temperatures);
    m["chains"] = integer(o.chains);
    m["seed"] = SessionValue::scalar(o.seed);
    m["init_scale"] = SessionValue::scalar(o.init_scale);
    m["init_bias_from_data"] = SessionValue::scalar(o.init_bias_from_data);
    m["learn_sigma"] = SessionValue::scalar(o.learn_sigma);
    m["sigma"] = SessionValue::scalar(o.sigma);
    m["leakiness"] = SessionValue::scalar(o.leakiness);
    m["projection"] = SessionValue::scalar(o.projection);
    m["projection_limit"] = SessionValue::scalar(o.projection_limit);
    m["leaky_kernel"] = SessionValue::scalar(std::string(rbm::leaky_kernel_name(o.leaky_kernel)));
    m["monitor_every"] = integer(o.monitor_every);
    m["monitor_examples"] = integer(o.monitor_examples);
    m["exact_limit"] = SessionValue::scalar(o.exact_limit);
    m["ais_chains"] = integer(o.ais_chains);
    m["ais_steps"] = integer(o.ais_steps);
    m["ais_seed"] = SessionValue::scalar(o.ais_seed);
    return m;
}

QString trainSettingsFromMap(const std::map<std::string, SessionValue>& map, const std::string& prefix,
                             TrainDataSpec& data, rbm::TrainOptions& options) {
    SessionSettingsReader r(map, prefix);
    TrainDataSpec d = data;
    rbm::TrainOptions o = options;
    std::string text;
    if (r.has("data")) {
        r.string("data", text);
        if (r.error.isEmpty() && QString::fromStdString(text).trimmed().isEmpty())
            r.fail("data", QStringLiteral("a data spec (\"bars:4\", \"digits\" or a file path)"),
                   QStringLiteral("an empty string"));
        d.source = QString::fromStdString(text).trimmed();
    }
    r.boolean("shifts", d.shifts);
    if (r.has("test_data")) {  // absent in sessions written before held-out data: none
        r.string("test_data", text);
        d.test = QString::fromStdString(text).trimmed();
    }
    if (r.choice("prep", {"binarize", "scale", "standardize", "as-is"}, text))
        d.prep = text == "binarize"      ? TrainDataSpec::Prep::Binarize
                 : text == "scale"       ? TrainDataSpec::Prep::Scale
                 : text == "standardize" ? TrainDataSpec::Prep::Standardize
                                         : TrainDataSpec::Prep::AsIs;
    if (r.choice("kind", {"brbm", "grbm", "leaky"}, text))
        o.kind = text == "brbm" ? rbm::ModelKind::Brbm : text == "grbm" ? rbm::ModelKind::Grbm : rbm::ModelKind::Leaky;
    r.integer("hidden", 1, 100000, o.hidden);
    if (r.choice("method", {"cd", "pcd", "pt", "lpt", "deo", "leaky", "mix"}, text))
        o.method = rbm::parse_train_method(text);
    r.integer("k", 1, 100000, o.k);
    r.integer("updates", 0, kBig, o.updates);
    r.integer("batch", 1, kBig, o.batch);
    r.real("learning_rate", 0, kHuge, o.learning_rate, true);
    if (r.choice("schedule", {"constant", "linear"}, text))
        o.schedule = text == "linear" ? rbm::LearningRateSchedule::Linear : rbm::LearningRateSchedule::Constant;
    r.real("momentum", 0, 1, o.momentum, true);
    r.real("weight_decay", 0, kHuge, o.weight_decay, true);
    r.real("gamma", 0, 1, o.gamma);
    r.integer("temperatures", 0, 1000, o.temperatures);
    r.integer("chains", 0, 1000000, o.chains);
    r.seed("seed", o.seed);
    r.real("init_scale", 0, kHuge, o.init_scale, true);
    r.boolean("init_bias_from_data", o.init_bias_from_data);
    r.boolean("learn_sigma", o.learn_sigma);
    r.real("sigma", -kHuge, kHuge, o.sigma, true);
    r.real("leakiness", -kHuge, kHuge, o.leakiness, true);
    r.boolean("projection", o.projection);
    r.real("projection_limit", 0, 1, o.projection_limit, true);
    if (r.choice("leaky_kernel", {"exact-mh", "paper-gibbs"}, text))
        o.leaky_kernel = text == "paper-gibbs" ? rbm::LeakyKernel::PaperGibbs : rbm::LeakyKernel::ExactMH;
    r.integer("monitor_every", 0, kBig, o.monitor_every);
    r.integer("monitor_examples", 0, kBig, o.monitor_examples);
    r.real("exact_limit", 0, kHuge, o.exact_limit, true);
    r.integer("ais_chains", 1, 1000000, o.ais_chains);
    r.integer("ais_steps", 1, 10000000, o.ais_steps);
    r.seed("ais_seed", o.ais_seed);
    if (!r.error.isEmpty()) return r.error;
    data = d;
    options = o;
    return {};
}

rbm::SessionTrainingRun sessionRunOf(const TrainingRun& run) {
    rbm::SessionTrainingRun s;
    const TrainSnapshot& snap = *run.snapshot;
    s.label = run.label.toStdString();
    s.settings = trainSettingsToMap(run.data, run.options);
    s.status = snap.status == rbm::TrainStatus::Running ? "cancelled" : rbm::train_status_name(snap.status);
    s.message = snap.message.toStdString();
    s.updates_done = snap.updatesDone;
    s.total_updates = std::max(snap.totalUpdates, snap.updatesDone);
    s.projections = snap.projections;
    s.image_rows = snap.imageRows;
    s.image_cols = snap.imageCols;
    s.seconds = snap.seconds;
    s.log = snap.log;
    s.negatives = snap.negatives;
    s.model = snap.model;
    return s;
}

QString restoredRunOf(const rbm::SessionTrainingRun& s, const std::string& path, RestoredRun& out) {
    RestoredRun r;
    const QString where = QString::fromStdString(path);
    if (const QString err = trainSettingsFromMap(s.settings, path + ".settings.", r.data, r.options); !err.isEmpty())
        return err;
    if (s.model.kind() != r.options.kind || s.model.n_hidden() != r.options.hidden)
        return QStringLiteral(
                   "%1: the model (%2, %3 hidden units) does not match the run's settings (kind %4, hidden %5)")
            .arg(where, QString::fromLatin1(rbm::kind_name(s.model.kind())))
            .arg(s.model.n_hidden())
            .arg(QString::fromLatin1(rbm::kind_name(r.options.kind)))
            .arg(r.options.hidden);
    if (s.negatives.rows() > 0 && s.negatives.cols() != s.model.n_visible())
        return QStringLiteral("%1.negatives: rows of %2 values, the model has %3 visible units")
            .arg(where)
            .arg(s.negatives.cols())
            .arg(s.model.n_visible());
    if (s.image_rows * s.image_cols != 0 && s.image_rows * s.image_cols != s.model.n_visible())
        return QStringLiteral("%1: image_rows x image_cols (%2 x %3) is not the model's %4 visible units")
            .arg(where)
            .arg(s.image_rows)
            .arg(s.image_cols)
            .arg(s.model.n_visible());
    r.label = QString::fromStdString(s.label);
    auto snap = std::make_shared<TrainSnapshot>();
    snap->log = s.log;
    snap->model = s.model;
    snap->negatives = s.negatives;
    snap->status = s.status == "finished"   ? rbm::TrainStatus::Finished
                   : s.status == "diverged" ? rbm::TrainStatus::Diverged
                                            : rbm::TrainStatus::Cancelled;
    snap->message = QString::fromStdString(s.message);
    snap->updatesDone = s.updates_done;
    snap->totalUpdates = s.total_updates;
    snap->projections = s.projections;
    snap->imageRows = s.image_rows;
    snap->imageCols = s.image_cols;
    snap->seconds = s.seconds;
    r.snapshot = std::move(snap);
    out = std::move(r);
    return {};
}

}  // namespace rbmscope

// ---- the view's side -------------------------------------------------------------------------

#include "views/training/training_view.hpp"

namespace rbmscope {

std::map<std::string, rbm::SessionValue> TrainingView::sessionSettings() const {
    auto m = trainSettingsToMap(dataSpec(), controlOptions());
    long long index = -1, i = 0;
    for (const int id : session_->ids()) {
        const TrainingRun* r = session_->run(id);
        if (!r->snapshot) continue;
        if (id == selected_) index = i;
        ++i;
    }
    m["selected_run"] = rbm::SessionValue::scalar(std::int64_t{index});
    return m;
}

std::vector<rbm::SessionTrainingRun> TrainingView::sessionRuns() const {
    std::vector<rbm::SessionTrainingRun> out;
    for (const int id : session_->ids())
        if (const TrainingRun* r = session_->run(id); r->snapshot) out.push_back(sessionRunOf(*r));
    return out;
}

QString TrainingView::readSession(const std::map<std::string, rbm::SessionValue>* settings,
                                  const std::vector<rbm::SessionTrainingRun>& runs, SessionState& out) const {
    SessionState s;
    s.data = dataSpec();
    s.options = controlOptions();
    for (std::size_t i = 0; i < runs.size(); ++i) {
        RestoredRun r;
        if (const QString err = restoredRunOf(runs[i], "training_runs[" + std::to_string(i) + "]", r); !err.isEmpty())
            return err;
        s.runs.push_back(std::move(r));
    }
    if (settings) {
        const std::string prefix = "views.training.";
        if (const QString err = trainSettingsFromMap(*settings, prefix, s.data, s.options); !err.isEmpty()) return err;
        SessionSettingsReader r(*settings, prefix);
        r.integer("selected_run", -1, static_cast<long long>(s.runs.size()) - 1, s.selected);
        // The controls' own limits: a session never puts a value into them that they would clamp.
        const QString src = s.data.source;
        if (src.startsWith(QStringLiteral("bars:")) && !src.mid(5).contains(QLatin1Char(':'))) {
            bool ok = false;
            const int d = src.mid(5).toInt(&ok);
            if (!ok || d < barsD_->minimum() || d > barsD_->maximum())
                r.fail("data",
                       QStringLiteral("\"bars:D\" with D from %1 to %2, \"digits\" or a file path")
                           .arg(barsD_->minimum())
                           .arg(barsD_->maximum()),
                       QStringLiteral("\"%1\"").arg(src));
        }
        const auto within = [&](const char* key, double value, double lo, double hi) {
            if (settings->count(key) && !(value >= lo && value <= hi))
                r.fail(key, QStringLiteral("a number from %1 to %2 (the view's field)").arg(lo).arg(hi),
                       QString::number(value, 'g', 17));
        };
        const rbm::TrainOptions& o = s.options;
        within("hidden", double(o.hidden), hidden_->minimum(), hidden_->maximum());
        within("k", o.k, k_->minimum(), k_->maximum());
        within("batch", double(o.batch), batch_->minimum(), batch_->maximum());
        within("learning_rate", o.learning_rate, lr_->minimum(), lr_->maximum());
        within("momentum", o.momentum, momentum_->minimum(), momentum_->maximum());
        within("weight_decay", o.weight_decay, decay_->minimum(), decay_->maximum());
        within("gamma", o.gamma, gamma_->minimum(), gamma_->maximum());
        within("temperatures", double(o.temperatures), temps_->minimum(), temps_->maximum());
        within("leakiness", o.leakiness, leakiness_->minimum(), leakiness_->maximum());
        within("updates", double(o.updates), updates_->minimum(), updates_->maximum());
        within("monitor_every", double(o.monitor_every), monitor_->minimum(), monitor_->maximum());
        within("seed", double(o.seed), seed_->minimum(), seed_->maximum());
        within("init_scale", o.init_scale, initScale_->minimum(), initScale_->maximum());
        if (!r.error.isEmpty()) return r.error;
    }
    out = std::move(s);
    return {};
}

void TrainingView::applySession(const SessionState& state) {
    session_->clear();
    selected_ = -1;
    for (RunCurves* c : {llChart_, reconChart_, swapChart_, projChart_}) c->clearCurves();
    setDataSpec(state.data);
    setOptions(state.options);
    std::vector<int> ids;
    for (const RestoredRun& r : state.runs) ids.push_back(session_->restore(r.label, r.data, r.options, r.snapshot));
    refreshList();
    if (state.selected >= 0 && state.selected < static_cast<long long>(ids.size()))
        selectRun(ids[static_cast<std::size_t>(state.selected)]);
    else if (!ids.empty()) selectRun(ids.back());
    else showSelected();
    setStatus(state.runs.empty()
                  ? QString()
                  : tr("%n run(s) restored from the session.", nullptr, static_cast<int>(state.runs.size())));
    updateEnabled();
}

}  // namespace rbmscope
