#pragma once
// Session files: what the app needs to come back to where the user was. JSON:
//
//   {"format": "rbmscope-session", "version": 1,
//    "model": {...a model object exactly as in a model file (SPEC §8)...} | "PRESET-NAME",
//    "settings": {"key": number | string | true/false | [numbers or strings...], ...},
//    "view": "density"}
//
// "format", "version" and "model" are required; "settings" and "view" are optional; unknown
// keys are ignored. The core checks the document's shape (the embedded model goes through the
// model-file parser, so its messages read the same); what a setting means is for the app.
// Every problem is an InputError naming the file, the key and what was expected. Saving is
// atomic (write_file_atomically): a crash during a save leaves the previous file intact.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "core/models/models.hpp"

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

struct Session {
    Model model;         // always set after parsing (a preset name is resolved)
    std::string preset;  // non-empty: the model is this preset, unchanged (written as its name)
    std::map<std::string, SessionValue> settings;
    std::string view;    // the current view's id; empty when the file has none
};

// Limits, checked before anything large is built (the embedded model has the model loaders'
// limit of 2^28 elements per array).
inline constexpr std::uint64_t kMaxSessionBytes = std::uint64_t(1) << 30;
inline constexpr std::size_t kMaxSessionSettings = 4096;
inline constexpr std::size_t kMaxSessionListItems = std::size_t(1) << 20;
inline constexpr std::size_t kMaxSessionStringBytes = std::size_t(1) << 16;

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
