#pragma once
// The "Target density" tab: the exact density of a 2-D model on a grid, its modes, and for a
// GRBM the hidden units' weight arrows, which the user drags to edit the model. Computed on a
// worker (channel "density"); while the user drags, the view box stays put.
#include <QElapsedTimer>
#include <QJsonObject>
#include <QLabel>
#include <QStackedWidget>
#include <cmath>
#include <optional>

#include "heatmap_view.hpp"
#include "jobs/background_jobs.hpp"
#include "views/density/density_field.hpp"

namespace rbmscope {

class DensityTab : public QStackedWidget {
    Q_OBJECT
public:
    explicit DensityTab(BackgroundJobs* jobs, QWidget* parent = nullptr);

    // keepBox: reuse the current view box (live editing) instead of fitting the model.
    void setModel(const rbm::Model& model, bool keepBox);
    // Linear or logarithmic colours (View → Logarithmic colour scale); recolours what is shown.
    void setColourScale(ColourScale scale);
    HeatmapView* view() const { return view_; }
    bool busy() const { return jobs_->isRunning(QStringLiteral("density")); }
    bool drawable() const { return drawable_; }
    // log Z of the density shown (exact: the grid's sum, or the closed form), when one is shown.
    std::optional<double> logZ() const {
        return drawable_ && std::isfinite(field_.logZ) && !field_.p.empty() ? std::optional<double>(field_.logZ)
                                                                            : std::nullopt;
    }
    double lastMilliseconds() const { return lastMs_; }

    QString exportCsv() const;
    QJsonObject exportJson() const;

Q_SIGNALS:
    void ready();  // a density (or the reason there is none) is on screen

private:
    void show(Field f, const rbm::Model& model);

    BackgroundJobs* jobs_;
    HeatmapView* view_;
    QLabel* message_;
    bool drawable_ = false;
    bool haveBox_ = false;
    rbm::GridSpec box_;
    Field field_;
    ColourScale scale_ = ColourScale::Linear;
    QElapsedTimer clock_;
    double lastMs_ = 0;
};

}  // namespace rbmscope
