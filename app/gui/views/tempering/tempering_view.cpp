#include "views/tempering/tempering_view.hpp"
#include "views/export_hidden.hpp"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QSplitter>
#include <QStyle>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace rbmscope {
namespace {

constexpr int kRungCells = 72;             // grid side of each rung heatmap
constexpr int kTemperingFrameGateMs = 35;  // at most ~30 redraws per second
constexpr int kBarrierSamples = 160;
constexpr double kFastReplaySeconds = 8;  // "fast" with no transport speed: the whole run in this time

bool drawable(const rbm::Model& m) { return m.n_visible() == 2 && m.kind() != rbm::ModelKind::Brbm; }

QString fmt(double x, int digits = 3) { return QString::number(x, 'g', digits); }

}  // namespace

TemperingView::TemperingView(QWidget* parent, BackgroundJobs* jobs)
    : QWidget(parent), jobs_(jobs ? jobs : new BackgroundJobs(this)) {
    gate_ = std::make_unique<FrameGate>(this, kTemperingFrameGateMs, [this] { showPending(); });
    auto* root = new QVBoxLayout(this);
    root->setContentsMargins(4, 4, 4, 4);
    auto* strip = new QWidget(this);
    buildControls(strip);
    strip->setProperty(kExportHidden, true);  // image and playback exports leave the controls out
    root->addWidget(strip);
    auto* replayStrip = new QWidget(this);
    replayStrip->setProperty(kExportHidden, true);
    buildReplayControls(replayStrip);
    root->addWidget(replayStrip);

    auto* split = new QSplitter(Qt::Vertical, this);
    root->addWidget(split, 1);
    chart_ = new TrajectoryChart(split);

    auto* lower = new QWidget(split);
    auto* lh = new QHBoxLayout(lower);
    lh->setContentsMargins(0, 0, 0, 0);
    auto* left = new QWidget(lower);
    auto* lv = new QVBoxLayout(left);
    lv->setContentsMargins(0, 0, 0, 0);
    ladder_ = new LadderPlot(left);
    counters_ = new QLabel(left);
    counters_->setTextFormat(Qt::RichText);
    counters_->setWordWrap(true);
    counters_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    counters_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    counters_->setMinimumHeight(4 * counters_->fontMetrics().lineSpacing() + 6);
    lv->addWidget(ladder_, 1);
    lv->addWidget(counters_);
    lh->addWidget(left, 3);

    heatStack_ = new QStackedWidget(lower);
    heatMessage_ = new QLabel(heatStack_);
    heatMessage_->setWordWrap(true);
    heatMessage_->setAlignment(Qt::AlignCenter);
    heatGrid_ = new QWidget(heatStack_);
    heatLayout_ = new QGridLayout(heatGrid_);
    heatLayout_->setContentsMargins(0, 0, 0, 0);
    heatLayout_->setSpacing(3);
    heatStack_->addWidget(heatMessage_);
    heatStack_->addWidget(heatGrid_);
    lh->addWidget(heatStack_, 2);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 4);

    connect(ladder_, &LadderPlot::ladderEdited, this, [this](const std::vector<double>& betas) {
        customLadder_ = betas;
        chart_->setBetas(betas);  // the axis labels follow the drag at once, not only the next run's frames
        run();
    });
    connect(jobs_, &BackgroundJobs::runningChanged, this, [this](const QString& channel, bool on) {
        if (channel != runChannel()) return;
        Q_UNUSED(on);
        updateEnabled();
        Q_EMIT runningChanged(running());
    });
    heatMessage_->setText(tr("Open a model to temper it."));
    updateEnabled();
}

TemperingView::~TemperingView() {
    jobs_->cancel(runChannel());
    jobs_->cancel(heatChannel());
}

