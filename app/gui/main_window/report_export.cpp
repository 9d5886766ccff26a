// File → Export report: one self-contained HTML page (issue #18) with the model summary, each
// view that holds results as an inline SVG figure, the numbers, and the rbmscope-cli command that
// reproduces each result (main_window/cli_equivalent.hpp). A model the CLI cannot name (anything
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
#include "main_window/cli_equivalent.hpp"
#include "main_window/main_window.hpp"
#include "main_window/view_export.hpp"

namespace rbmscope {
namespace {

QString num(double x, int digits = 6) {
    if (!std::isfinite(x)) return QStringLiteral("—");
    return QString::number(x, 'g', digits);
}

QString esc(const QString& s) { return s.toHtmlEscaped(); }

// The widget as an <svg> element (heatmaps are embedded images inside it), drawn at `size`: a
// tab that is not the current one keeps whatever size it last had (a never-shown one 100 x 30,
// whose text would then fill the figure), so it is given the current tab's first.
QString inlineSvg(QWidget* w, const QString& title, QSize size) {
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

QString commandBlock(const CliEquivalent& c) {
    if (c.argv.empty())
        return QStringLiteral("<p class=\"note\">No command line reproduces this exactly: rbmscope-cli has no option for %1.</p>")
            .arg(esc(c.missing));
    return QStringLiteral("<pre class=\"cmd\">%1</pre>").arg(esc(QString::fromStdString(rbm::shell_command_line(c.argv))));
}

QString row(const QString& key, const QString& value) {
    return QStringLiteral("<tr><th>%1</th><td>%2</td></tr>").arg(esc(key), value);
}

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
    const std::string modelArg = cliModelArgument(info.absolutePath(), info.completeBaseName(), false, &modelNote, &modelError);
    if (modelArg.empty()) return modelError;
    const rbm::ModelKind kind = model_.kind();
    const QSize pageSize = tabs_->currentWidget()->size();

    QString html;
    html += QStringLiteral("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>rbmscope report — %1</title><style>%2</style></head><body>\n")
                .arg(esc(modelTitle()), QString::fromLatin1(kStyle));
    html += QStringLiteral("<h1>rbmscope report: %1</h1>\n").arg(esc(modelTitle()));
    html += QStringLiteral("<p class=\"meta\">Written %1 by rbmscope (File → Export report).</p>\n")
                .arg(QDateTime::currentDateTime().toString(Qt::ISODate));

    // Model.
    html += QStringLiteral("<h2 id=\"model\">Model</h2>\n<table>");
    html += row(tr("kind"), QString::fromLatin1(rbm::kind_name(kind)));
    html += row(tr("visible units n"), QString::number(model_.n_visible()));
    html += row(tr("hidden units m"), QString::number(model_.n_hidden()));
    html += row(tr("opened from"), esc(modelEdited_ ? origin_ + tr(" (edited since)") : origin_));
    if (exactLogZ_) html += row(tr("exact log Z"), QStringLiteral("<span class=\"n\">%1</span>").arg(num(*exactLogZ_, 10)));
    html += QStringLiteral("</table>\n");
    if (!modelNote.isEmpty()) html += QStringLiteral("<p class=\"meta\">%1</p>\n").arg(esc(modelNote));
    if (model_.n_visible() == 2) html += inlineSvg(density_, tr("Target density"), pageSize);

    // AIS: the Annealing view's run, one row and one command per method.
    bool anyAis = false;
    for (const LaneRun& l : run_->lanes()) anyAis = anyAis || l.result.has_value();
    if (anyAis) {
        html += QStringLiteral("<h2 id=\"ais\">Annealed importance sampling</h2>\n");
        html += inlineSvg(annealing_, tr("Annealing"), pageSize);
        html += QStringLiteral("<table><tr><th>method</th><th>log Ẑ</th><th>95% interval (bootstrap)</th><th>ESS</th><th>K</th><th>N</th><th>state</th></tr>");
        for (const LaneRun& l : run_->lanes()) {
            if (!l.result) continue;
            const rbm::AisResult& r = *l.result;
            const QString state = r.complete ? tr("complete")
                                             : tr("partial (β = %1; log Ẑ_β, not log Z)").arg(num(r.beta_reached, 4));
            html += QStringLiteral("<tr><td>%1</td><td class=\"n\">%2</td><td class=\"n\">[%3, %4]</td><td class=\"n\">%5</td><td class=\"n\">%6</td><td class=\"n\">%7</td><td>%8</td></tr>")
                        .arg(esc(l.label), num(r.estimate.log_z, 8), num(r.estimate.ci95_low, 8), num(r.estimate.ci95_high, 8),
                             num(r.estimate.ess, 4))
                        .arg(r.steps)
                        .arg(run_->chains())
                        .arg(esc(state));
        }
        html += QStringLiteral("</table>\n");
        if (exactLogZ_) html += QStringLiteral("<p>Exact log Z = %1.</p>\n").arg(num(*exactLogZ_, 10));
        for (const LaneRun& l : run_->lanes()) {
            if (!l.result) continue;
            html += QStringLiteral("<p>%1:</p>").arg(esc(l.label));
            html += commandBlock(aisCommand(modelArg, kind, settings_, l.spec));
        }
        if (run_->lanes().size() > 1) html += inlineSvg(compare_, tr("Compare"), pageSize);
    }

    // Estimates: the sweep over K.
    if (!sweep_->points().empty()) {
        html += QStringLiteral("<h2 id=\"sweep\">Estimates against the number of steps K</h2>\n");
        html += inlineSvg(estimates_, tr("Estimates"), pageSize);
        html += QStringLiteral("<table><tr><th>method</th><th>K</th><th>log Ẑ</th><th>95% interval</th><th>ESS</th></tr>");
        for (const SweepPoint& p : sweep_->points()) {
            const QString label = p.lane < sweep_->laneLabels().size() ? sweep_->laneLabels()[p.lane] : QString::number(p.lane);
            html += QStringLiteral("<tr><td>%1</td><td class=\"n\">%2</td><td class=\"n\">%3</td><td class=\"n\">[%4, %5]</td><td class=\"n\">%6</td></tr>")
                        .arg(esc(label))
                        .arg(p.steps)
                        .arg(num(p.estimate.log_z, 8), num(p.estimate.ci95_low, 8), num(p.estimate.ci95_high, 8), num(p.estimate.ess, 4));
        }
        html += QStringLiteral("</table>\n");
        html += commandBlock(sweepCommand(modelArg, kind, settings_));
    }
    // Mean field: the three methods' free energies beside -log Z, and the command of each.
    const std::array<double, 4> mf = meanfield_->freeEnergies();
    if (kind == rbm::ModelKind::Grbm && std::any_of(mf.begin(), mf.begin() + 3, [](double x) { return std::isfinite(x); })) {
        html += QStringLiteral("<h2 id=\"meanfield\">Mean field</h2>\n");
        html += inlineSvg(meanfield_, tr("Mean field"), pageSize);
        const rbm::MeanFieldType types[3] = {rbm::MeanFieldType::TypeI, rbm::MeanFieldType::TypeII, rbm::MeanFieldType::Tap};
        const QString names[3] = {tr("type I"), tr("type II"), tr("TAP")};
        html += QStringLiteral("<table><tr><th>method</th><th>free energy</th><th>F − (−log Z)</th></tr>");
        for (int i = 0; i < 3; ++i)
            html += QStringLiteral("<tr><td>%1</td><td class=\"n\">%2</td><td class=\"n\">%3</td></tr>")
                        .arg(names[i], num(mf[static_cast<std::size_t>(i)], 10), num(mf[static_cast<std::size_t>(i)] - mf[3], 4));
        html += QStringLiteral("<tr><td>exact −log Z</td><td class=\"n\">%1</td><td></td></tr></table>\n").arg(num(mf[3], 10));
        for (int i = 0; i < 3; ++i) {
            if (!std::isfinite(mf[static_cast<std::size_t>(i)])) continue;  // a reopened result holds one method
            html += QStringLiteral("<p>%1:</p>").arg(names[i]);
            if (const auto& o = meanfield_->shownOptions())
                html += commandBlock(meanFieldCommand(modelArg, *o, types[i]));
            else
                html += QStringLiteral("<p class=\"note\">Reopened from a result file: its own command line (shown in the app) reproduces it.</p>");
        }
    }
    // Tempering: the view's last pt run (or the reopened result it shows): ladder, swap rates, round trips.
    if (const TemperingFrame* f = tempering_->shownFrame(); f && !f->stats.betas.empty()) {
        const rbm::PtStats& st = f->stats;
        html += QStringLiteral("<h2 id=\"tempering\">Parallel tempering</h2>\n");
        html += inlineSvg(tempering_, tr("Tempering"), pageSize);
        html += QStringLiteral("<table>");
        html += row(tr("scheme"), QString::fromLatin1(rbm::pt_scheme_name(st.scheme)));
        html += row(tr("replicas (ladder points)"), QString::number(st.betas.size()));
        html += row(tr("chains"), QString::number(st.chains));
        html += row(tr("scans (final run)"), QString::number(st.scans));
        html += row(tr("round trips"), QString::number(st.total_round_trips()));
        html += row(tr("round-trip rate (per scan and chain)"), num(st.round_trip_rate(), 8));
        html += row(tr("predicted round-trip rate"), num(st.predicted_round_trip_rate(), 8));
        html += row(tr("barrier Λ"), num(st.barrier(), 8));
        html += row(tr("state"), f->finished ? tr("complete") : tr("stopped before the end"));
        html += QStringLiteral("</table>\n<table><tr><th>pair</th><th>β_k</th><th>β_k+1</th><th>swap acceptance</th></tr>");
        const std::vector<double> acc = st.acceptance();
        for (std::size_t k = 0; k < acc.size() && k + 1 < st.betas.size(); ++k)
            html += QStringLiteral("<tr><td class=\"n\">%1</td><td class=\"n\">%2</td><td class=\"n\">%3</td><td class=\"n\">%4</td></tr>")
                        .arg(k)
                        .arg(num(st.betas[k], 8), num(st.betas[k + 1], 8), num(acc[k], 8));
        html += QStringLiteral("</table>\n");
        if (const auto& ran = tempering_->lastRunSettings(); ran && tempering_->lastRunFinished())
            html += commandBlock(ptCommand(modelArg, *ran));
        else if (ran)
            html += QStringLiteral("<p class=\"note\">The run was stopped before the end: no command line gives these partial figures.</p>");
        else
            html += QStringLiteral("<p class=\"note\">Reopened from a result file: its own command line (shown in the app) reproduces it.</p>");
    }
    // Training: the view's most recent run with results: its curves, final figures and command.
    const TrainingRun* trun = nullptr;
    for (int id : training_->session()->ids())
        if (const TrainingRun* r = training_->session()->run(id); r && r->snapshot && !r->snapshot->log.empty()) trun = r;
    if (trun) {
        const TrainSnapshot& snap = *trun->snapshot;
        const rbm::TrainRecord& last = snap.log.back();
        html += QStringLiteral("<h2 id=\"training\">Training</h2>\n");
        // The charts hold every run of the view; half the page's height is plenty for a curve.
        const QSize chartSize(pageSize.width(), std::max(300, pageSize.height() / 2));
        html += inlineSvg(training_->likelihoodChart(), tr("Training: average log-likelihood"), chartSize);
        html += QStringLiteral("<p>%1</p>").arg(tr("Reconstruction error, mean |v − E[v | E[h | v]]|²:"));
        html += inlineSvg(training_->reconstructionChart(), tr("Training: reconstruction error"), chartSize);
        const rbm::TrainOptions& o = trun->options;
        html += QStringLiteral("<table>");
        html += row(tr("run"), esc(trun->label));
        html += row(tr("data"), esc(describe(trun->data)));
        html += row(tr("model"), QStringLiteral("%1, %2 hidden units").arg(QString::fromLatin1(rbm::kind_name(o.kind))).arg(o.hidden));
        html += row(tr("method"), QStringLiteral("%1, k = %2, batch %3, learning rate %4, seed %5")
                                      .arg(QString::fromLatin1(rbm::train_method_name(o.method)))
                                      .arg(o.k)
                                      .arg(o.batch)
                                      .arg(num(o.learning_rate))
                                      .arg(o.seed));
        html += row(tr("updates"), QStringLiteral("%1 of %2").arg(snap.updatesDone).arg(o.updates));
        html += row(tr("state"), esc(QString::fromLatin1(rbm::train_status_name(snap.status))));
        if (!last.log_likelihood_method.empty())
            html += row(tr("final average log-likelihood (%1)").arg(QString::fromStdString(last.log_likelihood_method)),
                        num(last.log_likelihood, 10));
        html += row(tr("final reconstruction error"), num(last.reconstruction_error, 10));
        html += QStringLiteral("</table>\n");
        if (!trun->fromCheckpoint.isEmpty())
            html += QStringLiteral("<p class=\"note\">This run continued the checkpoint %1: no command line started here reproduces the updates before it.</p>")
                        .arg(esc(trun->fromCheckpoint));
        else if (snap.status != rbm::TrainStatus::Finished)
            html += QStringLiteral("<p class=\"note\">The run did not finish (%1): no command line gives these partial figures.</p>")
                        .arg(esc(QString::fromLatin1(rbm::train_status_name(snap.status))));
        else
            html += commandBlock(trainCommand(trun->data, o, info.completeBaseName().toStdString() + ".trained.json"));
    }
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
