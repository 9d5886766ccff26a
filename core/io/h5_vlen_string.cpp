// Field layouts: HDF5 File Format Specification version 3.0, sections III.A (object headers),
// IV.A.2.c (datatype), IV.A.2.m (attribute message), IV.A.2.q (continuation), III.E (global heap).
// All fields are little-endian.
#include "core/io/h5_vlen_string.hpp"

#include <cstring>
#include <fstream>
#include <vector>

#include "core/io/model_io.hpp"

namespace rbm {

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kMaxChunkBytes = 1 << 20;  // object header chunks of a model file are tiny
constexpr int kMaxChunks = 64;
constexpr std::uint64_t kMaxCollectionBytes = 64 << 20;

class FileBytes {
public:
    FileBytes(const fs::path& path, std::string what) : in_(path, std::ios::binary), what_(std::move(what)) {
        std::error_code ec;
        size_ = fs::file_size(path, ec);
        if (!in_ || ec) throw InputError(what_ + " cannot be read: the file cannot be opened");
    }
    std::vector<unsigned char> read(std::uint64_t offset, std::uint64_t n, const char* part) {
        if (offset > size_ || n > size_ - offset)
            throw InputError(what_ + " cannot be read: its " + std::string(part) + " at byte " +
                             std::to_string(offset) + " (" + std::to_string(n) + " bytes) lies outside the " +
                             std::to_string(size_) + "-byte file");
        std::vector<unsigned char> out(static_cast<std::size_t>(n));
        in_.seekg(static_cast<std::streamoff>(offset));
        if (n > 0 && !in_.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(n)))
            throw InputError(what_ + " cannot be read: the file is truncated");
        return out;
    }
    const std::string& what() const { return what_; }

private:
    std::ifstream in_;
    std::uint64_t size_ = 0;
    std::string what_;
};

// Little-endian unsigned integer of `width` bytes at `p[at]`, inside `v` or the read fails.
std::uint64_t le(const std::vector<unsigned char>& v, std::uint64_t at, unsigned width, const std::string& what) {
    if (width > 8 || at > v.size() || width > v.size() - at)
        throw InputError(what + " cannot be read: a field runs past the end of its HDF5 structure");
    std::uint64_t x = 0;
    for (unsigned i = 0; i < width; ++i) x |= static_cast<std::uint64_t>(v[at + i]) << (8 * i);
    return x;
}

std::uint64_t address(std::uint64_t a, const H5Layout& layout, const std::string& what) {
    const std::uint64_t undefined =
        layout.sizeof_addr >= 8 ? ~std::uint64_t(0) : (std::uint64_t(1) << (8 * layout.sizeof_addr)) - 1;
    if (a == undefined || a > ~std::uint64_t(0) - layout.base)
        throw InputError(what + " cannot be read: it refers to an undefined address");
    return a + layout.base;
}

std::uint64_t pad8(std::uint64_t n) { return (n + 7) / 8 * 8; }

