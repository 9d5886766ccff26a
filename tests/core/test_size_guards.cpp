// Size guards of the model loaders: a header or archive that claims absurd sizes is
// refused, naming the size and the limit, before anything of that size is allocated. The limit
// is kMaxFileElements = 2^28 elements per array (2 GiB of float64), every dimension included,
// and never more elements than the bytes actually present.
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "check.hpp"
#include "core/data/datasets.hpp"
#include "core/io/model_io.hpp"
#include "core/io/npy.hpp"

using namespace rbm;
namespace fs = std::filesystem;

namespace {

// A version 1.0 .npy header with the given dict text, then `data`.
std::string npy(const std::string& dict, const std::string& data = {}) {
    std::string h = dict;
    while ((10 + h.size() + 1) % 64 != 0) h += ' ';
    h += '\n';
    std::string out("\x93NUMPY\x01\x00", 8);
    out += static_cast<char>(h.size() & 0xFF);
    out += static_cast<char>(h.size() >> 8);
    return out + h + data;
}
std::string header(const std::string& descr, const std::string& shape) {
    return "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
}

std::uint32_t crc32(const std::string& s) {
    std::uint32_t c = 0xFFFFFFFFu;
    for (unsigned char ch : s) {
        c ^= ch;
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}
void le(std::string& out, std::uint64_t v, int bytes) {
    for (int k = 0; k < bytes; ++k) out += static_cast<char>((v >> (8 * k)) & 0xFF);
}
// A stored (uncompressed) zip archive, as numpy.savez writes it.
std::string zip(const std::vector<std::pair<std::string, std::string>>& members) {
    std::string out, central;
    for (const auto& [name, data] : members) {
        const auto offset = out.size();
        const std::uint32_t crc = crc32(data);
        le(out, 0x04034b50, 4);
        le(out, 20, 2), le(out, 0, 2), le(out, 0, 2), le(out, 0, 2), le(out, 0, 2);
        le(out, crc, 4), le(out, data.size(), 4), le(out, data.size(), 4);
        le(out, name.size(), 2), le(out, 0, 2);
        out += name + data;
        le(central, 0x02014b50, 4);
        le(central, 20, 2), le(central, 20, 2), le(central, 0, 2), le(central, 0, 2), le(central, 0, 2),
            le(central, 0, 2);
        le(central, crc, 4), le(central, data.size(), 4), le(central, data.size(), 4);
        le(central, name.size(), 2), le(central, 0, 2), le(central, 0, 2), le(central, 0, 2), le(central, 0, 2);
        le(central, 0, 4), le(central, offset, 4);
        central += name;
    }
    const auto cd_offset = out.size();
    out += central;
    le(out, 0x06054b50, 4);
    le(out, 0, 2), le(out, 0, 2), le(out, members.size(), 2), le(out, members.size(), 2);
    le(out, central.size(), 4), le(out, cd_offset, 4), le(out, 0, 2);
    return out;
}

std::string f8(std::initializer_list<double> xs) {
    std::string s;
    for (double x : xs) {
        std::uint64_t u;
        std::memcpy(&u, &x, 8);
        le(s, u, 8);
    }
    return s;
}

// Caps the address space for the rest of the process: a loader that allocated what a header
// claims (gigabytes) would then throw std::bad_alloc, which fails the CHECK_THROWS_WITH below.
// Sanitizer builds reserve terabytes of shadow memory, so there the cap is skipped.
void cap_memory() {
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
    return;
#endif
#endif
    rlimit r{};
    r.rlim_cur = r.rlim_max = rlim_t(1) << 30;  // 1 GiB
    setrlimit(RLIMIT_AS, &r);
#endif
}

}  // namespace

TEST_CASE("the guards hold with 1 GiB of address space (a loader that allocates first fails here)") {
    cap_memory();
    // Sanity: the cap does not break an ordinary load.
    const NpyArray a = parse_npy(npy(header("<f8", "(1, 2)"), f8({1.5, -2})), "ok.npy");
    CHECK(a.data.size() == 2 && a.data[1] == -2);
}

TEST_CASE("CSV: many short rows cost little more than their matrix; a 2^28-cell row is refused unstored") {
    // 20 M one-value rows: 40 MB of text, a 160 MB matrix. Splitting every row before counting
    // them (the parser once did) needs about 2 GB and fails under the cap. Sanitized builds have
    // no cap and are slow, so they check the same on fewer rows.
    const std::size_t rows = std::getenv("RBMSCOPE_SANITIZED") ? 2'000'000 : 20'000'000;
    std::string text;
    text.reserve(2 * rows);
    for (std::size_t i = 0; i < rows; ++i) text += i % 2 ? "1\n" : "0\n";
    const Dataset d = parse_csv(text, "long.csv");
    CHECK(d.size() == static_cast<Index>(rows) && d.dim() == 1 && d.X(1, 0) == 1 && d.X(rows - 2, 0) == 0);
    text = std::string(static_cast<std::size_t>(kMaxFileElements), ',');  // 2^28 + 1 empty cells
    CHECK_THROWS_WITH(parse_csv(text, "wide.csv"), InputError,
                      "wide.csv: a row of more than 268435456 values; refusing");
}

TEST_CASE("npy: more than 2^28 elements is refused by the count, whatever the data") {
    // 16384 x 16385 = 2^28 + 16384.
    CHECK_THROWS_WITH(parse_npy(npy(header("<f8", "(16384, 16385)")), "big.npy"), InputError,
                      "big.npy: the array has shape (16384, 16385), 268451840 elements, more than the limit 2^28");
    // Exactly 2^28 passes the count but the file holds no data: refused by the byte count,
    // still before allocating 2 GiB.
    CHECK_THROWS_WITH(parse_npy(npy(header("<f8", "(16384, 16384)")), "edge.npy"), InputError,
                      "the data has 0 bytes, expected 2147483648");
    // Saturated, not wrapped: 20-digit dimensions.
    CHECK_THROWS_WITH(parse_npy(npy(header("<f8", "(99999999999999999999, 99999999999999999999)")), "x.npy"),
                      InputError, "more than the limit 2^28");
}

TEST_CASE("npy: a zero-length array cannot smuggle in a huge dimension") {
    // 0 elements, but W = (0, 10^15) would make a model with 10^15 hidden biases.
    CHECK_THROWS_WITH(
        parse_npy(npy(header("<f8", "(0, 1000000000000000)")), "w.npy"), InputError,
        "w.npy: the array has shape (0, 1000000000000000), a dimension of 1000000000000000, more than the limit 2^28");
    CHECK_THROWS_WITH(model_from_file_bytes(npy(header("<f8", "(0, 268435456)")), ".npy", "w.npy"), InputError,
                      "'W' has shape (0, 268435456): it has no rows");
    const std::string z =
        zip({{"W.npy", npy(header("<f8", "(268435456, 0)"))},
             {"kind.npy", npy(header("<U4", "()"), std::string("b\0\0\0r\0\0\0b\0\0\0m\0\0\0", 16))}});
    CHECK_THROWS_WITH(model_from_file_bytes(z, ".npz", "w.npz"), InputError, "it has no columns");
}

TEST_CASE("npy: zero-width strings are refused (2^28 of them would need no data)") {
    CHECK_THROWS_WITH(parse_npy(npy(header("<U0", "(268435456,)")), "s.npy"), InputError,
                      "unsupported dtype '<U0': items of zero bytes");
    CHECK_THROWS_WITH(parse_npy(npy(header("|S0", "(268435456,)")), "s.npy"), InputError, "items of zero bytes");
}

TEST_CASE("npy: a header longer than 1 MiB is refused before it is read") {
    std::string b("\x93NUMPY\x02\x00", 8);
    le(b, 0xFFFFFFFFu, 4);
    CHECK_THROWS_WITH(parse_npy(b, "h.npy"), InputError,
                      "the .npy header claims 4294967295 bytes, more than the limit");
}

TEST_CASE("npz: the guards apply to every member, and the member is named") {
    const std::string z = zip({{"W.npy", npy(header("<f8", "(65536, 65536)"))}});
    CHECK_THROWS_WITH(model_from_file_bytes(z, ".npz", "m.npz"), InputError,
                      "m.npz: member 'W.npy': the array has shape (65536, 65536), 4294967296 elements");
    // A valid archive through the same path, so the hand-made zip is known to be readable.
    const std::string ok = zip({{"W.npy", npy(header("<f8", "(1, 2)"), f8({0.5, 0.25}))}});
    const Model m = model_from_file_bytes(ok, ".npz", "ok.npz");
    CHECK(m.kind() == ModelKind::Brbm && m.n_visible() == 1 && m.n_hidden() == 2);
}

TEST_CASE("files larger than any model may be are refused from their size, unread") {
    const fs::path dir = fs::temp_directory_path() / ("rbmscope-size-guards-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path big = dir / "W.npy";
    { std::ofstream(big) << "x"; }
    fs::resize_file(big, std::uintmax_t(3) << 30);  // sparse: 3 GiB claimed, nothing written
    CHECK_THROWS_WITH(load_model(big), InputError, "file is 3221225472 bytes, more than any model file may be");
    fs::remove_all(dir);
}

RBM_TEST_MAIN
