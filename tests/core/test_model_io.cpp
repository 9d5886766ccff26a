// Model files (docs/reference/model-files.md): JSON, .npz and .npy reading and writing, the bad-file corpus
// (tests/data/bad with its EXPECTED.tsv manifest), exact round trips and atomic writes (with the
// hooks that stop a writer at a chosen moment).
// The NumPy fixtures in tests/data/models were written by real NumPy (make_fixtures.py).
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "check.hpp"
#include "core/io/model_io.hpp"
#include "core/io/npy.hpp"
#include "core/io/presets.hpp"
#include "test_files.hpp"

namespace fs = std::filesystem;
using namespace rbm;
using namespace rbm::test;  // test_files.hpp

namespace {

const fs::path kData = RBMSCOPE_TEST_DATA;

// Random doubles that use all 53 mantissa bits, so a lossy printer or parser shows up.
struct Gen {
    std::mt19937_64 eng{20240521};
    double operator()(double scale = 1.0) { return scale * std::uniform_real_distribution<double>(-1, 1)(eng); }
    Mat mat(Index r, Index c, double scale = 1.0) {
        Mat m(r, c);
        for (Index i = 0; i < m.size(); ++i) m.data()[i] = (*this)(scale);
        return m;
    }
    Vec vec(Index n, double scale = 1.0) { return mat(n, 1, scale).col(0); }
};

Model sample_grbm(Gen& g) {
    Grbm p;
    p.W = g.mat(3, 2, 3.0);
    p.b = g.vec(3, 5.0);
    p.c = g.vec(2);
    p.c(1) = -0.0;  // the sign of zero must survive too
    p.sigma = (g.vec(3).cwiseAbs().array() + 0.1).matrix();
    p.hidden_values = {-1.0, 0.0, 1.0};
    Model m;
    m.params = p;
    m.name = "per-unit sigma, hidden values {-1,0,1}";
    m.notes = "line one\nline \"two\" with a tab\t and ünïcödé ✓ 😀";
    return m;
}

Model sample_brbm(Gen& g) {
    Brbm p{g.mat(4, 3, 10.0), g.vec(4), g.vec(3)};
    p.b(0) = 5e-324;  // the smallest subnormal
    p.b(1) = 1.0 / 3.0;
    p.b(2) = 0.1;
    p.c(0) = 1e300;
    Model m;
    m.params = p;
    return m;
}

Model sample_leaky(Gen& g) {
    Leaky p{g.mat(3, 2), g.vec(3), g.vec(2), 0.0};
    p.project(0.9);
    p.leakiness = 1.0 / 7.0;
    Model m;
    m.params = p;
    m.name = "leaky";
    return m;
}

Model sample_gaussian(Gen& g, Index n) {
    const Mat A = g.mat(n, n);
    Gaussian p{g.vec(n, 10.0), A * A.transpose() + Mat::Identity(n, n)};
    Model m;
    m.params = p;
    return m;
}

Model sample_gaussian_with_start(Gen& g) {
    Model m = sample_gaussian(g, 2);
    Model start = sample_gaussian(g, 2);
    start.name = "start";
    m.anneal_from = std::make_shared<const Model>(start);
    return m;
}

std::vector<Model> sample_models() {
    Gen g;
    return {sample_grbm(g), sample_brbm(g), sample_leaky(g), sample_gaussian(g, 3), sample_gaussian_with_start(g)};
}

// A .npy file with a hand-written header (padded to 64 bytes like numpy) and raw data.
std::string npy_file(const std::string& dict, const std::string& data, int major = 1) {
    std::string h = dict;
    const std::size_t pre = major == 1 ? 10 : 12;
    while ((pre + h.size() + 1) % 64 != 0) h += ' ';
    h += '\n';
    std::string out = std::string("\x93NUMPY", 6) + char(major) + '\0';
    for (std::size_t k = 0; k < (major == 1 ? 2u : 4u); ++k) out += char((h.size() >> (8 * k)) & 0xFF);
    return out + h + data;
}

std::string bytes_of(std::initializer_list<int> b) {
    std::string s;
    for (int x : b) s += static_cast<char>(x);
    return s;
}

}  // namespace

