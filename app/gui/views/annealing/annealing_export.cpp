// The Annealing view's data export (File → Export data): the lanes' particles and densities as CSV or JSON.
#include "views/annealing/annealing_view.hpp"

#include <QHBoxLayout>
#include <QJsonArray>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTextStream>
#include <QVBoxLayout>
#include <cmath>

#include "colormap.hpp"

namespace rbmscope {

QString AnnealingView::exportCsv() const {
    QString out;
    QTextStream s(&out);
    s << "# p_beta on a grid at beta = " << shownBeta_ << " (normalized on the grid; beta = 1: exact target)\n";
    s << "x,y";
    for (const Lane& l : lanes_) s << ',' << '"' << l.label << '"';
    s << '\n';
    if (shownFields_.empty()) return out;
    const rbm::GridSpec& g = shownFields_.front().spec;
    for (int iy = 0; iy < g.ny; ++iy)
        for (int ix = 0; ix < g.nx; ++ix) {
            s << g.x0 + (ix + 0.5) * (g.x1 - g.x0) / g.nx << ',' << g.y0 + (iy + 0.5) * (g.y1 - g.y0) / g.ny;
            const std::size_t k =
                static_cast<std::size_t>(iy) * static_cast<std::size_t>(g.nx) + static_cast<std::size_t>(ix);
            for (const Field& f : shownFields_) s << ',' << (k < f.p.size() ? f.p[k] : 0.0);
            s << '\n';
        }
    return out;
}

QJsonObject AnnealingView::exportJson() const {
    QJsonObject o;
    o[QStringLiteral("view")] = name_;
    o[QStringLiteral("beta")] = shownBeta_;
    o[QStringLiteral("grid")] = QJsonObject{{"x0", box_.x0}, {"x1", box_.x1}, {"y0", box_.y0},
                                            {"y1", box_.y1}, {"nx", box_.nx}, {"ny", box_.ny}};
    QJsonArray lanes;
    for (std::size_t i = 0; i < lanes_.size(); ++i) {
        QJsonObject l;
        l[QStringLiteral("method")] = lanes_[i].label;
        l[QStringLiteral("path")] = QString::fromStdString(lanes_[i].spec.path);
        l[QStringLiteral("base")] = QString::fromStdString(lanes_[i].spec.base);
        l[QStringLiteral("notes")] = lanes_[i].notes;
        if (i < shownFields_.size() && !shownFields_[i].p.empty()) {
            l[QStringLiteral("log_z_beta_on_grid")] = shownFields_[i].logZ;
            l[QStringLiteral("max_density")] = shownFields_[i].max;
        }
        if (session_ && i < session_->lanes().size()) {
            if (const ParticleFrame* f = session_->lanes()[i].frameNear(beta_)) {
                QJsonArray pts;
                for (const QPointF& p : f->points) pts.append(QJsonArray{p.x(), p.y()});
                l[QStringLiteral("particles_beta")] = f->beta;
                l[QStringLiteral("particles")] = pts;
            }
        }
        lanes.append(l);
    }
    o[QStringLiteral("lanes")] = lanes;
    QJsonArray modes;
    for (const QPointF& m : modes_) modes.append(QJsonArray{m.x(), m.y()});
    o[QStringLiteral("modes")] = modes;
    return o;
}

}  // namespace rbmscope
