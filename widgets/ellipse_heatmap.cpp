#include "ellipse_heatmap.hpp"

#include <QPainter>
#include <QResizeEvent>
#include <algorithm>
#include <cmath>

namespace rbmscope {

QPolygonF ellipsePolygon(const EllipseOverlay& e, int points) {
    // Principal axes of the 2x2 covariance: angle 0.5 atan2(2 cxy, cxx - cyy), variances l1 >= l2.
    const double half = (e.cxx + e.cyy) / 2, diff = (e.cxx - e.cyy) / 2;
    const double root = std::sqrt(diff * diff + e.cxy * e.cxy);
    const double l1 = std::max(0.0, half + root), l2 = std::max(0.0, half - root);
    const double theta = 0.5 * std::atan2(2 * e.cxy, e.cxx - e.cyy);
    const double a = e.nSigma * std::sqrt(l1), b = e.nSigma * std::sqrt(l2);
    const double ct = std::cos(theta), st = std::sin(theta);
    QPolygonF poly;
    poly.reserve(points + 1);
    for (int i = 0; i <= points; ++i) {
        const double t = 2 * M_PI * i / points;
        const double u = a * std::cos(t), v = b * std::sin(t);
        poly.append(QPointF(e.mean.x() + ct * u - st * v, e.mean.y() + st * u + ct * v));
    }
    return poly;
}

EllipseHeatmap::EllipseHeatmap(QWidget* parent) : HeatmapView(parent) {}

void EllipseHeatmap::setEllipses(const QVector<EllipseOverlay>& ellipses) {
    ellipses_ = ellipses;
    update();
}

void EllipseHeatmap::setLegend(const QVector<LegendEntry>& entries) {
    legend_ = entries;
    setRightReserve(legendWidth());
}

// The legend's column right of the colour bar, never over the data: its widest entry, at most
// 35 % of the widget (longer entries are elided).
int EllipseHeatmap::legendWidth() const {
    if (legend_.isEmpty()) return 0;
    const QFontMetrics fm(font());
    int w = 0;
    for (const auto& l : legend_) w = std::max(w, fm.horizontalAdvance(l.text));
    return std::min(w + 48, static_cast<int>(0.35 * width()));
}

void EllipseHeatmap::changeEvent(QEvent* e) {
    if (e->type() == QEvent::FontChange) setRightReserve(legendWidth());
    HeatmapView::changeEvent(e);
}

void EllipseHeatmap::resizeEvent(QResizeEvent* e) {
    setRightReserve(legendWidth());
    HeatmapView::resizeEvent(e);
}

void EllipseHeatmap::setSpot(const QPointF& at, const QColor& color) {
    hasSpot_ = true;
    spot_ = at;
    spotColor_ = color;
    update();
}

void EllipseHeatmap::clearSpot() {
    hasSpot_ = false;
    update();
}

namespace {
// QPainter's raster engine converts to int: points of a model with extreme numbers (1e300) crash
// it. Such points are far off the plot; they are not drawn.
bool paintable(const QPointF& w, const QRect& plot) {
    constexpr double margin = 1e5;
    return std::isfinite(w.x()) && std::isfinite(w.y()) && std::fabs(w.x() - plot.center().x()) < margin &&
           std::fabs(w.y() - plot.center().y()) < margin;
}
}  // namespace

void EllipseHeatmap::paintEvent(QPaintEvent* e) {
    HeatmapView::paintEvent(e);
    if (image().isNull()) return;
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, true);
    const QRect plot = plotRect();
    p.setClipRect(plot);
    if (hasSpot_) {
        p.setPen(QPen(QColor(255, 255, 255), 1.5));
        p.setBrush(spotColor_);
        if (const QPointF w = toWidget(spot_); paintable(w, plot)) p.drawEllipse(w, 5.0, 5.0);
    }
    for (const EllipseOverlay& el : ellipses_) {
        QPolygonF poly = ellipsePolygon(el);
        bool ok = true;
        for (QPointF& q : poly) ok = paintable(q = toWidget(q), plot) && ok;
        if (!ok) continue;
        p.setPen(QPen(el.color, el.width, el.style));
        p.setBrush(Qt::NoBrush);
        p.drawPolyline(poly);
        if (el.centre) {
            const QPointF c = toWidget(el.mean);
            p.setPen(QPen(el.color, 2));
            p.drawLine(c - QPointF(4, 0), c + QPointF(4, 0));
            p.drawLine(c - QPointF(0, 4), c + QPointF(0, 4));
        }
    }
    if (legend_.isEmpty()) return;
    p.setClipping(false);  // the legend is outside the plot
    const QFontMetrics fm(font());
    int w = 0;
    for (const auto& l : legend_) w = std::max(w, fm.horizontalAdvance(l.text));
    const int rowH = fm.height() + 2;
    const int boxW = legendWidth() - 8;
    const int boxH = rowH * static_cast<int>(legend_.size()) + 6;
    const QRect box(width() - 4 - boxW, std::max(2, plot.center().y() - boxH / 2), boxW, boxH);
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(0, 0, 0, 170));
    p.drawRoundedRect(box, 4, 4);
    for (int i = 0; i < legend_.size(); ++i) {
        const int y = box.top() + 3 + i * rowH + rowH / 2;
        p.setPen(QPen(legend_[i].color, 2, legend_[i].style));
        p.drawLine(box.left() + 6, y, box.left() + 30, y);
        p.setPen(Qt::white);
        p.drawText(QRect(box.left() + 36, y - rowH / 2, box.width() - 40, rowH), Qt::AlignVCenter | Qt::AlignLeft,
                   fm.elidedText(legend_[i].text, Qt::ElideRight, box.width() - 40));
    }
}

}  // namespace rbmscope
