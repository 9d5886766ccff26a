// Hostile input, round 2, through the real binary: edited checkpoints
// (tests/data/bad_checkpoints, made by its make_corpus.py), models whose numbers overflow the
// arithmetic, a zip bomb inside an .npz, a 30 MB model file that is mostly an unknown key (peak
// memory, and a 300 MB address-space cap), a FIFO as a model path, messages that read like
// internals, and CSV files with a byte-order mark. Every refusal is exit 2 with one line.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "check.hpp"
#include "cli_runner.hpp"
#include "core/io/model_io.hpp"

using namespace rbm;
using namespace rbm::test;
namespace fs = std::filesystem;

namespace {

const fs::path kData = RBMSCOPE_TEST_DATA;

// Whether the program under test is instrumented: its shadow memory needs terabytes of address
// space (no RLIMIT_AS cap) and its resident size is not the loader's. scripts/sanitize.sh sets
// RBMSCOPE_SANITIZED and runs this (uninstrumented) driver against the instrumented rbmscope-cli.
const bool kSanitized = rbm::test::sanitized();

bool one_line_error(const CliResult& r, const std::string& needle) {
    return r.exit_code == 2 && r.out.empty() && r.stderr_lines() == 1 && r.err.find(needle) != std::string::npos;
}

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

// The run of a child: how it ended, its output, and its peak resident memory (wait4's rusage).
struct Child {
    int exit_code = -1, signal = 0;
    long max_rss_kb = 0;
    std::string out, err;
};

// Runs rbmscope-cli with `args`, its address space capped at `as_bytes` (0: no cap).
Child run_child(const std::vector<std::string>& args, std::uint64_t as_bytes = 0) {
    const fs::path out = temp_dir() / "child.out", err = temp_dir() / "child.err";
    const pid_t pid = ::fork();
    if (pid == 0) {
        if (as_bytes > 0) {
            rlimit r{};
            r.rlim_cur = r.rlim_max = as_bytes;
            ::setrlimit(RLIMIT_AS, &r);
        }
        const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644),
                  e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ::dup2(o, 1);
        ::dup2(e, 2);
        std::vector<std::string> a{rbm::test::cli_program()};
        a.insert(a.end(), args.begin(), args.end());
        std::vector<char*> argv;
        for (auto& s : a) argv.push_back(s.data());
        argv.push_back(nullptr);
        ::execv(rbm::test::cli_program(), argv.data());
        ::_exit(127);
    }
    Child c;
    int status = 0;
    rusage ru{};
    ::wait4(pid, &status, 0, &ru);
    c.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    c.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    c.max_rss_kb = ru.ru_maxrss;
    c.out = read_file(out);
    c.err = read_file(err);
    return c;
}

int lines(const std::string& s) {
    int n = 0;
    for (char ch : s) n += ch == '\n';
    return n;
}

// The corpus manifest: file name -> the substring its one-line error must contain.
std::vector<std::pair<std::string, std::string>> manifest(const fs::path& dir) {
    std::vector<std::pair<std::string, std::string>> out;
    std::ifstream in(dir / "EXPECTED.tsv");
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        const auto tab = line.find('\t');
        out.emplace_back(line.substr(0, tab), line.substr(tab + 1));
    }
    return out;
}

// The commands the corpus was made with (make_corpus.py).
const std::string kTrainResume = "train --data bars:3 --resume ";
const std::string kSweep =
    "ais-sweep four-mode --methods geometric:moment --steps 10,20 --chains 20 --repeats 2 --seed 5 ";

void put_le(std::string& s, std::uint64_t v, int bytes) {
    for (int k = 0; k < bytes; ++k) s += static_cast<char>((v >> (8 * k)) & 0xFF);
}

