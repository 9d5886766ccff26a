// Model files from MATLAB (.mat v5, v7.3) and HDF5 (.h5), the --map of array names and the
// transposed-W rule (docs/reference/model-files.md). Fixtures: tests/data/loaders/, written with the
// reference tools' conventions by tests/data/loaders/make_fixtures.cpp; their JSON twins give
// the same exact log Z to the last bit.
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "check.hpp"
#include "core/exact/exact.hpp"
#include "core/io/model_io.hpp"
#include "core/io/named_arrays.hpp"
#include "test_files.hpp"

namespace fs = std::filesystem;
using namespace rbm;
using namespace rbm::test;

namespace {

const fs::path kLoaders = fs::path(RBMSCOPE_TEST_DATA) / "loaders";

bool identical_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool same_params(const Model& a, const Model& b) {
    if (a.kind() != b.kind()) return false;
    if (const auto* x = a.as<Brbm>()) {
        const auto* y = b.as<Brbm>();
        return x->W == y->W && x->b == y->b && x->c == y->c;
    }
    if (const auto* x = a.as<Grbm>()) {
        const auto* y = b.as<Grbm>();
        return x->W == y->W && x->b == y->b && x->c == y->c && x->sigma == y->sigma &&
               x->hidden_values == y->hidden_values;
    }
    if (const auto* x = a.as<Leaky>()) {
        const auto* y = b.as<Leaky>();
        return x->W == y->W && x->b == y->b && x->c == y->c && x->leakiness == y->leakiness;
    }
    const auto* x = a.as<Gaussian>();
    const auto* y = b.as<Gaussian>();
    return x->mean == y->mean && x->cov == y->cov;
}

NpyArray array(std::vector<std::int64_t> shape, std::vector<double> data) {
    NpyArray a;
    a.shape = std::move(shape);
    a.data = std::move(data);
    return a;
}

// Everything written to stderr (fd 2) while f runs.
template <class F>
std::string stderr_of(F&& f) {
    const fs::path p = fs::temp_directory_path() / ("rbmscope-stderr-" + std::to_string(::getpid()));
    std::fflush(stderr);
    const int saved = ::dup(2);
    const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, 2);
    ::close(fd);
    f();
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
    std::ifstream in(p);
    std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    fs::remove(p);
    return s;
}

}  // namespace

TEST_CASE("reference-tool files give their JSON twin's exact log Z to the last bit") {
    for (const char* k : {"brbm", "grbm"}) {
        const std::string kind = k;
        const Model twin = load_model(kLoaders / (kind + ".json"));
        const double log_z = exact_log_z(twin);
        for (const std::string& f : {kind + "-v5.mat", kind + "-v73.mat", kind + ".h5"}) {
            const LoadedModel m = load_model_file(kLoaders / f, {});
            CHECK_MSG(same_params(m.model, twin), f);
            CHECK_MSG(identical_bits(exact_log_z(m.model), log_z), f);
            CHECK_MSG(m.warnings.empty(), f);
        }
    }
    // Hinton's files have no 'kind': a BRBM; the GRBM fixtures say kind = 'grbm' (a char array).
    CHECK(load_model(kLoaders / "brbm-v5.mat").kind() == ModelKind::Brbm);
    CHECK(load_model(kLoaders / "grbm-v73.mat").kind() == ModelKind::Grbm);
}

// Written by scipy 1.10 (Debian 12): W = arange(6).reshape(2, 3) / 10, b = zeros(2), c = zeros(3),
// kind = 'brbm', beside a struct `meta` (a 3 x 3 array and a cell of two strings) and a cell
// `cells` (a vector, a string, an empty matrix), with savemat(..., do_compression=True/False).
// The v5 layout checks (mat_file.cpp) must pass what a common writer produces.
TEST_CASE("scipy .mat files with a struct and a cell beside the model load, compressed or not") {
    for (const char* f : {"brbm-scipy-struct-cell.mat", "brbm-scipy-struct-cell-compressed.mat"}) {
        const Model m = load_model(kLoaders / f);
        const auto* r = m.as<Brbm>();
        CHECK_MSG(r && r->W.rows() == 2 && r->W.cols() == 3 && r->b.size() == 2 && r->c.size() == 3, f);
        if (!r || r->W.rows() != 2 || r->W.cols() != 3) continue;
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 3; ++j) CHECK_MSG(r->W(i, j) == (3 * i + j) / 10.0, f << " W(" << i << "," << j << ")");
        const auto names = list_model_arrays(kLoaders / f);
        CHECK_MSG(names.size() == 6, f << ": " << names.size() << " variables listed");
    }
}

