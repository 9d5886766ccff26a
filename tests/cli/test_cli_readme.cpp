// The README and the pages under docs/ tell the truth: every figure they quote from a command's
// output, and every rbmscope-cli command line in their code blocks, is listed in
// tests/data/readme_figures.json and checked here against the real binary. The documents are
// README.md, CHANGELOG.md, CONTRIBUTING.md and every docs/**/*.md; each manifest entry names the
// one it is quoted in ("file", README.md when absent), so a figure that moves to another page
// moves in the manifest too. Every relative link in them must reach a file, and a heading when it
// names one (#anchor, as GitHub makes them).
//
// For each run of the manifest: the command is run (in a scratch folder where `tests/` is the
// source tree's, so the documents' relative paths work), and for each figure (a) its document still
// contains the quoted text, which contains the printed value, and (b) the value at the JSON
// pointer of the output (times "scale", when given) rounds to the printed value at its printed
// precision (runs are deterministic for a seed, so this is exact, not statistical). Figures and
// commands that take minutes are listed with the script that produces them, and the quoted text
// is still checked. Under RBMSCOPE_SANITIZED=1 only the runs and commands marked cheap are run;
// the others are named on stdout as skipped.
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "check.hpp"
#include "cli_runner.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace rbm::test;

namespace {

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The documents whose figures and commands are checked, by path relative to the source tree.
const std::map<std::string, std::string>& documents() {
    static const std::map<std::string, std::string> docs = [] {
        const fs::path root(RBMSCOPE_SOURCE_DIR);
        std::map<std::string, std::string> d;
        for (const char* top : {"README.md", "CHANGELOG.md", "CONTRIBUTING.md"})
            if (fs::exists(root / top)) d[top] = read_text(root / top);
        for (const auto& e : fs::recursive_directory_iterator(root / "docs"))
            if (e.is_regular_file() && e.path().extension() == ".md")
                d[fs::relative(e.path(), root).generic_string()] = read_text(e.path());
        return d;
    }();
    return docs;
}

// The document a manifest entry is quoted in ("file", README.md when absent); empty when missing.
const std::string& document_of(const json& entry) {
    static const std::string none;
    const auto it = documents().find(entry.value("file", std::string("README.md")));
    return it == documents().end() ? none : it->second;
}

const json& manifest() {
    static const json m = json::parse(read_text(fs::path(RBMSCOPE_TEST_DATA) / "readme_figures.json"));
    return m;
}

bool cheap(const json& entry) { return entry.value("cheap", true); }

// The scratch folder the documents' commands run in: `tests` points at the source tree's, so
// `tests/data/loaders/...` resolves, and files the commands write (model.json, digits-brbm.json)
// stay here.
const fs::path& work_dir() {
    static const fs::path dir = [] {
        const fs::path d = temp_dir() / "work";
        fs::create_directories(d);
        fs::create_directory_symlink(fs::path(RBMSCOPE_SOURCE_DIR) / "tests", d / "tests");
        return d;
    }();
    return dir;
}

// "rbmscope-cli ..." anywhere in a shell line becomes the binary under test.
std::string with_binary(std::string line) {
    const std::string word = "rbmscope-cli";
    const std::string cli = std::string("'") + rbm::test::cli_program() + "'";
    for (std::size_t at = line.find(word); at != std::string::npos; at = line.find(word, at + cli.size())) {
        const bool starts = at == 0 || line[at - 1] == ' ' || line[at - 1] == '(' || line[at - 1] == '"';
        const bool ends = at + word.size() == line.size() || line[at + word.size()] == ' ';
        if (starts && ends) line.replace(at, word.size(), cli);
    }
    return line;
}

// Command lines that already ran and succeeded in this process (a figure's command, a setup).
std::set<std::string>& ran_ok() {
    static std::set<std::string> lines;
    return lines;
}

// Runs one line in work_dir(); lines over a second are named with their time (the suite's cost).
CliResult run_line(const std::string& line, int expected_exit = 0) {
    const auto t0 = std::chrono::steady_clock::now();
    CliResult r = run_shell("cd '" + work_dir().string() + "' && " + with_binary(line));
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (secs > 1) std::printf("  %.1f s: %s\n", secs, line.c_str());
    if (r.exit_code == expected_exit) ran_ok().insert(line);
    return r;
}

// A printed number as written in the documents: U+2212 minus, thin or plain spaces and commas as
// digit group separators, an optional exponent. Returns the value and the half-width of the
// interval of numbers that print so.
bool parse_printed(const std::string& printed, double& value, double& half_width) {
    std::string s;
    for (std::size_t i = 0; i < printed.size();) {
        if (printed.compare(i, 3, "\xE2\x88\x92") == 0) {  // −
            s += '-';
            i += 3;
        } else if (printed.compare(i, 3, "\xE2\x80\x89") == 0 ||
                   printed.compare(i, 2, "\xC2\xA0") == 0) {  // thin, nbsp
            i += printed[i] == '\xE2' ? 3 : 2;
        } else if (printed[i] == ' ' || printed[i] == ',') {
            ++i;
        } else {
            s += printed[i++];
        }
    }
    if (s.empty()) return false;
    char* end = nullptr;
    value = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size()) return false;
    const std::size_t e = s.find_first_of("eE");
    const std::string mantissa = s.substr(0, e);
    const std::size_t dot = mantissa.find('.');
    const int decimals = dot == std::string::npos ? 0 : int(mantissa.size() - dot - 1);
    const int exponent = e == std::string::npos ? 0 : std::atoi(s.c_str() + e + 1);
    half_width = 0.5 * std::pow(10.0, exponent - decimals);
    return true;
}

