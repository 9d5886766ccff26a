// Data sets (docs/methods/training.md): bars-and-stripes, the embedded digits and their shifts, IDX and CSV
// readers with their error messages, transforms, and the .npz model fixture written by NumPy.
#include <zlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "check.hpp"
#include "core/data/datasets.hpp"
#include "core/exact/exact.hpp"
#include "core/io/model_io.hpp"
#include "core/kernels/gibbs.hpp"
#include "core/numerics/memory_budget.hpp"
#include "test_files.hpp"

using namespace rbm;

namespace {
const std::string kDir = std::string(RBMSCOPE_TEST_DATA) + "/train/";

std::string row_key(const RowMat& X, Index r) {
    std::string s;
    for (Index c = 0; c < X.cols(); ++c) s += X(r, c) != 0 ? '1' : '0';
    return s;
}
}  // namespace

TEST_CASE("bars and stripes: 2^(d+1)-2 distinct valid patterns, and the validity test rejects others") {
    for (int d : {1, 2, 3, 4, 5}) {
        const Dataset data = bars_and_stripes(d);
        const Index expected = d == 1 ? 2 : (Index(1) << (d + 1)) - 2;
        CHECK(data.size() == expected);
        CHECK(data.dim() == d * d);
        CHECK(data.image_rows == d && data.image_cols == d);
        std::set<std::string> distinct;
        for (Index r = 0; r < data.size(); ++r) {
            distinct.insert(row_key(data.X, r));
            CHECK(is_bars_and_stripes(data.X.row(r).data(), d));
        }
        CHECK(static_cast<Index>(distinct.size()) == expected);
    }
    // Exhaustively on 3x3: exactly the 14 patterns are valid among all 512 binary images.
    Index valid = 0;
    for (int mask = 0; mask < 512; ++mask) {
        double x[9];
        for (int i = 0; i < 9; ++i) x[i] = (mask >> i) & 1;
        valid += is_bars_and_stripes(x, 3) ? 1 : 0;
    }
    CHECK(valid == 14);
    const double half[4] = {0.5, 0.5, 0.5, 0.5};
    CHECK(!is_bars_and_stripes(half, 2));
    CHECK_THROWS_WITH(bars_and_stripes(0), InputError, "from 1 to 16");
}

TEST_CASE("bars and stripes sampled: valid, seeded, and empty/full grids twice as likely") {
    const Dataset a = bars_and_stripes_sampled(4, 20000, 3), b = bars_and_stripes_sampled(4, 20000, 3);
    CHECK(a.X == b.X);
    CHECK(!(a.X == bars_and_stripes_sampled(4, 20000, 4).X));
    Index empty = 0, one_pattern = 0;
    const std::string first_bar = row_key(bars_and_stripes(4).X, 1);  // mask 1: top row on
    for (Index r = 0; r < a.size(); ++r) {
        CHECK(is_bars_and_stripes(a.X.row(r).data(), 4));
        const std::string k = row_key(a.X, r);
        empty += k == std::string(16, '0');
        one_pattern += k == first_bar;
    }
    // P(empty) = 2 x 1/2 x 1/16 = 1/16, P(one given bar pattern) = 1/32; 5 standard errors.
    const double n = 20000, pe = 1.0 / 16, pb = 1.0 / 32;
    CHECK_NEAR(empty / n, pe, 5 * std::sqrt(pe * (1 - pe) / n));
    CHECK_NEAR(one_pattern / n, pb, 5 * std::sqrt(pb * (1 - pb) / n));
}

TEST_CASE("digits: 1797 embedded images of 8x8, values 0..16, labels 0..9, matching the shipped file") {
    const Dataset d = load_digits();
    CHECK(d.size() == 1797);
    CHECK(d.dim() == 64);
    CHECK(d.image_rows == 8 && d.image_cols == 8);
    CHECK(d.labels.size() == 1797);
    CHECK(d.X.minCoeff() == 0 && d.X.maxCoeff() == 16);
    // First row of the file: 0,0,5,13,9,1,0,0,... label 0; third row ends with label 2.
    CHECK(d.X(0, 2) == 5 && d.X(0, 3) == 13 && d.X(0, 4) == 9 && d.labels[0] == 0 && d.labels[2] == 2);
    std::set<int> labels(d.labels.begin(), d.labels.end());
    CHECK(labels.size() == 10 && *labels.begin() == 0 && *labels.rbegin() == 9);
    const Dataset f = load_dataset(std::string(RBMSCOPE_SOURCE_DIR) + "/resources/data/digits/digits.csv.gz");
    CHECK(f.X == d.X);
    CHECK(f.labels == d.labels);
}

