#include "error_bar_chart.hpp"

#include <QChart>
#include <cmath>

namespace rbmscope {

ErrorBarChartView::ErrorBarChartView(QChart* chart, QWidget* parent) : QChartView(chart, parent) {
    setRenderHint(QPainter::Antialiasing, true);
    // Foreground items must be repainted whenever the chart changes.
    setCacheMode(QGraphicsView::CacheNone);
}

void ErrorBarChartView::setErrorBars(QXYSeries* series, std::vector<ErrorInterval> bars) {
    for (auto& b : bars_)
        if (b.series == series) {
            b.bars = std::move(bars);
            viewport()->update();
            return;
        }
    bars_.push_back({series, std::move(bars)});
    viewport()->update();
}

void ErrorBarChartView::clearErrorBars() {
    bars_.clear();
    viewport()->update();
}

std::size_t ErrorBarChartView::barCount() const {
    std::size_t n = 0;
    for (const auto& b : bars_) n += b.series ? b.bars.size() : 0;
    return n;
}

void ErrorBarChartView::drawForeground(QPainter* painter, const QRectF& rect) {
    QChartView::drawForeground(painter, rect);
    QChart* c = chart();
    if (!c) return;
    const QRectF area = c->mapToScene(c->plotArea()).boundingRect();
    painter->save();
    painter->setClipRect(area);
    painter->setRenderHint(QPainter::Antialiasing, true);
    for (const auto& b : bars_) {
        if (!b.series || !b.series->isVisible()) continue;
        QColor col = b.series->color();
        const QList<QPointF> pts = b.series->points();
        const std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(pts.size()), b.bars.size());
        for (std::size_t i = 0; i < n; ++i) {
            const double x = pts[static_cast<qsizetype>(i)].x();
            const ErrorInterval& e = b.bars[i];
            if (!std::isfinite(e.high)) continue;
            const QPointF top = c->mapToScene(c->mapToPosition(QPointF(x, e.high), b.series));
            const bool open = !std::isfinite(e.low);
            QPointF bottom =
                open ? QPointF(top.x(), area.bottom()) : c->mapToScene(c->mapToPosition(QPointF(x, e.low), b.series));
            painter->setPen(QPen(col, 1.6, open ? Qt::DashLine : Qt::SolidLine));
            painter->drawLine(top, bottom);
            painter->setPen(QPen(col, 1.6));
            painter->drawLine(top + QPointF(-4, 0), top + QPointF(4, 0));
            if (!open) painter->drawLine(bottom + QPointF(-4, 0), bottom + QPointF(4, 0));
        }
    }
    painter->restore();
}

}  // namespace rbmscope
