#include "colormap.hpp"

#include <algorithm>
#include <cmath>

namespace rbmscope {

QRgb viridis(double t) {
    // Polynomial fit of matplotlib's viridis (degree 6; max error well below one 8-bit step).
    t = std::clamp(t, 0.0, 1.0);
    static const double c[7][3] = {{0.2777273272234177, 0.005407344544966578, 0.3340998053353061},
                                   {0.1050930431085774, 1.404613529898575, 1.384590162594685},
                                   {-0.3308618287255563, 0.214847559468213, 0.09509516302823659},
                                   {-4.634230498983486, -5.799100973351585, -19.33244095627987},
                                   {6.228269936347081, 14.17993336680509, 56.69055260068105},
                                   {4.776384997670288, -13.74514537774601, -65.35303263337234},
                                   {-5.435455855934631, 4.645852612178535, 26.3124352495832}};
    double rgb[3];
    for (int k = 0; k < 3; ++k) {
        double v = c[6][k];
        for (int d = 5; d >= 0; --d) v = v * t + c[d][k];
        rgb[k] = std::clamp(v, 0.0, 1.0);
    }
    return qRgb(int(std::lround(rgb[0] * 255)), int(std::lround(rgb[1] * 255)), int(std::lround(rgb[2] * 255)));
}

const QVector<QRgb>& viridisTable() {
    static const QVector<QRgb> table = [] {
        QVector<QRgb> t(256);
        for (int i = 0; i < 256; ++i) t[i] = viridis(i / 255.0);
        return t;
    }();
    return table;
}

QImage colorize(const std::vector<double>& values, int nx, int ny, double vmin, double vmax, ColourScale scale) {
    QImage img(nx, ny, QImage::Format_Indexed8);
    img.setColorTable(viridisTable());
    const bool log = scale == ColourScale::Log;
    // Log: t = 1 + log10(v / vmax) / kLogDecades, so vmax is the top colour and vmax 10^-4 the bottom.
    const double top = log ? std::log10(vmax) : vmax;
    const double gain = log ? (vmax > 0 ? 255.0 / kLogDecades : 0.0) : (vmax > vmin ? 255.0 / (vmax - vmin) : 0.0);
    for (int iy = 0; iy < ny; ++iy) {
        uchar* line = img.scanLine(ny - 1 - iy);
        const double* row = values.data() + static_cast<std::size_t>(iy) * static_cast<std::size_t>(nx);
        for (int ix = 0; ix < nx; ++ix) {
            const double v = row[ix];
            double s = 0.0;
            if (std::isfinite(v)) s = log ? (v > 0 ? 255.0 + (std::log10(v) - top) * gain : 0.0) : (v - vmin) * gain;
            line[ix] = static_cast<uchar>(std::clamp(s, 0.0, 255.0));
        }
    }
    return img;
}

}  // namespace rbmscope