TEST_CASE("one-pixel shifts: five copies, moved by one pixel, zero-filled") {
    Dataset d;
    d.X = RowMat(1, 9);
    d.X << 1, 2, 3, 4, 5, 6, 7, 8, 9;
    d.image_rows = d.image_cols = 3;
    d.labels = {4};
    const Dataset s = with_shifts(d);
    CHECK(s.size() == 5);
    RowMat expected(5, 9);
    expected << 1, 2, 3, 4, 5, 6, 7, 8, 9,  // original
        4, 5, 6, 7, 8, 9, 0, 0, 0,          // up
        0, 0, 0, 1, 2, 3, 4, 5, 6,          // down
        2, 3, 0, 5, 6, 0, 8, 9, 0,          // left
        0, 1, 2, 0, 4, 5, 0, 7, 8;          // right
    CHECK(s.X == expected);
    CHECK(s.labels == std::vector<int>(5, 4));
    const Dataset digits = with_shifts(load_digits());
    CHECK(digits.size() == 5 * 1797);
    Dataset flat;
    flat.X = RowMat::Zero(2, 3);
    CHECK_THROWS_WITH(with_shifts(flat), InputError, "image shape");
}

TEST_CASE("binarize, scale and standardize") {
    Dataset d = load_digits();
    Dataset b = d;
    binarize(b, 0.5);
    CHECK(((b.X.array() == 0) || (b.X.array() == 1)).all());
    CHECK(b.X(0, 2) == 0 && b.X(0, 3) == 1);  // 5 < 8 <= 13
    CHECK((b.X.array() == 1).count() == (d.X.array() >= 8).count());
    Dataset s = d;
    scale_to_unit(s);
    CHECK(s.X.maxCoeff() == 1.0 && s.X(0, 3) == 13.0 / 16.0);
    Dataset z = d;
    standardize(z);
    CHECK(z.X.colwise().mean().cwiseAbs().maxCoeff() < 1e-12);
    const Vec var = z.X.array().square().colwise().sum().transpose() / static_cast<double>(z.size() - 1);
    for (Index j = 0; j < 64; ++j) CHECK(std::fabs(var(j) - 1.0) < 1e-12 || var(j) == 0.0);
    CHECK_THROWS_WITH(binarize(d, 1.5), InputError, "(0, 1]");
}

TEST_CASE("IDX: images and labels read big-endian; malformed headers are refused with the file named") {
    const Dataset d = load_dataset(kDir + "tiny-images-idx3-ubyte");
    CHECK(d.size() == 3 && d.dim() == 6);
    CHECK(d.image_rows == 2 && d.image_cols == 3);
    CHECK(d.max_value == 255);
    CHECK(d.X(0, 5) == 50 && d.X(1, 0) == 255 && d.X(2, 5) == 6);
    CHECK((d.labels == std::vector<int>{7, 0, 9}));
    CHECK_THROWS_WITH(load_dataset(kDir + "absurd-images-idx3-ubyte"), InputError,
                      "absurd-images-idx3-ubyte: IDX image side 100000 is absurd");
    CHECK_THROWS_WITH(load_dataset(kDir + "truncated-images-idx3-ubyte"), InputError,
                      "claims 18 values but the file holds 10");
    CHECK_THROWS_WITH(parse_idx(std::string("\x00\x00\x08\x01\x00\x00\x00\x01\x05", 9), "", "x.idx"), InputError,
                      "x.idx: IDX header says 1 dimensions, expected 3");
    CHECK_THROWS_WITH(parse_idx("abcdefghijklmnopq", "", "y.idx"), InputError, "y.idx: not an unsigned-byte IDX file");
    CHECK_THROWS_WITH(parse_idx("ab", "", "z.idx"), InputError, "too short");
    // Found by fuzz_idx: a product beyond 2^63 was converted to long long for the message (UB).
    // The size is exact in 64 bits up to its largest possible value.
    CHECK_THROWS_WITH(
        parse_idx(std::string("\x00\x00\x08\x03\xe0\x00\x20\x9b\x00\x00\x9b\x00\x00\x00\xf9\x00\x00\x00\x01", 19), "",
                  "big.idx"),
        InputError, "big.idx: IDX header claims 9505606997963243520 values, more than the limit 268435456");
    CHECK_THROWS_WITH(
        parse_idx(std::string("\x00\x00\x08\x03\xff\xff\xff\xff\x00\x01\x00\x00\x00\x01\x00\x00", 16), "", "max.idx"),
        InputError, "claims 18446744069414584320 values");
    // Labels that do not match the images.
    const std::string img = read_file(kDir + "tiny-images-idx3-ubyte");
    CHECK_THROWS_WITH(parse_idx(img, std::string("\x00\x00\x08\x01\x00\x00\x00\x02\x01\x02", 10), "t"), InputError,
                      "2 labels for 3 images");
}

