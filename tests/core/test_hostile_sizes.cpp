// Every size known before allocation: synthetic data specs, CSV, IDX, .csv.gz,
// MATLAB v5 (compressed or not) and HDF5 arrays are checked against the one memory budget
// (core/numerics/memory_budget.hpp) from what they declare, and compressed streams are capped
// while they inflate. The files are made here: small ones that claim or inflate to a lot.
#include <zlib.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "check.hpp"
#include "core/data/datasets.hpp"
#include "core/io/model_io.hpp"
#include "core/io/named_arrays.hpp"
#include "core/numerics/memory_budget.hpp"
#include "test_files.hpp"
#include "test_random_models.hpp"

namespace fs = std::filesystem;
using namespace rbm;
using namespace rbm::test;

namespace {

// Sets the budget for one scope (the default afterwards).
struct Budget {
    explicit Budget(std::uint64_t bytes) { set_memory_budget(bytes); }
    ~Budget() { set_memory_budget(0); }
};

constexpr std::uint64_t kMiB = std::uint64_t(1) << 20;

// `total` bytes of `fill` repeated, deflated (gzip wrapper when `gzip`, else zlib) without
// holding them in memory.
std::string deflate_repeated(const std::string& fill, std::uint64_t total, bool gzip) {
    z_stream z{};
    CHECK(deflateInit2(&z, 9, Z_DEFLATED, gzip ? 15 + 16 : 15, 9, Z_DEFAULT_STRATEGY) == Z_OK);
    std::string block;
    while (block.size() < (1u << 16)) block += fill;
    std::string out;
    unsigned char buf[1 << 16];
    std::uint64_t left = total;
    for (;;) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, block.size()));
        z.next_in = reinterpret_cast<Bytef*>(block.data());
        z.avail_in = static_cast<uInt>(n);
        left -= n;
        const int flush = left == 0 ? Z_FINISH : Z_NO_FLUSH;
        int rc;
        do {
            z.next_out = buf;
            z.avail_out = sizeof buf;
            rc = deflate(&z, flush);
            out.append(reinterpret_cast<char*>(buf), sizeof buf - z.avail_out);
        } while (z.avail_out == 0);
        if (flush == Z_FINISH && rc == Z_STREAM_END) break;
    }
    deflateEnd(&z);
    return out;
}

void put32(std::string& s, std::uint32_t v) { s.append(reinterpret_cast<const char*>(&v), 4); }

// A MATLAB v5 file with one compressed double variable `name` of 1 x n zeros.
std::string mat_v5_compressed_zeros(const std::string& name, std::uint32_t n) {
    std::string head = "MATLAB 5.0 MAT-file, written by rbmscope's tests";
    head.resize(116, ' ');
    head += std::string(8, '\0');
    head += std::string("\x00\x01IM", 4);
    std::string m;  // the miMATRIX element's data before the numbers
    put32(m, 6), put32(m, 8), put32(m, 6 /* mxDOUBLE_CLASS */), put32(m, 0);
    put32(m, 5), put32(m, 8), put32(m, 1), put32(m, n);
    std::string padded = name;
    padded.resize((name.size() + 7) / 8 * 8, '\0');
    put32(m, 1), put32(m, static_cast<std::uint32_t>(name.size()));
    m += padded;
    put32(m, 9 /* miDOUBLE */), put32(m, 8 * n);
    std::string element;
    put32(element, 14 /* miMATRIX */), put32(element, static_cast<std::uint32_t>(m.size() + 8ull * n));
    element += m;
    // The header and then the zeros, as one zlib stream.
    z_stream z{};
    CHECK(deflateInit(&z, 9) == Z_OK);
    std::string stream;
    unsigned char buf[1 << 16];
    auto feed = [&](const char* p, std::size_t len, int flush) {
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(p));
        z.avail_in = static_cast<uInt>(len);
        int rc;
        do {
            z.next_out = buf;
            z.avail_out = sizeof buf;
            rc = deflate(&z, flush);
            stream.append(reinterpret_cast<char*>(buf), sizeof buf - z.avail_out);
        } while (z.avail_out == 0);
        return rc;
    };
    feed(element.data(), element.size(), Z_NO_FLUSH);
    const std::string zeros(1 << 16, '\0');
    for (std::uint64_t left = 8ull * n; left > 0;) {
        const std::size_t k = static_cast<std::size_t>(std::min<std::uint64_t>(left, zeros.size()));
        left -= k;
        feed(zeros.data(), k, left == 0 ? Z_FINISH : Z_NO_FLUSH);
    }
    deflateEnd(&z);
    std::string file = head;
    put32(file, 15 /* miCOMPRESSED */), put32(file, static_cast<std::uint32_t>(stream.size()));
    file += stream;
    return file;
}

void write(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

}  // namespace

TEST_CASE("the budget is 1 GiB by default, settable, and 0 restores the default") {
    CHECK(memory_budget() == kDefaultMemoryBudget && kDefaultMemoryBudget == (std::uint64_t(1) << 30));
    {
        const Budget b(5 * kMiB);
        CHECK(memory_budget() == 5 * kMiB);
    }
    CHECK(memory_budget() == kDefaultMemoryBudget);
    CHECK_THROWS_WITH(check_memory_budget(3.0 * (1 << 30), "it"), InputError,
                      "it needs 3.0 GiB, more than the memory budget (1.0 GiB)");
}

