// File → Export playback frames: what Play shows (issue #15 item 6), as numbered PNG images for
// slides or a video tool. Driven by the event loop, one frame at a time: set the view's beta,
// wait until the heatmap of that beta is on screen (it is computed on a worker), save, go on; the
// window stays responsive and Esc-free work elsewhere continues.
#include <QDir>
#include <QFileDialog>
#include <QInputDialog>
#include <QTimer>
#include <memory>

#include "main_window/main_window.hpp"
#include "main_window/view_export.hpp"

namespace rbmscope {

namespace {
constexpr int kMaxFrames = 10000;
}

QString MainWindow::exportPlayback(const QString& dir, int frames, double dpi) {
    auto* view = qobject_cast<AnnealingView*>(tabs_->currentWidget());
    if (!view) return tr("playback frames are exported from the Annealing or Compare view; the current view is %1").arg(currentView());
    if (playbackTimer_) return tr("a playback export is already running");
    if (frames < 2 || frames > kMaxFrames) return tr("the number of frames must be from 2 to %1, got %2").arg(kMaxFrames).arg(frames);
    if (!(dpi >= kMinExportDpi && dpi <= kMaxExportDpi))
        return tr("the resolution must be from %1 to %2 dpi, got %3").arg(kMinExportDpi).arg(kMaxExportDpi).arg(dpi);
    bool recorded = false;
    for (const LaneRun& l : run_->lanes()) recorded = recorded || !l.frames.empty();
    if (!recorded) return tr("there is no recorded run to play back: run AIS first (F5)");
    if (!QDir().mkpath(dir)) return tr("cannot create the folder %1").arg(dir);

    view->setPlaying(false);
    const double restore = view->beta();
    const std::uint64_t runId = run_->runId();
    auto next = std::make_shared<int>(0);       // frame to produce
    auto waiting = std::make_shared<bool>(false);  // its beta is set, its heatmap not yet shown
    playbackTimer_ = new QTimer(this);
    playbackTimer_->setInterval(5);
    const auto finish = [this, view, restore](const QString& error) {
        playbackTimer_->stop();
        playbackTimer_->deleteLater();
        playbackTimer_ = nullptr;
        view->setBeta(restore);
        statusText_->setText(error.isEmpty() ? tr("Exported the playback frames") : error);
        Q_EMIT playbackExported(error);
    };
    connect(playbackTimer_, &QTimer::timeout, this, [=, this] {
        if (run_->runId() != runId || run_->running())
            return finish(tr("the playback export stopped: a new run started"));
        const double beta = static_cast<double>(*next) / (frames - 1);
        if (!*waiting) {
            view->setBeta(beta);
            *waiting = true;
            return;
        }
        if (view->busy() || view->shownBeta() != beta) return;  // its heatmap is still being computed
        const QString file = QDir(dir).filePath(QStringLiteral("frame-%1.png").arg(*next + 1, 4, 10, QLatin1Char('0')));
        if (const QString err = rbmscope::exportImage(view, file, QString(), dpi); !err.isEmpty()) return finish(err);
        statusText_->setText(tr("Exporting the playback: frame %1 of %2").arg(*next + 1).arg(frames));
        *waiting = false;
        if (++*next == frames) finish(QString());
    });
    playbackTimer_->start();
    return {};
}

void MainWindow::exportPlaybackDialog() {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export playback frames into"));
    if (dir.isEmpty()) return;
    bool ok = false;
    const int frames = QInputDialog::getInt(this, tr("Export playback frames"), tr("Frames from β = 0 to 1:"), 60, 2, kMaxFrames, 1, &ok);
    if (!ok) return;
    const int dpi = QInputDialog::getInt(this, tr("Export playback frames"), tr("Resolution (dpi):"), 96,
                                         static_cast<int>(kMinExportDpi), static_cast<int>(kMaxExportDpi), 24, &ok);
    if (!ok) return;
    if (const QString err = exportPlayback(dir, frames, dpi); !err.isEmpty()) showError(tr("Cannot export the playback"), err);
}

}  // namespace rbmscope
