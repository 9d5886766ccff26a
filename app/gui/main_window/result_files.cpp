// Reopening a result of rbmscope-cli (issue #18): core's result_file reads it, the model it names
// is found and checked against the recorded hash and shape, and the numbers go into the view
// that shows that kind of result, as a finished run. Nothing is recomputed; the panel gets the
// run's settings (with auto-run off) so Run (F5) repeats it live.
#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <cmath>

#include "core/io/model_io.hpp"
#include "core/io/named_arrays.hpp"
#include "core/io/presets.hpp"
#include "core/io/result_file.hpp"
#include "core/io/result_source.hpp"
#include "core/tempering/pt.hpp"
#include "core/training/training.hpp"
#include "main_window/main_window.hpp"

namespace rbmscope {
namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

QString shape(const std::string& kind, rbm::Index n, rbm::Index m) {
    return QStringLiteral("%1 with n = %2, m = %3").arg(qs(kind)).arg(n).arg(m);
}
bool sameShape(const rbm::Model& model, const std::string& kind, rbm::Index n, rbm::Index m) {
    return kind == rbm::kind_name(model.kind()) && n == model.n_visible() && m == model.n_hidden();
}

// Where a file a result names is: as recorded (absolute, or relative to the working folder),
// then beside the result (a run on a cluster names paths of the cluster). With a hash, the first
// candidate whose bytes match wins; else the first that exists (the caller says it changed).
struct Located {
    QString path;
    bool hashMatches = false;
    QStringList tried;
};
Located locate(const std::string& recorded, const std::string& fnv1a64, const QString& resultPath) {
    const QString given = qs(recorded);
    const QDir beside = QFileInfo(resultPath).absoluteDir();
    QStringList candidates{given};
    const QString there = beside.filePath(QFileInfo(given).isRelative() ? given : QFileInfo(given).fileName());
    if (QFileInfo(there).absoluteFilePath() != QFileInfo(given).absoluteFilePath()) candidates << there;
    Located out;
    for (const QString& c : candidates) {
        out.tried << QFileInfo(c).absoluteFilePath();
        if (!QFileInfo(c).isFile()) continue;
        bool match = false;
        if (!fnv1a64.empty()) try {
                match = rbm::file_fnv1a64(c.toStdString()) == fnv1a64;
            } catch (const std::exception&) {
            }
        if (match) return {c, true, out.tried};
        if (out.path.isEmpty()) out.path = c;
    }
    return out;
}

rbm::AisResult aisResultOf(const rbm::AisFileResult& a, bool complete) {
    rbm::AisResult r;
    r.complete = complete;
    r.steps = a.steps;
    r.steps_done = a.steps_done;
    r.beta_reached = a.beta_reached.value_or(1.0);
    rbm::AisEstimate& e = r.estimate;
    e.n = a.chains;
    e.log_z0 = a.log_z0;
    e.log_z = a.log_z;
    e.log_z_high = a.log_z_high;
    e.log_z_low = a.log_z_low;
    e.ci95_low = a.ci95_low;
    e.ci95_high = a.ci95_high;
    e.ess = a.ess;
    e.ess_fraction = a.ess_fraction;
    e.log_w_mean = a.log_w_mean;
    e.log_w_var = a.log_w_var;
    e.histogram.lo = a.hist_lo;
    e.histogram.hi = a.hist_hi;
    e.histogram.counts.assign(a.hist_counts.begin(), a.hist_counts.end());
    for (const auto& [beta, logZ] : a.running) r.running.push_back({beta, logZ, 0.0});
    if (a.reverse) {
        rbm::ReverseAisResult v;
        v.complete = a.reverse->complete;
        v.log_z_upper = a.reverse->log_z_upper;
        v.ci95_low = a.reverse->ci95_low;
        v.ci95_high = a.reverse->ci95_high;
        v.ess = a.reverse->ess;
        v.ess_fraction = a.reverse->ess_fraction;
        v.log_w_mean = a.reverse->log_w_mean;
        v.log_w_var = a.reverse->log_w_var;
        r.reverse = v;
    }
    r.seconds = a.seconds;
    r.perfect = a.perfect;
    r.path_name = a.path_name;
    r.kernel = a.kernel;
    r.notes = a.notes;
    r.log_z0 = a.log_z0;
    r.cost_functional = a.cost_functional.value_or(std::nan(""));
    return r;
}

std::vector<rbm::TrainRecord> trainRecords(const std::vector<rbm::TrainFileRecord>& in) {
    std::vector<rbm::TrainRecord> out;
    for (const rbm::TrainFileRecord& f : in) {
        rbm::TrainRecord r;
        r.update = f.update;
        r.epoch = f.epoch;
        r.learning_rate = f.learning_rate;
        r.log_likelihood = f.log_likelihood;
        r.log_likelihood_low = f.log_likelihood_low;
        r.log_likelihood_high = f.log_likelihood_high;
        r.log_likelihood_method = f.log_likelihood_method;
        r.log_z = f.log_z;
        r.reconstruction_error = f.reconstruction_error;
        r.seconds = f.seconds;
        out.push_back(std::move(r));
    }
    return out;
}

}  // namespace

