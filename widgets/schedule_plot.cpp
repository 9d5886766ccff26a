#include "schedule_plot.hpp"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>

namespace rbmscope {

SchedulePlot::SchedulePlot(QWidget* parent) : QWidget(parent) {}

void SchedulePlot::setSchedule(const std::vector<double>& betas) {
    betas_ = betas;
    message_.clear();
    update();
}

void SchedulePlot::setMessage(const QString& message) {
    betas_.clear();
    message_ = message;
    update();
}

void SchedulePlot::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, true);
    const QColor fg = palette().windowText().color();
    const QFontMetrics fm(font());
    const QRectF plot(fm.horizontalAdvance(QStringLiteral("0.5")) + 10, 6,
                      width() - fm.horizontalAdvance(QStringLiteral("0.5")) - 18, height() - fm.height() - 14);
    p.fillRect(plot, palette().base());
    p.setPen(QPen(fg, 1));
    p.drawRect(plot);
    // beta axis: 0, 0.5, 1
    for (double t : {0.0, 0.5, 1.0}) {
        const double y = plot.bottom() - t * plot.height();
        p.setPen(QPen(QColor(128, 128, 128, 60), 1));
        p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        p.setPen(fg);
        const QString s = QString::number(t);
        p.drawText(QPointF(plot.left() - 4 - fm.horizontalAdvance(s), y + fm.ascent() / 2.0 - 1), s);
    }
    if (betas_.size() < 2) {
        p.setPen(fg);
        p.drawText(plot.adjusted(4, 4, -4, -4), Qt::AlignCenter | Qt::TextWordWrap,
                   message_.isEmpty() ? tr("no schedule") : message_);
        return;
    }
    const double k = static_cast<double>(betas_.size() - 1);
    p.drawText(QRectF(plot.left(), plot.bottom() + 2, plot.width(), fm.height() + 4), Qt::AlignLeft,
               QStringLiteral("0"));
    p.drawText(QRectF(plot.left(), plot.bottom() + 2, plot.width(), fm.height() + 4), Qt::AlignRight,
               QStringLiteral("K = %1").arg(betas_.size() - 1));
    p.drawText(QRectF(plot.left(), plot.bottom() + 2, plot.width(), fm.height() + 4), Qt::AlignHCenter,
               tr("step k → β_k"));
    // At most ~2 points per pixel column: long schedules are drawn from a strided subset
    // (always including both ends).
    const std::size_t stride =
        std::max<std::size_t>(1, betas_.size() / static_cast<std::size_t>(std::max(1.0, 2 * plot.width())));
    QPainterPath path;
    for (std::size_t i = 0; i < betas_.size(); i += stride) {
        const QPointF pt(plot.left() + static_cast<double>(i) / k * plot.width(),
                         plot.bottom() - betas_[i] * plot.height());
        if (i == 0) path.moveTo(pt);
        else path.lineTo(pt);
    }
    path.lineTo(plot.right(), plot.bottom() - betas_.back() * plot.height());
    p.setPen(QPen(QColor(31, 119, 180), 2));
    p.drawPath(path);
    if (betas_.size() <= 60) {
        p.setBrush(QColor(31, 119, 180));
        p.setPen(Qt::NoPen);
        for (std::size_t i = 0; i < betas_.size(); ++i)
            p.drawEllipse(QPointF(plot.left() + static_cast<double>(i) / k * plot.width(),
                                  plot.bottom() - betas_[i] * plot.height()),
                          2.0, 2.0);
    }
}

}  // namespace rbmscope
