// The View interface's defaults (views/view.hpp) and the report's shared pieces (report_html.hpp).
#include "views/view.hpp"

#include <QBuffer>
#include <QLayout>
#include <QPainter>
#include <QRegularExpression>
#include <QSvgGenerator>
#include <QWidget>
#include <cmath>

#include "core/io/result_source.hpp"
#include "views/cli_equivalent.hpp"
#include "views/report_html.hpp"

namespace rbmscope {

void View::saveSession(rbm::Session& s) const {
    const std::vector<SessionField> fields = sessionFields();
    if (!fields.empty()) s.views[name().toStdString()] = fieldsToMap(fields);
}

QString View::readSession(const rbm::Session& s) {
    const auto it = s.views.find(name().toStdString());
    if (it == s.views.end()) return {};
    return checkFields(it->second, sessionFields(), "views." + name().toStdString() + ".");
}

void View::applySession(const rbm::Session& s) {
    const auto it = s.views.find(name().toStdString());
    if (it != s.views.end()) applyFields(it->second, sessionFields());
}

QString View::exportData(QString* csv, QJsonObject* json) const {
    // Views export through Q_INVOKABLE QString exportCsv() / QJsonObject exportJson() on their widget.
    QWidget* v = widget();
    if (!QMetaObject::invokeMethod(v, "exportCsv", Qt::DirectConnection, Q_RETURN_ARG(QString, *csv)) ||
        !QMetaObject::invokeMethod(v, "exportJson", Qt::DirectConnection, Q_RETURN_ARG(QJsonObject, *json)))
        return tr("the %1 view has no data to export").arg(title());
    return {};
}

std::optional<CliEquivalent> View::cliCommand(const std::string&, const QString&, const QString&, bool*) const {
    return std::nullopt;
}

QString View::playbackFrames(int, PlaybackFrames*) {
    return tr("playback frames are exported from the Annealing, Compare or Tempering view; the current view is %1")
        .arg(name());
}

ShownResult View::showResult(const rbm::ResultFile&, const QString&, const std::vector<rbm::TrainFileRecord>&) {
    return {};
}

QString reportNumber(double x, int digits) {
    if (!std::isfinite(x)) return QStringLiteral("—");
    return QString::number(x, 'g', digits);
}

// A tab that is not the current one keeps whatever size it last had (a never-shown one 100 x 30,
// whose text would then fill the figure), so it is given the current tab's first.
QString reportSvg(QWidget* w, const QString& title, QSize size) {
    if (w->size() != size) w->resize(size);
    if (QLayout* l = w->layout()) l->activate();
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator gen;
    gen.setOutputDevice(&buffer);
    gen.setResolution(90);
    gen.setSize(w->size());
    gen.setViewBox(QRect(QPoint(0, 0), w->size()));
    gen.setTitle(title);
    QPainter painter;
    if (!painter.begin(&gen)) return {};
    w->render(&painter);
    painter.end();
    QString svg = QString::fromUtf8(buffer.data());
    // Inline SVG: the XML declaration goes; the figure scales with the page.
    const int start = svg.indexOf(QStringLiteral("<svg"));
    if (start < 0) return {};
    svg = svg.mid(start);
    svg.replace(QRegularExpression(QStringLiteral("<svg width=\"[^\"]*\" height=\"[^\"]*\"")),
                QStringLiteral("<svg class=\"figure\""));
    return svg;
}

QString reportCommand(const CliEquivalent& c) {
    if (c.argv.empty())
        return QStringLiteral(
                   "<p class=\"note\">No command line reproduces this exactly: rbmscope-cli has no option for %1.</p>")
            .arg(reportEscape(c.missing));
    return QStringLiteral("<pre class=\"cmd\">%1</pre>")
        .arg(reportEscape(QString::fromStdString(rbm::shell_command_line(c.argv))));
}

QString reportRow(const QString& key, const QString& value) {
    return QStringLiteral("<tr><th>%1</th><td>%2</td></tr>").arg(reportEscape(key), value);
}

QString modelSaveFilter() {
    return QObject::tr("Model file (*.json);;NumPy (*.npz);;MATLAB v5 (*.mat);;HDF5 (*.h5 *.hdf5)");
}

}  // namespace rbmscope