// ------------------------------------------------------------------ the bad-file corpus

TEST_CASE("corpus: every bad file fails with the message its manifest line expects") {
    const fs::path dir = kData / "bad";
    const std::map<std::string, std::string> expected = read_corpus_manifest(dir);
    // At least 25 broken files of each family.
    int json = 0, npz = 0, npy = 0;
    for (const auto& [f, sub] : expected) {
        const std::string ext = fs::path(f).extension().string();
        json += ext == ".json";
        npz += ext == ".npz";
        npy += ext == ".npy";
    }
    CHECK(json >= 25);
    CHECK(npz + npy >= 25);
    CHECK(npz >= 10 && npy >= 10);

    check_corpus_messages(dir, expected, [](const fs::path& p) { (void)load_model(p); });
}

TEST_CASE("json messages: the documented examples verbatim") {
    auto msg = [](const std::string& text) { return error_of([&] { (void)model_from_json_text(text, "m.json"); }); };
    CHECK(msg(R"({"kind":"brbm","W":[[1,2],[3,4]],"b":[0,0,0]})") ==
          "m.json: 'b' has length 3, expected 2 (one per visible unit, the rows of W)");
    CHECK(msg(R"({"kind":"brbm","W":[[1,2,3,4],[1,2,3,4],[1,2,3]]})") ==
          "m.json: 'W' row 2 has 3 numbers, expected 4 like row 0");
    CHECK(msg(R"({"kind":"grbm","W":[[1],[1]],"sigma":[1,-1]})")
              .rfind("m.json: 'sigma' must be > 0, but sigma[1] = -1", 0) == 0);
    CHECK(msg("{\"kind\": \"brbm\",\n \"W\": [[1]],\n \"b\"[0]}") ==
          "m.json: not valid JSON (line 3, column 5: syntax error while parsing object separator - unexpected '['; "
          "expected ':')");
    CHECK(msg(R"({"kind":"brbm","W":"[[1]]"})") == "m.json: 'W' must be an array of rows of numbers, got a string");
    CHECK(msg(R"({"kind":"xyz","W":[[1]]})") == "m.json: unknown kind 'xyz' (expected grbm, brbm, leaky or gaussian)");
    CHECK(msg("") == "m.json: file is empty");
    // Strings are not numbers, even when they spell one; null (NaN from other tools) is non-finite.
    CHECK(msg(R"({"kind":"brbm","W":[[1]],"c":["1"]})") == "m.json: 'c'[0] must be a number, got a string");
    CHECK(msg(R"({"kind":"brbm","W":[[1]],"c":[null]})").find("'c'[0] is null, i.e. a non-finite value") !=
          std::string::npos);
    CHECK(msg(R"({"kind":"grbm","W":[[1]],"hidden_values":[0, true]})") ==
          "m.json: 'hidden_values'[1] must be a number, got true/false");
    // A nested model's problems say where they are.
    CHECK(msg(R"({"kind":"gaussian","mean":[0],"cov":[[1]],"anneal_from":{"kind":"gaussian","mean":[0]}})") ==
          "m.json: in 'anneal_from': 'cov' is missing: a gaussian model needs 'cov' ([[n x n]])");
    CHECK(
        msg(R"({"kind":"gaussian","mean":[0],"cov":[[1]],"anneal_from":{"kind":"gaussian","mean":[0],"cov":[[1]],"anneal_from":{}}})")
            .find("'anneal_from' cannot itself have an 'anneal_from'") != std::string::npos);
}

// ------------------------------------------------------------------ valid fixtures

