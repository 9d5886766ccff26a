#include "main_window/view_export.hpp"

#include <QFileInfo>
#include <QJsonDocument>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>

namespace rbmscope {
namespace {

QString writeAtomically(const QString& path, const QByteArray& bytes) {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return QStringLiteral("cannot write %1: %2").arg(path, f.errorString());
    if (f.write(bytes) != bytes.size() || !f.commit()) return QStringLiteral("cannot write %1: %2").arg(path, f.errorString());
    return {};
}

}  // namespace

QString exportImage(QWidget* widget, const QString& path, const QString& title) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png")) {
        if (!widget->grab().save(path, "PNG")) return QStringLiteral("cannot write the PNG image %1").arg(path);
        return {};
    }
    if (suffix == QLatin1String("svg")) {
        QSvgGenerator gen;
        gen.setFileName(path);
        gen.setResolution(90);  // QSvgRenderer reads mm at 90 dpi, so the SVG reopens at the widget size
        gen.setSize(widget->size());
        gen.setViewBox(QRect(QPoint(0, 0), widget->size()));
        gen.setTitle(title);
        gen.setDescription(QStringLiteral("rbmscope view"));
        QPainter painter;
        if (!painter.begin(&gen)) return QStringLiteral("cannot write the SVG image %1").arg(path);
        widget->render(&painter);
        painter.end();
        if (!QFileInfo(path).exists() || QFileInfo(path).size() == 0) return QStringLiteral("cannot write the SVG image %1").arg(path);
        return {};
    }
    return QStringLiteral("unknown image format '.%1': use .png or .svg").arg(suffix);
}

QString exportData(const QString& path, const QString& csv, const QJsonObject& json) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("csv")) return writeAtomically(path, csv.toUtf8());
    if (suffix == QLatin1String("json")) return writeAtomically(path, QJsonDocument(json).toJson(QJsonDocument::Indented));
    return QStringLiteral("unknown data format '.%1': use .csv or .json").arg(suffix);
}

}  // namespace rbmscope
