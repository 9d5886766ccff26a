#include "views/annealing/annealing_view.hpp"

#include <QStyle>

#include <QHBoxLayout>
#include <QJsonArray>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTextStream>
#include <QVBoxLayout>
#include <cmath>

#include "colormap.hpp"
#include "views/export_hidden.hpp"

namespace rbmscope {
namespace {

constexpr int kHeatCells = 256;  // long side of the main heatmaps' grid
constexpr int kSliderSteps = 1000;

bool drawable(const rbm::Model& m) { return m.n_visible() == 2 && m.kind() != rbm::ModelKind::Brbm; }

QString betaText(double b) { return QString::number(b, 'f', b < 0.01 && b > 0 ? 4 : 3); }

// 200000 -> "200 000" (thin spaces), the way a count is read aloud.
QString countText(long long n) {
    QString s = QString::number(n), out;
    for (int i = 0; i < s.size(); ++i) {
        if (i > 0 && (s.size() - i) % 3 == 0) out += QChar(0x2009);
        out += s[i];
    }
    return out;
}

// "1000 of 200 000 particles": the views draw the first chains only.
QString shownOf(long long shown, long long total, const QString& what) {
    if (total <= shown) return QStringLiteral("%1 %2").arg(countText(shown), what);
    return QObject::tr("%1 of %2 %3 shown").arg(countText(shown), countText(total), what);
}

}  // namespace

AnnealingView::AnnealingView(BackgroundJobs* jobs, const QString& name, int maxLanes, QWidget* parent)
    : QWidget(parent), jobs_(jobs), name_(name), maxLanes_(std::max(1, maxLanes)) {
    auto* root = new QVBoxLayout(this);
    root->setContentsMargins(4, 4, 4, 4);
    stack_ = new QStackedWidget(this);
    root->addWidget(stack_);
    message_ = new QLabel(stack_);
    message_->setAlignment(Qt::AlignCenter);
    message_->setWordWrap(true);

    auto* page = new QWidget(stack_);
    auto* pv = new QVBoxLayout(page);
    pv->setContentsMargins(0, 0, 0, 0);
    auto* split = new QSplitter(Qt::Vertical, page);
    split_ = split;
    lanesBox_ = new QWidget(split);
    new QHBoxLayout(lanesBox_);
    lanesBox_->layout()->setContentsMargins(0, 0, 0, 0);

    auto* bottom = new QWidget(split);
    auto* bv = new QVBoxLayout(bottom);
    bv->setContentsMargins(0, 0, 0, 0);
    // The controls in a box of their own, which image and playback exports leave out (kExportHidden).
    auto* controlsBox = new QWidget(bottom);
    controlsBox->setProperty(kExportHidden, true);
    auto* controls = new QHBoxLayout(controlsBox);
    controls->setContentsMargins(0, 0, 0, 0);
    // The style's media icons: the ⏸ glyph is missing from common UI fonts.
    playButton_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("Play"), bottom);
    playButton_->setFocusPolicy(Qt::NoFocus);
    playButton_->setToolTip(tr("Animate the annealing from β = 0 to 1"));
    slider_ = new QSlider(Qt::Horizontal, bottom);
    slider_->setRange(0, kSliderSteps);
    slider_->setValue(kSliderSteps);
    slider_->setToolTip(tr("β: 0 is the base distribution, 1 the target"));
    slider_->setMinimumWidth(120);
    betaLabel_ = new QLabel(bottom);  // its width from its text ("β = 0.050": digits are all one width)
    speedBox_ = new QComboBox(bottom);
    speedBox_->addItem(tr("slow"), 20.0);
    speedBox_->addItem(tr("normal"), 8.0);
    speedBox_->addItem(tr("fast"), 3.0);
    speedBox_->setCurrentIndex(1);
    speedBox_->setToolTip(tr("Seconds for β to go from 0 to 1: 20, 8 or 3"));
    particlesBox_ = new QCheckBox(tr("particles"), bottom);
    particlesBox_->setChecked(true);
    sharedBox_ = new QCheckBox(tr("one colour scale"), bottom);
    sharedBox_->setChecked(true);
    sharedBox_->setToolTip(
        tr("One colour scale for every method (compare densities directly), or one per method "
           "(see the shape of a broad density next to a peaked one)"));
    sharedBox_->setVisible(maxLanes_ > 1);
    filmField_ = new ValidatedField(
        QStringLiteral("0, 0.05, 0.2, 0.4, 0.7, 1"),
        [](const QString& t) { return checkUnitList(t, QObject::tr("filmstrip β")); }, bottom);
    filmField_->setMaximumWidth(170);
    filmField_->lineEdit()->setToolTip(tr("β values of the filmstrip, comma-separated"));
    controls->addWidget(playButton_);
    controls->addWidget(new QLabel(QStringLiteral("β"), bottom));
    controls->addWidget(slider_, 1);
    controls->addWidget(betaLabel_);
    controls->addWidget(speedBox_);
    controls->addWidget(particlesBox_);
    controls->addWidget(sharedBox_);
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("Film β:"), bottom));
    controls->addWidget(filmField_);
    bv->addWidget(controlsBox);
    film_ = new Filmstrip(bottom);
    bv->addWidget(film_, 1);
    split->addWidget(lanesBox_);
    split->addWidget(bottom);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);
    pv->addWidget(split);
    stack_->addWidget(page);
    stack_->addWidget(message_);

    playTimer_ = new QTimer(this);
    playTimer_->setInterval(33);
    connect(playTimer_, &QTimer::timeout, this, &AnnealingView::tick);
    connect(playButton_, &QPushButton::clicked, this, [this] { setPlaying(!playing()); });
    connect(slider_, &QSlider::valueChanged, this, [this](int v) {
        const double b = static_cast<double>(v) / kSliderSteps;
        if (std::fabs(b - beta_) < 0.5 / kSliderSteps) return;
        follow_ = false;  // the user took over from the run
        beta_ = b;
        updateBetaLabel();
        requestHeat(false);
        refreshParticles();
        Q_EMIT betaChanged(beta_);
    });
    connect(particlesBox_, &QCheckBox::toggled, this, [this] {
        refreshParticles();
        refreshFilmParticles();
    });
    connect(sharedBox_, &QCheckBox::toggled, this, &AnnealingView::setSharedScale);
    connect(filmField_, &ValidatedField::edited, this, [this] {
        if (filmField_->isValid()) setFilmBetas(parseRealList(filmField_->text()));
    });
    updateBetaLabel();
}

