// The Annealing and Compare views as the window sees them (views/view.hpp). Both show the AIS run
// of the pipeline they share with Target density and Estimates; the Annealing view (primary)
// forwards the model, the settings and the exact log Z to that pipeline and writes the AIS part of
// the report. Space while nothing runs plays the β animation.
#include <QJsonObject>
#include <cmath>

#include "views/annealing/ais_job.hpp"
#include "views/annealing/annealing_pipeline.hpp"
#include "views/annealing/annealing_view.hpp"
#include "views/cli_equivalent.hpp"
#include "views/report_html.hpp"
#include "views/view.hpp"

namespace rbmscope {
namespace {

class AnnealingPage : public View {
public:
    AnnealingPage(const ViewContext& ctx, AnnealingPipeline* ais, const QString& name, int maxLanes)
        : View(ctx.owner), ctx_(ctx), ais_(ais), name_(name) {
        view_ = new AnnealingView(ctx.jobs, name == QLatin1String("annealing") ? QStringLiteral("anneal") : name,
                                  maxLanes, ctx.parent);
        view_->setObjectName(name);
        ais_->addAnnealingView(view_);
    }
    bool primary() const { return name_ == QLatin1String("annealing"); }
    QString name() const override { return name_; }
    QString title() const override { return primary() ? tr("Annealing") : tr("Compare"); }
    QString toolTip() const override {
        return primary() ? tr("p_β along the annealing path with the AIS particles")
                         : tr("Several methods side by side: same model, same seed, same β, same colour scale");
    }
    QWidget* widget() const override { return view_; }
    Transport* transport() const override { return ais_->runTransport(); }
    void cancel() override {
        View::cancel();
        ais_->stopPlaying();
    }
    void stop() override {
        if (primary()) ais_->stop();
    }
    bool busy() const override { return primary() ? ais_->busy() : view_->busy(); }
    QStringList presenterFigures() const override { return ais_->presenterFigures(); }
    std::optional<StatusReport> status() const override {
        if (!primary()) return std::nullopt;
        return ais_->status();
    }
    void setModel(const rbm::Model& m, const ModelEvent& e) override {
        if (primary()) ais_->setModel(m, e);  // the pipeline sets the model of every view it feeds
    }
    void setSettings(const RunSettings& s) override {
        if (primary()) ais_->setSettings(s);
    }
    void setExactLogZ(std::optional<double> logZ) override {
        if (primary()) ais_->setExactLogZ(logZ);
    }
    void setColourScale(ColourScale s) override { view_->setColourScale(s); }
    void setHurried(bool on) override { view_->setHurried(on); }
    std::vector<SessionField> sessionFields() const override { return view_->sessionFields(); }
    QString exportData(QString* csv, QJsonObject* json) const override {
        *csv = view_->exportCsv();
        *json = view_->exportJson();
        return {};
    }

    Playback playback() const override { return {true, tr("&Play β"), true}; }
    void togglePlayback() override { view_->setPlaying(!view_->playing()); }
    QString framesPrompt() const override { return tr("Frames from β = 0 to 1:"); }
    QString playbackFrames(int frames, PlaybackFrames* out) override {
        AisJob* run = ais_->run();
        bool recorded = false;
        for (const LaneRun& l : run->lanes()) recorded = recorded || !l.frames.empty();
        if (!recorded) return tr("there is no recorded run to play back: run AIS first (F5)");
        AnnealingView* view = view_;
        view->setPlaying(false);
        const double was = view->beta();
        const std::uint64_t runId = run->runId();
        out->show = [view, frames](int i) { view->setBeta(static_cast<double>(i) / (frames - 1)); };
        out->shown = [view, frames](int i) {
            return !view->busy() && view->shownBeta() == static_cast<double>(i) / (frames - 1);
        };
        out->restore = [view, was] { view->setBeta(was); };
        out->superseded = [run, runId] { return run->runId() != runId || run->running(); };
        out->target = view;
        return {};
    }

    // AIS: the Annealing view's run, one row and one command per method.
    QString reportSection(const ReportContext& r) const override {
        if (!primary()) return {};
        const AisJob* run = ais_->run();
        bool anyAis = false;
        for (const LaneRun& l : run->lanes()) anyAis = anyAis || l.result.has_value();
        if (!anyAis) return {};
        const auto num = [](double x, int digits = 6) { return reportNumber(x, digits); };
        const auto esc = reportEscape;
        const std::optional<double> exactLogZ = ais_->exactLogZ();
        QString html;
        html += QStringLiteral("<h2 id=\"ais\">Annealed importance sampling</h2>\n");
        html += reportSvg(view_, tr("Annealing"), r.pageSize);
        html += QStringLiteral(
            "<table><tr><th>method</th><th>log Ẑ</th><th>95% interval "
            "(bootstrap)</th><th>ESS</th><th>K</th><th>N</th><th>state</th></tr>");
        for (const LaneRun& l : run->lanes()) {
            if (!l.result) continue;
            const rbm::AisResult& a = *l.result;
            const QString state =
                a.complete ? tr("complete") : tr("partial (β = %1; log Ẑ_β, not log Z)").arg(num(a.beta_reached, 4));
            html += QStringLiteral(
                        "<tr><td>%1</td><td class=\"n\">%2</td><td class=\"n\">[%3, %4]</td><td class=\"n\">%5</td><td "
                        "class=\"n\">%6</td><td class=\"n\">%7</td><td>%8</td></tr>")
                        .arg(esc(l.label), num(a.estimate.log_z, 8), num(a.estimate.ci95_low, 8),
                             num(a.estimate.ci95_high, 8), num(a.estimate.ess, 4))
                        .arg(a.steps)
                        .arg(run->chains())
                        .arg(esc(state));
        }
        html += QStringLiteral("</table>\n");
        if (exactLogZ) html += QStringLiteral("<p>Exact log Z = %1.</p>\n").arg(num(*exactLogZ, 10));
        for (const LaneRun& l : run->lanes()) {
            if (!l.result) continue;
            html += QStringLiteral("<p>%1:</p>").arg(esc(l.label));
            html += reportCommand(aisCommand(r.modelArg, r.kind, r.settings, l.spec));
        }
        if (run->lanes().size() > 1)
            if (View* compare = ctx_.view(QStringLiteral("compare")))
                html += reportSvg(compare->widget(), tr("Compare"), r.pageSize);
        return html;
    }

private:
    ViewContext ctx_;
    AnnealingPipeline* ais_;
    QString name_;
    AnnealingView* view_ = nullptr;
};

}  // namespace

View* makeAnnealingView(const ViewContext& ctx, AnnealingPipeline* ais) {
    return new AnnealingPage(ctx, ais, QStringLiteral("annealing"), 1);
}
View* makeCompareView(const ViewContext& ctx, AnnealingPipeline* ais) {
    return new AnnealingPage(ctx, ais, QStringLiteral("compare"), 6);
}

}  // namespace rbmscope
