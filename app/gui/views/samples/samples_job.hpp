#pragma once
// The worker side of the samples view: runs a sampler on an image-shaped model and reports the
// visible states as it goes. No widgets here.
//   Gibbs   independent block-Gibbs chains from the model's reference draws (one per tile).
//   PT      independent parallel-tempering ladders (geometric, deterministic even-odd swaps); each
//           tile is one ladder's target-rung (beta = 1) state.
//   Anneal  leaky RBM only: Algorithm 2 of Li et al. (exact Gaussian draws at leakiness 1, then
//           `sweeps` sweeps lowering the leakiness linearly to the model's); fresh independent
//           chains, shown at every step of the annealing.
// For a BRBM the frame also holds the conditional means P(v = 1 | h) of the last half-step
// (Gibbs and PT), the "probabilities" of the sample grid.
#include <QString>
#include <atomic>
#include <cstdint>
#include <functional>

#include "core/models/models.hpp"
#include "core/numerics/step_gate.hpp"

namespace rbmscope {

enum class SamplerKind { Gibbs, Pt, Anneal };

struct SamplesSettings {
    SamplerKind sampler = SamplerKind::Pt;  // the default that shows clean samples of multimodal models
    int chains = 64;                        // tiles
    long long sweeps = 2000;                // Gibbs sweeps, PT scans, or annealing steps
    std::uint64_t seed = 1;
    double gamma = 0.7;          // PT ladder beta_k = gamma^(N-k)
    int temperatures = 6;        // PT: N
    double sweepsPerSecond = 0;  // pacing for watching; 0: as fast as possible
};

struct SamplesFrame {
    rbm::RowMat states;  // chains x n visible states
    rbm::RowMat means;   // BRBM: P(v = 1 | h); else empty
    long long done = 0, total = 0;
    bool finished = false;
};

// InputError when the sampler does not fit the model (Anneal on a non-leaky model, ...).
void checkSampler(const rbm::Model& model, const SamplesSettings& s);

// Runs to the end, or throws rbm::Cancelled once *cancel is raised; calls report (on this thread)
// at most every `interval` seconds and once at the end.
// gate: pause, single steps (one sweep, scan or annealing step) and pacing; report is also
// called whenever the run stops in a pause.
SamplesFrame runSamples(const rbm::Model& model, const SamplesSettings& s, const std::atomic<bool>& cancel,
                        const std::function<void(const SamplesFrame&)>& report, double interval = 0.04,
                        rbm::StepGate* gate = nullptr);

QString samplerName(SamplerKind k);

}  // namespace rbmscope
