// File → Export playback frames: what Play shows, as numbered PNG images for
// slides or a video tool, or as one animated GIF (File → Export playback as animated GIF…). Driven by the event loop,
// one frame at a time: set the view's beta (the Tempering view: a recorded scan), wait until the heatmap of that beta
// (the rung heatmaps) is on screen (it is computed on a worker), save, go on; the window stays responsive and Esc-free
// work elsewhere continues.
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QSettings>
#include <QTimer>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>

#include "main_window/gif_writer.hpp"
#include "main_window/main_window.hpp"
#include "main_window/view_export.hpp"

namespace rbmscope {

namespace {
constexpr int kMaxFrames = 10000;
}

QString MainWindow::exportPlayback(const QString& dir, int frames, double dpi, int frameMs) {
    View* v = activeView();
    if (!v) return tr("no view is shown");
    if (playbackTimer_) return tr("a playback export is already running");
    if (frames < 2 || frames > kMaxFrames)
        return tr("the number of frames must be from 2 to %1, got %2").arg(kMaxFrames).arg(frames);
    if (!(dpi >= kMinExportDpi && dpi <= kMaxExportDpi))
        return tr("the resolution must be from %1 to %2 dpi, got %3").arg(kMinExportDpi).arg(kMaxExportDpi).arg(dpi);
    // What differs between the views (View::playbackFrames): how frame i is put on screen, when it
    // is there, how the view goes back to what it showed, and what ends the export early.
    const bool gif = QFileInfo(dir).suffix().compare(QLatin1String("gif"), Qt::CaseInsensitive) == 0;
    if (gif && !(frameMs >= 20 && frameMs <= 10000))
        return tr("a GIF frame lasts from 20 to 10000 ms, got %1").arg(frameMs);
    PlaybackFrames f;
    if (const QString err = v->playbackFrames(frames, &f); !err.isEmpty()) return err;
    const QString folder = gif ? QFileInfo(dir).absolutePath() : dir;
    if (!QDir().mkpath(folder)) {
        f.restore();
        return tr("cannot create the folder %1").arg(folder);
    }
    auto animation = gif ? std::make_shared<GifWriter>(frameMs) : nullptr;
    // Every frame without the view's controls: hidden once, for the whole export.
    auto figuresOnly = std::make_shared<std::optional<ControlsLeftOut>>();
    figuresOnly->emplace(v->widget());
    const auto show = f.show;
    const auto shown = f.shown;
    const auto restore = f.restore;
    const auto superseded = f.superseded;
    QWidget* target = f.target;
    auto next = std::make_shared<int>(0);          // frame to produce
    auto waiting = std::make_shared<bool>(false);  // it is asked for, not yet on screen
    playbackTimer_ = new QTimer(this);
    playbackTimer_->setInterval(5);
    const auto finish = [this, restore, figuresOnly](const QString& error) {
        figuresOnly->reset();
        playbackTimer_->stop();
        playbackTimer_->deleteLater();
        playbackTimer_ = nullptr;
        restore();
        statusText_->setText(error.isEmpty() ? tr("Exported the playback frames") : error);
        Q_EMIT playbackExported(error);
    };
    connect(playbackTimer_, &QTimer::timeout, this, [=, this] {
        if (superseded()) return finish(tr("the playback export stopped: a new run started"));
        if (!*waiting) {
            show(*next);
            *waiting = true;
            return;
        }
        if (!shown(*next)) return;  // its heatmap is still being computed
        if (animation) {
            animation->add(renderImage(target, dpi));
        } else {
            const QString file =
                QDir(dir).filePath(QStringLiteral("frame-%1.png").arg(*next + 1, 4, 10, QLatin1Char('0')));
            if (const QString err = rbmscope::exportImage(target, file, QString(), dpi); !err.isEmpty())
                return finish(err);
        }
        statusText_->setText(tr("Exporting the playback: frame %1 of %2").arg(*next + 1).arg(frames));
        *waiting = false;
        if (++*next == frames) finish(animation ? animation->finish(dir) : QString());
    });
    playbackTimer_->start();
    return {};
}

namespace {
// The number of frames, asked with the view's own wording (a Tempering replay counts scans); 0 when cancelled.
int askFrames(QWidget* parent, const QString& title, const View* v, int byDefault) {
    bool ok = false;
    const int frames = QInputDialog::getInt(
        parent, title, v && !v->framesPrompt().isEmpty() ? v->framesPrompt() : QObject::tr("Frames:"), byDefault, 2,
        kMaxFrames, 1, &ok);
    return ok ? frames : 0;
}
}  // namespace

void MainWindow::exportGifDialog() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export playback as animated GIF"),
                                                      QDir(lastExportFolder()).filePath(QStringLiteral("playback.gif")),
                                                      tr("Animated GIF (*.gif)"));
    if (path.isEmpty()) return;
    rememberExportFolder(path);
    const QString file =
        path.endsWith(QLatin1String(".gif"), Qt::CaseInsensitive) ? path : path + QStringLiteral(".gif");
    const int frames = askFrames(this, tr("Export playback as animated GIF"), activeView(), 40);
    if (frames == 0) return;
    bool ok = false;
    const int ms = QInputDialog::getInt(this, tr("Export playback as animated GIF"), tr("Each frame shown for (ms):"),
                                        100, 20, 10000, 10, &ok);
    if (!ok) return;
    if (const QString err = exportPlayback(file, frames, 96, ms); !err.isEmpty())
        showError(tr("Cannot export the playback"), err);
}

void MainWindow::exportPlaybackDialog() {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export playback frames into"), lastExportFolder());
    if (dir.isEmpty()) return;
    rememberExportFolder(QDir(dir).filePath(QStringLiteral("frame-0001.png")));
    const int frames = askFrames(this, tr("Export playback frames"), activeView(), 60);
    if (frames == 0) return;
    bool ok = false;
    const int dpi = QInputDialog::getInt(this, tr("Export playback frames"), tr("Resolution (dpi):"), 96,
                                         static_cast<int>(kMinExportDpi), static_cast<int>(kMaxExportDpi), 24, &ok);
    if (!ok) return;
    if (const QString err = exportPlayback(dir, frames, dpi); !err.isEmpty())
        showError(tr("Cannot export the playback"), err);
}

}  // namespace rbmscope
