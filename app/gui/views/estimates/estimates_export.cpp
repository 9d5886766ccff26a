// The Estimates view's data export (File → Export data): every plotted number as CSV or JSON.
#include "views/estimates/estimates_view.hpp"

#include <QAreaSeries>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QLegendMarker>
#include <QTextStream>
#include <QVBoxLayout>
#include <cmath>
#include <limits>

namespace rbmscope {

QString EstimatesView::exportCsv() const {
    QString out;
    QTextStream s(&out);
    s.setRealNumberPrecision(17);  // round-trips doubles exactly
    s << "method,K,log_z,ci95_low,ci95_high,log_z_low_3sigma,log_z_high_3sigma,ess,ess_fraction,log_w_mean,log_w_var,"
         "reverse_upper,seconds,exact_log_z\n";
    if (!sweep_) return out;
    for (const SweepPoint& p : sweep_->points()) {
        const rbm::AisEstimate& e = p.estimate;
        s << '"' << sweep_->laneLabels().value(p.lane) << '"' << ',' << p.steps << ',' << e.log_z << ',' << e.ci95_low
          << ',' << e.ci95_high << ',';
        if (e.log_z_low) s << *e.log_z_low;
        s << ',' << e.log_z_high << ',' << e.ess << ',' << e.ess_fraction << ',' << e.log_w_mean << ',' << e.log_w_var
          << ',';
        if (p.reverseUpper) s << *p.reverseUpper;
        s << ',' << p.seconds << ',';
        if (exact_) s << *exact_;
        s << '\n';
    }
    return out;
}

QJsonObject EstimatesView::exportJson() const {
    QJsonObject o;
    o[QStringLiteral("view")] = QStringLiteral("estimates");
    if (exact_) o[QStringLiteral("exact_log_z")] = *exact_;
    QJsonArray sweep;
    if (sweep_)
        for (const SweepPoint& p : sweep_->points()) {
            const rbm::AisEstimate& e = p.estimate;
            QJsonObject q{{"method", sweep_->laneLabels().value(p.lane)},
                          {"K", static_cast<qint64>(p.steps)},
                          {"log_z", e.log_z},
                          {"ci95", QJsonArray{e.ci95_low, e.ci95_high}},
                          {"log_z_high", e.log_z_high},
                          {"ess", e.ess},
                          {"ess_fraction", e.ess_fraction},
                          {"log_w_mean", e.log_w_mean},
                          {"log_w_var", e.log_w_var},
                          {"seconds", p.seconds}};
            q[QStringLiteral("log_z_low")] = e.log_z_low ? QJsonValue(*e.log_z_low) : QJsonValue();
            if (p.reverseUpper) q[QStringLiteral("reverse_upper")] = *p.reverseUpper;
            sweep.append(q);
        }
    o[QStringLiteral("sweep")] = sweep;
    QJsonArray runs;
    if (run_)
        for (const LaneRun& l : run_->lanes()) {
            QJsonObject q{{"method", l.label}};
            if (!l.error.isEmpty()) q[QStringLiteral("error")] = l.error;
            if (l.result) {
                const rbm::AisEstimate& e = l.result->estimate;
                q[QStringLiteral("complete")] = l.result->complete;
                q[QStringLiteral("K")] = static_cast<qint64>(l.result->steps);
                q[QStringLiteral("log_z")] = e.log_z;
                q[QStringLiteral("ci95")] = QJsonArray{e.ci95_low, e.ci95_high};
                q[QStringLiteral("ess")] = e.ess;
                q[QStringLiteral("log_z0")] = l.result->log_z0;
                if (l.result->reverse && l.result->reverse->log_z_upper)
                    q[QStringLiteral("reverse_upper")] = *l.result->reverse->log_z_upper;
                QJsonArray running;
                for (const rbm::RunningPoint& p : l.result->running) running.append(QJsonArray{p.beta, p.log_z, p.ess});
                q[QStringLiteral("running")] = running;
                QJsonArray hist;
                for (rbm::Index c : e.histogram.counts) hist.append(static_cast<qint64>(c));
                q[QStringLiteral("histogram")] =
                    QJsonObject{{"lo", e.histogram.lo}, {"hi", e.histogram.hi}, {"counts", hist}};
            }
            runs.append(q);
        }
    o[QStringLiteral("run")] = runs;
    return o;
}

}  // namespace rbmscope
