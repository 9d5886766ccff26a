#include "core/io/npy.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "core/io/model_io.hpp"

namespace rbm {

std::int64_t NpyArray::size() const {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
}

namespace {

// The .npy layout (numpy/lib/format.py): 6-byte magic, major and minor version bytes, the
// header length (uint16 LE for 1.0, uint32 LE for 2.0/3.0), then an ASCII Python dict literal
// padded with spaces and ended by '\n', then the raw data.
constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;
// numpy itself refuses headers above 10000 bytes unless told otherwise; 1 MiB is generous.
constexpr std::uint64_t kMaxHeaderBytes = 1u << 20;

[[noreturn]] void fail(const std::string& name, const std::string& what) { throw InputError(name + ": " + what); }

std::string shape_text(const std::vector<std::int64_t>& shape) {
    std::string s = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ", ";
        s += std::to_string(shape[i]);
    }
    if (shape.size() == 1) s += ",";
    return s + ")";
}

struct Dtype {
    char order = '<';  // '<' little, '>' big, '|' not applicable (one byte)
    char kind = 'f';   // f float, i signed, u unsigned, b bool, U unicode (UTF-32), S bytes
    std::size_t itemsize = 8;
    std::string text;
};

Dtype parse_dtype(const std::string& descr, const std::string& name) {
    const std::string supported =
        " (supported: <f8 >f8 <f4 >f4, signed and unsigned integers i1 i2 i4 i8 u1 u2 u4 u8, |b1, <U.. and |S.. "
        "strings)";
    if (descr == "|O" || descr == "O")
        fail(name,
             "the array holds Python objects (dtype '|O'), which cannot be read without pickle; save numbers instead");
    if (descr.size() < 3) fail(name, "unsupported dtype '" + descr + "'" + supported);
    Dtype d;
    d.text = descr;
    d.order = descr[0];
    d.kind = descr[1];
    const std::string digits = descr.substr(2);
    if (d.order != '<' && d.order != '>' && d.order != '|')
        fail(name, "unsupported dtype '" + descr + "': byte order must be '<', '>' or '|'");
    for (char ch : digits)
        if (ch < '0' || ch > '9') fail(name, "unsupported dtype '" + descr + "'" + supported);
    if (digits.size() > 7) fail(name, "unsupported dtype '" + descr + "': item size too large");
    const std::size_t count = std::stoul(digits);
    switch (d.kind) {
        case 'f':
            if (count != 4 && count != 8) fail(name, "unsupported dtype '" + descr + "'" + supported);
            d.itemsize = count;
            break;
        case 'i':
        case 'u':
            if (count != 1 && count != 2 && count != 4 && count != 8)
                fail(name, "unsupported dtype '" + descr + "'" + supported);
            d.itemsize = count;
            break;
        case 'b':
            if (count != 1) fail(name, "unsupported dtype '" + descr + "'" + supported);
            d.itemsize = 1;
            break;
        case 'U':
            d.itemsize = 4 * count;  // UTF-32 code units
            break;
        case 'S': d.itemsize = count; break;
        default: fail(name, "unsupported dtype '" + descr + "'" + supported);
    }
    // Zero-width strings would let a few header bytes claim 2^28 elements with no data.
    if (d.itemsize == 0) fail(name, "unsupported dtype '" + descr + "': items of zero bytes");
    if (d.itemsize > 1 && d.order == '|' && d.kind != 'S')
        fail(name, "dtype '" + descr + "' has several bytes per item but no byte order ('<' or '>')");
    if (d.itemsize == 1 && d.kind != 'U' && d.order != '|' && d.kind != 'S') d.order = '|';
    return d;
}

// The header is a Python dict literal with exactly the keys 'descr' (a string),
// 'fortran_order' (True/False) and 'shape' (a tuple of non-negative integers).
class HeaderParser {
public:
    HeaderParser(const std::string& text, const std::string& name) : s_(text), name_(name) {}

