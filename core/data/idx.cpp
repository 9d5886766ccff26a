// MNIST-format IDX files: big-endian magic (0x0000 08 NDIM: unsigned bytes) and sizes, then data;
// plain or gzip-compressed (as distributed), and Fashion-MNIST where Debian installs it.
#include <zlib.h>

#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>

#include "core/data/datasets.hpp"
#include "core/io/atomic_file.hpp"
#include "core/numerics/memory_budget.hpp"

namespace rbm {

namespace {

std::uint32_t be32(const std::string& b, std::size_t at) {
    return (std::uint32_t(static_cast<unsigned char>(b[at])) << 24) |
           (std::uint32_t(static_cast<unsigned char>(b[at + 1])) << 16) |
           (std::uint32_t(static_cast<unsigned char>(b[at + 2])) << 8) |
           std::uint32_t(static_cast<unsigned char>(b[at + 3]));
}

std::size_t header_bytes(int ndim) { return 4 + 4 * static_cast<std::size_t>(ndim); }

// Sizes of an unsigned-byte IDX array with `ndim` dimensions from the header at the start of b
// (b may hold only the header); `total` receives the number of values they declare.
std::vector<std::uint32_t> declared_dims(const std::string& b, int ndim, const std::string& origin,
                                         std::uint64_t& total_out) {
    const std::size_t head = header_bytes(ndim);
    if (b.size() < 4)
        throw InputError(origin + ": too short for an IDX header (" + std::to_string(b.size()) + " bytes)");
    const std::uint32_t magic = be32(b, 0);
    if ((magic >> 16) != 0 || ((magic >> 8) & 0xff) != 0x08)
        throw InputError(origin + ": not an unsigned-byte IDX file (magic 0x" +
                         [&] {
                             char s[9];
                             std::snprintf(s, sizeof s, "%08x", magic);
                             return std::string(s);
                         }() +
                         ", expected 0x000008" + std::to_string(ndim) + ")");
    if (static_cast<int>(magic & 0xff) != ndim)
        throw InputError(origin + ": IDX header says " + std::to_string(magic & 0xff) + " dimensions, expected " +
                         std::to_string(ndim) + (ndim == 3 ? " (images)" : " (labels)"));
    if (b.size() < head)
        throw InputError(origin + ": too short for an IDX header of " + std::to_string(ndim) + " dimensions (" +
                         std::to_string(b.size()) + " bytes)");
    std::vector<std::uint32_t> dims;
    // Exact: at most (2^32 - 1) * 65536 * 65536 < 2^64 (the count is 32 bits, image sides <= 2^16).
    std::uint64_t total = 1;
    for (int k = 0; k < ndim; ++k) {
        dims.push_back(be32(b, 4 + 4 * static_cast<std::size_t>(k)));
        if (dims.back() == 0) throw InputError(origin + ": IDX dimension " + std::to_string(k + 1) + " is 0");
        if (k > 0 && dims.back() > 65536)
            throw InputError(origin + ": IDX image side " + std::to_string(dims.back()) + " is absurd (at most 65536)");
        total *= dims.back();
    }
    if (total > static_cast<std::uint64_t>(kMaxIdxElements))
        throw InputError(origin + ": IDX header claims " + std::to_string(total) + " values, more than the limit " +
                         std::to_string(kMaxIdxElements));
    total_out = total;
    return dims;
}

// The same, checked against the file length.
std::vector<std::uint32_t> header(const std::string& b, int ndim, const std::string& origin) {
    std::uint64_t total = 0;
    const std::vector<std::uint32_t> dims = declared_dims(b, ndim, origin, total);
    const std::size_t head = header_bytes(ndim);
    if (b.size() - head != total)
        throw InputError(origin + ": IDX header claims " + std::to_string(total) + " values but the file holds " +
                         std::to_string(b.size() - head));
    return dims;
}

bool is_gzip(const std::string& b) {
    return b.size() >= 2 && static_cast<unsigned char>(b[0]) == 0x1f && static_cast<unsigned char>(b[1]) == 0x8b;
}

}  // namespace

// A gzip-compressed IDX file inflated: the header first, then exactly the values it declares, whose
// size is checked against the memory budget before anything is allocated. Inflation stops at the
// declared size, so a small file that would inflate to gigabytes costs no more than that; the
// stream must end there, checksum included (a payload shorter or longer than declared is refused,
// as it is uncompressed).
std::string inflate_idx(const std::string& gz, int ndim, const std::string& origin) {
    struct Stream {
        z_stream zs;
        bool open = false;
        Stream() { std::memset(&zs, 0, sizeof zs); }
        ~Stream() {
            if (open) inflateEnd(&zs);
        }
    } s;
    if (gz.size() > std::numeric_limits<uInt>::max())
        throw InputError(origin + ": compressed file too large (4 GiB at most)");
    if (inflateInit2(&s.zs, 15 + 16) != Z_OK) throw InputError(origin + ": cannot start zlib");  // 15 + 16: gzip
    s.open = true;
    s.zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
    s.zs.avail_in = static_cast<uInt>(gz.size());
    bool ended = false;
    // Inflates into dst until `want` bytes or the end of the stream; the bytes produced.
    auto pump = [&](char* dst, std::size_t want) -> std::size_t {
        s.zs.next_out = reinterpret_cast<Bytef*>(dst);
        s.zs.avail_out = static_cast<uInt>(want);
        while (s.zs.avail_out > 0 && !ended) {
            const int rc = inflate(&s.zs, Z_NO_FLUSH);
            if (rc == Z_STREAM_END) ended = true;
            else if (rc == Z_BUF_ERROR || (rc == Z_OK && s.zs.avail_in == 0 && s.zs.avail_out > 0))
                throw InputError(origin + ": gzip data ends early (truncated file?)");
            else if (rc != Z_OK)
                throw InputError(origin + ": not valid gzip data (" +
                                 (s.zs.msg ? s.zs.msg : "zlib error " + std::to_string(rc)) + ")");
        }
        return want - s.zs.avail_out;
    };
    const std::size_t head = header_bytes(ndim);
    std::string out(head, '\0');
    out.resize(pump(out.data(), head));
    std::uint64_t total = 0;
    declared_dims(out, ndim, origin, total);  // InputError for a short or malformed header
    check_memory_budget(static_cast<double>(total), origin + ": inflating " + std::to_string(total) + " IDX values");
    if (total > std::numeric_limits<uInt>::max() - head)
        throw InputError(origin + ": IDX payload too large to inflate");
    out.resize(head + total);
    const std::size_t got = pump(out.data() + head, total);
    if (got != total)
        throw InputError(origin + ": IDX header claims " + std::to_string(total) + " values but the file holds " +
                         std::to_string(got));
    char extra = 0;
    if (pump(&extra, 1) != 0)
        throw InputError(origin + ": IDX header claims " + std::to_string(total) + " values but the file holds more");
    return out;
}

namespace {

// The bytes of an IDX file, inflated when gzip-compressed.
std::string idx_bytes(const std::filesystem::path& path, int ndim) {
    std::string b = read_file(path);
    return is_gzip(b) ? inflate_idx(b, ndim, path.string()) : b;
}

}  // namespace

Dataset parse_idx(const std::string& img, const std::string& lab, const std::string& origin) {
    const std::vector<std::uint32_t> dims = header(img, 3, origin);
    const Index count = dims[0], rows = dims[1], cols = dims[2];
    check_memory_budget(
        static_cast<double>(count) * static_cast<double>(rows * cols) * sizeof(double),
        origin + ": " + std::to_string(count) + " images of " + std::to_string(rows) + " x " + std::to_string(cols));
    Dataset d;
    d.X.resize(count, rows * cols);
    const auto* p = reinterpret_cast<const unsigned char*>(img.data()) + 16;
    // Local pointer and bound: through an unsigned char pointer the compiler must assume any
    // store may change d.X, and reloaded it at every value (0.8 s for Fashion-MNIST's 47 M).
    double* out = d.X.data();
    const Index values = count * rows * cols;
    for (Index i = 0; i < values; ++i) out[i] = p[i];
    d.image_rows = rows;
    d.image_cols = cols;
    d.max_value = 255.0;
    if (!lab.empty()) {
        const std::string lorigin = origin + " labels";
        const std::vector<std::uint32_t> ld = header(lab, 1, lorigin);
        if (static_cast<Index>(ld[0]) != count)
            throw InputError(lorigin + ": " + std::to_string(ld[0]) + " labels for " + std::to_string(count) +
                             " images");
        d.labels.resize(static_cast<std::size_t>(count));
        for (Index i = 0; i < count; ++i)
            d.labels[static_cast<std::size_t>(i)] = static_cast<unsigned char>(lab[8 + static_cast<std::size_t>(i)]);
    }
    d.name =
        origin + " (" + std::to_string(count) + " images " + std::to_string(rows) + "x" + std::to_string(cols) + ")";
    return d;
}

std::filesystem::path idx_labels_beside(const std::filesystem::path& images_path) {
    std::string name = images_path.filename().string();
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"images-idx3-ubyte", "labels-idx1-ubyte"},
                                   {"images.idx3-ubyte", "labels.idx1-ubyte"}}) {
        const std::size_t p = name.find(from);
        if (p == std::string::npos) continue;
        name.replace(p, from.size(), to);
        const std::filesystem::path candidate = images_path.parent_path() / name;
        std::error_code ec;
        if (std::filesystem::exists(candidate, ec)) return candidate;
    }
    return {};
}

