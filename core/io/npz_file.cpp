#include "core/io/npz_file.hpp"

#include <zip.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/io/input_context.hpp"
#include "core/io/json_text.hpp"
#include "core/io/model_json.hpp"
#include "core/io/npy.hpp"
#include "core/io/training_json.hpp"

namespace rbm {

namespace {

// The members read: the keys of the JSON schema (model_json.hpp); others are skipped unread.
const char* const kArrayKeys[] = {"W",    "b",    "c",   "sigma", "hidden_values", "leakiness",
                                  "kind", "mean", "cov", "name",  "notes",         "training"};

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
                    throw InputError(member + " is " + std::to_string(st.size) +
                                     " bytes uncompressed, but its .npy header declares " + std::to_string(declared) +
                                     " bytes; refused before inflating it");
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
    auto add = [&](const std::string& key, std::string bytes) {
        members.emplace_back(prefix + key + ".npy", std::move(bytes));
    };
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
                    add("hidden_values", write_npy(Vec(Eigen::Map<const Vec>(
                                             p.hidden_values.data(), static_cast<Index>(p.hidden_values.size())))));
                }
                if constexpr (std::is_same_v<T, Leaky>) add("leakiness", write_npy_scalar(p.leakiness));
            }
        },
        m.params);
    if (m.anneal_from) add_arrays(members, *m.anneal_from, prefix + kNestedPrefix);
    // The "training" object of the JSON file, as its JSON text in a string array.
    if (m.training && prefix.empty())
        add("training",
            write_npy_strings(
                {training_to_json(*m.training).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)}));
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

}  // namespace

std::vector<ArrayInfo> list_npz_arrays(const std::string& bytes) {
    std::vector<std::string> members;
    (void)read_npz(bytes, {}, &members);
    ArrayNameMap every;  // read every member, not only the standard names
    for (std::size_t i = 0; i < members.size(); ++i) {
        std::string key(1, '#');  // not "#" + to_string(i): GCC 12 warns falsely on that insert (-Wstringop-overflow)
        key += std::to_string(i);
        every[key] = members[i];
    }
    std::vector<std::string> again;
    const std::map<std::string, NpyArray> arrays = read_npz(bytes, every, &again);
    std::vector<ArrayInfo> out;
    for (const std::string& name : members) {
        const NpyArray& a = arrays.at(name);
        out.push_back({name, a.shape, a.is_string ? "string" : "number"});
    }
    return out;
}

LoadedModel model_from_numpy_bytes(const std::string& bytes, const std::string& ext, const std::string& origin,
                                   const ModelLoadOptions& options) {
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
                throw InputError(
                    "a lone .npy file must hold 'W' as a 2-D array of numbers (n visible x m hidden), got " +
                    (a.is_string ? std::string("strings") : "shape " + array_shape_text(a.shape)));
            named.arrays["W"] = a;
        }
        out.model = model_from_named_arrays(named, "", &out.warnings);
        if (const auto t = named.arrays.find("training"); t != named.arrays.end()) {
            const NpyArray& a = t->second;
            if (!a.is_string || a.strings.size() != 1)
                throw InputError(
                    "'training' must be a string array holding the JSON text of the training object, got " +
                    (a.is_string ? "shape " + array_shape_text(a.shape) : std::string("numbers")));
            out.model.training = with_context("'training': ", [&] {
                return training_from_json(json_text::parse(a.strings[0], "numbers must be finite"),
                                          out.model.n_visible());
            });
        }
        validate_model_file(out.model);
        return out;
    });
}

std::string model_to_npz_bytes(const Model& model) {
    std::vector<std::pair<std::string, std::string>> members;
    add_arrays(members, model, "");
    return zip_members(members);
}

}  // namespace rbm
