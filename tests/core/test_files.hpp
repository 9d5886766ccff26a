#pragma once
// Helpers for the suites that read and write files (model files, sessions): bit-for-bit
// comparison of models, a temporary directory, a file's bytes, and an InputError's message.
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "check.hpp"
#include "core/models/models.hpp"
#include "core/numerics/types.hpp"

namespace rbm::test {

inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

template <class A, class B>
bool same_bits(const Eigen::MatrixBase<A>& a, const Eigen::MatrixBase<B>& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
    for (Index i = 0; i < a.rows(); ++i)
        for (Index j = 0; j < a.cols(); ++j)
            if (!same_bits(a(i, j), b(i, j))) return false;
    return true;
}

inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!same_bits(a[i], b[i])) return false;
    return true;
}

// Every number, string and nested model identical, bit for bit.
inline bool same_model(const Model& x, const Model& y) {
    if (x.kind() != y.kind() || x.name != y.name || x.notes != y.notes) return false;
    if (bool(x.anneal_from) != bool(y.anneal_from)) return false;
    if (x.anneal_from && !same_model(*x.anneal_from, *y.anneal_from)) return false;
    if (const auto* a = x.as<Grbm>()) {
        const auto* b = y.as<Grbm>();
        return same_bits(a->W, b->W) && same_bits(a->b, b->b) && same_bits(a->c, b->c) &&
               same_bits(a->sigma, b->sigma) && same_bits(a->hidden_values, b->hidden_values);
    }
    if (const auto* a = x.as<Brbm>()) {
        const auto* b = y.as<Brbm>();
        return same_bits(a->W, b->W) && same_bits(a->b, b->b) && same_bits(a->c, b->c);
    }
    if (const auto* a = x.as<Leaky>()) {
        const auto* b = y.as<Leaky>();
        return same_bits(a->W, b->W) && same_bits(a->b, b->b) && same_bits(a->c, b->c) &&
               same_bits(a->leakiness, b->leakiness);
    }
    const auto* a = x.as<Gaussian>();
    const auto* b = y.as<Gaussian>();
    return same_bits(a->mean, b->mean) && same_bits(a->cov, b->cov);
}

struct TempDir {
    std::filesystem::path path;
    TempDir() {
        static int count = 0;
        path = std::filesystem::temp_directory_path() /
               ("rbmscope-test-" + std::to_string(::getpid()) + "-" + std::to_string(count++));
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::permissions(path, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
        std::filesystem::remove_all(path, ec);
    }
    std::set<std::string> entries() const {
        std::set<std::string> out;
        for (const auto& e : std::filesystem::directory_iterator(path)) out.insert(e.path().filename().string());
        return out;
    }
};

inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

inline std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no InputError)";
}

// A corpus of bad files: `dir` holds them and EXPECTED.tsv, one "file<TAB>substring" line each
// (# starts a comment). Checks that the manifest and the directory list the same files, and
// returns file -> the substring its message must contain.
inline std::map<std::string, std::string> read_corpus_manifest(const std::filesystem::path& dir) {
    std::ifstream manifest(dir / "EXPECTED.tsv");
    CHECK(manifest.good());
    std::map<std::string, std::string> expected;
    std::string line;
    while (std::getline(manifest, line)) {
        if (line.empty() || line[0] == '#') continue;
        const auto tab = line.find('\t');
        CHECK_MSG(tab != std::string::npos && tab + 1 < line.size(), "malformed manifest line: " << line);
        if (tab == std::string::npos) continue;
        CHECK_MSG(expected.emplace(line.substr(0, tab), line.substr(tab + 1)).second,
                  "file listed twice: " << line.substr(0, tab));
    }
    std::set<std::string> on_disk;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().filename() != "EXPECTED.tsv") on_disk.insert(e.path().filename().string());
    for (const auto& f : on_disk) CHECK_MSG(expected.count(f), "corpus file missing from EXPECTED.tsv: " << f);
    for (const auto& [f, sub] : expected) CHECK_MSG(on_disk.count(f), "EXPECTED.tsv lists a missing file: " << f);
    return expected;
}

// Every file of the corpus must make `load` throw an InputError whose message contains its
// substring, names the file first and fits on one line.
inline void check_corpus_messages(const std::filesystem::path& dir, const std::map<std::string, std::string>& expected,
                                  const std::function<void(const std::filesystem::path&)>& load) {
    for (const auto& [f, sub] : expected) {
        const std::filesystem::path p = dir / f;
        std::string msg;
        bool input_error = false;
        try {
            load(p);
            msg = "(loaded without error)";
        } catch (const InputError& e) {
            input_error = true;
            msg = e.what();
        } catch (const std::exception& e) {
            msg = std::string("wrong exception type: ") + e.what();
        }
        CHECK_MSG(input_error, f << ": " << msg);
        CHECK_MSG(msg.find(sub) != std::string::npos, f << ": message '" << msg << "' lacks '" << sub << "'");
        CHECK_MSG(msg.rfind(p.string() + ": ", 0) == 0, f << ": message does not start with the path: " << msg);
        CHECK_MSG(msg.find('\n') == std::string::npos && msg.find('\r') == std::string::npos,
                  f << ": message spans several lines");
    }
}

}  // namespace rbm::test