// The string a 4 + sizeof_addr + 4 byte reference names: length, collection address, index.
std::string string_from_reference(FileBytes& file, const H5Layout& layout, const std::vector<unsigned char>& ref,
                                  std::uint64_t at) {
    const std::string& what = file.what();
    const std::uint64_t length = le(ref, at, 4, what);
    const std::uint64_t heap_addr = le(ref, at + 4, layout.sizeof_addr, what);
    const std::uint64_t index = le(ref, at + 4 + layout.sizeof_addr, 4, what);
    if (length == 0) return std::string();
    if (length > kMaxStringBytes)
        throw InputError(what + " is a string of " + std::to_string(length) + " bytes; at most " +
                         std::to_string(kMaxStringBytes) + " are read");
    const std::uint64_t start = address(heap_addr, layout, what);
    const unsigned ls = layout.sizeof_size;
    const std::vector<unsigned char> head = file.read(start, 8 + ls, "global heap collection");
    if (std::memcmp(head.data(), "GCOL", 4) != 0 || head[4] != 1)
        throw InputError(what + " cannot be read: its global heap collection at byte " + std::to_string(start) +
                         " has no 'GCOL' version 1 signature");
    const std::uint64_t size = le(head, 8, ls, what);
    if (size < 8 + ls || size > kMaxCollectionBytes)
        throw InputError(what + " cannot be read: its global heap collection claims " + std::to_string(size) +
                         " bytes");
    const std::vector<unsigned char> heap = file.read(start, size, "global heap collection");
    // Every object header up to the free-space object (index 0) must lie inside the collection.
    for (std::uint64_t pos = 8 + ls; pos + 8 + ls <= size;) {
        const std::uint64_t id = le(heap, pos, 2, what);
        const std::uint64_t n = le(heap, pos + 8, ls, what);
        if (id == 0) break;
        if (n > size - pos - 8 - ls)
            throw InputError(what + " cannot be read: global heap object " + std::to_string(id) + " claims " +
                             std::to_string(n) + " bytes, more than its collection holds");
        if (id == index) {
            if (n != length)
                throw InputError(what + " cannot be read: its global heap object holds " + std::to_string(n) +
                                 " bytes, the string's length says " + std::to_string(length));
            const auto* p = reinterpret_cast<const char*>(heap.data() + pos + 8 + ls);
            return std::string(p, strnlen(p, static_cast<std::size_t>(n)));
        }
        pos += 8 + ls + pad8(n);
    }
    throw InputError(what + " cannot be read: global heap object " + std::to_string(index) +
                     " is not in its collection at byte " + std::to_string(start));
}

struct Message {
    unsigned type;
    unsigned flags;
    std::vector<unsigned char> data;
};

// The messages of an object header (version 1 or 2), continuation chunks followed.
std::vector<Message> header_messages(FileBytes& file, const H5Layout& layout, std::uint64_t header) {
    const std::string& what = file.what();
    std::vector<Message> out;
    const std::vector<unsigned char> sig = file.read(header, 4, "object header");
    const bool v2 = std::memcmp(sig.data(), "OHDR", 4) == 0;
    struct Chunk {
        std::uint64_t at, size;
    };
    std::vector<Chunk> chunks;
    unsigned v2_flags = 0;
    if (v2) {
        const std::vector<unsigned char> pre = file.read(header, 6, "object header");
        if (pre[4] != 2) throw InputError(what + " cannot be read: object header version " + std::to_string(pre[4]));
        v2_flags = pre[5];
        std::uint64_t pos = 6 + ((v2_flags & 0x20) ? 16 : 0) + ((v2_flags & 0x10) ? 4 : 0);
        const unsigned width = 1u << (v2_flags & 3);
        const std::uint64_t size = le(file.read(header + pos, width, "object header"), 0, width, what);
        chunks.push_back({header + pos + width, size});
    } else {
        const std::vector<unsigned char> pre = file.read(header, 16, "object header");
        if (pre[0] != 1) throw InputError(what + " cannot be read: object header version " + std::to_string(pre[0]));
        chunks.push_back({header + 16, le(pre, 8, 4, what)});
    }
    for (std::size_t c = 0; c < chunks.size(); ++c) {
        if (chunks.size() > static_cast<std::size_t>(kMaxChunks))
            throw InputError(what + " cannot be read: its object header has too many chunks");
        if (chunks[c].size > kMaxChunkBytes)
            throw InputError(what + " cannot be read: an object header chunk claims " + std::to_string(chunks[c].size) +
                             " bytes");
        std::vector<unsigned char> bytes = file.read(chunks[c].at, chunks[c].size, "object header chunk");
        std::uint64_t pos = 0, end = bytes.size();
        if (v2 && c > 0) {  // continuation chunk: "OCHK", messages, checksum
            if (end < 8 || std::memcmp(bytes.data(), "OCHK", 4) != 0)
                throw InputError(what + " cannot be read: an object header continuation has no 'OCHK' signature");
            pos = 4;
            end -= 4;
        }
        const unsigned head = v2 ? 4 + ((v2_flags & 0x04) ? 2 : 0) : 8;
        while (pos + head <= end) {
            const unsigned type = static_cast<unsigned>(v2 ? le(bytes, pos, 1, what) : le(bytes, pos, 2, what));
            const std::uint64_t size = v2 ? le(bytes, pos + 1, 2, what) : le(bytes, pos + 2, 2, what);
            const unsigned flags = static_cast<unsigned>(le(bytes, pos + (v2 ? 3 : 4), 1, what));
            pos += head;
            if (size > end - pos)
                throw InputError(what + " cannot be read: an object header message runs past its chunk");
            Message m{type, flags,
                      std::vector<unsigned char>(bytes.begin() + static_cast<std::ptrdiff_t>(pos),
                                                 bytes.begin() + static_cast<std::ptrdiff_t>(pos + size))};
            pos += v2 ? size : pad8(size);
            if (type == 0x10) {  // continuation: address, length
                const std::uint64_t at = address(le(m.data, 0, layout.sizeof_addr, what), layout, what);
                chunks.push_back({at, le(m.data, layout.sizeof_addr, layout.sizeof_size, what)});
            }
            out.push_back(std::move(m));
        }
    }
    return out;
}

}  // namespace

