#pragma once
// Private to core/io: NumPy model files (docs/reference/model-files.md). An .npz archive holds one .npy member per key
// of the JSON schema (W.npy, b.npy, c.npy, sigma.npy, ..., kind.npy and name.npy as string
// arrays, the "training" object as its JSON text in a string array, the nested base model under
// "anneal_from/"); it is read within size guards (a member is refused before it is inflated when
// its declared size is out of bounds) and written uncompressed, as numpy.savez does. A lone .npy
// holds W of a BRBM with zero biases.
//
// Typical use (what model_io.cpp does by extension):
//   LoadedModel m = model_from_numpy_bytes(read_file(path), ".npz", path.string(), options);
//   write_file_atomically(path, model_to_npz_bytes(m.model));
#include <cstdint>
#include <string>

#include "core/io/named_arrays.hpp"

namespace rbm {

// Largest .npy member or file we read: the element limit at 8 bytes each plus a header.
inline constexpr std::uint64_t kMaxMemberBytes = 8 * static_cast<std::uint64_t>(kMaxFileElements) + (1u << 20);

// `ext` is ".npz" or ".npy"; `origin` names the bytes in messages; `options` maps keys to the
// archive's member names (--map, .npz only). The model is validated (validate_model_file).
LoadedModel model_from_numpy_bytes(const std::string& bytes, const std::string& ext, const std::string& origin,
                                   const ModelLoadOptions& options);
std::string model_to_npz_bytes(const Model& model);

}  // namespace rbm