// An .npz with one member W.npy: a .npy header declaring shape (2, 2) float64 followed by
// `total` bytes in all, zeros after the 32 data bytes. Deflated, a gigabyte is about a megabyte.
std::string zip_bomb(std::uint64_t total) {
    std::string npy = std::string("\x93NUMPY\x01\x00", 8);
    std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }";
    dict.append(64 - (10 + dict.size() + 1) % 64, ' ');
    dict += '\n';
    put_le(npy, dict.size(), 2);
    npy += dict;
    npy.append(32, '\0');
    std::string deflated;
    z_stream z{};
    deflateInit2(&z, 9, Z_DEFLATED, -15, 9, Z_RLE);
    uLong crc = crc32(0, nullptr, 0);
    const std::string zeros(1 << 20, '\0');
    std::uint64_t fed = 0;
    char buf[1 << 16];
    auto feed = [&](const std::string& chunk, int flush) {
        crc = crc32(crc, reinterpret_cast<const Bytef*>(chunk.data()), static_cast<uInt>(chunk.size()));
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(chunk.data()));
        z.avail_in = static_cast<uInt>(chunk.size());
        do {
            z.next_out = reinterpret_cast<Bytef*>(buf);
            z.avail_out = sizeof buf;
            deflate(&z, flush);
            deflated.append(buf, sizeof buf - z.avail_out);
        } while (z.avail_out == 0);
        fed += chunk.size();
    };
    feed(npy, Z_NO_FLUSH);
    while (fed + zeros.size() < total) feed(zeros, Z_NO_FLUSH);
    feed(std::string(total - fed, '\0'), Z_FINISH);
    deflateEnd(&z);
    const std::string name = "W.npy";
    std::string zip;
    put_le(zip, 0x04034b50, 4);
    put_le(zip, 20, 2), put_le(zip, 0, 2), put_le(zip, 8, 2), put_le(zip, 0, 2), put_le(zip, 0x21, 2);
    put_le(zip, crc, 4), put_le(zip, deflated.size(), 4), put_le(zip, total, 4);
    put_le(zip, name.size(), 2), put_le(zip, 0, 2);
    zip += name + deflated;
    const std::uint64_t central = zip.size();
    put_le(zip, 0x02014b50, 4);
    put_le(zip, 20, 2), put_le(zip, 20, 2), put_le(zip, 0, 2), put_le(zip, 8, 2), put_le(zip, 0, 2),
        put_le(zip, 0x21, 2);
    put_le(zip, crc, 4), put_le(zip, deflated.size(), 4), put_le(zip, total, 4);
    put_le(zip, name.size(), 2), put_le(zip, 0, 2), put_le(zip, 0, 2), put_le(zip, 0, 2), put_le(zip, 0, 2);
    put_le(zip, 0, 4), put_le(zip, 0, 4);
    zip += name;
    const std::uint64_t central_size = zip.size() - central;
    put_le(zip, 0x06054b50, 4);
    put_le(zip, 0, 2), put_le(zip, 0, 2), put_le(zip, 1, 2), put_le(zip, 1, 2);
    put_le(zip, central_size, 4), put_le(zip, central, 4), put_le(zip, 0, 2);
    return zip;
}

}  // namespace

TEST_CASE("every edited checkpoint of the corpus is refused with one line naming the key (exit 2)") {
    const fs::path dir = kData / "bad_checkpoints";
    const auto entries = manifest(dir);
    CHECK(entries.size() >= 40);
    int train = 0, sweep = 0;
    for (const auto& [file, expected] : entries) {
        const bool is_train = file.rfind("train-", 0) == 0;
        const std::string cmd =
            is_train ? kTrainResume + q(dir / file) + " --out " + q(temp_dir() / "resumed.json")
                     : kSweep + "--resume " + q(dir / file) + " --checkpoint " + q(temp_dir() / "sweep-out.json");
        const CliResult r = run_cli(cmd);
        CHECK_MSG(one_line_error(r, expected),
                  file << ": exit " << r.exit_code << ", stderr: " << r.err << " (expected: " << expected << ")");
        CHECK_MSG(r.err.find(file) != std::string::npos, file << ": the message does not name the file: " << r.err);
        (is_train ? train : sweep) += 1;
    }
    CHECK(train >= 30 && sweep >= 10);
    // Every file in the directory is in the manifest (a new one without a message is a mistake).
    int files = 0;
    for (const auto& e : fs::directory_iterator(dir)) files += e.path().extension() == ".json";
    CHECK(files == static_cast<int>(entries.size()));
}

TEST_CASE("the corpus's valid seeds resume and finish (the edits, not the bases, are refused)") {
    const fs::path seeds = kData / "fuzz" / "train_checkpoint";
    for (const char* base : {"lpt.json", "pcd.json"}) {
        const CliResult r = run_cli(kTrainResume + q(seeds / base) + " --updates 9 --out " + q(temp_dir() / "ok.json"));
        CHECK_MSG(r.exit_code == 0, base << ": " << r.err);
    }
    const CliResult s = run_cli(kSweep + "--resume " + q(kData / "fuzz" / "sweep_checkpoint" / "sweep.json") +
                                " --checkpoint " + q(temp_dir() / "sweep-ok.json"));
    CHECK_MSG(s.exit_code == 0, s.err);
}