TEST_CASE("bars:D:COUNT is refused from its numbers, before anything is allocated") {
    // The corpus' case: 2.7 GiB asked by a 2 KB model's recorded training data.
    const auto t0 = std::chrono::steady_clock::now();
    CHECK_THROWS_WITH(
        load_dataset("bars:3:40000000:1"), InputError,
        "data 'bars:3:40000000:1': bars-and-stripes data of 40000000 patterns of 9 values needs 2.7 GiB, more "
        "than the memory budget (1.0 GiB)");
    CHECK_THROWS_WITH(load_dataset("bars:16:9000000000000"), InputError, "more than the memory budget");
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 1.0);
    // The budget, not a fixed number, decides: 1 MiB holds 14 563 patterns of 9 values.
    const Budget b(kMiB);
    CHECK(load_dataset("bars:3:14563").size() == 14563);
    CHECK_THROWS_WITH(load_dataset("bars:3:14564"), InputError, "needs 1.0 MiB, more than the memory budget (1.0 MiB)");
    // Shifts make five copies: checked before they are made.
    CHECK_THROWS_WITH(with_shifts(load_dataset("bars:3:4000")), InputError,
                      "one-pixel shifts of bars-and-stripes 3x3 (4000 sampled, seed 1) (five copies) needs 1.4 MiB");
}

TEST_CASE(".csv.gz inflation is capped while it streams; CSV and IDX sizes are checked before the matrix") {
    TempDir dir;
    const Budget b(kMiB);
    // 64 MiB of digits rows in a file of a few hundred KB.
    std::string row;
    for (int i = 0; i < 64; ++i) row += "0,";
    row += "1\n";
    const std::string gz = deflate_repeated(row, 64 * kMiB, true);
    CHECK(gz.size() < 1024 * 1024);
    write(dir.path / "bomb.csv.gz", gz);
    const std::string spec = (dir.path / "bomb.csv.gz").string();
    CHECK_THROWS_WITH(load_dataset(spec), InputError,
                      (spec + ": inflates to more than 1.0 MiB, the memory budget; refusing").c_str());
    // A plain CSV: 2000 rows of 100 values are 1.5 MiB of doubles.
    std::string csv;
    for (int r = 0; r < 2000; ++r) {
        for (int c = 0; c < 99; ++c) csv += "0,";
        csv += "0\n";
    }
    write(dir.path / "wide.csv", csv);
    CHECK_THROWS_WITH(load_dataset((dir.path / "wide.csv").string()), InputError,
                      "wide.csv: 2000 rows of 100 values needs 1.5 MiB, more than the memory budget (1.0 MiB)");
    // IDX: 300 images of 28 x 28 (235 KB of bytes) are 1.8 MiB of doubles.
    std::string idx;
    for (std::uint32_t v : {0x00000803u, 300u, 28u, 28u}) put32(idx, __builtin_bswap32(v));
    idx += std::string(300 * 28 * 28, '\0');
    write(dir.path / "small-images-idx3-ubyte", idx);
    CHECK_THROWS_WITH(load_dataset((dir.path / "small-images-idx3-ubyte").string()), InputError,
                      ": 300 images of 28 x 28 needs 1.8 MiB, more than the memory budget (1.0 MiB)");
}

TEST_CASE("a compressed MATLAB v5 variable is refused once its inflation passes the budget, before libmatio reads it") {
    TempDir dir;
    const Budget b(16 * kMiB);
    // 20 000 000 zeros: 160 MB inflated from a ~155 KB file (the corpus had 291 KB -> 6.3 GB).
    const std::string mat = mat_v5_compressed_zeros("vishid", 20000000);
    CHECK(mat.size() < 400 * 1024);
    const fs::path p = dir.path / "bomb.mat";
    write(p, mat);
    const auto t0 = std::chrono::steady_clock::now();
    for (const std::string& msg :
         {error_of([&] { (void)load_model(p); }), error_of([&] { (void)list_model_arrays(p); })})
        CHECK_MSG(msg.find(p.string() + ": variable 1 inflates to more than 16.0 MiB") == 0 &&
                      msg.find("is more than the memory budget (16.0 MiB)") != std::string::npos,
                  msg);
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 5.0);
}

TEST_CASE("MATLAB and HDF5 arrays are checked against the budget from their declared shape") {
    TempDir dir;
    const Model m{random_brbm(1, 400, 400)};  // W: 400 x 400 doubles, 1.2 MiB
    for (const char* ext : {".mat", ".h5"}) {
        const fs::path p = dir.path / (std::string("big") + ext);
        save_model(m, p);
        {
            const Budget b(kMiB);
            const std::string msg = error_of([&] { (void)load_model(p); });
            CHECK_MSG(msg.find("of shape (400, 400) needs ") != std::string::npos &&
                          msg.find("more than the memory budget (1.0 MiB)") != std::string::npos,
                      msg);
        }
        CHECK(load_model(p).n_visible() == 400);  // within the default budget it loads
    }
}

RBM_TEST_MAIN
