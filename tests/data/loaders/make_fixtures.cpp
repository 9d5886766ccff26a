// Writes the model-file fixtures of tests/data/loaders/ and the .mat/.h5 entries of the bad-file
// corpus tests/data/bad/ (docs/reference/model-files.md). The files are committed; run this only to remake them:
//     cmake --build build --target make_loader_fixtures && build/tests/make_loader_fixtures tests/data
// Good files follow the reference tools' conventions, written with the libraries directly (not
// with rbmscope's writers): Hinton & Salakhutdinov's MATLAB names (vishid n x m, visbiases 1 x n,
// hidbiases 1 x m) in .mat v5 and v7.3; h5py's layout (C order, `kind` a string attribute) in .h5;
// a .npz with other names and W stored m x n (hidden x visible).
#include <hdf5.h>
#include <matio.h>
#include <zip.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "core/io/model_io.hpp"
#include "core/io/npy.hpp"

namespace fs = std::filesystem;
using namespace rbm;

namespace {

fs::path g_good, g_bad;

void die(const std::string& what) {
    std::cerr << "make_fixtures: " << what << "\n";
    std::exit(1);
}

// The two models: numbers with no short decimal form, so a lossy path would show.
Model brbm_model() {
    Brbm p;
    p.W.resize(5, 3);
    for (Index i = 0; i < 5; ++i)
        for (Index j = 0; j < 3; ++j) p.W(i, j) = std::sin(1.0 + 3.0 * double(i) + double(j)) * 1.3;
    p.b = Vec(5);
    p.c = Vec(3);
    for (Index i = 0; i < 5; ++i) p.b(i) = std::cos(2.0 + double(i)) * 0.7;
    for (Index j = 0; j < 3; ++j) p.c(j) = std::sin(0.5 * double(j) - 1.0) * 0.9;
    Model m;
    m.params = p;
    return m;
}

Model grbm_model() {
    Grbm p;
    p.W.resize(3, 4);
    for (Index i = 0; i < 3; ++i)
        for (Index j = 0; j < 4; ++j) p.W(i, j) = std::cos(0.3 + 1.7 * double(i) + 0.9 * double(j)) * 0.8;
    p.b = Vec(3);
    p.c = Vec(4);
    p.sigma = Vec(3);
    for (Index i = 0; i < 3; ++i) {
        p.b(i) = std::sin(double(i) + 0.25);
        p.sigma(i) = 0.6 + 0.25 * double(i) + 1.0 / 3.0;
    }
    for (Index j = 0; j < 4; ++j) p.c(j) = std::cos(double(j) * 1.1) * 0.5;
    p.hidden_values = {0.0, 1.0};
    Model m;
    m.params = p;
    return m;
}

// ---------------------------------------------------------------- MATLAB

std::vector<double> column_major(const Mat& m) {
    std::vector<double> out;
    for (Index j = 0; j < m.cols(); ++j)
        for (Index i = 0; i < m.rows(); ++i) out.push_back(m(i, j));
    return out;
}

class MatWriter {
public:
    MatWriter(const fs::path& p, bool v73) {
        mat_ = Mat_CreateVer(p.c_str(), nullptr, v73 ? MAT_FT_MAT73 : MAT_FT_MAT5);
        if (!mat_) die("cannot create " + p.string());
    }
    ~MatWriter() { Mat_Close(mat_); }
    void var(const char* name, matio_classes cls, matio_types type, std::vector<size_t> dims, void* data,
             int opt = MAT_F_DONT_COPY_DATA) {
        matvar_t* v = Mat_VarCreate(name, cls, type, static_cast<int>(dims.size()), dims.data(), data, opt);
        if (!v || Mat_VarWrite(mat_, v, MAT_COMPRESSION_NONE) != 0) die(std::string("cannot write ") + name);
        Mat_VarFree(v);
    }
    void doubles(const char* name, size_t rows, size_t cols, std::vector<double> d) {
        var(name, MAT_C_DOUBLE, MAT_T_DOUBLE, {rows, cols}, d.data());
    }
    void matrix(const char* name, const Mat& m) { doubles(name, size_t(m.rows()), size_t(m.cols()), column_major(m)); }
    void row(const char* name, const Vec& v) { doubles(name, 1, size_t(v.size()), {v.data(), v.data() + v.size()}); }
    void text(const char* name, std::string s) { var(name, MAT_C_CHAR, MAT_T_UINT8, {1, s.size()}, s.data()); }
    mat_t* get() { return mat_; }

private:
    mat_t* mat_;
};

// Hinton & Salakhutdinov's names; visbiases and hidbiases are 1 x n rows as their code keeps them.
void write_hinton(const fs::path& p, const Model& m, bool v73) {
    MatWriter w(p, v73);
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, Brbm> || std::is_same_v<T, Grbm>) {
                w.matrix("vishid", x.W);
                w.row("visbiases", x.b);
                w.row("hidbiases", x.c);
                if constexpr (std::is_same_v<T, Grbm>) {
                    w.row("sigma", x.sigma);
                    w.text("kind", "grbm");
                }
            }
        },
        m.params);
}

