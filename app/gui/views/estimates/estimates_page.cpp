// The Estimates view as the window sees it (views/view.hpp): the sweep over K of the AIS pipeline
// (its own transport), its part of the report and of Run with MPI… (ais-sweep), and the results
// of rbmscope-cli ais and ais-sweep reopened: the numbers go into the AIS run or the
// sweep as a finished run; nothing is recomputed.
#include <QJsonObject>
#include <algorithm>
#include <cmath>

#include "views/annealing/ais_job.hpp"
#include "views/annealing/annealing_pipeline.hpp"
#include "views/cli_equivalent.hpp"
#include "views/estimates/estimates_view.hpp"
#include "views/estimates/sweep_job.hpp"
#include "views/estimates/verdict_panel.hpp"
#include "views/report_html.hpp"
#include "views/view.hpp"

namespace rbmscope {
namespace {

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

class EstimatesPage : public View {
public:
    EstimatesPage(const ViewContext& ctx, AnnealingPipeline* ais) : View(ctx.owner), ctx_(ctx), ais_(ais) {
        view_ = new EstimatesView(ctx.parent);
        view_->setObjectName(name());
        ais_->setEstimatesView(view_);
        verdict_ = new VerdictPanel([this] { return ctx_.model(); }, view_);
        verdict_->setObjectName(QStringLiteral("verdict"));
        view_->addVerdictPage(verdict_);
        // The window's actions follow the verdict too (Esc cancels it while it runs).
        connect(verdict_, &VerdictPanel::started, this, [this] { ctx_.changed(); });
        connect(verdict_, &VerdictPanel::finished, this, [this] { ctx_.changed(); });
    }
    bool otherWorkRunning() const override { return verdict_->running(); }
    QStringList presenterFigures() const override { return ais_->sweepFigures(); }
    void setModel(const rbm::Model&, const ModelEvent&) override { verdict_->clear(); }
    void cancel() override {  // Esc and the status bar's Cancel reach the verdict too (its partial result is kept)
        verdict_->cancel();
        View::cancel();
    }
    QString name() const override { return QStringLiteral("estimates"); }
    QString title() const override { return tr("Estimates"); }
    QString toolTip() const override { return tr("log Ẑ and ESS against K, running estimate, log-weight histogram"); }
    QWidget* widget() const override { return view_; }
    Transport* transport() const override { return ais_->sweepTransport(); }
    std::vector<SessionField> sessionFields() const override { return view_->sessionFields(); }
    QString exportData(QString* csv, QJsonObject* json) const override {
        *csv = view_->exportCsv();
        *json = view_->exportJson();
        return {};
    }

    // Estimates: the sweep over K.
    QString reportSection(const ReportContext& r) const override {
        const SweepJob* sweep = ais_->sweep();
        if (sweep->points().empty()) return {};
        const auto num = [](double x, int digits = 6) { return reportNumber(x, digits); };
        QString html;
        html += QStringLiteral("<h2 id=\"sweep\">Estimates against the number of steps K</h2>\n");
        html += reportSvg(view_, tr("Estimates"), r.pageSize);
        html +=
            QStringLiteral("<table><tr><th>method</th><th>K</th><th>log Ẑ</th><th>95% interval</th><th>ESS</th></tr>");
        for (const SweepPoint& p : sweep->points()) {
            const QString label =
                p.lane < sweep->laneLabels().size() ? sweep->laneLabels()[p.lane] : QString::number(p.lane);
            html += QStringLiteral(
                        "<tr><td>%1</td><td class=\"n\">%2</td><td class=\"n\">%3</td><td class=\"n\">[%4, %5]</td><td "
                        "class=\"n\">%6</td></tr>")
                        .arg(reportEscape(label))
                        .arg(p.steps)
                        .arg(num(p.estimate.log_z, 8), num(p.estimate.ci95_low, 8), num(p.estimate.ci95_high, 8),
                             num(p.estimate.ess, 4));
        }
        html += QStringLiteral("</table>\n");
        html += reportCommand(sweepCommand(r.modelArg, r.kind, r.settings));
        return html;
    }
    std::optional<CliEquivalent> cliCommand(const std::string& modelArg, const QString&, const QString&,
                                            bool*) const override {
        return sweepCommand(modelArg, ctx_.model().kind(), ais_->settings());
    }

    bool opensResult(const rbm::ResultFile& res) const override { return res.ais || res.sweep; }
    ShownResult showResult(const rbm::ResultFile& res, const QString&,
                           const std::vector<rbm::TrainFileRecord>&) override {
        ais_->holdRuns();  // nothing replaces the result until Run
        const rbm::ModelKind kind = ctx_.model().kind();
        ShownResult out;
        if (res.ais) {
            LaneRun lane;
            lane.spec = MethodSpec{res.ais->path, res.ais->base};
            lane.label = methodLabel(lane.spec, kind);
            lane.result = aisResultOf(*res.ais, res.complete);
            lane.running = lane.result->running;
            ais_->run()->showResult({std::move(lane)}, res.ais->chains);
            out.shown =
                tr("log Ẑ, its intervals and ESS in the run table, the running estimate and the log-weight histogram");
            out.missing = tr("particles (a result holds none: the Annealing view's filmstrip fills on Run)");
            out.channel = QStringLiteral("ais");
            return out;
        }
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
        ais_->run()->cancel();
        ais_->sweep()->showResult(labels, std::move(steps), std::move(points));
        out.shown =
            tr("log Ẑ (mean of %1 repeats) with its mean bootstrap 95% interval and ESS against K for %2 method(s)")
                .arg(res.sweep->repeats)
                .arg(labels.size());
        out.missing =
            tr("the ±3σ bars (a sweep records the sd of its repeats: ±3 sd is drawn); the running estimate and "
               "histogram of a single run");
        out.channel = QStringLiteral("sweep");
        return out;
    }

private:
    ViewContext ctx_;
    AnnealingPipeline* ais_;
    EstimatesView* view_ = nullptr;
    VerdictPanel* verdict_ = nullptr;
};

}  // namespace

View* makeEstimatesView(const ViewContext& ctx, AnnealingPipeline* ais) { return new EstimatesPage(ctx, ais); }

}  // namespace rbmscope
