// File → Export report: one self-contained HTML page with the model summary and each
// view's section (View::reportSection: its results as an inline SVG figure, the numbers, and the
// rbmscope-cli command that reproduces each, views/cli_equivalent.hpp). A model the CLI cannot name (anything
// but an unchanged preset) is written next to the page, since a command needs a file to read.
#include <QBuffer>
#include <QDateTime>
#include <QFileDialog>
#include <QFileInfo>
#include <QLayout>
#include <QPainter>
#include <QRegularExpression>
#include <QSvgGenerator>
#include <algorithm>
#include <array>
#include <cmath>

#include "core/io/model_io.hpp"
#include "core/io/result_source.hpp"
#include "core/kernels/build_info.hpp"
#include "core/numerics/parallel.hpp"
#include "main_window/main_window.hpp"
#include "main_window/view_export.hpp"
#include "views/cli_equivalent.hpp"
#include "views/report_html.hpp"

namespace rbmscope {
namespace {

QString num(double x, int digits = 6) { return reportNumber(x, digits); }
QString esc(const QString& s) { return reportEscape(s); }
QString row(const QString& key, const QString& value) { return reportRow(key, value); }

const char* kStyle = R"(
body { font-family: sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; border-bottom: 1px solid #ccc; padding-bottom: .2rem; margin-top: 2rem; }
table { border-collapse: collapse; margin: .5rem 0; } th, td { padding: .2rem .7rem; border: 1px solid #ddd; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
pre.cmd { background: #f4f4f4; padding: .5rem; white-space: pre-wrap; word-break: break-all; }
svg.figure { width: 100%; height: auto; border: 1px solid #eee; }
.note { color: #8a5a00; } .meta { color: #666; font-size: .9rem; }
)";

}  // namespace

QString MainWindow::exportReport(const QString& path) {
    const QFileInfo info(path);
    if (info.suffix().toLower() != QLatin1String("html") && info.suffix().toLower() != QLatin1String("htm"))
        return QStringLiteral("a report is an HTML page: give the file name the suffix .html");
    // What the commands name as MODEL.
    QString modelNote, modelError;
    const std::string modelArg =
        cliModelArgument(info.absolutePath(), info.completeBaseName(), false, &modelNote, &modelError);
    if (modelArg.empty()) return modelError;
    const rbm::ModelKind kind = model_.kind();
    const QSize pageSize = activeView() ? activeView()->widget()->size() : tabs_->currentWidget()->size();

    QString html;
    html += QStringLiteral(
                "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>rbmscope report — "
                "%1</title><style>%2</style></head><body>\n")
                .arg(esc(modelTitle()), QString::fromLatin1(kStyle));
    html += QStringLiteral("<h1>rbmscope report: %1</h1>\n").arg(esc(modelTitle()));
    html += QStringLiteral("<p class=\"meta\">Written %1 by rbmscope (File → Export report).</p>\n")
                .arg(QDateTime::currentDateTime().toString(Qt::ISODate));
    // Which build made the numbers: GRBM, leaky and float32 bits differ between SIMD paths.
    try {
        const nlohmann::json b = rbm::provenance_json(rbm::threads_in_force(), 1);
        html += QStringLiteral(
                    "<p class=\"meta\" id=\"build\">Build: rbmscope %1 (commit %2), %3, SIMD path "
                    "%4, %5 threads, %6 rank.</p>\n")
                    .arg(esc(QString::fromStdString(b.at("version").get<std::string>())),
                         esc(QString::fromStdString(b.at("commit").get<std::string>())),
                         esc(QString::fromStdString(b.at("compiler").get<std::string>())),
                         esc(QString::fromStdString(b.at("simd").get<std::string>())))
                    .arg(b.at("threads").get<int>())
                    .arg(b.at("ranks").get<int>());
    } catch (const std::exception&) {  // RBMSCOPE_SIMD names a path this machine lacks: none recorded
    }

    // Model.
    html += QStringLiteral("<h2 id=\"model\">Model</h2>\n<table>");
    html += row(tr("kind"), QString::fromLatin1(rbm::kind_name(kind)));
    html += row(tr("visible units n"), QString::number(model_.n_visible()));
    html += row(tr("hidden units m"), QString::number(model_.n_hidden()));
    html += row(tr("opened from"), esc(modelEdited_ ? origin_ + tr(" (edited since)") : origin_));
    if (exactLogZ_)
        html += row(tr("exact log Z"), QStringLiteral("<span class=\"n\">%1</span>").arg(num(*exactLogZ_, 10)));
    html += QStringLiteral("</table>\n");
    if (!modelNote.isEmpty()) html += QStringLiteral("<p class=\"meta\">%1</p>\n").arg(esc(modelNote));
    // Each view's section, in tab order (the density's figure belongs to the model).
    ReportContext r;
    r.modelArg = modelArg;
    r.kind = kind;
    r.settings = settings_;
    r.pageSize = pageSize;
    r.baseName = info.completeBaseName();
    for (const View* v : views_) html += v->reportSection(r);
    html += QStringLiteral("</body></html>\n");

    return writeAtomically(path, html.toUtf8());
}

void MainWindow::exportReportDialog() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export report"), QStringLiteral("rbmscope-report.html"),
                                                      tr("HTML page (*.html)"));
    if (path.isEmpty()) return;
    if (const QString err = exportReport(path); !err.isEmpty()) showError(tr("Cannot export the report"), err);
}

}  // namespace rbmscope
