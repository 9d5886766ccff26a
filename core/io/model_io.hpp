#pragma once
// Model files (SPEC §8): JSON (.json) and NumPy (.npz archive of arrays, or a single .npy
// holding W). Every problem is an InputError naming the file, the key and what was expected.
#include <cstdint>
#include <filesystem>
#include <string>

#include "core/models/models.hpp"

namespace rbm {

// Upper bound on any array read from a file (elements), refused before allocating.
inline constexpr std::int64_t kMaxFileElements = std::int64_t(1) << 28;

// Parse a model from JSON text; `origin` names the source in messages (a path or "preset X").
Model model_from_json_text(const std::string& text, const std::string& origin = "model");
std::string model_to_json_text(const Model& model);

// Load by extension: .json, .npz, .npy (a lone .npy is W of a BRBM unless told otherwise).
// The result is validated (see validate()).
Model load_model(const std::filesystem::path& path);
// What load_model does once the file is read: `ext` (".json", ".npz" or ".npy") says how to
// parse `bytes`, `origin` names them in messages. The fuzz targets (fuzz/) call this.
Model model_from_file_bytes(const std::string& bytes, const std::string& ext, const std::string& origin);
// Save by extension (.json or .npz). Writes a temporary file in the same directory and
// renames it over the target, so a crash never leaves a half-written model.
void save_model(const Model& model, const std::filesystem::path& path);

// Atomic file write used by every saver (models, sessions, logs): "<path>.tmp-<16 hex>" is
// written, flushed and renamed over `path`. Temporaries of that pattern for `path` left by a
// writer that died are removed first (see remove_stale_temporaries in model_io.cpp).
void write_file_atomically(const std::filesystem::path& path, const std::string& bytes);
// InputError if unreadable or not a regular file (a FIFO or device would block or never end).
std::string read_file(const std::filesystem::path& path);

}  // namespace rbm
