#pragma once
// The worker side of the tempering view: drives rbm::PtSampler scan by scan at full speed (the
// view shows the run at a pace from its recording; the pace never touches the engine), with the
// adaptive ladder's tuning rounds of run_pt, and computes the tempered densities p_beta of a 2-D
// model on a grid for the small multiples. No widgets here.
#include <QImage>
#include <QRectF>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/exact/exact.hpp"
#include "core/numerics/step_gate.hpp"
#include "core/tempering/pt.hpp"

namespace rbmscope {

class TemperingRecording;

enum class LadderKind { Geometric, Linear, Adaptive };

struct TemperingSettings {
    rbm::PtScheme scheme = rbm::PtScheme::Deo;
    LadderKind ladder = LadderKind::Geometric;
    int replicas = 7;    // N + 1 rungs
    double gamma = 0.7;  // geometric ladder ratio
    std::uint64_t seed = 1;
    long long scans = 20000;  // of the final run (tuning rounds come on top)
    int adaptiveRounds = 4;
    int chains = 4;                    // independent ladders; statistics pooled, chain 0 drawn
    double scansPerSecond = 0;         // the pace the view shows the run at (not the engine's); 0 = as it is computed
    std::vector<double> customLadder;  // when not empty (dragged rungs), used instead of the kind
    int window = 150;                  // recent scans of chain 0 shown
};

// The ladder the settings ask for before any tuning (InputError for a bad one).
std::vector<double> initialLadder(const TemperingSettings& s);

struct TemperingFrame {
    rbm::PtStats stats;  // current round so far
    std::vector<double> betas;
    std::vector<std::uint16_t> recent;  // window x rungs, chain 0, oldest first
    long long recentFirstScan = 0;
    int rungs = 0;
    rbm::RowMat states;  // chain 0: visible state at each rung
    long long scansDone = 0, scansTotal = 0;
    int round = 1, rounds = 1;
    bool finished = false;
    // At the end of a finished run: log Z by stepping stone and BAR from the final run's scans
    // (tempering/logz.hpp), or why there is none. The exact value is the window's (View::setExactLogZ).
    std::optional<rbm::PtLogZ> logZ;
    std::string logZError;
};

// Runs to the end or until *cancel, at full speed (the view paces what it shows, never the
// engine); calls report (on this thread) at most every `interval` seconds, and once at the end.
// Returns the last frame (finished = true unless cancelled). recording (optional): every scan it
// wants is recorded for replay, and the last one, cancelled or not (views/tempering/tempering_recording.hpp).
TemperingFrame runTempering(const rbm::Model& model, const TemperingSettings& s, const std::atomic<bool>& cancel,
                            const std::function<void(const TemperingFrame&)>& report, double interval = 0.033,
                            TemperingRecording* recording = nullptr);

// log f_beta(v) up to a constant, for the tempered family the PT engine uses on this model with
// its default reference (see rbm::TemperedModel); v-marginal for the GRBM. InputError for BRBM.
rbm::Vec temperedLogUnnorm(const rbm::Model& model, double beta, const rbm::RowMat& V);

// A view box for the whole ladder of a 2-D model: the target's view widened to hold the
// reference (beta = 0) too.
rbm::GridSpec ladderView(const rbm::Model& model, int cells);

struct RungImages {
    std::vector<double> betas;
    std::vector<QImage> images;  // density scaled to each rung's own maximum
    QRectF domain;
};
RungImages rungImages(const rbm::Model& model, const std::vector<double>& betas, int cells,
                      const std::function<bool()>& cancelled);

}  // namespace rbmscope
