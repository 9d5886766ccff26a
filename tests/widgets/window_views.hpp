#pragma once
// The main window's views as the widget suites reach them: the window knows its views only as
// View* (views/view.hpp); the suites look them up by name and take their widgets as their own
// types, and reach the AIS pipeline the annealing views share.
#include <optional>
#include <vector>

#include "main_window/main_window.hpp"
#include "views/annealing/ais_job.hpp"
#include "views/annealing/annealing_pipeline.hpp"
#include "views/annealing/annealing_view.hpp"
#include "views/density/density_tab.hpp"
#include "views/estimates/estimates_view.hpp"
#include "views/estimates/sweep_job.hpp"
#include "views/filters/filters_view.hpp"
#include "views/meanfield/meanfield_view.hpp"
#include "views/samples/samples_view.hpp"
#include "views/tempering/tempering_view.hpp"
#include "views/training/training_view.hpp"

namespace rbmscope {

inline DensityTab* densityTabOf(const MainWindow& w) { return w.viewWidget<DensityTab>(QStringLiteral("density")); }
inline HeatmapView* densityViewOf(const MainWindow& w) { return densityTabOf(w)->view(); }
inline AnnealingView* annealingViewOf(const MainWindow& w) {
    return w.viewWidget<AnnealingView>(QStringLiteral("annealing"));
}
inline AnnealingView* compareViewOf(const MainWindow& w) {
    return w.viewWidget<AnnealingView>(QStringLiteral("compare"));
}
inline EstimatesView* estimatesViewOf(const MainWindow& w) {
    return w.viewWidget<EstimatesView>(QStringLiteral("estimates"));
}
inline TemperingView* temperingViewOf(const MainWindow& w) {
    return w.viewWidget<TemperingView>(QStringLiteral("tempering"));
}
inline MeanFieldView* meanFieldViewOf(const MainWindow& w) {
    return w.viewWidget<MeanFieldView>(QStringLiteral("meanfield"));
}
inline SamplesView* samplesViewOf(const MainWindow& w) { return w.viewWidget<SamplesView>(QStringLiteral("samples")); }
inline FiltersView* filtersViewOf(const MainWindow& w) { return w.viewWidget<FiltersView>(QStringLiteral("filters")); }
inline TrainingView* trainingViewOf(const MainWindow& w) {
    return w.viewWidget<TrainingView>(QStringLiteral("training"));
}

// The AIS pipeline (lanes, run, sweep) of the density, annealing, compare and estimates views.
inline AnnealingPipeline* aisPipelineOf(const MainWindow& w) { return w.findChild<AnnealingPipeline*>(); }
inline AisJob* aisJobOf(const MainWindow& w) { return aisPipelineOf(w)->run(); }
inline SweepJob* sweepJobOf(const MainWindow& w) { return aisPipelineOf(w)->sweep(); }
inline const std::vector<Lane>& lanesOf(const MainWindow& w) { return aisPipelineOf(w)->lanes(); }
inline bool lanesReadyOf(const MainWindow& w) { return aisPipelineOf(w)->lanesReady(); }
inline std::optional<double> exactLogZOf(const MainWindow& w) { return aisPipelineOf(w)->exactLogZ(); }

}  // namespace rbmscope