TEST_CASE("npz fixtures written by numpy load with their exact values") {
    const fs::path dir = kData / "models";
    {  // float32, Fortran order, kind as a 1-element '<U4' array: W[i,j] = (3i+j)/4 - 0.5
        const Model m = load_model(dir / "brbm-f32-fortran.npz");
        const auto* p = m.as<Brbm>();
        CHECK(p != nullptr);
        if (p) {
            CHECK(p->W.rows() == 2 && p->W.cols() == 3);
            for (Index i = 0; i < 2; ++i)
                for (Index j = 0; j < 3; ++j) CHECK(p->W(i, j) == (3.0 * i + j) / 4 - 0.5);
            CHECK(p->b(0) == 0.25 && p->b(1) == -0.5);
            CHECK(p->c(0) == 1 && p->c(1) == 2 && p->c(2) == 3);
        }
    }
    {  // 0-d '<U4' kind, int64 hidden values {-1,0,1}, per-unit sigma
        const Model m = load_model(dir / "grbm-hidden3.npz");
        const auto* p = m.as<Grbm>();
        CHECK(p != nullptr);
        if (p) {
            Mat W(3, 2);
            W << 0.1, -0.2, 1.0 / 3.0, 0.7, 2.5, -1.25;
            CHECK(same_bits(p->W, W));
            CHECK(same_bits(p->b, Vec((Vec(3) << 0.5, -1.0, 2.0).finished())));
            CHECK(same_bits(p->c, Vec((Vec(2) << -0.3, 0.4).finished())));
            CHECK(same_bits(p->sigma, Vec((Vec(3) << 1.0, 0.5, 2.0).finished())));
            CHECK(same_bits(p->hidden_values, std::vector<double>{-1.0, 0.0, 1.0}));
        }
        // The same model written by hand as JSON is bitwise the same model.
        Model j = load_model(dir / "grbm-hidden3.json");
        CHECK(j.name == "GRBM mit drei Zuständen ✓");
        j.name.clear();
        j.notes.clear();
        CHECK(same_model(m, j));
    }
    {  // no kind + 0-d leakiness -> leaky; deflate-compressed members; b defaults to zeros
        const Model m = load_model(dir / "leaky-inferred.npz");
        const auto* p = m.as<Leaky>();
        CHECK(p != nullptr);
        if (p) {
            CHECK(p->leakiness == 0.05);
            CHECK(p->W(2, 0) == -0.25 && p->W(1, 1) == 0.4);
            CHECK(p->b.size() == 3 && p->b.isZero(0));
            CHECK(p->c(0) == 0.5 && p->c(1) == -0.5);
        }
    }
    {  // no kind + sigma -> grbm with the default hidden values
        const Model m = load_model(dir / "grbm-inferred.npz");
        const auto* p = m.as<Grbm>();
        CHECK(p != nullptr);
        if (p) {
            CHECK(p->binary01());
            CHECK(p->sigma(0) == 0.5 && p->sigma(1) == 2.0);
            CHECK(p->W(0, 0) == 1.5 && p->W(1, 0) == -0.5);
            CHECK(p->b.isZero(0) && p->c.isZero(0) && p->c.size() == 1);
        }
    }
    {  // no kind -> brbm; int32 W, uint8 b, bool c; an unknown array is ignored
        const Model m = load_model(dir / "brbm-int-dtypes.npz");
        const auto* p = m.as<Brbm>();
        CHECK(p != nullptr);
        if (p) {
            Mat W(3, 2);
            W << 1, -2, 3, -4, 5, 6;
            CHECK(p->W == W);
            CHECK(p->b(0) == 0 && p->b(1) == 1 && p->b(2) == 255);
            CHECK(p->c(0) == 1 && p->c(1) == 0);
        }
    }
    {  // gaussian with anneal_from/ arrays and a unicode name
        const Model m = load_model(dir / "gaussian-anneal.npz");
        const auto* p = m.as<Gaussian>();
        CHECK(p != nullptr && m.anneal_from != nullptr);
        CHECK(m.name == "Zwei Gaußsche ✓");
        if (p && m.anneal_from) {
            CHECK(p->mean(0) == 10.0 && p->cov(0, 1) == 0.85);
            const auto* s = m.anneal_from->as<Gaussian>();
            CHECK(s != nullptr);
            if (s) CHECK(s->mean(0) == -10.0 && s->cov(1, 0) == -0.85);
        }
    }
}