void TemperingView::buildControls(QWidget* strip) {
    auto* h = new QHBoxLayout(strip);
    h->setContentsMargins(0, 0, 0, 0);
    scheme_ = new QComboBox(strip);
    scheme_->addItem(tr("DEO (non-reversible)"), static_cast<int>(rbm::PtScheme::Deo));
    scheme_->addItem(tr("reversible (SEO)"), static_cast<int>(rbm::PtScheme::Reversible));
    scheme_->addItem(tr("single pair"), static_cast<int>(rbm::PtScheme::Single));
    scheme_->addItem(tr("lifted replica"), static_cast<int>(rbm::PtScheme::Lifted));
    scheme_->setToolTip(
        tr("DEO: even pairs at even scans, odd at odd scans (replicas zig-zag). Reversible: the "
           "parity is random (replicas diffuse). Single: one random pair per scan. Lifted: one replica "
           "keeps a direction (highlighted)."));
    ladderKind_ = new QComboBox(strip);
    ladderKind_->addItem(tr("geometric"), static_cast<int>(LadderKind::Geometric));
    ladderKind_->addItem(tr("linear"), static_cast<int>(LadderKind::Linear));
    ladderKind_->addItem(tr("adaptive"), static_cast<int>(LadderKind::Adaptive));
    ladderKind_->setToolTip(
        tr("Geometric: β_k = γ^(N−k). Linear: equal steps from 0. Adaptive: tuning rounds place "
           "the rungs at equal steps of the cumulative barrier."));
    replicas_ = new QSpinBox(strip);
    replicas_->setRange(2, 64);
    replicas_->setValue(7);
    replicas_->setToolTip(tr("Replicas N + 1 (rungs of the ladder, β_0 … β_N = 1)"));
    gamma_ = new QDoubleSpinBox(strip);
    gamma_->setRange(0.05, 0.99);
    gamma_->setSingleStep(0.05);
    gamma_->setDecimals(2);
    gamma_->setValue(0.7);
    gamma_->setToolTip(tr("Ratio γ of the geometric ladder"));
    seed_ = new QSpinBox(strip);
    seed_->setRange(1, 1 << 30);
    seed_->setValue(1);
    seed_->setToolTip(tr("Seed: the same seed gives the same run"));
    scans_ = new QSpinBox(strip);
    scans_->setRange(100, 10000000);
    scans_->setSingleStep(1000);
    scans_->setValue(20000);
    scans_->setToolTip(tr("Scans of the run (one local move per rung and one swap step each)"));
    speed_ = new QComboBox(strip);
    speed_->addItem(tr("slow"), 60.0);
    speed_->addItem(tr("watch"), 300.0);
    speed_->addItem(tr("fast"), 0.0);
    speed_->setCurrentIndex(1);
    speed_->setToolTip(tr("Scans per second: 60, 300, or as fast as the machine goes"));

    const auto label = [strip](const QString& t) { return new QLabel(t, strip); };
    h->addWidget(label(tr("Scheme")));
    h->addWidget(scheme_);
    h->addWidget(label(tr("Ladder")));
    h->addWidget(ladderKind_);
    h->addWidget(label(tr("Replicas")));
    h->addWidget(replicas_);
    h->addWidget(label(QStringLiteral("γ")));
    h->addWidget(gamma_);
    h->addWidget(label(tr("Seed")));
    h->addWidget(seed_);
    h->addWidget(label(tr("Scans")));
    h->addWidget(scans_);
    h->addWidget(speed_);
    // Run, Cancel and the status line sit on the replay strip (buildReplayControls): with them this
    // strip was wider than the page beside the parameters dock at 1280 px, and the view scrolled.
    h->addStretch(1);

    // The scheme restarts a shown run on the same seed; the ladder's shape drops dragged rungs.
    connect(scheme_, &QComboBox::currentIndexChanged, this, [this] { controlsChanged(true); });
    const auto ladderChanged = [this] {
        if (updatingControls_) return;
        customLadder_.clear();
        controlsChanged(false);
    };
    connect(ladderKind_, &QComboBox::currentIndexChanged, this, ladderChanged);
    connect(replicas_, &QSpinBox::valueChanged, this, ladderChanged);
    connect(gamma_, &QDoubleSpinBox::valueChanged, this, ladderChanged);
}

void TemperingView::controlsChanged(bool restartIfShown) {
    if (updatingControls_) return;
    updateEnabled();
    const bool wasActive = running() || shown_;
    if (restartIfShown && wasActive && hasModel_) {
        run();
        return;
    }
    if (!running()) showInitialLadder();
}

