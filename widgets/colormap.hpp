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

// values: ny rows of nx values, row 0 at the BOTTOM (y0) as in rbm::DensityGrid; the image has
// row 0 at the top. Values are mapped linearly from [vmin, vmax]; non-finite values map to vmin.
// Writes scanline by scanline into an 8-bit indexed image with the cached colour table.
QImage colorize(const std::vector<double>& values, int nx, int ny, double vmin, double vmax);

}  // namespace rbmscope
