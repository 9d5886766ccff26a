// Model files that are containers read by a library from a path (MATLAB .mat through libmatio,
// HDF5 through libhdf5): dispatch (libhdf5's reads in a child process), the temporary file for
// bytes, and the shared assembly.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/io/input_context.hpp"
#include "core/io/isolated_read.hpp"
#include "core/io/model_io.hpp"
#include "core/io/named_arrays.hpp"

namespace rbm {

namespace fs = std::filesystem;

namespace {

// A file in the temporary directory holding bytes, removed when this goes out of scope.
class TempFile {
public:
    TempFile(const std::string& bytes, const std::string& ext) {
        std::string tmpl = (fs::temp_directory_path() / "rbmscope-XXXXXX").string() + ext;
        std::vector<char> buf(tmpl.begin(), tmpl.end());
        buf.push_back('\0');
        const int fd = ::mkstemps(buf.data(), static_cast<int>(ext.size()));
        if (fd < 0) throw InputError(std::string("cannot create a temporary file: ") + std::strerror(errno));
        path_ = buf.data();
        std::size_t done = 0;
        while (done < bytes.size()) {
            const ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) {
                const int e = errno;
                ::close(fd);
                ::unlink(path_.c_str());
                throw InputError(std::string("cannot write a temporary file: ") + std::strerror(e));
            }
            done += static_cast<std::size_t>(w);
        }
        ::close(fd);
    }
    ~TempFile() { ::unlink(path_.c_str()); }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

// .h5 and MATLAB v7.3 files go through libhdf5, which still crashes inside itself on some crafted
// files: they are read in a forked child (isolated_read.hpp), and the model is assembled here
// from the arrays it sends back. v4 and v5 .mat files do not touch libhdf5 (libmatio parses them
// itself, after mat_file.cpp's checks of their layout) and stay in this process, where a fuzzer's
// coverage still sees them.
bool through_hdf5(const fs::path& path, const std::string& ext) { return ext != ".mat" || mat_file_is_hdf5(path); }

template <class Read, class Encode>
std::string isolated(const fs::path& path, const std::string& ext, Read&& read, Encode&& encode) {
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    return run_isolated([&] { return encode(read()); }, isolated_limits_for(ec ? 0 : size), "the HDF5 library",
                        ext == ".mat" ? "a MATLAB v7.3 model" : "an HDF5 model");
}

NamedArrays read_arrays(const fs::path& path, const std::string& ext, const ModelLoadOptions& options) {
    if (!through_hdf5(path, ext)) return read_mat_arrays(path, options);
    return decode_named_arrays(isolated(
        path, ext, [&] { return ext == ".mat" ? read_mat_arrays(path, options) : read_h5_arrays(path, options); },
        encode_named_arrays));
}

std::vector<ArrayInfo> list_arrays(const fs::path& path, const std::string& ext) {
    if (!through_hdf5(path, ext)) return list_mat_arrays(path);
    return decode_array_list(isolated(
        path, ext, [&] { return ext == ".mat" ? list_mat_arrays(path) : list_h5_arrays(path); }, encode_array_list));
}

LoadedModel assemble(const fs::path& path, const std::string& ext, const ModelLoadOptions& options) {
    const NamedArrays named = read_arrays(path, ext, options);
    LoadedModel out;
    out.model = model_from_named_arrays(named, "", &out.warnings);
    validate(out.model);
    return out;
}

}  // namespace

bool is_named_container_extension(const std::string& ext) { return ext == ".mat" || ext == ".h5" || ext == ".hdf5"; }

LoadedModel load_named_container(const fs::path& path, const std::string& ext, const ModelLoadOptions& options) {
    const std::string origin = path.string();
    std::error_code ec;
    if (fs::is_directory(path, ec)) throw InputError("cannot read '" + origin + "': it is a directory");
    const auto size = fs::file_size(path, ec);
    if (ec) throw InputError("cannot read '" + origin + "': " + ec.message());
    if (size == 0) throw InputError(origin + ": file is empty");
    return with_context(origin + ": ", [&] { return assemble(path, ext, options); });
}

LoadedModel named_container_from_bytes(const std::string& bytes, const std::string& ext, const std::string& origin,
                                       const ModelLoadOptions& options) {
    if (bytes.empty()) throw InputError(origin + ": file is empty");
    const TempFile tmp(bytes, ext);
    return with_context(origin + ": ", [&] { return assemble(tmp.path(), ext, options); });
}

std::vector<ArrayInfo> list_model_arrays(const fs::path& path) {
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    return with_context(path.string() + ": ", [&] {
        if (ext == ".mat" || ext == ".h5" || ext == ".hdf5") return list_arrays(path, ext);
        if (ext == ".npz") return list_npz_arrays(read_file(path));
        throw InputError("listing arrays needs a .mat, .h5, .hdf5 or .npz file");
    });
}

}  // namespace rbm
