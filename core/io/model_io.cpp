#include "core/io/model_io.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <thread>

#include "core/io/json_text.hpp"
#include "core/io/named_arrays.hpp"
#include "core/io/npy.hpp"
#include "core/io/training_json.hpp"

namespace rbm {

namespace {

using nlohmann::json;
using json_text::type_name;
namespace fs = std::filesystem;

// Kinds accepted in files, in the order the messages list them.
const char* const kKindList = "grbm, brbm, leaky or gaussian";
const char* const kOtherModelExtensions = "; MATLAB .mat and HDF5 .h5/.hdf5 files are read too";

ModelKind parse_kind(const std::string& s) {
    if (s == "grbm") return ModelKind::Grbm;
    if (s == "brbm") return ModelKind::Brbm;
    if (s == "leaky") return ModelKind::Leaky;
    if (s == "gaussian") return ModelKind::Gaussian;
    throw InputError("unknown kind '" + s + "' (expected " + kKindList + ")");
}

// Prefix a nested problem with where it happened ("m.json: ", "in 'anneal_from': ").
template <class F>
auto with_context(const std::string& prefix, F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const InputError& e) {
        throw InputError(prefix + e.what());
    }
}

void validate_in(const Model& m) {
    validate(m);
    if (m.anneal_from) {
        if (m.anneal_from->anneal_from) throw InputError("'anneal_from' cannot itself have an 'anneal_from'");
        with_context("in 'anneal_from': ", [&] { validate(*m.anneal_from); });
        if (m.anneal_from->n_visible() != m.n_visible())
            throw InputError("'anneal_from' has " + std::to_string(m.anneal_from->n_visible()) +
                             " visible dimensions, the model has " + std::to_string(m.n_visible()) +
                             "; annealing needs the same space");
    }
}

std::string lower_extension(const fs::path& p) {
    std::string e = p.extension().string();
    std::transform(e.begin(), e.end(), e.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    return e;
}

std::string size_text(double count) {
    std::ostringstream os;
    os.precision(15);
    os << count;
    return os.str();
}

void check_element_count(double count, const std::string& key) {
    if (count > static_cast<double>(kMaxFileElements))
        throw InputError("'" + key + "' has " + size_text(count) + " elements, more than the limit 2^28 = " +
                         std::to_string(kMaxFileElements));
}

// ---------------------------------------------------------------- JSON reading

// JSON has no NaN or Inf; tools that have them write null instead.
double number_at(const json& v, const std::string& where) {
    if (v.is_number()) return v.get<double>();
    if (v.is_null())
        throw InputError(where + " is null, i.e. a non-finite value (NaN or Inf written as null); expected a finite number");
    throw InputError(where + " must be a number, got " + type_name(v));
}

Vec vector_of(const json& j, const std::string& key) {
    if (!j.is_array()) throw InputError("'" + key + "' must be an array of numbers, got " + type_name(j));
    check_element_count(static_cast<double>(j.size()), key);
    Vec v(static_cast<Index>(j.size()));
    for (std::size_t i = 0; i < j.size(); ++i)
        v(static_cast<Index>(i)) = number_at(j[i], "'" + key + "'[" + std::to_string(i) + "]");
    return v;
}

Mat matrix_of(const json& j, const std::string& key) {
    const std::string expected = "'" + key + "' must be an array of rows of numbers";
    if (!j.is_array()) throw InputError(expected + ", got " + type_name(j));
    const std::size_t rows = j.size();
    std::size_t cols = 0;
    for (std::size_t r = 0; r < rows; ++r) {
        if (!j[r].is_array())
            throw InputError(expected + ", but row " + std::to_string(r) + " is " + type_name(j[r]));
        if (r == 0) cols = j[r].size();
        if (j[r].size() != cols)
            throw InputError("'" + key + "' row " + std::to_string(r) + " has " + std::to_string(j[r].size()) +
                             " numbers, expected " + std::to_string(cols) + " like row 0");
    }
    check_element_count(static_cast<double>(rows) * static_cast<double>(cols), key);
    Mat m(static_cast<Index>(rows), static_cast<Index>(cols));
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c)
            m(static_cast<Index>(r), static_cast<Index>(c)) =
                number_at(j[r][c], "'" + key + "' row " + std::to_string(r) + ", column " + std::to_string(c));
    return m;
}

const json* find(const json& obj, const char* key) {
    const auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
}

const json& require(const json& obj, const char* key, const std::string& kind, const std::string& shape) {
    const json* v = find(obj, key);
    if (!v)
        throw InputError(std::string("'") + key + "' is missing: a " + kind + " model needs '" + key + "' (" + shape +
                         ")");
    return *v;
}

std::string string_of(const json& obj, const char* key) {
    const json* v = find(obj, key);
    if (!v) return {};
    if (!v->is_string()) throw InputError(std::string("'") + key + "' must be a string, got " + type_name(*v));
    return v->get<std::string>();
}

Model model_from_json_object(const json& obj, bool nested) {
    if (!obj.is_object()) throw InputError("expected a JSON object with the model's keys, got " + type_name(obj));
    if (const json* f = find(obj, "format"); f && !(f->is_string() && f->get<std::string>() == "rbmscope-model"))
        throw InputError("'format' is " + (f->is_string() ? "'" + f->get<std::string>() + "'" : type_name(*f)) +
                         ", expected \"rbmscope-model\"");
    if (const json* v = find(obj, "version"); v && !(v->is_number() && v->get<double>() == 1.0))
        throw InputError("'version' is " + (v->is_number() ? v->dump() : type_name(*v)) +
                         ", this program reads version 1");
    const json* k = find(obj, "kind");
    if (!k) throw InputError(std::string("'kind' is missing (expected ") + kKindList + ")");
    if (!k->is_string()) throw InputError(std::string("'kind' must be a string (") + kKindList + "), got " + type_name(*k));
    const std::string kind = k->get<std::string>();

    Model model;
    model.name = string_of(obj, "name");
    model.notes = string_of(obj, "notes");
    switch (parse_kind(kind)) {
        case ModelKind::Gaussian: {
            Gaussian g;
            g.mean = vector_of(require(obj, "mean", kind, "[n]"), "mean");
            g.cov = matrix_of(require(obj, "cov", kind, "[[n x n]]"), "cov");
            model.params = std::move(g);
            break;
        }
        default: {
            const Mat W = matrix_of(require(obj, "W", kind, "n rows of m numbers"), "W");
            // "b" and "c" are optional and default to zeros (SPEC §8 lists them, many
            // exported models leave a zero bias out).
            const json* jb = find(obj, "b");
            const json* jc = find(obj, "c");
            const Vec b = jb ? vector_of(*jb, "b") : Vec::Zero(W.rows());
            const Vec c = jc ? vector_of(*jc, "c") : Vec::Zero(W.cols());
            if (kind == "brbm") {
                model.params = Brbm{W, b, c};
            } else if (kind == "leaky") {
                Leaky l{W, b, c};
                if (const json* jl = find(obj, "leakiness")) {
                    if (!jl->is_number())
                        throw InputError("'leakiness' must be a number in (0, 1], got " + type_name(*jl));
                    l.leakiness = jl->get<double>();
                }
                model.params = std::move(l);
            } else {
                Grbm g;
                g.W = W;
                g.b = b;
                g.c = c;
                const json* js = find(obj, "sigma");
                g.sigma = js ? vector_of(*js, "sigma") : Vec::Ones(W.rows());
                if (const json* jh = find(obj, "hidden_values")) {
                    const Vec hv = vector_of(*jh, "hidden_values");
                    g.hidden_values.assign(hv.data(), hv.data() + hv.size());
                }
                model.params = std::move(g);
            }
        }
    }
    if (const json* a = find(obj, "anneal_from")) {
        if (nested) throw InputError("'anneal_from' cannot itself have an 'anneal_from'");
        if (!a->is_object())
            throw InputError("'anneal_from' must be a model object (like the file itself), got " + type_name(*a));
        model.anneal_from = std::make_shared<const Model>(
            with_context("in 'anneal_from': ", [&] { return model_from_json_object(*a, true); }));
    }
    if (const json* t = find(obj, "training"); t && !nested) model.training = training_from_json(*t, model.n_visible());
    return model;
}

// ---------------------------------------------------------------- JSON writing

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json vec_json(const Vec& v) { return json(std::vector<double>(v.data(), v.data() + v.size())); }

// One key per line and one matrix row per line: readable, and numbers are printed with the
// shortest text that reads back to the same double.
void write_object(std::string& out, const Model& m, const std::string& indent) {
    std::vector<std::pair<std::string, std::string>> items;
    const std::string inner = indent + " ";
    auto matrix = [&](const Mat& W) {
        std::string s = "[";
        for (Index r = 0; r < W.rows(); ++r) {
            const Vec row = W.row(r).transpose();
            s += (r ? ",\n" : "\n") + inner + " " + dump(vec_json(row));
        }
        return s + (W.rows() ? "\n" + inner : "") + "]";
    };
    items.emplace_back("format", dump("rbmscope-model"));
    items.emplace_back("version", "1");
    items.emplace_back("kind", dump(kind_name(m.kind())));
    if (!m.name.empty()) items.emplace_back("name", dump(m.name));
    if (!m.notes.empty()) items.emplace_back("notes", dump(m.notes));
    std::visit(
        [&](const auto& p) {
            using T = std::decay_t<decltype(p)>;
            if constexpr (std::is_same_v<T, Gaussian>) {
                items.emplace_back("mean", dump(vec_json(p.mean)));
                items.emplace_back("cov", matrix(p.cov));
            } else {
                items.emplace_back("W", matrix(p.W));
                items.emplace_back("b", dump(vec_json(p.b)));
                items.emplace_back("c", dump(vec_json(p.c)));
                if constexpr (std::is_same_v<T, Grbm>) {
                    items.emplace_back("sigma", dump(vec_json(p.sigma)));
                    items.emplace_back("hidden_values", dump(json(p.hidden_values)));
                }
                if constexpr (std::is_same_v<T, Leaky>) items.emplace_back("leakiness", dump(json(p.leakiness)));
            }
        },
        m.params);
    if (m.anneal_from) {
        std::string nested;
        write_object(nested, *m.anneal_from, inner);
        items.emplace_back("anneal_from", nested);
    }
    if (m.training) items.emplace_back("training", dump(training_to_json(*m.training)));
    out += "{\n";
    for (std::size_t i = 0; i < items.size(); ++i)
        out += inner + dump(items[i].first) + ": " + items[i].second + (i + 1 < items.size() ? ",\n" : "\n");
    out += indent + "}";
}

// ---------------------------------------------------------------- NumPy archives

// Largest .npy member we read: the element limit at 8 bytes each plus a header.
constexpr std::uint64_t kMaxMemberBytes = 8 * static_cast<std::uint64_t>(kMaxFileElements) + (1u << 20);

const char* const kArrayKeys[] = {"W", "b", "c", "sigma", "hidden_values", "leakiness", "kind",
                                  "mean", "cov", "name", "notes", "training"};

bool wanted_key(const std::string& key) {
    std::string k = key.rfind(kNestedPrefix, 0) == 0 ? key.substr(std::strlen(kNestedPrefix)) : key;
    return std::any_of(std::begin(kArrayKeys), std::end(kArrayKeys), [&](const char* a) { return k == a; });
}

std::string zip_error_text(zip_error_t* e) {
    std::string s = zip_error_strerror(e);
    zip_error_fini(e);
    return s;
}

struct ZipCloser {
    void operator()(zip_t* z) const { zip_discard(z); }
};

// The members named like a model's arrays, and those `extra` maps to; `members` gets the
// names of every .npy member (without ".npy").
std::map<std::string, NpyArray> read_npz(const std::string& bytes, const ArrayNameMap& extra,
                                         std::vector<std::string>* members) {
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* src = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &err);
    if (!src) throw InputError("cannot read the archive: " + zip_error_text(&err));
    zip_t* raw = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &err);
    if (!raw) {
        zip_source_free(src);
        const std::string why = zip_error_text(&err);
        throw InputError("not a valid .npz file (a zip archive of .npy arrays): " + why);
    }
    std::unique_ptr<zip_t, ZipCloser> za(raw);
    std::map<std::string, NpyArray> out;
    const zip_int64_t entries = zip_get_num_entries(raw, 0);
    for (zip_int64_t i = 0; i < entries; ++i) {
        const char* cname = zip_get_name(raw, static_cast<zip_uint64_t>(i), 0);
        if (!cname) continue;
        const std::string name = cname;
        if (name.size() < 4 || name.compare(name.size() - 4, 4, ".npy") != 0) continue;
        const std::string key = name.substr(0, name.size() - 4);
        members->push_back(key);
        const bool mapped = std::any_of(extra.begin(), extra.end(), [&](const auto& kv) { return kv.second == key; });
        if (!wanted_key(key) && !mapped) continue;  // unknown arrays are ignored like unknown JSON keys
        const std::string member = "member '" + name + "'";
        zip_stat_t st;
        zip_stat_init(&st);
        if (zip_stat_index(raw, static_cast<zip_uint64_t>(i), 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
            throw InputError(member + " cannot be read: " + zip_strerror(raw));
        if (st.size > kMaxMemberBytes)
            throw InputError(member + " is " + std::to_string(st.size) +
                             " bytes uncompressed, more than any model array may be (limit 2^28 elements)");
        zip_file_t* f = zip_fopen_index(raw, static_cast<zip_uint64_t>(i), 0);
        if (!f) throw InputError(member + " cannot be read: " + zip_strerror(raw));
        std::string data;
        char buf[1 << 16];
        zip_int64_t got = 0;
        // Inflate the header first and check the size it declares against the archive's
        // directory before inflating the rest: a member whose header says (2, 2) followed by a
        // gigabyte of zeros is refused after at most a megabyte. Then grow as data arrives
        // rather than trusting either size, and stop one chunk past the declared size.
        const std::uint64_t head = std::min<std::uint64_t>(st.size, kNpyMaxHeaderPrefix);
        bool checked = st.size <= head;
        while ((got = zip_fread(f, buf, sizeof buf)) > 0) {
            data.append(buf, static_cast<std::size_t>(got));
            if (data.size() > st.size) break;
            if (!checked && data.size() >= head) {
                checked = true;
                std::uint64_t declared = 0;
                try {
                    declared = npy_declared_size(data, member);
                } catch (const InputError&) {
                    zip_fclose(f);
                    throw;
                }
                if (declared != st.size) {
                    zip_fclose(f);
                    throw InputError(member + " is " + std::to_string(st.size) + " bytes uncompressed, but its .npy header declares " +
                                     std::to_string(declared) + " bytes; refused before inflating it");
                }
            }
        }
        if (got < 0) {
            const std::string why = zip_file_strerror(f);
            zip_fclose(f);
            throw InputError(member + " cannot be read: " + why);
        }
        zip_fclose(f);
        if (data.size() != st.size)
            throw InputError(member + " has " + std::to_string(data.size()) + " bytes, the archive says " +
                             std::to_string(st.size));
        out[key] = parse_npy(data, member);
    }
    return out;
}

void add_arrays(std::vector<std::pair<std::string, std::string>>& members, const Model& m, const std::string& prefix) {
    auto add = [&](const std::string& key, std::string bytes) { members.emplace_back(prefix + key + ".npy", std::move(bytes)); };
    add("kind", write_npy_strings({kind_name(m.kind())}));
    if (!m.name.empty()) add("name", write_npy_strings({m.name}));
    if (!m.notes.empty()) add("notes", write_npy_strings({m.notes}));
    std::visit(
        [&](const auto& p) {
            using T = std::decay_t<decltype(p)>;
            if constexpr (std::is_same_v<T, Gaussian>) {
                add("mean", write_npy(p.mean));
                add("cov", write_npy(p.cov));
            } else {
                add("W", write_npy(p.W));
                add("b", write_npy(p.b));
                add("c", write_npy(p.c));
                if constexpr (std::is_same_v<T, Grbm>) {
                    add("sigma", write_npy(p.sigma));
                    add("hidden_values",
                        write_npy(Vec(Eigen::Map<const Vec>(p.hidden_values.data(), static_cast<Index>(p.hidden_values.size())))));
                }
                if constexpr (std::is_same_v<T, Leaky>) add("leakiness", write_npy_scalar(p.leakiness));
            }
        },
        m.params);
    if (m.anneal_from) add_arrays(members, *m.anneal_from, prefix + kNestedPrefix);
    // The "training" object of the JSON file, as its JSON text in a string array.
    if (m.training && prefix.empty()) add("training", write_npy_strings({dump(training_to_json(*m.training))}));
}

// Members stored uncompressed, as numpy.savez does.
std::string zip_members(const std::vector<std::pair<std::string, std::string>>& members) {
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* out = zip_source_buffer_create(nullptr, 0, 0, &err);
    if (!out) throw InputError("cannot build the .npz archive: " + zip_error_text(&err));
    zip_t* za = zip_open_from_source(out, ZIP_TRUNCATE, &err);
    if (!za) {
        zip_source_free(out);
        throw InputError("cannot build the .npz archive: " + zip_error_text(&err));
    }
    zip_source_keep(out);  // the bytes stay readable after zip_close
    auto give_up = [&](const std::string& why) {
        zip_discard(za);
        zip_source_free(out);
        throw InputError("cannot build the .npz archive: " + why);
    };
    for (const auto& [name, bytes] : members) {
        zip_source_t* s = zip_source_buffer(za, bytes.data(), bytes.size(), 0);
        if (!s) give_up(zip_strerror(za));
        const zip_int64_t idx = zip_file_add(za, name.c_str(), s, ZIP_FL_ENC_UTF_8);
        if (idx < 0) {
            zip_source_free(s);
            give_up(zip_strerror(za));
        }
        zip_set_file_compression(za, static_cast<zip_uint64_t>(idx), ZIP_CM_STORE, 0);
    }
    if (zip_close(za) != 0) give_up(zip_strerror(za));
    std::string bytes;
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_source_open(out) != 0 || zip_source_stat(out, &st) != 0) {
        zip_source_free(out);
        throw InputError("cannot build the .npz archive: reading it back failed");
    }
    bytes.resize(st.size);
    const zip_int64_t got = zip_source_read(out, bytes.data(), st.size);
    zip_source_close(out);
    zip_source_free(out);
    if (got < 0 || static_cast<zip_uint64_t>(got) != st.size)
        throw InputError("cannot build the .npz archive: reading it back failed");
    return bytes;
}

