#include "main_window/presenter_overlay.hpp"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

namespace rbmscope {

namespace {
// Sizes relative to the window's font, which presenter mode already scales (Ctrl+= / Ctrl+−):
// at the default ×1.5 the state is about 4 % of a 1080-pixel screen's height.
constexpr double kBig = 2.2;  // the view's name and the state
constexpr double kRow = 1.5;  // buttons, units, speed

int pad(const QFontMetrics& row) { return row.height() / 2; }
int row1Height(const QFontMetrics& big) { return big.height() + big.height() / 5; }
int row2Height(const QFontMetrics& row) { return row.height() * 8 / 5; }

void drawGlyph(QPainter& p, const QString& name, bool held, QRectF g) {
    QPainterPath path;
    const double s = g.height();
    if (name == QLatin1String("run") || (name == QLatin1String("pause") && held)) {
        path.moveTo(g.left(), g.top());
        path.lineTo(g.left() + 0.9 * s, g.center().y());
        path.lineTo(g.left(), g.bottom());
        path.closeSubpath();
    } else if (name == QLatin1String("pause")) {
        path.addRect(QRectF(g.left() + 0.1 * s, g.top(), 0.3 * s, s));
        path.addRect(QRectF(g.left() + 0.6 * s, g.top(), 0.3 * s, s));
    } else if (name == QLatin1String("step")) {
        path.moveTo(g.left(), g.top());
        path.lineTo(g.left() + 0.65 * s, g.center().y());
        path.lineTo(g.left(), g.bottom());
        path.closeSubpath();
        path.addRect(QRectF(g.left() + 0.7 * s, g.top(), 0.22 * s, s));
    } else {
        path.addRect(QRectF(g.left() + 0.05 * s, g.top() + 0.05 * s, 0.85 * s, 0.85 * s));
    }
    p.fillPath(path, p.pen().color());
}
}  // namespace

PresenterOverlay::PresenterOverlay(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("presenterOverlay"));
    setAttribute(Qt::WA_TranslucentBackground);
    setMouseTracking(true);
    setFocusPolicy(Qt::NoFocus);
}

QFont PresenterOverlay::bigFont() const {
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * kBig);
    f.setBold(true);
    return f;
}

QFont PresenterOverlay::rowFont() const {
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * kRow);
    return f;
}

QString PresenterOverlay::unitsText() const {
    if (!info_.transport)
        return tr("This view has no job to run   ·   Ctrl+1 … Ctrl+9 change the view   ·   F11 leaves");
    return info_.speed.isEmpty() ? info_.units : info_.units + QStringLiteral("   ·   ") + info_.speed;
}

namespace {
// `f` made smaller, down to 0.55 of its size, until `text` is at most `avail` pixels wide.
QFont shrunkToFit(QFont f, const QStringList& lines, int avail) {
    const double full = f.pointSizeF();
    for (int tries = 0; tries < 12 && f.pointSizeF() > 0.55 * full; ++tries) {
        const QFontMetrics fm(f);
        int widest = 0;
        bool whole = true;  // elidedText is the judge: it cuts a little before horizontalAdvance says
        for (const QString& line : lines) {
            widest = std::max(widest, fm.horizontalAdvance(line));
            whole = whole && fm.elidedText(line, Qt::ElideRight, avail) == line;
        }
        if (whole) break;
        f.setPointSizeF(std::max(0.55 * full, f.pointSizeF() * std::min(0.97, static_cast<double>(avail) / widest)));
    }
    return f;
}
}  // namespace

// Beside the buttons when it fits there (shrunk if need be), else on a row of its own under them.
bool PresenterOverlay::unitsOnOwnRow() const {
    if (!info_.transport) return false;
    const QFontMetrics row(rowFont());
    const int end = buttons().back().rect.right() + 2 * pad(row);
    const int avail = (parentWidget() ? parentWidget()->width() : width()) - pad(row) - end;
    return QFontMetrics(shrunkToFit(rowFont(), {unitsText()}, avail)).elidedText(unitsText(), Qt::ElideRight, avail) !=
           unitsText();
}

QRect PresenterOverlay::unitsRect() const {
    const QFontMetrics row(rowFont());
    const int pd = pad(row);
    const auto all = buttons();
    if (unitsOnOwnRow()) return {pd, all.front().rect.bottom() + pd / 2, width() - 2 * pd, row.height()};
    const int end = info_.transport ? all.back().rect.right() + 2 * pd : pd;
    return {end, all.front().rect.top(), width() - pd - end, all.front().rect.height()};
}

QFont PresenterOverlay::unitsFont() const { return shrunkToFit(rowFont(), {unitsText()}, unitsRect().width()); }

