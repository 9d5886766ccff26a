#pragma once
// Perceptually uniform colour map (viridis) and value-to-image conversion for heatmaps.
#include <QImage>
#include <QRgb>
#include <QVector>
#include <vector>

namespace rbmscope {

// 256-entry viridis table, computed once.
const QVector<QRgb>& viridisTable();
QRgb viridis(double t);  // t in [0,1], clamped

// How values map to colours. Log: the kLogDecades decades below vmax on a log axis (vmin is not
// used), anything lower the bottom colour — a density's low bumps stay visible next to a peak
// a hundred times higher, which a linear scale paints as background.
enum class ColourScale { Linear, Log };
inline constexpr double kLogDecades = 4;

// values: ny rows of nx values, row 0 at the BOTTOM (y0) as in rbm::DensityGrid; the image has
// row 0 at the top. Values are mapped linearly from [vmin, vmax] (or as `scale` says); non-finite
// values map to the bottom colour. Writes scanline by scanline into an 8-bit indexed image with
// the cached colour table.
QImage colorize(const std::vector<double>& values, int nx, int ny, double vmin, double vmax,
                ColourScale scale = ColourScale::Linear);

}  // namespace rbmscope