// ---------------------------------------------------------------- files

std::string errno_text(int e) { return std::strerror(e); }

std::string random_suffix() {
    std::random_device rd;
    const std::uint64_t x = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(x));
    return buf;
}

// When this process started (the library's static initialisation), for stale temporaries.
const std::filesystem::file_time_type kProcessStart = std::filesystem::file_time_type::clock::now();

// Removes "<target>.tmp-<16 hex digits>" files left by writers that died (SIGKILL, power loss)
// before renaming them. Only our own name pattern for this very target, only files last modified
// before this process started, and only when no live writer holds them: every writer keeps an
// exclusive flock on its temporary until the rename, and the kernel drops it when the writer
// dies, so a temporary we can lock is an orphan. A live writer's file is left alone.
void remove_stale_temporaries(const fs::path& target) {
    const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    const std::string prefix = target.filename().string() + ".tmp-";
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) return;
    for (; it != fs::directory_iterator(); it.increment(ec)) {
        if (ec) return;
        const std::string name = it->path().filename().string();
        if (name.size() != prefix.size() + 16 || name.compare(0, prefix.size(), prefix) != 0 ||
            name.find_first_not_of("0123456789abcdef", prefix.size()) != std::string::npos)
            continue;
        std::error_code e2;
        if (!it->is_regular_file(e2) || it->is_symlink(e2) || fs::last_write_time(it->path(), e2) >= kProcessStart || e2) continue;
        const int fd = ::open(it->path().c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) continue;
        if (::flock(fd, LOCK_EX | LOCK_NB) == 0) ::unlink(it->path().c_str());
        ::close(fd);
    }
}

