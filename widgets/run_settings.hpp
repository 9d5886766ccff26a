#pragma once
// What the parameter panel edits: which annealing methods to run and how (docs/methods/annealing-paths.md,
// schedules.md, ais-estimates.md), plus the table of (path, base) combinations that rbm::build_path accepts for each
// model kind, so the panel offers only those and says why the others are refused.
#include <QString>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/ais/schedules.hpp"
#include "core/io/session_io.hpp"
#include "core/kernels/gibbs.hpp"
#include "core/models/models.hpp"

namespace rbmscope {

// One annealing method: a path of docs/methods/annealing-paths.md with its base distribution.
struct MethodSpec {
    std::string path = "geometric";  // geometric | cov | moments | leaky | energy
    std::string base = "moment";     // moment | sigma | uniform | data
    bool operator==(const MethodSpec&) const = default;
};

// The papers' names: "AIS" (moment-matched diagonal base), "AISM", "AISC", "MAS",
// "geometric averages", "moment averages", "AIS-Leaky", "AIS-Energy".
QString methodLabel(const MethodSpec& m, rbm::ModelKind kind);
// Parse "path:base" (base optional); empty string on success, else the reason.
QString parseMethod(const QString& text, MethodSpec& out);

// The model facts that decide which methods make sense.
struct ModelTraits {
    rbm::ModelKind kind = rbm::ModelKind::Grbm;
    bool hasStart = false;  // the model stores an "anneal_from" start distribution
    int nVisible = 2;
    bool hasData = false;  // the model carries its training data ("training"): a BRBM's AIS defaults to its base rate
};
ModelTraits traitsOf(const rbm::Model& m);

struct Choice {
    std::string key;
    QString label;
    bool enabled = true;
    QString reason;  // why it is disabled
};
std::vector<Choice> pathChoices(const ModelTraits& t);
// Base choices for a path; all disabled (with the reason) when the path has its own start.
std::vector<Choice> baseChoices(const ModelTraits& t, const std::string& path);
// Every enabled (path, base) pair, for the comparison list.
std::vector<MethodSpec> methodCatalogue(const ModelTraits& t);
// Empty when build_path would accept the combination as far as the kind decides, else why not.
QString methodProblem(const ModelTraits& t, const MethodSpec& m);
// The method as the catalogue names it: a path that brings its own start distribution ignores
// the base, so its base is set to the catalogue's "moment".
MethodSpec canonicalMethod(const ModelTraits& t, MethodSpec m);

struct RunSettings {
    MethodSpec method;
    std::vector<MethodSpec> compare;  // further methods for the comparison and the sweep
    rbm::ScheduleRequest schedule;    // kind, steps K, geometric start, sigmoid delta
    rbm::Index chains = 1000;
    std::uint64_t seed = 1;
    int threads = 0;       // 0 = all cores
    bool perfect = false;  // exact draws from p_beta instead of the kernel
    bool reverse = false;  // reverse AIS from exact target samples
    rbm::LeakyKernel leakyKernel = rbm::LeakyKernel::ExactMH;
    std::vector<rbm::Index> sweepSteps{10, 30, 100, 300, 1000};
    bool autoRun = true;  // rerun the annealing when anything changes

    // The primary method followed by the comparison methods, without repeats.
    std::vector<MethodSpec> methods() const;
};

// Sensible defaults per model kind (the papers' toy settings).
RunSettings defaultSettings(const ModelTraits& t);

// The limits the parameter panel checks (and session files must respect).
inline constexpr long long kMaxSteps = 1000000;
inline constexpr long long kMaxChains = 1000000;
inline constexpr long long kMaxThreads = 256;

// Session files (run_settings_map.cpp): the settings as the "settings" object of a session —
// path, base, compare ["path:base", ...], schedule, steps, geometric_start, sigmoid_delta,
// chains, seed, threads, perfect, reverse, leaky_kernel, sweep [K, ...], auto_run.
std::map<std::string, rbm::SessionValue> settingsToMap(const RunSettings& s);
// The reverse, checked as the panel checks typed values and against the model's methods:
// keys that are missing keep `defaults`, unknown keys are ignored. Empty on success, else one
// message naming the key and what was expected ("setting 'chains' must be an integer from 1 to
// 1000000, got 0"); `out` is only written on success.
QString settingsFromMap(const std::map<std::string, rbm::SessionValue>& map, const ModelTraits& traits,
                        const RunSettings& defaults, RunSettings& out);

}  // namespace rbmscope