TEST_CASE("models whose numbers overflow the arithmetic: every command refuses them (exit 2) or prints no null") {
    struct Hostile {
        const char* name;
        std::string text;
        const char* key;
    };
    const std::vector<Hostile> models = {
        {"W-1e308", R"({"kind": "brbm", "W": [[1e308, 0], [0, 1]], "b": [0, 0], "c": [0, 0]})",
         "'W' holds 1e+308 at W[0][0]"},
        {"b-1e308", R"({"kind": "brbm", "W": [[1, 0], [0, 1]], "b": [1e308, 0], "c": [0, 0]})",
         "'b' holds 1e+308 at b[0]"},
        {"W-1e200", R"({"kind": "grbm", "W": [[1e200], [1]], "b": [0, 0], "c": [0]})", "'W' holds 1e+200"},
        {"hidden-1e300", R"({"kind": "grbm", "W": [[1], [1]], "hidden_values": [0, 1e300]})",
         "'hidden_values' holds 1e+300"},
        {"sigma-1e-300", R"({"kind": "grbm", "W": [[1], [1]], "sigma": [1e-300, 1]})",
         "sigma must lie in [1e-06, 1000000]"},
    };
    const std::vector<std::string> commands = {"info",
                                               "exact",
                                               "sample --sweeps 5",
                                               "ais --steps 20 --chains 20",
                                               "pt --sweeps 20",
                                               "meanfield",
                                               "ais-sweep --steps 10 --chains 10 --repeats 1",
                                               "convert"};
    for (const auto& m : models) {
        const std::string path = write_temp(std::string(m.name) + ".json", m.text);
        for (const std::string& c : commands) {
            const std::string verb = c.substr(0, c.find(' ')),
                              rest = c.find(' ') == std::string::npos ? "" : c.substr(c.find(' '));
            const std::string extra = verb == "convert" ? " " + q(temp_dir() / "converted.json") : "";
            const CliResult r = run_cli(verb + " " + q(path) + extra + rest);
            CHECK_MSG(one_line_error(r, m.key) && r.err.find("1e6") == std::string::npos,
                      m.name << " / " << c << ": exit " << r.exit_code << ": " << r.err);
            CHECK_MSG(r.err.find("supported range is |W| <= 50") != std::string::npos,
                      m.name << " / " << c << ": " << r.err);
        }
    }
    // At the limit the numbers are still held: no command prints null with exit 0.
    const std::string edge = write_temp(
        "edge.json", R"({"kind": "brbm", "W": [[1e6, -1e6], [1e6, 1e6]], "b": [1e6, -1e6], "c": [-1e6, 1e6]})");
    for (const std::string& c : commands) {
        const std::string verb = c.substr(0, c.find(' ')),
                          rest = c.find(' ') == std::string::npos ? "" : c.substr(c.find(' '));
        const std::string extra = verb == "convert" ? " " + q(temp_dir() / "converted.json") : "";
        const CliResult r = run_cli(verb + " " + q(edge) + extra + rest);
        CHECK_MSG(
            r.exit_code == 2 || (r.exit_code == 0 && r.out.find("null") == std::string::npos),
            "edge / " << c << ": exit " << r.exit_code << ", stdout " << r.out.substr(0, 300) << ", stderr " << r.err);
    }
}

TEST_CASE("an .npz member whose header declares (2, 2) over a gigabyte of zeros is refused before it is inflated") {
    const std::string bomb = zip_bomb(std::uint64_t{1} << 30);
    CHECK(bomb.size() < (std::size_t{8} << 20));
    const fs::path path = temp_dir() / "bomb.npz";
    std::ofstream(path, std::ios::binary) << bomb;
    const Child c = run_child({"info", path.string()});
    CHECK_MSG(c.exit_code == 2 && lines(c.err) == 1,
              "exit " << c.exit_code << ", signal " << c.signal << ": " << c.err);
    CHECK_MSG(c.err.find("member 'W.npy' is 1073741824 bytes uncompressed, but its .npy header declares 160 bytes") !=
                  std::string::npos,
              c.err);
    // Inflating it would take a gigabyte; refused after the header, the whole run stays small.
    if (!kSanitized) CHECK_MSG(c.max_rss_kb < 100 * 1024, "peak memory " << c.max_rss_kb << " kB");
}

