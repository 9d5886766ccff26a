#pragma once
// An animated GIF from a sequence of images (File → Export playback as animated GIF…, and
// --playback-frames FILE.gif), written with Debian's giflib: GIF89a, one local palette of at most
// 256 colours per frame (quantized(): the frame's most used colours, no dithering), the
// NETSCAPE2.0 loop extension so that the animation repeats, and each frame's delay in a graphics
// control extension. Frames are kept in memory and the file written atomically by finish().
#include <QByteArray>
#include <QImage>
#include <QString>
#include <vector>

namespace rbmscope {

class GifWriter {
public:
    // `delayMs`: how long each frame is shown (GIF counts hundredths of a second: rounded, at least 2).
    explicit GifWriter(int delayMs = 100);
    // The first frame sets the animation's size; a later frame of another size is scaled to it.
    void add(const QImage& frame);
    int frames() const { return static_cast<int>(frames_.size()); }
    // Encodes every frame and writes `path`; empty string on success, else the reason.
    QString finish(const QString& path);
    // The encoded file (tests); empty string on success, else the reason.
    QString encode(QByteArray* out) const;

    // `rgb` (Format_RGB32) as Format_Indexed8 with its own palette of at most 256 colours.
    static QImage quantized(const QImage& rgb);

private:
    int delayCs_;
    std::vector<QImage> frames_;  // Format_Indexed8, all of one size
};

}  // namespace rbmscope