TEST_CASE("lone .npy fixtures: W of a BRBM in every numpy encoding") {
    const fs::path dir = kData / "models";
    Mat W(3, 2);
    for (Index i = 0; i < 3; ++i)
        for (Index j = 0; j < 2; ++j) W(i, j) = double(i) - 2.0 * double(j) + 0.125;
    // v1.0 C order, big-endian, v2.0 Fortran order, v3.0
    for (const char* f : {"W.npy", "W-bigendian.npy", "W-v2.npy", "W-v3.npy"}) {
        const Model m = load_model(dir / f);
        const auto* p = m.as<Brbm>();
        CHECK_MSG(p != nullptr, f);
        if (!p) continue;
        CHECK_MSG(same_bits(p->W, W), f);
        CHECK_MSG(p->b.size() == 3 && p->b.isZero(0) && p->c.size() == 2 && p->c.isZero(0), f);
    }
    const Model m = load_model(dir / "W-int8.npy");
    CHECK(m.as<Brbm>() && m.as<Brbm>()->W(0, 0) == -128 && m.as<Brbm>()->W(0, 1) == 127 && m.as<Brbm>()->W(1, 1) == -1);
}

TEST_CASE("json fixtures: defaults for b, c, sigma, hidden_values, leakiness; unknown keys ignored") {
    const fs::path dir = kData / "models";
    const Model g = load_model(dir / "grbm-defaults.json");
    const auto* p = g.as<Grbm>();
    CHECK(p != nullptr);
    if (p) {
        CHECK(p->W.rows() == 3 && p->W.cols() == 2 && p->W(2, 1) == 6);
        CHECK(p->b.size() == 3 && p->b.isZero(0));
        CHECK(p->c.size() == 2 && p->c.isZero(0));
        CHECK(p->sigma.size() == 3 && (p->sigma.array() == 1.0).all());
        CHECK(p->binary01());
    }
    const Model l = load_model(dir / "leaky-bias.json");
    const auto* q = l.as<Leaky>();
    CHECK(q != nullptr);
    if (q) {
        CHECK(q->leakiness == 0.01);
        CHECK(q->b(0) == 1.5 && q->b(1) == -0.5);
        CHECK(q->c(1) == -1);
    }
    CHECK(l.name == "leaky with a visible bias");
}

TEST_CASE("json: unknown top-level keys are skipped whatever they hold; duplicate keys are refused where they count") {
    // Skipped unread: nesting, duplicates and wrong types inside an unknown key do not matter.
    const Model m = model_from_json_text(R"({"kind": "brbm", "extra": {"a": [1, {"b": 2, "b": 3}], "a": null},
        "W": [[1, 2]], "more": [[[["deep"]]]], "c": [0.5, -0.5], "x": 1e300, "name": "kept"})",
                                         "u.json");
    CHECK(m.name == "kept" && m.as<Brbm>() && m.as<Brbm>()->c(1) == -0.5);
    // A known key twice, at the top level or inside a known object, is refused naming it.
    CHECK_THROWS_WITH(model_from_json_text(R"({"kind": "brbm", "W": [[1]], "name": "a", "name": "b"})", "d.json"),
                      InputError, "d.json: key 'name' appears twice at the top level; a key may appear only once");
    CHECK_THROWS_WITH(
        model_from_json_text(R"({"kind": "brbm", "W": [[1]], "anneal_from": {"kind": "brbm", "W": [[1]], "W": [[2]]}})",
                             "n.json"),
        InputError, "key 'W' appears twice in 'anneal_from'");
    // A known key repeated after other keys.
    CHECK_THROWS_WITH(model_from_json_text(R"({"kind": "brbm", "W": [[1]], "kind": "grbm"})", "k.json"), InputError,
                      "key 'kind' appears twice");
}

// ------------------------------------------------------------------ round trips

