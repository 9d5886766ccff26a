#include "main_window/view_export.hpp"

#include <QApplication>
#include <QDir>
#include <QSettings>

#include <QFileInfo>
#include <QImage>
#include <QJsonDocument>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>

#include "views/export_hidden.hpp"

namespace rbmscope {
QString writeAtomically(const QString& path, const QByteArray& bytes) {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return QStringLiteral("cannot write %1: %2").arg(path, f.errorString());
    if (f.write(bytes) != bytes.size() || !f.commit())
        return QStringLiteral("cannot write %1: %2").arg(path, f.errorString());
    return {};
}

QString lastExportFolder() { return QSettings().value(QStringLiteral("export/folder"), QDir::homePath()).toString(); }

void rememberExportFolder(const QString& file) {
    QSettings().setValue(QStringLiteral("export/folder"), QFileInfo(file).absolutePath());
}

ControlsLeftOut::ControlsLeftOut(QWidget* root) {
    for (QWidget* w : root->findChildren<QWidget*>())
        if (w->property(kExportHidden).toBool() && w->isVisible()) {
            w->hide();
            hidden_ << w;
        }
    if (!hidden_.isEmpty()) QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
}

ControlsLeftOut::~ControlsLeftOut() {
    for (const QPointer<QWidget>& w : hidden_)
        if (w) w->show();
    if (!hidden_.isEmpty()) QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
}

QImage renderImage(QWidget* widget, double dpi) {
    const ControlsLeftOut figuresOnly(widget);
    const double scale = dpi / 96.0;
    // The widget paints itself at `scale` (text, lines and markers redrawn, not pixels stretched).
    QImage image(QSize(qRound(widget->width() * scale), qRound(widget->height() * scale)),
                 QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(scale);
    image.fill(widget->palette().window().color());
    widget->render(&image);
    image.setDevicePixelRatio(1);
    image.setDotsPerMeterX(qRound(dpi / 0.0254));
    image.setDotsPerMeterY(qRound(dpi / 0.0254));
    return image;
}

QString exportImage(QWidget* widget, const QString& path, const QString& title, double dpi) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png")) {
        if (!(dpi >= kMinExportDpi && dpi <= kMaxExportDpi))
            return QStringLiteral("the resolution must be from %1 to %2 dpi, got %3")
                .arg(kMinExportDpi)
                .arg(kMaxExportDpi)
                .arg(dpi);
        const QImage image = renderImage(widget, dpi);
        if (!image.save(path, "PNG")) return QStringLiteral("cannot write the PNG image %1").arg(path);
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
        const ControlsLeftOut figuresOnly(widget);
        gen.setSize(widget->size());  // its size without the controls
        gen.setViewBox(QRect(QPoint(0, 0), widget->size()));
        QPainter painter;
        if (!painter.begin(&gen)) return QStringLiteral("cannot write the SVG image %1").arg(path);
        widget->render(&painter);
        painter.end();
        if (!QFileInfo(path).exists() || QFileInfo(path).size() == 0)
            return QStringLiteral("cannot write the SVG image %1").arg(path);
        return {};
    }
    return QStringLiteral("unknown image format '.%1': use .png or .svg").arg(suffix);
}

QString exportData(const QString& path, const QString& csv, const QJsonObject& json) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("csv")) return writeAtomically(path, csv.toUtf8());
    if (suffix == QLatin1String("json"))
        return writeAtomically(path, QJsonDocument(json).toJson(QJsonDocument::Indented));
    return QStringLiteral("unknown data format '.%1': use .csv or .json").arg(suffix);
}

}  // namespace rbmscope