    void parse(std::string& descr, bool& fortran, std::vector<std::int64_t>& shape) {
        bool have_descr = false, have_fortran = false, have_shape = false;
        skip_space();
        expect('{');
        for (;;) {
            skip_space();
            if (peek() == '}') break;
            const std::string key = string_literal("a key");
            skip_space();
            expect(':');
            skip_space();
            if (key == "descr") {
                if (have_descr) fail(name_, "the .npy header lists 'descr' twice");
                if (peek() == '[')
                    fail(name_, "the array has a structured dtype (a list of fields); expected plain numbers");
                descr = string_literal("the value of 'descr'");
                have_descr = true;
            } else if (key == "fortran_order") {
                if (have_fortran) fail(name_, "the .npy header lists 'fortran_order' twice");
                fortran = boolean();
                have_fortran = true;
            } else if (key == "shape") {
                if (have_shape) fail(name_, "the .npy header lists 'shape' twice");
                shape = tuple();
                have_shape = true;
            } else {
                fail(name_, "the .npy header has an unexpected key '" + key +
                                "' (expected only 'descr', 'fortran_order' and 'shape')");
            }
            skip_space();
            if (peek() == ',') {
                ++pos_;
                continue;
            }
            if (peek() == '}') break;
            syntax("',' or '}'");
        }
        ++pos_;
        skip_space();
        if (pos_ != s_.size()) syntax("the end of the header");
        if (!have_descr) fail(name_, "the .npy header has no 'descr' (the dtype)");
        if (!have_fortran) fail(name_, "the .npy header has no 'fortran_order'");
        if (!have_shape) fail(name_, "the .npy header has no 'shape'");
    }

private:
    char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
    void skip_space() {
        while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r'))
            ++pos_;
    }
    [[noreturn]] void syntax(const std::string& expected) const {
        std::string got = pos_ >= s_.size()  ? "the end of the header"
                          : s_[pos_] == '\'' ? "a quote"
                                             : std::string("'") + s_[pos_] + "'";
        if (pos_ < s_.size() &&
            (static_cast<unsigned char>(s_[pos_]) < 32 || static_cast<unsigned char>(s_[pos_]) > 126))
            got = "byte " + std::to_string(static_cast<unsigned char>(s_[pos_]));
        fail(name_, "malformed .npy header at character " + std::to_string(pos_) + ": expected " + expected +
                        ", found " + got);
    }
    void expect(char ch) {
        if (peek() != ch) syntax(std::string("'") + ch + "'");
        ++pos_;
    }
    std::string string_literal(const std::string& what) {
        const char q = peek();
        if (q != '\'' && q != '"') syntax("a quoted string (" + what + ")");
        const std::size_t start = ++pos_;
        while (pos_ < s_.size() && s_[pos_] != q) {
            if (s_[pos_] == '\\' || s_[pos_] == '\n') syntax("a plain quoted string (" + what + ")");
            ++pos_;
        }
        if (pos_ >= s_.size()) syntax("a closing quote");
        return s_.substr(start, pos_++ - start);
    }
    bool boolean() {
        if (s_.compare(pos_, 4, "True") == 0) {
            pos_ += 4;
            return true;
        }
        if (s_.compare(pos_, 5, "False") == 0) {
            pos_ += 5;
            return false;
        }
        fail(name_, "'fortran_order' must be True or False in the .npy header");
    }
    std::vector<std::int64_t> tuple() {
        std::vector<std::int64_t> out;
        expect('(');
        for (;;) {
            skip_space();
            if (peek() == ')') break;
            if (peek() == '-') fail(name_, "the .npy header has a negative dimension in 'shape'");
            if (peek() < '0' || peek() > '9') syntax("a dimension (a non-negative integer) in 'shape'");
            std::int64_t v = 0;
            while (peek() >= '0' && peek() <= '9') {
                // Saturate far above any limit: the element count check reports it.
                v = v > (std::int64_t(1) << 50) ? v : v * 10 + (peek() - '0');
                ++pos_;
            }
            if (peek() == 'L') ++pos_;  // Python 2 long literal, written by old numpy
            out.push_back(v);
            skip_space();
            if (peek() == ',') {
                ++pos_;
                continue;
            }
            if (peek() == ')') break;
            syntax("',' or ')' in 'shape'");
        }
        ++pos_;
        return out;
    }

    const std::string& s_;
    const std::string& name_;
    std::size_t pos_ = 0;
};

std::uint64_t load_uint(const unsigned char* p, std::size_t n, bool big) {
    std::uint64_t v = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t at = big ? k : n - 1 - k;
        v = (v << 8) | p[at];
    }
    return v;
}

double load_number(const unsigned char* p, const Dtype& d) {
    const bool big = d.order == '>';
    const std::uint64_t u = load_uint(p, d.itemsize, big);
    switch (d.kind) {
        case 'f':
            return d.itemsize == 8 ? std::bit_cast<double>(u)
                                   : static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(u)));
        case 'u': return static_cast<double>(u);
        case 'i': {
            const unsigned bits = static_cast<unsigned>(8 * d.itemsize);
            // Sign-extend the two's complement value.
            const std::int64_t s =
                bits == 64 ? static_cast<std::int64_t>(u) : static_cast<std::int64_t>(u << (64 - bits)) >> (64 - bits);
            return static_cast<double>(s);
        }
        default: return static_cast<double>(u);
    }
}

void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