TEST_CASE(
    "a 30 MB model file that is mostly an unknown key: skipped unbuilt, and a memory cap is exit 2, not an abort") {
    const fs::path path = temp_dir() / "mostly-unknown.json";
    {
        std::ofstream f(path);
        f << R"({"kind": "brbm", "W": [[0.5, -0.25]], "b": [0.1], "c": [0, 0], "extra": [)";
        for (int k = 0; k < 5'000'000; ++k) f << (k ? ",0.125" : "0.125");
        f << R"(], "name": "big but small"})"
          << "\n";
    }
    const auto size = fs::file_size(path);
    CHECK(size > 30'000'000);
    const Child c = run_child({"info", path.string()});
    CHECK_MSG(c.exit_code == 0, c.err);
    CHECK(c.out.find("big but small") != std::string::npos);
    std::printf("  info on a %.1f MB file with an unknown key: peak %.1f MB (%.2f x the file)\n", size / 1e6,
                c.max_rss_kb / 1e3, c.max_rss_kb * 1024.0 / static_cast<double>(size));
    if (!kSanitized) {
        CHECK_MSG(static_cast<double>(c.max_rss_kb) * 1024 < 3.0 * static_cast<double>(size),
                  "peak " << c.max_rss_kb << " kB");
        // Under a 300 MB address-space cap the same file still loads...
        const Child capped = run_child({"info", path.string()}, 300u << 20);
        CHECK_MSG(capped.exit_code == 0,
                  "exit " << capped.exit_code << ", signal " << capped.signal << ": " << capped.err);
        // ...and a file whose known key needs more than the cap is one line and exit 2, not SIGABRT.
        const fs::path big = temp_dir() / "big-W.json";
        {
            std::ofstream f(big);
            f << R"({"kind": "brbm", "W": [)";
            // 25 million weights: a 50 MB file whose DOM alone needs 400 MB.
            const std::string row = "[0" + [] {
                std::string r;
                for (int k = 1; k < 5000; ++k) r += ",0";
                return r;
            }() + "]";
            for (int r = 0; r < 5000; ++r) f << (r ? "," : "") << row;
            f << "]}\n";
        }
        const Child oom = run_child({"info", big.string()}, 300u << 20);
        CHECK_MSG(oom.exit_code == 2 && oom.signal == 0 && lines(oom.err) == 1 && oom.out.empty(),
                  "exit " << oom.exit_code << ", signal " << oom.signal << ": " << oom.err);
        CHECK_MSG(oom.err.find("memory") != std::string::npos, oom.err);
    }
}

