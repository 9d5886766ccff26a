// rbmscope-cli: scriptable front end. Dispatches to the subcommands registered in cmd_*.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <new>

#include "cli_command.hpp"
#include "core/data/datasets.hpp"
#include "core/io/result_source.hpp"
#include "core/kernels/build_info.hpp"
#include "core/kernels/simd.hpp"
#include "core/numerics/memory_budget.hpp"
#include "core/numerics/parallel.hpp"
#include "interrupt.hpp"
#include "mpi/world.hpp"
#include "suggest.hpp"
#include "test_hooks.hpp"

namespace {

void print_overview() {
    std::cout << "usage: rbmscope-cli COMMAND [arguments] [--help]\n\n"
                 "Samplers, annealers and exact answers for restricted Boltzmann machines.\n"
                 "MODEL is a model file (.json, .npz, .npy, .mat, .h5, .hdf5) or a preset name (see 'rbmscope-cli "
                 "presets');\n"
                 "--map W=vishid,b=visbiases,c=hidbiases names the arrays of a .npz/.mat/.h5 file.\n\n"
                 "commands:\n";
    std::size_t width = 0;  // the longest name, so every summary starts in one column
    for (const auto& [name, cmd] : rbm::cli::commands()) width = std::max(width, name.size());
    for (const auto& [name, cmd] : rbm::cli::commands())
        std::cout << "  " << name << std::string(width - name.size() + 2, ' ') << cmd.summary << "\n";
    std::cout
        << "\n'rbmscope-cli help COMMAND' (or COMMAND --help) describes one command; --version names the build.\n";
    std::cout << "\nSuccess prints one JSON object on stdout (exit 0); bad input prints one line on stderr (exit 2).\n"
                 "Ctrl-C stops a long command, which prints its partial result with \"complete\": false (exit 130).\n";
}

// A message as one readable line: control characters become spaces, and a value a file or an
// argument put there (a run of more than 160 characters without a space: a 1 MB 'kind', a 100 000
// character path) keeps its first 64 and last 16 characters around "...[N bytes]...". A message
// still over 4000 characters (many long values) keeps its start and its end.
std::string readable_line(const std::string& msg) {
    constexpr std::size_t kLongRun = 160, kHead = 64, kTail = 16, kMaxLine = 4000;
    std::string out;
    out.reserve(std::min(msg.size(), kMaxLine + 200));
    for (std::size_t at = 0; at < msg.size();) {
        std::size_t end = at;
        while (end < msg.size() && msg[end] != ' ' && static_cast<unsigned char>(msg[end]) >= 0x20) ++end;
        const std::size_t run = end - at;
        if (run > kLongRun) {
            // Cut on UTF-8 character boundaries (never inside a multi-byte character).
            std::size_t head = at + kHead, tail = end - kTail;
            while (head > at && (static_cast<unsigned char>(msg[head]) & 0xC0) == 0x80) --head;
            while (tail < end && (static_cast<unsigned char>(msg[tail]) & 0xC0) == 0x80) ++tail;
            out.append(msg, at, head - at);
            out += "...[" + std::to_string(run) + " bytes]...";
            out.append(msg, tail, end - tail);
        } else {
            out.append(msg, at, run);
        }
        if (end < msg.size()) out += ' ';  // the space, or a control character in its place
        at = end + 1;
    }
    if (out.size() > kMaxLine) {
        std::size_t cut = kMaxLine - 1000;
        while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
        std::size_t back = out.size() - 1000;
        while (back < out.size() && (static_cast<unsigned char>(out[back]) & 0xC0) == 0x80) ++back;
        out = out.substr(0, cut) + " ...[" + std::to_string(back - cut) + " bytes of the message left out]... " +
              out.substr(back);
    }
    return out;
}

// One line on stderr: newlines in a message would break the contract.
void fail_line(const std::string& msg) { std::cerr << "rbmscope-cli: " << readable_line(msg) << std::endl; }

// Ends the command on this rank: `code` 0 with `out` to print, or the exit code and message.
// Under mpirun the ranks first agree on how the command ended (mpi/world.hpp), so one rank's bad
// input never leaves the others waiting in a collective. Only rank 0 prints results (the other
// ranks' stdout is /dev/null) and messages every rank shares; a rank that fails alone says which.
int finish(int code, const std::string& message, const nlohmann::json& out) {
    auto& world = rbm::cli::mpi::world();
    if (world.distributed() && world.in_work()) {  // failed inside a collective piece of work
        fail_line("rank " + std::to_string(world.rank()) + ": " + message);
        world.abort(code);
    }
    const std::vector<int> codes = world.agree(code);
    if (code == 0) {
        for (int c : codes)
            if (c != 0) return c;  // the failing rank printed why
        if (!out.is_null()) std::cout << out.dump(1) << std::endl;
        return 0;
    }
    if (message.empty()) return code;
    if (world.root()) fail_line(message);
    else if (codes[0] == 0) fail_line("rank " + std::to_string(world.rank()) + ": " + message);
    return code;
}

int run(int argc, char** argv) {
    std::ios::sync_with_stdio(true);
    if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" ||
        (std::string(argv[1]) == "help" && argc < 3)) {
        print_overview();
        return finish(argc < 2 ? 2 : 0, "", nullptr);
    }
    if (std::string(argv[1]) == "--version" || std::string(argv[1]) == "version") {
        try {
            std::cout << rbm::version_text("rbmscope-cli");
        } catch (const rbm::InputError& e) {  // RBMSCOPE_SIMD names a path this machine cannot run
            return finish(2, e.what(), nullptr);
        }
        return finish(0, "", nullptr);
    }
    std::string name = argv[1];
    std::vector<std::string> rest(argv + 2, argv + argc);
    if (name == "help") {  // help COMMAND: that command's usage, as COMMAND --help prints it
        name = argv[2];
        rest = {"--help"};
    }
    try {
        auto [out, partial] = rbm::cli::run_command(name, rest);
        // Interrupted: rank 0 prints the partial result (under mpirun the others write to /dev/null).
        if (partial) {
            if (!out.is_null() && rbm::cli::mpi::world().root()) std::cout << out.dump(1) << std::endl;
            return finish(rbm::cli::interrupt::kExitCode, "", nullptr);
        }
        return finish(0, "", out);
    } catch (const rbm::Cancelled&) {
        // A phase without a partial result of its own (the command did not catch it).
        if (rbm::cli::mpi::world().root())
            std::cout << nlohmann::json{{"command", name}, {"complete", false}}.dump(1) << std::endl;
        return finish(rbm::cli::interrupt::kExitCode, "", nullptr);
    } catch (const rbm::cli::mpi::PeerFailed& e) {
        return e.code;  // agreed inside the command; the failing rank printed why
    } catch (const rbm::InputError& e) {
        return finish(2, e.what(), nullptr);
    } catch (const nlohmann::json::exception& e) {
        return finish(2, std::string("bad input: ") + e.what(), nullptr);
    } catch (const std::bad_alloc&) {
        return finish(2, "out of memory: the requested run is too large for this machine", nullptr);
    } catch (const std::exception& e) {
        return finish(3, std::string("internal error: ") + e.what(), nullptr);
    }
}

}  // namespace

int main(int argc, char** argv) {
    auto& world = rbm::cli::mpi::world();
    world.init(&argc, &argv);
    const int code = run(argc, argv);
    world.finalize();
    return code;
}