// UTF-8 to code points; a malformed byte becomes U+FFFD so a writer never fails on a name.
std::vector<std::uint32_t> utf8_to_code_points(const std::string& s) {
    std::vector<std::uint32_t> out;
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        std::uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
        bool ok = len > 0 && i + len <= s.size();
        for (std::size_t k = 1; ok && k < len; ++k) {
            const auto cc = static_cast<unsigned char>(s[i + k]);
            if ((cc >> 6) != 2) ok = false;
            cp = (cp << 6) | (cc & 0x3F);
        }
        if (ok && (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))) ok = false;
        if (!ok) {
            out.push_back(0xFFFD);
            i += 1;
        } else {
            out.push_back(cp);
            i += len;
        }
    }
    return out;
}

std::string header_bytes(const std::string& descr, const std::vector<std::int64_t>& shape) {
    std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape_text(shape) + ", }";
    // Pad with spaces so that magic + version + length + header is a multiple of 64 bytes
    // (numpy aligns the data this way), the last header byte being '\n'.
    const std::size_t preamble = kMagicLen + 2 + 2;
    std::size_t total = preamble + dict.size() + 1;
    const std::size_t padded = (total + 63) / 64 * 64;
    dict.append(padded - total, ' ');
    dict += '\n';
    std::string out(kMagic, kMagicLen);
    out += '\x01';
    out += '\x00';
    out += static_cast<char>(dict.size() & 0xFF);
    out += static_cast<char>((dict.size() >> 8) & 0xFF);
    return out + dict;
}

void append_le64(std::string& out, double x) {
    const auto u = std::bit_cast<std::uint64_t>(x);
    for (int k = 0; k < 8; ++k) out += static_cast<char>((u >> (8 * k)) & 0xFF);
}

// The header of a .npy file: where the data starts, the shape, the dtype and the data's size.
// InputError for anything malformed, or when `bytes` ends before the header does.
struct NpyHeader {
    std::size_t data_offset = 0;
    std::vector<std::int64_t> shape;
    Dtype dt;
    std::string descr;
    bool fortran = false;
    std::uint64_t data_bytes = 0;
};

NpyHeader read_header(const std::string& bytes, const std::string& name) {
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    if (bytes.empty()) fail(name, "file is empty (expected a .npy array)");
    if (bytes.size() < kMagicLen || std::memcmp(bytes.data(), kMagic, kMagicLen) != 0)
        fail(name, "not a .npy array (does not start with the magic bytes \\x93NUMPY)");
    if (bytes.size() < kMagicLen + 2) fail(name, "truncated .npy file: it ends inside the version bytes");
    const int major = p[6], minor = p[7];
    if (!((major == 1 || major == 2 || major == 3) && minor == 0))
        fail(name, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                       " (expected 1.0, 2.0 or 3.0)");
    const std::size_t len_bytes = major == 1 ? 2 : 4;
    const std::size_t preamble = kMagicLen + 2 + len_bytes;
    if (bytes.size() < preamble) fail(name, "truncated .npy file: it ends inside the header length");
    const std::uint64_t header_len = load_uint(p + 8, len_bytes, false);
    if (header_len > kMaxHeaderBytes)
        fail(name, "the .npy header claims " + std::to_string(header_len) + " bytes, more than the limit " +
                       std::to_string(kMaxHeaderBytes));
    if (bytes.size() - preamble < header_len)
        fail(name, "truncated .npy file: the header claims " + std::to_string(header_len) + " bytes but only " +
                       std::to_string(bytes.size() - preamble) + " follow");
    const std::string header = bytes.substr(preamble, header_len);

    std::string descr;
    bool fortran = false;
    std::vector<std::int64_t> shape;
    HeaderParser(header, name).parse(descr, fortran, shape);
    const Dtype dt = parse_dtype(descr, name);

    if (shape.size() > 2)
        fail(name, "the array has " + std::to_string(shape.size()) + " dimensions (shape " + shape_text(shape) +
                       "); model arrays have at most 2");
    // Refuse absurd sizes before allocating anything. Each dimension on its own too: an empty
    // array of shape (0, 10^15) has no elements but would make a model with 10^15 biases.
    for (auto dim : shape)
        if (dim > kMaxFileElements)
            fail(name, "the array has shape " + shape_text(shape) + ", a dimension of " + std::to_string(dim) +
                           ", more than the limit 2^28 = " + std::to_string(kMaxFileElements));
    double count_d = 1;
    for (auto dim : shape) count_d *= static_cast<double>(dim);
    if (count_d > static_cast<double>(kMaxFileElements)) {
        std::ostringstream os;
        os.precision(15);
        os << "the array has shape " << shape_text(shape) << ", " << count_d
           << " elements, more than the limit 2^28 = " << kMaxFileElements;
        fail(name, os.str());
    }
    std::uint64_t count = 1;
    for (auto dim : shape) count *= static_cast<std::uint64_t>(dim);
    const std::uint64_t expected = count * dt.itemsize;
    if (expected > 8 * static_cast<std::uint64_t>(kMaxFileElements))
        fail(name, "the array would need " + std::to_string(expected) + " bytes, more than the limit " +
                       std::to_string(8 * kMaxFileElements));
    return NpyHeader{preamble + static_cast<std::size_t>(header_len), shape, dt, descr, fortran, expected};
}

}  // namespace

