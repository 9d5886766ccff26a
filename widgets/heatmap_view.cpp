#include "heatmap_view.hpp"

#include <QMouseEvent>
#include <QPaintEngine>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

#include "colormap.hpp"

namespace rbmscope {

QVector<double> niceTicks(double lo, double hi, int target) {
    QVector<double> out;
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return out;
    const double raw = (hi - lo) / std::max(1, target);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    const double norm = raw / mag;
    const double step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
    for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step)
        out.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
    return out;
}

HeatmapView::HeatmapView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(false);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void HeatmapView::setImage(const QImage& image, const QRectF& domain, double vmin, double vmax,
                           const QString& scaleLabel, ColourScale scale) {
    image_ = image;
    domain_ = domain;
    vmin_ = vmin;
    vmax_ = vmax;
    scale_ = scale;
    scaleLabel_ = scale == ColourScale::Log && !scaleLabel.isEmpty() ? scaleLabel + tr(", log scale") : scaleLabel;
    update();
}
void HeatmapView::setTitle(const QString& title) {
    title_ = title;
    update();
}
void HeatmapView::setParticles(const QVector<QPointF>& points) {
    particles_ = points;
    update();
}
void HeatmapView::setMarkers(const QVector<QPointF>& modes) {
    markers_ = modes;
    update();
}
void HeatmapView::setArrows(const QPointF& origin, const QVector<QPointF>& vectors) {
    arrowOrigin_ = origin;
    arrows_ = vectors;
    update();
}
void HeatmapView::setCompact(bool on) {
    compact_ = on;
    update();
}
void HeatmapView::setParticleColor(const QColor& c) {
    particleColor_ = c;
    update();
}
void HeatmapView::setOverlayText(const QString& text) {
    overlayText_ = text;
    update();
}
void HeatmapView::setMessage(const QString& text) {
    message_ = text;
    update();
}
void HeatmapView::clearOverlays() {
    particles_.clear();
    markers_.clear();
    arrows_.clear();
    update();
}

QRect HeatmapView::overlayRect(QFont* fontOut) const {
    // Never cut (a small plot on a projector): a smaller font first, down to 0.6 of the
    // widget's, then wrapped at the plot's width.
    const QRect plot = plotRect();
    QFont f = font();
    const int room = std::max(1, plot.width() - 16);
    double size = f.pointSizeF() * (compact_ ? 0.8 : 0.9);
    f.setPointSizeF(size);
    const double smallest = font().pointSizeF() * 0.6;
    while (QFontMetrics(f).horizontalAdvance(overlayText_) > room && size > smallest) {
        size = std::max(smallest, size * 0.9);
        f.setPointSizeF(size);
    }
    if (fontOut) *fontOut = f;
    if (overlayText_.isEmpty()) return {};
    const QRect box =
        QFontMetrics(f)
            .boundingRect(QRect(0, 0, room, plot.height()), Qt::TextWordWrap | Qt::AlignLeft, overlayText_)
            .adjusted(-4, -2, 4, 2);
    return QRect(plot.left() + 4, plot.top() + 4, box.width(), box.height());
}

QRect HeatmapView::plotRect() const {
    // The margins hold the tick labels, the axis and colour-bar titles: they grow with the font
    // (presenter mode, Ctrl+=), from the sizes they have at a 15-pixel line.
    const double u = fontMetrics().height() / 15.0;
    const auto px = [u](int at15) { return static_cast<int>(std::lround(at15 * std::max(1.0, u))); };
    const int left = compact_ ? 3 : px(54), right = (compact_ ? 3 : px(86)) + rightReserve_;
    const int top = compact_ ? (title_.isEmpty() ? 3 : px(18)) : (title_.isEmpty() ? px(12) : px(30));
    const int bottom = compact_ ? 3 : px(40);
    QRect r(left, top, std::max(10, width() - left - right), std::max(10, height() - top - bottom));
    // Keep model units square so shapes (covariances, arrows) are not distorted.
    const double sx = r.width() / domain_.width(), sy = r.height() / domain_.height();
    const double s = std::min(sx, sy);
    const int w = int(domain_.width() * s), h = int(domain_.height() * s);
    return QRect(r.left() + (r.width() - w) / 2, r.top() + (r.height() - h) / 2, w, h);
}

QPointF HeatmapView::toWidget(const QPointF& m) const {
    const QRect p = plotRect();
    return {p.left() + (m.x() - domain_.left()) / domain_.width() * p.width(),
            p.bottom() + 1 - (m.y() - domain_.top()) / domain_.height() * p.height()};
}

QPointF HeatmapView::toModel(const QPointF& w) const {
    const QRect p = plotRect();
    return {domain_.left() + (w.x() - p.left()) / p.width() * domain_.width(),
            domain_.top() + (p.bottom() + 1 - w.y()) / p.height() * domain_.height()};
}

