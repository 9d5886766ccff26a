// rbmscope-cli convert IN OUT: a model file in another format (docs/reference/model-files.md), written atomically.
#include <filesystem>
#include <iostream>

#include "cli_command.hpp"
#include "core/io/model_io.hpp"
#include "core/io/named_arrays.hpp"
#include "core/io/presets.hpp"
#include "data_args.hpp"

namespace rbm::cli {
namespace {

json run_convert(const std::vector<std::string>& argv) {
    std::vector<Args::Option> opts{
        {"mat-version", "V", "for a .mat OUT: 5 (default) or 7.3 (MATLAB's HDF5-based format)"},
        {"data", "SPEC",
         "attach the data set the model was trained on (bars:D, digits, FILE.csv[.gz], FILE-idx3-ubyte)\n"
         "      with its preprocessing (the transforms below): OUT records it under \"training\" (.json, .npz)"}};
    for (const auto& o : data_options()) opts.push_back(o);
    Args a("convert", {"IN", "OUT"}, opts,
           "Read a model (.json, .npz, a lone .npy holding W, .mat, .h5, or a preset name) and write it\n"
           "to OUT by its extension: .json, .npz, .mat (Hinton's names: vishid, visbiases, hidbiases)\n"
           "or .h5/.hdf5 (h5py's layout). OUT is replaced only once the new file is complete\n"
           "(written to a temporary file, flushed, then renamed), so an interrupted conversion\n"
           "leaves any previous OUT intact.");
    a.parse(argv);
    if (a.help_requested()) {
        std::cout << a.usage();
        return nullptr;
    }
    const std::string mat_version = a.get_choice("mat-version", "5", {"5", "7.3"});
    const std::filesystem::path out = a.positional(1);
    check_writable(out, "OUT");
    Model m = a.model(0);
    if (a.has("data")) {
        // Loaded once here, so a spec that does not load or fit is refused now, not when the
        // model is next inspected; a standardization records the mean and sd it applied.
        std::optional<InspectionData> d = inspection_data(a, m, a.positional(0));
        m.training = d->spec;
    } else if (has_data_transform(a)) {
        throw InputError("--binarize, --scale, --standardize, --shifts, --limit and --csv-* need --data SPEC");
    }
    if (mat_version == "7.3") {
        std::string ext = out.extension().string();
        for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (ext != ".mat") throw InputError("--mat-version applies to a .mat OUT, not '" + out.string() + "'");
        validate(m);
        try {
            write_mat_model(m, out, true);
        } catch (const InputError& e) {
            throw InputError("cannot save the model to '" + out.string() + "': " + e.what());
        }
    } else {
        save_model(m, out);
    }
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(out, ec);
    json j{{"input", a.positional(0)},   {"output", out.string()},   {"kind", kind_name(m.kind())},
           {"n_visible", m.n_visible()}, {"n_hidden", m.n_hidden()}, {"bytes", ec ? json(nullptr) : json(bytes)}};
    if (m.training) j["training"] = describe(*m.training);
    return j;
}

}  // namespace

REGISTER_COMMAND("convert", "write a model in another format (.json, .npz, .mat, .h5), atomically", run_convert);

}  // namespace rbm::cli