void check_readme_text(const json& entry, const std::string& where) {
    const std::string text = entry.at("readme");
    const std::string file = entry.value("file", std::string("README.md"));
    CHECK_MSG(documents().count(file), where << ": no document " << file << " (the manifest's \"file\")");
    CHECK_MSG(document_of(entry).find(text) != std::string::npos,
              where << ": " << file << " no longer contains '" << text << "'");
}

void check_figure(const json& figure, const CliResult& r, const std::string& command) {
    check_readme_text(figure, command);
    const std::string text = figure.at("readme");
    if (figure.contains("contains")) {  // a message: the document quotes it, the program prints it
        const std::string want = figure["contains"];
        const std::string& stream = figure.value("stream", "stdout") == "stderr" ? r.err : r.out;
        CHECK_MSG(text.find(want) != std::string::npos, command << ": '" << want << "' is not in the quoted text");
        // "release_only": what the Release program prints but an instrumented one cannot (e.g. the
        // signal of a crash, which AddressSanitizer turns into an abort); the entry says why.
        if (sanitized() && figure.contains("release_only")) {
            std::printf("  not compared under RBMSCOPE_SANITIZED: '%s' (%s)\n", want.c_str(),
                        figure["release_only"].get<std::string>().c_str());
            return;
        }
        CHECK_MSG(stream.find(want) != std::string::npos, command << ": output lacks '" << want << "'");
        return;
    }
    const std::string printed = figure.at("printed");
    CHECK_MSG(text.find(printed) != std::string::npos, command << ": '" << printed << "' is not in '" << text << "'");
    double want = 0, half = 0;
    const bool number = parse_printed(printed, want, half);
    if (figure.contains("pattern")) {  // a number in a line of text (stderr: RBMSCOPE_MPI_STATS)
        const std::string& stream = figure.value("stream", "stdout") == "stderr" ? r.err : r.out;
        std::smatch m;
        const std::regex re(figure["pattern"].get<std::string>());
        CHECK_MSG(number && std::regex_search(stream, m, re),
                  command << ": no match for " << figure["pattern"] << " in '" << stream << "'");
        if (number && m.size() > 1)
            CHECK_MSG(std::fabs(std::strtod(m.str(1).c_str(), nullptr) - want) <= half,
                      command << ": printed " << m.str(1) << ", the document says '" << printed << "'");
        return;
    }
    json out;
    try {
        out = json::parse(r.out);
    } catch (const std::exception& e) {
        CHECK_MSG(false, command << ": stdout is not JSON: " << e.what());
        return;
    }
    const json::json_pointer ptr(figure.at("path").get<std::string>());
    CHECK_MSG(out.contains(ptr), command << ": output has no " << ptr.to_string());
    if (!out.contains(ptr)) return;
    const json& v = out[ptr];
    if (v.is_string()) {
        CHECK_MSG(v.get<std::string>() == printed, command << ": " << ptr.to_string() << " is '" << v.get<std::string>()
                                                           << "', the document prints '" << printed << "'");
        return;
    }
    CHECK_MSG(number && v.is_number(),
              command << ": " << ptr.to_string() << " = " << v.dump() << ", the document prints '" << printed << "'");
    if (!number || !v.is_number()) return;
    const double got = v.get<double>() * figure.value("scale", 1.0);
    // The boundary of the interval is allowed a few ulps of the printed value.
    const bool rounds = std::fabs(got - want) <= half * (1 + 1e-9) + 4e-16 * std::fabs(want);
    std::ostringstream g;
    g.precision(17);
    g << got;
    CHECK_MSG(rounds, command << ": " << ptr.to_string() << " = " << g.str() << " does not print as '" << printed
                              << "' (quoted: '" << text << "')");
}