void HeatmapView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    p.setRenderHint(QPainter::Antialiasing, true);
    const QRect plot = plotRect();
    const QColor fg = palette().windowText().color();

    if (!title_.isEmpty()) {
        QFont f = font();
        f.setBold(!compact_);
        if (compact_) f.setPointSizeF(f.pointSizeF() * 0.9);
        p.setFont(f);
        p.setPen(fg);
        p.drawText(QRect(0, compact_ ? 1 : 4, width(), compact_ ? 16 : 22), Qt::AlignHCenter | Qt::AlignVCenter,
                   title_);
        p.setFont(font());
    }
    if (!message_.isEmpty()) {
        p.fillRect(plot, QColor(40, 40, 48));
        p.setPen(Qt::white);
        p.drawText(plot.adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap, message_);
    } else if (!image_.isNull()) {
        p.setRenderHint(QPainter::SmoothPixmapTransform, true);
        p.drawImage(plot, image_);
    } else {
        p.fillRect(plot, QColor(40, 40, 48));
        p.setPen(Qt::white);
        p.drawText(plot, Qt::AlignCenter, tr("computing…"));
    }
    p.setPen(QPen(fg, 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(plot.adjusted(0, 0, -1, -1));
    if (compact_) {
        paintOverlays(p, plot);
        return;
    }

    // Axes ticks in model units.
    const QFontMetrics fm(font());
    for (double t : niceTicks(domain_.left(), domain_.right())) {
        const double x = toWidget({t, domain_.top()}).x();
        p.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 5));
        const QString s = QString::number(t, 'g', 4);
        p.drawText(QPointF(x - fm.horizontalAdvance(s) / 2.0, plot.bottom() + 6 + fm.ascent()), s);
    }
    int widest = 0;
    for (double t : niceTicks(domain_.top(), domain_.bottom())) {
        const double y = toWidget({domain_.left(), t}).y();
        p.drawLine(QPointF(plot.left() - 5, y), QPointF(plot.left(), y));
        const QString s = QString::number(t, 'g', 4);
        widest = std::max(widest, fm.horizontalAdvance(s));
        p.drawText(QPointF(plot.left() - 8 - fm.horizontalAdvance(s), y + fm.ascent() / 2.0 - 1), s);
    }
    // Axis and colour-bar titles in rectangles of the font's height (a fixed 16-18 px cut them in half
    // at presenter sizes), under the tick labels.
    p.drawText(QRect(plot.left(), plot.bottom() + 6 + fm.height(), plot.width(), fm.height() + 2), Qt::AlignHCenter,
               QStringLiteral("v₁"));
    p.save();
    // The axis names sit next to their tick labels (the plot is centred in a wider widget).
    p.translate(std::max(12, plot.left() - 8 - widest - 10), plot.center().y());
    p.rotate(-90);
    p.drawText(QRect(-40, -fm.height() / 2, 80, fm.height() + 2), Qt::AlignHCenter, QStringLiteral("v₂"));
    p.restore();

    paintOverlays(p, plot);

    // Colour bar.
    const QRect bar(plot.right() + 18, plot.top(), 14, plot.height());
    QImage grad(1, 256, QImage::Format_RGB32);
    for (int i = 0; i < 256; ++i) grad.setPixel(0, 255 - i, viridisTable()[i]);
    p.drawImage(bar, grad);
    p.setPen(fg);
    p.drawRect(bar.adjusted(0, 0, -1, -1));
    int barWidest = 0;
    // Ticks: nice values on a linear scale; on a log scale vmax and each decade below it.
    std::vector<double> ticks, where;  // value, fraction of the bar from the bottom
    if (scale_ == ColourScale::Log && vmax_ > 0) {
        for (int k = 0; k <= static_cast<int>(kLogDecades); ++k) {
            ticks.push_back(vmax_ * std::pow(10.0, -k));
            where.push_back(1.0 - k / kLogDecades);
        }
    } else {
        for (double t : niceTicks(vmin_, vmax_, 5)) {
            ticks.push_back(t);
            where.push_back((t - vmin_) / (vmax_ - vmin_));
        }
    }
    for (std::size_t i = 0; i < ticks.size(); ++i) {
        const double t = ticks[i];
        const double y = bar.bottom() - where[i] * bar.height();
        p.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 4, y));
        const QString s = QString::number(t, 'g', 3);
        barWidest = std::max(barWidest, fm.horizontalAdvance(s));
        p.drawText(QPointF(bar.right() + 6, y + fm.ascent() / 2.0 - 1), s);
    }
    if (!scaleLabel_.isEmpty()) {
        p.save();
        p.translate(std::min(width() - 6 - rightReserve_, bar.right() + 6 + barWidest + 6 + fm.ascent()),
                    bar.center().y());
        p.rotate(-90);
        p.drawText(QRect(-bar.height() / 2, -fm.ascent(), bar.height(), fm.height() + 2), Qt::AlignHCenter,
                   fm.elidedText(scaleLabel_, Qt::ElideRight, bar.height()));
        p.restore();
    }
}