TEST_CASE("json round trip is bitwise exact for every kind") {
    for (const Model& m : sample_models()) {
        validate(m);
        const std::string text = model_to_json_text(m);
        const Model back = model_from_json_text(text, "round trip");
        CHECK_MSG(same_model(m, back), kind_name(m.kind()));
        CHECK_MSG(model_to_json_text(back) == text, kind_name(m.kind()));
        CHECK(text.find("\"format\": \"rbmscope-model\"") != std::string::npos);
        CHECK(text.find("\"version\": 1") != std::string::npos);
    }
    // The leaky visible bias is written (our extension) rather than dropped.
    const Model leaky = sample_models()[2];
    CHECK(model_to_json_text(leaky).find("\"b\": ") != std::string::npos);
}

TEST_CASE("npz round trip is bitwise exact for every kind, through save_model and load_model") {
    TempDir tmp;
    int k = 0;
    for (const Model& m : sample_models()) {
        const fs::path p = tmp.path / ("m" + std::to_string(k++) + ".npz");
        save_model(m, p);
        const Model back = load_model(p);
        CHECK_MSG(same_model(m, back), kind_name(m.kind()));
        // json -> npz -> json gives the same text.
        CHECK(model_to_json_text(back) == model_to_json_text(m));
        const fs::path pj = tmp.path / ("m" + std::to_string(k++) + ".json");
        save_model(back, pj);
        CHECK(same_model(load_model(pj), m));
    }
    CHECK(tmp.entries().size() == 10u);  // no temporary files left behind
}

TEST_CASE("every preset loads, and round trips through json and npz") {
    TempDir tmp;
    const auto presets = list_presets();
    CHECK(presets.size() >= 4u);
    for (const auto& info : presets) {
        const Model m = load_preset(info.name);
        CHECK_MSG(m.name == info.title, info.name);
        CHECK(same_model(model_from_json_text(model_to_json_text(m)), m));
        save_model(m, tmp.path / (info.name + ".npz"));
        CHECK_MSG(same_model(load_model(tmp.path / (info.name + ".npz")), m), info.name);
    }
    const Model two = load_preset("two-gaussians");
    CHECK(two.anneal_from != nullptr);
    if (two.anneal_from) CHECK(two.anneal_from->as<Gaussian>() && two.anneal_from->as<Gaussian>()->mean(0) == -10.0);
}

// ------------------------------------------------------------------ .npy details

TEST_CASE("npy writer: numpy's header layout and an exact read back") {
    Gen g;
    const Mat W = g.mat(2, 3);
    const std::string bytes = write_npy(W);
    CHECK(bytes.compare(0, 8, std::string("\x93NUMPY\x01\x00", 8)) == 0);
    const std::size_t hlen = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    CHECK((10 + hlen) % 64 == 0);  // numpy aligns the data to 64 bytes
    CHECK(bytes[10 + hlen - 1] == '\n');
    CHECK(bytes.find("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }") == 10);
    CHECK(bytes.size() == 10 + hlen + 6 * 8);
    const NpyArray a = parse_npy(bytes, "W");
    CHECK(a.shape == (std::vector<std::int64_t>{2, 3}) && !a.is_string && a.size() == 6);
    for (Index i = 0; i < 2; ++i)
        for (Index j = 0; j < 3; ++j) CHECK(same_bits(a.data[static_cast<std::size_t>(i * 3 + j)], W(i, j)));

    const Vec v = g.vec(5);
    const NpyArray av = parse_npy(write_npy(v), "v");
    CHECK(av.shape == std::vector<std::int64_t>{5});
    CHECK(write_npy(v).find("'shape': (5,), }") != std::string::npos);
    for (Index i = 0; i < 5; ++i) CHECK(same_bits(av.data[static_cast<std::size_t>(i)], v(i)));

    const NpyArray s = parse_npy(write_npy_scalar(-0.0), "s");
    CHECK(s.shape.empty() && s.size() == 1 && same_bits(s.data[0], -0.0));

    const std::vector<std::string> strs = {"grbm", "", "Gauß ✓ 😀"};
    const std::string sb = write_npy_strings(strs);
    CHECK(sb.find("'descr': '<U8'") != std::string::npos);  // 8 code points, not 14 UTF-8 bytes
    const NpyArray as = parse_npy(sb, "kind");
    CHECK(as.is_string && as.strings == strs && as.shape == std::vector<std::int64_t>{3});
}

