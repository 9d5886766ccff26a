#include "views/estimates/estimates_view.hpp"
#include "views/estimates/verdict_panel.hpp"
#include "views/export_hidden.hpp"

#include <QAreaSeries>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QLegendMarker>
#include <QShortcut>
#include <QTabWidget>
#include <QTextStream>
#include <QVBoxLayout>
#include <cmath>
#include <limits>

namespace rbmscope {
namespace {

QChart* makeChart(const QString& title) {
    auto* c = new QChart;
    c->setTitle(title);
    QFont f = c->titleFont();
    f.setBold(true);
    c->setTitleFont(f);
    c->setAnimationOptions(QChart::NoAnimation);
    c->legend()->setAlignment(Qt::AlignBottom);
    c->setMargins(QMargins(4, 4, 4, 4));
    c->setBackgroundRoundness(0);
    return c;
}

void hideFromLegend(QChart* c, QAbstractSeries* s) {
    for (QLegendMarker* m : c->legend()->markers(s)) m->setVisible(false);
}

struct Range {
    double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
    void add(double v) {
        if (!std::isfinite(v)) return;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    bool valid() const { return lo <= hi; }
    // Padded by 8% (at least `minSpan` wide) for the axis.
    std::pair<double, double> padded(double minSpan) const {
        double a = lo, b = hi;
        if (b - a < minSpan) {
            const double m = 0.5 * (a + b);
            a = m - minSpan / 2;
            b = m + minSpan / 2;
        }
        const double pad = 0.08 * (b - a);
        return {a - pad, b + pad};
    }
};

QString fmt(double v, int prec = 3) { return std::isfinite(v) ? QString::number(v, 'f', prec) : QStringLiteral("—"); }

}  // namespace

QColor EstimatesView::laneColor(int i) {
    static const QColor palette[] = {QColor(31, 119, 180), QColor(214, 39, 40),   QColor(44, 160, 44),
                                     QColor(255, 127, 14), QColor(148, 103, 189), QColor(140, 86, 75)};
    return palette[static_cast<std::size_t>(i) % 6];
}

void EstimatesView::addVerdictPage(VerdictPanel* panel) {
    pages_->addTab(panel, tr("Verdict on log Z"));
    connect(panel, &VerdictPanel::started, this, [this, panel] { pages_->setCurrentWidget(panel); });
    // Ctrl+Shift+V anywhere in the window while this view is shown: the verdict page, run.
    auto* shortcut = new QShortcut(QKeySequence(tr("Ctrl+Shift+V")), this);
    shortcut->setContext(Qt::WindowShortcut);
    connect(shortcut, &QShortcut::activated, this, [this, panel] {
        if (isVisible()) panel->run();
    });
}

EstimatesView::EstimatesView(QWidget* parent) : QWidget(parent) {
    auto* root = new QVBoxLayout(this);
    root->setContentsMargins(4, 4, 4, 4);
    auto* bar = new QHBoxLayout;
    sweepButton_ = new QPushButton(tr("Run sweep over K"), this);
    sweepButton_->setToolTip(tr("AIS for every selected method at every K of the panel's sweep list"));
    barsBox_ = new QComboBox(this);
    barsBox_->addItem(tr("error bars: bootstrap 95%"));
    barsBox_->addItem(tr("error bars: ±3σ"));
    essBox_ = new QComboBox(this);
    essBox_->addItem(tr("ESS"));
    essBox_->addItem(tr("ESS / N"));
    histLane_ = new QComboBox(this);
    histLane_->setToolTip(tr("Method whose current run the histogram and summary describe"));
    sweepStatus_ = new QLabel(this);
    bar->addWidget(sweepButton_);
    bar->addWidget(barsBox_);
    bar->addWidget(essBox_);
    bar->addWidget(new QLabel(tr("Histogram of:"), this));
    bar->addWidget(histLane_);
    bar->addWidget(sweepStatus_, 1);
    root->addWidget(controlsRow(bar, this));

    summary_ = new QLabel(this);
    summary_->setTextFormat(Qt::RichText);
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    root->addWidget(summary_);

    auto* grid = new QGridLayout;
    grid->setSpacing(4);
    // log Z against K
    logZChart_ = makeChart(tr("log Ẑ against K"));
    logZX_ = new QLogValueAxis;
    logZX_->setBase(10);
    logZX_->setLabelFormat(QStringLiteral("%g"));
    logZX_->setTitleText(tr("K (annealing steps)"));
    logZX_->setMinorTickCount(8);
    logZY_ = new QValueAxis;
    logZY_->setTitleText(tr("log Ẑ"));
    logZY_->setLabelFormat(QStringLiteral("%g"));
    logZChart_->addAxis(logZX_, Qt::AlignBottom);
    logZChart_->addAxis(logZY_, Qt::AlignLeft);
    exactLine_ = new QLineSeries;
    exactLine_->setName(tr("exact log Z"));
    exactLine_->setPen(QPen(Qt::black, 1.5, Qt::DashLine));
    logZChart_->addSeries(exactLine_);
    exactLine_->attachAxis(logZX_);
    exactLine_->attachAxis(logZY_);
    logZView_ = new ErrorBarChartView(logZChart_, this);
    // ESS against K
    essChart_ = makeChart(tr("Effective sample size against K"));
    essX_ = new QLogValueAxis;
    essX_->setBase(10);
    essX_->setLabelFormat(QStringLiteral("%g"));
    essX_->setTitleText(tr("K (annealing steps)"));
    essX_->setMinorTickCount(8);
    essY_ = new QValueAxis;
    essY_->setTitleText(tr("ESS"));
    essY_->setLabelFormat(QStringLiteral("%g"));
    essChart_->addAxis(essX_, Qt::AlignBottom);
    essChart_->addAxis(essY_, Qt::AlignLeft);
    auto* essView = new QChartView(essChart_, this);
    essView->setRenderHint(QPainter::Antialiasing);
    // running estimate along beta
    runChart_ = makeChart(tr("Running estimate log Ẑ_β along β (current run)"));
    runX_ = new QValueAxis;
    runX_->setRange(0, 1);
    runX_->setTitleText(QStringLiteral("β"));
    runY_ = new QValueAxis;
    runY_->setTitleText(tr("log Ẑ_β"));
    runY_->setLabelFormat(QStringLiteral("%g"));
    runChart_->addAxis(runX_, Qt::AlignBottom);
    runChart_->addAxis(runY_, Qt::AlignLeft);
    runExact_ = new QLineSeries;
    runExact_->setName(tr("exact log Z (β = 1)"));
    runExact_->setPen(QPen(Qt::black, 1.5, Qt::DashLine));
    runChart_->addSeries(runExact_);
    runExact_->attachAxis(runX_);
    runExact_->attachAxis(runY_);
    auto* runView = new QChartView(runChart_, this);
    runView->setRenderHint(QPainter::Antialiasing);
    // log-weight histogram
    histChart_ = makeChart(tr("Log-weight histogram (current run)"));
    histX_ = new QValueAxis;
    histX_->setTitleText(tr("log w"));
    histX_->setLabelFormat(QStringLiteral("%g"));
    histY_ = new QValueAxis;
    histY_->setTitleText(tr("chains"));
    histY_->setLabelFormat(QStringLiteral("%g"));
    histChart_->addAxis(histX_, Qt::AlignBottom);
    histChart_->addAxis(histY_, Qt::AlignLeft);
    histUpper_ = new QLineSeries(this);
    histLower_ = new QLineSeries(this);
    histArea_ = new QAreaSeries(histUpper_, histLower_);
    histChart_->addSeries(histArea_);
    histArea_->attachAxis(histX_);
    histArea_->attachAxis(histY_);
    histChart_->legend()->setVisible(false);
    auto* histView = new QChartView(histChart_, this);
    histView->setRenderHint(QPainter::Antialiasing);

    for (QChartView* v : {static_cast<QChartView*>(logZView_), essView, runView, histView}) v->setMinimumSize(280, 200);
    grid->addWidget(logZView_, 0, 0);
    grid->addWidget(essView, 0, 1);
    grid->addWidget(runView, 1, 0);
    grid->addWidget(histView, 1, 1);
    // The charts and the verdict on log Z (addVerdictPage) as two pages: the verdict's table and
    // warnings need the room the charts take, on a 1280 x 720 projector too.
    pages_ = new QTabWidget(this);
    pages_->setDocumentMode(true);
    auto* charts = new QWidget(pages_);
    grid->setContentsMargins(0, 0, 0, 0);
    charts->setLayout(grid);
    pages_->addTab(charts, tr("Charts"));
    root->addWidget(pages_, 1);

    connect(sweepButton_, &QPushButton::clicked, this, &EstimatesView::sweepRequested);
    connect(barsBox_, &QComboBox::currentIndexChanged, this,
            [this](int i) { setBars(i == 0 ? Bars::Bootstrap95 : Bars::ThreeSigma); });
    connect(essBox_, &QComboBox::currentIndexChanged, this, [this](int i) { setEssFraction(i == 1); });
    connect(histLane_, &QComboBox::currentIndexChanged, this, [this] {
        refreshHistogram();
        refreshRun();
    });
    refreshSweep();
    refreshRun();
}

void EstimatesView::setExactLogZ(std::optional<double> logZ) {
    exact_ = logZ;
    refreshSweep();
    refreshRun();
}

void EstimatesView::setBars(Bars b) {
    bars_ = b;
    const int i = b == Bars::Bootstrap95 ? 0 : 1;
    if (barsBox_->currentIndex() != i) barsBox_->setCurrentIndex(i);
    refreshSweep();
}

void EstimatesView::setEssFraction(bool on) {
    essFraction_ = on;
    if (essBox_->currentIndex() != (on ? 1 : 0)) essBox_->setCurrentIndex(on ? 1 : 0);
    refreshSweep();
}

// Progress arrives up to 30 times a second; a hidden view only notes it and catches up when shown.
void EstimatesView::setSweep(const SweepJob* sweep) {
    sweep_ = sweep;
    if (isVisible()) refreshSweep();
    else staleSweep_ = true;
}

void EstimatesView::setRun(const AisJob* run) {
    run_ = run;
    if (isVisible()) refreshRun();
    else staleRun_ = true;
}

void EstimatesView::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    if (staleSweep_) refreshSweep();
    if (staleRun_) refreshRun();
    staleSweep_ = staleRun_ = false;
}

void EstimatesView::ensureSweepLanes(const QStringList& labels) {
    if (labels == sweepLabels_) return;
    for (LaneSeries& s : series_) {
        for (QAbstractSeries* x : std::initializer_list<QAbstractSeries*>{s.line, s.points, s.revLine, s.revPoints})
            logZChart_->removeSeries(x), delete x;
        for (QAbstractSeries* x : std::initializer_list<QAbstractSeries*>{s.ess, s.essPoints})
            essChart_->removeSeries(x), delete x;
    }
    series_.clear();
    logZView_->clearErrorBars();
    sweepLabels_ = labels;
    for (int i = 0; i < labels.size(); ++i) {
        const QColor col = laneColor(i);
        LaneSeries s;
        s.line = new QLineSeries;
        s.line->setName(labels[i]);
        s.line->setPen(QPen(col, 2));
        s.points = new QScatterSeries;
        s.points->setColor(col);
        s.points->setBorderColor(col);
        s.points->setMarkerSize(8);
        s.revLine = new QLineSeries;
        s.revLine->setName(labels[i] + tr(" (reverse, upper)"));
        s.revLine->setPen(QPen(col, 1.5, Qt::DashLine));
        s.revPoints = new QScatterSeries;
        s.revPoints->setMarkerShape(QScatterSeries::MarkerShapeTriangle);
        s.revPoints->setColor(Qt::white);
        s.revPoints->setBorderColor(col);
        s.revPoints->setMarkerSize(9);
        for (QXYSeries* x : std::initializer_list<QXYSeries*>{s.line, s.points, s.revLine, s.revPoints}) {
            logZChart_->addSeries(x);
            x->attachAxis(logZX_);
            x->attachAxis(logZY_);
        }
        hideFromLegend(logZChart_, s.points);
        hideFromLegend(logZChart_, s.revPoints);
        s.ess = new QLineSeries;
        s.ess->setName(labels[i]);
        s.ess->setPen(QPen(col, 2));
        s.essPoints = new QScatterSeries;
        s.essPoints->setColor(col);
        s.essPoints->setBorderColor(col);
        s.essPoints->setMarkerSize(8);
        for (QXYSeries* x : std::initializer_list<QXYSeries*>{s.ess, s.essPoints}) {
            essChart_->addSeries(x);
            x->attachAxis(essX_);
            x->attachAxis(essY_);
        }
        hideFromLegend(essChart_, s.essPoints);
        series_.push_back(s);
    }
}

void EstimatesView::ensureRunLanes(const QStringList& labels) {
    if (labels == runLabels_) return;
    for (QLineSeries* s : runSeries_) {
        runChart_->removeSeries(s);
        delete s;
    }
    runSeries_.clear();
    runLabels_ = labels;
    for (int i = 0; i < labels.size(); ++i) {
        auto* s = new QLineSeries;
        s->setName(labels[i]);
        s->setPen(QPen(laneColor(i), 2));
        runChart_->addSeries(s);
        s->attachAxis(runX_);
        s->attachAxis(runY_);
        runSeries_.push_back(s);
    }
    const QSignalBlocker block(histLane_);
    const int keep = histLane_->currentIndex();
    histLane_->clear();
    histLane_->addItems(labels);
    histLane_->setCurrentIndex(keep >= 0 && keep < labels.size() ? keep : 0);
}

int EstimatesView::plottedPoints() const {
    int n = 0;
    for (const LaneSeries& s : series_) n += static_cast<int>(s.points->count());
    return n;
}

void EstimatesView::refreshSweep() {
    const QStringList labels = sweep_ ? sweep_->laneLabels() : QStringList();
    ensureSweepLanes(labels);
    Range k, y, ess;
    const int lanes = static_cast<int>(series_.size());
    for (int i = 0; i < lanes; ++i) {
        QList<QPointF> pts, rev, essPts;
        std::vector<ErrorInterval> bars, revBars;
        // Spread the methods a little along K so their error bars do not overlap.
        const double dodge = std::pow(1.06, i - (lanes - 1) / 2.0);
        for (const SweepPoint& p : sweep_->points()) {
            if (p.lane != i) continue;
            const double x = static_cast<double>(p.steps) * dodge;
            k.add(static_cast<double>(p.steps));
            pts.append({x, p.estimate.log_z});
            ErrorInterval e;
            if (bars_ == Bars::Bootstrap95) {
                e = {p.estimate.ci95_low, p.estimate.ci95_high};
            } else {
                e.high = p.estimate.log_z_high;
                e.low = p.estimate.log_z_low ? *p.estimate.log_z_low : std::numeric_limits<double>::quiet_NaN();
            }
            bars.push_back(e);
            y.add(p.estimate.log_z);
            y.add(e.low);
            y.add(e.high);
            if (p.reverseUpper) {
                rev.append({x, *p.reverseUpper});
                revBars.push_back({p.reverseLow, p.reverseHigh});
                y.add(*p.reverseUpper);
            }
            const double essValue = essFraction_ ? p.estimate.ess_fraction : p.estimate.ess;
            essPts.append({x, essValue});
            ess.add(essValue);
        }
        LaneSeries& s = series_[static_cast<std::size_t>(i)];
        s.line->replace(pts);
        s.points->replace(pts);
        s.revLine->replace(rev);
        s.revPoints->replace(rev);
        s.revLine->setVisible(!rev.isEmpty());
        s.revPoints->setVisible(!rev.isEmpty());
        for (QLegendMarker* m : logZChart_->legend()->markers(s.revLine)) m->setVisible(!rev.isEmpty());
        hideFromLegend(logZChart_, s.points);  // (showing a series shows its legend marker again)
        hideFromLegend(logZChart_, s.revPoints);
        s.ess->replace(essPts);
        s.essPoints->replace(essPts);
        logZView_->setErrorBars(s.points, std::move(bars));
        logZView_->setErrorBars(s.revPoints, std::move(revBars));
    }
    // Axes.
    double kLo = 10, kHi = 1000;
    if (k.valid()) {
        kLo = k.lo / 1.6;
        kHi = k.hi * 1.6;
    } else if (sweep_ && !sweep_->steps().empty()) {
        kLo = static_cast<double>(sweep_->steps().front()) / 1.6;
        kHi = static_cast<double>(sweep_->steps().back()) * 1.6;
    }
    // A log axis labels only powers of ten: a range inside one decade (K = 20, 50 gives 12.5-80)
    // would have no label at all, so it is widened to the decades around it.
    if (std::floor(std::log10(kHi)) - std::ceil(std::log10(kLo)) < 1) {
        kLo = std::pow(10.0, std::floor(std::log10(kLo)));
        kHi = std::pow(10.0, std::ceil(std::log10(kHi)));
        if (kHi <= kLo) kHi = 10 * kLo;
    }
    logZX_->setRange(kLo, kHi);
    essX_->setRange(kLo, kHi);
    if (exact_) {
        y.add(*exact_);
        exactLine_->replace(QList<QPointF>{{kLo, *exact_}, {kHi, *exact_}});
    } else {
        exactLine_->clear();
    }
    for (QLegendMarker* m : logZChart_->legend()->markers(exactLine_)) m->setVisible(exact_.has_value());
    if (y.valid()) {
        const auto [a, b] = y.padded(0.2);
        logZY_->setRange(a, b);
    } else {
        logZY_->setRange(-1, 1);
    }
    const double essTop = essFraction_ ? 1.0 : static_cast<double>(std::max<rbm::Index>(1, chains_));
    essY_->setRange(0, ess.valid() ? std::max(ess.hi, essTop) * 1.05 : essTop * 1.05);
    essY_->setTitleText(essFraction_ ? tr("ESS / N") : tr("ESS"));
    essY_->applyNiceNumbers();
    logZY_->applyNiceNumbers();

    if (!sweep_ || (sweep_->points().empty() && !sweep_->running())) {
        sweepStatus_->setText(tr("No sweep yet: Run sweep runs AIS at every K of the panel's list."));
    } else {
        const int total = static_cast<int>(sweep_->steps().size()) *
                          static_cast<int>(std::count_if(sweep_->laneErrors().begin(), sweep_->laneErrors().end(),
                                                         [](const QString& e) { return e.isEmpty(); }));
        QString text = tr("%1 of %2 runs")
                           .arg(sweep_->points().size())
                           .arg(std::max<int>(total, static_cast<int>(sweep_->points().size())));
        if (sweep_->running()) text += tr(" — running, %1%").arg(static_cast<int>(sweep_->fraction() * 100));
        else if (sweep_->fraction() < 1.0) text += tr(" — stopped; the points computed are kept");
        for (int i = 0; i < sweep_->laneErrors().size(); ++i)
            if (!sweep_->laneErrors()[i].isEmpty())
                text += QStringLiteral("<br><span style='color:#c62828'>%1: %2</span>")
                            .arg(sweep_->laneLabels()[i].toHtmlEscaped(), sweep_->laneErrors()[i].toHtmlEscaped());
        sweepStatus_->setText(text);
    }
    logZView_->viewport()->update();
    // With no single run the summary speaks of the sweep, so it follows the sweep too.
    if (!run_ || run_->lanes().empty()) refreshRun();
}

void EstimatesView::refreshRun() {
    QStringList labels;
    if (run_)
        for (const LaneRun& l : run_->lanes()) labels << l.label;
    ensureRunLanes(labels);
    Range y;
    for (std::size_t i = 0; i < runSeries_.size(); ++i) {
        QList<QPointF> pts;
        pts.append({0.0, run_->lanes()[i].result ? run_->lanes()[i].result->log_z0
                                                 : std::numeric_limits<double>::quiet_NaN()});
        if (!std::isfinite(pts.front().y())) pts.clear();
        for (const rbm::RunningPoint& p : run_->lanes()[i].running) pts.append({p.beta, p.log_z});
        for (const QPointF& p : pts) y.add(p.y());
        runSeries_[i]->replace(pts);
    }
    if (exact_) {
        runExact_->replace(QList<QPointF>{{0.0, *exact_}, {1.0, *exact_}});
        y.add(*exact_);
    } else {
        runExact_->clear();
    }
    for (QLegendMarker* m : runChart_->legend()->markers(runExact_)) m->setVisible(exact_.has_value());
    if (y.valid()) {
        const auto [a, b] = y.padded(0.5);
        runY_->setRange(a, b);
        runY_->applyNiceNumbers();
    }
    refreshHistogram();

    // Summary of the current run.
    QString html;
    if (exact_) html += tr("Exact log Z = <b>%1</b>. ").arg(fmt(*exact_, 4));
    if (!run_ || run_->lanes().empty()) {
        const bool sweepShown = sweep_ && !sweep_->points().empty();
        summary_->setText(html + (sweepShown
                                      ? tr("The charts below show a single run; none yet (Run, F5, computes one).")
                                      : tr("No run yet: press Run (F5).")));
        return;
    }
    html +=
        QStringLiteral(
            "<table cellspacing='0' cellpadding='3'><tr><th align='left'>%1</th><th>log Ẑ</th><th>bootstrap 95%</th>"
            "<th>±3σ</th><th>ESS (ESS/N)</th><th>log w mean, var</th><th>sandwich: lower · "
            "upper</th><th>time</th></tr>")
            .arg(tr("method"));
    for (std::size_t i = 0; i < run_->lanes().size(); ++i) {
        const LaneRun& l = run_->lanes()[i];
        html += QStringLiteral("<tr><td><span style='color:%1'>■</span> %2</td>")
                    .arg(laneColor(static_cast<int>(i)).name(), l.label.toHtmlEscaped());
        if (!l.error.isEmpty()) {
            html += QStringLiteral("<td colspan='7' style='color:#c62828'>%1</td></tr>").arg(l.error.toHtmlEscaped());
            continue;
        }
        if (!l.result) {
            html +=
                QStringLiteral("<td colspan='7'>%1</td></tr>").arg(run_->running() ? tr("running…") : tr("not run"));
            continue;
        }
        const rbm::AisResult& r = *l.result;
        const rbm::AisEstimate& e = r.estimate;
        const QString partial = r.complete || r.steps_done == r.steps
                                    ? QString()
                                    : tr(" (stopped at β = %1: log Z_β)").arg(fmt(r.beta_reached));
        html += QStringLiteral("<td align='right'><b>%1</b>%2</td>").arg(fmt(e.log_z, 4), partial);
        // Below kReliableEss effective samples the bootstrap interval misses low (core/ais/estimates.hpp).
        const bool unreliable = e.ess < rbm::kReliableEss;
        html += QStringLiteral("<td align='center'%3>[%1, %2]%4</td>")
                    .arg(fmt(e.ci95_low), fmt(e.ci95_high),
                         unreliable ? QStringLiteral(" style='color:#c62828'") : QString(),
                         unreliable ? tr("<br>unreliable: ESS < %1").arg(rbm::kReliableEss) : QString());
        html += QStringLiteral("<td align='center'>[%1, %2]</td>")
                    .arg(e.log_z_low ? fmt(*e.log_z_low) : tr("none"), fmt(e.log_z_high));
        html += QStringLiteral("<td align='center'>%1 (%2)</td>").arg(fmt(e.ess, 1), fmt(e.ess_fraction, 3));
        html += QStringLiteral("<td align='center'>%1, %2</td>").arg(fmt(e.log_w_mean), fmt(e.log_w_var));
        if (r.reverse && r.reverse->log_z_upper) {
            // Stochastic bounds: with a good path they are close and may cross by chance. When they
            // cross, say that they agree within their intervals (or that they do not) instead of
            // implying an order.
            const double up = *r.reverse->log_z_upper;
            QString verdict;
            if (e.log_z > up) {
                const bool overlap = e.ci95_low <= r.reverse->ci95_high && r.reverse->ci95_low <= e.ci95_high;
                verdict = overlap
                              ? tr("<br>crossed: they agree within their 95% intervals (noise, not an order)")
                              : tr("<br>crossed beyond their 95% intervals: a bound is off (too few chains or steps)");
            }
            html += QStringLiteral("<td align='center'>%1 (forward) · <b>%2</b> (reverse)%3</td>")
                        .arg(fmt(e.log_z, 3), fmt(up, 3), verdict);
        } else {
            html += QStringLiteral("<td align='center'>—</td>");
        }
        html += QStringLiteral("<td align='right'>%1 s</td></tr>").arg(fmt(r.seconds, 2));
    }
    html += QStringLiteral("</table>");
    const int sel = histLane_->currentIndex();
    if (sel >= 0 && static_cast<std::size_t>(sel) < run_->lanes().size() &&
        run_->lanes()[static_cast<std::size_t>(sel)].result) {
        const rbm::AisResult& r = *run_->lanes()[static_cast<std::size_t>(sel)].result;
        QString notes =
            QString::fromStdString(r.path_name) + QStringLiteral("; kernel: ") + QString::fromStdString(r.kernel);
        if (!r.notes.empty()) notes += QStringLiteral("; ") + QString::fromStdString(r.notes);
        if (std::isfinite(r.cost_functional)) notes += tr("; cost functional F = %1").arg(fmt(r.cost_functional, 3));
        html += QStringLiteral("<span style='color:#666'>%1</span>").arg(notes.toHtmlEscaped());
    }
    summary_->setText(html);
}

void EstimatesView::refreshHistogram() {
    const int sel = histLane_->currentIndex();
    QList<QPointF> upper, lower;
    const rbm::AisResult* r = nullptr;
    if (run_ && sel >= 0 && static_cast<std::size_t>(sel) < run_->lanes().size() &&
        run_->lanes()[static_cast<std::size_t>(sel)].result)
        r = &*run_->lanes()[static_cast<std::size_t>(sel)].result;
    if (r && !r->estimate.histogram.counts.empty()) {
        const rbm::Histogram& h = r->estimate.histogram;
        const double w = (h.hi - h.lo) / static_cast<double>(h.counts.size());
        double top = 1;
        for (std::size_t b = 0; b < h.counts.size(); ++b) {
            const double x0 = h.lo + static_cast<double>(b) * w, x1 = x0 + w, c = static_cast<double>(h.counts[b]);
            upper.append({x0, c});
            upper.append({x1, c});
            lower.append({x0, 0});
            lower.append({x1, 0});
            top = std::max(top, c);
        }
        histX_->setRange(h.lo, h.hi);
        histX_->applyNiceNumbers();
        histY_->setRange(0, top * 1.08);
        histY_->applyNiceNumbers();
        histChart_->setTitle(tr("Log-weight histogram — %1 (N = %2)")
                                 .arg(run_->lanes()[static_cast<std::size_t>(sel)].label)
                                 .arg(r->estimate.n));
        QColor col = laneColor(sel);
        histArea_->setPen(QPen(col, 1.5));
        col.setAlpha(110);
        histArea_->setBrush(col);
    } else {
        histChart_->setTitle(tr("Log-weight histogram (current run)"));
    }
    histUpper_->replace(upper);
    histLower_->replace(lower);
}

}  // namespace rbmscope