HeatmapView* AnnealingView::heatmap(int lane) const {
    return lane >= 0 && lane < laneCount() ? heatmaps_[static_cast<std::size_t>(lane)] : nullptr;
}

void AnnealingView::setModel(const rbm::Model& model) {
    model_ = model;
    drawable_ = drawable(model);
    lanes_.clear();
    shownFields_.clear();
    jobs_->cancel(heatChannel());
    jobs_->cancel(filmChannel());
    heatPending_ = false;
    if (!drawable_) {
        message_->setText(tr("The annealing view draws models with two continuous visible units.\n"
                             "This %1 model has %2 visible units: use the Estimates view.")
                              .arg(QString::fromLatin1(rbm::kind_name(model.kind())))
                              .arg(model.n_visible()));
        stack_->setCurrentWidget(message_);
        return;
    }
    stack_->setCurrentIndex(0);
    rebuildLanes();
}

void AnnealingView::setLanesPending() {
    jobs_->cancel(heatChannel());
    jobs_->cancel(filmChannel());
    heatPending_ = false;
    lanes_.clear();
    shownFields_.clear();
    if (drawable_) rebuildLanes();
}

void AnnealingView::setLanes(const std::vector<Lane>& lanes) {
    lanes_.assign(lanes.begin(),
                  lanes.begin() + std::min<std::ptrdiff_t>(maxLanes_, static_cast<std::ptrdiff_t>(lanes.size())));
    shownFields_.clear();
    if (!drawable_) return;
    std::vector<rbm::PathPtr> paths;
    for (const Lane& l : lanes_)
        if (l.path && drawsOverTwoVisible(*l.path)) paths.push_back(l.path);
    try {
        box_ = annealingBox(model_, paths, kHeatCells);
    } catch (const std::exception& e) {
        message_->setText(QString::fromStdString(e.what()));
        stack_->setCurrentWidget(message_);
        return;
    }
    modes_ = targetModes(model_);
    rebuildLanes();
    requestHeat(true);
    submitFilm();
}

