#include "sample_grid.hpp"

#include <QPainter>
#include <algorithm>
#include <cmath>

namespace rbmscope {

QRgb divergingColor(double t) {
    t = std::clamp(std::isfinite(t) ? t : 0.0, -1.0, 1.0);
    // White to (33, 102, 172) below zero, white to (178, 24, 43) above (ColorBrewer RdBu ends).
    const double a = std::fabs(t);
    const int r0 = t < 0 ? 33 : 178, g0 = t < 0 ? 102 : 24, b0 = t < 0 ? 172 : 43;
    const auto mix = [a](int end) { return static_cast<int>(std::lround(255.0 + a * (end - 255.0))); };
    return qRgb(mix(r0), mix(g0), mix(b0));
}

QSize squareShape(rbm::Index n) {
    const auto r = static_cast<int>(std::lround(std::sqrt(static_cast<double>(n))));
    return r > 0 && static_cast<rbm::Index>(r) * r == n ? QSize(r, r) : QSize(0, 0);
}

SampleGrid::SampleGrid(QWidget* parent) : QWidget(parent) { setAttribute(Qt::WA_OpaquePaintEvent); }

void SampleGrid::setSamples(const rbm::RowMat& X, int imageRows, int imageCols) {
    message_.clear();
    if (imageRows <= 0 || imageCols <= 0) {
        const QSize s = squareShape(X.cols());
        imageRows = s.height();
        imageCols = s.width();
    }
    if (X.rows() > 0 && (imageRows <= 0 || static_cast<rbm::Index>(imageRows) * imageCols != X.cols())) {
        data_.resize(0, 0);
        tiles_ = 0;
        image_ = QImage();
        message_ = tr("%1 values per example do not make a %2 image")
                       .arg(X.cols())
                       .arg(imageRows > 0 ? QStringLiteral("%1×%2").arg(imageRows).arg(imageCols) : tr("square"));
        update();
        Q_EMIT updated();
        return;
    }
    data_ = X;
    rows_ = imageRows;
    cols_ = imageCols;
    tiles_ = static_cast<int>(X.rows());
    render();
}

void SampleGrid::setCaptions(const QStringList& captions) {
    captions_ = captions;
    update();
}

void SampleGrid::setMode(Mode mode) {
    if (mode_ == mode) return;
    mode_ = mode;
    render();
}

void SampleGrid::setValueRange(double lo, double hi) {
    lo_ = lo;
    hi_ = hi > lo ? hi : lo + 1;
    render();
}

void SampleGrid::setPerTileScale(bool perTile) {
    if (perTile_ == perTile) return;
    perTile_ = perTile;
    render();
}

void SampleGrid::setColumns(int columns) {
    columns_ = std::max(0, columns);
    update();
}

void SampleGrid::setTitle(const QString& title) {
    title_ = title;
    update();
}

void SampleGrid::setMessage(const QString& text) {
    message_ = text;
    update();
}

void SampleGrid::clear() {
    data_.resize(0, 0);
    tiles_ = 0;
    image_ = QImage();
    captions_.clear();
    update();
}

void SampleGrid::render() {
    if (tiles_ == 0 || rows_ == 0) {
        image_ = QImage();
        update();
        return;
    }
    image_ = QImage(cols_, rows_ * tiles_, QImage::Format_RGB32);
    double shared = 0;
    if (mode_ == Mode::Diverging && !perTile_) shared = data_.cwiseAbs().maxCoeff();
    const double mid = (lo_ + hi_) / 2, span = hi_ - lo_;
    for (int t = 0; t < tiles_; ++t) {
        const double s = mode_ != Mode::Diverging ? 0 : perTile_ ? data_.row(t).cwiseAbs().maxCoeff() : shared;
        for (int r = 0; r < rows_; ++r) {
            auto* line = reinterpret_cast<QRgb*>(image_.scanLine(t * rows_ + r));
            for (int c = 0; c < cols_; ++c) {
                const double v = data_(t, r * cols_ + c);
                switch (mode_) {
                    case Mode::Grey: {
                        const double g = std::isfinite(v) ? std::clamp((v - lo_) / span, 0.0, 1.0) : 0.0;
                        const int k = static_cast<int>(std::lround(255 * g));
                        line[c] = qRgb(k, k, k);
                        break;
                    }
                    case Mode::Binary: line[c] = v > mid ? qRgb(255, 255, 255) : qRgb(0, 0, 0); break;
                    case Mode::Diverging: line[c] = divergingColor(s > 0 ? v / s : 0.0); break;
                }
            }
        }
    }
    ++updates_;
    update();
    Q_EMIT updated();
}

QImage SampleGrid::tileImage(int i) const {
    if (i < 0 || i >= tiles_) return {};
    return image_.copy(0, i * rows_, cols_, rows_);
}

SampleGrid::Layout SampleGrid::layout() const {
    Layout L;
    const QFontMetrics fm(font());
    L.titleH = title_.isEmpty() ? 0 : fm.height() + 4;
    L.caption = captions_.isEmpty() ? 0 : fm.height() + 1;
    if (tiles_ == 0) return L;
    const int W = width() - 4, H = height() - 4 - L.titleH;
    L.gap = tiles_ > 400 ? 2 : 4;
    const auto fit = [&](int cols) {
        const int gr = (tiles_ + cols - 1) / cols;
        const double sx = (W - L.gap * (cols - 1.0)) / (cols * double(cols_));
        const double sy = (H - gr * double(L.caption) - L.gap * (gr - 1.0)) / (gr * double(rows_));
        return std::min(sx, sy);
    };
    if (columns_ > 0) {
        L.columns = std::min(columns_, tiles_);
    } else {
        double best = -1;
        for (int c = 1; c <= tiles_; ++c)
            if (const double s = fit(c); s > best) {
                best = s;
                L.columns = c;
            }
    }
    L.gridRows = (tiles_ + L.columns - 1) / L.columns;
    double s = std::max(0.05, fit(L.columns));
    if (s >= 1) s = std::floor(s);  // crisp pixels
    L.scale = s;
    const double gw = L.columns * cols_ * s + L.gap * (L.columns - 1);
    const double gh = L.gridRows * (rows_ * s + L.caption) + L.gap * (L.gridRows - 1);
    L.origin =
        QPoint(static_cast<int>((width() - gw) / 2), L.titleH + 2 + static_cast<int>(std::max(0.0, (H - gh) / 2)));
    return L;
}

int SampleGrid::layoutColumns() const { return layout().columns; }

QRect SampleGrid::tileRect(int i) const {
    if (i < 0 || i >= tiles_) return {};
    const Layout L = layout();
    const int gc = i % L.columns, gr = i / L.columns;
    const double x = L.origin.x() + gc * (cols_ * L.scale + L.gap);
    const double y = L.origin.y() + gr * (rows_ * L.scale + L.caption + L.gap);
    return QRectF(x, y, cols_ * L.scale, rows_ * L.scale).toAlignedRect();
}

void SampleGrid::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    const Layout L = layout();
    if (!title_.isEmpty()) {
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(QRect(0, 2, width(), L.titleH), Qt::AlignHCenter | Qt::AlignVCenter, title_);
    }
    if (!message_.isEmpty() || tiles_ == 0) {
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(rect().adjusted(12, L.titleH, -12, -12), Qt::AlignCenter | Qt::TextWordWrap,
                   message_.isEmpty() ? tr("Nothing to show yet") : message_);
        return;
    }
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    QFont small = font();
    if (L.caption > 0) p.setFont(small);
    for (int i = 0; i < tiles_; ++i) {
        const QRect r = tileRect(i);
        if (r.top() > height()) break;
        p.fillRect(r.adjusted(-1, -1, 1, 1), palette().color(QPalette::Mid));  // a frame, so white tiles stay apart
        p.drawImage(r, image_, QRect(0, i * rows_, cols_, rows_));
        if (L.caption > 0 && i < captions_.size()) {
            p.setPen(palette().color(QPalette::WindowText));
            const QRect cr(r.left() - L.gap, r.bottom() + 1, r.width() + 2 * L.gap, L.caption);
            // Too narrow for the whole caption: its first word (e.g. the unit's name).
            QString text = captions_[i];
            if (p.fontMetrics().horizontalAdvance(text) > cr.width()) text = text.section(QLatin1Char(' '), 0, 0);
            p.drawText(cr, Qt::AlignHCenter | Qt::AlignTop,
                       p.fontMetrics().elidedText(text, Qt::ElideRight, cr.width()));
        }
    }
}

}  // namespace rbmscope
