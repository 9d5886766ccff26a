// The Training view as the window sees it (views/view.hpp): its transport (moved from the main
// window's buildTransports), its part of a session (settings and runs), report section, train
// command, the logs of rbmscope-cli train reopened, and "Open in app" (the trained model becomes
// the window's; the Samples view shows its data).
#include <QDir>
#include <algorithm>

#include "core/io/model_io.hpp"
#include "core/training/training.hpp"
#include "jobs/background_jobs.hpp"
#include "views/cli_equivalent.hpp"
#include "views/filters/filters_view.hpp"
#include "views/report_html.hpp"
#include "views/samples/samples_view.hpp"
#include "views/training/training_view.hpp"
#include "views/view.hpp"

namespace rbmscope {
namespace {

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

class TrainingPage : public View {
public:
    explicit TrainingPage(const ViewContext& ctx) : View(ctx.owner), ctx_(ctx) {
        training_ = new TrainingView(ctx.parent, ctx.jobs);
        training_->setObjectName(name());
        // "Open in app": the trained model replaces the current one; the samples view shows its data.
        connect(training_, &TrainingView::openModel, this,
                [this](const rbm::Model& m, const rbm::Dataset& data, const QString& origin) {
                    if (!ctx_.openModel(m, origin)) return;
                    if (View* v = ctx_.view(QStringLiteral("filters")))
                        if (auto* filters = qobject_cast<FiltersView*>(v->widget()))
                            filters->setImageShape(static_cast<int>(data.image_rows),
                                                   static_cast<int>(data.image_cols));
                    if (View* v = ctx_.view(QStringLiteral("samples")))
                        if (auto* samples = qobject_cast<SamplesView*>(v->widget())) {
                            samples->setData(data);
                            ctx_.showView(v->name());
                            samples->run();
                        }
                });
        buildTransport();
        connect(trT_, &Transport::stateChanged, this, [this] { ctx_.changed(); });
        connect(ctx_.jobs, &BackgroundJobs::runningChanged, trT_, &Transport::refresh);
        // A training run ends when its result is delivered, just after its channel stops running.
        connect(training_->session(), &TrainingJob::busyChanged, trT_, &Transport::refresh);
        connect(training_->session(), &TrainingJob::runEnded, trT_, &Transport::refresh);  // restored runs too
    }
    QString name() const override { return QStringLiteral("training"); }
    QString title() const override { return tr("Training"); }
    QString toolTip() const override {
        return tr("Train RBMs with CD, PCD, tempered PCD or Algorithm 2 and watch them learn");
    }
    QWidget* widget() const override { return training_; }
    Transport* transport() const override { return trT_; }
    bool busy() const override { return training_->busy(); }

    void saveSession(rbm::Session& s) const override {
        s.views["training"] = training_->sessionSettings();
        s.training_runs = training_->sessionRuns();
    }
    QString readSession(const rbm::Session& s) override {
        // A file written before the Training view was kept (no "views.training", no runs) leaves it as it is.
        const auto it = s.views.find("training");
        restore_ = it != s.views.end() || !s.training_runs.empty();
        if (!restore_) return {};
        return training_->readSession(it == s.views.end() ? nullptr : &it->second, s.training_runs, pending_);
    }
    void applySession(const rbm::Session&) override {
        if (restore_) training_->applySession(pending_);
        restore_ = false;
    }