void TemperingView::showInitialLadder() {
    try {
        const auto betas = initialLadder(settings());
        ladder_->setLadder(betas);
        ladder_->setEditable(settings().ladder != LadderKind::Adaptive);
        chart_->setBetas(betas);
        requestRungImages(betas);
    } catch (const std::exception& e) {
        status_->setText(QString::fromUtf8(e.what()));
    }
}

TemperingSettings TemperingView::settings() const {
    TemperingSettings s;
    s.scheme = static_cast<rbm::PtScheme>(scheme_->currentData().toInt());
    s.ladder = static_cast<LadderKind>(ladderKind_->currentData().toInt());
    s.replicas = replicas_->value();
    s.gamma = gamma_->value();
    s.seed = static_cast<std::uint64_t>(seed_->value());
    s.scans = scans_->value();
    s.scansPerSecond = speed_->currentData().toDouble();
    if (s.ladder != LadderKind::Adaptive && static_cast<int>(customLadder_.size()) == s.replicas)
        s.customLadder = customLadder_;
    return s;
}

void TemperingView::setSettings(const TemperingSettings& s) {
    const bool schemeChanged = s.scheme != settings().scheme;
    {
        updatingControls_ = true;
        scheme_->setCurrentIndex(scheme_->findData(static_cast<int>(s.scheme)));
        ladderKind_->setCurrentIndex(ladderKind_->findData(static_cast<int>(s.ladder)));
        replicas_->setValue(s.replicas);
        gamma_->setValue(s.gamma);
        seed_->setValue(static_cast<int>(s.seed));
        scans_->setValue(static_cast<int>(std::min<long long>(s.scans, scans_->maximum())));
        int best = 0;
        for (int i = 0; i < speed_->count(); ++i)
            if (speed_->itemData(i).toDouble() == s.scansPerSecond) best = i;
        speed_->setCurrentIndex(best);
        customLadder_ = s.customLadder;
        updatingControls_ = false;
    }
    controlsChanged(schemeChanged);
}

void TemperingView::setScheme(rbm::PtScheme scheme) {
    scheme_->setCurrentIndex(scheme_->findData(static_cast<int>(scheme)));
}

void TemperingView::setExactLogZ(std::optional<double> logZ) {
    exactLogZ_ = logZ;
    if (shown_ && !replay_) updateCounters(*shown_);  // the summary may arrive after the run ended
}

void TemperingView::setModel(const rbm::Model& model) {
    exactLogZ_.reset();  // the window's summary for the new model follows (setExactLogZ)
    cancel();
    stopReplay();
    recording_.reset();
    playhead_->clear();
    reopened_.clear();
    lastRun_.reset();
    model_ = model;
    hasModel_ = true;
    drawable_ = drawable(model);
    pending_.reset();
    shown_.reset();
    heatBetas_.clear();
    chart_->clear();
    counters_->clear();
    status_->clear();
    if (!drawable_) {
        jobs_->cancel(heatChannel());
        heatMessage_->setText(model.n_visible() == 2
                                  ? tr("Rung heatmaps are drawn for continuous 2-D models; this one is binary.")
                                  : tr("Rung heatmaps are drawn for 2-D models; this model has %1 visible units.")
                                        .arg(model.n_visible()));
        heatStack_->setCurrentWidget(heatMessage_);
    }
    updateEnabled();
    showInitialLadder();
}

bool TemperingView::computing() const { return jobs_->isRunning(runChannel()); }
bool TemperingView::running() const { return computing() || playhead_->showing(); }

std::optional<Transport::Restored> TemperingView::restoredRun() const {
    if (reopened_.isEmpty() || !shown_) return std::nullopt;
    return Transport::Restored{shown_->scansDone, shown_->finished};
}

bool TemperingView::lastRunFinished() const {
    if (!reopened_.isEmpty()) return shown_ && shown_->finished;
    return playhead_->complete();
}

void TemperingView::cancel() {
    jobs_->cancel(runChannel());
    // Stopped at once; the last computed scan goes on screen once the worker has written it.
    playhead_->cancel();
    updateEnabled();
}