// Test hooks (tests/cli/test_cli_atomic_write.cpp), so a test can kill the writer inside the
// write or just after the rename by construction instead of by timing: with
// RBMSCOPE_TEST_WRITE_PAUSE_MS=N the writer announces on stderr when the temporary holds its
// first 64 KiB and then sleeps N ms; with RBMSCOPE_TEST_RENAME_PAUSE_MS=N likewise after the rename.
int test_pause_ms(const char* variable) {
    const char* v = std::getenv(variable);
    return v ? std::max(0, std::atoi(v)) : 0;
}
void test_write_announce(const std::string& what) {
    const std::string line = "rbmscope: test write pause: " + what + "\n";
    (void)!::write(2, line.data(), line.size());
}

}  // namespace

std::vector<ArrayInfo> list_npz_arrays(const std::string& bytes) {
    std::vector<std::string> members;
    (void)read_npz(bytes, {}, &members);
    ArrayNameMap every;  // read every member, not only the standard names
    for (std::size_t i = 0; i < members.size(); ++i) every["#" + std::to_string(i)] = members[i];
    std::vector<std::string> again;
    const std::map<std::string, NpyArray> arrays = read_npz(bytes, every, &again);
    std::vector<ArrayInfo> out;
    for (const std::string& name : members) {
        const NpyArray& a = arrays.at(name);
        out.push_back({name, a.shape, a.is_string ? "string" : "number"});
    }
    return out;
}