void AnnealingView::rebuildLanes() {
    const int want = std::max<int>(1, static_cast<int>(lanes_.size()));
    while (laneCount() > want) {
        delete heatmaps_.back();
        heatmaps_.pop_back();
    }
    while (laneCount() < want) {
        auto* h = new HeatmapView(lanesBox_);
        lanesBox_->layout()->addWidget(h);
        heatmaps_.push_back(h);
    }
    for (int i = 0; i < laneCount(); ++i) {
        HeatmapView* h = heatmaps_[static_cast<std::size_t>(i)];
        h->clearOverlays();
        h->setImage(QImage(), domainOf(box_), 0, 1, QStringLiteral("p_β(v)"));
        if (lanes_.empty()) {
            h->setTitle(QString());
            h->setMessage(tr("building the annealing path…"));
        } else {
            const Lane& l = lanes_[static_cast<std::size_t>(i)];
            h->setTitle(l.label);
            h->setMessage(l.path ? QString() : tr("%1 cannot run: %2").arg(l.label, l.error));
            h->setToolTip(l.notes);
        }
    }
    QStringList labels;
    for (const Lane& l : lanes_) labels << l.label;
    film_->setLayout(labels, filmBetas_);
    // Room for the filmstrip: about 150 px per row, at most 40% of the height.
    const int total = std::max(400, split_->height());
    const int film = std::min(total * 2 / 5, 60 + 150 * std::max(1, static_cast<int>(lanes_.size())));
    split_->setSizes({total - film, film});
}

void AnnealingView::setRun(const AisJob* session) {
    session_ = session;
    bool moved = false;
    if (session_ && session_->running() && follow_) {
        const RunStatus& st = session_->status();
        if (st.lane >= 0 && std::fabs(st.beta - beta_) > 0.5 / kSliderSteps) {
            beta_ = st.beta;
            {
                const QSignalBlocker block(slider_);
                slider_->setValue(static_cast<int>(std::lround(beta_ * kSliderSteps)));
            }
            updateBetaLabel();
            moved = true;
        }
    }
    // Progress arrives up to 30 times a second: a view on a hidden tab catches up when shown.
    if (!isVisible()) {
        staleHeat_ = staleHeat_ || moved;
        staleRun_ = true;
        return;
    }
    if (moved) requestHeat(false);
    refreshParticles();
    std::size_t frames = 0;
    if (session_)
        for (const LaneRun& l : session_->lanes()) frames += l.frames.size();
    if (frames != filmFrames_) {
        filmFrames_ = frames;
        refreshFilmParticles();
    }
}

void AnnealingView::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    if (staleHeat_) {
        staleHeat_ = false;
        requestHeat(false);
    }
    if (staleRun_) {
        staleRun_ = false;
        refreshParticles();
        refreshFilmParticles();
    }
}

void AnnealingView::setBeta(double beta) {
    beta = std::clamp(beta, 0.0, 1.0);
    beta_ = beta;
    {
        const QSignalBlocker block(slider_);
        slider_->setValue(static_cast<int>(std::lround(beta * kSliderSteps)));
    }
    updateBetaLabel();
    requestHeat(false);
    refreshParticles();
    Q_EMIT betaChanged(beta_);
}

void AnnealingView::setSharedScale(bool on) {
    sharedScale_ = on;
    if (sharedBox_->isChecked() != on) sharedBox_->setChecked(on);
    requestHeat(true);
    submitFilm();
}

void AnnealingView::setColourScale(ColourScale scale) {
    if (scale == colourScale_) return;
    colourScale_ = scale;
    requestHeat(true);
    submitFilm();
}

void AnnealingView::setPlaying(bool on) {
    const bool was = playing();
    if (on) {
        follow_ = false;
        if (beta_ >= 1.0) setBeta(0.0);
        playTimer_->start();
        playButton_->setText(tr("Pause"));
        playButton_->setIcon(style()->standardIcon(QStyle::SP_MediaPause));
    } else {
        playTimer_->stop();
        playButton_->setText(tr("Play"));
        playButton_->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    }
    if (was != playing()) Q_EMIT playingChanged(playing());
}

void AnnealingView::tick() {
    const double seconds = speedBox_->currentData().toDouble();
    const double next = hurried_ ? 1.0 : std::min(1.0, beta_ + playTimer_->interval() / 1000.0 / seconds);
    setBeta(next);
    if (next >= 1.0) setPlaying(false);
}

void AnnealingView::updateBetaLabel() { betaLabel_->setText(QStringLiteral("β = %1").arg(betaText(beta_))); }

bool AnnealingView::busy() const {
    return heatPending_ || jobs_->isRunning(heatChannel()) || jobs_->isRunning(filmChannel());
}

void AnnealingView::requestHeat(bool restart) {
    if (!drawable_ || lanes_.empty()) return;
    if (!restart && jobs_->isRunning(heatChannel())) {
        heatPending_ = true;  // asked again when the current one arrives
        return;
    }
    submitHeat();
}