void TemperingView::run(std::shared_ptr<rbm::StepGate> gate) {
    if (!hasModel_) return;
    TemperingSettings s = settings();
    try {
        initialLadder(s);
    } catch (const std::exception& e) {
        status_->setText(QString::fromUtf8(e.what()));
        return;
    }
    stopReplay();
    pending_.reset();
    shown_.reset();
    reopened_.clear();
    lastRun_ = s;
    recording_ = std::make_shared<TemperingRecording>(maxRecords_);
    chart_->clear();
    // Replica 0 (the lifted one under the lifted scheme) is drawn thick so its walk stands out.
    chart_->setHighlight(0);
    ladder_->setEditable(s.ladder != LadderKind::Adaptive);
    status_->setText(tr("starting…"));
    const rbm::Model model = model_;
    // The show starts first, so the job is seen with this run's gate from its first report on.
    playhead_->start(std::move(gate));
    jobs_->submitWithProgress<TemperingFrame>(
        runChannel(),
        [model, s, this, rec = recording_](const BackgroundJobs::Context& ctx) {
            // Frames go through post(), which drops them once a newer run has started.
            struct EndRecording {  // however the worker leaves, the recording may be read after it
                TemperingRecording* r;
                ~EndRecording() { r->markEnded(); }
            } end{rec.get()};
            return runTempering(
                model, s, *ctx.cancel,
                [ctx, this](const TemperingFrame& f) {
                    auto copy = std::make_shared<TemperingFrame>(f);
                    ctx.post([this, copy] { receive(copy); });
                },
                0.033, rec.get());  // the pace and the pauses are the show's (jobs/playhead.hpp)
        },
        [this](TemperingFrame f) {
            receive(std::make_shared<TemperingFrame>(std::move(f)));
            gate_->flushNow();
            playhead_->engineEnded(true);
            updateReplayControls();
            if (!playhead_->showing()) Q_EMIT runFinished();  // else when the show reaches the end
        },
        [this](QString message) {
            playhead_->abort();
            status_->setText(message);
        });
    updateEnabled();
}

void TemperingView::receive(std::shared_ptr<TemperingFrame> frame) {
    pending_ = std::move(frame);
    gate_->wake();
}

void TemperingView::showPending() {
    if (!pending_) return;
    shown_ = std::move(pending_);
    if (playhead_->showing() || lastScanPending())
        return updateShowStatus();  // the show draws recorded scans, at its pace
    showFrame(*shown_);
}

void TemperingView::showFrame(const TemperingFrame& f) {
    ++framesShown_;
    if (f.betas != ladder_->ladder()) ladder_->setLadder(f.betas);
    if (f.betas != chart_->betas()) chart_->setBetas(f.betas);
    if (f.betas != heatBetas_) requestRungImages(f.betas);
    // Before any scan of a round (a replay's first record) there are no swap rates yet.
    ladder_->setAcceptance(f.stats.scans > 0 ? f.stats.acceptance() : std::vector<double>());
    if (f.stats.scans == 0) ladder_->setBarrierCurve({}, {});
    if (f.stats.pairs() > 0 && f.stats.scans > 0) {
        // Here on the GUI thread a refusal must not escape: a model of extreme numbers gives NaN
        // rejection rates (0 · inf in the swap ratio), and then there is no barrier to draw.
        try {
            const rbm::BarrierProfile prof = rbm::barrier_profile(f.betas, f.stats.rejection);
            std::vector<double> bs(kBarrierSamples), ls(kBarrierSamples);
            const double lo = f.betas.front(), hi = f.betas.back();
            for (int i = 0; i < kBarrierSamples; ++i) {
                bs[static_cast<std::size_t>(i)] = lo + (hi - lo) * i / (kBarrierSamples - 1);
                ls[static_cast<std::size_t>(i)] = prof.local(bs[static_cast<std::size_t>(i)]);
            }
            ladder_->setBarrierCurve(bs, ls);
        } catch (const std::exception& e) {
            ladder_->setBarrierCurve({}, {});
            status_->setText(tr("no barrier: %1").arg(QString::fromStdString(e.what())));
        }
    }
    chart_->setIndexProcess(f.recent, f.rungs, f.recentFirstScan);
    updateCounters(f);

    // Dots: the state of chain 0 at each rung, coloured as the replica that carries it.
    const std::size_t last = f.recent.size() >= static_cast<std::size_t>(f.rungs) ? f.recent.size() - f.rungs : 0;
    for (int k = 0; k < std::min<int>(rungHeatmapCount(), static_cast<int>(f.states.rows())); ++k) {
        EllipseHeatmap* h = rungMaps_[static_cast<std::size_t>(k)];
        if (f.states.cols() != 2) break;
        const int replica = f.recent.empty() ? k : f.recent[last + static_cast<std::size_t>(k)];
        QColor c = replicaColor(replica, f.rungs);
        if (f.stats.scheme == rbm::PtScheme::Lifted && replica == 0) c = QColor(230, 60, 40);
        h->setSpot(QPointF(f.states(k, 0), f.states(k, 1)), c);
        h->setOverlayText(tr("replica %1").arg(replica));
    }
    Q_EMIT frameShown();
}

