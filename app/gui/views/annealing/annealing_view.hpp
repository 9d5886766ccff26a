#pragma once
// The annealing view for 2-D models: for each lane (method) a heatmap of the intermediate
// density p_beta (normalized on the grid; the exact target density at beta = 1), one colour scale
// shared by all lanes, the AIS particles at the shown beta and the target's modes; a beta slider
// with play/pause and speed; and a filmstrip of small heatmaps at chosen betas, one row per lane.
// One lane: the "Annealing" tab; several side by side: the "Compare" tab.
//
// Heatmaps are computed on workers (BackgroundJobs channels "<name>.heat" and "<name>.film") into
// QImages and swapped in. A new model or new paths restart the computation at once (the old
// result is dropped); a new beta while a heatmap is being computed waits for it and then asks
// for the newest beta only, so scrubbing and playing never pile up work.
#include <QCheckBox>
#include <QComboBox>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QSplitter>
#include <QStackedWidget>
#include <QTimer>
#include <QWidget>

#include "filmstrip.hpp"
#include "heatmap_view.hpp"
#include "jobs/background_jobs.hpp"
#include "jobs/lanes.hpp"
#include "session_fields.hpp"
#include "validated_field.hpp"
#include "views/annealing/ais_job.hpp"
#include "views/density/density_field.hpp"

namespace rbmscope {

class AnnealingView : public QWidget {
    Q_OBJECT
public:
    // maxLanes: 1 for the single-method view, more for the comparison.
    AnnealingView(BackgroundJobs* jobs, const QString& name, int maxLanes, QWidget* parent = nullptr);

    void setModel(const rbm::Model& model);
    void setLanes(const std::vector<Lane>& lanes);
    // New paths are being built: drop the shown ones and any heatmap still being computed.
    void setLanesPending();
    // Particles and follow-the-run from the current AIS run (null: none).
    void setRun(const AisJob* session);
    void setBeta(double beta);
    double beta() const { return beta_; }
    void setFilmBetas(const std::vector<double>& betas);
    void setPlaying(bool on);
    bool playing() const { return playTimer_->isActive(); }
    void setHurried(bool on) { hurried_ = on; }  // View::setHurried: Play reaches β = 1 on its first tick
    void setFollowRun(bool on) { follow_ = on; }
    // One colour scale for all lanes (default) or one per lane.
    void setSharedScale(bool on);
    bool sharedScale() const { return sharedScale_; }
    // Linear or logarithmic colours for the heatmaps and the filmstrip.
    void setColourScale(ColourScale scale);
    ColourScale colourScale() const { return colourScale_; }
    // Sessions: speed (slow | normal | fast), particles, shared_scale, film_betas (the
    // filmstrip's β list as typed). β itself follows the run and is not kept.
    std::vector<SessionField> sessionFields() const {
        return {{"speed", speedBox_, {"slow", "normal", "fast"}},
                {"particles", particlesBox_},
                {"shared_scale", sharedBox_},
                {"film_betas", filmField_}};
    }

    bool busy() const;
    int laneCount() const { return static_cast<int>(heatmaps_.size()); }
    HeatmapView* heatmap(int lane) const;
    Filmstrip* filmstrip() const { return film_; }
    QSlider* slider() const { return slider_; }
    double shownBeta() const { return shownBeta_; }  // beta of the images on screen
    int heatDeliveries() const { return heatDeliveries_; }
    QString heatChannel() const { return name_ + QStringLiteral(".heat"); }
    QString filmChannel() const { return name_ + QStringLiteral(".film"); }
    const rbm::GridSpec& box() const { return box_; }

    QString exportCsv() const;
    QJsonObject exportJson() const;

Q_SIGNALS:
    void heatmapsReady();
    void filmstripReady();
    void betaChanged(double beta);
    void playingChanged(bool playing);  // Play β started or stopped (the transport says "playing")

protected:
    void showEvent(QShowEvent* e) override;

private:
    struct HeatResult {
        double beta = 0;
        std::vector<Field> fields;
        std::vector<QImage> images;
        std::vector<QString> errors;
        std::vector<double> vmax;  // per lane (all equal with a shared colour scale)
        ColourScale scale = ColourScale::Linear;
    };
    struct FilmResult {
        std::vector<double> betas;
        std::vector<std::vector<QImage>> images;  // [lane][column]
        std::vector<std::vector<double>> vmax;    // [lane][column]
        std::vector<QString> errors;              // per lane
        ColourScale scale = ColourScale::Linear;
    };

    void rebuildLanes();
    void requestHeat(bool restart);
    void submitHeat();
    void submitFilm();
    void showHeat(HeatResult r);
    void showFilm(FilmResult r);
    void refreshParticles();
    void refreshFilmParticles();
    void updateBetaLabel();
    void tick();

    BackgroundJobs* jobs_;
    QString name_;
    int maxLanes_;
    rbm::Model model_;
    bool drawable_ = false;
    std::vector<Lane> lanes_;
    const AisJob* session_ = nullptr;
    rbm::GridSpec box_;
    QVector<QPointF> modes_;
    double beta_ = 1.0;
    double shownBeta_ = -1;
    bool heatPending_ = false;
    bool follow_ = true;
    bool sharedScale_ = true;
    ColourScale colourScale_ = ColourScale::Linear;
    bool staleHeat_ = false, staleRun_ = false;  // progress arrived while hidden
    std::size_t filmFrames_ = 0;                 // particle frames the filmstrip shows
    int heatDeliveries_ = 0;
    std::vector<Field> shownFields_;
    std::vector<double> filmBetas_{0.0, 0.05, 0.2, 0.4, 0.7, 1.0};

    QStackedWidget* stack_ = nullptr;
    QLabel* message_ = nullptr;
    QWidget* lanesBox_ = nullptr;
    std::vector<HeatmapView*> heatmaps_;
    QPushButton* playButton_ = nullptr;
    QSlider* slider_ = nullptr;
    QLabel* betaLabel_ = nullptr;
    QComboBox* speedBox_ = nullptr;
    bool hurried_ = false;
    QCheckBox* particlesBox_ = nullptr;
    QCheckBox* sharedBox_ = nullptr;
    QSplitter* split_ = nullptr;
    ValidatedField* filmField_ = nullptr;
    Filmstrip* film_ = nullptr;
    QTimer* playTimer_ = nullptr;
};

}  // namespace rbmscope
