#pragma once
// Pieces of the HTML report (File → Export report) that every view's section uses: a widget as an
// inline <svg>, the rbmscope-cli command block, a table row, numbers as the report prints them.
#include <QSize>
#include <QString>

class QWidget;

namespace rbmscope {

struct CliEquivalent;

QString reportNumber(double x, int digits = 6);  // "—" when not finite
inline QString reportEscape(const QString& s) { return s.toHtmlEscaped(); }
// The widget as an <svg> element (heatmaps are embedded images inside it), drawn at `size`.
QString reportSvg(QWidget* w, const QString& title, QSize size);
QString reportCommand(const CliEquivalent& c);                // <pre> with the command, or why there is none
QString reportRow(const QString& key, const QString& value);  // value is HTML

}  // namespace rbmscope
