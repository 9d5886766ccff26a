// MATLAB .mat files (v4, v5 and the HDF5-based v7.3) through libmatio. Every variable's class,
// rank and dimensions are read (Mat_VarReadNextInfo) and checked before its data is.
#include <fcntl.h>
#include <matio.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>

#include "core/io/h5_contained.hpp"
#include "core/io/isolated_read.hpp"
#include "core/io/model_io.hpp"
#include "core/io/named_arrays.hpp"
#include "core/io/scratch_file.hpp"
#include "core/numerics/memory_budget.hpp"

namespace rbm {

namespace fs = std::filesystem;

namespace {

// libmatio prints its complaints to stderr, and on a short read it warns and returns the
// variable padded with zeros: keep the first complaint, and refuse the file when there is one.
thread_local std::string g_matio_message;
void matio_log(int /*level*/, char* message) {
    if (!g_matio_message.empty() || !message) return;
    std::string m = message;
    g_matio_message = m.substr(0, std::min(m.find('\n'), std::size_t(200)));
    if (g_matio_message.empty()) g_matio_message = "an error";
}
void refuse_if_complained(const std::string& what) {
    if (!g_matio_message.empty())
        throw InputError(what + "the file is truncated or damaged (libmatio: " + g_matio_message + ")");
}
void quiet_matio() {
    static const bool once = [] {
        Mat_LogInitFunc("rbmscope", matio_log);
        return true;
    }();
    (void)once;
}

struct MatCloser {
    void operator()(mat_t* m) const { Mat_Close(m); }
};
struct VarFreer {
    void operator()(matvar_t* v) const { Mat_VarFree(v); }
};
using MatPtr = std::unique_ptr<mat_t, MatCloser>;
using VarPtr = std::unique_ptr<matvar_t, VarFreer>;

// Far more variables than any model file has; a damaged file must not make the listing loop long.
constexpr int kMaxVariables = 100000;

// libmatio trusts a v5 file's element sizes: a dimensions element claiming 2 GB makes it
// allocate that much before anything can be checked. So the top-level elements of a v5 file
// are walked first: each must fit in the file, and each variable's dimensions element must be
// small (rank <= 32) and inside its variable; a compressed variable is checked the same way
// on its inflated stream, against the size that stream truly inflates to.
constexpr std::uint32_t miMATRIX = 14, miCOMPRESSED = 15;

std::uint32_t word(const unsigned char* p, bool swap) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return swap ? __builtin_bswap32(v) : v;
}

// `m` points at a miMATRIX element's data (after its tag), `len` bytes of it available,
// `declared` its size (for a compressed variable, at most what its stream truly inflates to):
// every sub-element seen (flags, dimensions, name, data) must fit in it. libmatio reads the
// flags, dimensions and name at fixed places (a 16-byte flags element, then an int32 dimensions
// element, then the name), so a file laid out otherwise is refused: the walk then reads what
// libmatio reads.
void check_matrix_start(const unsigned char* m, std::size_t len, std::uint64_t declared, bool swap, int index,
                        int depth = 0) {
    if (depth > 32) throw InputError("the file is damaged: variable " + std::to_string(index + 1) + " nests too deep");
    std::uint64_t pos = 0;
    const std::string which = "the file is damaged: variable " + std::to_string(index + 1);
    constexpr unsigned kCell = 1, kStruct = 2, kObject = 3, kFunction = 16, kOpaque = 17;  // matio_classes
    const unsigned cls = len >= 12 ? word(m + 8, swap) & 0xFF : 0;
    const bool holds_matrices = cls == kCell || cls == kStruct || cls == kObject || cls == kFunction;
    double count = 1;               // elements of a cell or struct array (product of its dimensions)
    std::uint32_t field_bytes = 0;  // a struct's field-name length
    // An opaque object (a MATLAB string or table) has no dimensions element: libmatio reads the
    // name tag at byte 24, which must fit too.
    if (cls == kOpaque && len >= 32 && word(m + 24, swap) == 1 && 32 + std::uint64_t(word(m + 28, swap)) > declared)
        throw InputError(which + " has a name of " + std::to_string(word(m + 28, swap)) +
                         " bytes, more than the variable's " + std::to_string(declared));
    for (int sub = 0; pos + 8 <= len && pos + 8 <= declared; ++sub) {
        const std::uint32_t t = word(m + pos, swap);
        if (sub == 0 && ((t != 6 && t != 5) || word(m + pos + 4, swap) != 8))
            throw InputError(which + " does not start with an 8-byte array-flags element");
        if (sub == 1 && t != 5 && cls != kOpaque)
            throw InputError(which + " has no int32 dimensions element after its array flags");
        if ((t >> 16) != 0) {  // small element: tag and up to 4 bytes of data in 8 bytes
            if (sub == 3 && cls == kStruct) field_bytes = word(m + pos + 4, swap);
            pos += 8;
            continue;
        }
        const std::uint64_t n = word(m + pos + 4, swap);
        if (pos + 8 + n > declared)
            throw InputError(which + " has an element of " + std::to_string(n) + " bytes, more than the variable's " +
                             std::to_string(declared));
        if (sub == 1 && n > 4 * 32) throw InputError(which + " declares " + std::to_string(n / 4) + " dimensions");
        // A cell or struct array's elements are whole matrices of at least 8 bytes each; libmatio
        // allocates a pointer per element (per field of each element, for a struct) from the
        // dimensions and field names alone.
        if (sub == 1 && holds_matrices && pos + 8 + n <= len) {
            for (std::uint64_t k = 0; k + 4 <= n; k += 4) count *= static_cast<double>(word(m + pos + 8 + k, swap));
            if (count * 8.0 > static_cast<double>(declared))
                throw InputError(which + " declares " +
                                 std::to_string(static_cast<unsigned long long>(std::min(count, 1e18))) +
                                 " cells or fields in " + std::to_string(declared) + " bytes");
        }
        if (sub == 4 && cls == kStruct && field_bytes > 0) {
            const double fields = static_cast<double>(n / field_bytes);
            if (count * fields * 8.0 > static_cast<double>(declared))
                throw InputError(which + " declares " +
                                 std::to_string(static_cast<unsigned long long>(std::min(count, 1e18))) +
                                 " elements of " + std::to_string(n / field_bytes) + " fields in " +
                                 std::to_string(declared) + " bytes");
        }
        // Cells and structs hold whole matrices as elements: the same rules inside.
        if (t == miMATRIX && pos + 8 < len)
            check_matrix_start(m + pos + 8, static_cast<std::size_t>(std::min<std::uint64_t>(n, len - pos - 8)), n,
                               swap, index, depth + 1);
        pos += 8 + (n + 7) / 8 * 8;
    }
}

// A compressed variable's sizes are what it declares after inflation, which the file's size does
// not bound: the whole stream is inflated (as libmatio will) to learn its true size, and kept
// where the checks need it: all of a cell, struct or object array (matrices nested anywhere in
// it), the first kilobyte of anything else (its flags, dimensions and name).
struct Inflated {
    std::string kept;
    std::uint64_t total = 0;
};
// `allowance` is what the file's compressed variables may still inflate to in all (the memory
// budget: a 291 KB file inflated to 6.3 GB, #35). A cell, struct or object array is kept whole
// and libmatio builds a description of every element in it, several times its bytes: those may
// inflate to 1/64 of the budget (16 MiB of 1 GiB), far more than any a model file holds.
Inflated inflate_variable(const unsigned char* p, std::uint64_t n, bool swap, int index, std::uint64_t allowance) {
    // The largest array a model file may hold (kMaxFileElements doubles) and room for the rest.
    constexpr std::uint64_t kMaxFileInflated = 8 * static_cast<std::uint64_t>(kMaxFileElements) + (1u << 20);
    const std::uint64_t kMaxInflated = std::min(kMaxFileInflated, allowance);
    const std::uint64_t max_kept = memory_budget() / 64;
    Inflated out;
    z_stream z{};
    if (inflateInit(&z) != Z_OK) throw InputError("cannot start zlib");
    z.next_in = const_cast<unsigned char*>(p);
    z.avail_in = static_cast<uInt>(n);
    unsigned char chunk[1 << 16];
    bool keep_all = false;
    for (;;) {
        z.next_out = chunk;
        z.avail_out = sizeof chunk;
        const int rc = inflate(&z, Z_NO_FLUSH);
        const std::size_t got = sizeof chunk - z.avail_out;
        if (out.total < 24 && out.total + got >= 24) {
            std::string head = out.kept + std::string(reinterpret_cast<char*>(chunk), got);
            const unsigned cls = word(reinterpret_cast<const unsigned char*>(head.data()) + 16, swap) & 0xFF;
            keep_all = cls == 1 || cls == 2 || cls == 3 || cls == 16;  // cell, struct, object, function handle
        }
        const std::size_t head_room = out.kept.size() < 1024 ? 1024 - out.kept.size() : 0;
        const std::size_t room = keep_all ? got : std::min(got, head_room);
        out.kept.append(reinterpret_cast<char*>(chunk), room);
        out.total += got;
        if (out.total > kMaxInflated) {
            inflateEnd(&z);
            if (kMaxInflated < kMaxFileInflated)
                throw InputError("variable " + std::to_string(index + 1) + " inflates to more than " +
                                 bytes_text(static_cast<double>(kMaxInflated)) +
                                 (allowance < memory_budget() ? ", which with the variables before it" : "") +
                                 " is more than the memory budget (" +
                                 bytes_text(static_cast<double>(memory_budget())) + ")" + memory_budget_advice());
            throw InputError("variable " + std::to_string(index + 1) + " inflates to more than " +
                             std::to_string(kMaxInflated) + " bytes, more than a model file holds");
        }
        if (keep_all && out.kept.size() > max_kept) {
            inflateEnd(&z);
            throw InputError("variable " + std::to_string(index + 1) +
                             " is a compressed cell, struct or object array inflating to more than " +
                             bytes_text(static_cast<double>(max_kept)) +
                             " (1/64 of the memory budget), more than a model file holds");
        }
        if (rc != Z_OK || (got == 0 && z.avail_in == 0)) break;  // end, error or truncated stream
    }
    inflateEnd(&z);
    return out;
}

// A v4 file is a sequence of variables, each a 20-byte header (type code MOPT, rows, columns,
// imaginary flag, name length) followed by the name and the data. libmatio allocates the name
// length the file states and seeks past rows x columns elements: both must fit in what remains.
// The walk stops where libmatio's does (a header it does not recognise ends the listing).
void check_v4_layout(const std::string& bytes) {
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    std::size_t at = 0;
    for (int index = 0; at + 20 <= bytes.size(); ++index) {
        std::int32_t h[5];
        std::memcpy(h, p + at, sizeof h);
        if (h[0] < 0 || h[0] > 4052) {
            h[0] = static_cast<std::int32_t>(__builtin_bswap32(static_cast<std::uint32_t>(h[0])));
            if (h[0] < 0 || h[0] > 4052) return;
        }
        const int M = h[0] / 1000, O = h[0] / 100 % 10, P = h[0] / 10 % 10, T = h[0] % 10;
        if (M > 1 || O != 0 || P > 5 || T > 2) return;  // not a variable libmatio reads: it stops here
        for (int k = 1; k < 5; ++k)  // the other fields' byte order comes from M (the flag is only tested for 0)
            if (M == 1 && k != 3) h[k] = static_cast<std::int32_t>(__builtin_bswap32(static_cast<std::uint32_t>(h[k])));
        if (h[4] < 1) return;
        const std::string which = "the file is truncated or damaged: variable " + std::to_string(index + 1);
        const std::size_t left = bytes.size() - at - 20;
        if (static_cast<std::uint64_t>(h[4]) > left)
            throw InputError(which + " claims a name of " + std::to_string(h[4]) + " bytes, " + std::to_string(left) +
                             " remain");
        if (h[1] < 0 || h[2] < 0)
            throw InputError(which + " claims " + std::to_string(h[1]) + " x " + std::to_string(h[2]) + " elements");
        static constexpr int kSize[] = {8, 4, 4, 2, 2, 1};
        const double need = static_cast<double>(h[1]) * h[2] * kSize[P] * (h[3] != 0 ? 2 : 1);
        const std::size_t after_name = left - static_cast<std::size_t>(h[4]);
        if (need > static_cast<double>(after_name))
            throw InputError(which + " claims " + std::to_string(h[1]) + " x " + std::to_string(h[2]) +
                             " elements of " + std::to_string(kSize[P] * (h[3] != 0 ? 2 : 1)) + " bytes, " +
                             std::to_string(after_name) + " bytes remain");
        at += 20 + static_cast<std::size_t>(h[4]) + static_cast<std::size_t>(need);
    }
}

// libmatio reads a file as v5 when its 128-byte header ends in a version 0x0100 and an 'IM'/'MI'
// mark, as v7.3 (HDF5) with version 0x0200, and as v4 otherwise (matio's Mat_Open).
unsigned header_version(const unsigned char* p, std::size_t size) {
    const bool le = size >= 128 && p[126] == 'I' && p[127] == 'M';
    const bool be = size >= 128 && p[126] == 'M' && p[127] == 'I';
    return le ? (p[124] | (p[125] << 8)) : be ? ((p[124] << 8) | p[125]) : 0;
}

void check_layout(const fs::path& path) {
    // v7.3 is HDF5, checked by libhdf5 (in a child process: model_containers.cpp); only the
    // header is read, with no stream. libmatio follows what libhdf5 follows (external storage,
    // virtual datasets, external links) with no hook to refuse it, so the HDF5 inside is checked
    // first to read nothing outside the file (h5_contained.hpp).
    if (mat_file_is_hdf5(path)) return check_h5_self_contained(path);
    // A v4/v5 file is walked in memory: its size is checked first (a sparse 8 GB file took 10
    // minutes and 15 GB to be refused as "not a MAT file"). Up to twice the budget is read, so that
    // a file a little over it reaches the checks of its arrays' declared shapes, which name them.
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    const double budget = static_cast<double>(memory_budget());
    if (!ec && static_cast<double>(size) > 2 * budget)
        throw InputError(
            "reading '" + path.string() + "' (" + std::to_string(size) + " bytes, " +
            bytes_text(static_cast<double>(size)) +
            "): a MATLAB v4/v5 file is read whole to be checked, and one over twice the memory budget (2 x " +
            bytes_text(budget) + ") is refused" + memory_budget_advice(static_cast<double>(size) / 2));
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    const unsigned version = header_version(p, bytes.size());
    if (version == 0x0200)
        return check_h5_self_contained(path);  // v7.3: the file changed since mat_file_is_hdf5 looked
    if (version != 0x0100) return check_v4_layout(bytes);
    const bool swap = p[126] == 'M';  // this code runs on little-endian machines (x86-64, arm64)
    std::size_t at = 128;
    std::uint64_t inflated = 0;  // by all compressed variables so far
    for (int index = 0; at + 8 <= bytes.size(); ++index) {
        const std::uint32_t t = word(p + at, swap);
        if ((t >> 16) != 0) {  // a small data element: 8 bytes in all
            at += 8;
            continue;
        }
        const std::uint64_t n = word(p + at + 4, swap);
        if (at + 8 + n > bytes.size())
            throw InputError("the file is truncated or damaged: variable " + std::to_string(index + 1) + " claims " +
                             std::to_string(n) + " bytes, " + std::to_string(bytes.size() - at - 8) + " remain");
        if (t == miMATRIX) check_matrix_start(p + at + 8, static_cast<std::size_t>(n), n, swap, index);
        if (t == miCOMPRESSED && n > 0) {
            // libmatio inflates a compressed variable from the file until its stream ends, not
            // within the element's stated size: a size cut short (found by fuzz_mat: 14 of a
            // 46-byte stream) hid a name claiming 4 GB from a walk that stopped at the size.
            // So the stream is followed as far as the file goes.
            const Inflated v = inflate_variable(p + at + 8, bytes.size() - at - 8, swap, index,
                                                memory_budget() > inflated ? memory_budget() - inflated : 0);
            inflated += v.total;
            const auto* h = reinterpret_cast<const unsigned char*>(v.kept.data());
            if (v.kept.size() >= 8 && word(h, swap) == miMATRIX)
                check_matrix_start(h + 8, v.kept.size() - 8, std::min<std::uint64_t>(word(h + 4, swap), v.total - 8),
                                   swap, index);
        }
        at += 8 + ((t == miMATRIX) ? (n + 7) / 8 * 8 : n);
    }
}

MatPtr open_mat(const fs::path& path) {
    check_layout(path);
    quiet_matio();
    g_matio_message.clear();
    mat_t* m = Mat_Open(path.c_str(), MAT_ACC_RDONLY);
    if (!m)
        throw InputError("not a MATLAB .mat file libmatio can read (v4, v5 or v7.3)" +
                         (g_matio_message.empty() ? std::string() : ": " + g_matio_message));
    MatPtr out(m);
    refuse_if_complained("");  // v7.3: the header reads, the HDF5 part may not
    return out;
}

const char* class_text(const matvar_t& v) {
    if (v.isLogical) return "logical";
    switch (v.class_type) {
        case MAT_C_EMPTY: return "empty";
        case MAT_C_CELL: return "cell";
        case MAT_C_STRUCT: return "struct";
        case MAT_C_OBJECT: return "object";
        case MAT_C_CHAR: return "char";
        case MAT_C_SPARSE: return "sparse";
        case MAT_C_DOUBLE: return "double";
        case MAT_C_SINGLE: return "single";
        case MAT_C_INT8: return "int8";
        case MAT_C_UINT8: return "uint8";
        case MAT_C_INT16: return "int16";
        case MAT_C_UINT16: return "uint16";
        case MAT_C_INT32: return "int32";
        case MAT_C_UINT32: return "uint32";
        case MAT_C_INT64: return "int64";
        case MAT_C_UINT64: return "uint64";
        case MAT_C_FUNCTION: return "function handle";
        case MAT_C_OPAQUE: return "opaque object";
    }
    return "unknown";
}

std::size_t element_bytes(matio_classes c) {
    switch (c) {
        case MAT_C_DOUBLE:
        case MAT_C_INT64:
        case MAT_C_UINT64: return 8;
        case MAT_C_SINGLE:
        case MAT_C_INT32:
        case MAT_C_UINT32: return 4;
        case MAT_C_INT16:
        case MAT_C_UINT16:
        case MAT_C_CHAR: return 2;
        case MAT_C_INT8:
        case MAT_C_UINT8: return 1;
        default: return 0;
    }
}

std::vector<std::int64_t> shape_of(const matvar_t& v) {
    std::vector<std::int64_t> s;
    if (v.rank < 0 || !v.dims) return s;
    for (int i = 0; i < v.rank; ++i) {
        const size_t d = v.dims[i];
        s.push_back(d > static_cast<size_t>(INT64_MAX) ? INT64_MAX : static_cast<std::int64_t>(d));
    }
    return s;
}

template <class T>
void copy_column_major(const void* data, std::size_t rows, std::size_t cols, std::vector<double>& out) {
    const T* p = static_cast<const T*>(data);
    out.resize(rows * cols);
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) out[i * cols + j] = static_cast<double>(p[i + j * rows]);
}