void AnnealingView::submitHeat() {
    heatPending_ = false;
    const rbm::Model model = model_;
    const std::vector<Lane> lanes = lanes_;
    const double beta = beta_;
    const rbm::GridSpec spec = box_;
    const bool shared = sharedScale_;
    const ColourScale scale = colourScale_;
    jobs_->submit<HeatResult>(
        heatChannel(),
        [model, lanes, beta, spec, shared, scale](const BackgroundJobs::CancelFlag& cancel) {
            HeatResult r;
            r.beta = beta;
            r.scale = scale;
            for (const Lane& l : lanes) {
                Field f;
                QString err = l.error;
                if (l.path) {
                    try {
                        f = annealedField(model, *l.path, beta, spec, cancel.get());
                    } catch (const rbm::Cancelled&) {
                        throw;
                    } catch (const std::exception& e) {
                        err = QString::fromStdString(e.what());
                    }
                }
                r.fields.push_back(std::move(f));
                r.errors.push_back(err);
            }
            // A shared colour scale lets the methods compare at a glance.
            double top = 0;
            for (const Field& f : r.fields) top = std::max(top, f.max);
            for (const Field& f : r.fields) {
                r.vmax.push_back(shared ? top : f.max);
                r.images.push_back(f.p.empty() ? QImage()
                                               : colorize(f.p, f.spec.nx, f.spec.ny, 0.0, r.vmax.back(), scale));
            }
            return r;
        },
        [this](HeatResult r) { showHeat(std::move(r)); });
}

void AnnealingView::showHeat(HeatResult r) {
    ++heatDeliveries_;
    shownBeta_ = r.beta;
    for (int i = 0; i < laneCount() && static_cast<std::size_t>(i) < r.images.size(); ++i) {
        HeatmapView* h = heatmaps_[static_cast<std::size_t>(i)];
        const Lane& l = lanes_[static_cast<std::size_t>(i)];
        h->setTitle(QStringLiteral("%1   ·   β = %2").arg(l.label, betaText(r.beta)));
        if (r.images[static_cast<std::size_t>(i)].isNull()) {
            h->setMessage(tr("%1: %2").arg(l.label, r.errors[static_cast<std::size_t>(i)]));
            continue;
        }
        h->setMessage(QString());
        h->setImage(r.images[static_cast<std::size_t>(i)], domainOf(box_), 0.0, r.vmax[static_cast<std::size_t>(i)],
                    r.fields[static_cast<std::size_t>(i)].exact ? tr("p(v), exact") : QStringLiteral("p_β(v)"),
                    r.scale);
        h->setMarkers(modes_);
    }
    shownFields_ = std::move(r.fields);
    refreshParticles();
    Q_EMIT heatmapsReady();
    if (heatPending_) submitHeat();
}

void AnnealingView::refreshParticles() {
    const bool show = particlesBox_->isChecked();
    for (int i = 0; i < laneCount(); ++i) {
        HeatmapView* h = heatmaps_[static_cast<std::size_t>(i)];
        h->setParticles({});
        h->setOverlayText(QString());
        if (!show || !session_ || static_cast<std::size_t>(i) >= session_->lanes().size()) continue;
        const RunStatus& st = session_->status();
        const LaneRun& run = session_->lanes()[static_cast<std::size_t>(i)];
        if (st.running && follow_ && st.lane == i && !st.live.isEmpty()) {
            h->setParticles(st.live);
            h->setOverlayText(tr("%1 at β = %2, step %3 of %4%5")
                                  .arg(shownOf(st.live.size(), session_->chains(), tr("chains")))
                                  .arg(betaText(st.beta))
                                  .arg(st.step)
                                  .arg(st.steps)
                                  .arg(st.phase == rbm::AisPhase::Reverse ? tr(" (reverse AIS)") : QString()));
            continue;
        }
        if (const ParticleFrame* f = run.frameNear(beta_)) {
            h->setParticles(f->points);
            // Particles exist only at the run's checkpoints: say so when the nearest one is not at
            // the β shown in the title and on the slider.
            const bool same = betaText(f->beta) == betaText(beta_);
            h->setOverlayText(same ? tr("%1 at β = %2 (step %3)")
                                         .arg(shownOf(f->points.size(), session_->chains(), tr("AIS particles")))
                                         .arg(betaText(f->beta))
                                         .arg(f->step)
                                   : tr("%1 from the nearest checkpoint, step %2 (β = %3)")
                                         .arg(shownOf(f->points.size(), session_->chains(), tr("AIS particles")))
                                         .arg(f->step)
                                         .arg(betaText(f->beta)));
        }
    }
}

}  // namespace rbmscope