void TemperingView::showResult(const TemperingFrame& frame, const QString& source) {
    cancel();
    stopReplay();
    recording_.reset();  // a result holds no trajectories to replay
    playhead_->clear();
    updateReplayControls();
    shown_ = std::make_shared<TemperingFrame>(frame);
    pending_.reset();
    reopened_ = source;  // lastRunFinished() is now the result's
    lastRun_.reset();
    showFrame(*shown_);
}

QString TemperingView::statusText() const { return status_->text(); }

void TemperingView::updateCounters(const TemperingFrame& f) {
    const rbm::PtStats& st = f.stats;
    const double scans = static_cast<double>(st.scans),
                 chains = static_cast<double>(std::max<rbm::Index>(1, st.chains));
    QString text;
    text += tr("<b>%1</b> · scan %2 of %3")
                .arg(QString::fromUtf8(rbm::pt_scheme_name(st.scheme)))
                .arg(f.scansDone)
                .arg(f.scansTotal);
    if (f.rounds > 1)
        text += f.round < f.rounds ? tr(" · adaptive tuning round %1 of %2").arg(f.round).arg(f.rounds - 1)
                                   : tr(" · final run on the tuned ladder");
    const double predRate = st.predicted_round_trip_rate();
    if (st.scheme == rbm::PtScheme::Lifted) {
        text += tr("<br>Round trips of the lifted replica: <b>%1</b> measured · %2 predicted (rate %3 vs %4 per scan)")
                    .arg(st.lifted_round_trips)
                    .arg(fmt(predRate * scans * chains))
                    .arg(fmt(st.lifted_round_trip_rate()))
                    .arg(fmt(predRate));
    } else {
        text +=
            tr("<br>Round trips (all replicas, %1 chains): <b>%2</b> measured · %3 predicted (rate %4 vs %5 per scan)")
                .arg(st.chains)
                .arg(st.total_round_trips())
                .arg(fmt(predRate * scans * chains))
                .arg(fmt(st.round_trip_rate()))
                .arg(fmt(predRate));
    }
    const double barrier = st.barrier();
    text += tr("<br>Global barrier Λ̂ = Σ r<sub>k</sub> = <b>%1</b> · recommended replicas ⌈2Λ̂⌉ + 1 = %2")
                .arg(fmt(barrier))
                .arg(rbm::recommended_n(barrier) + 1);
    if (f.logZ) {
        const auto interval = [](const rbm::LogZEstimate& e) {
            return QStringLiteral("%1 ± %2").arg(e.log_z, 0, 'f', 4).arg(1.96 * e.se, 0, 'f', 4);
        };
        text += tr("<br>log Z: BAR <b>%1</b> · stepping stone %2 (95 %, batch means)")
                    .arg(interval(f.logZ->bar), interval(f.logZ->stepping_stone));
        if (exactLogZ_) text += tr(" · exact <b>%1</b>").arg(*exactLogZ_, 0, 'f', 4);
    } else if (f.finished && !f.logZError.empty()) {
        text += tr("<br>log Z: none (%1)").arg(QString::fromStdString(f.logZError).toHtmlEscaped());
    }
    counters_->setText(text);
    if (playhead_->showing()) updateShowStatus();
    else if (replay_) status_->setText(tr("replay: scan %1 of %2").arg(f.scansDone).arg(f.scansTotal));
    else if (!reopened_.isEmpty()) status_->setText(reopened_);  // redrawn (rung images in): still the reopened result
    else
        status_->setText(f.finished ? tr("done: %1 scans").arg(f.scansDone) : tr("running… %1 scans").arg(f.scansDone));
}