TEST_CASE("a FIFO, a directory or a device as a model path is refused at once") {
    const fs::path fifo = temp_dir() / "pipe.json";
    CHECK(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK(one_line_error(run_cli("info " + q(fifo)), "it is a FIFO (named pipe), not a regular file"));
    CHECK(one_line_error(run_cli("train --data bars:3 --resume " + q(fifo) + " --out " + q(temp_dir() / "x.json")),
                         "it is a FIFO"));
    fs::create_directories(temp_dir() / "dir.json");
    CHECK(one_line_error(run_cli("info " + q(temp_dir() / "dir.json")), "it is a directory"));
    fs::create_symlink("/dev/zero", temp_dir() / "device.json");  // would never end
    CHECK(one_line_error(run_cli("info " + q(temp_dir() / "device.json")), "it is a device, not a regular file"));
}

TEST_CASE("messages that read like internals now say what to change") {
    // --gamma so small that the ladder underflows names the least gamma that works.
    const CliResult g = run_cli("pt four-mode --gamma 1e-300 --sweeps 10");
    CHECK_MSG(
        one_line_error(g, "gamma = 1e-300 is too small for") && g.err.find("choose gamma >=") != std::string::npos,
        g.err);
    CHECK(g.err.find("follows beta_0") == std::string::npos);
    const CliResult t =
        run_cli("train --data bars:3 --method pt --gamma 1e-300 --updates 2 --out " + q(temp_dir() / "x.json"));
    CHECK_MSG(one_line_error(t, "too small for"), t.err);
}

TEST_CASE("a CSV data file with a UTF-8 byte-order mark keeps its first row") {
    const std::string csv = write_temp("bom.csv",
                                       "\xEF\xBB\xBF"
                                       "1,0,1,0\n0,1,0,1\n1,1,0,0\n");
    const CliResult r = run_cli("data-info " + q(csv));
    CHECK_MSG(r.exit_code == 0, r.err);
    if (r.exit_code == 0) CHECK_MSG(r.json()["examples"] == 3, r.out);
}

TEST_CASE("every file of tests/data/bad: one line and exit 2 from info, its message, under 256 MB (RLIMIT_AS)") {
    // The address space is capped at 256 MiB where the OS allows it (not under the sanitizers,
    // whose shadow memory is terabytes of address space): a loader that allocated what a header
    // claims would fail there with bad_alloc, which the CLI reports as a memory message, not the
    // file's own one. The peak resident size (wait4) is checked too.
    const fs::path dir = kData / "bad";
    const auto files = manifest(dir);
    CHECK(files.size() >= 150);
    long peak_kb = 0;
    std::string peak_file;
    for (const auto& [file, needle] : files) {
        const Child c = run_child({"info", (dir / file).string()}, kSanitized ? 0 : std::uint64_t{256} << 20);
        CHECK_MSG(c.exit_code == 2 && c.signal == 0 && lines(c.err) == 1 && c.out.empty(),
                  file << ": exit " << c.exit_code << ", signal " << c.signal << ": " << c.err.substr(0, 400));
        CHECK_MSG(c.err.find(needle) != std::string::npos,
                  file << ": '" << c.err.substr(0, 400) << "' lacks '" << needle << "'");
        if (c.max_rss_kb > peak_kb) {
            peak_kb = c.max_rss_kb;
            peak_file = file;
        }
    }
    std::printf("  %zu files, largest peak %.1f MB (%s)\n", files.size(), peak_kb / 1024.0, peak_file.c_str());
    if (!kSanitized) CHECK_MSG(peak_kb < 256 * 1024, peak_file << ": peak " << peak_kb << " kB");
}

TEST_CASE("8 GB sparse model files are refused at once: by size where the file is read whole, .h5 by its header") {
    // truncate: no disk used. A sparse .mat took 10 minutes and 15 GB to be refused before.
    const std::vector<std::pair<std::string, std::string>> cases{
        {"sparse.mat",
         "(8589934592 bytes, 8.0 GiB): a MATLAB v4/v5 file is read whole to be checked, and one over "
         "twice the memory budget (2 x 1.0 GiB) is refused; --max-memory 4G allows it"},
        {"sparse.json", "(8589934592 bytes) needs 8.0 GiB, more than the memory budget (1.0 GiB)"},
        {"sparse.npz", "(8589934592 bytes) needs 8.0 GiB, more than the memory budget (1.0 GiB)"},
        {"sparse.npy", "bytes, more than any model file may be"},
        {"sparse.h5", "not an HDF5 file libhdf5 can read (file signature not found)"}};
    for (const auto& [name, needle] : cases) {
        const fs::path path = temp_dir() / name;
        { std::ofstream touch(path); }
        CHECK(::truncate(path.c_str(), off_t{8} << 30) == 0);
        const Child c = run_child({"info", path.string(), "--max-memory", "1G"});
        CHECK_MSG(c.exit_code == 2 && lines(c.err) == 1 && c.out.empty(),
                  name << ": exit " << c.exit_code << ": " << c.err);
        CHECK_MSG(c.err.find(needle) != std::string::npos, name << ": " << c.err);
        if (!kSanitized) CHECK_MSG(c.max_rss_kb < 100 * 1024, name << ": peak " << c.max_rss_kb << " kB");
        fs::remove(path);
    }
}

TEST_CASE("a long value in a message is elided with its length: one readable line") {
    // A 1 MB 'kind' was echoed in full (a 1 MB line); a 100 000-character --path too.
    const std::string kind(1'000'000, 'k');
    const std::string file = write_temp(
        "long-kind.json", R"({"format": "rbmscope-model", "version": 1, "kind": ")" + kind + R"(", "W": [[1]]})");
    const CliResult r = run_cli("info " + q(file));
    CHECK_MSG(one_line_error(r, "unknown kind 'kkkkkkkkkkkkkkkk"), r.err.substr(0, 300));
    CHECK_MSG(r.err.find("...[1000002 bytes]...kkkkkkkkkkkkkkk'") != std::string::npos, r.err.substr(0, 300));
    CHECK_MSG(r.err.size() < 400, r.err.size());
    const CliResult p = run_cli("ais four-mode --path " + std::string(100'000, 'p'));
    CHECK_MSG(p.exit_code == 2 && p.stderr_lines() == 1 && p.err.size() < 400, p.err.substr(0, 300));
    CHECK_MSG(
        p.err.find("got 'pppppppp") != std::string::npos && p.err.find("...[100002 bytes]...") != std::string::npos,
        p.err.substr(0, 300));
}

RBM_TEST_MAIN
