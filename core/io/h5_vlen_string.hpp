#pragma once
// Variable-length strings of an HDF5 file read from its bytes, not through libhdf5.
//
// libhdf5 1.10 (Debian 12) trusts the global heap: H5HG_read copies a heap object of the size the
// file states into a buffer sized by the string's own length field, with only debug assertions
// between them, so a crafted .h5 crashes H5Aread / H5Dread of a variable-length string
// (tests/data/bad/h5-global-heap-crash.h5). Here the 16-byte reference (length, collection
// address, object index) is taken from the attribute message in the object header (or from a
// contiguous dataset's data), and the string is copied out of the global heap collection only
// after every object header of that collection was checked to lie inside it and the object's
// size to equal the reference's length.
#include <cstdint>
#include <filesystem>
#include <string>

namespace rbm {

// The longest string (kind, name, notes) an .h5 file may hold, however it is stored.
inline constexpr std::uint64_t kMaxStringBytes = 1 << 20;

struct H5Layout {
    std::uint64_t base = 0;    // file offset of address 0 (the user block's size)
    unsigned sizeof_addr = 8;  // superblock's "size of offsets"
    unsigned sizeof_size = 8;  // superblock's "size of lengths"
};

// The scalar variable-length string attribute `name` of the object whose header is at
// `header_addr`. Throws InputError naming `what` when the header, the attribute message or the
// heap object is damaged or stored in a way read here is not (shared message, dense storage).
std::string read_vlen_string_attribute(const std::filesystem::path& file, const H5Layout& layout,
                                       std::uint64_t header_addr, const std::string& name, const std::string& what);

// The scalar variable-length string whose reference is stored at file offset `data_offset`
// (a contiguous dataset's data).
std::string read_vlen_string_at(const std::filesystem::path& file, const H5Layout& layout, std::uint64_t data_offset,
                                const std::string& what);

}  // namespace rbm