void TemperingView::rebuildRungMaps(int rungs) {
    if (rungHeatmapCount() == rungs) return;
    for (EllipseHeatmap* h : rungMaps_) delete h;
    rungMaps_.clear();
    const int cols = rungs <= 4 ? rungs : (rungs <= 9 ? 3 : (rungs <= 16 ? 4 : 6));
    for (int k = 0; k < rungs; ++k) {
        auto* h = new EllipseHeatmap(heatGrid_);
        h->setCompact(true);
        h->setMinimumSize(90, 80);
        // Top-left the target (last rung), reading down to the reference.
        const int slot = rungs - 1 - k;
        heatLayout_->addWidget(h, slot / cols, slot % cols);
        rungMaps_.push_back(h);
    }
}

void TemperingView::requestRungImages(const std::vector<double>& betas) {
    if (!hasModel_ || !drawable_) return;
    heatBetas_ = betas;
    const rbm::Model model = model_;
    jobs_->submit<RungImages>(
        heatChannel(),
        [model, betas](const BackgroundJobs::CancelFlag& flag) {
            return rungImages(model, betas, kRungCells, [flag] { return flag->load(); });
        },
        [this](RungImages r) {
            heat_ = std::move(r);
            rebuildRungMaps(static_cast<int>(heat_.images.size()));
            for (std::size_t k = 0; k < heat_.images.size(); ++k) {
                rungMaps_[k]->setImage(heat_.images[k], heat_.domain, 0.0, 1.0, tr("p_β / max"));
                rungMaps_[k]->setTitle(tr("rung %1 · β = %2").arg(k).arg(heat_.betas[k], 0, 'f', 3));
            }
            heatStack_->setCurrentWidget(heatGrid_);
            if (const TemperingFrame* f = displayedFrame()) showFrame(*f);
            Q_EMIT rungImagesReady();
        },
        [this](QString message) {
            heatMessage_->setText(message);
            heatStack_->setCurrentWidget(heatMessage_);
        });
}

void TemperingView::updateEnabled() {
    const bool on = running();
    runButton_->setEnabled(hasModel_);
    runButton_->setText(on ? tr("Restart") : tr("Run"));
    cancelButton_->setEnabled(on);
    gamma_->setEnabled(ladderKind_->currentData().toInt() == static_cast<int>(LadderKind::Geometric));
    if (!on && shown_ && !shown_->finished && !replay_)
        status_->setText(tr("cancelled at scan %1").arg(shown_->scansDone));
    updateReplayControls();
}

void TemperingView::buildReplayControls(QWidget* strip) {
    auto* h = new QHBoxLayout(strip);
    h->setContentsMargins(0, 0, 0, 0);
    playButton_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("Replay"), strip);
    playButton_->setFocusPolicy(Qt::NoFocus);
    playButton_->setToolTip(tr("Replay the last run from its first scan (Space when nothing runs)"));
    playSlider_ = new QSlider(Qt::Horizontal, strip);
    playSlider_->setToolTip(tr("Scrub through the recorded scans of the last run"));
    playSlider_->setRange(0, 0);
    playLabel_ = new QLabel(strip);
    playLabel_->setMinimumWidth(200);
    runButton_ = new QPushButton(tr("Run"), strip);
    cancelButton_ = new QPushButton(tr("Cancel"), strip);
    connect(runButton_, &QPushButton::clicked, this, [this] { run(); });
    connect(cancelButton_, &QPushButton::clicked, this, [this] { cancel(); });
    status_ = new QLabel(strip);
    status_->setMinimumWidth(260);
    h->addWidget(runButton_);
    h->addWidget(cancelButton_);
    h->addWidget(playButton_);
    h->addWidget(playSlider_, 1);
    h->addWidget(status_);
    h->addWidget(playLabel_);
    Playhead::Source src;
    src.seek = [this](long long scan, bool after) { return seekRecord(scan, after); };
    src.newest = [this] { return recording_ ? recording_->lastScan() : -1LL; };
    src.written = [this] { return recording_ && recording_->ended(); };
    src.computing = [this] { return computing(); };
    src.showPace = [this] { return hurried_ ? 0.0 : speed_->currentData().toDouble(); };
    src.replayPace = [this] {
        if (const double v = speed_->currentData().toDouble(); v > 0) return v;
        const TemperingRecording* r = recording();
        const double scans = r && r->size() > 0 ? static_cast<double>(r->scan(r->size() - 1)) : 0.0;
        return std::max(1.0, scans / kFastReplaySeconds);
    };
    src.showEnd = [this] { return showRunEnd(); };
    playhead_ = new Playhead(std::move(src), this);
    connect(playhead_, &Playhead::stateChanged, this, &TemperingView::playheadChanged);
    connect(playhead_, &Playhead::ticked, this, &TemperingView::updateShowStatus);
    connect(playButton_, &QPushButton::clicked, this, [this] { setPlaying(!playing()); });
    // Dragging or the slider's keys scrub (the slider's own changes while playing come from tickReplay).
    connect(playSlider_, &QSlider::valueChanged, this, [this](int v) {
        if (v != shownRecord()) {
            setPlaying(false);
            showRecord(v);
        }
    });
}

