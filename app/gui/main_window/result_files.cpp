// Reopening a result of rbmscope-cli, in four named steps: locate the model it names
// (checked against the recorded hash and shape), read a training summary's log, apply the run's
// settings to the panel (auto-run off, so Run (F5) repeats it live), and show: the numbers go into
// the view that declares it opens that kind of result (View::opensResult / showResult), as a
// finished run. Nothing is recomputed.
#include <sys/stat.h>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <cmath>

#include "core/io/model_io.hpp"
#include "core/io/named_arrays.hpp"
#include "core/io/presets.hpp"
#include "core/io/result_file.hpp"
#include "core/io/result_source.hpp"
#include "core/kernels/build_info.hpp"
#include "core/numerics/memory_budget.hpp"
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
    QString refused;  // a candidate that exists but is not a regular file: "<path> is a FIFO (named pipe)"
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
        if (!QFileInfo(c).isFile()) {
            // A FIFO would block the read forever: say what it is rather than "not found".
            struct stat st {};
            if (out.refused.isEmpty() && ::stat(QFile::encodeName(c).constData(), &st) == 0)
                out.refused =
                    QObject::tr("%1 is %2, not a regular file: refused")
                        .arg(QFileInfo(c).absoluteFilePath(), S_ISFIFO(st.st_mode) ? QObject::tr("a FIFO (named pipe)")
                                                              : S_ISSOCK(st.st_mode) ? QObject::tr("a socket")
                                                              : S_ISDIR(st.st_mode)  ? QObject::tr("a directory")
                                                                                     : QObject::tr("a device"));
            continue;
        }
        bool match = false;
        // Hashing reads the whole file: one larger than the memory budget is not hashed (the
        // loader refuses it from its size at once) -- an 8 GB sparse file took 17-45 s here.
        const bool hashable = static_cast<std::uint64_t>(QFileInfo(c).size()) <= rbm::memory_budget();
        if (!fnv1a64.empty() && hashable) try {
                match = rbm::file_fnv1a64(c.toStdString()) == fnv1a64;
            } catch (const std::exception&) {
            }
        if (match) return {c, true, out.tried, {}};
        if (out.path.isEmpty()) out.path = c;
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

struct MainWindow::ResultModel {
    std::optional<rbm::Model> model;  // none: the model open now stands in (or a --log names none)
    QString origin, preset;
    QStringList notes;  // what the user must know about the model used (shown in the banner)
};

QString MainWindow::buildDifference(const rbm::BuildRecord& recorded) {
    try {
        return qs(rbm::build_difference(recorded, rbm::build_record(rbm::build_json())));
    } catch (const std::exception&) {  // RBMSCOPE_SIMD names a path this machine lacks: the app said so at start
        return QString();
    }
}

bool MainWindow::openResult(const QString& path) {
    rbm::ResultFile res;
    try {
        res = rbm::load_result_file(path.toStdString());
    } catch (const std::exception& e) {
        showError(tr("Cannot open result"), QString::fromStdString(e.what()));
        return false;
    }
    ResultModel located;
    if (!locateResultModel(res, path, &located)) return false;
    std::vector<rbm::TrainFileRecord> records;
    if (!readResultLog(res, path, &records, &located.notes)) return false;
    // Nothing has changed until here: a result refused leaves the window as it was.
    if (located.model) setModel(std::move(*located.model), located.origin, located.preset);
    rememberRecent(path);
    applyResultSettings(res);
    return showResultInView(res, path, records, located.notes);
}

// Step 1, the model. A result of ais/ais-sweep/pt/meanfield names its model file (or preset) with
// its hash and shape; train names the model it wrote; a --log array names none.
bool MainWindow::locateResultModel(const rbm::ResultFile& res, const QString& path, ResultModel* out) {
    const QString file = QFileInfo(path).fileName();
    QStringList& notes = out->notes;
    try {
        if (res.model && !res.model->preset.empty()) {
            out->model = rbm::load_preset(res.model->preset);
            out->preset = qs(res.model->preset);
            out->origin = QStringLiteral("preset ") + out->preset;
        } else if (res.model || (res.train && !res.train->model.empty())) {
            const std::string recorded = res.model ? res.model->path : res.train->model;
            const Located at = locate(recorded, res.model ? res.model->fnv1a64 : std::string(), path);
            if (!at.path.isEmpty()) {
                rbm::ModelLoadOptions options;
                if (res.model && !res.model->map.empty()) options.names = rbm::parse_array_map(res.model->map);
                rbm::LoadedModel loaded = rbm::load_model_file(at.path.toStdString(), options);
                if (res.model && !at.hashMatches) {
                    if (!sameShape(loaded.model, res.model->kind, res.model->n, res.model->m))
                        throw rbm::InputError(tr("the model file %1 has changed since the run and no longer fits it "
                                                 "(the result is of a %2, "
                                                 "the file holds a %3)")
                                                  .arg(at.path, shape(res.model->kind, res.model->n, res.model->m),
                                                       shape(rbm::kind_name(loaded.model.kind()),
                                                             loaded.model.n_visible(), loaded.model.n_hidden()))
                                                  .toStdString());
                    notes << tr("the model file %1 has changed since the run (its FNV-1a hash is not the recorded %2): "
                                "it has the recorded kind and shape, but the numbers shown are of the file as it was "
                                "then")
                                 .arg(at.path.toHtmlEscaped(), qs(res.model->fnv1a64));
                }
                if (const QString problem = displayProblem(loaded.model); !problem.isEmpty())
                    throw rbm::InputError(at.path.toStdString() + ": " + problem.toStdString());
                out->model = std::move(loaded.model);
                out->origin = at.path;
            } else if (!at.refused.isEmpty()) {
                throw rbm::InputError(tr("its model file: %1").arg(at.refused).toStdString());
            } else if (res.model) {
                // Not found: the loaded model stands in when it has the recorded kind and shape.
                if (!sameShape(model_, res.model->kind, res.model->n, res.model->m))
                    throw rbm::InputError(
                        tr("its model file '%1' is not found (looked for %2); the result is of a %3 and the "
                           "model open now is not: open that model first, then the result")
                            .arg(qs(recorded), at.tried.join(tr(" and ")),
                                 shape(res.model->kind, res.model->n, res.model->m))
                            .toStdString());
                notes
                    << tr("its model file '%1' is not found (looked for %2): shown with the model open now, which has "
                          "the recorded kind and shape but may not be the model of the run")
                           .arg(qs(recorded).toHtmlEscaped(), at.tried.join(tr(" and ")).toHtmlEscaped());
            } else {
                notes << tr("the trained model '%1' is not found (looked for %2): the log is shown with the model open "
                            "now")
                             .arg(qs(recorded).toHtmlEscaped(), at.tried.join(tr(" and ")).toHtmlEscaped());
            }
        }
    } catch (const std::exception& e) {
        showError(tr("Cannot open result"), file + ": " + QString::fromStdString(e.what()));
        return false;
    }
    return true;
}

