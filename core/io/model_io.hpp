#pragma once
// Model files (docs/reference/model-files.md, docs/user/cli.md), chosen by extension: JSON (.json, model_json.hpp),
// NumPy (.npz archive of arrays, or a single .npy holding W; npz_file.hpp), MATLAB .mat and HDF5 .h5/.hdf5
// (named_arrays.hpp, model_containers.cpp). Every problem is an InputError naming the file, the
// key and what was expected. Saving writes a temporary file beside the target and renames it over
// the target (write_file_atomically in atomic_file.hpp; scratch_file.hpp for .mat and .h5, which
// their libraries write by path), so a crash never leaves a half-written model.
//
// Typical use:
//   const Model m = load_model("rbm.npz");          // validated; InputError says what is wrong
//   save_model(m, "rbm.json");                      // atomic: the previous file or the new one
// With --map and the loader's warnings (a transposed W): load_model_file (named_arrays.hpp).
#include <cstdint>
#include <filesystem>
#include <string>

#include "core/io/atomic_file.hpp"  // write_file_atomically and read_file, which callers use beside these
#include "core/io/model_json.hpp"   // model_from_json_text, model_to_json_text
#include "core/models/models.hpp"

namespace rbm {

// Upper bound on any array read from a file (elements), refused before allocating.
inline constexpr std::int64_t kMaxFileElements = std::int64_t(1) << 28;

// Load by extension: .json, .npz, .npy (a lone .npy is W of a BRBM unless told otherwise),
// .mat, .h5, .hdf5. The result is validated (validate_model_file).
Model load_model(const std::filesystem::path& path);
// What load_model does once the file is read: `ext` (".json", ".npz", ".npy", ...) says how to
// parse `bytes`, `origin` names them in messages. The fuzz targets (fuzz/) call this.
Model model_from_file_bytes(const std::string& bytes, const std::string& ext, const std::string& origin);
// Save by extension (.json, .npz, .mat, .h5 or .hdf5), atomically.
void save_model(const Model& model, const std::filesystem::path& path);

}  // namespace rbm
