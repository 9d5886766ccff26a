#pragma once
// A grid of image-shaped vectors: data examples, model samples, or filters (one hidden unit's
// weights each). Every vector is a tile of image_rows x image_cols pixels (row-major, as the
// data sets store them); the shape is given or inferred square. Values become grey levels
// (low = black, high = white), black/white after a threshold (binary), or a diverging blue-white-red
// map around 0 (filters) with one shared or one per-tile scale. An optional caption sits under
// each tile. setSamples() renders all tiles into one QImage (one image pixel per value); painting
// only scales its tiles to the widget (crisp integer factors when they fit), so live updates at
// ~30 frames per second cost one pass over the values.
#include <QImage>
#include <QStringList>
#include <QWidget>

#include "core/numerics/types.hpp"

namespace rbmscope {

class SampleGrid : public QWidget {
    Q_OBJECT
public:
    enum class Mode { Grey, Binary, Diverging };

    explicit SampleGrid(QWidget* parent = nullptr);

    // One tile per row of X. imageRows/imageCols 0: inferred square (message when dim is not a square).
    void setSamples(const rbm::RowMat& X, int imageRows = 0, int imageCols = 0);
    void setCaptions(const QStringList& captions);  // one per tile (or empty)
    void setMode(Mode mode);
    // Grey / Binary: values mapped from [lo, hi] (binary: on when above the middle). Default [0, 1].
    void setValueRange(double lo, double hi);
    // Diverging: symmetric scale ±s with s the largest |value| of all tiles (shared) or of each tile.
    void setPerTileScale(bool perTile);
    void setColumns(int columns);  // 0: chosen to make the tiles as large as the widget allows
    void setTitle(const QString& title);
    void setMessage(const QString& text);  // shown instead of the tiles
    void clear();

    int tileCount() const { return tiles_; }
    int imageRows() const { return rows_; }
    int imageCols() const { return cols_; }
    Mode mode() const { return mode_; }
    QString message() const { return message_; }
    QString title() const { return title_; }
    const QStringList& captions() const { return captions_; }
    // The rendered tiles: tile i occupies rows [i * imageRows, (i+1) * imageRows) of this image.
    const QImage& image() const { return image_; }
    QImage tileImage(int i) const;
    // Grid columns and the widget rectangle of tile i as laid out at the current size.
    int layoutColumns() const;
    QRect tileRect(int i) const;
    int updates() const { return updates_; }

    QSize sizeHint() const override { return {360, 360}; }
    QSize minimumSizeHint() const override { return {120, 120}; }

Q_SIGNALS:
    void updated();

protected:
    void paintEvent(QPaintEvent*) override;

private:
    struct Layout {
        int columns = 1, gridRows = 1;
        double scale = 1;  // screen pixels per image pixel
        int gap = 2, caption = 0, titleH = 0;
        QPoint origin;
    };
    Layout layout() const;
    void render();

    rbm::RowMat data_;
    QImage image_;
    QStringList captions_;
    QString title_, message_;
    Mode mode_ = Mode::Grey;
    double lo_ = 0, hi_ = 1;
    bool perTile_ = false;
    int columns_ = 0, tiles_ = 0, rows_ = 0, cols_ = 0, updates_ = 0;
};

// Blue (t = -1) through white (0) to red (+1); t clamped.
QRgb divergingColor(double t);
// image rows x cols for a vector of length n: (r, r) when n = r^2, else (0, 0).
QSize squareShape(rbm::Index n);

}  // namespace rbmscope