bool mpi_available() {
#ifdef RBMSCOPE_MPIEXEC
    return true;
#else
    return false;
#endif
}

// Replaces a leading "mpirun" by the launcher the build found, with --oversubscribe (two cores).
std::string with_launcher(std::string line) {
#ifdef RBMSCOPE_MPIEXEC
    const std::string env = std::getenv("ASAN_OPTIONS") ? "ASAN_OPTIONS=\"$ASAN_OPTIONS:detect_leaks=0\" " : "";
    const std::size_t at = line.find("mpirun ");
    if (at != std::string::npos) line.replace(at, 7, env + RBMSCOPE_MPIEXEC + std::string(" --oversubscribe "));
#endif
    return line;
}

// The rbmscope-cli lines of a document's ```sh blocks: continuation lines joined, the comment
// after " #" dropped, runs of spaces made one.
std::vector<std::string> command_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    std::string line, pending;
    bool in_sh = false;
    while (std::getline(in, line)) {
        const std::size_t first = line.find_first_not_of(' ');
        const std::string trimmed = first == std::string::npos ? "" : line.substr(first);
        if (trimmed.rfind("```", 0) == 0) {
            in_sh = !in_sh && trimmed == "```sh";
            pending.clear();
            continue;
        }
        if (!in_sh || (pending.empty() && trimmed.rfind("#", 0) == 0)) continue;
        std::string code = trimmed;
        if (const std::size_t hash = code.find(" #"); hash != std::string::npos) code.erase(hash);
        while (!code.empty() && code.back() == ' ') code.pop_back();
        if (!code.empty() && code.back() == '\\') {
            code.pop_back();
            pending += code + " ";
            continue;
        }
        code = pending + code;
        pending.clear();
        std::string normal;
        for (char c : code)
            if (!(c == ' ' && (normal.empty() || normal.back() == ' '))) normal += c;
        while (!normal.empty() && normal.back() == ' ') normal.pop_back();
        const std::size_t at = normal.find("rbmscope-cli");
        if (at != std::string::npos && (at == 0 || normal[at - 1] == ' ' || normal[at - 1] == '('))
            lines.push_back(normal);
    }
    return lines;
}

// A heading's anchor as GitHub makes it: lower case, a hyphen for each space, punctuation dropped;
// letters, digits, '-' and '_' stay, and so do the letters beyond ASCII of Latin-1 to Latin
// Extended-B, Greek and Cyrillic (other symbols such as × or — are dropped).
std::string anchor_of(const std::string& heading) {
    std::string a;
    for (std::size_t i = 0; i < heading.size();) {
        const unsigned char c = static_cast<unsigned char>(heading[i]);
        if (c < 0x80) {
            if (std::isalnum(c) || c == '-' || c == '_') a += static_cast<char>(std::tolower(c));
            else if (c == ' ') a += '-';
            ++i;
            continue;
        }
        const std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        unsigned cp = c & (len == 2 ? 0x1Fu : len == 3 ? 0x0Fu : 0x07u);
        for (std::size_t k = 1; k < len && i + k < heading.size(); ++k)
            cp = (cp << 6) | (static_cast<unsigned char>(heading[i + k]) & 0x3Fu);
        const bool letter = (cp >= 0xC0 && cp <= 0x24F && cp != 0xD7 && cp != 0xF7) || (cp >= 0x370 && cp <= 0x4FF);
        if (letter) a += heading.substr(i, len);
        i += len;
    }
    return a;
}