// Step 2, a training summary's log (read before anything changes: a bad log refuses the result).
bool MainWindow::readResultLog(const rbm::ResultFile& res, const QString& path,
                               std::vector<rbm::TrainFileRecord>* records, QStringList* notes) {
    const QString file = QFileInfo(path).fileName();
    if (res.command == rbm::ResultCommand::TrainLog) *records = res.train->records;
    if (res.command == rbm::ResultCommand::Train && !res.train->log.empty()) {
        const Located at = locate(res.train->log, std::string(), path);
        if (at.path.isEmpty())
            *notes << tr("its log '%1' is not found (looked for %2)")
                          .arg(qs(res.train->log).toHtmlEscaped(), at.tried.join(tr(" and ")).toHtmlEscaped());
        else try {  // a --log FILE.json or FILE.csv
                *records = rbm::load_train_log(at.path.toStdString());
            } catch (const std::exception& e) {
                showError(tr("Cannot open result"), file + ": " + QString::fromStdString(e.what()));
                return false;
            }
    } else if (res.command == rbm::ResultCommand::Train) {
        *notes << tr("train ran without --log: there are no curves to show");
    }
    return true;
}

// Step 3, for an AIS run or sweep, the panel's settings: those of the run where the panel has
// them, auto-run off so nothing replaces the result until Run.
void MainWindow::applyResultSettings(const rbm::ResultFile& res) {
    if (!res.ais && !res.sweep) return;
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
            if (auto m = methodOf(r.path, r.base); m && std::find(methods.begin(), methods.end(), *m) == methods.end())
                methods.push_back(*m);
            if (r.steps <= kMaxSteps && std::find(steps.begin(), steps.end(), r.steps) == steps.end())
                steps.push_back(r.steps);
        }
        if (!methods.empty()) {
            s.method = methods.front();
            s.compare.assign(methods.begin() + 1, methods.end());
        }
        std::sort(steps.begin(), steps.end());
        if (!steps.empty()) s.sweepSteps = steps;
        adopt(w.schedule, w.chains, w.seed, w.perfect);
        s.reverse = std::any_of(w.rows.begin(), w.rows.end(),
                                [](const rbm::SweepFileRow& r) { return r.log_z_upper_mean.has_value(); });
    }
    applySettings(s);
}

// Step 4, the numbers, into the view that opens this kind of result; the banner says what it shows.
bool MainWindow::showResultInView(const rbm::ResultFile& res, const QString& path,
                                  const std::vector<rbm::TrainFileRecord>& records, QStringList notes) {
    const QString file = QFileInfo(path).fileName();
    View* v = nullptr;
    for (View* candidate : views_)
        if (candidate->opensResult(res)) {
            v = candidate;
            break;
        }
    if (!v) {
        showError(tr("Cannot open result"),
                  file + ": " + tr("no view shows a result of %1").arg(qs(rbm::result_command_name(res.command))));
        return false;
    }
    const ShownResult shown = v->showResult(res, file, records);
    setCurrentView(v->name());

    QString html =
        tr("<b>Reopened result</b> %1 — not a live run; Run (F5) computes live.<br>"
           "<code>%2</code><br>Shown: %3. Not in this view: %4.")
            .arg(file.toHtmlEscaped(),
                 qs(res.command_line.empty() ? std::string(rbm::result_command_name(res.command)) : res.command_line)
                     .toHtmlEscaped(),
                 shown.shown, shown.missing);
    if (!res.complete) notes.prepend(tr("the run was interrupted: the numbers are partial"));
    for (const std::string& w : res.warnings) notes << qs(w).toHtmlEscaped();
    // Another build or SIMD path made it: say so rather than promise that Run gives the same bits.
    const QString otherBuild = buildDifference(res.build);
    if (!otherBuild.isEmpty()) notes << tr("this result was %1").arg(otherBuild.toHtmlEscaped());
    if (!notes.isEmpty())
        html += QStringLiteral("<br><span style='color:#b00020'>%1</span>").arg(notes.join(QStringLiteral("<br>")));
    setResultBanner(v->name(), shown.channel, html);
    statusText_->setText(tr("Reopened %1 (%2)").arg(file, qs(rbm::result_command_name(res.command))) +
                         (otherBuild.isEmpty() ? QString() : QStringLiteral("; ") + tr("it was %1").arg(otherBuild)));
    return true;
}

}  // namespace rbmscope