const TemperingRecording* TemperingView::recording() const {
    // Cut by Esc, the recording is replayable once its end is on screen (the playhead's next tick).
    if (!recording_ || running() || !recording_->ended() || lastScanPending()) return nullptr;
    return recording_.get();
}

double TemperingView::replayRate() const { return playhead_->replayRate(); }

void TemperingView::setPlaying(bool on) {
    if (on && !canReplay()) return;
    playhead_->setPlaying(on);
}

void TemperingView::playheadChanged(Playhead::State from, Playhead::State to) {
    using S = Playhead::State;
    if (from == S::Playing || to == S::Playing) {
        const bool on = to == S::Playing;
        playButton_->setText(on ? tr("Pause replay") : tr("Replay"));
        playButton_->setIcon(style()->standardIcon(on ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
        Q_EMIT playingChanged(on);
    }
    if (from == S::Showing) {  // the show stopped: Esc, its end, a failure
        updateEnabled();
        Q_EMIT runningChanged(running());
        if (to == S::Ended && playhead_->complete()) Q_EMIT runFinished();
    } else if (from == S::Cutting && to == S::Ended) {
        updateEnabled();
    }
    Q_EMIT playbackChanged();
}

long long TemperingView::seekRecord(long long scan, bool after) {
    const TemperingRecording* r = recording_.get();
    if (!r) return -1;
    if (playhead_->replaying()) {  // the run ended: its records are fixed, the slider counts them
        const int n = r->size();
        if (n == 0) return -1;
        int i = r->indexAt(scan);
        if (after && r->scan(i) <= scan) ++i;
        if (i >= n) return -1;
        if (i != replayIndex_ || !replay_) drawRecord(i);
        return r->scan(i);
    }
    // The show of the run in progress: asked by scan (a halving may renumber the records).
    const auto f = after ? r->frameAfter(scan) : r->frameAt(scan);
    if (!f) return -1;
    if (f->scansDone != playhead_->shown()) showLive(*f);
    return f->scansDone;
}

void TemperingView::showRecord(int index) {
    const TemperingRecording* r = recording();
    if (!r || r->size() == 0) return;
    // The playhead replays from here on (Replaying, or Playing on from here); it asks seekRecord to draw.
    playhead_->seek(r->scan(std::clamp(index, 0, r->size() - 1)));
}

void TemperingView::drawRecord(int index) {
    const TemperingRecording* r = recording_.get();
    replayIndex_ = std::clamp(index, 0, r->size() - 1);
    replay_ = std::make_shared<TemperingFrame>(r->frame(replayIndex_));
    {
        const QSignalBlocker block(playSlider_);
        playSlider_->setValue(replayIndex_);
    }
    playLabel_->setText(tr("scan %1/%2 · record %3/%4")
                            .arg(replay_->scansDone)
                            .arg(r->scansTotal())
                            .arg(replayIndex_ + 1)
                            .arg(r->size()));
    showFrame(*replay_);
    Q_EMIT playbackChanged();  // the toolbar names the record
}

bool TemperingView::stepReplay() {
    if (!canReplay()) return false;
    return playhead_->step();
}

void TemperingView::stopReplay() {
    playhead_->endReplay();
    replay_.reset();
    replayIndex_ = 0;
}

void TemperingView::endReplay() {
    stopReplay();
    if (shown_) showFrame(*shown_);
    updateReplayControls();
}

void TemperingView::updateReplayControls() {
    // A cancelled run's worker writes its last record a moment after the channel stopped: look again then.
    if (recording_ && !running() && !recording_->ended())
        QTimer::singleShot(20, this, [this] { updateReplayControls(); });
    const TemperingRecording* r = recording();
    const bool can = canReplay();
    if (can != replayAvailable_) {  // the value last announced, so the signal fires on changes only
        replayAvailable_ = can;
        Q_EMIT replayAvailableChanged(can);
    }
    playButton_->setEnabled(can);
    playSlider_->setEnabled(can);
    const QSignalBlocker block(playSlider_);
    playSlider_->setRange(0, can ? r->size() - 1 : 0);
    playSlider_->setValue(can ? (replay_ ? replayIndex_ : r->size() - 1) : 0);
    if (!can) {
        if (!playhead_->showing())
            playLabel_->setText(running() ? tr("recording…") : QString());  // a show writes its own
    } else if (!replay_)
        playLabel_->setText(tr("%1 scans recorded (1 in %2): Replay or drag").arg(r->size()).arg(r->stride()));
}

long long TemperingView::computedScans() const {
    long long n = shown_ ? shown_->scansDone : 0;
    if (recording_) n = std::max(n, recording_->lastScan());
    return n;
}

void TemperingView::showLive(const TemperingFrame& f) {
    replay_ = std::make_shared<TemperingFrame>(f);
    showFrame(*replay_);
}

long long TemperingView::showRunEnd() {
    replay_.reset();
    if (recording_ && recording_->ended() && recording_->size() > 0) {
        pending_.reset();  // an older engine frame still waiting for the redraw timer must not replace the end
        // The last computed scan (a cancelled run's worker writes it after the last report).
        const TemperingRecording* r = recording_.get();
        auto last = std::make_shared<TemperingFrame>(r->frame(r->size() - 1));
        if (shown_ && shown_->scansDone == last->scansDone) {  // the engine's end: keep its log Z
            last->logZ = shown_->logZ;
            last->logZError = shown_->logZError;
        }
        if (!shown_ || shown_->scansDone <= last->scansDone) shown_ = last;
    }
    if (shown_) showFrame(*shown_);
    return shown_ ? shown_->scansDone : -1;
}

void TemperingView::updateShowStatus() {
    if (!playhead_->showing() || playhead_->shown() < 0) return;
    const long long computed = computedScans();
    const long long total = recording_ ? recording_->scansTotal() : 0;
    status_->setText(tr("%1 scan %2 of %3 computed")
                         .arg(playhead_->held() ? tr("paused at") : tr("showing"))
                         .arg(playhead_->shown())
                         .arg(computed));
    // "· ": the two labels sit side by side (status_ just before), and read as one sentence without it.
    playLabel_->setText(computing() ? tr("· engine computing: %1 of %2 scans").arg(computed).arg(total)
                                    : tr("· engine %1: %2 of %3 scans")
                                          .arg(lastRunFinished() ? tr("done") : tr("stopped"))
                                          .arg(computed)
                                          .arg(total));
}

QString TemperingView::transportDetail() const {
    if (playhead_->cut() && !running() && lastRunFinished())
        return tr(" · show stopped, the run was computed to its end");
    if (playhead_->replaying() && replay_ && recording_)
        return tr(" · replay: scan %1 of %2").arg(replay_->scansDone).arg(recording_->lastScan());
    if (!playhead_->showing() || playhead_->shown() < 0) return {};
    const long long total = recording_ ? recording_->scansTotal() : 0;
    return tr(" shown · %1 of %2 computed%3")
        .arg(computedScans())
        .arg(total)
        .arg(computing() ? QString() : tr(" (engine %1)").arg(lastRunFinished() ? tr("done") : tr("stopped")));
}

QPixmap TemperingView::grabForScreenshot() {
    gate_->flushNow();
    return grab();
}

}  // namespace rbmscope
