// MNIST-format IDX files: big-endian magic (0x0000 08 NDIM: unsigned bytes) and sizes, then data.
#include <cstdio>
#include <string>

#include "core/data/datasets.hpp"
#include "core/io/atomic_file.hpp"
#include "core/numerics/memory_budget.hpp"

namespace rbm {

namespace {

std::uint32_t be32(const std::string& b, std::size_t at) {
    return (std::uint32_t(static_cast<unsigned char>(b[at])) << 24) |
           (std::uint32_t(static_cast<unsigned char>(b[at + 1])) << 16) |
           (std::uint32_t(static_cast<unsigned char>(b[at + 2])) << 8) | std::uint32_t(static_cast<unsigned char>(b[at + 3]));
}

// Sizes of an unsigned-byte IDX array with `ndim` dimensions, checked against the file length.
std::vector<std::uint32_t> header(const std::string& b, int ndim, const std::string& origin) {
    const std::size_t head = 4 + 4 * static_cast<std::size_t>(ndim);
    if (b.size() < 4) throw InputError(origin + ": too short for an IDX header (" + std::to_string(b.size()) + " bytes)");
    const std::uint32_t magic = be32(b, 0);
    if ((magic >> 16) != 0 || ((magic >> 8) & 0xff) != 0x08)
        throw InputError(origin + ": not an unsigned-byte IDX file (magic 0x" +
                         [&] { char s[9]; std::snprintf(s, sizeof s, "%08x", magic); return std::string(s); }() +
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
    if (b.size() - head != total)
        throw InputError(origin + ": IDX header claims " + std::to_string(total) +
                         " values but the file holds " + std::to_string(b.size() - head));
    return dims;
}

}  // namespace

Dataset parse_idx(const std::string& img, const std::string& lab, const std::string& origin) {
    const std::vector<std::uint32_t> dims = header(img, 3, origin);
    const Index count = dims[0], rows = dims[1], cols = dims[2];
    check_memory_budget(static_cast<double>(count) * static_cast<double>(rows * cols) * sizeof(double),
                        origin + ": " + std::to_string(count) + " images of " + std::to_string(rows) + " x " + std::to_string(cols));
    Dataset d;
    d.X.resize(count, rows * cols);
    const auto* p = reinterpret_cast<const unsigned char*>(img.data()) + 16;
    for (Index i = 0; i < count * rows * cols; ++i) d.X.data()[i] = p[i];
    d.image_rows = rows;
    d.image_cols = cols;
    d.max_value = 255.0;
    if (!lab.empty()) {
        const std::string lorigin = origin + " labels";
        const std::vector<std::uint32_t> ld = header(lab, 1, lorigin);
        if (static_cast<Index>(ld[0]) != count)
            throw InputError(lorigin + ": " + std::to_string(ld[0]) + " labels for " + std::to_string(count) + " images");
        d.labels.resize(static_cast<std::size_t>(count));
        for (Index i = 0; i < count; ++i) d.labels[static_cast<std::size_t>(i)] = static_cast<unsigned char>(lab[8 + static_cast<std::size_t>(i)]);
    }
    d.name = origin + " (" + std::to_string(count) + " images " + std::to_string(rows) + "x" + std::to_string(cols) + ")";
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
    const std::string img = read_file(images_path);
    const std::string lab = labels_path.empty() ? std::string() : read_file(labels_path);
    return parse_idx(img, lab, images_path.string());
}

}  // namespace rbm