TEST_CASE("npy reader: every supported dtype, byte order and Fortran order") {
    auto one = [](const std::string& descr, const std::string& data, const std::string& shape = "(1,)") {
        return parse_npy(npy_file("{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }", data),
                         "x");
    };
    CHECK(one("<f8", bytes_of({0, 0, 0, 0, 0, 0, 0xF0, 0xBF})).data[0] == -1.0);
    CHECK(one(">f8", bytes_of({0x40, 0x09, 0x21, 0xFB, 0x54, 0x44, 0x2D, 0x18})).data[0] == 3.141592653589793);
    CHECK(one("<f4", bytes_of({0, 0, 0xC0, 0x3F})).data[0] == 1.5);
    CHECK(one(">f4", bytes_of({0x3F, 0xC0, 0, 0})).data[0] == 1.5);
    CHECK(one("|i1", bytes_of({0xFE})).data[0] == -2);
    CHECK(one("|u1", bytes_of({0xFE})).data[0] == 254);
    CHECK(one("<i2", bytes_of({0x00, 0x80})).data[0] == -32768);
    CHECK(one("<u2", bytes_of({0x00, 0x80})).data[0] == 32768);
    CHECK(one(">i4", bytes_of({0xFF, 0xFF, 0xFF, 0xFD})).data[0] == -3);
    CHECK(one("<i8", bytes_of({0xFB, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF})).data[0] == -5);
    CHECK(one("|b1", bytes_of({1})).data[0] == 1);
    const NpyArray u = one(">U3", bytes_of({0, 0, 0, 'a', 0, 0, 0x00, 0xDF, 0, 0, 0, 0}));
    CHECK(u.is_string && u.strings[0] == "aß");
    CHECK(one("|S4", "leak").strings[0] == "leak");
    // 0-d, empty and Python-2 shapes
    CHECK(one("<f8", bytes_of({0, 0, 0, 0, 0, 0, 0xF0, 0x3F}), "()").shape.empty());
    CHECK(one("<f8", "", "(0, 3)").size() == 0);
    CHECK(one("<f8", std::string(48, '\0'), "(2L, 3L)").shape == (std::vector<std::int64_t>{2, 3}));
    // Fortran order: column after column in the file, row-major in memory.
    std::string data;
    for (double x : {1.0, 4.0, 2.0, 5.0, 3.0, 6.0}) data.append(reinterpret_cast<const char*>(&x), 8);
    const NpyArray f = parse_npy(npy_file("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", data), "f");
    CHECK(f.data == (std::vector<double>{1, 2, 3, 4, 5, 6}));
    // Header with double quotes and no trailing comma, version 2.0
    const NpyArray v2 = parse_npy(npy_file("{\"descr\": \"<f8\", \"shape\": (1,), \"fortran_order\": False}",
                                           bytes_of({0, 0, 0, 0, 0, 0, 0, 0x40}), 2),
                                  "v2");
    CHECK(v2.data[0] == 2.0);
}