TEST_CASE("--map names other arrays; a W stored hidden x visible is transposed and said so") {
    const Model twin = load_model(kLoaders / "brbm.json");
    ModelLoadOptions o;
    o.names = parse_array_map("W=weights,b=vbias,c=hbias");
    const LoadedModel m = load_model_file(kLoaders / "brbm-mapped.npz", o);
    CHECK(same_params(m.model, twin));
    CHECK(identical_bits(exact_log_z(m.model), exact_log_z(twin)));
    CHECK(m.warnings.size() == 1 && m.warnings[0].find("'W' was stored hidden x visible (3 x 5") != std::string::npos &&
          m.warnings[0].find("transposed") != std::string::npos);
    // Without the map the standard names are missing.
    CHECK_THROWS_WITH(load_model(kLoaders / "brbm-mapped.npz"), InputError, "brbm-mapped.npz: no 'W' array (W.npy)");
    // A map naming an array the file lacks lists what it has.
    o.names = parse_array_map("W=weight");
    CHECK_THROWS_WITH(load_model_file(kLoaders / "brbm-mapped.npz", o), InputError,
                      "--map W=weight: the file has no array 'weight' (it has 'weights', 'vbias', 'hbias')");
    // MATLAB's h5write stores n x m as (m, n).
    const LoadedModel t = load_model_file(kLoaders / "brbm-transposed.h5", {});
    CHECK(same_params(t.model, twin) && t.warnings.size() == 1);
    // Maps work on .mat too, over Hinton's names: swapped biases make vishid read as m x n.
    o.names = parse_array_map("b=hidbiases,c=visbiases");
    const LoadedModel s = load_model_file(kLoaders / "brbm-v5.mat", o);
    CHECK(s.warnings.size() == 1 && s.model.n_visible() == 3 && s.model.n_hidden() == 5);
}

TEST_CASE("transposition only when the biases decide it") {
    NamedArrays a;
    // Square W with b and c of one length: taken as stored, no warning.
    a.arrays["W"] = array({2, 2}, {1, 2, 3, 4});
    a.arrays["b"] = array({2}, {0.1, 0.2});
    a.arrays["c"] = array({2}, {0.3, 0.4});
    std::vector<std::string> w;
    Model m = model_from_named_arrays(a, "", &w);
    CHECK(w.empty() && m.as<Brbm>()->W(0, 1) == 2.0);
    // (3, 2) with b of 3 and c of 2: as stored.
    a.arrays["W"] = array({3, 2}, {1, 2, 3, 4, 5, 6});
    a.arrays["b"] = array({3}, {0, 0, 0});
    m = model_from_named_arrays(a, "", &w);
    CHECK(w.empty() && m.as<Brbm>()->W.rows() == 3 && m.as<Brbm>()->W(0, 1) == 2.0);
    // (2, 3) with b of 3 and c of 2: hidden x visible, transposed.
    a.arrays["W"] = array({2, 3}, {1, 2, 3, 4, 5, 6});
    m = model_from_named_arrays(a, "", &w);
    CHECK(w.size() == 1 && m.as<Brbm>()->W.rows() == 3 && m.as<Brbm>()->W(1, 0) == 2.0);
    // Only c given, its length the rows of W: transposed too.
    w.clear();
    a.arrays.erase("b");
    m = model_from_named_arrays(a, "", &w);
    CHECK(w.size() == 1 && m.as<Brbm>()->W.rows() == 3);
    // b and c of the same length with a non-square W: neither orientation fits; not guessed.
    w.clear();
    a.arrays["b"] = array({3}, {0, 0, 0});
    a.arrays["c"] = array({3}, {0, 0, 0});
    m = model_from_named_arrays(a, "", &w);
    CHECK(w.empty() && m.as<Brbm>()->W.rows() == 2);
    CHECK_THROWS_WITH(validate(m), InputError, "'b' has length 3, expected 2");
    // No biases: nothing to decide from.
    a.arrays.erase("b");
    a.arrays.erase("c");
    m = model_from_named_arrays(a, "", &w);
    CHECK(w.empty() && m.as<Brbm>()->W.rows() == 2);
}

