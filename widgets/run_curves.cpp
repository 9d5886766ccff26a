#include "run_curves.hpp"

#include <QAreaSeries>
#include <QChart>
#include <QFontMetricsF>
#include <QGraphicsSimpleTextItem>
#include <QLegendMarker>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>

namespace rbmscope {
namespace {

// Ticks at round values (1, 2 or 5 times a power of ten, about five of them) without widening the range.
void niceTicks(QValueAxis* axis, double lo, double hi) {
    const double raw = (hi - lo) / 5;
    if (!(raw > 0) || !std::isfinite(raw)) return;
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    const double step = raw / p < 1.5 ? p : raw / p < 3.5 ? 2 * p : raw / p < 7.5 ? 5 * p : 10 * p;
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(0.0);
    axis->setTickInterval(step);
    // As many decimals as the step needs, so neighbouring ticks never print alike ("-11.1" x 5).
    const int decimals = std::max(0, static_cast<int>(std::ceil(-std::log10(step) - 1e-9)));
    axis->setLabelFormat(QStringLiteral("%.%1f").arg(decimals));
}

}  // namespace

RunCurves::RunCurves(QWidget* parent) : QChartView(parent) {
    auto* c = new QChart;
    c->legend()->setAlignment(Qt::AlignBottom);
    c->setMargins(QMargins(4, 4, 4, 4));
    auto* x = new QValueAxis;
    auto* y = new QValueAxis;
    x->setLabelFormat(QStringLiteral("%g"));
    y->setLabelFormat(QStringLiteral("%.3g"));
    // Whole value labels: in a short chart (presenter mode at 1280 x 720) Qt elided every
    // log-likelihood label to "..." while the values fit beside the axis. (The x labels stay as
    // Qt lays them out: side by side, whole ones would overlap in a narrow chart.)
    y->setTruncateLabels(false);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    setChart(c);
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(220, 160);
    empty_ = new QGraphicsSimpleTextItem(c);
    empty_->setBrush(palette().color(QPalette::Text));
}

void RunCurves::setTitles(const QString& title, const QString& xTitle, const QString& yTitle) {
    chart()->setTitle(title);
    chart()->axes(Qt::Horizontal).front()->setTitleText(xTitle);
    chart()->axes(Qt::Vertical).front()->setTitleText(yTitle);
    fitYTitle();
}

void RunCurves::setEmptyText(const QString& text) {
    emptyText_ = text;
    rescale();
}

void RunCurves::setCurve(int key, const QString& name, const QColor& color, const std::vector<QPointF>& points,
                         const std::vector<double>& low, const std::vector<double>& high) {
    Curve& c = curves_[key];
    const bool withBand = !low.empty() && low.size() == points.size() && high.size() == points.size();
    QAbstractAxis* ax = chart()->axes(Qt::Horizontal).front();
    QAbstractAxis* ay = chart()->axes(Qt::Vertical).front();
    if (withBand && !c.band) {
        c.lowLine = new QLineSeries(this);
        c.highLine = new QLineSeries(this);
        auto* area = new QAreaSeries(c.highLine, c.lowLine);
        QColor fill = color;
        fill.setAlpha(60);
        area->setBrush(fill);
        area->setPen(Qt::NoPen);
        chart()->addSeries(area);
        area->attachAxis(ax);
        area->attachAxis(ay);
        for (QLegendMarker* m : chart()->legend()->markers(area)) m->setVisible(false);
        c.band = area;
        if (c.line) {  // keep the line on top of its band
            chart()->removeSeries(c.line);
            chart()->addSeries(c.line);
            c.line->attachAxis(ax);
            c.line->attachAxis(ay);
        }
    }
    if (!c.line) {
        c.line = new QLineSeries;
        chart()->addSeries(c.line);
        c.line->attachAxis(ax);
        c.line->attachAxis(ay);
        c.line->setPointsVisible(true);
        connect(c.line, &QLineSeries::hovered, this, [this, key](const QPointF& p, bool on) { hovered(key, p, on); });
    }
    c.line->setName(name);
    QPen pen(color);
    pen.setWidthF(2.0);
    c.line->setPen(pen);
    c.line->setMarkerSize(5);
    c.line->replace(QList<QPointF>(points.begin(), points.end()));
    c.low = withBand ? low : std::vector<double>{};
    c.high = withBand ? high : std::vector<double>{};
    if (c.band) {
        QList<QPointF> lo, hi;
        for (std::size_t i = 0; i < c.low.size(); ++i) {
            lo.append(QPointF(points[i].x(), c.low[i]));
            hi.append(QPointF(points[i].x(), c.high[i]));
        }
        c.lowLine->replace(lo);
        c.highLine->replace(hi);
    }
    rescale();
}

void RunCurves::removeCurve(int key) {
    auto it = curves_.find(key);
    if (it == curves_.end()) return;
    if (it->second.band) {
        chart()->removeSeries(it->second.band);
        delete it->second.band;
    }
    chart()->removeSeries(it->second.line);
    delete it->second.line;
    curves_.erase(it);
    rescale();
}

void RunCurves::clearCurves() {
    while (!curves_.empty()) removeCurve(curves_.begin()->first);
}

QLineSeries* RunCurves::series(int key) const {
    const auto it = curves_.find(key);
    return it == curves_.end() ? nullptr : it->second.line;
}

QString RunCurves::curveName(int key) const {
    const QLineSeries* s = series(key);
    return s ? s->name() : QString();
}

std::vector<int> RunCurves::keys() const {
    std::vector<int> out;
    for (const auto& [k, c] : curves_) out.push_back(k);
    return out;
}

void RunCurves::rescale() {
    double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
    for (const auto& [k, c] : curves_) {
        const auto pts = c.line->points();
        for (qsizetype i = 0; i < pts.size(); ++i) {
            const QPointF& p = pts[i];
            if (!std::isfinite(p.y())) continue;
            x0 = std::min(x0, p.x());
            x1 = std::max(x1, p.x());
            y0 = std::min(y0, p.y());
            y1 = std::max(y1, p.y());
            if (static_cast<std::size_t>(i) < c.low.size() && std::isfinite(c.low[static_cast<std::size_t>(i)]) &&
                std::isfinite(c.high[static_cast<std::size_t>(i)])) {
                y0 = std::min(y0, c.low[static_cast<std::size_t>(i)]);
                y1 = std::max(y1, c.high[static_cast<std::size_t>(i)]);
            }
        }
    }
    auto* ax = static_cast<QValueAxis*>(chart()->axes(Qt::Horizontal).front());
    auto* ay = static_cast<QValueAxis*>(chart()->axes(Qt::Vertical).front());
    const bool any = std::isfinite(x0);
    if (any) {
        if (x1 <= x0) x1 = x0 + 1;
        const double pad = y1 > y0 ? 0.05 * (y1 - y0) : std::max(1e-3, 0.05 * std::fabs(y0));
        // Fixed ticks while the range changes: dynamic ticks at the old interval over a much wider
        // new range would lay out millions of labels.
        ax->setTickType(QValueAxis::TicksFixed);
        ay->setTickType(QValueAxis::TicksFixed);
        ax->setRange(x0, x1);
        niceTicks(ax, x0, x1);
        ay->setRange(y0 - pad, y1 + pad);
        niceTicks(ay, y0 - pad, y1 + pad);
    }
    empty_->setText(any ? QString() : emptyText_);
    placeEmptyText();
    fitYTitle();  // fonts change without a resize (presenter mode)
}

QStringList RunCurves::tickLabels(Qt::Orientation o) const {
    const auto* axis = static_cast<const QValueAxis*>(chart()->axes(o).front());
    QStringList out;
    const double step = axis->tickInterval();
    if (axis->tickType() != QValueAxis::TicksDynamic || !(step > 0)) return out;
    const QByteArray format = axis->labelFormat().toLatin1();
    for (double v = std::ceil((axis->min() - axis->tickAnchor()) / step) * step + axis->tickAnchor();
         v <= axis->max() + 1e-12; v += step)
        out << QString::asprintf(format.constData(), v);
    return out;
}

void RunCurves::placeEmptyText() {
    const QRectF area = chart()->plotArea();
    empty_->setPos(area.center() - QPointF(empty_->boundingRect().width() / 2, empty_->boundingRect().height() / 2));
}

void RunCurves::resizeEvent(QResizeEvent* event) {
    QChartView::resizeEvent(event);
    placeEmptyText();  // the plot area is known only once the chart is laid out
    fitYTitle();
}

// The y title runs along the plot's height; where that is shorter than the title (a short chart
// in presenter mode at 1280 x 720), Qt printed "log-likel…". No title then: the chart's own title
// or tab names the quantity, and a clipped word reads as a fault on a projector.
void RunCurves::fitYTitle() {
    QAbstractAxis* ay = chart()->axes(Qt::Vertical).front();
    const qreal need = QFontMetricsF(ay->titleFont()).horizontalAdvance(ay->titleText());
    ay->setTitleVisible(need <= chart()->plotArea().height());
}

bool RunCurves::yTitleShown() const { return chart()->axes(Qt::Vertical).front()->isTitleVisible(); }

void RunCurves::hovered(int key, const QPointF& point, bool state) {
    if (!state) {
        QToolTip::hideText();
        return;
    }
    const auto it = curves_.find(key);
    if (it == curves_.end()) return;
    const Curve& c = it->second;
    QString text = QStringLiteral("%1\nx = %2, y = %3").arg(c.line->name()).arg(point.x()).arg(point.y(), 0, 'g', 6);
    const auto pts = c.line->points();
    qsizetype best = -1;
    double bestD = std::numeric_limits<double>::infinity();
    for (qsizetype i = 0; i < pts.size(); ++i)
        if (const double d = std::fabs(pts[i].x() - point.x()); d < bestD) {
            bestD = d;
            best = i;
        }
    if (best >= 0 && static_cast<std::size_t>(best) < c.low.size())
        text += QStringLiteral("\ninterval [%1, %2]")
                    .arg(c.low[static_cast<std::size_t>(best)], 0, 'g', 6)
                    .arg(c.high[static_cast<std::size_t>(best)], 0, 'g', 6);
    QToolTip::showText(QCursor::pos(), text, this);
}

}  // namespace rbmscope