// ---------------------------------------------------------------- HDF5

class H5Writer {
public:
    // latest: h5py's libver='latest' (version 2 object headers, "OHDR").
    explicit H5Writer(const fs::path& p, bool latest = false) {
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
        hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        if (latest) H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
        f_ = H5Fcreate(p.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        H5Pclose(fapl);
        if (f_ < 0) die("cannot create " + p.string());
    }
    ~H5Writer() { H5Fclose(f_); }
    hid_t get() const { return f_; }
    // A dataset of `type` with C-order data (h5py's layout), or none written when data is null.
    void dataset(const char* name, hid_t type, std::vector<hsize_t> dims, const void* data, hid_t mem = -1,
                 bool chunked = false) {
        hid_t space = H5Screate_simple(int(dims.size()), dims.data(), nullptr);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        if (chunked) {
            std::vector<hsize_t> chunk(dims.size(), 64);
            H5Pset_chunk(dcpl, int(dims.size()), chunk.data());
        }
        hid_t ds = H5Dcreate2(f_, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        if (ds < 0) die(std::string("cannot create dataset ") + name);
        if (data && H5Dwrite(ds, mem < 0 ? type : mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
            die(std::string("cannot write dataset ") + name);
        H5Dclose(ds);
        H5Pclose(dcpl);
        H5Sclose(space);
    }
    void doubles(const char* name, std::vector<hsize_t> dims, const std::vector<double>& d) {
        dataset(name, H5T_IEEE_F64LE, dims, d.data(), H5T_NATIVE_DOUBLE);
    }
    void matrix(const char* name, const Mat& m) {
        const RowMat r = m;
        doubles(name, {hsize_t(m.rows()), hsize_t(m.cols())}, {r.data(), r.data() + r.size()});
    }
    void vector(const char* name, const Vec& v) { doubles(name, {hsize_t(v.size())}, {v.data(), v.data() + v.size()}); }
    // As h5py writes f.attrs['kind'] = 'grbm': a scalar variable-length UTF-8 string.
    void attr(const char* name, const std::string& s) {
        hid_t type = H5Tcopy(H5T_C_S1);
        H5Tset_size(type, H5T_VARIABLE);
        H5Tset_cset(type, H5T_CSET_UTF8);
        hid_t space = H5Screate(H5S_SCALAR);
        hid_t a = H5Acreate2(f_, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
        const char* p = s.c_str();
        if (a < 0 || H5Awrite(a, type, &p) < 0) die(std::string("cannot write attribute ") + name);
        H5Aclose(a);
        H5Sclose(space);
        H5Tclose(type);
    }

private:
    hid_t f_;
};

void write_h5py(const fs::path& p, const Model& m, bool latest = false) {
    H5Writer w(p, latest);
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, Brbm> || std::is_same_v<T, Grbm>) {
                w.attr("kind", kind_name(m.kind()));
                w.matrix("W", x.W);
                w.vector("b", x.b);
                w.vector("c", x.c);
                if constexpr (std::is_same_v<T, Grbm>) {
                    w.vector("sigma", x.sigma);
                    w.vector("hidden_values", Eigen::Map<const Vec>(x.hidden_values.data(), Index(x.hidden_values.size())));
                }
            }
        },
        m.params);
}

// ---------------------------------------------------------------- npz

void write_npz(const fs::path& p, const std::vector<std::pair<std::string, std::string>>& members) {
    int err = 0;
    fs::remove(p);
    zip_t* z = zip_open(p.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
    if (!z) die("cannot create " + p.string());
    for (const auto& [name, bytes] : members) {
        zip_source_t* s = zip_source_buffer(z, bytes.data(), bytes.size(), 0);
        const zip_int64_t i = zip_file_add(z, name.c_str(), s, ZIP_FL_ENC_UTF_8);
        if (i < 0) die("cannot add " + name);
        zip_set_file_compression(z, zip_uint64_t(i), ZIP_CM_STORE, 0);
    }
    if (zip_close(z) != 0) die("cannot write " + p.string());
}

// ---------------------------------------------------------------- helpers for broken files

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void spit(const fs::path& p, const std::string& s) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(s.data(), std::streamsize(s.size()));
}
// The first variable of an uncompressed v5 file: 128-byte header, miMATRIX tag (8), array
// flags (16), dimensions tag (8), then its int32 dimensions.
constexpr std::size_t kV5FirstDims = 128 + 8 + 16 + 8;
void put_i32(std::string& s, std::size_t at, std::int32_t v) { std::memcpy(&s[at], &v, 4); }

void bad_mat_files() {
    const Model brbm = brbm_model();
    const Brbm& p = *brbm.as<Brbm>();
    const std::string good = slurp(g_good / "brbm-v5.mat");
    spit(g_bad / "mat-truncated.mat", good.substr(0, 300));
    spit(g_bad / "mat-truncated-v73.mat", slurp(g_good / "brbm-v73.mat").substr(0, 1500));
    spit(g_bad / "mat-garbage.mat", std::string("this is not a MATLAB file, just text that goes on for a while.\n") +
                                        std::string(200, 'x'));
    spit(g_bad / "empty.mat", "");
    {  // vishid's dimensions rewritten larger than its data
        std::string s = good;
        put_i32(s, kV5FirstDims, 50);
        spit(g_bad / "mat-lying-dims.mat", s);
        put_i32(s, kV5FirstDims, 1 << 20);
        put_i32(s, kV5FirstDims + 4, 1 << 20);
        spit(g_bad / "mat-huge-dims.mat", s);
    }
    {
        MatWriter w(g_bad / "mat-W-char.mat", false);
        w.text("vishid", "0.5 0.25");
        w.row("visbiases", p.b);
    }
    {
        MatWriter w(g_bad / "mat-W-cell.mat", false);
        size_t dims[2] = {1, 1};
        matvar_t* cell = Mat_VarCreate("vishid", MAT_C_CELL, MAT_T_CELL, 2, dims, nullptr, 0);
        double one = 1.0;
        matvar_t* inner = Mat_VarCreate(nullptr, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, &one, 0);
        Mat_VarSetCell(cell, 0, inner);
        if (Mat_VarWrite(w.get(), cell, MAT_COMPRESSION_NONE) != 0) die("cell");
        Mat_VarFree(cell);
    }
    {
        MatWriter w(g_bad / "mat-W-complex.mat", false);
        std::vector<double> re = column_major(p.W), im(re.size(), 0.5);
        mat_complex_split_t z{re.data(), im.data()};
        size_t dims[2] = {5, 3};
        matvar_t* v = Mat_VarCreate("vishid", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, &z, MAT_F_COMPLEX);
        if (Mat_VarWrite(w.get(), v, MAT_COMPRESSION_NONE) != 0) die("complex");
        Mat_VarFree(v);
    }
    {
        MatWriter w(g_bad / "mat-W-3d.mat", false);
        std::vector<double> d(12, 0.1);
        w.var("vishid", MAT_C_DOUBLE, MAT_T_DOUBLE, {2, 3, 2}, d.data());
    }
    {
        MatWriter w(g_bad / "mat-W-empty.mat", false);
        w.var("vishid", MAT_C_DOUBLE, MAT_T_DOUBLE, {0, 0}, nullptr);
    }
    {
        MatWriter w(g_bad / "mat-no-W.mat", false);
        w.row("visbiases", p.b);
        w.row("hidbiases", p.c);
    }
    {
        MatWriter w(g_bad / "mat-W-nan.mat", false);
        Mat W = p.W;
        W(2, 1) = std::numeric_limits<double>::quiet_NaN();
        w.matrix("vishid", W);
    }
    {
        MatWriter w(g_bad / "mat-b-length.mat", false);
        w.matrix("vishid", p.W);
        w.row("visbiases", p.b.head(4));
        w.row("hidbiases", p.c);
    }
    {
        MatWriter w(g_bad / "mat-b-matrix.mat", false);
        w.matrix("vishid", p.W);
        w.matrix("visbiases", Mat::Ones(2, 5));
    }
    {
        MatWriter w(g_bad / "mat-kind-number.mat", false);
        w.matrix("vishid", p.W);
        w.doubles("kind", 1, 1, {1.0});
    }
    {
        MatWriter w(g_bad / "mat-kind-unknown.mat", false);
        w.matrix("vishid", p.W);
        w.text("kind", "dbn");
    }
    {
        MatWriter w(g_bad / "mat-W-struct.mat", false);
        const char* fields[] = {"w", nullptr};
        size_t dims[2] = {1, 1};
        matvar_t* s = Mat_VarCreateStruct2("vishid", 2, dims, fields);
        double one = 1.0;
        Mat_VarSetStructFieldByName(s, "w", 0, Mat_VarCreate("w", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, &one, 0));
        if (Mat_VarWrite(w.get(), s, MAT_COMPRESSION_NONE) != 0) die("struct");
        Mat_VarFree(s);
    }
}

void bad_h5_files() {
    const Model brbm = brbm_model();
    const Brbm& p = *brbm.as<Brbm>();
    spit(g_bad / "h5-truncated.h5", slurp(g_good / "brbm.h5").substr(0, 1200));
    spit(g_bad / "h5-garbage.h5", std::string("\x89HDF\r\n\x1a\n", 8) + std::string(300, '\x01'));
    spit(g_bad / "empty.h5", "");
    {
        H5Writer w(g_bad / "h5-W-string.h5");
        hid_t t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, 8);
        const char text[2][8] = {"0.5", "0.25"};
        w.dataset("W", t, {2}, text);
        H5Tclose(t);
    }
    {  // h5py's complex128: a compound of two float64 fields r and i
        H5Writer w(g_bad / "h5-W-complex.h5");
        hid_t t = H5Tcreate(H5T_COMPOUND, 16);
        H5Tinsert(t, "r", 0, H5T_IEEE_F64LE);
        H5Tinsert(t, "i", 8, H5T_IEEE_F64LE);
        std::vector<double> d(30, 0.5);
        w.dataset("W", t, {5, 3}, d.data());
        H5Tclose(t);
    }
    {
        H5Writer w(g_bad / "h5-W-3d.h5");
        w.doubles("W", {2, 3, 2}, std::vector<double>(12, 0.1));
    }
    {
        H5Writer w(g_bad / "h5-W-empty.h5");
        w.doubles("W", {0, 3}, {});
    }
    {
        H5Writer w(g_bad / "h5-no-W.h5");
        w.vector("b", p.b);
        w.vector("c", p.c);
    }
    {
        H5Writer w(g_bad / "h5-W-inf.h5");
        Mat W = p.W;
        W(0, 2) = std::numeric_limits<double>::infinity();
        w.matrix("W", W);
    }
    {
        H5Writer w(g_bad / "h5-c-length.h5");
        w.matrix("W", p.W);
        w.vector("b", p.b);
        w.vector("c", p.c.head(2));
    }
    {
        H5Writer w(g_bad / "h5-kind-number.h5");
        w.matrix("W", p.W);
        hid_t space = H5Screate(H5S_SCALAR);
        hid_t a = H5Acreate2(w.get(), "kind", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT);
        const int one = 1;
        H5Awrite(a, H5T_NATIVE_INT, &one);
        H5Aclose(a);
        H5Sclose(space);
    }
    {  // chunks never written read back as the fill value: 10^8 zeros from a tiny file
        H5Writer w(g_bad / "h5-unwritten-huge.h5");
        w.dataset("W", H5T_IEEE_F64LE, {10000, 10000}, nullptr, -1, true);
    }
    {
        H5Writer w(g_bad / "h5-huge-dims.h5");
        w.dataset("W", H5T_IEEE_F64LE, {hsize_t(1) << 20, hsize_t(1) << 20}, nullptr, -1, true);
    }
    {
        H5Writer w(g_bad / "h5-W-group.h5");
        H5Gclose(H5Gcreate2(w.get(), "W", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    }
    {
        H5Writer w(g_bad / "h5-int-kind-dataset.h5");
        w.matrix("W", p.W);
        w.doubles("kind", {1}, {2.0});
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) die("usage: make_loader_fixtures tests/data");
    g_good = fs::path(argv[1]) / "loaders";
    g_bad = fs::path(argv[1]) / "bad";
    fs::create_directories(g_good);
    Mat_LogInitFunc("make_fixtures", [](int, char* msg) { std::cerr << "matio: " << msg << "\n"; });
    const Model brbm = brbm_model(), grbm = grbm_model();
    save_model(brbm, g_good / "brbm.json");
    save_model(grbm, g_good / "grbm.json");
    for (bool v73 : {false, true}) {
        write_hinton(g_good / (std::string("brbm-") + (v73 ? "v73" : "v5") + ".mat"), brbm, v73);
        write_hinton(g_good / (std::string("grbm-") + (v73 ? "v73" : "v5") + ".mat"), grbm, v73);
    }
    write_h5py(g_good / "brbm.h5", brbm);
    write_h5py(g_good / "grbm.h5", grbm);
    // Other names, W stored hidden x visible: needs --map W=weights,b=vbias,c=hbias.
    const Brbm& p = *brbm.as<Brbm>();
    write_npz(g_good / "brbm-mapped.npz", {{"weights.npy", write_npy(Mat(p.W.transpose()))},
                                           {"vbias.npy", write_npy(p.b)},
                                           {"hbias.npy", write_npy(p.c)}});
    {  // The same as .h5, as a PyTorch RBM's state dict is often saved: the import dialog's case
        H5Writer w(g_good / "brbm-mapped.h5");
        w.matrix("weights", p.W.transpose());
        w.vector("vbias", p.b);
        w.vector("hbias", p.c);
    }
    {  // MATLAB's h5write stores an n x m matrix as an (m, n) dataset
        H5Writer w(g_good / "brbm-transposed.h5");
        w.matrix("W", p.W.transpose());
        w.vector("b", p.b);
        w.vector("c", p.c);
    }
    // Variable-length strings are read from the file's bytes (core/io/h5_vlen_string.hpp): the
    // version 2 object header, and `kind` as a vlen string dataset (h5py: f['kind'] = 'brbm').
    write_h5py(g_good / "brbm-latest.h5", brbm, true);
    {
        H5Writer w(g_good / "brbm-kind-dataset.h5");
        hid_t t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, H5T_VARIABLE);
        H5Tset_cset(t, H5T_CSET_UTF8);
        hid_t space = H5Screate(H5S_SCALAR);
        hid_t ds = H5Dcreate2(w.get(), "kind", t, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        const char* kind = "brbm";
        if (ds < 0 || H5Dwrite(ds, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &kind) < 0) die("cannot write kind");
        H5Dclose(ds);
        H5Sclose(space);
        H5Tclose(t);
        w.matrix("W", p.W);
        w.vector("b", p.b);
        w.vector("c", p.c);
    }
    bad_mat_files();
    bad_h5_files();
    std::cout << "wrote " << g_good.string() << " and the .mat/.h5 files of " << g_bad.string() << "\n";
}