TEST_CASE("CSV: header detection, label column, blank lines; errors name file, line and column") {
    CsvOptions o;
    o.label_column = -2;
    const Dataset d = load_csv(kDir + "tiny.csv", o);
    CHECK(d.size() == 3 && d.dim() == 4);
    CHECK((d.labels == std::vector<int>{3, 7, 1}));
    CHECK(d.X(1, 2) == 0.5 && d.X(2, 0) == 0.25);
    CHECK(d.image_rows == 2 && d.image_cols == 2);  // 4 values: square
    CHECK_THROWS_WITH(load_csv(kDir + "broken-number.csv"), InputError,
                      "broken-number.csv: line 2, column 3: expected a finite number, got 'x'");
    CHECK_THROWS_WITH(load_csv(kDir + "ragged.csv"), InputError, "ragged.csv: line 2: expected 4 columns");
    CHECK_THROWS_WITH(parse_csv("", "e.csv"), InputError, "e.csv: no data rows");
    CHECK_THROWS_WITH(parse_csv("a,b\n", "h.csv"), InputError, "a header row but no data rows");
    CsvOptions l;
    l.label_column = 1;
    CHECK_THROWS_WITH(parse_csv("1,2.5\n", "l.csv", l), InputError, "a label must be an integer");
    CHECK_THROWS_WITH(parse_csv("1,2\n1,nan\n", "n.csv"), InputError, "expected a finite number");
    CHECK_THROWS_WITH(load_csv(kDir + "missing.csv"), InputError, "missing.csv");
}

TEST_CASE("CSV: a UTF-8 byte-order mark is skipped, so the first row stays data (issue #19)") {
    const Dataset d = parse_csv(
        "\xEF\xBB\xBF"
        "1,0,1\n0,1,0\n",
        "bom.csv");
    CHECK(d.size() == 2 && d.dim() == 3);
    CHECK(d.X(0, 0) == 1 && d.X(0, 1) == 0 && d.X(1, 1) == 1);
    // A header after the mark is still a header, and a mark elsewhere is still an error.
    const Dataset h = parse_csv(
        "\xEF\xBB\xBF"
        "a,b\n1,2\n",
        "bomh.csv");
    CHECK(h.size() == 1 && h.X(0, 1) == 2);
    CHECK_THROWS_WITH(parse_csv("1,2\n\xEF\xBB\xBF"
                                "3,4\n",
                                "mid.csv"),
                      InputError, "mid.csv: line 2, column 1: expected a finite number");
}

TEST_CASE("data specs: bars, digits, files, and clear errors") {
    CHECK(load_dataset("bars:3").size() == 14);
    CHECK(load_dataset("bars:3:50:2").size() == 50);
    CHECK(load_dataset("digits").size() == 1797);
    CHECK_THROWS_WITH(load_dataset("bars:x"), InputError, "the grid size D must be an integer");
    CHECK_THROWS_WITH(load_dataset("bars:3:0"), InputError, "count must be >= 1");
    CHECK_THROWS_WITH(load_dataset("nosuch.csv"), InputError, "no such file");
    CHECK_THROWS_WITH(load_dataset(kDir + "README.md"), InputError, "unknown format");
    CHECK_THROWS_WITH(gunzip("not gzip at all", "g.gz"), InputError, "g.gz: not valid gzip");
    const std::string gz = read_file(std::string(RBMSCOPE_SOURCE_DIR) + "/resources/data/digits/digits.csv.gz");
    CHECK_THROWS_WITH(gunzip(gz.substr(0, gz.size() / 2), "half.gz"), InputError, "half.gz");
}