// The buttons' font, made smaller (down to 0.55 of it) when the widest figure line would not fit
// the strip's width: a narrow screen at a large scale keeps every number whole.
QFont PresenterOverlay::figureFont() const {
    const QFont f = rowFont();
    return shrunkToFit(f, info_.figures,
                       (parentWidget() ? parentWidget()->width() : width()) - 2 * pad(QFontMetrics(f)));
}

int PresenterOverlay::barHeight() const {
    const QFontMetrics big(bigFont()), row(rowFont()), fig(figureFont());
    return 3 * pad(row) + row1Height(big) + row2Height(row) + (unitsOnOwnRow() ? row.height() + pad(row) / 2 : 0) +
           static_cast<int>(info_.figures.size()) * fig.height() + (info_.figures.isEmpty() ? 0 : pad(row));
}

QRect PresenterOverlay::figureRect(int i) const {
    const QFontMetrics big(bigFont()), row(rowFont()), fig(figureFont());
    const int p = pad(row);
    const int top = 3 * p + row1Height(big) + row2Height(row) + (unitsOnOwnRow() ? row.height() + p / 2 : 0);
    return {p, top + i * fig.height(), width() - 2 * p, fig.height()};
}

void PresenterOverlay::setInfo(const Info& info) {
    if (info == info_) return;
    info_ = info;
    update();
}

bool PresenterOverlay::enabled(int i) const {
    if (!info_.transport) return false;
    switch (i) {
        case 0: return info_.canRun;
        case 1: return info_.canPause;
        case 2: return info_.canStep;
        default: return info_.canCancel;
    }
}

std::array<PresenterOverlay::Button, 4> PresenterOverlay::buttons() const {
    const QFontMetrics big(bigFont()), row(rowFont());
    QFont keyFont = rowFont();
    keyFont.setPointSizeF(keyFont.pointSizeF() * 0.8);
    const QFontMetrics key(keyFont);
    std::array<Button, 4> out{Button{{}, tr("Run"), QStringLiteral("F5")},
                              Button{{}, info_.pauseLabel.isEmpty() ? tr("Pause") : info_.pauseLabel, tr("Space")},
                              Button{{}, tr("Step"), QStringLiteral("→")},
                              Button{{}, tr("Cancel"), QStringLiteral("Esc")}};
    const int p = pad(row);
    const int top = 2 * p + row1Height(big), h = row2Height(row);
    int x = p;
    for (Button& b : out) {
        const int glyph = row.height() * 3 / 4;
        const int w =
            p / 2 + glyph + p / 2 + row.horizontalAdvance(b.label) + p / 2 + key.horizontalAdvance(b.key) + p + p / 2;
        b.rect = QRect(x, top, w, h);
        x += w + p / 2;
    }
    return out;
}

QRect PresenterOverlay::buttonRect(const QString& name) const {
    static const std::array<QString, 4> names{QStringLiteral("run"), QStringLiteral("pause"), QStringLiteral("step"),
                                              QStringLiteral("cancel")};
    const auto all = buttons();
    for (int i = 0; i < 4; ++i)
        if (names[static_cast<std::size_t>(i)] == name) return all[static_cast<std::size_t>(i)].rect;
    return {};
}

int PresenterOverlay::hit(QPoint p) const {
    const auto all = buttons();
    for (int i = 0; i < 4; ++i)
        if (enabled(i) && all[static_cast<std::size_t>(i)].rect.contains(p)) return i;
    return -1;
}

void PresenterOverlay::mousePressEvent(QMouseEvent* e) {
    static const char* names[] = {"run", "pause", "step", "cancel"};
    if (const int i = hit(e->position().toPoint()); i >= 0 && e->button() == Qt::LeftButton) {
        e->accept();
        Q_EMIT clicked(QString::fromLatin1(names[i]));
        return;
    }
    QWidget::mousePressEvent(e);
}

void PresenterOverlay::mouseMoveEvent(QMouseEvent* e) {
    setCursor(hit(e->position().toPoint()) >= 0 ? Qt::PointingHandCursor : Qt::ArrowCursor);
    QWidget::mouseMoveEvent(e);
}