Dataset load_idx(const std::filesystem::path& images_path, const std::filesystem::path& labels_path) {
    const std::string img = idx_bytes(images_path, 3);
    const std::string lab = labels_path.empty() ? std::string() : idx_bytes(labels_path, 1);
    return parse_idx(img, lab, images_path.string());
}

// ---- Fashion-MNIST where Debian's dataset-fashion-mnist installs it ----
namespace {
std::mutex& datasets_dir_mutex() {
    static std::mutex m;
    return m;
}
std::filesystem::path& datasets_dir_value() {
    static std::filesystem::path dir = kSystemDatasetsDir;
    return dir;
}
}  // namespace

std::filesystem::path system_datasets_dir() {
    std::lock_guard<std::mutex> lock(datasets_dir_mutex());
    return datasets_dir_value();
}

void set_system_datasets_dir(const std::filesystem::path& dir) {
    std::lock_guard<std::mutex> lock(datasets_dir_mutex());
    datasets_dir_value() = dir.empty() ? std::filesystem::path(kSystemDatasetsDir) : dir;
}

bool is_fashion_mnist_spec(const std::string& spec) {
    return spec == "fashion-mnist" || spec.rfind("fashion-mnist:", 0) == 0;
}

Dataset load_fashion_mnist(const std::string& spec) {
    const std::string part = spec == "fashion-mnist" ? "train" : spec.substr(std::string("fashion-mnist:").size());
    if (part != "train" && part != "test")
        throw InputError("data '" + spec + "': expected fashion-mnist, fashion-mnist:train or fashion-mnist:test");
    const std::filesystem::path dir = system_datasets_dir() / "fashion-mnist";
    const std::string stem = part == "train" ? "train" : "t10k";
    std::error_code ec;
    for (const char* suffix : {".gz", ""}) {
        const std::filesystem::path images = dir / (stem + "-images-idx3-ubyte" + suffix);
        if (!std::filesystem::exists(images, ec)) continue;
        Dataset d = load_idx(images, idx_labels_beside(images));
        d.name = "fashion-mnist " + part + " (" + std::to_string(d.size()) + " images " + std::to_string(d.image_rows) +
                 "x" + std::to_string(d.image_cols) + ")";
        return d;
    }
    throw InputError("data '" + spec + "': Fashion-MNIST is not installed (no " +
                     (dir / (stem + "-images-idx3-ubyte.gz")).string() +
                     "); install it with: apt-get install dataset-fashion-mnist");
}

}  // namespace rbm
