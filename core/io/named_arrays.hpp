#pragma once
// Containers of named arrays (.npz, MATLAB .mat, HDF5 .h5): which array holds each of the
// model's keys (W, b, c, ...), and the one assembly of a model from them. The readers of each
// format only turn their arrays into NpyArrays under the model's names; the checks of shapes,
// kinds and the transposed-W rule are written here once.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/io/model_io.hpp"
#include "core/io/npy.hpp"
#include "core/models/models.hpp"

namespace rbm {

// Arrays of the nested base model (docs/reference/model-files.md, "anneal_from") are named with this prefix.
inline constexpr const char* kNestedPrefix = "anneal_from/";
// Deflate expands at most ~1032:1: a compressed container cannot hold more data than its file
// size times this (the .mat and .h5 readers refuse larger declared sizes before allocating).
inline constexpr double kMaxExpansion = 1100.0;

// The model's key -> the container's array name, e.g. {"W": "vishid", "b": "visbiases"}.
using ArrayNameMap = std::map<std::string, std::string>;

// "W=vishid,b=visbiases,c=hidbiases" (the CLI's --map). InputError for an unknown key, a
// missing '=', an empty name or a key given twice.
ArrayNameMap parse_array_map(const std::string& text);
// The keys a map may name, in the order messages list them.
const std::vector<std::string>& mappable_keys();

struct ModelLoadOptions {
    ArrayNameMap names;  // empty: the standard names (and, in .mat/.h5, Hinton's)
};

// A loaded model and what the loader noticed without refusing the file (e.g. a transposed W).
struct LoadedModel {
    Model model;
    std::vector<std::string> warnings;
};

// One array of a container as listed without reading its data (for an import dialog).
struct ArrayInfo {
    std::string name;
    std::vector<std::int64_t> shape;
    std::string type;  // "double", "int32", "char", "cell", "string", ...
};

// The arrays of a container under the model's keys.
struct NamedArrays {
    std::map<std::string, NpyArray> arrays;
    // MATLAB has no 1-D arrays: vectors come as 1 x n or n x 1, scalars as 1 x 1.
    bool matlab_shapes = false;
    std::string format = "npz";  // "npz", "mat" or "h5": how a missing array is named in messages
};

// Which of `available` holds each key: the map's choice, else the key itself, else (when
// `hinton_names`) vishid / visbiases / hidbiases for W / b / c. A map naming an array the
// container lacks is an InputError listing what it has.
ArrayNameMap choose_arrays(const std::vector<std::string>& available, const ModelLoadOptions& options,
                           bool hinton_names);

// W stored rows x cols with b and c of these lengths (-1: not given) is m x n, i.e. to be
// transposed: decidable only when the biases say so (a square W, or b and c of one length, is
// taken as stored). The one rule of model_from_named_arrays and check_array_map.
bool w_stored_transposed(Index rows, Index cols, Index b_length, Index c_length);

// The import dialog's guess, made here so that it and --map cannot disagree: the names
// choose_arrays picks, else W as the only matrix, and b and c among the vectors whose length is
// one of W's sides, by their names (vis/v..: b, hid/h..: c; vbias, visbiases, hbias, h_bias).
// A vector with no such hint is left out: by shape alone W's orientation is undecidable.
ArrayNameMap guess_array_map(const std::vector<ArrayInfo>& arrays, bool matlab_shapes);

// What `names` makes of the listed arrays before any data is read: n x m, whether W is
// transposed, the loader's warnings, and why the shapes contradict each other (`error`,
// empty when they do not; b, c or sigma of a length that fits neither side of W, a W that is
// not a matrix, a bias that is not a vector).
struct ArrayMapCheck {
    Index n = 0, m = 0;
    bool transposed = false;
    std::vector<std::string> warnings;
    std::string error;
};
ArrayMapCheck check_array_map(const std::vector<ArrayInfo>& arrays, const ArrayNameMap& names, bool matlab_shapes);

// The model made of `a` (prefix "anneal_from/" for the nested start of a .npz). A W stored
// m x n where b and c say n x m is transposed and said so in `warnings`.
Model model_from_named_arrays(const NamedArrays& a, const std::string& prefix, std::vector<std::string>* warnings);

std::string array_shape_text(const std::vector<std::int64_t>& shape);  // "(2, 3)", "(4,)", "()"
// Refuse a declared shape before anything is allocated: at most 2 dimensions, no dimension
// and no product above kMaxFileElements. `what` names the array in the message.
void check_declared_shape(const std::vector<std::int64_t>& shape, const std::string& what);

// MATLAB .mat (v5, v7.3) and HDF5 readers (mat_file.cpp, h5_file.cpp): the arrays of `options`,
// or of the standard names, read after their declared sizes are checked.
NamedArrays read_mat_arrays(const std::filesystem::path& path, const ModelLoadOptions& options);
NamedArrays read_h5_arrays(const std::filesystem::path& path, const ModelLoadOptions& options);
std::vector<ArrayInfo> list_mat_arrays(const std::filesystem::path& path);
// A MATLAB v7.3 file (HDF5 inside, read by libmatio through libhdf5): its 128-byte header says
// version 0x0200. False for v4, v5 and anything shorter than the header.
bool mat_file_is_hdf5(const std::filesystem::path& path);
std::vector<ArrayInfo> list_h5_arrays(const std::filesystem::path& path);
// Writers with the reference tools' conventions: .mat with Hinton's names (vishid n x m,
// visbiases 1 x n, hidbiases 1 x m) and `kind` as a char array; .h5 as h5py writes (C order,
// `kind` a string attribute of the root group). `mat73` picks MATLAB's v7.3 (HDF5) layout.
void write_mat_model(const Model& model, const std::filesystem::path& path, bool mat73);
void write_h5_model(const Model& model, const std::filesystem::path& path);

// load_model and model_from_file_bytes (model_io.hpp) with options (--map) and what the loader
// noticed (e.g. a transposed W); also MATLAB .mat (v5, v7.3) and HDF5 .h5/.hdf5 (docs/reference/model-files.md).
LoadedModel load_model_file(const std::filesystem::path& path, const ModelLoadOptions& options);
LoadedModel model_from_file_bytes(const std::string& bytes, const std::string& ext, const std::string& origin,
                                  const ModelLoadOptions& options);
// .mat, .h5, .hdf5 (model_containers.cpp): the libraries read files, so bytes go through a
// temporary file; .h5, .hdf5 and v7.3 .mat files are read in a child process (isolated_read.hpp).
bool is_named_container_extension(const std::string& lower_ext);
LoadedModel load_named_container(const std::filesystem::path& path, const std::string& lower_ext,
                                 const ModelLoadOptions& options);
LoadedModel named_container_from_bytes(const std::string& bytes, const std::string& lower_ext,
                                       const std::string& origin, const ModelLoadOptions& options);
// The arrays of a .mat, .h5 or .npz file with their shapes and types (.mat and .h5 without
// reading their data; an .npz member is read within the size guards of load_model).
std::vector<ArrayInfo> list_model_arrays(const std::filesystem::path& path);
std::vector<ArrayInfo> list_npz_arrays(const std::string& bytes);  // npz_file.cpp

}  // namespace rbm