// `key` is the model's name, `name` the variable's; messages name both when they differ.
NpyArray read_variable(mat_t* mat, const std::string& key, const std::string& name, std::uintmax_t file_bytes) {
    const std::string what = key == name ? "'" + key + "'" : "'" + key + "' (variable '" + name + "')";
    g_matio_message.clear();
    VarPtr info(Mat_VarReadInfo(mat, name.c_str()));
    if (!info)
        throw InputError(what + " cannot be read: the file is damaged" +
                         (g_matio_message.empty() ? std::string() : " (" + g_matio_message + ")"));
    const std::vector<std::int64_t> shape = shape_of(*info);
    if (info->rank < 1) throw InputError(what + " has no dimensions");
    check_declared_shape(shape, what);
    const bool text = key == "kind" || key == "name" || key == "notes";
    if (info->isComplex) throw InputError(what + " is complex; expected real numbers");
    if (text) {
        if (info->class_type != MAT_C_CHAR)
            throw InputError(what + " must be a char array (a string), got a " + std::string(class_text(*info)) +
                             " array");
    } else if (element_bytes(info->class_type) == 0 || info->class_type == MAT_C_CHAR) {
        throw InputError(what + " must be a numeric array (double, single or integer), got a " +
                         std::string(class_text(*info)) + " array");
    }
    std::size_t count = 1;
    for (auto d : shape) count *= static_cast<std::size_t>(d);
    const double need = static_cast<double>(count) * static_cast<double>(element_bytes(info->class_type));
    // libmatio's copy in the variable's class, then doubles: known from the dimensions, before
    // anything is read or inflated.
    check_memory_budget(need + 8.0 * static_cast<double>(count), what + " of shape " + array_shape_text(shape));
    if (need > kMaxExpansion * static_cast<double>(file_bytes) + 4096.0)
        throw InputError(what + " claims shape " + array_shape_text(shape) + ", more data than a " +
                         std::to_string(file_bytes) + "-byte file can hold");
    g_matio_message.clear();
    VarPtr v(Mat_VarRead(mat, name.c_str()));
    refuse_if_complained(what + " cannot be read: ");
    if (!v || v->rank != info->rank || shape_of(*v) != shape || v->class_type != info->class_type ||
        (count > 0 && (!v->data || v->data_size <= 0 || v->nbytes < count * static_cast<std::size_t>(v->data_size))))
        throw InputError(what + " cannot be read: the data is truncated or damaged" +
                         (g_matio_message.empty() ? std::string() : " (" + g_matio_message + ")"));
    NpyArray out;
    const std::size_t rows = static_cast<std::size_t>(shape[0]);
    const std::size_t cols = shape.size() > 1 ? static_cast<std::size_t>(shape[1]) : 1;
    if (text) {
        if (rows > 1) throw InputError(what + " must be a one-line char array, got " + std::to_string(rows) + " lines");
        std::string s;
        for (std::size_t i = 0; i < count; ++i) {
            unsigned ch = v->data_size == 1   ? static_cast<const unsigned char*>(v->data)[i]
                          : v->data_size == 2 ? static_cast<const std::uint16_t*>(v->data)[i]
                                              : static_cast<unsigned>('?');
            s += ch < 128 ? static_cast<char>(ch) : '?';
        }
        out.is_string = true;
        out.shape = {1};
        out.strings = {s};
        return out;
    }
    // matio gives the data in the variable's class, column-major (MATLAB's order).
    switch (v->class_type) {
        case MAT_C_DOUBLE: copy_column_major<double>(v->data, rows, cols, out.data); break;
        case MAT_C_SINGLE: copy_column_major<float>(v->data, rows, cols, out.data); break;
        case MAT_C_INT8: copy_column_major<std::int8_t>(v->data, rows, cols, out.data); break;
        case MAT_C_UINT8: copy_column_major<std::uint8_t>(v->data, rows, cols, out.data); break;
        case MAT_C_INT16: copy_column_major<std::int16_t>(v->data, rows, cols, out.data); break;
        case MAT_C_UINT16: copy_column_major<std::uint16_t>(v->data, rows, cols, out.data); break;
        case MAT_C_INT32: copy_column_major<std::int32_t>(v->data, rows, cols, out.data); break;
        case MAT_C_UINT32: copy_column_major<std::uint32_t>(v->data, rows, cols, out.data); break;
        case MAT_C_INT64: copy_column_major<std::int64_t>(v->data, rows, cols, out.data); break;
        case MAT_C_UINT64: copy_column_major<std::uint64_t>(v->data, rows, cols, out.data); break;
        default: throw InputError(what + " must be a numeric array");
    }
    // The element size matio reports must match the class, or the copy above misread it.
    if (static_cast<std::size_t>(v->data_size) != element_bytes(v->class_type) && v->class_type != MAT_C_CHAR)
        throw InputError(what + " cannot be read: its stored element size does not match its class");
    out.shape = shape;
    return out;
}