TEST_CASE("npy reader: malformed headers are refused with a named reason") {
    const std::string ok = write_npy(Vec(Vec::Ones(2)));
    auto msg = [](const std::string& bytes) { return error_of([&] { (void)parse_npy(bytes, "a.npy"); }); };
    std::string v11 = ok;
    v11[7] = 1;
    CHECK(msg(v11).find("a.npy: unsupported .npy format version 1.1") == 0);
    std::string longer = ok;
    longer[9] = 0x7F;  // header length 0x7F76 (little-endian) > file
    CHECK_MSG(msg(longer).find("the header claims 32630 bytes but only 134 follow") != std::string::npos, msg(longer));
    std::string huge = npy_file("", "", 2);
    huge[8] = 0;
    huge[9] = 0;
    huge[10] = 0;
    huge[11] = 0x10;  // 256 MiB header
    CHECK(msg(huge).find("more than the limit 1048576") != std::string::npos);
    CHECK(msg(npy_file("{'descr': '|f8', 'fortran_order': False, 'shape': (1,), }", std::string(8, '\0')))
              .find("no byte order") != std::string::npos);
    CHECK(
        msg(npy_file("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", std::string(8, '\0')))
            .find("lists 'descr' twice") != std::string::npos);
    CHECK(msg(npy_file("{'descr': '<U1', 'fortran_order': False, 'shape': (1,), }", bytes_of({0, 0xD8, 0, 0})))
              .find("invalid code point") != std::string::npos);
    CHECK(msg(npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), } x", std::string(8, '\0')))
              .find("expected the end of the header") != std::string::npos);
    CHECK(msg(std::string("\x93NUMPY", 6)).find("ends inside the version") != std::string::npos);
    CHECK(msg("").find("file is empty") != std::string::npos);
    // Shapes whose element count overflows 64 bits are still refused by the limit check.
    CHECK(msg(npy_file(
                  "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999, 99999999999999999999), }",
                  ""))
              .find("more than the limit 2^28") != std::string::npos);
    CHECK(msg(npy_file("{'descr': '<U9999999', 'fortran_order': False, 'shape': (100,), }", ""))
              .find("bytes, more than the limit") != std::string::npos);
}

// ------------------------------------------------------------------ files

TEST_CASE("load_model and save_model: extensions, unreadable paths, invalid models") {
    TempDir tmp;
    const Model m = sample_models()[1];
    CHECK_THROWS_WITH(save_model(m, tmp.path / "m.txt"), InputError,
                      "unknown extension '.txt' (expected .json or .npz)");
    CHECK_THROWS_WITH(save_model(m, tmp.path / "m.npy"), InputError, "expected .json or .npz");
    CHECK_THROWS_WITH(load_model(tmp.path / "absent.json"), InputError, "cannot read");
    CHECK_THROWS_WITH(load_model(tmp.path / "absent.json"), InputError, "No such file or directory");
    CHECK_THROWS_WITH(read_file(tmp.path), InputError, "it is a directory");
    Model bad = m;
    bad.as<Brbm>()->W(0, 0) = std::nan("");
    CHECK_THROWS_WITH(save_model(bad, tmp.path / "bad.json"), InputError, "cannot save the model to");
    CHECK_THROWS_WITH(save_model(bad, tmp.path / "bad.json"), InputError, "'W' contains a non-finite value");
    CHECK(tmp.entries().empty());
    // Extensions are matched case-insensitively.
    save_model(m, tmp.path / "UPPER.JSON");
    CHECK(same_model(load_model(tmp.path / "UPPER.JSON"), m));
}

