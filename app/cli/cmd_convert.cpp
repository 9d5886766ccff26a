// rbmscope-cli convert IN OUT: a model file in another format (SPEC §8), written atomically.
#include <filesystem>
#include <iostream>

#include "cli_command.hpp"
#include "core/io/model_io.hpp"
#include "core/io/presets.hpp"

namespace rbm::cli {
namespace {

json run_convert(const std::vector<std::string>& argv) {
    Args a("convert", {"IN", "OUT"}, {},
           "Read a model (.json, .npz, a lone .npy holding W, or a preset name) and write it to OUT,\n"
           "as .json or .npz by OUT's extension. OUT is replaced only once the new file is complete\n"
           "(written to a temporary file, flushed, then renamed), so an interrupted conversion\n"
           "leaves any previous OUT intact.");
    a.parse(argv);
    if (a.help_requested()) {
        std::cout << a.usage();
        return nullptr;
    }
    const Model m = a.model(0);
    const std::filesystem::path out = a.positional(1);
    save_model(m, out);
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(out, ec);
    return json{{"input", a.positional(0)},
                {"output", out.string()},
                {"kind", kind_name(m.kind())},
                {"n_visible", m.n_visible()},
                {"n_hidden", m.n_hidden()},
                {"bytes", ec ? json(nullptr) : json(bytes)}};
}

}  // namespace

REGISTER_COMMAND("convert", "write a model in another format (.json or .npz), atomically", run_convert);

}  // namespace rbm::cli