std::vector<ArrayInfo> list_open(mat_t* mat) {
    std::vector<ArrayInfo> out;
    g_matio_message.clear();
    Mat_Rewind(mat);
    for (int i = 0; i < kMaxVariables; ++i) {
        VarPtr v(Mat_VarReadNextInfo(mat));
        if (!v) {
            refuse_if_complained("");
            return out;
        }
        if (!v->name) continue;
        out.push_back({v->name, shape_of(*v), class_text(*v) + std::string(v->isComplex ? " complex" : "")});
    }
    throw InputError("more than " + std::to_string(kMaxVariables) + " variables; not a model file");
}

std::vector<double> row_major_to_column_major(const Mat& m) {
    std::vector<double> out(static_cast<std::size_t>(m.size()));
    for (Index j = 0; j < m.cols(); ++j)
        for (Index i = 0; i < m.rows(); ++i) out[static_cast<std::size_t>(i + j * m.rows())] = m(i, j);
    return out;
}

}  // namespace

bool mat_file_is_hdf5(const fs::path& path) {
    unsigned char head[128];
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return false;
    std::size_t got = 0;
    while (got < sizeof head) {
        const ssize_t n = ::read(fd, head + got, sizeof head - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += static_cast<std::size_t>(n);
    }
    ::close(fd);
    return header_version(head, got) == 0x0200;
}

std::vector<ArrayInfo> list_mat_arrays(const fs::path& path) {
    MatPtr mat = open_mat(path);
    return list_open(mat.get());
}

NamedArrays read_mat_arrays(const fs::path& path, const ModelLoadOptions& options) {
    std::error_code ec;
    const std::uintmax_t bytes = fs::file_size(path, ec);
    MatPtr mat = open_mat(path);
    std::vector<std::string> names;
    for (const auto& a : list_open(mat.get())) names.push_back(a.name);
    NamedArrays out;
    out.matlab_shapes = true;
    out.format = "mat";
    for (const auto& [key, name] : choose_arrays(names, options, true))
        out.arrays[key] = read_variable(mat.get(), key, name, ec ? 0 : bytes);
    return out;
}

void write_mat_model(const Model& model, const fs::path& path, bool mat73) {
    if (model.anneal_from) throw InputError("a model with 'anneal_from' cannot be written as .mat (use .json or .npz)");
    // A child reading a v7.3 file must not start with this thread inside libmatio or libhdf5.
    const std::lock_guard lock(container_library_mutex());
    quiet_matio();
    ScratchFile tmp(path);
    g_matio_message.clear();
    mat_t* raw = Mat_CreateVer(tmp.path().c_str(), nullptr, mat73 ? MAT_FT_MAT73 : MAT_FT_MAT5);
    if (!raw)
        throw InputError("libmatio cannot create the file" +
                         (g_matio_message.empty() ? std::string() : ": " + g_matio_message));
    MatPtr mat(raw);
    auto put = [&](const char* name, std::size_t rows, std::size_t cols, std::vector<double> data) {
        size_t dims[2] = {rows, cols};
        VarPtr v(Mat_VarCreate(name, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, data.data(), MAT_F_DONT_COPY_DATA));
        if (!v || Mat_VarWrite(mat.get(), v.get(), MAT_COMPRESSION_NONE) != 0)
            throw InputError(std::string("libmatio cannot write '") + name + "'");
    };
    auto put_matrix = [&](const char* name, const Mat& m) {
        put(name, static_cast<std::size_t>(m.rows()), static_cast<std::size_t>(m.cols()), row_major_to_column_major(m));
    };
    // Hinton's code keeps every vector as a 1 x n row.
    auto put_row = [&](const char* name, const Vec& v) {
        put(name, 1, static_cast<std::size_t>(v.size()), std::vector<double>(v.data(), v.data() + v.size()));
    };
    auto put_text = [&](const char* name, const std::string& s) {
        std::string copy = s;
        size_t dims[2] = {1, copy.size()};
        VarPtr v(Mat_VarCreate(name, MAT_C_CHAR, MAT_T_UINT8, 2, dims, copy.data(), MAT_F_DONT_COPY_DATA));
        if (!v || Mat_VarWrite(mat.get(), v.get(), MAT_COMPRESSION_NONE) != 0)
            throw InputError(std::string("libmatio cannot write '") + name + "'");
    };
    put_text("kind", kind_name(model.kind()));
    if (!model.name.empty()) put_text("name", model.name);
    if (!model.notes.empty()) put_text("notes", model.notes);
    std::visit(
        [&](const auto& p) {
            using T = std::decay_t<decltype(p)>;
            if constexpr (std::is_same_v<T, Gaussian>) {
                put_row("mean", p.mean);
                put_matrix("cov", p.cov);
            } else {
                put_matrix("vishid", p.W);
                put_row("visbiases", p.b);
                put_row("hidbiases", p.c);
                if constexpr (std::is_same_v<T, Grbm>) {
                    put_row("sigma", p.sigma);
                    put_row("hidden_values",
                            Eigen::Map<const Vec>(p.hidden_values.data(), static_cast<Index>(p.hidden_values.size())));
                }
                if constexpr (std::is_same_v<T, Leaky>) put("leakiness", 1, 1, {p.leakiness});
            }
        },
        model.params);
    mat.reset();
    tmp.commit();
}

}  // namespace rbm