Model model_from_json_text(const std::string& text, const std::string& origin) {
    return with_context(origin + ": ", [&] {
        // Keys a model file may hold (SPEC §8); others are skipped unread.
        static const std::vector<std::string> known{"format", "version", "kind", "name",  "notes",         "mean",       "cov",
                                                    "W",      "b",       "c",    "sigma", "hidden_values", "leakiness", "anneal_from",
                                                    "training"};
        const json j = json_text::parse(text, "a model's numbers must be finite", &known);
        if (!j.is_object())
            throw InputError("expected a JSON object {\"kind\": ..., \"W\": ...} at the top level, got " + type_name(j));
        Model m = model_from_json_object(j, false);
        validate_in(m);
        return m;
    });
}

std::string model_to_json_text(const Model& model) {
    std::string out;
    write_object(out, model, "");
    return out + "\n";
}

Model load_model(const fs::path& path) { return load_model_file(path, {}).model; }

ModelKind parse_model_kind(const std::string& kind) { return parse_kind(kind); }

LoadedModel load_model_file(const fs::path& path, const ModelLoadOptions& options) {
    const std::string origin = path.string();
    const std::string ext = lower_extension(path);
    if (is_named_container_extension(ext)) return load_named_container(path, ext, options);
    if (ext != ".json" && ext != ".npz" && ext != ".npy")
        throw InputError(origin + ": unknown model file extension '" + path.extension().string() +
                         "' (expected .json, .npz or .npy)" + kOtherModelExtensions);
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    const std::uint64_t cap = ext == ".npy" ? kMaxMemberBytes : ext == ".npz" ? 8 * kMaxMemberBytes : ~std::uint64_t(0);
    if (!ec && size > cap)
        throw InputError(origin + ": file is " + std::to_string(size) + " bytes, more than any model file may be");
    try {
        return model_from_file_bytes(read_file(path), ext, origin, options);
    } catch (const std::bad_alloc&) {
        throw InputError(origin + ": not enough memory to load this " + std::to_string(ec ? 0 : size) + "-byte model file");
    }
}