namespace {
// Whether a widget point can be handed to QPainter: the raster engine converts coordinates to
// int, and a particle or mode at 1e300 (a model of extreme numbers) crashed it. Nothing this far
// outside the plot is visible anyway.
bool paintable(const QPointF& w, const QRect& plot, double margin) {
    return std::isfinite(w.x()) && std::isfinite(w.y()) && w.x() > plot.left() - margin &&
           w.x() < plot.right() + margin && w.y() > plot.top() - margin && w.y() < plot.bottom() + margin;
}
}  // namespace

void HeatmapView::paintOverlays(QPainter& p, const QRect& plot) {
    p.save();
    p.setClipRect(plot);
    if (!particles_.isEmpty()) {
        // Small and translucent, so the density stays readable under a thousand points.
        const double r = compact_ || particles_.size() > 2000 ? 1.2 : 1.5;
        if (p.paintEngine() && p.paintEngine()->type() == QPaintEngine::SVG) {
            p.setPen(Qt::NoPen);
            p.setBrush(particleColor_);
            for (const auto& pt : particles_)
                if (const QPointF w = toWidget(pt); paintable(w, plot, 10)) p.drawEllipse(w, r, r);
        } else {
            // On screen: one pre-drawn dot blitted per particle (much cheaper than an
            // antialiased ellipse each, which matters at 30 frames a second).
            const int d = static_cast<int>(std::ceil(2 * r)) + 2;
            if (sprite_.isNull() || spriteColor_ != particleColor_ || spriteRadius_ != r) {
                sprite_ = QImage(d, d, QImage::Format_ARGB32_Premultiplied);
                sprite_.fill(Qt::transparent);
                QPainter sp(&sprite_);
                sp.setRenderHint(QPainter::Antialiasing, true);
                sp.setPen(Qt::NoPen);
                sp.setBrush(particleColor_);
                sp.drawEllipse(QPointF(d / 2.0, d / 2.0), r, r);
                spriteColor_ = particleColor_;
                spriteRadius_ = r;
            }
            for (const auto& pt : particles_)
                if (const QPointF w = toWidget(pt); paintable(w, plot, d))
                    p.drawImage(w - QPointF(d / 2.0, d / 2.0), sprite_);
        }
    }
    for (const auto& m : markers_) {
        const QPointF c = toWidget(m);
        if (!paintable(c, plot, 20)) continue;
        const double r = compact_ ? 3.5 : 6.0;
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(QColor(20, 20, 20, 200), 3.2));
        p.drawLine(c + QPointF(-r, 0), c + QPointF(r, 0));
        p.drawLine(c + QPointF(0, -r), c + QPointF(0, r));
        p.setPen(QPen(Qt::white, 1.6));
        p.drawLine(c + QPointF(-r, 0), c + QPointF(r, 0));
        p.drawLine(c + QPointF(0, -r), c + QPointF(0, r));
    }
    for (int i = 0; i < arrows_.size(); ++i) {
        const QPointF a = toWidget(arrowOrigin_), b = toWidget(arrowOrigin_ + arrows_[i]);
        if (!paintable(a, plot, 1e5) || !paintable(b, plot, 1e5)) continue;
        const QColor col = QColor::fromHsv((i * 97 + 20) % 360, 200, 255);
        p.setPen(QPen(col, 2.5));
        p.drawLine(a, b);
        const QPointF d = b - a;
        const double len = std::hypot(d.x(), d.y());
        if (len > 1) {
            const QPointF u = d / len, n(-u.y(), u.x());
            QPainterPath head;
            head.moveTo(b);
            head.lineTo(b - 12 * u + 5 * n);
            head.lineTo(b - 12 * u - 5 * n);
            head.closeSubpath();
            p.fillPath(head, col);
        }
        p.setPen(Qt::white);
        p.drawText(b + QPointF(6, -6), QStringLiteral("h%1").arg(i + 1));
    }
    if (!overlayText_.isEmpty()) {
        QFont f;
        const QRect at = overlayRect(&f);
        p.setFont(f);
        p.fillRect(at, QColor(0, 0, 0, 140));
        p.setPen(Qt::white);
        p.drawText(at.adjusted(4, 2, -4, -2), Qt::AlignLeft | Qt::TextWordWrap, overlayText_);
        p.setFont(font());
    }
    p.restore();
}

void HeatmapView::mousePressEvent(QMouseEvent* e) {
    dragging_ = -1;
    for (int i = 0; i < arrows_.size(); ++i) {
        const QPointF tip = toWidget(arrowOrigin_ + arrows_[i]);
        if (QLineF(tip, e->position()).length() < 12) dragging_ = i;
    }
    if (dragging_ < 0) QWidget::mousePressEvent(e);
}

void HeatmapView::mouseMoveEvent(QMouseEvent* e) {
    if (dragging_ < 0) return QWidget::mouseMoveEvent(e);
    const QPointF m = toModel(e->position());
    arrows_[dragging_] = m - arrowOrigin_;
    update();
    Q_EMIT arrowDragged(dragging_, m);
}

void HeatmapView::mouseReleaseEvent(QMouseEvent* e) {
    if (dragging_ >= 0) Q_EMIT arrowDragFinished(dragging_);
    dragging_ = -1;
    QWidget::mouseReleaseEvent(e);
}

}  // namespace rbmscope
