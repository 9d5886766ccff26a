// HDF5 model files (.h5, .hdf5) through libhdf5's C API: datasets of the root group named as in
// docs/reference/model-files.md, `kind` (and `name`, `notes`) as a dataset or a string attribute of the root group.
// Dimensions are read from the dataspace and checked before any data is.
#include <hdf5.h>

#include <algorithm>
#include <cstdlib>

#include "core/io/h5_contained.hpp"
#include "core/io/h5_vlen_string.hpp"
#include "core/io/isolated_read.hpp"
#include "core/io/model_io.hpp"
#include "core/io/named_arrays.hpp"
#include "core/io/scratch_file.hpp"
#include "core/numerics/memory_budget.hpp"

namespace rbm {

namespace fs = std::filesystem;

namespace {

// An HDF5 identifier closed with its own close function.
class Id {
public:
    Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
    ~Id() {
        if (id_ >= 0) close_(id_);
    }
    Id(Id&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
    Id(const Id&) = delete;
    Id& operator=(const Id&) = delete;
    Id& operator=(Id&&) = delete;
    hid_t get() const { return id_; }
    bool ok() const { return id_ >= 0; }

private:
    hid_t id_;
    herr_t (*close_)(hid_t);
};

// libhdf5 prints its error stack to stderr by default; the messages here say what matters.
// Filter plugins (shared objects found through HDF5_PLUGIN_PATH) are never loaded: a file
// naming a filter would otherwise run code from the machine's disk.
void quiet_hdf5() {
    H5open();
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    H5PLset_loading_state(0);
}

// The innermost description on HDF5's error stack (e.g. "truncated file: eof = ...").
std::string hdf5_reason() {
    std::string reason;
    H5Ewalk2(
        H5E_DEFAULT, H5E_WALK_UPWARD,
        [](unsigned n, const H5E_error2_t* e, void* out) -> herr_t {
            if (n == 0 && e && e->desc) *static_cast<std::string*>(out) = e->desc;
            return 0;
        },
        &reason);
    H5Eclear2(H5E_DEFAULT);
    return reason.empty() ? std::string() : " (" + reason + ")";
}

constexpr hsize_t kMaxLinks = 100000;

void check_self_contained(hid_t file);

Id open_file(const fs::path& path) {
    quiet_hdf5();
    Id f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!f.ok()) throw InputError("not an HDF5 file libhdf5 can read" + hdf5_reason());
    check_self_contained(f.get());
    return f;
}

// The hard links of the root group (soft and external links are not followed: an external
// link would open another file).
std::vector<std::string> root_names(hid_t file) {
    H5G_info_t info;
    if (H5Gget_info(file, &info) < 0) throw InputError("the root group cannot be read" + hdf5_reason());
    if (info.nlinks > kMaxLinks)
        throw InputError("the root group has " + std::to_string(info.nlinks) + " members; not a model file");
    std::vector<std::string> out;
    for (hsize_t i = 0; i < info.nlinks; ++i) {
        const ssize_t len = H5Lget_name_by_idx(file, ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
        if (len < 0 || len > 4096) throw InputError("a member name of the root group cannot be read" + hdf5_reason());
        std::string name(static_cast<std::size_t>(len) + 1, '\0');
        if (H5Lget_name_by_idx(file, ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size(), H5P_DEFAULT) < 0)
            throw InputError("a member name of the root group cannot be read" + hdf5_reason());
        name.resize(static_cast<std::size_t>(len));
        H5L_info_t li;
        if (H5Lget_info(file, name.c_str(), &li, H5P_DEFAULT) < 0 || li.type != H5L_TYPE_HARD) continue;
        out.push_back(name);
    }
    return out;
}

std::vector<std::int64_t> dims_of(hid_t space, const std::string& what) {
    const H5S_class_t cls = H5Sget_simple_extent_type(space);
    if (cls == H5S_NULL) throw InputError(what + " is an empty (null) dataset");
    if (cls != H5S_SCALAR && cls != H5S_SIMPLE) throw InputError(what + " has no readable dataspace" + hdf5_reason());
    const int nd = H5Sget_simple_extent_ndims(space);
    if (nd < 0) throw InputError(what + " has no readable dataspace" + hdf5_reason());
    if (nd > 32) throw InputError(what + " has " + std::to_string(nd) + " dimensions; model arrays have at most 2");
    std::vector<hsize_t> d(static_cast<std::size_t>(nd));
    if (nd > 0 && H5Sget_simple_extent_dims(space, d.data(), nullptr) < 0)
        throw InputError(what + " has no readable dataspace" + hdf5_reason());
    std::vector<std::int64_t> out;
    for (hsize_t x : d) out.push_back(x > static_cast<hsize_t>(INT64_MAX) ? INT64_MAX : static_cast<std::int64_t>(x));
    return out;
}

std::string type_text(hid_t type) {
    switch (H5Tget_class(type)) {
        case H5T_INTEGER: return "int" + std::to_string(8 * H5Tget_size(type));
        case H5T_FLOAT: return "float" + std::to_string(8 * H5Tget_size(type));
        case H5T_STRING: return "string";
        case H5T_COMPOUND: return "compound (e.g. complex)";
        case H5T_ENUM: return "enum (e.g. h5py bool)";
        case H5T_VLEN: return "variable-length";
        case H5T_ARRAY: return "array";
        case H5T_OPAQUE: return "opaque";
        case H5T_REFERENCE: return "reference";
        case H5T_BITFIELD: return "bitfield";
        case H5T_TIME: return "time";
        default: return "unknown";
    }
}

// An object's name in a message: quoted, at most 80 bytes of it (a hostile name may be long).
std::string quoted(const std::string& name) {
    if (name.size() <= 80) return "'" + name + "'";
    return "'" + name.substr(0, 60) + "...' (a name of " + std::to_string(name.size()) + " bytes)";
}

constexpr const char* kOnlyInside = "; rbmscope reads only what is inside the model file";

// Why a dataset with creation properties `dcpl` would make libhdf5 read outside the file or
// run code the file names, or "" when it would not. Only libhdf5's own filters are allowed (a
// user-defined id is loaded as a plugin).
std::string outside_reason(hid_t dcpl) {
    const H5D_layout_t layout = H5Pget_layout(dcpl);
    if (layout < 0) return "HDF5 dataset whose storage layout cannot be read is refused";
    if (layout == H5D_VIRTUAL) return "HDF5 virtual dataset (data mapped from other datasets or files) is refused";
    const int external = H5Pget_external_count(dcpl);
    if (external != 0) return "HDF5 dataset stored outside the file (external storage) is refused";
    const int nfilters = H5Pget_nfilters(dcpl);
    if (nfilters < 0) return "HDF5 dataset whose filters cannot be read is refused";
    for (int i = 0; i < nfilters; ++i) {
        unsigned flags = 0;
        size_t nvalues = 0;
        unsigned config = 0;
        const H5Z_filter_t id =
            H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &nvalues, nullptr, 0, nullptr, &config);
        switch (id) {
            case H5Z_FILTER_DEFLATE:
            case H5Z_FILTER_SHUFFLE:
            case H5Z_FILTER_FLETCHER32:
            case H5Z_FILTER_SZIP:
            case H5Z_FILTER_NBIT:
            case H5Z_FILTER_SCALEOFFSET: break;
            default:
                return "HDF5 dataset with filter " + std::to_string(static_cast<long long>(id)) +
                       " (not one of libhdf5's own: deflate, shuffle, fletcher32, szip, nbit, scaleoffset) is refused";
        }
    }
    return "";
}

// The same check for an open dataset; throws InputError naming it.
void check_dataset_inside(hid_t ds, const std::string& what) {
    Id dcpl(H5Dget_create_plist(ds), H5Pclose);
    const std::string why =
        dcpl.ok() ? outside_reason(dcpl.get()) : "HDF5 dataset whose creation properties cannot be read is refused";
    H5Eclear2(H5E_DEFAULT);
    if (!why.empty()) throw InputError(what + ": " + why + kOnlyInside);
}

// Every link of the file, recursively (H5Lvisit follows hard links into groups only, once per
// group): external and user-defined links are refused, and every dataset's creation
// properties checked through its address (opening it by address traverses no link). Damage
// libhdf5 reports here is left to the readers, which name it; what cannot be opened cannot be
// read from either.
struct Visit {
    std::string refused;
    hsize_t seen = 0;
};

herr_t visit_link(hid_t group, const char* name, const H5L_info_t* info, void* data) {
    auto& v = *static_cast<Visit*>(data);
    const std::string what = quoted(name ? name : "");
    if (++v.seen > 16 * kMaxLinks) {
        v.refused = "the file has more than " + std::to_string(16 * kMaxLinks) + " links; not a model file";
        return 1;
    }
    if (info->type == H5L_TYPE_EXTERNAL) {
        v.refused = what + ": HDF5 external link (to an object in another file) is refused" + kOnlyInside;
        return 1;
    }
    if (info->type != H5L_TYPE_HARD && info->type != H5L_TYPE_SOFT) {
        v.refused = what + ": HDF5 user-defined link (class " + std::to_string(static_cast<int>(info->type)) +
                    ") is refused" + kOnlyInside;
        return 1;
    }
    if (info->type != H5L_TYPE_HARD) return 0;  // a path inside this file, to an object visited through its hard link
    Id obj(H5Oopen_by_addr(group, info->u.address), H5Oclose);
    if (obj.ok() && H5Iget_type(obj.get()) == H5I_DATASET) {
        Id dcpl(H5Dget_create_plist(obj.get()), H5Pclose);
        std::string why = dcpl.ok() ? outside_reason(dcpl.get()) : "";
        if (!why.empty()) {
            v.refused = what + ": " + why + kOnlyInside;
            return 1;
        }
    }
    H5Eclear2(H5E_DEFAULT);
    return 0;
}

void check_self_contained(hid_t file) {
    Visit v;
    (void)H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, visit_link, &v);
    H5Eclear2(H5E_DEFAULT);
    if (!v.refused.empty()) throw InputError(v.refused);
}

// Dataset access for the readers: an external link met while opening by name fails.
Id dataset_access() {
    Id dapl(H5Pcreate(H5P_DATASET_ACCESS), H5Pclose);
    if (dapl.ok())
        H5Pset_elink_cb(
            dapl.get(),
            [](const char*, const char*, const char*, const char*, unsigned*, hid_t, void*) -> herr_t { return -1; },
            nullptr);
    return dapl;
}

// The file's address layout, for reading variable-length strings from its bytes.
H5Layout layout_of(hid_t file) {
    H5Layout out;
    Id fcpl(H5Fget_create_plist(file), H5Pclose);
    size_t sizeof_addr = 0, sizeof_size = 0;
    hsize_t userblock = 0;
    if (!fcpl.ok() || H5Pget_sizes(fcpl.get(), &sizeof_addr, &sizeof_size) < 0 ||
        H5Pget_userblock(fcpl.get(), &userblock) < 0)
        throw InputError("the file's superblock cannot be read" + hdf5_reason());
    if (sizeof_addr < 2 || sizeof_addr > 8 || sizeof_size < 2 || sizeof_size > 8)
        throw InputError("the file's superblock gives offsets of " + std::to_string(sizeof_addr) + " and lengths of " +
                         std::to_string(sizeof_size) + " bytes");
    out.base = userblock;
    out.sizeof_addr = static_cast<unsigned>(sizeof_addr);
    out.sizeof_size = static_cast<unsigned>(sizeof_size);
    return out;
}

// One string from a dataset or attribute of string type: a fixed-length string is read with
// `reader` into a buffer of memory type `mem`; a variable-length one by `read_vlen`, never through
// libhdf5's conversion (see core/io/h5_vlen_string.hpp).
template <class Read, class ReadVlen>
std::string read_string(hid_t type, const std::vector<std::int64_t>& shape, const std::string& what, Read&& reader,
                        ReadVlen&& read_vlen) {
    if (H5Tget_class(type) != H5T_STRING) throw InputError(what + " must be a string, got " + type_text(type));
    std::int64_t count = 1;
    for (auto d : shape) count *= d;
    if (count != 1 || shape.size() > 1)
        throw InputError(what + " must be a single string, got shape " + array_shape_text(shape));
    const htri_t vlen = H5Tis_variable_str(type);
    if (vlen < 0) throw InputError(what + " cannot be read" + hdf5_reason());
    if (vlen) return read_vlen();
    Id mem(H5Tcopy(H5T_C_S1), H5Tclose);
    const H5T_cset_t cset = H5Tget_cset(type);  // h5py writes UTF-8; ASCII -> UTF-8 has no conversion path
    if (cset >= 0) H5Tset_cset(mem.get(), cset);
    const std::size_t size = H5Tget_size(type);
    if (size == 0 || size > kMaxStringBytes)
        throw InputError(what + " is a string of " + std::to_string(size) + " bytes");
    std::string buf(size + 1, '\0');
    if (H5Tset_size(mem.get(), size + 1) < 0 || !reader(mem.get(), buf.data()))
        throw InputError(what + " cannot be read" + hdf5_reason());
    buf.resize(strnlen(buf.c_str(), buf.size()));
    while (!buf.empty() && buf.back() == ' ') buf.pop_back();  // space-padded fixed strings
    return buf;
}

NpyArray read_dataset(hid_t file, const fs::path& path, const std::string& key, const std::string& name,
                      std::uintmax_t file_bytes) {
    const std::string what = key == name ? "'" + key + "'" : "'" + key + "' (dataset '" + name + "')";
    const Id dapl = dataset_access();
    Id ds(H5Dopen2(file, name.c_str(), dapl.get()), H5Dclose);
    if (!ds.ok()) {
        H5Eclear2(H5E_DEFAULT);
        throw InputError(what + " is not a dataset (a group?); expected an array of numbers");
    }
    check_dataset_inside(ds.get(), what);
    Id space(H5Dget_space(ds.get()), H5Sclose);
    Id type(H5Dget_type(ds.get()), H5Tclose);
    if (!space.ok() || !type.ok()) throw InputError(what + " cannot be read" + hdf5_reason());
    const std::vector<std::int64_t> shape = dims_of(space.get(), what);
    check_declared_shape(shape, what);
    NpyArray out;
    out.shape = shape;
    if (key == "kind" || key == "name" || key == "notes") {
        out.is_string = true;
        out.strings = {read_string(
            type.get(), shape, what,
            [&](hid_t mem, void* buf) { return H5Dread(ds.get(), mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0; },
            [&] {
                const haddr_t at = H5Dget_offset(ds.get());  // absolute; undefined unless contiguous
                H5Eclear2(H5E_DEFAULT);
                if (at == HADDR_UNDEF)
                    throw InputError(what +
                                     " is a variable-length string dataset not stored contiguously, which rbmscope "
                                     "does not read; store it as an attribute or a fixed-length string");
                return read_vlen_string_at(path, layout_of(file), at, what);
            })};
        return out;
    }
    const H5T_class_t cls = H5Tget_class(type.get());
    if (cls != H5T_INTEGER && cls != H5T_FLOAT)
        throw InputError(what + " must hold numbers (integer or float), got " + type_text(type.get()));
    std::size_t count = 1;
    for (auto d : shape) count *= static_cast<std::size_t>(d);
    // Unwritten chunks read as the fill value: a tiny file may declare a huge dataset.
    const double need = static_cast<double>(count) * static_cast<double>(H5Tget_size(type.get()));
    if (need > kMaxExpansion * static_cast<double>(file_bytes) + 4096.0)
        throw InputError(what + " claims shape " + array_shape_text(shape) + ", more data than a " +
                         std::to_string(file_bytes) + "-byte file can hold");
    check_memory_budget(8.0 * static_cast<double>(count), what + " of shape " + array_shape_text(shape));
    out.data.resize(count);
    if (count > 0 && H5Dread(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data.data()) < 0)
        throw InputError(what + " cannot be read: the data is truncated or damaged" + hdf5_reason());
    return out;
}

// `kind`, `name` or `notes` as a string attribute of the root group (h5py: f.attrs['kind']).
bool read_root_attribute(hid_t file, const fs::path& path, const std::string& key, NpyArray& out) {
    const htri_t exists = H5Aexists(file, key.c_str());
    if (exists <= 0) return false;
    const std::string what = "attribute '" + key + "'";
    Id attr(H5Aopen(file, key.c_str(), H5P_DEFAULT), H5Aclose);
    if (!attr.ok()) throw InputError(what + " cannot be read" + hdf5_reason());
    Id space(H5Aget_space(attr.get()), H5Sclose);
    Id type(H5Aget_type(attr.get()), H5Tclose);
    if (!space.ok() || !type.ok()) throw InputError(what + " cannot be read" + hdf5_reason());
    const std::vector<std::int64_t> shape = dims_of(space.get(), what);
    out.is_string = true;
    out.shape = {1};
    out.strings = {read_string(
        type.get(), shape, what, [&](hid_t mem, void* buf) { return H5Aread(attr.get(), mem, buf) >= 0; },
        [&] {
            H5O_info_t info;
            if (H5Oget_info2(file, &info, H5O_INFO_BASIC) < 0)
                throw InputError("the root group's object header cannot be found" + hdf5_reason());
            return read_vlen_string_attribute(path, layout_of(file), info.addr, key, what);
        })};
    return true;
}

}  // namespace

// A file libhdf5 cannot open is left to the caller's reader (libmatio names what is wrong). The
// error printer in place is put back afterwards: libmatio's messages quote libhdf5's errors
// through it.
void check_h5_self_contained(const fs::path& path) {
    H5open();
    H5E_auto2_t printer = nullptr;
    void* printer_data = nullptr;
    H5Eget_auto2(H5E_DEFAULT, &printer, &printer_data);
    quiet_hdf5();
    struct Restore {
        H5E_auto2_t printer;
        void* data;
        ~Restore() { H5Eset_auto2(H5E_DEFAULT, printer, data); }
    } restore{printer, printer_data};
    Id f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    H5Eclear2(H5E_DEFAULT);
    if (f.ok()) check_self_contained(f.get());
}

std::vector<ArrayInfo> list_h5_arrays(const fs::path& path) {
    Id f = open_file(path);
    std::vector<ArrayInfo> out;
    for (const auto& name : root_names(f.get())) {
        ArrayInfo info{name, {}, "group"};
        const Id dapl = dataset_access();
        Id ds(H5Dopen2(f.get(), name.c_str(), dapl.get()), H5Dclose);
        if (ds.ok()) {
            Id space(H5Dget_space(ds.get()), H5Sclose);
            Id type(H5Dget_type(ds.get()), H5Tclose);
            info.type = type.ok() ? type_text(type.get()) : "unknown";
            try {
                if (space.ok()) info.shape = dims_of(space.get(), name);
            } catch (const InputError&) {
                info.type += " (no shape)";
            }
        }
        H5Eclear2(H5E_DEFAULT);
        out.push_back(info);
    }
    return out;
}

NamedArrays read_h5_arrays(const fs::path& path, const ModelLoadOptions& options) {
    std::error_code ec;
    const std::uintmax_t bytes = fs::file_size(path, ec);
    Id f = open_file(path);
    NamedArrays out;
    out.format = "h5";
    for (const auto& [key, name] : choose_arrays(root_names(f.get()), options, true))
        out.arrays[key] = read_dataset(f.get(), path, key, name, ec ? 0 : bytes);
    for (const char* key : {"kind", "name", "notes"}) {
        if (out.arrays.count(key)) continue;
        NpyArray a;
        if (read_root_attribute(f.get(), path, key, a)) out.arrays[key] = std::move(a);
    }
    return out;
}

void write_h5_model(const Model& model, const fs::path& path) {
    if (model.anneal_from) throw InputError("a model with 'anneal_from' cannot be written as .h5 (use .json or .npz)");
    // A child reading an .h5 file must not start with this thread inside libhdf5.
    const std::lock_guard lock(container_library_mutex());
    quiet_hdf5();
    ScratchFile tmp(path);
    {
        Id f(H5Fcreate(tmp.path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
        if (!f.ok()) throw InputError("libhdf5 cannot create the file" + hdf5_reason());
        auto put = [&](const char* name, std::vector<hsize_t> dims, const double* data) {
            Id space(dims.empty() ? H5Screate(H5S_SCALAR)
                                  : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                     H5Sclose);
            Id ds(H5Dcreate2(f.get(), name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                  H5Dclose);
            if (!ds.ok() || H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
                throw InputError(std::string("libhdf5 cannot write '") + name + "'" + hdf5_reason());
        };
        // h5py's layout: C order, so a (n, m) dataset is W's rows one after another.
        auto put_matrix = [&](const char* name, const Mat& m) {
            const RowMat r = m;
            put(name, {static_cast<hsize_t>(m.rows()), static_cast<hsize_t>(m.cols())}, r.data());
        };
        auto put_vector = [&](const char* name, const Vec& v) {
            put(name, {static_cast<hsize_t>(v.size())}, v.data());
        };
        // As h5py writes a str attribute: variable-length UTF-8, scalar.
        auto put_attr = [&](const char* name, const std::string& s) {
            Id type(H5Tcopy(H5T_C_S1), H5Tclose);
            H5Tset_size(type.get(), H5T_VARIABLE);
            H5Tset_cset(type.get(), H5T_CSET_UTF8);
            Id space(H5Screate(H5S_SCALAR), H5Sclose);
            Id attr(H5Acreate2(f.get(), name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
            const char* p = s.c_str();
            if (!attr.ok() || H5Awrite(attr.get(), type.get(), &p) < 0)
                throw InputError(std::string("libhdf5 cannot write attribute '") + name + "'" + hdf5_reason());
        };
        put_attr("kind", kind_name(model.kind()));
        if (!model.name.empty()) put_attr("name", model.name);
        if (!model.notes.empty()) put_attr("notes", model.notes);
        std::visit(
            [&](const auto& p) {
                using T = std::decay_t<decltype(p)>;
                if constexpr (std::is_same_v<T, Gaussian>) {
                    put_vector("mean", p.mean);
                    put_matrix("cov", p.cov);
                } else {
                    put_matrix("W", p.W);
                    put_vector("b", p.b);
                    put_vector("c", p.c);
                    if constexpr (std::is_same_v<T, Grbm>) {
                        put_vector("sigma", p.sigma);
                        put("hidden_values", {static_cast<hsize_t>(p.hidden_values.size())}, p.hidden_values.data());
                    }
                    if constexpr (std::is_same_v<T, Leaky>) put("leakiness", {}, &p.leakiness);
                }
            },
            model.params);
        if (H5Fflush(f.get(), H5F_SCOPE_GLOBAL) < 0) throw InputError("libhdf5 cannot flush the file" + hdf5_reason());
    }
    tmp.commit();
}

}  // namespace rbm