// Calls f(line) for each line of a Markdown text outside fenced code blocks.
template <class F>
void for_each_prose_line(const std::string& text, F f) {
    std::istringstream in(text);
    std::string line;
    bool fenced = false;
    while (std::getline(in, line)) {
        const std::size_t first = line.find_first_not_of(' ');
        if (first != std::string::npos && line.compare(first, 3, "```") == 0) {
            fenced = !fenced;
            continue;
        }
        if (!fenced) f(line);
    }
}

// The anchors of a Markdown text: its headings' (a repeated heading gets -1, -2, ... as on GitHub)
// and those set by hand, <a id="name"></a>.
std::set<std::string> anchors(const std::string& text) {
    std::set<std::string> out;
    std::map<std::string, int> times;
    static const std::regex by_hand(R"re(<a\s+(?:id|name)="([^"]+)")re");
    for_each_prose_line(text, [&](const std::string& line) {
        for (auto it = std::sregex_iterator(line.begin(), line.end(), by_hand); it != std::sregex_iterator(); ++it)
            out.insert((*it)[1]);
        const std::size_t hashes = line.find_first_not_of('#');
        if (hashes == 0 || hashes > 6 || hashes == std::string::npos || line[hashes] != ' ') return;
        std::string title = line.substr(hashes + 1);
        while (!title.empty() && (title.back() == ' ' || title.back() == '#')) title.pop_back();
        const std::string a = anchor_of(title);
        const int n = times[a]++;
        out.insert(n == 0 ? a : a + "-" + std::to_string(n));
    });
    return out;
}

// The relative links of a document (file: its path from the source root) that reach no file, or
// no heading of the Markdown file they name: one message each. Web addresses are not followed.
std::vector<std::string> broken_links(const std::string& file, const std::string& text,
                                      const fs::path& root = fs::path(RBMSCOPE_SOURCE_DIR)) {
    std::vector<std::string> broken;
    static const std::regex link(R"(\]\(([^)\s]+)\))");
    for_each_prose_line(text, [&](const std::string& prose) {
        std::string line;  // without its inline code spans, which show text rather than link
        bool code = false;
        for (char c : prose)
            if (c == '`') code = !code;
            else if (!code) line += c;
        for (auto it = std::sregex_iterator(line.begin(), line.end(), link); it != std::sregex_iterator(); ++it) {
            const std::string target = (*it)[1];
            if (target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0) continue;
            const std::size_t hash = target.find('#');
            const std::string path = target.substr(0, hash);
            const fs::path to = path.empty() ? root / file : (root / file).parent_path() / path;
            if (!fs::exists(to)) {
                broken.push_back(file + ": " + target + ": no such file");
                continue;
            }
            if (hash == std::string::npos || to.extension() != ".md") continue;
            const std::string anchor = target.substr(hash + 1);
            if (!anchors(path.empty() ? text : read_text(to)).count(anchor))
                broken.push_back(file + ": " + target + ": no heading with the anchor #" + anchor);
        }
    });
    return broken;
}

}  // namespace

TEST_CASE("every relative link in the documents reaches a file, and the heading it names") {
    std::size_t problems = 0;
    for (const auto& [file, text] : documents())
        for (const std::string& b : broken_links(file, text)) {
            CHECK_MSG(false, b);
            ++problems;
        }
    std::printf("  links of %zu documents checked, %zu broken\n", documents().size(), problems);
}

TEST_CASE("headings become GitHub's anchors, and a link to a missing file or heading is caught") {
    CHECK(anchor_of("A model's training data (`\"training\"`)") == "a-models-training-data-training");
    CHECK(anchor_of("Presenter mode (F11)") == "presenter-mode-f11");
    CHECK(anchor_of("Same numbers on every path?") == "same-numbers-on-every-path");
    CHECK(anchor_of("Speed: before and after") == "speed-before-and-after");
    CHECK(anchor_of("4. Expected wall time \xE2\x80\x94 a model") ==
          "4-expected-wall-time--a-model");                // the dash dropped
    CHECK(anchor_of("Play \xCE\xB2") == "play-\xCE\xB2");  // β stays
    const std::set<std::string> a =
        anchors("# T\n## Part\n```sh\n# not a heading\n```\n## Part\n<a id=\"eq-3\"></a>\n");
    CHECK(a == std::set<std::string>({"t", "part", "part-1", "eq-3"}));
    // README.md's own links, good and bad, from the source root.
    const std::string text =
        "[ok](docs/README.md) [top](#t) ![pic](docs/screenshots/nothing-such.png)\n"
        "[gone](#nowhere) [web](https://example.org/x) `[code](in-a-span.md)`\n# T\n"
        "```\n[fenced](missing.md)\n```\n";
    const std::vector<std::string> b = broken_links("README.md", text);
    CHECK_MSG(b.size() == 2, b.size() << " broken links found, expected 2");
    CHECK(b.size() > 0 && b[0] == "README.md: docs/screenshots/nothing-such.png: no such file");
    CHECK(b.size() > 1 && b[1] == "README.md: #nowhere: no heading with the anchor #nowhere");
}

TEST_CASE("every figure the documents quote from a command is what the command prints") {
    int figures = 0, runs = 0;
    std::vector<std::string> skipped;
    for (const json& run : manifest().at("runs")) {
        const std::string command = run.at("command");
        if (run.value("mpi", false) && !mpi_available()) {
            skipped.push_back(command + " (built without MPI)");
            for (const json& f : run.at("figures")) check_readme_text(f, command);
            continue;
        }
        if (sanitized() && !cheap(run)) {
            skipped.push_back(command + " (not cheap under RBMSCOPE_SANITIZED)");
            for (const json& f : run.at("figures")) check_readme_text(f, command);
            continue;
        }
        for (const json& setup : run.value("setup", json::array())) {
            const CliResult s = run_line(with_launcher(setup.get<std::string>()));
            CHECK_MSG(s.exit_code == 0, setup.get<std::string>() << ": exit " << s.exit_code << ": " << s.err);
        }
        CliResult r = run_line(with_launcher(command), run.value("exit", 0));
        CHECK_MSG(r.exit_code == run.value("exit", 0), command << ": exit " << r.exit_code << ": " << r.err);
        if (run.contains("output"))
            r.out = read_text(work_dir() / run["output"].get<std::string>());  // e.g. --log FILE.json
        for (const json& f : run.at("figures")) {
            check_figure(f, r, command);
            ++figures;
        }
        ++runs;
    }
    std::printf("  %d figures from %d commands checked against the binary\n", figures, runs);
    for (const std::string& s : skipped) std::printf("  skipped: %s\n", s.c_str());
}

TEST_CASE("figures made by scripts or other suites are still quoted as the manifest says") {
    // These are produced by a script (minutes of CPU) or printed by another suite's case; the
    // manifest names it. Here only the quoted text is checked, so an edit to the figure in the
    // documents must come with an edit to the manifest that names where the new one came from;
    // scripts/readme_figures.sh runs those suites' cases and compares what they print.
    int n = 0;
    for (const json& f : manifest().at("elsewhere")) {
        CHECK_MSG(f.contains("script") || f.contains("test"), f.dump() << ": names neither a script nor a test");
        check_readme_text(f, f.contains("script") ? f.value("script", "") : f.value("test", ""));
        for (const json& p : f.value("printed", json::array()))  // what scripts/readme_figures.sh compares
            CHECK_MSG(f["readme"].get<std::string>().find(p.get<std::string>()) != std::string::npos,
                      p << " is not in '" << f["readme"].get<std::string>() << "'");
        if (f.contains("script")) {
            const std::string script = f["script"];
            const std::string file = script.substr(0, script.find(' '));
            CHECK_MSG(fs::exists(fs::path(RBMSCOPE_SOURCE_DIR) / file), script << ": no such script");
        }
        ++n;
    }
    std::printf("  %d figures produced by scripts or other suites, still quoted\n", n);
}

TEST_CASE("every rbmscope-cli command line in the documents' code blocks is listed and runs") {
    std::map<std::string, const json*> listed;
    for (const json& c : manifest().at("commands")) listed[c.at("line").get<std::string>()] = &c;
    // Each line once, in the order of the first document that shows it; where it is shown.
    std::vector<std::string> lines;
    std::map<std::string, std::set<std::string>> shown_in;
    for (const auto& [file, text] : documents())
        for (const std::string& line : command_lines(text)) {
            if (shown_in[line].empty()) lines.push_back(line);
            shown_in[line].insert(file);
        }
    int ran = 0;
    std::vector<std::string> skipped;
    for (const std::string& line : lines) {
        const auto it = listed.find(line);
        CHECK_MSG(it != listed.end(), *shown_in[line].begin()
                                          << ": command not in tests/data/readme_figures.json: " << line);
        if (it == listed.end()) continue;
        const json& c = *it->second;
        if (c.contains("skip")) {
            CHECK_MSG(c.contains("script") || c.contains("test"), line << ": skipped without naming what runs it");
            skipped.push_back(line + " (" + c["skip"].get<std::string>() + ")");
            continue;
        }
        if (c.value("mpi", false) && !mpi_available()) {
            skipped.push_back(line + " (built without MPI)");
            continue;
        }
        if (sanitized() && !cheap(c)) {
            skipped.push_back(line + " (not cheap under RBMSCOPE_SANITIZED)");
            continue;
        }
        for (const json& setup : c.value("setup", json::array())) {
            const CliResult s = run_line(with_launcher(setup.get<std::string>()));
            CHECK_MSG(s.exit_code == 0, setup.get<std::string>() << ": exit " << s.exit_code << ": " << s.err);
        }
        const std::string run = c.value("run", line);
        if (ran_ok().count(with_launcher(run))) {  // a figure's command, already run with this exit status
            ++ran;
            continue;
        }
        const CliResult r = run_line(with_launcher(run), c.value("exit", 0));
        CHECK_MSG(r.exit_code == c.value("exit", 0), run << ": exit " << r.exit_code << ": " << r.err);
        ++ran;
    }
    for (const auto& [line, entry] : listed) {
        const std::string file = entry->value("file", std::string("README.md"));
        CHECK_MSG(shown_in[line].count(file),
                  "listed in tests/data/readme_figures.json but not in " << file << ": " << line);
    }
    std::printf("  %zu command lines in %zu documents: %d run, %zu skipped\n", lines.size(), documents().size(), ran,
                skipped.size());
    for (const std::string& s : skipped) std::printf("  skipped: %s\n", s.c_str());
}

TEST_CASE("printed numbers are read with their precision") {
    double v = 0, h = 0;
    CHECK(parse_printed("\xE2\x88\x92"
                        "32.008",
                        v, h) &&
          v == -32.008 && std::fabs(h - 0.0005) < 1e-15);
    CHECK(parse_printed("1 545 745", v, h) && v == 1545745 && h == 0.5);
    CHECK(parse_printed("41,956,060", v, h) && v == 41956060 && h == 0.5);
    CHECK(parse_printed("5.0e-6", v, h) && v == 5.0e-6 && std::fabs(h - 0.5e-7) < 1e-20);
    CHECK(parse_printed("+0.000", v, h) && v == 0 && std::fabs(h - 0.0005) < 1e-15);
    CHECK(!parse_printed("1.10 nats", v, h));
}

int main(int argc, char** argv) {
    // Open MPI refuses to run as root unless told (CI containers run as root).
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    return run_all(argc, argv);
}
