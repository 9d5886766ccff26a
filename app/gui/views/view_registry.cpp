// The registry of views (views/view_registry.hpp): the window shows what this list makes, in this
// order (Ctrl+1…9 follow it); it never names a view itself.
#include "views/view_registry.hpp"

#include "views/annealing/annealing_pipeline.hpp"

namespace rbmscope {

// Each view's factory lives with the view (views/<view>/<view>_page.cpp).
View* makeDensityView(const ViewContext& ctx, AnnealingPipeline* ais);
View* makeAnnealingView(const ViewContext& ctx, AnnealingPipeline* ais);
View* makeCompareView(const ViewContext& ctx, AnnealingPipeline* ais);
View* makeEstimatesView(const ViewContext& ctx, AnnealingPipeline* ais);
View* makeTemperingView(const ViewContext& ctx);
View* makeMeanFieldView(const ViewContext& ctx);
View* makeSamplesView(const ViewContext& ctx);
View* makeFiltersView(const ViewContext& ctx);
View* makeTrainingView(const ViewContext& ctx);

ViewList createViews(const ViewContext& ctx) {
    // One AIS pipeline (lanes, run, sweep) feeds the first four views.
    auto* ais = new AnnealingPipeline(ctx);
    return {
        makeDensityView(ctx, ais),   makeAnnealingView(ctx, ais), makeCompareView(ctx, ais),
        makeEstimatesView(ctx, ais), makeTemperingView(ctx),      makeMeanFieldView(ctx),
        makeSamplesView(ctx),        makeFiltersView(ctx),        makeTrainingView(ctx),
    };
}

}  // namespace rbmscope