std::uint64_t npy_declared_size(const std::string& prefix, const std::string& name) {
    const NpyHeader h = read_header(prefix, name);
    return h.data_offset + h.data_bytes;
}

NpyArray parse_npy(const std::string& bytes, const std::string& name) {
    const NpyHeader h = read_header(bytes, name);
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    const std::size_t preamble = h.data_offset, header_len = 0;
    const std::vector<std::int64_t>& shape = h.shape;
    const Dtype& dt = h.dt;
    const std::string& descr = h.descr;
    const bool fortran = h.fortran;
    const std::uint64_t expected = h.data_bytes;
    NpyArray out;
    out.shape = shape;
    const auto count = static_cast<std::size_t>(out.size());
    const std::uint64_t have = bytes.size() - preamble - header_len;
    if (have != expected)
        fail(name, "the data has " + std::to_string(have) + " bytes, expected " + std::to_string(expected) +
                       " for shape " + shape_text(shape) + " of dtype '" + descr + "'" +
                       (have < expected ? " (truncated file?)" : " (trailing bytes)"));
    const unsigned char* data = p + preamble + header_len;

    if (dt.kind == 'U' || dt.kind == 'S') {
        out.is_string = true;
        out.strings.resize(count);
        const std::size_t chars = dt.kind == 'U' ? dt.itemsize / 4 : dt.itemsize;
        for (std::size_t e = 0; e < count; ++e) {
            std::string s;
            std::size_t used = chars;
            const unsigned char* item = data + e * dt.itemsize;
            const std::size_t unit = dt.kind == 'U' ? 4 : 1;
            // numpy pads with NUL code units at the end; they are not part of the string.
            while (used > 0 && load_uint(item + (used - 1) * unit, unit, dt.order == '>') == 0) --used;
            for (std::size_t k = 0; k < used; ++k) {
                const auto cp = static_cast<std::uint32_t>(load_uint(item + k * unit, unit, dt.order == '>'));
                if (dt.kind == 'S') {
                    s += static_cast<char>(cp);
                    continue;
                }
                if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
                    fail(name,
                         "string element " + std::to_string(e) + " holds an invalid code point " + std::to_string(cp));
                append_utf8(s, cp);
            }
            out.strings[e] = std::move(s);
        }
        return out;
    }

    out.data.resize(count);
    const std::size_t rows = shape.size() == 2 ? static_cast<std::size_t>(shape[0]) : count;
    const std::size_t cols = shape.size() == 2 ? static_cast<std::size_t>(shape[1]) : 1;
    for (std::size_t e = 0; e < count; ++e) {
        const unsigned char* item = data + e * dt.itemsize;
        if (dt.kind == 'b' && item[0] > 1)
            fail(name,
                 "bool element " + std::to_string(e) + " is the byte " + std::to_string(item[0]) + ", expected 0 or 1");
        // Fortran order stores column after column: element e is (e % rows, e / rows).
        const std::size_t at = fortran && shape.size() == 2 ? (e % rows) * cols + e / rows : e;
        out.data[at] = load_number(item, dt);
    }
    return out;
}

std::string write_npy(const Mat& m) {
    std::string out = header_bytes("<f8", {m.rows(), m.cols()});
    out.reserve(out.size() + 8 * static_cast<std::size_t>(m.size()));
    for (Index i = 0; i < m.rows(); ++i)
        for (Index j = 0; j < m.cols(); ++j) append_le64(out, m(i, j));
    return out;
}

std::string write_npy(const Vec& v) {
    std::string out = header_bytes("<f8", {v.size()});
    for (Index i = 0; i < v.size(); ++i) append_le64(out, v(i));
    return out;
}

std::string write_npy_scalar(double x) {
    std::string out = header_bytes("<f8", {});
    append_le64(out, x);
    return out;
}

std::string write_npy_strings(const std::vector<std::string>& s) {
    std::vector<std::vector<std::uint32_t>> cps;
    std::size_t width = 1;  // numpy never writes '<U0'
    for (const auto& str : s) {
        cps.push_back(utf8_to_code_points(str));
        width = std::max(width, cps.back().size());
    }
    std::string out = header_bytes("<U" + std::to_string(width), {static_cast<std::int64_t>(s.size())});
    for (const auto& item : cps)
        for (std::size_t k = 0; k < width; ++k) {
            const std::uint32_t cp = k < item.size() ? item[k] : 0;
            for (int b = 0; b < 4; ++b) out += static_cast<char>((cp >> (8 * b)) & 0xFF);
        }
    return out;
}

}  // namespace rbm
