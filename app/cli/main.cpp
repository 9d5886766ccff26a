// rbmscope-cli: scriptable front end. Dispatches to the subcommands registered in cmd_*.cpp.
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>

#include "cli_command.hpp"

namespace {

void print_overview() {
    std::cout << "usage: rbmscope-cli COMMAND [arguments] [--help]\n\n"
                 "Samplers, annealers and exact answers for restricted Boltzmann machines.\n"
                 "MODEL is a model file (.json, .npz, .npy, .mat, .h5, .hdf5) or a preset name (see 'rbmscope-cli presets');\n"
                 "--map W=vishid,b=visbiases,c=hidbiases names the arrays of a .npz/.mat/.h5 file.\n\n"
                 "commands:\n";
    for (const auto& [name, cmd] : rbm::cli::commands()) {
        std::string left = "  " + name;
        if (left.size() < 16) left.resize(16, ' ');
        std::cout << left << cmd.summary << "\n";
    }
    std::cout << "\nSuccess prints one JSON object on stdout (exit 0); bad input prints one line on stderr (exit 2).\n";
}

// One line on stderr: newlines in a message would break the contract.
void fail_line(const std::string& msg) {
    std::string one = msg;
    for (char& ch : one)
        if (ch == '\n' || ch == '\r') ch = ' ';
    std::cerr << "rbmscope-cli: " << one << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(true);
    if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" || std::string(argv[1]) == "help") {
        print_overview();
        return argc < 2 ? 2 : 0;
    }
    const std::string name = argv[1];
    auto it = rbm::cli::commands().find(name);
    if (it == rbm::cli::commands().end()) {
        fail_line("unknown command '" + name + "' (run rbmscope-cli --help for the list)");
        return 2;
    }
    std::vector<std::string> rest(argv + 2, argv + argc);
    try {
        auto out = it->second.run(rest);
        if (out.is_object() && !rbm::cli::load_warnings().empty()) {
            auto& w = out["warnings"];
            if (!w.is_array()) w = nlohmann::json::array();
            for (const auto& s : rbm::cli::load_warnings()) w.push_back(s);
        }
        if (!out.is_null()) std::cout << out.dump(1) << std::endl;
        return 0;
    } catch (const rbm::InputError& e) {
        fail_line(e.what());
        return 2;
    } catch (const nlohmann::json::exception& e) {
        fail_line(std::string("bad input: ") + e.what());
        return 2;
    } catch (const std::bad_alloc&) {
        fail_line("out of memory: the requested run is too large for this machine");
        return 2;
    } catch (const std::exception& e) {
        fail_line(std::string("internal error: ") + e.what());
        return 3;
    }
}