std::string read_vlen_string_attribute(const fs::path& path, const H5Layout& layout, std::uint64_t header_addr,
                                       const std::string& name, const std::string& what) {
    FileBytes file(path, what);
    bool dense = false;
    for (const Message& m : header_messages(file, layout, address(header_addr, layout, what))) {
        if (m.type == 0x15) dense = true;  // attribute info: may point at dense storage
        if (m.type != 0x0C) continue;
        if (m.flags & 0x02) throw InputError(what + " is a shared attribute message, which rbmscope does not read");
        const std::vector<unsigned char>& d = m.data;
        const unsigned version = static_cast<unsigned>(le(d, 0, 1, what));
        if (version < 1 || version > 3)
            throw InputError(what + " cannot be read: attribute message version " + std::to_string(version));
        const unsigned flags = version == 1 ? 0 : static_cast<unsigned>(le(d, 1, 1, what));
        const std::uint64_t name_size = le(d, 2, 2, what), type_size = le(d, 4, 2, what),
                            space_size = le(d, 6, 2, what);
        std::uint64_t pos = version == 3 ? 9 : 8;
        auto field = [&](std::uint64_t n) { return version == 1 ? pad8(n) : n; };
        if (name_size == 0 || pos + field(name_size) > d.size()) continue;  // libhdf5 opened it; not ours to judge
        const std::string found(reinterpret_cast<const char*>(d.data() + pos),
                                strnlen(reinterpret_cast<const char*>(d.data() + pos), name_size));
        if (found != name) continue;
        if (flags & 0x03) throw InputError(what + " has a shared datatype or dataspace, which rbmscope does not read");
        pos += field(name_size);
        const std::uint64_t type_at = pos;
        if (type_size < 8 || le(d, type_at, 1, what) % 16 != 9 || le(d, type_at + 1, 1, what) % 16 != 1)
            throw InputError(what + " is not stored as a variable-length string");
        pos += field(type_size) + field(space_size);
        return string_from_reference(file, layout, d, pos);
    }
    throw InputError(what + (dense ? " is kept in dense attribute storage, which rbmscope does not read for "
                                     "variable-length strings; store it as a fixed-length string"
                                   : " cannot be read: no attribute message of that name in the object header"));
}

std::string read_vlen_string_at(const fs::path& path, const H5Layout& layout, std::uint64_t data_offset,
                                const std::string& what) {
    FileBytes file(path, what);
    const std::vector<unsigned char> ref = file.read(data_offset, 8 + layout.sizeof_addr, "data");
    return string_from_reference(file, layout, ref, 0);
}

}  // namespace rbm