void PresenterOverlay::paintEvent(QPaintEvent*) {
    ++paints_;
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QFont bigF = bigFont(), rowF = rowFont();
    const QFontMetrics big(bigF), row(rowF);
    const int pd = pad(row);
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(16, 18, 24, 215));
    p.drawRect(rect());

    // Top row: the view, the state, the progress.
    const QRect r1(pd, pd, width() - 2 * pd, row1Height(big));
    int x = r1.left();
    p.setFont(bigF);
    p.setPen(Qt::white);
    p.drawText(QRect(x, r1.top(), big.horizontalAdvance(info_.view), r1.height()), Qt::AlignVCenter, info_.view);
    x += big.horizontalAdvance(info_.view) + pd / 2;
    p.setFont(rowF);
    p.setPen(QColor(190, 195, 205));
    p.drawText(QRect(x, r1.top(), row.horizontalAdvance(info_.viewKey), r1.height()), Qt::AlignVCenter, info_.viewKey);
    x += row.horizontalAdvance(info_.viewKey) + 2 * pd;
    if (info_.transport) {
        const int dot = big.ascent() * 2 / 3;
        p.setPen(Qt::NoPen);
        p.setBrush(info_.stateColour);
        p.drawEllipse(QRect(x, r1.center().y() - dot / 2, dot, dot));
        x += dot + pd / 2;
        p.setFont(bigF);
        p.setPen(info_.stateColour);
        p.drawText(QRect(x, r1.top(), big.horizontalAdvance(info_.state), r1.height()), Qt::AlignVCenter, info_.state);
        x += big.horizontalAdvance(info_.state) + 2 * pd;
        if (info_.fraction >= 0 && r1.right() - x > 4 * pd) {
            const QRect bar(x, r1.center().y() - row.height() / 2, r1.right() - x, row.height());
            p.setPen(Qt::NoPen);
            p.setBrush(QColor(255, 255, 255, 45));
            p.drawRoundedRect(bar, bar.height() / 2.0, bar.height() / 2.0);
            const double f = std::clamp(info_.fraction, 0.0, 1.0);
            if (f > 0) {
                p.setBrush(info_.stateColour);
                p.drawRoundedRect(
                    QRectF(bar.left(), bar.top(), std::max<double>(bar.height(), f * bar.width()), bar.height()),
                    bar.height() / 2.0, bar.height() / 2.0);
            }
            p.setFont(rowF);
            p.setPen(Qt::white);
            p.drawText(bar, Qt::AlignCenter, QStringLiteral("%1 %").arg(100 * f, 0, 'f', f < 0.1 ? 1 : 0));
        }
    }

    // Bottom row: the buttons with their keys, the units, the speed.
    const auto all = buttons();
    QFont keyF = rowF;
    keyF.setPointSizeF(keyF.pointSizeF() * 0.8);
    const QFontMetrics key(keyF);
    if (info_.transport) {
        for (int i = 0; i < 4; ++i) {
            const Button& b = all[static_cast<std::size_t>(i)];
            const bool on = enabled(i);
            const QColor ink = on ? QColor(Qt::white) : QColor(255, 255, 255, 80);
            p.setPen(Qt::NoPen);
            p.setBrush(QColor(255, 255, 255, on ? 38 : 12));
            p.drawRoundedRect(b.rect, pd / 2.0, pd / 2.0);
            int bx = b.rect.left() + pd / 2;
            const int glyph = row.height() * 3 / 4;
            p.setPen(ink);
            drawGlyph(p,
                      QString::fromLatin1(i == 0   ? "run"
                                          : i == 1 ? "pause"
                                          : i == 2 ? "step"
                                                   : "cancel"),
                      info_.playGlyph, QRectF(bx, b.rect.center().y() - glyph / 2.0, glyph, glyph));
            bx += glyph + pd / 2;
            p.setFont(rowF);
            p.drawText(QRect(bx, b.rect.top(), row.horizontalAdvance(b.label), b.rect.height()), Qt::AlignVCenter,
                       b.label);
            bx += row.horizontalAdvance(b.label) + pd / 2;
            const QRect cap(bx, b.rect.center().y() - key.height() / 2 - 2, key.horizontalAdvance(b.key) + pd,
                            key.height() + 4);
            p.setPen(QPen(ink, 1.5));
            p.setBrush(Qt::NoBrush);
            p.drawRoundedRect(cap, 4, 4);
            p.setFont(keyF);
            p.drawText(cap, Qt::AlignCenter, b.key);
        }
        p.setPen(Qt::white);
    } else {
        p.setPen(QColor(190, 195, 205));
    }
    const QRect r2 = unitsRect();
    const QFont unitsF = unitsFont();
    p.setFont(unitsF);
    p.drawText(r2, Qt::AlignVCenter | Qt::AlignLeft,
               QFontMetrics(unitsF).elidedText(unitsText(), Qt::ElideRight, r2.width()));
    const QFont figF = figureFont();
    const QFontMetrics fig(figF);
    p.setFont(figF);
    p.setPen(QColor(255, 236, 179));
    for (int i = 0; i < info_.figures.size(); ++i) {
        const QRect r = figureRect(i);
        p.drawText(r, Qt::AlignVCenter | Qt::AlignLeft, fig.elidedText(info_.figures[i], Qt::ElideRight, r.width()));
    }
}

}  // namespace rbmscope