Model model_from_file_bytes(const std::string& bytes, const std::string& ext, const std::string& origin) {
    return model_from_file_bytes(bytes, ext, origin, {}).model;
}

LoadedModel model_from_file_bytes(const std::string& bytes, const std::string& ext, const std::string& origin,
                                  const ModelLoadOptions& options) {
    if (is_named_container_extension(ext)) return named_container_from_bytes(bytes, ext, origin, options);
    if (ext != ".json" && ext != ".npz" && ext != ".npy")
        throw InputError(origin + ": unknown model file extension '" + ext + "' (expected .json, .npz or .npy)" +
                         kOtherModelExtensions);
    if (!options.names.empty() && ext != ".npz")
        throw InputError(origin + ": --map names arrays of a container (.npz, .mat, .h5); a " + ext +
                         " file has fixed names");
    if (ext == ".json") return {model_from_json_text(bytes, origin), {}};
    if (bytes.empty()) throw InputError(origin + ": file is empty");
    // A lone .npy holds W of a BRBM with zero biases; parse_npy names the file itself.
    const NpyArray lone = ext == ".npy" ? parse_npy(bytes, origin) : NpyArray{};
    return with_context(origin + ": ", [&] {
        LoadedModel out;
        NamedArrays named;
        if (ext == ".npz") {
            std::vector<std::string> members;
            named.arrays = read_npz(bytes, options.names, &members);
            (void)choose_arrays(members, options, false);  // a map naming a missing array says what there is
            for (const auto& [key, name] : options.names) named.arrays[key] = named.arrays.at(name);
        } else {
            const NpyArray& a = lone;
            if (a.is_string || a.shape.size() != 2)
                throw InputError("a lone .npy file must hold 'W' as a 2-D array of numbers (n visible x m hidden), got " +
                                 (a.is_string ? std::string("strings") : "shape " + array_shape_text(a.shape)));
            named.arrays["W"] = a;
        }
        out.model = model_from_named_arrays(named, "", &out.warnings);
        if (const auto t = named.arrays.find("training"); t != named.arrays.end()) {
            const NpyArray& a = t->second;
            if (!a.is_string || a.strings.size() != 1)
                throw InputError("'training' must be a string array holding the JSON text of the training object, got " +
                                 (a.is_string ? "shape " + array_shape_text(a.shape) : std::string("numbers")));
            out.model.training = with_context("'training': ", [&] {
                return training_from_json(json_text::parse(a.strings[0], "numbers must be finite"), out.model.n_visible());
            });
        }
        validate_in(out.model);
        return out;
    });
}

