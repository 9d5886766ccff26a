#include "ladder_plot.hpp"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

namespace rbmscope {
namespace {
constexpr double kMinGap = 1e-3;  // dragged rungs keep at least this distance from their neighbours
}

LadderPlot::LadderPlot(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setToolTip(
        tr("Bars: swap acceptance of each pair of neighbouring rungs. Curve: local barrier λ(β). "
           "Ticks: the rungs (drag them when the ladder is not adaptive)."));
}

void LadderPlot::setLadder(const std::vector<double>& betas) {
    if (dragging_ >= 0) return;  // the user is holding a rung
    betas_ = betas;
    acceptance_.clear();
    curveBeta_.clear();
    curveLambda_.clear();
    update();
}

void LadderPlot::setAcceptance(const std::vector<double>& acceptance) {
    acceptance_ = acceptance;
    update();
}

void LadderPlot::setBarrierCurve(const std::vector<double>& betas, const std::vector<double>& lambda) {
    curveBeta_ = betas;
    curveLambda_ = lambda;
    update();
}

void LadderPlot::setEditable(bool on) {
    editable_ = on;
    dragging_ = -1;
    setCursor(on ? Qt::SizeHorCursor : Qt::ArrowCursor);
    update();
}

QRect LadderPlot::plotRect() const {
    const QFontMetrics fm(font());
    return rect().adjusted(fm.horizontalAdvance(QStringLiteral("0.00")) + 14, fm.height() + 8,
                           -(fm.horizontalAdvance(QStringLiteral("λ 00.0")) + 10), -(2 * fm.height() + 14));
}

double LadderPlot::xOf(double beta) const {
    const QRect r = plotRect();
    return r.left() + r.width() * std::clamp(beta, 0.0, 1.0);
}

double LadderPlot::betaAt(double x) const {
    const QRect r = plotRect();
    return std::clamp((x - r.left()) / std::max(1, r.width()), 0.0, 1.0);
}

void LadderPlot::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    p.setRenderHint(QPainter::Antialiasing, true);
    const QFontMetrics fm(font());
    const QRect plot = plotRect();
    const QColor text = palette().color(QPalette::Text);
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(plot);
    const auto yAcc = [&](double a) { return plot.bottom() - plot.height() * std::clamp(a, 0.0, 1.0); };

    // Left axis: acceptance 0..1.
    p.setPen(text);
    for (double a : {0.0, 0.5, 1.0}) {
        const double y = yAcc(a);
        p.drawText(QRectF(0, y - fm.height() / 2.0, plot.left() - 4, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
                   QString::number(a, 'f', 1));
    }
    p.drawText(QRect(plot.left(), 2, plot.width(), fm.height()), Qt::AlignLeft, tr("swap acceptance per pair (bars)"));
    p.setPen(QColor(200, 90, 30));
    p.drawText(QRect(plot.left(), 2, plot.width(), fm.height()), Qt::AlignRight, tr("local barrier λ(β) (curve)"));

    // Bars over each pair's beta interval.
    const std::size_t pairs = betas_.size() > 1 ? betas_.size() - 1 : 0;
    for (std::size_t k = 0; k < std::min(pairs, acceptance_.size()); ++k) {
        const double x0 = xOf(betas_[k]) + 1, x1 = xOf(betas_[k + 1]) - 1;
        const double y = yAcc(acceptance_[k]);
        p.fillRect(QRectF(x0, y, std::max(1.0, x1 - x0), plot.bottom() - y), QColor(70, 130, 200, 170));
    }

    // Local barrier curve, scaled to its maximum.
    if (curveBeta_.size() >= 2 && curveBeta_.size() == curveLambda_.size()) {
        const double top = std::max(1e-12, *std::max_element(curveLambda_.begin(), curveLambda_.end()));
        QPolygonF poly;
        for (std::size_t i = 0; i < curveBeta_.size(); ++i)
            poly.append(QPointF(xOf(curveBeta_[i]), plot.bottom() - plot.height() * 0.95 * curveLambda_[i] / top));
        p.setPen(QPen(QColor(200, 90, 30), 2));
        p.drawPolyline(poly);
        p.drawText(QRectF(plot.right() + 4, plot.bottom() - plot.height() * 0.95 - fm.height() / 2.0, 200, fm.height()),
                   Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("λ %1").arg(top, 0, 'f', 2));
        p.drawText(QRectF(plot.right() + 4, plot.bottom() - fm.height() / 2.0, 200, fm.height()),
                   Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("0"));
    }

    // Rungs.
    for (std::size_t k = 0; k < betas_.size(); ++k) {
        const double x = xOf(betas_[k]);
        const bool fixed = k == 0 || k + 1 == betas_.size();
        const QColor c = static_cast<int>(k) == dragging_ ? QColor(230, 60, 40) : text;
        p.setPen(QPen(c, fixed || !editable_ ? 1.5 : 2.5));
        p.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 7));
        if (editable_ && !fixed) {
            p.setBrush(c);
            p.drawEllipse(QPointF(x, plot.bottom() + 7), 3.5, 3.5);
            p.setBrush(Qt::NoBrush);
        }
    }
    p.setPen(text);
    for (double b : {0.0, 0.25, 0.5, 0.75, 1.0})
        p.drawText(QRectF(xOf(b) - 30, plot.bottom() + 10, 60, fm.height()), Qt::AlignHCenter, QString::number(b));
    p.drawText(QRect(plot.left(), plot.bottom() + 10 + fm.height(), plot.width(), fm.height()), Qt::AlignHCenter,
               editable_ ? tr("β (ticks: rungs; drag one to move it and restart)") : tr("β (ticks: rungs)"));
}

void LadderPlot::mousePressEvent(QMouseEvent* e) {
    if (!editable_ || betas_.size() < 3) return;
    int best = -1;
    double dist = 8;
    for (std::size_t k = 1; k + 1 < betas_.size(); ++k) {
        const double d = std::abs(xOf(betas_[k]) - e->position().x());
        if (d < dist) {
            dist = d;
            best = static_cast<int>(k);
        }
    }
    dragging_ = best;
    update();
}

void LadderPlot::mouseMoveEvent(QMouseEvent* e) {
    if (dragging_ < 0) return;
    const auto k = static_cast<std::size_t>(dragging_);
    const double lo = betas_[k - 1] + kMinGap, hi = betas_[k + 1] - kMinGap;
    if (lo < hi) betas_[k] = std::max(lo, std::min(betaAt(e->position().x()), hi));
    acceptance_.clear();
    curveBeta_.clear();
    curveLambda_.clear();
    update();
}

void LadderPlot::mouseReleaseEvent(QMouseEvent*) {
    if (dragging_ < 0) return;
    dragging_ = -1;
    update();
    Q_EMIT ladderEdited(betas_);
}

}  // namespace rbmscope
