#pragma once
// Export of the current view: the picture as PNG (pixels) or SVG (vector, heatmaps embedded as
// images), the data as CSV or JSON. Each returns an empty string on success, else the reason.
#include <QJsonObject>
#include <QString>
#include <QWidget>

namespace rbmscope {

// PNG or SVG by the file's suffix.
QString exportImage(QWidget* widget, const QString& path, const QString& title);
// CSV text or a JSON object by the file's suffix (.csv / .json).
QString exportData(const QString& path, const QString& csv, const QJsonObject& json);

}  // namespace rbmscope
