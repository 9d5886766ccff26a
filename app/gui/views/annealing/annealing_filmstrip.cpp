// The Annealing view's filmstrip: p_beta at chosen betas under the main heatmap, with the
// particles of the nearest recorded step on each frame.
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

namespace {
constexpr int kFilmCells = 96;  // long side of a filmstrip cell's grid
}  // namespace

void AnnealingView::setFilmBetas(const std::vector<double>& betas) {
    filmBetas_ = betas;
    std::sort(filmBetas_.begin(), filmBetas_.end());
    QStringList parts;
    for (double b : filmBetas_) parts << QString::number(b, 'g', 4);
    if (parseRealList(filmField_->text()) != filmBetas_) filmField_->setText(parts.join(QStringLiteral(", ")));
    QStringList labels;
    for (const Lane& l : lanes_) labels << l.label;
    film_->setLayout(labels, filmBetas_);
    submitFilm();
}

void AnnealingView::submitFilm() {
    if (!drawable_ || lanes_.empty() || filmBetas_.empty()) return;
    const rbm::Model model = model_;
    const std::vector<Lane> lanes = lanes_;
    const std::vector<double> betas = filmBetas_;
    const rbm::GridSpec spec = withCells(box_, kFilmCells);
    const bool shared = sharedScale_;
    const ColourScale scale = colourScale_;
    jobs_->submit<FilmResult>(
        filmChannel(),
        [model, lanes, betas, spec, shared, scale](const BackgroundJobs::CancelFlag& cancel) {
            FilmResult r;
            r.betas = betas;
            r.scale = scale;
            std::vector<double> columnMax(betas.size(), 0.0);
            std::vector<std::vector<Field>> fields(lanes.size());
            r.errors.resize(lanes.size());
            for (std::size_t i = 0; i < lanes.size(); ++i) {
                if (!lanes[i].path) {
                    r.errors[i] = lanes[i].error;
                    continue;
                }
                try {
                    for (std::size_t c = 0; c < betas.size(); ++c) {
                        fields[i].push_back(annealedField(model, *lanes[i].path, betas[c], spec, cancel.get()));
                        columnMax[c] = std::max(columnMax[c], fields[i].back().max);
                    }
                } catch (const rbm::Cancelled&) {
                    throw;
                } catch (const std::exception& e) {
                    r.errors[i] = QString::fromStdString(e.what());
                    fields[i].clear();
                }
            }
            // Shared: one scale per column (same beta), as in the main heatmaps.
            r.images.resize(lanes.size());
            r.vmax.resize(lanes.size());
            for (std::size_t i = 0; i < lanes.size(); ++i)
                for (std::size_t c = 0; c < fields[i].size(); ++c) {
                    r.vmax[i].push_back(shared ? columnMax[c] : fields[i][c].max);
                    r.images[i].push_back(colorize(fields[i][c].p, spec.nx, spec.ny, 0.0, r.vmax[i].back(), scale));
                }
            return r;
        },
        [this](FilmResult r) { showFilm(std::move(r)); });
}

void AnnealingView::showFilm(FilmResult r) {
    if (film_->columns() != static_cast<int>(r.betas.size())) return;
    for (int row = 0; row < film_->rows() && static_cast<std::size_t>(row) < r.images.size(); ++row) {
        for (int c = 0; c < film_->columns(); ++c) {
            HeatmapView* cell = film_->cell(row, c);
            const auto& imgs = r.images[static_cast<std::size_t>(row)];
            if (static_cast<std::size_t>(c) >= imgs.size()) {
                cell->setMessage(r.errors[static_cast<std::size_t>(row)]);
                continue;
            }
            cell->setMessage(QString());
            cell->setImage(imgs[static_cast<std::size_t>(c)], domainOf(box_), 0.0,
                           r.vmax[static_cast<std::size_t>(row)][static_cast<std::size_t>(c)], QString(), r.scale);
            cell->setMarkers(modes_);
        }
    }
    refreshFilmParticles();
    Q_EMIT filmstripReady();
}

void AnnealingView::refreshFilmParticles() {
    const bool show = particlesBox_->isChecked();
    for (int row = 0; row < film_->rows(); ++row)
        for (int c = 0; c < film_->columns(); ++c) {
            HeatmapView* cell = film_->cell(row, c);
            cell->setParticles({});
            if (!show || !session_ || static_cast<std::size_t>(row) >= session_->lanes().size()) continue;
            const LaneRun& run = session_->lanes()[static_cast<std::size_t>(row)];
            const double b = film_->betas()[static_cast<std::size_t>(c)];
            const ParticleFrame* f = run.frameNear(b);
            // A frame from much further along the run would misrepresent this beta.
            if (f && std::fabs(f->beta - b) <= 0.05) {
                // The thumbnails are small: a few hundred points read better than a thousand.
                QVector<QPointF> pts = f->points.mid(0, 300);
                cell->setParticles(pts);
            }
        }
}

}  // namespace rbmscope