TEST_CASE("--map text: pairs of a model name and an array name") {
    const ArrayNameMap m = parse_array_map("W=vishid,b=visbiases,c=hidbiases");
    CHECK(m.size() == 3 && m.at("W") == "vishid" && m.at("c") == "hidbiases");
    CHECK_THROWS_WITH(parse_array_map("W"), InputError, "--map: 'W' is not NAME=ARRAY");
    CHECK_THROWS_WITH(parse_array_map("X=vishid"), InputError,
                      "--map: unknown model name 'X' (expected one of W, b, c");
    CHECK_THROWS_WITH(parse_array_map("W="), InputError, "'W=' names no array");
    CHECK_THROWS_WITH(parse_array_map("W=a,W=b"), InputError, "'W' is mapped twice");
    CHECK_THROWS_WITH(parse_array_map(""), InputError, "expected NAME=ARRAY pairs");
    ModelLoadOptions o;
    o.names = m;
    CHECK_THROWS_WITH(load_model_file(kLoaders / "brbm.json", o), InputError, "a .json file has fixed names");
}

TEST_CASE("writers: .mat (v5, v7.3) and .h5 read back bit for bit, every kind") {
    const fs::path dir = fs::temp_directory_path() / ("rbmscope-containers-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::vector<Model> models = {load_model(kLoaders / "brbm.json"), load_model(kLoaders / "grbm.json")};
    Model leaky;
    Leaky l{Mat::Constant(2, 3, 0.125), Vec::Constant(2, 0.5), Vec::Constant(3, -0.25), 0.3};
    leaky.params = l;
    leaky.name = "a leaky one";
    models.push_back(leaky);
    Model gauss;
    gauss.params = Gaussian{Vec::Constant(2, 1.0 / 3.0), Mat::Identity(2, 2) * 2.0};
    gauss.notes = "notes survive";
    models.push_back(gauss);
    Grbm g3 = *models[1].as<Grbm>();
    g3.hidden_values = {-1.0, 0.0, 1.0};
    Model grbm3;
    grbm3.params = g3;
    models.push_back(grbm3);
    for (const Model& m : models) {
        for (const char* ext : {".mat", ".h5", ".hdf5"}) {
            const fs::path p = dir / (std::string("m") + ext);
            save_model(m, p);
            const Model back = load_model(p);
            CHECK_MSG(same_params(back, m) && back.name == m.name && back.notes == m.notes, kind_name(m.kind()) << ext);
        }
        write_mat_model(m, dir / "m73.mat", true);
        CHECK_MSG(same_params(load_model(dir / "m73.mat"), m), kind_name(m.kind()) << " v7.3");
    }
    // No temporary file is left beside the target.
    int files = 0;
    for (const auto& e : fs::directory_iterator(dir)) files += e.path().string().find(".tmp-") == std::string::npos;
    CHECK(files == 4);
    Model with_start = gauss;
    with_start.anneal_from = std::make_shared<const Model>(gauss);
    CHECK_THROWS_WITH(save_model(with_start, dir / "s.mat"), InputError,
                      "cannot be written as .mat (use .json or .npz)");
    CHECK(!fs::exists(dir / "s.mat"));
    fs::remove_all(dir);
}

TEST_CASE(".h5 variable-length strings are read from the file's bytes, the global heap checked first") {
    const Model brbm = load_model(kLoaders / "brbm.json");
    // h5py's layouts: `kind` a vlen attribute in a version 1 and a version 2 object header, and a
    // vlen string dataset.
    for (const char* f : {"brbm.h5", "brbm-latest.h5", "brbm-kind-dataset.h5"}) {
        const Model m = load_model(kLoaders / f);
        CHECK_MSG(m.kind() == ModelKind::Brbm && same_params(m, brbm), f);
    }
    CHECK(load_model(kLoaders / "grbm.h5").kind() == ModelKind::Grbm);  // the kind decides: grbm, not brbm
    // The heap object holding "grbm" (4 bytes): object 1 of the file's one collection. Its size
    // field is 16 bytes into the collection (signature, version, reserved, collection size) plus
    // 8 (index, references, reserved).
    const std::string good = slurp(kLoaders / "grbm.h5");
    const std::size_t gcol = good.find("GCOL");
    CHECK(gcol != std::string::npos && good.find("GCOL", gcol + 1) == std::string::npos);
    const std::size_t size_at = gcol + 16 + 8;
    auto with_size = [&](std::uint64_t n) {
        std::string b = good;
        std::memcpy(b.data() + size_at, &n, 8);  // little-endian, as the file format
        return b;
    };
    std::uint64_t stored = 0;
    std::memcpy(&stored, good.data() + size_at, 8);
    CHECK(stored == 4);
    CHECK(model_from_file_bytes(with_size(4), ".h5", "g.h5").kind() == ModelKind::Grbm);
    // libhdf5 1.10 would copy 2^49 bytes here (the crash fuzz_h5 found).
    CHECK_THROWS_WITH(model_from_file_bytes(with_size(std::uint64_t(1) << 49), ".h5", "g.h5"), InputError,
                      "g.h5: attribute 'kind' cannot be read: global heap object 1 claims 562949953421312 bytes, "
                      "more than its collection holds");
    // ... and 5 bytes into a 4-byte buffer.
    CHECK_THROWS_WITH(
        model_from_file_bytes(with_size(5), ".h5", "g.h5"), InputError,
        "attribute 'kind' cannot be read: its global heap object holds 5 bytes, the string's length says 4");
    std::string no_signature = good;
    no_signature[gcol] = 'X';
    CHECK_THROWS_WITH(model_from_file_bytes(no_signature, ".h5", "g.h5"), InputError,
                      "has no 'GCOL' version 1 signature");
}

TEST_CASE("bytes (the fuzz targets' path) and listing") {
    std::ifstream in(kLoaders / "grbm-v5.mat", std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(same_params(model_from_file_bytes(bytes, ".mat", "x.mat"), load_model(kLoaders / "grbm.json")));
    CHECK_THROWS_WITH(model_from_file_bytes(bytes.substr(0, 300), ".mat", "x.mat"), InputError,
                      "x.mat: the file is truncated or damaged");
    CHECK_THROWS_WITH(model_from_file_bytes(bytes, ".h5", "y.h5"), InputError, "y.h5: not an HDF5 file");
    const auto list = list_model_arrays(kLoaders / "brbm-v5.mat");
    CHECK(list.size() == 3 && list[0].name == "vishid" && list[0].shape == (std::vector<std::int64_t>{5, 3}) &&
          list[0].type == "double" && list[1].shape == (std::vector<std::int64_t>{1, 5}));
    const auto h5 = list_model_arrays(kLoaders / "grbm.h5");
    CHECK(h5.size() == 5 && h5[0].name == "W" && h5[0].shape == (std::vector<std::int64_t>{3, 4}) &&
          h5[0].type == "float64");
}

TEST_CASE("libmatio and libhdf5 print nothing on bad files; each gives its one-line message") {
    const fs::path bad = fs::path(RBMSCOPE_TEST_DATA) / "bad";
    const auto expected = read_corpus_manifest(bad);
    int mat = 0, h5 = 0;
    const std::string err = stderr_of([&] {
        for (const auto& [f, sub] : expected) {
            const std::string ext = fs::path(f).extension().string();
            if (ext != ".mat" && ext != ".h5") continue;
            mat += ext == ".mat";
            h5 += ext == ".h5";
            try {
                (void)load_model(bad / f);
            } catch (const InputError&) {
            }
        }
    });
    CHECK(mat >= 15 && h5 >= 15);
    CHECK_MSG(err.empty(), "stderr: " << err.substr(0, 400));
}

RBM_TEST_MAIN
