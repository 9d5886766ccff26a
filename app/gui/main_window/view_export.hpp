#pragma once
// Export of the current view: the picture as PNG (pixels) or SVG (vector, heatmaps embedded as
// images) without the view's controls, the data as CSV or JSON. Each returns an empty string on success, else the
// reason.
#include <QImage>
#include <QJsonObject>
#include <QList>
#include <QPointer>
#include <QString>
#include <QWidget>

namespace rbmscope {

inline constexpr double kMinExportDpi = 24, kMaxExportDpi = 1200;

// PNG or SVG by the file's suffix. A PNG is drawn at `dpi` (96: the pixels on screen; 192: twice
// as many in each direction, for slides and print) and records that resolution in the file.
// The folder the last export went to (QSettings "export/folder"; at first the home folder), where
// every export dialog opens, and remembering the folder of a file just chosen.
QString lastExportFolder();
void rememberExportFolder(const QString& file);

// While it lives, the controls under `root` (widgets with the kExportHidden property,
// views/export_hidden.hpp) are hidden and the layout gives their room to the figures; they come
// back when it goes. Nested guards change nothing.
class ControlsLeftOut {
public:
    explicit ControlsLeftOut(QWidget* root);
    ~ControlsLeftOut();
    ControlsLeftOut(const ControlsLeftOut&) = delete;
    ControlsLeftOut& operator=(const ControlsLeftOut&) = delete;

private:
    QList<QPointer<QWidget>> hidden_;
};

// The widget drawn at `dpi` (96: its pixels on screen), recording that resolution.
QImage renderImage(QWidget* widget, double dpi = 96);
QString exportImage(QWidget* widget, const QString& path, const QString& title, double dpi = 96);
// Writes `bytes` to `path` atomically (QSaveFile); empty string on success, else the reason.
QString writeAtomically(const QString& path, const QByteArray& bytes);
// CSV text or a JSON object by the file's suffix (.csv / .json).
QString exportData(const QString& path, const QString& csv, const QJsonObject& json);

}  // namespace rbmscope
