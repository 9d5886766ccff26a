#pragma once
// Session files: what the app needs to come back to where the user was. JSON:
//
//   {"format": "rbmscope-session", "version": 1,
//    "model": {...a model object exactly as in a model file (docs/reference/model-files.md)...} | "PRESET-NAME",
//    "settings": {"key": number | string | true/false | [numbers or strings...], ...},
//    "view": "density",
//    "views": {"tempering": {...settings as above...}, "samples": {...}, "training": {...}, ...},
//    "samples_data": {...a model file's "training" object: the Samples view's data set...},
//    "training_runs": [{"label": "pcd", "settings": {...the run's data and options...},
//                       "status": "finished" | "cancelled" | "diverged", "message": "...",
//                       "updates_done": N, "total_updates": N, "projections": N,
//                       "image_rows": R, "image_cols": C, "seconds": S,
//                       "log": [...monitoring records, core/io/train_record_json.hpp...],
//                       "negatives": [[...one row per negative-phase chain...], ...],
//                       "model": {...the trained model, as in a model file...}}, ...],
//    "build": {"version": ..., "commit": ..., "simd": ..., "threads": T, "ranks": 1, ...}}
//
// "format", "version" and "model" are required; everything else is optional (files written
// before "views", "samples_data" and "training_runs" existed have none and still open);
// unknown keys are ignored. Every double is written in its shortest form that reads back to
// the same bits (the model files' writer), so a trained model and its curves come back exact. The core checks the
// document's shape (the embedded model goes through the model-file parser, so its messages read the same); what a
// setting means is for the app. Every problem is an InputError naming the file, the key and what was expected. Saving
// is atomic (write_file_atomically): a crash during a save leaves the previous file intact.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/models/models.hpp"
#include "core/models/train_record.hpp"
#include "core/models/training_data.hpp"

namespace rbm {

// One JSON scalar of a setting. Integers stay integers (a 64-bit seed survives exactly).
using SessionScalar = std::variant<bool, std::int64_t, std::uint64_t, double, std::string>;

// A setting: one scalar, or an array of scalars.
struct SessionValue {
    std::vector<SessionScalar> items;
    bool is_list = false;

    static SessionValue scalar(SessionScalar s) { return SessionValue{{std::move(s)}, false}; }
    static SessionValue list(std::vector<SessionScalar> v) { return SessionValue{std::move(v), true}; }
    bool operator==(const SessionValue&) const = default;
};

// A finished or stopped training run of the Training view: what it showed (the curves of its
// log, the negative samples) and the model it trained. Not the trainer's inner state (chains,
// velocity): a restored run is shown, saved and opened in the app, not resumed.
struct SessionTrainingRun {
    std::string label;
    std::map<std::string, SessionValue> settings;  // the run's data and options (the app's keys)
    std::string status;                            // "finished", "cancelled" or "diverged"
    std::string message;
    std::int64_t updates_done = 0, total_updates = 0, projections = 0, image_rows = 0, image_cols = 0;
    double seconds = 0;
    std::vector<TrainRecord> log;
    RowMat negatives;  // rows x the model's visible units (0 rows: none)
    Model model;
};

struct Session {
    Model model;         // always set after parsing (a preset name is resolved)
    std::string preset;  // non-empty: the model is this preset, unchanged (written as its name)
    std::map<std::string, SessionValue> settings;
    std::string view;  // the current view's id; empty when the file has none
    // Each view's own settings (outside the parameter panel), by view id; what they mean is for
    // the app.
    std::map<std::string, std::map<std::string, SessionValue>> views;
    std::optional<TrainingData> samples_data;  // the Samples view's data set
    std::vector<SessionTrainingRun> training_runs;
    // The build that wrote it (provenance_json, core/kernels/build_info.hpp: version, commit, SIMD
    // path, threads, ranks) as JSON text; "" writes none. Read tolerantly: a file without it, or
    // with one that is not an object, opens with "".
    std::string build;
};

// Limits, checked before anything large is built (the embedded model has the model loaders'
// limit of 2^28 elements per array).
inline constexpr std::uint64_t kMaxSessionBytes = std::uint64_t(1) << 30;
inline constexpr std::size_t kMaxSessionSettings = 4096;
inline constexpr std::size_t kMaxSessionListItems = std::size_t(1) << 20;
inline constexpr std::size_t kMaxSessionStringBytes = std::size_t(1) << 16;
inline constexpr std::size_t kMaxSessionTrainingRuns = 1024;

// Parse a session from JSON text; `origin` names the source in messages (usually the path).
Session session_from_json_text(const std::string& text, const std::string& origin = "session");
// The document above; the model as its preset name when `preset` is set, else embedded.
std::string session_to_json_text(const Session& session);

// Read and parse; InputError for an unreadable, oversized or invalid file.
Session load_session(const std::filesystem::path& path);
// Validate the model and write atomically. InputError on failure (the old file is unchanged).
void save_session(const Session& session, const std::filesystem::path& path);

// A scalar as text for messages: 12, 0.5, true, "text".
std::string session_scalar_text(const SessionScalar& s);

}  // namespace rbm
