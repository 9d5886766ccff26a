#include "views/meanfield/meanfield_view.hpp"

#include <QChart>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLogValueAxis>
#include <QSplitter>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>

#include "colormap.hpp"
#include "core/exact/exact.hpp"
#include "views/export_hidden.hpp"

namespace rbmscope {
namespace {

constexpr int kCells = 160;
constexpr int kMaxComponents = 1024;  // type II / TAP mixtures drawn only up to this many h
constexpr double kMinComponentWeight = 0.005;
const double kNaN = std::numeric_limits<double>::quiet_NaN();

const QColor kExactColor(255, 255, 255);
const QColor kType1Color(255, 150, 40);
const QColor kType2Color(60, 220, 255);
const QColor kTapColor(255, 80, 200);

// The methods' colours on a white chart (the pale ones darkened), in the order type I, type II,
// TAP, exact.
QColor chartColour(int method) {
    const QColor colours[4] = {kType1Color.darker(110), kType2Color.darker(140), kTapColor.darker(110), Qt::black};
    return colours[method];
}

// A chart without animations with one line per method (type I, type II, TAP, then the exact
// answer when there are four), attached to the axes ax (bottom) and ay (left).
template <std::size_t N>
QChart* methodChart(const QString& title, QAbstractAxis* ax, QAbstractAxis* ay, std::array<QLineSeries*, N>& series) {
    auto* chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setTitle(title);
    chart->addAxis(ax, Qt::AlignBottom);
    chart->addAxis(ay, Qt::AlignLeft);
    const QString names[4] = {QObject::tr("type I"), QObject::tr("type II"), QObject::tr("TAP"),
                              QObject::tr("exact −log Z")};
    for (std::size_t i = 0; i < N; ++i) {
        auto* s = new QLineSeries;
        s->setName(names[i]);
        s->setPen(QPen(chartColour(static_cast<int>(i)), 2, i == 3 ? Qt::DashLine : Qt::SolidLine));
        chart->addSeries(s);
        s->attachAxis(ax);
        s->attachAxis(ay);
        series[i] = s;
    }
    return chart;
}

QLogValueAxis* logAxis(const QString& title) {
    auto* a = new QLogValueAxis;
    a->setBase(10);
    a->setLabelFormat(QStringLiteral("%g"));
    a->setTitleText(title);
    return a;
}

QString num(double x, int prec = 4) { return std::isfinite(x) ? QString::number(x, 'f', prec) : QStringLiteral("—"); }

// Components N(b + σ∘Wh, diag σ²) of a factorized q(h), with weights prod_j q_j(h_j).
struct Component {
    QPointF mean;
    double weight;
};
std::vector<Component> mixtureComponents(const rbm::Grbm& g, const rbm::Mat& sites) {
    const auto nx = static_cast<rbm::Index>(g.hidden_values.size());
    const rbm::Index m = g.n_hidden();
    std::vector<Component> out;
    if (std::pow(double(nx), double(m)) > kMaxComponents) return out;
    std::vector<rbm::Index> idx(static_cast<std::size_t>(m), 0);
    rbm::Vec h(m);
    while (true) {
        double w = 1;
        for (rbm::Index j = 0; j < m; ++j) {
            w *= sites(j, idx[static_cast<std::size_t>(j)]);
            h(j) = g.hidden_values[static_cast<std::size_t>(idx[static_cast<std::size_t>(j)])];
        }
        const rbm::Vec mu = g.b + g.sigma.cwiseProduct(g.W * h);
        out.push_back({QPointF(mu(0), mu(1)), w});
        rbm::Index j = 0;
        while (j < m && ++idx[static_cast<std::size_t>(j)] == nx) idx[static_cast<std::size_t>(j++)] = 0;
        if (j == m) break;
    }
    return out;
}

QTableWidgetItem* cell(const QString& text) {
    auto* it = new QTableWidgetItem(text);
    it->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return it;
}

}  // namespace

MeanFieldView::MeanFieldView(QWidget* parent, BackgroundJobs* jobs)
    : QWidget(parent), jobs_(jobs ? jobs : new BackgroundJobs(this)) {
    shownF_.fill(kNaN);
    shownOptions_.reset();
    auto* root = new QVBoxLayout(this);
    root->setContentsMargins(4, 4, 4, 4);

    auto* strip = new QHBoxLayout;
    restarts_ = new QSpinBox(this);
    restarts_->setRange(1, 1000);
    restarts_->setValue(10);
    restarts_->setToolTip(tr("Restarts of the fixed-point iteration (the first from the uncoupled solution)"));
    update_ = new QComboBox(this);
    update_->addItem(tr("sequential"), static_cast<int>(rbm::MeanFieldUpdate::Sequential));
    update_->addItem(tr("parallel"), static_cast<int>(rbm::MeanFieldUpdate::Parallel));
    damping_ = new QDoubleSpinBox(this);
    damping_->setRange(0.05, 1.0);
    damping_->setSingleStep(0.05);
    damping_->setValue(1.0);
    damping_->setToolTip(tr("Damping d: μ ← (1−d) μ + d f(μ)"));
    runButton_ = new QPushButton(tr("Run"), this);
    status_ = new QLabel(this);
    strip->addWidget(new QLabel(tr("Restarts"), this));
    strip->addWidget(restarts_);
    strip->addWidget(new QLabel(tr("Update"), this));
    strip->addWidget(update_);
    strip->addWidget(new QLabel(tr("Damping"), this));
    strip->addWidget(damping_);
    strip->addWidget(runButton_);
    strip->addWidget(status_, 1);
    root->addWidget(controlsRow(strip, this));

    auto* split = new QSplitter(Qt::Vertical, this);
    root->addWidget(split, 1);

    stack_ = new QStackedWidget(split);
    message_ = new QLabel(stack_);
    message_->setAlignment(Qt::AlignCenter);
    message_->setWordWrap(true);
    auto* panel = new QSplitter(Qt::Horizontal, stack_);
    heat_ = new EllipseHeatmap(panel);
    heat_->setTitle(tr("Exact p(v) with the mean-field pictures of p(v)"));
    auto* right = new QWidget(panel);
    auto* rv = new QVBoxLayout(right);
    rv->setContentsMargins(0, 0, 0, 0);
    table_ = new QTableWidget(4, 6, right);
    table_->setHorizontalHeaderLabels(
        {tr("free energy"), tr("F − (−log Z)"), tr("iterations"), tr("converged"), tr("fixed points"), tr("MSE ⟨v⟩")});
    table_->setVerticalHeaderLabels({tr("type I"), tr("type II"), tr("TAP"), tr("exact −log Z")});
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    note_ = new QLabel(right);
    note_->setWordWrap(true);
    note_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    note_->setText(
        tr("Types I and II are upper bounds on −log Z (−log Z ≤ F_II ≤ F_I); TAP is a truncated "
           "series and may fall on either side. The plot: the residual max|f(μ) − μ| after each sweep of "
           "the reported restart. A converging method's falls until no mean moves 1e-10 in a sweep; one "
           "that stays up or zigzags oscillates (TAP at strong coupling)."));
    // All four rows, never a scroll bar; the plot takes the rest of the column.
    table_->setFixedHeight(table_->horizontalHeader()->sizeHint().height() +
                           4 * table_->verticalHeader()->defaultSectionSize() + 2 * table_->frameWidth() + 8);
    traceX_ = logAxis(tr("sweep"));
    traceY_ = logAxis(tr("residual"));
    // Compact (no title, legend on the side): the column is short in a window of ordinary height.
    auto* traceChart = methodChart(QString(), traceX_, traceY_, traceSeries_);
    traceChart->legend()->setAlignment(Qt::AlignRight);
    traceChart->setMargins(QMargins(2, 2, 2, 2));
    traceChart_ = new QChartView(traceChart, right);
    traceChart_->setRenderHint(QPainter::Antialiasing);
    traceChart_->setMinimumHeight(170);
    traceChart_->setToolTip(
        tr("Residual max_j |f(μ)_j − μ_j| of the mean-field equations after every sweep of each "
           "method's reported restart (the same restart as the table's iterations); values "
           "below 1e-17 are drawn at 1e-17."));
    clearTraces();
    rv->addWidget(table_);
    rv->addWidget(traceChart_, 1);
    rv->addWidget(note_);
    right->setMinimumWidth(660);  // every column of the table readable
    panel->setStretchFactor(0, 3);
    panel->setStretchFactor(1, 2);
    stack_->addWidget(message_);
    stack_->addWidget(panel);

    auto* sweepBox = new QWidget(split);
    buildSweep(sweepBox);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({3, 2});  // a ratio (the sweep keeps room for its chart), not the size hints

    connect(runButton_, &QPushButton::clicked, this, [this] { run(); });
    showMessage(tr("Open a Gaussian RBM to compare the mean-field approximations with the exact answers."));
}

MeanFieldView::~MeanFieldView() {
    jobs_->cancel(channel());
    jobs_->cancel(sweepChannel());
}

void MeanFieldView::buildSweep(QWidget* box) {
    auto* v = new QVBoxLayout(box);
    v->setContentsMargins(0, 0, 0, 0);
    auto* h = new QHBoxLayout;
    sweepVisible_ = new QSpinBox(box);
    sweepVisible_->setRange(1, 4096);
    sweepVisible_->setValue(8);
    sweepHidden_ = new QSpinBox(box);
    sweepHidden_->setRange(1, 24);
    sweepHidden_->setValue(6);
    sweepHidden_->setToolTip(tr("Hidden units (the exact answer enumerates 2^hidden configurations)"));
    sweepTrials_ = new QSpinBox(box);
    sweepTrials_->setRange(1, 100000);
    sweepTrials_->setValue(10);
    sweepScales_ = new QLineEdit(QStringLiteral("0.05, 0.1, 0.2, 0.3, 0.4, 0.5"), box);
    sweepScales_->setToolTip(tr("Coupling scales: W = scale · Z with Z ~ N(0,1) entries"));
    sweepButton_ = new QPushButton(tr("Run sweep"), box);
    sweepProgress_ = new QProgressBar(box);
    sweepProgress_->setMaximumWidth(160);
    h->addWidget(new QLabel(tr("Random-model sweep: visible"), box));
    h->addWidget(sweepVisible_);
    h->addWidget(new QLabel(tr("hidden"), box));
    h->addWidget(sweepHidden_);
    h->addWidget(new QLabel(tr("trials"), box));
    h->addWidget(sweepTrials_);
    h->addWidget(new QLabel(tr("scales"), box));
    h->addWidget(sweepScales_, 1);
    h->addWidget(sweepButton_);
    h->addWidget(sweepProgress_);
    v->addWidget(controlsRow(h, box));

    auto* row = new QHBoxLayout;
    sweepTable_ = new QTableWidget(0, 8, box);
    sweepTable_->setHorizontalHeaderLabels({tr("scale"), tr("−log Z"), tr("F_I gap"), tr("F_II gap"), tr("TAP gap"),
                                            tr("MSE⟨h⟩ I"), tr("MSE⟨h⟩ II"), tr("MSE⟨h⟩ TAP")});
    sweepTable_->verticalHeader()->setVisible(false);
    sweepTable_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    sweepTable_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    sweepTable_->setToolTip(QString::fromUtf8(rbm::kMeanFieldSweepDistribution));

    auto* ax = new QValueAxis;
    ax->setTitleText(tr("coupling scale"));
    auto* ay = new QValueAxis;
    ay->setTitleText(tr("free energy (nats)"));
    auto* chart = methodChart(tr("Mean free energy against coupling scale"), ax, ay, sweepSeries_);
    for (auto* s : sweepSeries_) s->setPointsVisible(true);
    sweepChart_ = new QChartView(chart, box);
    sweepChart_->setRenderHint(QPainter::Antialiasing);
    sweepChart_->setMinimumHeight(200);
    row->addWidget(sweepTable_, 3);
    row->addWidget(sweepChart_, 2);
    v->addLayout(row, 1);
    connect(sweepButton_, &QPushButton::clicked, this, [this] { runSweep(); });
}

void MeanFieldView::showMessage(const QString& text) {
    message_->setText(text);
    stack_->setCurrentWidget(message_);
}

QString MeanFieldView::message() const { return stack_->currentWidget() == message_ ? message_->text() : QString(); }

void MeanFieldView::setModel(const rbm::Model& model) {
    jobs_->cancel(channel());
    model_ = model;
    hasModel_ = true;
    shownF_.fill(kNaN);
    shownOptions_.reset();
    clearTraces();
    heat_->setEllipses({});
    for (int r = 0; r < table_->rowCount(); ++r)
        for (int c = 0; c < table_->columnCount(); ++c) table_->setItem(r, c, cell(QString()));
    if (model.kind() != rbm::ModelKind::Grbm) {
        showMessage(tr("Mean field (types I, II and TAP) is defined here for Gaussian RBMs; this model is a %1. "
                       "The random-model sweep below still runs.")
                        .arg(QString::fromUtf8(rbm::kind_name(model.kind()))));
        return;
    }
    stack_->setCurrentIndex(1);
    status_->setText(tr("press Run"));
    // Nothing is computed until Run: say so instead of the heatmap's "computing…".
    heat_->setMessage(tr("Press Run (F5) to compute the exact density and the mean-field pictures."));
}

bool MeanFieldView::running() const { return jobs_->isRunning(channel()) || jobs_->isRunning(sweepChannel()); }

void MeanFieldView::cancel() {
    jobs_->cancel(channel());
    jobs_->cancel(sweepChannel());
    sweepProgress_->setValue(0);
    status_->setText(tr("cancelled"));
}

rbm::MeanFieldOptions MeanFieldView::runOptions() const {
    rbm::MeanFieldOptions opts;
    opts.restarts = restarts_->value();
    opts.update = static_cast<rbm::MeanFieldUpdate>(update_->currentData().toInt());
    opts.damping = damping_->value();
    opts.record_trace = true;
    return opts;
}

void MeanFieldView::run() {
    if (!hasModel_) return;
    if (model_.kind() != rbm::ModelKind::Grbm) {
        runSweep();
        return;
    }
    const rbm::MeanFieldOptions opts = runOptions();
    const rbm::Model model = model_;
    const bool twoD = model.n_visible() == 2;
    status_->setText(tr("computing…"));
    if (model_.n_visible() == 2) heat_->setMessage(QString());  // the heatmap's own "computing…" until it arrives
    jobs_->submit<Bundle>(
        channel(),
        [model, opts, twoD](const BackgroundJobs::CancelFlag& flag) {
            Bundle b;
            b.options = opts;
            const rbm::Grbm& g = *model.as<rbm::Grbm>();
            const rbm::MeanFieldType types[3] = {rbm::MeanFieldType::TypeI, rbm::MeanFieldType::TypeII,
                                                 rbm::MeanFieldType::Tap};
            rbm::ExactOptions exact;
            exact.cancel = flag.get();  // enumerations of up to 2^24 configurations: quitting must not wait
            for (int i = 0; i < 3; ++i) {
                if (flag->load()) throw rbm::Cancelled();
                rbm::MeanFieldOptions o = opts;
                o.type = types[i];
                o.cancel = flag.get();
                o.exact.cancel = flag.get();
                b.results[static_cast<std::size_t>(i)] = rbm::mean_field(model, o);
            }
            if (rbm::has_exact_log_z(model)) b.exactF = -rbm::exact_log_z(model, exact);
            else b.note = QObject::tr("Too many hidden configurations for the exact −log Z.");
            if (twoD && rbm::has_exact_log_z(model)) {
                b.exactMoments = rbm::exact_visible_moments(model, exact);
                const rbm::GridSpec box = rbm::default_view(model, kCells, kCells);
                const rbm::DensityGrid grid = rbm::density_grid(model, box, exact, [flag] { return flag->load(); });
                std::vector<double> dens(grid.log_density.size());
                double top = 0;
                for (std::size_t i = 0; i < dens.size(); ++i)
                    top = std::max(top, dens[i] = std::exp(grid.log_density[i]));
                b.image = colorize(dens, box.nx, box.ny, 0.0, top);
                b.domain = QRectF(box.x0, box.y0, box.x1 - box.x0, box.y1 - box.y0);
                b.vmax = top;
            }
            (void)g;
            return b;
        },
        [this](Bundle b) { showBundle(b); }, [this](QString message) { status_->setText(message); });
    if (!twoD) runSweep();
}

void MeanFieldView::showMethodRow(int i, const rbm::MeanFieldResult& r, double exactF) {
    table_->setItem(i, 0, cell(num(r.free_energy)));
    table_->setItem(i, 1, cell(num(r.free_energy - exactF)));
    table_->setItem(i, 2, cell(QString::number(r.iterations)));
    table_->setItem(i, 3, cell(r.converged ? tr("yes") : tr("no (res. %1)").arg(r.residual, 0, 'g', 2)));
    table_->setItem(i, 4, cell(QString::number(r.fixed_points.size())));
    table_->setItem(i, 5, cell(r.exact ? num(r.exact->mse_v, 5) : QStringLiteral("—")));
}

void MeanFieldView::showBundle(const Bundle& b) {
    const rbm::Grbm& g = *model_.as<rbm::Grbm>();
    const double exactF = b.exactF ? *b.exactF : kNaN;
    shownOptions_ = b.options;
    for (int i = 0; i < 3; ++i) {
        const rbm::MeanFieldResult& r = b.results[static_cast<std::size_t>(i)];
        shownF_[static_cast<std::size_t>(i)] = r.free_energy;
        showMethodRow(i, r, exactF);
    }
    shownF_[3] = exactF;
    table_->setItem(3, 0, cell(num(exactF)));
    for (int c = 1; c < table_->columnCount(); ++c) table_->setItem(3, c, cell(QString()));
    showTraces(b);

    if (b.image.isNull()) {
        heat_->setMessage(model_.n_visible() == 2 ? b.note
                                                  : tr("The density picture is drawn for 2-D models; this one has %1 "
                                                       "visible units. See the table and the sweep.")
                                                        .arg(model_.n_visible()));
        heat_->setEllipses({});
    } else {
        heat_->setMessage(QString());
        heat_->setImage(b.image, b.domain, 0.0, b.vmax, tr("p(v)"));
        QVector<EllipseOverlay> els;
        const double s0 = g.sigma(0) * g.sigma(0), s1 = g.sigma(1) * g.sigma(1);
        // Type II and TAP: mixture components with opacity by weight.
        for (int i : {1, 2}) {
            const rbm::MeanFieldResult& r = b.results[static_cast<std::size_t>(i)];
            const QColor base = i == 1 ? kType2Color : kTapColor;
            if (i == 1)
                for (const Component& c : mixtureComponents(g, r.sites)) {
                    if (c.weight < kMinComponentWeight) continue;
                    QColor col = base;
                    col.setAlphaF(0.25 + 0.75 * c.weight);
                    els.push_back({c.mean, s0, 0, s1, 2, col, Qt::SolidLine, 1.0 + 1.5 * c.weight, true});
                }
            if (r.cov_v.rows() == 2)
                els.push_back({QPointF(r.mean_v(0), r.mean_v(1)), r.cov_v(0, 0), r.cov_v(0, 1), r.cov_v(1, 1), 2, base,
                               Qt::DashLine, 2.0, i == 2});
        }
        const rbm::MeanFieldResult& r1 = b.results[0];
        els.push_back({QPointF(r1.mean_v(0), r1.mean_v(1)), r1.var_v(0), 0, r1.var_v(1), 2, kType1Color, Qt::SolidLine,
                       2.6, true});
        if (b.exactMoments) {
            const auto& mo = *b.exactMoments;
            els.push_back({QPointF(mo.mean(0), mo.mean(1)), mo.cov(0, 0), mo.cov(0, 1), mo.cov(1, 1), 2, kExactColor,
                           Qt::DashLine, 2.0, true});
        }
        heat_->setEllipses(els);
        heat_->setLegend({{kExactColor, Qt::DashLine, tr("exact: mean, 2σ covariance ellipse")},
                          {kType1Color, Qt::SolidLine, tr("type I: q(v) = N(m, diag σ²), 2σ")},
                          {kType2Color, Qt::SolidLine, tr("type II: components N(b+σ∘Wh, σ²), opacity = q(h)")},
                          {kType2Color, Qt::DashLine, tr("type II: covariance of its mixture")},
                          {kTapColor, Qt::DashLine, tr("TAP: mean and covariance")}});
    }
    status_->setText(b.note.isEmpty() ? tr("done") : b.note);
    Q_EMIT resultsShown();
}

void MeanFieldView::showResult(int method, const rbm::MeanFieldResult& r, std::optional<double> exactF,
                               const QString& source) {
    jobs_->cancel(channel());
    if (method < 0 || method > 2 || model_.kind() != rbm::ModelKind::Grbm) return;
    stack_->setCurrentIndex(1);
    Bundle b;
    b.exactF = exactF;
    for (auto& x : b.results) x.free_energy = kNaN;
    b.results[static_cast<std::size_t>(method)] = r;
    showTraces(b);  // empty traces for the methods the result does not hold
    const double ex = exactF ? *exactF : kNaN;
    shownF_.fill(kNaN);
    shownOptions_.reset();
    shownF_[static_cast<std::size_t>(method)] = r.free_energy;
    shownF_[3] = ex;
    for (int i = 0; i < 3; ++i) {
        if (i != method) {
            table_->setItem(i, 0, cell(tr("not in this result")));
            for (int c = 1; c < table_->columnCount(); ++c) table_->setItem(i, c, cell(QStringLiteral("—")));
            continue;
        }
        showMethodRow(i, r, ex);
    }
    table_->setItem(3, 0, cell(num(ex)));
    for (int c = 1; c < table_->columnCount(); ++c) table_->setItem(3, c, cell(QString()));
    heat_->setEllipses({});
    heat_->setMessage(
        tr("A reopened result holds numbers, not the density picture: press Run (F5) to compute it live."));
    status_->setText(source);
    Q_EMIT resultsShown();
}

QString MeanFieldView::statusText() const { return status_->text(); }

void MeanFieldView::clearTraces() {
    for (auto* s : traceSeries_) s->clear();
    traceX_->setRange(1, 10);
    traceY_->setRange(1e-12, 10);
}

void MeanFieldView::showTraces(const Bundle& b) {
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    std::size_t sweeps = 1;
    for (std::size_t i = 0; i < traceSeries_.size(); ++i) {
        const std::vector<double>& res = b.results[i].trace.residual;
        QList<QPointF> pts;
        pts.reserve(static_cast<qsizetype>(res.size()));
        for (std::size_t k = 0; k < res.size(); ++k) {
            const double y = std::isnan(res[k]) ? kTraceFloor : std::clamp(res[k], kTraceFloor, 1e300);
            pts.append(QPointF(static_cast<double>(k + 1), y));
            lo = std::min(lo, y);
            hi = std::max(hi, y);
        }
        sweeps = std::max(sweeps, res.size());
        traceSeries_[i]->replace(pts);
    }
    if (!(hi > 0)) return clearTraces();
    // Whole decades, at least one sweep decade and three residual decades.
    traceX_->setRange(1, std::pow(10.0, std::max(1.0, std::ceil(std::log10(static_cast<double>(sweeps))))));
    const double top = std::ceil(std::log10(hi) + 1e-9), bottom = std::min(std::floor(std::log10(lo)), top - 3);
    traceY_->setRange(std::pow(10.0, bottom), std::pow(10.0, top));
    // About five labels whatever the span: one every k decades.
    const int step = std::max(1, static_cast<int>(std::ceil((top - bottom) / 5)));
    traceY_->setBase(std::pow(10.0, step));
}

rbm::MeanFieldSweepOptions MeanFieldView::sweepOptions() const {
    rbm::MeanFieldSweepOptions o;
    o.visible = sweepVisible_->value();
    o.hidden = sweepHidden_->value();
    o.trials = sweepTrials_->value();
    o.scales.clear();
    for (const QString& part : sweepScales_->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const double s = part.trimmed().toDouble(&ok);
        if (!ok || !(s >= 0) || !std::isfinite(s))
            throw rbm::InputError("sweep scales: expected comma-separated numbers >= 0, got '" +
                                  part.trimmed().toStdString() + "'");
        o.scales.push_back(s);
    }
    if (o.scales.empty()) throw rbm::InputError("sweep scales: expected at least one number");
    o.mean_field.restarts = 3;
    return o;
}

void MeanFieldView::setSweepTrials(int trials) { sweepTrials_->setValue(trials); }

void MeanFieldView::runSweep() {
    rbm::MeanFieldSweepOptions opts;
    try {
        opts = sweepOptions();
    } catch (const std::exception& e) {
        status_->setText(QString::fromUtf8(e.what()));
        return;
    }
    sweepRows_.clear();
    sweepTable_->setRowCount(0);
    for (auto* s : sweepSeries_) s->clear();
    sweepProgress_->setRange(0, static_cast<int>(opts.scales.size()));
    sweepProgress_->setValue(0);
    jobs_->submitWithProgress<int>(
        sweepChannel(),
        [opts, this](const BackgroundJobs::Context& ctx) {
            // One scale at a time (common random numbers: the same models at every scale), so each
            // row reaches the table as soon as it is done.
            rbm::MeanFieldSweepOptions one = opts;
            one.cancelled = [flag = ctx.cancel] { return flag->load(); };
            for (double s : opts.scales) {
                one.scales = {s};
                const rbm::MeanFieldSweepRow row = rbm::mean_field_sweep(one).front();
                ctx.post([this, row] { addSweepRow(row); });
            }
            return static_cast<int>(opts.scales.size());
        },
        [this](int) { Q_EMIT sweepFinished(); }, [this](QString message) { status_->setText(message); });
}

void MeanFieldView::addSweepRow(const rbm::MeanFieldSweepRow& row) {
    sweepRows_.push_back(row);
    const int r = sweepTable_->rowCount();
    sweepTable_->insertRow(r);
    const QString values[8] = {num(row.scale, 3),
                               num(row.true_free_energy),
                               num(row.type1.gap) + QStringLiteral(" ± ") + num(row.type1.gap_se, 4),
                               num(row.type2.gap) + QStringLiteral(" ± ") + num(row.type2.gap_se, 4),
                               num(row.tap.gap) + QStringLiteral(" ± ") + num(row.tap.gap_se, 4),
                               QString::number(row.type1.mse_h, 'g', 3),
                               QString::number(row.type2.mse_h, 'g', 3),
                               QString::number(row.tap.mse_h, 'g', 3)};
    for (int c = 0; c < 8; ++c) sweepTable_->setItem(r, c, cell(values[c]));
    // Whole lists into each series (one replace per series), then fit the axes.
    std::array<QList<QPointF>, 4> pts;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo, x0 = lo, x1 = -lo;
    for (const auto& w : sweepRows_) {
        const double f[4] = {w.type1.free_energy, w.type2.free_energy, w.tap.free_energy, w.true_free_energy};
        for (int i = 0; i < 4; ++i) {
            pts[static_cast<std::size_t>(i)].append(QPointF(w.scale, f[i]));
            lo = std::min(lo, f[i]);
            hi = std::max(hi, f[i]);
        }
        x0 = std::min(x0, w.scale);
        x1 = std::max(x1, w.scale);
    }
    for (int i = 0; i < 4; ++i) sweepSeries_[static_cast<std::size_t>(i)]->replace(pts[static_cast<std::size_t>(i)]);
    const double pad = std::max(1e-6, 0.05 * (hi - lo));
    auto* chart = sweepChart_->chart();
    chart->axes(Qt::Horizontal).front()->setRange(x0 - 0.02, x1 + 0.02);
    chart->axes(Qt::Vertical).front()->setRange(lo - pad, hi + pad);
    sweepProgress_->setValue(static_cast<int>(sweepRows_.size()));
    Q_EMIT sweepRowShown(static_cast<int>(sweepRows_.size()));
}

QPixmap MeanFieldView::grabForScreenshot() { return grab(); }

}  // namespace rbmscope