TEST_CASE(".npz written by NumPy loads as a BRBM and its Gibbs samples follow the exact marginal") {
    const Model m = load_model(kDir + "model.npz");
    const Brbm* b = m.as<Brbm>();
    CHECK(b != nullptr);
    CHECK(b->W.rows() == 3 && b->W.cols() == 2);
    CHECK(b->W(0, 1) == -0.25 && b->W(1, 1) == 0.75 && b->b(2) == 0.3 && b->c(0) == -0.1);
    // Sample with Gibbs chains, compare the frequency of v = (1,1,1) with its exact probability.
    const Index chains = 20000;
    ChainRngs rngs(5, chains);
    RowMat V = initial_states(m, chains, rngs);
    for (int s = 0; s < 30; ++s) gibbs_sweep(m, V, rngs);
    RowMat ones = RowMat::Ones(1, 3);
    const double p = std::exp(m.log_unnorm(ones)(0) - exact_log_z(m));
    const double freq = static_cast<double>((V.rowwise().sum().array() == 3.0).count()) / chains;
    CHECK_NEAR(freq, p, 5 * std::sqrt(p * (1 - p) / chains));
    CHECK(p > 0.05);
}

RBM_TEST_MAIN

namespace {

// gzip (RFC 1952) of `bytes`, as gzip(1) and Debian's dataset packages write it.
std::string gzip_of(const std::string& bytes) {
    z_stream zs;
    std::memset(&zs, 0, sizeof zs);
    if (deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("deflateInit2");
    std::string out(deflateBound(&zs, static_cast<uLong>(bytes.size())) + 64, '\0');
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    zs.avail_in = static_cast<uInt>(bytes.size());
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    if (deflate(&zs, Z_FINISH) != Z_STREAM_END) throw std::runtime_error("deflate");
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}

std::string be32_bytes(std::uint32_t v) {
    return {static_cast<char>(v >> 24), static_cast<char>((v >> 16) & 0xff), static_cast<char>((v >> 8) & 0xff),
            static_cast<char>(v & 0xff)};
}

// An IDX images file: `count` images of rows x cols whose pixel k of image i is (7 i + k) mod 256.
std::string idx_images(std::uint32_t count, std::uint32_t rows, std::uint32_t cols) {
    std::string b = std::string("\x00\x00\x08\x03", 4) + be32_bytes(count) + be32_bytes(rows) + be32_bytes(cols);
    for (std::uint32_t i = 0; i < count; ++i)
        for (std::uint32_t k = 0; k < rows * cols; ++k) b.push_back(static_cast<char>((7 * i + k) % 256));
    return b;
}

std::string idx_labels(std::uint32_t count) {
    std::string b = std::string("\x00\x00\x08\x01", 4) + be32_bytes(count);
    for (std::uint32_t i = 0; i < count; ++i) b.push_back(static_cast<char>(i % 10));
    return b;
}

void write_bytes(const std::filesystem::path& p, const std::string& bytes) {
    std::ofstream f(p, std::ios::binary);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

TEST_CASE("IDX gzip-compressed: read as the plain file, labels beside it; truncated, short, long and bombs refused") {
    test::TempDir dir;
    const std::string img = idx_images(5, 4, 3), lab = idx_labels(5);
    write_bytes(dir.path / "small-images-idx3-ubyte.gz", gzip_of(img));
    write_bytes(dir.path / "small-labels-idx1-ubyte.gz", gzip_of(lab));
    const Dataset d = load_dataset((dir.path / "small-images-idx3-ubyte.gz").string());
    const Dataset plain = parse_idx(img, lab, "plain");
    CHECK(d.size() == 5 && d.dim() == 12 && d.image_rows == 4 && d.image_cols == 3 && d.max_value == 255);
    CHECK(d.X == plain.X);
    CHECK(d.X(2, 5) == 19);  // (7 * 2 + 5) mod 256
    CHECK((d.labels == std::vector<int>{0, 1, 2, 3, 4}));
    CHECK(inflate_idx(gzip_of(img), 3, "x") == img);

    // Truncated stream: every cut short of the end is refused, naming the file.
    const std::string gz = gzip_of(idx_images(40, 28, 28));
    for (std::size_t cut : {std::size_t(5), std::size_t(20), gz.size() / 2, gz.size() - 4, gz.size() - 1})
        CHECK_THROWS_WITH(inflate_idx(gz.substr(0, cut), 3, "cut.gz"), InputError, "cut.gz");
    CHECK_THROWS_WITH(inflate_idx(gz.substr(0, gz.size() - 4), 3, "cut.gz"), InputError, "ends early");
    // A payload shorter or longer than the header declares, as for the plain file.
    const std::string short_payload = idx_images(3, 2, 2).substr(0, 16 + 10);
    CHECK_THROWS_WITH(inflate_idx(gzip_of(short_payload), 3, "s.gz"), InputError,
                      "claims 12 values but the file holds 10");
    CHECK_THROWS_WITH(inflate_idx(gzip_of(idx_images(3, 2, 2) + "x"), 3, "l.gz"), InputError,
                      "claims 12 values but the file holds more");
    CHECK_THROWS_WITH(inflate_idx("\x1f\x8b not really", 3, "bad.gz"), InputError, "bad.gz");
    // A bomb: a header declaring 10000 images of 100 x 100 (100 MB) over a small compressed file is
    // refused from the header, before the payload is allocated or inflated, when it exceeds the budget.
    const std::string bomb = gzip_of(std::string("\x00\x00\x08\x03", 4) + be32_bytes(10000) + be32_bytes(100) +
                                     be32_bytes(100) + std::string(2000000, '\0'));
    CHECK(bomb.size() < 10000);
    set_memory_budget(std::uint64_t(1) << 20);
    CHECK_THROWS_WITH(inflate_idx(bomb, 3, "bomb.gz"), InputError,
                      "bomb.gz: inflating 100000000 IDX values needs 95.4 MiB, more than the memory budget (1.0 MiB)");
    set_memory_budget(0);
    // Within the budget, it inflates only what the header declares (2 MB of the stream) and finds it short.
    CHECK_THROWS_WITH(inflate_idx(bomb, 3, "bomb.gz"), InputError,
                      "claims 100000000 values but the file holds 2000000");
}

TEST_CASE("fashion-mnist: found where Debian installs it (here a test directory), clear message when absent") {
    test::TempDir dir;
    set_system_datasets_dir(dir.path);
    CHECK_THROWS_WITH(load_dataset("fashion-mnist"), InputError, "apt-get install dataset-fashion-mnist");
    CHECK_THROWS_WITH(load_dataset("fashion-mnist:test"), InputError, "t10k-images-idx3-ubyte.gz");
    CHECK_THROWS_WITH(load_dataset("fashion-mnist:valid"), InputError,
                      "expected fashion-mnist, fashion-mnist:train or fashion-mnist:test");
    std::filesystem::create_directories(dir.path / "fashion-mnist");
    write_bytes(dir.path / "fashion-mnist" / "t10k-images-idx3-ubyte.gz", gzip_of(idx_images(6, 28, 28)));
    write_bytes(dir.path / "fashion-mnist" / "t10k-labels-idx1-ubyte.gz", gzip_of(idx_labels(6)));
    write_bytes(dir.path / "fashion-mnist" / "train-images-idx3-ubyte.gz", gzip_of(idx_images(9, 28, 28)));
    const Dataset test = load_dataset("fashion-mnist:test");
    CHECK(test.size() == 6 && test.dim() == 784 && test.image_rows == 28 && test.labels.size() == 6);
    CHECK(test.name == "fashion-mnist test (6 images 28x28)");
    const Dataset train = load_dataset("fashion-mnist");
    CHECK(train.size() == 9 && train.labels.empty());
    CHECK(load_dataset("fashion-mnist:train").X == train.X);
    // A model recording it as its data finds it without a file of that name beside the model.
    TrainingData t;
    t.data = "fashion-mnist:test";
    t.binarize = 0.5;
    CHECK(load_training_data(t, dir.path).size() == 6);
    set_system_datasets_dir({});
    CHECK(system_datasets_dir() == std::filesystem::path(kSystemDatasetsDir));
}
