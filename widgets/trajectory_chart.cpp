#include "trajectory_chart.hpp"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

namespace rbmscope {

QColor replicaColor(int i, int n) {
    // Golden-angle hue steps keep neighbouring replicas apart even for many replicas.
    const int hue = static_cast<int>(std::fmod(i * 137.508, 360.0));
    const int sat = n > 12 ? 150 : 200;
    return QColor::fromHsv(hue, sat, 200);
}

TrajectoryChart::TrajectoryChart(QWidget* parent) : QWidget(parent) {
    setAttribute(Qt::WA_OpaquePaintEvent);
    setToolTip(
        tr("Each line is one replica (a state travelling along the ladder): its rung over the last scans. "
           "Top: β = 1 (the target); bottom: the reference."));
}

void TrajectoryChart::setIndexProcess(const std::vector<std::uint16_t>& replicaAt, int rungs, long long firstScan) {
    rungs_ = std::max(0, rungs);
    scans_ = rungs_ > 0 ? static_cast<int>(replicaAt.size() / static_cast<std::size_t>(rungs_)) : 0;
    data_ = replicaAt;
    firstScan_ = firstScan;
    message_.clear();
    update();
    Q_EMIT updated();
}

void TrajectoryChart::setHighlight(int replica) {
    highlight_ = replica;
    update();
}

void TrajectoryChart::setBetas(const std::vector<double>& betas) {
    betas_ = betas;
    update();
}

void TrajectoryChart::setMessage(const QString& text) {
    message_ = text;
    update();
}

void TrajectoryChart::clear() {
    data_.clear();
    scans_ = 0;
    update();
}

std::vector<int> TrajectoryChart::trajectory(int replica) const {
    std::vector<int> out(static_cast<std::size_t>(scans_), -1);
    for (int s = 0; s < scans_; ++s)
        for (int k = 0; k < rungs_; ++k)
            if (data_[static_cast<std::size_t>(s * rungs_ + k)] == replica) out[static_cast<std::size_t>(s)] = k;
    return out;
}

void TrajectoryChart::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    p.setRenderHint(QPainter::Antialiasing, true);
    const QFontMetrics fm(font());
    const int left = fm.horizontalAdvance(QStringLiteral("rung 00")) + 10;
    const int right = betas_.empty() ? 10 : fm.horizontalAdvance(QStringLiteral("β=0.000")) + 10;
    const QRect plot = rect().adjusted(left, 8, -right, -(fm.height() + 10));
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(plot);
    if (!message_.isEmpty() || scans_ == 0 || rungs_ < 2) {
        p.setPen(palette().color(QPalette::Text));
        p.drawText(plot, Qt::AlignCenter | Qt::TextWordWrap,
                   message_.isEmpty() ? tr("Press Run to see the replicas travel along the ladder") : message_);
        return;
    }
    const auto xOf = [&](int s) { return plot.left() + (scans_ > 1 ? plot.width() * double(s) / (scans_ - 1) : 0.0); };
    const auto yOf = [&](int k) { return plot.bottom() - plot.height() * double(k) / (rungs_ - 1); };

    // Rung grid and labels (thinned when there are many rungs).
    const int labelStep = std::max(1, (rungs_ * (fm.height() + 2)) / std::max(1, plot.height()) + 1);
    for (int k = 0; k < rungs_; ++k) {
        const double y = yOf(k);
        p.setPen(QPen(palette().color(QPalette::Midlight), 1, Qt::DotLine));
        p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        if (k % labelStep != 0 && k != rungs_ - 1) continue;
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRectF(0, y - fm.height() / 2.0, left - 6, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
                   QStringLiteral("rung %1").arg(k));
        if (k < static_cast<int>(betas_.size()))
            p.drawText(QRectF(plot.right() + 4, y - fm.height() / 2.0, right - 4, fm.height()),
                       Qt::AlignLeft | Qt::AlignVCenter,
                       QStringLiteral("β=%1").arg(betas_[static_cast<std::size_t>(k)], 0, 'f', 3));
    }
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRect(plot.left(), plot.bottom() + 4, plot.width(), fm.height()), Qt::AlignLeft,
               tr("scan %1").arg(firstScan_));
    p.drawText(QRect(plot.left(), plot.bottom() + 4, plot.width(), fm.height()), Qt::AlignRight,
               tr("scan %1").arg(lastScan()));

    // rungOf[replica] per scan, built in one pass over the records.
    std::vector<QPolygonF> lines(static_cast<std::size_t>(rungs_));
    for (auto& l : lines) l.reserve(scans_);
    for (int s = 0; s < scans_; ++s)
        for (int k = 0; k < rungs_; ++k) {
            const int r = data_[static_cast<std::size_t>(s * rungs_ + k)];
            if (r < rungs_) lines[static_cast<std::size_t>(r)].append(QPointF(xOf(s), yOf(k)));
        }
    const bool dim = highlight_ >= 0 && highlight_ < rungs_;
    const double width = rungs_ > 24 ? 1.0 : 1.6;
    for (int r = 0; r < rungs_; ++r) {
        if (r == highlight_) continue;
        QColor c = replicaColor(r, rungs_);
        if (dim) c.setAlpha(110);
        p.setPen(QPen(c, width));
        p.drawPolyline(lines[static_cast<std::size_t>(r)]);
    }
    if (dim) {
        p.setPen(QPen(palette().color(QPalette::Text), 3.2));
        p.drawPolyline(lines[static_cast<std::size_t>(highlight_)]);
        p.setPen(QPen(QColor(230, 60, 40), 2.0));
        p.drawPolyline(lines[static_cast<std::size_t>(highlight_)]);
        const QString note = tr("thick red: replica %1").arg(highlight_);
        const QRect box(plot.left() + 6, plot.top() + 4, fm.horizontalAdvance(note) + 10, fm.height() + 4);
        p.fillRect(box, QColor(255, 255, 255, 220));
        p.setPen(QColor(200, 40, 30));
        p.drawText(box, Qt::AlignCenter, note);
    }
}

}  // namespace rbmscope