void save_model(const Model& model, const fs::path& path) {
    const std::string ext = lower_extension(path);
    const std::string where = "cannot save the model to '" + path.string() + "': ";
    if (ext != ".json" && ext != ".npz" && !is_named_container_extension(ext))
        throw InputError(where + "unknown extension '" + path.extension().string() +
                         "' (expected .json or .npz); .mat, .h5 and .hdf5 are written too");
    with_context(where, [&] { validate_in(model); });
    if (ext == ".mat") {
        with_context(where, [&] { write_mat_model(model, path, false); });
    } else if (ext == ".h5" || ext == ".hdf5") {
        with_context(where, [&] { write_h5_model(model, path); });
    } else if (ext == ".json") {
        write_file_atomically(path, model_to_json_text(model));
    } else {
        std::vector<std::pair<std::string, std::string>> members;
        add_arrays(members, model, "");
        write_file_atomically(path, zip_members(members));
    }
}

void write_file_atomically(const fs::path& path, const std::string& bytes) {
    const std::string target = path.string();
    std::error_code ec;
    if (fs::is_directory(path, ec)) throw InputError("cannot write '" + target + "': it is a directory");
    remove_stale_temporaries(path);
    std::string tmp;
    int fd = -1;
    for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
        tmp = target + ".tmp-" + random_suffix();
        fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) throw InputError("cannot write '" + target + "': " + errno_text(errno));
    (void)::flock(fd, LOCK_EX | LOCK_NB);  // held until close: marks the temporary as alive
    const int pause_ms = test_pause_ms("RBMSCOPE_TEST_WRITE_PAUSE_MS"), rename_pause_ms = test_pause_ms("RBMSCOPE_TEST_RENAME_PAUSE_MS");
    auto fail = [&](const std::string& step, int e) {
        if (fd >= 0) ::close(fd);
        ::unlink(tmp.c_str());
        throw InputError("cannot write '" + target + "': " + step + ": " + errno_text(e) +
                         " (the previous file, if any, is unchanged)");
    };
    // Keep the permissions of the file being replaced.
    struct stat st {};
    if (::stat(target.c_str(), &st) == 0 && S_ISREG(st.st_mode)) (void)::fchmod(fd, st.st_mode & 07777);
    std::size_t done = 0;
    bool paused = pause_ms == 0;
    while (done < bytes.size()) {
        const std::size_t chunk = paused ? bytes.size() - done : std::min<std::size_t>(bytes.size() - done, 1 << 16);
        const ssize_t w = ::write(fd, bytes.data() + done, chunk);
        if (w < 0) {
            if (errno == EINTR) continue;
            fail("writing", errno);
        }
        done += static_cast<std::size_t>(w);
        if (!paused && done < bytes.size()) {
            paused = true;
            test_write_announce("writing " + tmp);
            std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
        }
    }
    if (::fsync(fd) != 0) fail("flushing to disk", errno);
    const int rc = ::close(fd);
    fd = -1;
    if (rc != 0) fail("closing", errno);
    if (::rename(tmp.c_str(), target.c_str()) != 0) fail("renaming the temporary file over it", errno);
    if (rename_pause_ms > 0) {
        test_write_announce("renamed " + target);
        std::this_thread::sleep_for(std::chrono::milliseconds(rename_pause_ms));
    }
    // Make the rename itself durable.
    const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)::fsync(dfd);
        ::close(dfd);
    }
}

