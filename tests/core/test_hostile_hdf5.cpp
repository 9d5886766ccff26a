// An .h5 model or a MATLAB v7.3 .mat (HDF5 inside) must make rbmscope read nothing outside the
// file: datasets with external raw storage, virtual datasets, external links,
// user-defined links and user-defined filters are refused before any data is read, with a
// message naming the dataset, and the contents of the file they point at appear nowhere in it.
// The files are written here with libhdf5's C API, pointing at files this test wrote.
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "check.hpp"
#include "core/io/model_io.hpp"
#include "core/io/named_arrays.hpp"
#include "test_files.hpp"

namespace fs = std::filesystem;
using namespace rbm;
using namespace rbm::test;

namespace {

const std::string kSecret = "TOPSECRET-rbmscope-35-do-not-leak";  // 33 bytes; the external file holds it

enum class Kind { ExternalStorage, Virtual, ExternalLink, ExternalLinkInGroup, UserFilter };

struct H5 {
    hid_t id;
    explicit H5(hid_t i) : id(i) { CHECK(i >= 0); }
};

// A file holding kSecret (and padding), the target of external storage.
fs::path write_secret(const fs::path& dir) {
    const fs::path p = dir / "secret.bin";
    std::ofstream(p, std::ios::binary) << kSecret << std::string(64 - kSecret.size(), 'x');
    return p;
}

// An HDF5 file whose dataset /W holds kSecret's bytes (as uint8), the source of a virtual
// dataset or the target of an external link.
fs::path write_source_h5(const fs::path& dir) {
    const fs::path p = dir / "source.h5";
    const hid_t f = H5Fcreate(p.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t n[1] = {kSecret.size()};
    const hid_t sp = H5Screate_simple(1, n, nullptr);
    const hid_t ds = H5Dcreate2(f, "W", H5T_NATIVE_UCHAR, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(H5Dwrite(ds, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, kSecret.data()) >= 0);
    H5Dclose(ds);
    H5Sclose(sp);
    H5Fclose(f);
    return p;
}

// An identity filter registered under a user-defined id while the file is written.
constexpr H5Z_filter_t kUserFilter = 31999;
size_t identity_filter(unsigned, size_t, const unsigned[], size_t nbytes, size_t*, void**) { return nbytes; }

// A model file whose matrix (`W` in an .h5, `vishid` in a v7.3 .mat) is of the given kind and
// whose biases are ordinary datasets. `external` is the file the matrix points at.
void write_hostile(const fs::path& path, bool mat73, Kind kind, const fs::path& external) {
    const std::string matrix = mat73 ? "vishid" : "W";
    const hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (mat73) H5Pset_userblock(fcpl, 512);
    const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    CHECK(f >= 0);
    H5Pclose(fcpl);
    const double ones[4] = {1, 1, 1, 1};
    const hsize_t d2[2] = {2, 2}, d1[1] = {2}, bytes[1] = {kSecret.size()};
    auto plain = [&](const char* name, int rank, const hsize_t* dims) {
        const hid_t sp = H5Screate_simple(rank, dims, nullptr);
        const hid_t ds = H5Dcreate2(f, name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, ones) >= 0);
        H5Dclose(ds);
        H5Sclose(sp);
    };
    plain(mat73 ? "visbiases" : "b", 1, d1);
    plain(mat73 ? "hidbiases" : "c", 1, d1);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    const hid_t sp = H5Screate_simple(2, d2, nullptr);
    switch (kind) {
        case Kind::ExternalStorage: {
            CHECK(H5Pset_external(dcpl, external.c_str(), 0, 32) >= 0);
            const hid_t ds = H5Dcreate2(f, matrix.c_str(), H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
            CHECK(ds >= 0);
            H5Dclose(ds);
            break;
        }
        case Kind::Virtual: {
            const hid_t src = H5Screate_simple(1, bytes, nullptr);
            const hsize_t start[2] = {0, 0}, count[2] = {2, 2};
            const hid_t vsp = H5Screate_simple(2, d2, nullptr);
            H5Sselect_hyperslab(vsp, H5S_SELECT_SET, start, nullptr, count, nullptr);
            const hsize_t s0[1] = {0}, c4[1] = {4};
            H5Sselect_hyperslab(src, H5S_SELECT_SET, s0, nullptr, c4, nullptr);
            CHECK(H5Pset_virtual(dcpl, vsp, external.c_str(), "/W", src) >= 0);
            const hid_t ds = H5Dcreate2(f, matrix.c_str(), H5T_NATIVE_UCHAR, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
            CHECK(ds >= 0);
            H5Dclose(ds);
            H5Sclose(vsp);
            H5Sclose(src);
            break;
        }
        case Kind::ExternalLink:
            CHECK(H5Lcreate_external(external.c_str(), "/W", f, matrix.c_str(), H5P_DEFAULT, H5P_DEFAULT) >= 0);
            break;
        case Kind::ExternalLinkInGroup: {
            plain(matrix.c_str(), 2, d2);
            const hid_t g = H5Gcreate2(f, "more", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            CHECK(H5Lcreate_external(external.c_str(), "/W", g, "elsewhere", H5P_DEFAULT, H5P_DEFAULT) >= 0);
            H5Gclose(g);
            break;
        }
        case Kind::UserFilter: {
            const H5Z_class2_t cls{H5Z_CLASS_T_VERS,       kUserFilter, 1,       1,
                                   "rbmscope test filter", nullptr,     nullptr, identity_filter};
            CHECK(H5Zregister(&cls) >= 0);
            const hsize_t chunk[2] = {2, 2};
            H5Pset_chunk(dcpl, 2, chunk);
            CHECK(H5Pset_filter(dcpl, kUserFilter, H5Z_FLAG_MANDATORY, 0, nullptr) >= 0);
            const hid_t ds = H5Dcreate2(f, matrix.c_str(), H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
            CHECK(ds >= 0);
            CHECK(H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, ones) >= 0);
            H5Dclose(ds);
            H5Zunregister(kUserFilter);
            break;
        }
    }
    H5Sclose(sp);
    H5Pclose(dcpl);
    H5Fclose(f);
    if (mat73) {  // MATLAB's 128-byte header in the user block: text, version 0x0200, 'IM'
        std::string head =
            "MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Fri Nov 27 17:00:00 2026 HDF5 schema 1.00 .";
        head.resize(116, ' ');
        head += std::string(8, '\0');
        head += std::string("\x00\x02IM", 4);
        std::FILE* out = std::fopen(path.c_str(), "r+b");
        CHECK(out != nullptr);
        std::fwrite(head.data(), 1, head.size(), out);
        std::fclose(out);
    }
}

std::string load_error(const fs::path& p) {
    return error_of([&] { (void)load_model(p); });
}
std::string list_error(const fs::path& p) {
    return error_of([&] { (void)list_model_arrays(p); });
}

const char* expected(Kind k) {
    switch (k) {
        case Kind::ExternalStorage: return ": HDF5 dataset stored outside the file (external storage) is refused";
        case Kind::Virtual: return ": HDF5 virtual dataset (data mapped from other datasets or files) is refused";
        case Kind::ExternalLink:
        case Kind::ExternalLinkInGroup: return ": HDF5 external link (to an object in another file) is refused";
        case Kind::UserFilter: return ": HDF5 dataset with filter 31999 (not one of libhdf5's own";
    }
    return "";
}

}  // namespace

TEST_CASE(
    "every kind of reading outside the file is refused, naming the dataset, in .h5 and v7.3 .mat, by load and list") {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    TempDir dir;
    const fs::path secret = write_secret(dir.path);
    const fs::path source = write_source_h5(dir.path);
    for (bool mat73 : {false, true}) {
        for (Kind k :
             {Kind::ExternalStorage, Kind::Virtual, Kind::ExternalLink, Kind::ExternalLinkInGroup, Kind::UserFilter}) {
            const fs::path p = dir.path / ("hostile-" + std::to_string(static_cast<int>(k)) + (mat73 ? ".mat" : ".h5"));
            write_hostile(p, mat73, k, k == Kind::ExternalStorage ? secret : source);
            const std::string name = k == Kind::ExternalLinkInGroup ? "more/elsewhere" : mat73 ? "vishid" : "W";
            for (const std::string& msg : {load_error(p), list_error(p)}) {
                CHECK_MSG(msg.rfind(p.string() + ": '" + name + "'" + expected(k), 0) == 0, p.filename()
                                                                                                << ": " << msg);
                CHECK_MSG(msg.find("rbmscope reads only what is inside the model file") != std::string::npos, msg);
                CHECK_MSG(msg.find("TOPSECRET") == std::string::npos, msg);
                CHECK_MSG(msg.find('\n') == std::string::npos, msg);
            }
        }
    }
}

TEST_CASE("the same file with its data inside loads (the checks refuse the kind, not HDF5)") {
    TempDir dir;
    const fs::path p = dir.path / "fine.h5";
    const hid_t f = H5Fcreate(p.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const double w[4] = {0.5, -0.5, 0.25, 1}, b[2] = {0.1, 0.2};
    const hsize_t d2[2] = {2, 2}, d1[1] = {2};
    auto put = [&](const char* name, int rank, const hsize_t* dims, const double* data, bool deflate) {
        const hid_t sp = H5Screate_simple(rank, dims, nullptr);
        const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        if (deflate) {  // libhdf5's own filters stay allowed
            H5Pset_chunk(dcpl, rank, dims);
            H5Pset_shuffle(dcpl);
            H5Pset_deflate(dcpl, 6);
            H5Pset_fletcher32(dcpl);
        }
        const hid_t ds = H5Dcreate2(f, name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        CHECK(H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
        H5Dclose(ds);
        H5Pclose(dcpl);
        H5Sclose(sp);
    };
    put("W", 2, d2, w, true);
    put("b", 1, d1, b, false);
    put("c", 1, d1, b, true);
    H5Lcreate_soft("/W", f, "alias", H5P_DEFAULT, H5P_DEFAULT);  // a soft link stays inside the file
    H5Fclose(f);
    const Model m = load_model(p);
    CHECK(m.kind() == ModelKind::Brbm);
    CHECK(std::get<Brbm>(m.params).W(1, 1) == 1.0);
}

TEST_CASE("external storage pointing at a FIFO is refused at once, without opening it") {
    TempDir dir;
    const fs::path fifo = dir.path / "fifo";
    CHECK(::mkfifo(fifo.c_str(), 0600) == 0);
    for (bool mat73 : {false, true}) {
        const fs::path p = dir.path / (mat73 ? "fifo.mat" : "fifo.h5");
        write_hostile(p, mat73, Kind::ExternalStorage, fifo);
        const auto t0 = std::chrono::steady_clock::now();
        const std::string msg = load_error(p);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        CHECK_MSG(msg.find(expected(Kind::ExternalStorage)) != std::string::npos, msg);
        // Reading would block until the child's time limit (60 s); refusing takes milliseconds.
        CHECK_MSG(seconds < 10, seconds << " s: " << msg);
    }
}

// With RBMSCOPE_HOSTILE_SEEDS=DIR, also writes each kind (pointing at files that do not exist) to
// DIR as seeds for fuzz_h5 and fuzz_mat (tests/data/fuzz/h5/, mat/: hostile-*), so the fuzzers
// start from them: `RBMSCOPE_HOSTILE_SEEDS=/tmp/seeds build/tests/test_hostile_hdf5`.
TEST_CASE("seeds for the fuzzers, when asked") {
    const char* out = std::getenv("RBMSCOPE_HOSTILE_SEEDS");
    if (!out) return;
    fs::create_directories(out);
    const char* names[] = {"external-storage", "virtual", "external-link", "external-link-in-group", "user-filter"};
    for (bool mat73 : {false, true})
        for (Kind k :
             {Kind::ExternalStorage, Kind::Virtual, Kind::ExternalLink, Kind::ExternalLinkInGroup, Kind::UserFilter}) {
            const fs::path p =
                fs::path(out) / (std::string("hostile-") + names[static_cast<int>(k)] + (mat73 ? ".mat" : ".h5"));
            write_hostile(p, mat73, k,
                          k == Kind::ExternalStorage ? "/nonexistent/rbmscope-secret" : "/nonexistent/source.h5");
            CHECK_MSG(load_error(p).find(expected(k)) != std::string::npos, p);
        }
}

RBM_TEST_MAIN
