#pragma once
// A HeatmapView that also draws Gaussians as covariance ellipses (mean ± k standard deviations
// along the principal axes), a small legend, and one large outlined dot (a "spot", e.g. where a
// replica is now; the base class's particles are too small for one point in a compact map).
// Ellipses and the spot are in model units and follow the heatmap's axes.
#include <QVector>

#include "heatmap_view.hpp"

namespace rbmscope {

struct EllipseOverlay {
    QPointF mean;
    double cxx = 1, cxy = 0, cyy = 1;  // covariance
    double nSigma = 2;
    QColor color{255, 255, 255};
    Qt::PenStyle style = Qt::SolidLine;
    double width = 1.8;
    bool centre = true;  // mark the mean
};

struct LegendEntry {
    QColor color;
    Qt::PenStyle style = Qt::SolidLine;
    QString text;
};

class EllipseHeatmap : public HeatmapView {
    Q_OBJECT
public:
    explicit EllipseHeatmap(QWidget* parent = nullptr);
    void setEllipses(const QVector<EllipseOverlay>& ellipses);
    void setLegend(const QVector<LegendEntry>& entries);  // drawn right of the colour bar
    void setSpot(const QPointF& at, const QColor& color);
    void clearSpot();
    bool hasSpot() const { return hasSpot_; }
    QPointF spot() const { return spot_; }
    int ellipseCount() const { return static_cast<int>(ellipses_.size()); }
    const QVector<EllipseOverlay>& ellipses() const { return ellipses_; }

protected:
    void paintEvent(QPaintEvent* e) override;

private:
    QVector<EllipseOverlay> ellipses_;
    int legendWidth() const;
    void changeEvent(QEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    QVector<LegendEntry> legend_;
    bool hasSpot_ = false;
    QPointF spot_;
    QColor spotColor_;
};

// Points of the ellipse {mean + nSigma * L u : |u| = 1}, L L' = covariance, in model units.
QPolygonF ellipsePolygon(const EllipseOverlay& e, int points = 96);

}  // namespace rbmscope