std::string read_file(const fs::path& path) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) throw InputError("cannot read '" + path.string() + "': it is a directory");
    // A FIFO, socket or device would block or never end: only regular files are read. The
    // check is on the opened descriptor (O_NONBLOCK so opening a FIFO does not wait for a writer).
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw InputError("cannot read '" + path.string() + "': " + errno_text(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        const char* what = S_ISFIFO(st.st_mode) ? "a FIFO (named pipe)" : S_ISSOCK(st.st_mode) ? "a socket"
                           : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "not a regular file";
        throw InputError("cannot read '" + path.string() + "': it is " + std::string(what) +
                         ", not a regular file; give the path of a file");
    }
    (void)::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    std::FILE* f = ::fdopen(fd, "rb");
    if (!f) {
        const int e = errno;
        ::close(fd);
        throw InputError("cannot read '" + path.string() + "': " + errno_text(e));
    }
    if (!f) throw InputError("cannot read '" + path.string() + "': " + errno_text(errno));
    std::string out;
    char buf[1 << 16];
    std::size_t got = 0;
    while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, got);
    const bool bad = std::ferror(f) != 0;
    const int e = errno;
    std::fclose(f);
    if (bad) throw InputError("cannot read '" + path.string() + "': " + errno_text(e));
    return out;
}

}  // namespace rbm
