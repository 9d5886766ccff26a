// Model files by extension: the size caps checked before reading, then the format's own reader or
// writer (model_json.cpp, npz_file.cpp, model_containers.cpp and the .mat/.h5 files it reads).
#include "core/io/model_io.hpp"

#include <algorithm>
#include <new>

#include "core/io/input_context.hpp"
#include "core/io/named_arrays.hpp"
#include "core/io/npz_file.hpp"

namespace rbm {

namespace {

namespace fs = std::filesystem;

const char* const kOtherModelExtensions = "; MATLAB .mat and HDF5 .h5/.hdf5 files are read too";

std::string lower_extension(const fs::path& p) {
    std::string e = p.extension().string();
    std::transform(e.begin(), e.end(), e.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    return e;
}

}  // namespace

Model load_model(const fs::path& path) { return load_model_file(path, {}).model; }

LoadedModel load_model_file(const fs::path& path, const ModelLoadOptions& options) {
    const std::string origin = path.string();
    const std::string ext = lower_extension(path);
    if (is_named_container_extension(ext)) return load_named_container(path, ext, options);
    if (ext != ".json" && ext != ".npz" && ext != ".npy")
        throw InputError(origin + ": unknown model file extension '" + path.extension().string() +
                         "' (expected .json, .npz or .npy)" + kOtherModelExtensions);
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    const std::uint64_t cap = ext == ".npy" ? kMaxMemberBytes : ext == ".npz" ? 8 * kMaxMemberBytes : ~std::uint64_t(0);
    if (!ec && size > cap)
        throw InputError(origin + ": file is " + std::to_string(size) + " bytes, more than any model file may be");
    try {
        return model_from_file_bytes(read_file(path), ext, origin, options);
    } catch (const std::bad_alloc&) {
        throw InputError(origin + ": not enough memory to load this " + std::to_string(ec ? 0 : size) +
                         "-byte model file");
    }
}

Model model_from_file_bytes(const std::string& bytes, const std::string& ext, const std::string& origin) {
    return model_from_file_bytes(bytes, ext, origin, {}).model;
}

LoadedModel model_from_file_bytes(const std::string& bytes, const std::string& ext, const std::string& origin,
                                  const ModelLoadOptions& options) {
    if (is_named_container_extension(ext)) return named_container_from_bytes(bytes, ext, origin, options);
    if (ext != ".json" && ext != ".npz" && ext != ".npy")
        throw InputError(origin + ": unknown model file extension '" + ext + "' (expected .json, .npz or .npy)" +
                         kOtherModelExtensions);
    if (!options.names.empty() && ext != ".npz")
        throw InputError(origin + ": --map names arrays of a container (.npz, .mat, .h5); a " + ext +
                         " file has fixed names");
    if (ext == ".json") return {model_from_json_text(bytes, origin), {}};
    if (bytes.empty()) throw InputError(origin + ": file is empty");
    return model_from_numpy_bytes(bytes, ext, origin, options);
}

void save_model(const Model& model, const fs::path& path) {
    const std::string ext = lower_extension(path);
    const std::string where = "cannot save the model to '" + path.string() + "': ";
    if (ext != ".json" && ext != ".npz" && !is_named_container_extension(ext))
        throw InputError(where + "unknown extension '" + path.extension().string() +
                         "' (expected .json or .npz); .mat, .h5 and .hdf5 are written too");
    with_context(where, [&] { validate_model_file(model); });
    if (ext == ".mat") {
        with_context(where, [&] { write_mat_model(model, path, false); });
    } else if (ext == ".h5" || ext == ".hdf5") {
        with_context(where, [&] { write_h5_model(model, path); });
    } else if (ext == ".json") {
        write_file_atomically(path, model_to_json_text(model));
    } else {
        write_file_atomically(path, model_to_npz_bytes(model));
    }
}

}  // namespace rbm