TEST_CASE("atomic write: replacing a file keeps a valid file, its permissions and no temporaries") {
    TempDir tmp;
    const fs::path p = tmp.path / "m.json";
    const auto models = sample_models();
    save_model(models[0], p);
    fs::permissions(p, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    save_model(models[1], p);
    CHECK(same_model(load_model(p), models[1]));
    CHECK(fs::status(p).permissions() == (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
    CHECK(tmp.entries() == std::set<std::string>{"m.json"});
    write_file_atomically(p, "");
    CHECK(fs::file_size(p) == 0u);
}

TEST_CASE("atomic write: a failing write throws and leaves the previous file intact") {
    TempDir tmp;
    const fs::path p = tmp.path / "m.json";
    const Model old = sample_models()[2];
    save_model(old, p);
    const std::string before = slurp(p);

    // A path in a missing directory: nothing is created.
    const fs::path missing = tmp.path / "no-such-dir" / "m.json";
    CHECK_THROWS_WITH(save_model(old, missing), InputError, missing.string().c_str());
    CHECK_THROWS_WITH(write_file_atomically(missing, "x"), InputError, "No such file or directory");
    CHECK(!fs::exists(tmp.path / "no-such-dir"));

    // The target is a directory.
    fs::create_directory(tmp.path / "dir.json");
    CHECK_THROWS_WITH(save_model(old, tmp.path / "dir.json"), InputError, "it is a directory");

    // The disk "fills up" in the middle of the write (a file-size limit makes write() fail with
    // EFBIG even for root): the old file must survive and the temporary must be gone.
    rlimit saved{};
    CHECK(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
    auto* old_handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit small = saved;
    small.rlim_cur = 4096;
    CHECK(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    const std::string err = error_of([&] { write_file_atomically(p, std::string(100000, 'x')); });
    CHECK(::setrlimit(RLIMIT_FSIZE, &saved) == 0);
    std::signal(SIGXFSZ, old_handler);
    CHECK_MSG(err.find("cannot write '" + p.string() + "': writing: File too large") == 0, err);
    CHECK(err.find("the previous file, if any, is unchanged") != std::string::npos);
    CHECK(slurp(p) == before);
    CHECK(same_model(load_model(p), old));
    CHECK((tmp.entries() == std::set<std::string>{"m.json", "dir.json"}));

    // A directory we may not write into (root ignores permission bits, so only as a normal user).
    if (::geteuid() != 0) {
        fs::permissions(tmp.path, fs::perms::owner_read | fs::perms::owner_exec);
        CHECK_THROWS_WITH(save_model(sample_models()[0], p), InputError, "Permission denied");
        fs::permissions(tmp.path, fs::perms::owner_all);
        CHECK(slurp(p) == before);
    } else {
        std::printf("  (running as root: the read-only directory case is not testable here)\n");
    }
}

TEST_CASE("atomic write hooks: a test can stop the writer inside the write and after the rename") {
    TempDir tmp;
    const fs::path p = tmp.path / "m.json";
    write_file_atomically(p, "old");
    const std::string bytes(200000, 'n');
    // Inside the write: a temporary of our name pattern holding exactly the first 64 KiB, the
    // target untouched. After the rename: the target complete, the temporary gone.
    int chunks = 0, renames = 0;
    std::string seen_tmp, writing = bytes;
    AtomicWriteHooks hooks;
    hooks.after_first_chunk = [&](const std::string& temporary) {
        ++chunks;
        seen_tmp = temporary;
        const std::string name = fs::path(temporary).filename().string();
        CHECK_MSG(name.size() == std::strlen("m.json.tmp-") + 16 && name.rfind("m.json.tmp-", 0) == 0, name);
        CHECK(fs::file_size(temporary) == 65536u);
        CHECK(slurp(p) == "old");
    };
    hooks.after_rename = [&](const std::string& target) {
        ++renames;
        CHECK(target == p.string());
        CHECK(slurp(p) == writing);
        CHECK(!fs::exists(seen_tmp));
    };
    set_atomic_write_hooks_for_testing(hooks);
    write_file_atomically(p, bytes);
    CHECK(chunks == 1 && renames == 1);
    CHECK(slurp(p) == bytes);
    // Shorter than a chunk: nothing to stop between, only the rename is announced.
    writing = "short";
    write_file_atomically(p, writing);
    CHECK(chunks == 1 && renames == 2);

    // A hook that throws inside the write is a failed write: the exception reaches the caller,
    // the previous file is unchanged and the temporary is removed.
    hooks.after_first_chunk = [&](const std::string&) { throw InputError("simulated crash inside the write"); };
    set_atomic_write_hooks_for_testing(hooks);
    CHECK_THROWS_WITH(write_file_atomically(p, bytes), InputError, "simulated crash inside the write");
    CHECK(slurp(p) == "short");
    CHECK(tmp.entries() == std::set<std::string>{"m.json"});
    CHECK(renames == 2);

    // Removed: later writes call nothing.
    set_atomic_write_hooks_for_testing(AtomicWriteHooks{});
    write_file_atomically(p, bytes);
    CHECK(chunks == 1 && renames == 2);
    CHECK(slurp(p) == bytes);
}

RBM_TEST_MAIN
