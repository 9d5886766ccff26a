#include "main_window/gif_writer.hpp"

#include <gif_lib.h>

#include <algorithm>
#include <cstring>

#include "main_window/view_export.hpp"

namespace rbmscope {

namespace {

int appendBytes(GifFileType* gif, const GifByteType* bytes, int n) {
    static_cast<QByteArray*>(gif->UserData)->append(reinterpret_cast<const char*>(bytes), n);
    return n;
}

QString gifError(const char* what, int code) {
    const char* text = GifErrorString(code);
    return QStringLiteral("cannot encode the GIF (%1: %2)").arg(QLatin1String(what), QLatin1String(text ? text : "?"));
}

}  // namespace

GifWriter::GifWriter(int delayMs) : delayCs_(std::max(2, (delayMs + 5) / 10)) {}

void GifWriter::add(const QImage& frame) {
    QImage f = frame.convertToFormat(QImage::Format_RGB32);
    if (!frames_.empty() && f.size() != frames_.front().size())
        f = f.scaled(frames_.front().size(), Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
    f.setDevicePixelRatio(1);
    frames_.push_back(quantized(f));
}

// The frame in at most 256 colours, without dithering (a plot's flat areas and lines stay clean):
// colours binned at 5 bits a channel; the palette is the mean colour of each of the 256 fullest
// bins; every bin maps to its nearest palette colour (squared RGB distance).
QImage GifWriter::quantized(const QImage& rgb) {
    constexpr int kBins = 1 << 15;
    const auto bin = [](QRgb c) { return ((qRed(c) >> 3) << 10) | ((qGreen(c) >> 3) << 5) | (qBlue(c) >> 3); };
    std::vector<long long> count(kBins, 0), sr(kBins, 0), sg(kBins, 0), sb(kBins, 0);
    for (int y = 0; y < rgb.height(); ++y) {
        const auto* line = reinterpret_cast<const QRgb*>(rgb.constScanLine(y));
        for (int x = 0; x < rgb.width(); ++x) {
            const QRgb c = line[x];
            const int k = bin(c);
            ++count[k];
            sr[k] += qRed(c);
            sg[k] += qGreen(c);
            sb[k] += qBlue(c);
        }
    }
    std::vector<int> used;
    for (int k = 0; k < kBins; ++k)
        if (count[k] > 0) used.push_back(k);
    std::vector<int> chosen = used;
    if (chosen.size() > 256) {
        std::partial_sort(chosen.begin(), chosen.begin() + 256, chosen.end(),
                          [&](int a, int b) { return count[a] != count[b] ? count[a] > count[b] : a < b; });
        chosen.resize(256);
    }
    QVector<QRgb> palette;
    for (int k : chosen)
        palette.push_back(qRgb(static_cast<int>(sr[k] / count[k]), static_cast<int>(sg[k] / count[k]),
                               static_cast<int>(sb[k] / count[k])));
    std::vector<unsigned char> nearest(kBins, 0);
    for (int k : used) {
        const int r = static_cast<int>(sr[k] / count[k]), g = static_cast<int>(sg[k] / count[k]),
                  b = static_cast<int>(sb[k] / count[k]);
        int best = 0, bestD = 1 << 30;
        for (int i = 0; i < palette.size(); ++i) {
            const int dr = qRed(palette[i]) - r, dg = qGreen(palette[i]) - g, db = qBlue(palette[i]) - b;
            const int d = dr * dr + dg * dg + db * db;
            if (d < bestD) bestD = d, best = i;
        }
        nearest[static_cast<std::size_t>(k)] = static_cast<unsigned char>(best);
    }
    QImage out(rgb.size(), QImage::Format_Indexed8);
    out.setColorTable(palette);
    for (int y = 0; y < rgb.height(); ++y) {
        const auto* line = reinterpret_cast<const QRgb*>(rgb.constScanLine(y));
        uchar* o = out.scanLine(y);
        for (int x = 0; x < rgb.width(); ++x) o[x] = nearest[static_cast<std::size_t>(bin(line[x]))];
    }
    return out;
}

QString GifWriter::encode(QByteArray* out) const {
    if (frames_.empty()) return QStringLiteral("no frames to write");
    out->clear();
    int err = 0;
    GifFileType* gif = EGifOpen(out, appendBytes, &err);
    if (!gif) return gifError("open", err);
    const auto fail = [gif](const char* what) {
        const QString message = gifError(what, gif->Error);
        int closeErr = 0;
        EGifCloseFile(gif, &closeErr);
        return message;
    };
    EGifSetGifVersion(gif, true);  // GIF89a: extensions
    const QSize size = frames_.front().size();
    if (EGifPutScreenDesc(gif, size.width(), size.height(), 8, 0, nullptr) == GIF_ERROR) return fail("screen");
    // NETSCAPE2.0 application extension: loop forever (count 0).
    static const GifByteType netscape[] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
    static const GifByteType loop[] = {1, 0, 0};
    if (EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
        EGifPutExtensionBlock(gif, sizeof netscape, netscape) == GIF_ERROR ||
        EGifPutExtensionBlock(gif, sizeof loop, loop) == GIF_ERROR || EGifPutExtensionTrailer(gif) == GIF_ERROR)
        return fail("loop extension");
    for (const QImage& f : frames_) {
        GraphicsControlBlock gcb{};
        gcb.DisposalMode = DISPOSE_DO_NOT;
        gcb.DelayTime = delayCs_;
        gcb.TransparentColor = NO_TRANSPARENT_COLOR;
        GifByteType ext[4];
        const size_t n = EGifGCBToExtension(&gcb, ext);
        if (EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, static_cast<int>(n), ext) == GIF_ERROR)
            return fail("frame delay");
        const QVector<QRgb> table = f.colorTable();
        // A GIF palette has 2^k entries: the frame's colours, padded with black.
        int bits = 1;
        while ((1 << bits) < table.size()) ++bits;
        ColorMapObject* map = GifMakeMapObject(1 << bits, nullptr);
        if (!map) return fail("palette");
        for (int i = 0; i < (1 << bits); ++i) {
            const QRgb c = i < table.size() ? table[i] : qRgb(0, 0, 0);
            map->Colors[i] = GifColorType{static_cast<GifByteType>(qRed(c)), static_cast<GifByteType>(qGreen(c)),
                                          static_cast<GifByteType>(qBlue(c))};
        }
        const bool described = EGifPutImageDesc(gif, 0, 0, size.width(), size.height(), false, map) != GIF_ERROR;
        GifFreeMapObject(map);
        if (!described) return fail("frame");
        for (int y = 0; y < size.height(); ++y) {
            // EGifPutLine takes a non-const line; the frame's own row is only read.
            auto* row = const_cast<GifPixelType*>(reinterpret_cast<const GifPixelType*>(f.constScanLine(y)));
            if (EGifPutLine(gif, row, size.width()) == GIF_ERROR) return fail("pixels");
        }
    }
    if (EGifCloseFile(gif, &err) == GIF_ERROR) return gifError("close", err);
    return {};
}

QString GifWriter::finish(const QString& path) {
    QByteArray bytes;
    if (const QString err = encode(&bytes); !err.isEmpty()) return err;
    return writeAtomically(path, bytes);
}

}  // namespace rbmscope