    // Training: the view's most recent run with results: its curves, final figures and command.
    QString reportSection(const ReportContext& r) const override {
        const TrainingRun* trun = nullptr;
        for (int id : training_->session()->ids())
            if (const TrainingRun* run = training_->session()->run(id);
                run && run->snapshot && !run->snapshot->log.empty())
                trun = run;
        if (!trun) return {};
        const auto num = [](double x, int digits = 6) { return reportNumber(x, digits); };
        const auto esc = reportEscape;
        const auto row = reportRow;
        const TrainSnapshot& snap = *trun->snapshot;
        const rbm::TrainRecord& last = snap.log.back();
        QString html;
        html += QStringLiteral("<h2 id=\"training\">Training</h2>\n");
        // The charts hold every run of the view; half the page's height is plenty for a curve.
        const QSize chartSize(r.pageSize.width(), std::max(300, r.pageSize.height() / 2));
        html += reportSvg(training_->likelihoodChart(), tr("Training: average log-likelihood"), chartSize);
        html += QStringLiteral("<p>%1</p>").arg(tr("Reconstruction error, mean |v − E[v | E[h | v]]|²:"));
        html += reportSvg(training_->reconstructionChart(), tr("Training: reconstruction error"), chartSize);
        const rbm::TrainOptions& o = trun->options;
        html += QStringLiteral("<table>");
        html += row(tr("run"), esc(trun->label));
        html += row(tr("data"), esc(describe(trun->data)));
        html +=
            row(tr("model"),
                QStringLiteral("%1, %2 hidden units").arg(QString::fromLatin1(rbm::kind_name(o.kind))).arg(o.hidden));
        html += row(tr("method"), QStringLiteral("%1, k = %2, batch %3, learning rate %4, seed %5")
                                      .arg(QString::fromLatin1(rbm::train_method_name(o.method)))
                                      .arg(o.k)
                                      .arg(o.batch)
                                      .arg(num(o.learning_rate))
                                      .arg(o.seed));
        html += row(tr("updates"), QStringLiteral("%1 of %2").arg(snap.updatesDone).arg(o.updates));
        html += row(tr("state"), esc(QString::fromLatin1(rbm::train_status_name(snap.status))));
        if (!last.log_likelihood_method.empty())
            html += row(tr("final average log-likelihood (%1)").arg(QString::fromStdString(last.log_likelihood_method)),
                        num(last.log_likelihood, 10));
        html += row(tr("final reconstruction error"), num(last.reconstruction_error, 10));
        html += QStringLiteral("</table>\n");
        if (!trun->fromCheckpoint.isEmpty())
            html += QStringLiteral(
                        "<p class=\"note\">This run continued the checkpoint %1: no command line started here "
                        "reproduces the updates before it.</p>")
                        .arg(esc(trun->fromCheckpoint));
        else if (snap.status != rbm::TrainStatus::Finished)
            html +=
                QStringLiteral(
                    "<p class=\"note\">The run did not finish (%1): no command line gives these partial figures.</p>")
                    .arg(esc(QString::fromLatin1(rbm::train_status_name(snap.status))));
        else html += reportCommand(trainCommand(trun->data, o, r.baseName.toStdString() + ".trained.json"));
        return html;
    }
    // train with the view's data and controls (none when the controls do not work together).
    std::optional<CliEquivalent> cliCommand(const std::string&, const QString& dir, const QString& baseName,
                                            bool* readsModel) const override {
        CliEquivalent c;
        try {
            c = trainCommand(training_->dataSpec(), training_->options(),
                             QDir(dir).absoluteFilePath(baseName + QStringLiteral(".trained.json")).toStdString());
        } catch (const std::exception& e) {
            c = {{}, QString::fromUtf8(e.what())};
        }
        if (c.argv.empty()) return std::nullopt;
        if (readsModel) *readsModel = false;  // train reads no model; it writes one beside the result
        return c;
    }

    bool opensResult(const rbm::ResultFile& res) const override {
        return res.command == rbm::ResultCommand::Train || res.command == rbm::ResultCommand::TrainLog;
    }
    ShownResult showResult(const rbm::ResultFile&, const QString& file,
                           const std::vector<rbm::TrainFileRecord>& records) override {
        if (!records.empty())
            training_->showLog(trainRecords(records), tr("reopened %1").arg(file),
                               tr("reopened from %1 (not a live run)").arg(file));
        return {records.empty()
                    ? tr("nothing: no log")
                    : tr("the log-likelihood and reconstruction-error curves (%1 records)").arg(records.size()),
                tr("negative samples and filters of the run (its trained model opens in the other views)"), QString()};
    }

private:
    void buildTransport() {
        const auto ofUnits = [](const rbm::StepGate* g, double total) {
            return g && total > 0 ? std::min(1.0, static_cast<double>(g->done.load()) / total) : -1.0;
        };
        Transport::Job tr_;
        tr_.unit = tr("training update");
        tr_.start = [this](std::shared_ptr<rbm::StepGate> g) { training_->train(std::move(g)); };
        tr_.stop = [this] { training_->stop(); };
        tr_.active = [this] { return training_->busy(); };
        tr_.finished = [] { return true; };
        // No run yet: no gate, so the transport says "idle" (the job keeps one for the next run).
        tr_.gate = [this] { return training_->session()->ids().empty() ? nullptr : training_->stepGate(); };
        // Runs restored from a session (or a checkpoint): the newest one's updates, not the gate's 0.
        tr_.restored = [this] { return training_->restoredRun(); };
        tr_.fraction = [this, ofUnits] {
            try {
                return ofUnits(training_->stepGate(), static_cast<double>(training_->options().updates));
            } catch (const std::exception&) {
                return -1.0;
            }
        };
        trT_ = new Transport(tr_, this);
    }

    ViewContext ctx_;
    TrainingView* training_ = nullptr;
    Transport* trT_ = nullptr;
    bool restore_ = false;
    TrainingView::SessionState pending_;  // read from a session, applied by applySession
};

}  // namespace

View* makeTrainingView(const ViewContext& ctx) { return new TrainingPage(ctx); }

}  // namespace rbmscope