QString MainWindow::resultBanner() const { return resultView_.isEmpty() ? QString() : resultBanner_->text(); }

void MainWindow::setResultBanner(const QString& view, const QString& channel, const QString& html) {
    resultView_ = view;
    resultChannel_ = channel;
    resultBanner_->setText(html);
    resultBanner_->setVisible(currentView() == view);
}

void MainWindow::clearResultBanner() {
    resultView_.clear();
    resultChannel_.clear();
    resultBanner_->clear();
    resultBanner_->hide();
}

bool MainWindow::openResult(const QString& path) {
    const QString file = QFileInfo(path).fileName();
    rbm::ResultFile res;
    try {
        res = rbm::load_result_file(path.toStdString());
    } catch (const std::exception& e) {
        showError(tr("Cannot open result"), QString::fromStdString(e.what()));
        return false;
    }
    QStringList notes;  // what the user must know about the model used (shown in the banner)

    // 1. The model. A result of ais/ais-sweep/pt/meanfield names its model file (or preset) with
    // its hash and shape; train names the model it wrote; a --log array names none.
    std::optional<rbm::Model> model;
    QString origin, preset;
    try {
        if (res.model && !res.model->preset.empty()) {
            model = rbm::load_preset(res.model->preset);
            preset = qs(res.model->preset);
            origin = QStringLiteral("preset ") + preset;
        } else if (res.model || (res.train && !res.train->model.empty())) {
            const std::string recorded = res.model ? res.model->path : res.train->model;
            const Located at = locate(recorded, res.model ? res.model->fnv1a64 : std::string(), path);
            if (!at.path.isEmpty()) {
                rbm::ModelLoadOptions options;
                if (res.model && !res.model->map.empty()) options.names = rbm::parse_array_map(res.model->map);
                rbm::LoadedModel loaded = rbm::load_model_file(at.path.toStdString(), options);
                if (res.model && !at.hashMatches) {
                    if (!sameShape(loaded.model, res.model->kind, res.model->n, res.model->m))
                        throw rbm::InputError(
                            tr("the model file %1 has changed since the run and no longer fits it (the result is of a %2, "
                               "the file holds a %3)")
                                .arg(at.path, shape(res.model->kind, res.model->n, res.model->m),
                                     shape(rbm::kind_name(loaded.model.kind()), loaded.model.n_visible(), loaded.model.n_hidden()))
                                .toStdString());
                    notes << tr("the model file %1 has changed since the run (its FNV-1a hash is not the recorded %2): "
                                "it has the recorded kind and shape, but the numbers shown are of the file as it was then")
                                 .arg(at.path.toHtmlEscaped(), qs(res.model->fnv1a64));
                }
                if (const QString problem = displayProblem(loaded.model); !problem.isEmpty())
                    throw rbm::InputError(at.path.toStdString() + ": " + problem.toStdString());
                model = std::move(loaded.model);
                origin = at.path;
            } else if (res.model) {
                // Not found: the loaded model stands in when it has the recorded kind and shape.
                if (!sameShape(model_, res.model->kind, res.model->n, res.model->m))
                    throw rbm::InputError(tr("its model file '%1' is not found (looked for %2); the result is of a %3 and the "
                                             "model open now is not: open that model first, then the result")
                                              .arg(qs(recorded), at.tried.join(tr(" and ")),
                                                   shape(res.model->kind, res.model->n, res.model->m))
                                              .toStdString());
                notes << tr("its model file '%1' is not found (looked for %2): shown with the model open now, which has "
                            "the recorded kind and shape but may not be the model of the run")
                             .arg(qs(recorded).toHtmlEscaped(), at.tried.join(tr(" and ")).toHtmlEscaped());
            } else {
                notes << tr("the trained model '%1' is not found (looked for %2): the log is shown with the model open now")
                             .arg(qs(recorded).toHtmlEscaped(), at.tried.join(tr(" and ")).toHtmlEscaped());
            }
        }
    } catch (const std::exception& e) {
        showError(tr("Cannot open result"), file + ": " + QString::fromStdString(e.what()));
        return false;
    }

    // 2. A training summary's log (read before anything changes: a bad log refuses the result).
    std::vector<rbm::TrainFileRecord> records;
    if (res.command == rbm::ResultCommand::TrainLog) records = res.train->records;
    if (res.command == rbm::ResultCommand::Train && !res.train->log.empty()) {
        const Located at = locate(res.train->log, std::string(), path);
        if (at.path.isEmpty())
            notes << tr("its log '%1' is not found (looked for %2)").arg(qs(res.train->log).toHtmlEscaped(), at.tried.join(tr(" and ")).toHtmlEscaped());
        else if (!at.path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive))
            notes << tr("its log %1 is a CSV file; the curves are read from a --log FILE.json").arg(at.path.toHtmlEscaped());
        else
            try {
                records = rbm::load_train_log(at.path.toStdString());
            } catch (const std::exception& e) {
                showError(tr("Cannot open result"), file + ": " + QString::fromStdString(e.what()));
                return false;
            }
    } else if (res.command == rbm::ResultCommand::Train) {
        notes << tr("train ran without --log: there are no curves to show");
    }

    if (model) setModel(std::move(*model), origin, preset);
    rememberRecent(path);
    const rbm::ModelKind kind = model_.kind();

    // 3. For an AIS run or sweep, the panel's settings: those of the run where the panel has
    // them, auto-run off so nothing replaces the result until Run.
    RunSettings s = settings_;
    s.autoRun = false;
    const ModelTraits traits = traitsOf(model_);
    const auto methodOf = [&](const std::string& p, const std::string& b) -> std::optional<MethodSpec> {
        MethodSpec m{p, b};
        if (!methodProblem(traits, m).isEmpty()) return std::nullopt;
        return canonicalMethod(traits, m);
    };
    const auto adopt = [&](const std::string& schedule, rbm::Index chains, std::uint64_t seed, bool perfect) {
        if (schedule != "list") s.schedule.kind = schedule;
        if (chains >= 1 && chains <= kMaxChains) s.chains = chains;
        s.seed = seed;
        s.perfect = perfect;
    };
    if (res.ais) {
        const rbm::AisFileResult& a = *res.ais;
        if (auto m = methodOf(a.path, a.base)) s.method = *m;
        s.compare.clear();
        if (a.steps >= 1 && a.steps <= kMaxSteps) s.schedule.steps = a.steps;
        adopt(a.schedule, a.chains, a.seed, a.perfect);
        s.reverse = a.reverse.has_value();
    }
    if (res.sweep) {
        const rbm::SweepFileResult& w = *res.sweep;
        std::vector<MethodSpec> methods;
        std::vector<rbm::Index> steps;
        for (const rbm::SweepFileRow& r : w.rows) {
            if (auto m = methodOf(r.path, r.base); m && std::find(methods.begin(), methods.end(), *m) == methods.end()) methods.push_back(*m);
            if (r.steps <= kMaxSteps && std::find(steps.begin(), steps.end(), r.steps) == steps.end()) steps.push_back(r.steps);
        }
        if (!methods.empty()) {
            s.method = methods.front();
            s.compare.assign(methods.begin() + 1, methods.end());
        }
        std::sort(steps.begin(), steps.end());
        if (!steps.empty()) s.sweepSteps = steps;
        adopt(w.schedule, w.chains, w.seed, w.perfect);
        s.reverse = std::any_of(w.rows.begin(), w.rows.end(), [](const rbm::SweepFileRow& r) { return r.log_z_upper_mean.has_value(); });
    }
    if (res.ais || res.sweep) {
        applySettings(s);
        runAfterLanes_ = sweepAfterLanes_ = false;
    }

    // 4. The numbers, into their view.
    QString view;
    QString shown;  // what the view shows, for the banner
    QString missing;  // what the result holds that the view cannot show
    if (res.ais) {
        LaneRun lane;
        lane.spec = MethodSpec{res.ais->path, res.ais->base};
        lane.label = methodLabel(lane.spec, kind);
        lane.result = aisResultOf(*res.ais, res.complete);
        lane.running = lane.result->running;
        run_->showResult({std::move(lane)}, res.ais->chains);
        view = QStringLiteral("estimates");
        shown = tr("log Ẑ, its intervals and ESS in the run table, the running estimate and the log-weight histogram");
        missing = tr("particles (a result holds none: the Annealing view's filmstrip fills on Run)");
    } else if (res.sweep) {
        QStringList labels;
        std::vector<std::string> specs;
        std::vector<SweepPoint> points;
        std::vector<rbm::Index> steps;
        for (const rbm::SweepFileRow& r : res.sweep->rows) {
            auto it = std::find(specs.begin(), specs.end(), r.method);
            if (it == specs.end()) {
                specs.push_back(r.method);
                labels << methodLabel(MethodSpec{r.path, r.base}, kind);
                it = specs.end() - 1;
            }
            SweepPoint p;
            p.lane = static_cast<int>(it - specs.begin());
            p.steps = r.steps;
            p.estimate.n = res.sweep->chains;
            p.estimate.log_z = r.log_z_mean;
            p.estimate.ci95_low = r.ci95_low_mean;
            p.estimate.ci95_high = r.ci95_high_mean;
            // A sweep records the sd over its repeats, not the ±3σ bounds of a run: ±3 sd stands in.
            p.estimate.log_z_high = r.log_z_mean + 3 * r.log_z_sd;
            p.estimate.log_z_low = r.log_z_mean - 3 * r.log_z_sd;
            p.estimate.ess = r.ess_mean;
            p.estimate.ess_fraction = r.ess_fraction_mean;
            p.estimate.log_w_mean = r.log_w_mean;
            p.reverseUpper = r.log_z_upper_mean;
            if (r.log_z_upper_mean) {  // no interval recorded for the upper bound: ±1.96 sd of the repeats
                p.reverseLow = *r.log_z_upper_mean - 1.96 * r.log_z_upper_sd.value_or(0.0);
                p.reverseHigh = *r.log_z_upper_mean + 1.96 * r.log_z_upper_sd.value_or(0.0);
            }
            p.seconds = r.seconds;
            if (std::find(steps.begin(), steps.end(), r.steps) == steps.end()) steps.push_back(r.steps);
            points.push_back(std::move(p));
        }
        std::sort(steps.begin(), steps.end());
        run_->cancel();
        sweep_->showResult(labels, std::move(steps), std::move(points));
        view = QStringLiteral("estimates");
        shown = tr("log Ẑ (mean of %1 repeats) with its mean bootstrap 95% interval and ESS against K for %2 method(s)")
                    .arg(res.sweep->repeats)
                    .arg(labels.size());
        missing = tr("the ±3σ bars (a sweep records the sd of its repeats: ±3 sd is drawn); the running estimate and histogram of a single run");
    } else if (res.pt) {
        const rbm::PtFileResult& p = *res.pt;
        TemperingFrame f;
        f.stats.scheme = rbm::parse_pt_scheme(p.scheme);
        f.stats.betas = p.betas;
        f.stats.scans = p.scans_done ? *p.scans_done : p.sweeps;
        f.stats.chains = p.chains;
        f.stats.rejection = p.rejection;
        f.stats.proposed = p.swaps_proposed;
        f.stats.accepted = p.swaps_accepted;
        f.stats.round_trips = p.round_trips_per_replica;
        f.stats.restarts = p.restarts_per_replica;
        f.stats.lifted_round_trips = p.lifted_round_trips.value_or(0);
        f.betas = p.betas;
        f.rungs = static_cast<int>(p.betas.size());
        f.scansDone = f.stats.scans;
        f.scansTotal = p.sweeps;
        f.finished = res.complete;
        view = QStringLiteral("tempering");
        setCurrentView(view);  // shown first: the view lays out its rung maps for the ladder
        tempering_->showResult(f, tr("reopened from %1 (not a live run)").arg(file));
        shown = tr("the ladder, swap acceptance per pair, round trips against the prediction, the barrier");
        missing = tr("replica trajectories and the rung states (a result holds none)");
    } else if (res.meanfield) {
        const rbm::MeanFieldFileResult& m = *res.meanfield;
        rbm::MeanFieldResult r;
        r.free_energy = m.free_energy;
        r.iterations = m.iterations;
        r.converged = m.converged;
        r.residual = m.residual;
        r.mean_v = Eigen::Map<const rbm::Vec>(m.mean_v.data(), static_cast<rbm::Index>(m.mean_v.size()));
        r.mean_h = Eigen::Map<const rbm::Vec>(m.mean_h.data(), static_cast<rbm::Index>(m.mean_h.size()));
        r.var_v = Eigen::Map<const rbm::Vec>(m.var_v.data(), static_cast<rbm::Index>(m.var_v.size()));
        r.fixed_points.resize(m.fixed_points.size());
        r.trace.residual = m.trace_residual;
        r.trace.free_energy = m.trace_free_energy;
        if (m.exact_mse_v) {
            rbm::MeanFieldExact e;
            e.mse_v = *m.exact_mse_v;
            r.exact = e;
        }
        const int method = m.type == "1" ? 0 : m.type == "2" ? 1 : 2;
        std::optional<double> exactF = m.exact_free_energy;  // -log Z, as the view's exact row
        view = QStringLiteral("meanfield");
        meanfield_->showResult(method, r, exactF, tr("reopened from %1 (not a live run)").arg(file));
        const QString names[3] = {tr("type I"), tr("type II"), tr("TAP")};
        shown = tr("the %1 row of the table (free energy, error, iterations, convergence, fixed points) and its residual trace")
                    .arg(names[method]);
        missing = tr("the density picture and the other two methods (press Run to compute them)");
    } else {
        view = QStringLiteral("training");
        if (!records.empty())
            training_->showLog(trainRecords(records), tr("reopened %1").arg(file), tr("reopened from %1 (not a live run)").arg(file));
        shown = records.empty() ? tr("nothing: no log") : tr("the log-likelihood and reconstruction-error curves (%1 records)").arg(records.size());
        missing = tr("negative samples and filters of the run (its trained model opens in the other views)");
    }
    setCurrentView(view);

    QString html = tr("<b>Reopened result</b> %1 — not a live run; Run (F5) computes live.<br>"
                      "<code>%2</code><br>Shown: %3. Not in this view: %4.")
                       .arg(file.toHtmlEscaped(), qs(res.command_line.empty() ? std::string(rbm::result_command_name(res.command))
                                                                              : res.command_line).toHtmlEscaped(),
                            shown, missing);
    if (!res.complete) notes.prepend(tr("the run was interrupted: the numbers are partial"));
    for (const std::string& w : res.warnings) notes << qs(w).toHtmlEscaped();
    if (!notes.isEmpty()) html += QStringLiteral("<br><span style='color:#b00020'>%1</span>").arg(notes.join(QStringLiteral("<br>")));
    const QString channel = res.ais ? QStringLiteral("ais") : res.sweep ? QStringLiteral("sweep") : res.pt ? tempering_->runChannel()
                            : res.meanfield ? meanfield_->channel() : QString();
    setResultBanner(view, channel, html);
    statusText_->setText(tr("Reopened %1 (%2)").arg(file, qs(rbm::result_command_name(res.command))));
    return true;
}

}  // namespace rbmscope
