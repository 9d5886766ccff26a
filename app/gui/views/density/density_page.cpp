// The Target density view as the window sees it (views/view.hpp). F5 here runs the annealing
// towards this density, as it always did: its transport is the AIS run's.
#include <QJsonObject>

#include "heatmap_view.hpp"
#include "views/annealing/annealing_pipeline.hpp"
#include "views/density/density_tab.hpp"
#include "views/report_html.hpp"
#include "views/view.hpp"

namespace rbmscope {
namespace {

class DensityPage : public View {
public:
    DensityPage(const ViewContext& ctx, AnnealingPipeline* ais) : View(ctx.owner), ctx_(ctx), ais_(ais) {
        tab_ = new DensityTab(ctx.jobs, ctx.parent);
        tab_->setObjectName(name());
        connect(tab_, &DensityTab::ready, this, [this] {
            if (tab_->drawable() && !tab_->busy())
                ctx_.say(tr("Exact density on a %1×%2 grid in %3 ms.")
                             .arg(tab_->view()->image().width())
                             .arg(tab_->view()->image().height())
                             .arg(tab_->lastMilliseconds(), 0, 'f', 1));
            Q_EMIT pictureReady();
        });
        connect(tab_->view(), &HeatmapView::arrowDragged, this, [this](int index, QPointF point) {
            const auto* g = ctx_.model().as<rbm::Grbm>();
            if (!g || index < 0 || index >= g->n_hidden()) return;
            // The arrow shows sigma∘W_j from b; its tip at `point` means W_j = (point - b) / sigma.
            rbm::Grbm edited = *g;
            edited.W(0, index) = (point.x() - g->b(0)) / g->sigma(0);
            edited.W(1, index) = (point.y() - g->b(1)) / g->sigma(1);
            ctx_.editModel(edited, false);
        });
        connect(tab_->view(), &HeatmapView::arrowDragFinished, this, [this](int) { ctx_.finishEdit(); });
    }
    QString name() const override { return QStringLiteral("density"); }
    QString title() const override { return tr("Target density"); }
    QString toolTip() const override { return tr("The exact density of a 2-D model; drag the arrows to edit a GRBM"); }
    QWidget* widget() const override { return tab_; }
    Transport* transport() const override { return ais_->runTransport(); }
    void cancel() override {
        View::cancel();
        ais_->stopPlaying();
    }
    void stop() override {}  // the Annealing view stops the AIS run they share
    bool busy() const override { return tab_->busy(); }
    void setModel(const rbm::Model& m, const ModelEvent& e) override {
        // A new model gets a new box; a live edit keeps it (the picture must not jump under the mouse).
        if (e.change == ModelChange::Opened) tab_->setModel(m, false);
        else if (e.change == ModelChange::Live) tab_->setModel(m, true);
    }
    void setColourScale(ColourScale s) override { tab_->setColourScale(s); }
    // Presenter mode hides the status bar: the log Z the tour's first stop talks about goes on the strip.
    QStringList presenterFigures() const override {
        if (const auto z = tab_->logZ()) return {tr("log Z = %1").arg(*z, 0, 'f', 4)};
        return {};
    }
    QString exportData(QString* csv, QJsonObject* json) const override {
        *csv = tab_->exportCsv();
        *json = tab_->exportJson();
        return {};
    }
    QString reportSection(const ReportContext& r) const override {
        return ctx_.model().n_visible() == 2 ? reportSvg(tab_, tr("Target density"), r.pageSize) : QString();
    }

private:
    ViewContext ctx_;
    AnnealingPipeline* ais_;
    DensityTab* tab_ = nullptr;
};

}  // namespace

View* makeDensityView(const ViewContext& ctx, AnnealingPipeline* ais) { return new DensityPage(ctx, ais); }

}  // namespace rbmscope
