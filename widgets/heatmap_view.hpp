#pragma once
// A 2-D density heatmap in model units: the image, axes with ticks, a colour bar, and optional
// overlays (sample particles, marked modes, hidden-unit weight arrows). It only paints what it is
// given; images are computed elsewhere (off the GUI thread) and handed over by value.
#include <QColor>
#include <QImage>
#include <QPointF>
#include <QRectF>
#include <QString>
#include <QVector>
#include <QWidget>

#include "colormap.hpp"

class QPainter;

namespace rbmscope {

class HeatmapView : public QWidget {
    Q_OBJECT
public:
    explicit HeatmapView(QWidget* parent = nullptr);

    // domain: the model-unit rectangle the image covers (x0..x1, y0..y1).
    // scale: how the image was coloured (colorize), for the colour bar's ticks.
    void setImage(const QImage& image, const QRectF& domain, double vmin, double vmax, const QString& scaleLabel,
                  ColourScale scale = ColourScale::Linear);
    ColourScale colourScale() const { return scale_; }
    void setTitle(const QString& title);
    void setParticles(const QVector<QPointF>& points);
    void setMarkers(const QVector<QPointF>& modes);
    // Arrows from `origin` along each vector (e.g. sigma∘W_j for each hidden unit).
    void setArrows(const QPointF& origin, const QVector<QPointF>& vectors);
    void clearOverlays();
    // Compact mode (filmstrips): no axis labels and no colour bar, a small caption on top.
    void setCompact(bool on);
    void setParticleColor(const QColor& c);
    // One line of small text in the plot's top-left corner (e.g. where the particles come from).
    void setOverlayText(const QString& text);
    // Shown instead of the image (e.g. why there is nothing to draw).
    void setMessage(const QString& text);
    const QVector<QPointF>& particles() const { return particles_; }
    const QVector<QPointF>& markers() const { return markers_; }
    QString title() const { return title_; }
    QString overlayText() const { return overlayText_; }
    QString message() const { return message_; }
    double colourMax() const { return vmax_; }

    QRectF domain() const { return domain_; }
    const QImage& image() const { return image_; }
    QRect plotRect() const;  // where the image is drawn
    // The overlay text's box (top left of the plot) and font: never wider than the plot; the
    // text is shrunk (to 0.6 of the widget's font) and then wrapped rather than cut.
    QRect overlayRect(QFont* font = nullptr) const;
    QPointF toWidget(const QPointF& model) const;
    QPointF toModel(const QPointF& widget) const;

    QSize sizeHint() const override { return {560, 480}; }
    QSize minimumSizeHint() const override { return {200, 180}; }

Q_SIGNALS:
    // The user dragged the tip of arrow `index` to `modelPoint` (model units).
    void arrowDragged(int index, QPointF modelPoint);
    void arrowDragFinished(int index);

protected:
    // Pixels kept free right of the colour bar (EllipseHeatmap's legend goes there, not over the data).
    void setRightReserve(int px) {
        if (px == rightReserve_) return;
        rightReserve_ = px;
        update();
    }
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;

private:
    void paintOverlays(QPainter& p, const QRect& plot);

    int rightReserve_ = 0;
    QImage image_;
    QRectF domain_{-1, -1, 2, 2};
    double vmin_ = 0, vmax_ = 1;
    ColourScale scale_ = ColourScale::Linear;
    QString scaleLabel_, title_, overlayText_, message_;
    bool compact_ = false;
    QColor particleColor_{255, 80, 80, 120};
    QImage sprite_;  // one particle, drawn once
    QColor spriteColor_;
    double spriteRadius_ = 0;
    QVector<QPointF> particles_, markers_, arrows_;
    QPointF arrowOrigin_;
    int dragging_ = -1;
};

// "Nice" tick positions covering [lo, hi] with about `target` ticks.
QVector<double> niceTicks(double lo, double hi, int target = 6);

}  // namespace rbmscope
