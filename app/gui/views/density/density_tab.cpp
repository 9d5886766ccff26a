#include "views/density/density_tab.hpp"

#include <QJsonArray>
#include <QTextStream>

#include "colormap.hpp"
#include "text_preview.hpp"

namespace rbmscope {

DensityTab::DensityTab(BackgroundJobs* jobs, QWidget* parent)
    : QStackedWidget(parent), jobs_(jobs), view_(new HeatmapView(this)), message_(new QLabel(this)) {
    message_->setAlignment(Qt::AlignCenter);
    message_->setWordWrap(true);
    addWidget(view_);
    addWidget(message_);
}

void DensityTab::setModel(const rbm::Model& model, bool keepBox) {
    drawable_ = model.n_visible() == 2 && model.kind() != rbm::ModelKind::Brbm;
    if (!drawable_) {
        message_->setText(tr("The density view shows models with two continuous visible units.\n"
                             "This %1 model has %2 visible units.")
                              .arg(QString::fromLatin1(rbm::kind_name(model.kind())))
                              .arg(model.n_visible()));
        setCurrentWidget(message_);
        jobs_->cancel(QStringLiteral("density"));
        haveBox_ = false;
        Q_EMIT ready();
        return;
    }
    setCurrentWidget(view_);
    if (!keepBox || !haveBox_) {
        try {
            box_ = withCells(rbm::default_view(model, 256, 256), 256);
            haveBox_ = true;
        } catch (const std::exception& e) {
            message_->setText(tr("Cannot draw the density: %1").arg(QString::fromStdString(e.what())));
            setCurrentWidget(message_);
            Q_EMIT ready();
            return;
        }
    }
    const rbm::GridSpec spec = box_;
    clock_.start();
    jobs_->submit<Field>(
        QStringLiteral("density"),
        [model, spec](const BackgroundJobs::CancelFlag& cancel) { return exactField(model, spec, cancel.get()); },
        [this, model](Field f) { show(std::move(f), model); },
        [this](QString err) {
            message_->setText(tr("Cannot draw the density: %1").arg(err));
            setCurrentWidget(message_);
            Q_EMIT ready();
        });
}

void DensityTab::show(Field f, const rbm::Model& model) {
    lastMs_ = static_cast<double>(clock_.nsecsElapsed()) / 1e6;
    view_->setImage(colorize(f.p, f.spec.nx, f.spec.ny, 0.0, f.max, scale_), domainOf(f.spec), 0.0, f.max,
                    tr("density p(v)"), scale_);
    view_->setTitle(
        QStringLiteral("%1   ·   log Z = %2").arg(textPreview(model.name, kNamePreviewChars)).arg(f.logZ, 0, 'f', 4));
    view_->clearOverlays();
    view_->setMarkers(targetModes(model, &f));
    if (const auto* g = model.as<rbm::Grbm>()) {
        // Each hidden unit j moves a component centre by sigma∘W_j: draw that vector from b.
        QVector<QPointF> arrows;
        for (Eigen::Index j = 0; j < g->n_hidden(); ++j)
            arrows.push_back({g->sigma(0) * g->W(0, j), g->sigma(1) * g->W(1, j)});
        view_->setArrows({g->b(0), g->b(1)}, arrows);
        view_->setOverlayText(tr("drag an arrow tip to change that hidden unit's weights"));
    }
    field_ = std::move(f);
    Q_EMIT ready();
}

void DensityTab::setColourScale(ColourScale scale) {
    scale_ = scale;
    if (field_.p.empty()) return;
    view_->setImage(colorize(field_.p, field_.spec.nx, field_.spec.ny, 0.0, field_.max, scale_), domainOf(field_.spec),
                    0.0, field_.max, tr("density p(v)"), scale_);
}

QString DensityTab::exportCsv() const {
    QString out;
    QTextStream s(&out);
    s.setRealNumberPrecision(10);
    s << "# exact density p(v) on a grid; log Z = " << field_.logZ << "\nx,y,p\n";
    const rbm::GridSpec& g = field_.spec;
    for (int iy = 0; iy < g.ny && !field_.p.empty(); ++iy)
        for (int ix = 0; ix < g.nx; ++ix)
            s << g.x0 + (ix + 0.5) * (g.x1 - g.x0) / g.nx << ',' << g.y0 + (iy + 0.5) * (g.y1 - g.y0) / g.ny << ','
              << field_.p[static_cast<std::size_t>(iy) * static_cast<std::size_t>(g.nx) + static_cast<std::size_t>(ix)]
              << '\n';
    return out;
}

QJsonObject DensityTab::exportJson() const {
    const rbm::GridSpec& g = field_.spec;
    QJsonArray rows;
    for (int iy = 0; iy < g.ny && !field_.p.empty(); ++iy) {
        QJsonArray row;
        for (int ix = 0; ix < g.nx; ++ix)
            row.append(
                field_.p[static_cast<std::size_t>(iy) * static_cast<std::size_t>(g.nx) + static_cast<std::size_t>(ix)]);
        rows.append(row);
    }
    QJsonArray modes;
    for (const QPointF& m : view_->markers()) modes.append(QJsonArray{m.x(), m.y()});
    return QJsonObject{
        {"view", "density"},
        {"log_z", field_.logZ},
        {"grid", QJsonObject{{"x0", g.x0}, {"x1", g.x1}, {"y0", g.y0}, {"y1", g.y1}, {"nx", g.nx}, {"ny", g.ny}}},
        {"density_rows_from_y0", rows},
        {"modes", modes}};
}

}  // namespace rbmscope
