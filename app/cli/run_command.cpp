// run_command (cli_command.hpp): one command and the fields every result carries, shared by
// rbmscope-cli's main() and the Python module (python/rbmscope_module.cpp).
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "cli_command.hpp"
#include "core/data/datasets.hpp"
#include "core/io/provenance.hpp"
#include "core/io/result_source.hpp"
#include "core/kernels/build_info.hpp"
#include "core/kernels/simd.hpp"
#include "core/numerics/memory_budget.hpp"
#include "core/numerics/parallel.hpp"
#include "interrupt.hpp"
#include "mpi/world.hpp"
#include "suggest.hpp"
#include "test_hooks.hpp"

namespace rbm::cli {
namespace {

// Where a result holds a number that is not finite ("results[2].log_z_mean"), or "": JSON has no
// NaN or infinity, so it would be printed as null where a number is expected. Nulls put there on
// purpose (e.g. "log_z_low" when it does not exist) are not numbers and are not reported.
std::string non_finite_at(const json& j, const std::string& at) {
    if (j.is_number_float()) return std::isfinite(j.get<double>()) ? "" : at.empty() ? "(the result)" : at;
    if (j.is_object())
        for (auto it = j.begin(); it != j.end(); ++it)
            if (std::string w = non_finite_at(it.value(), at.empty() ? it.key() : at + "." + it.key()); !w.empty())
                return w;
    if (j.is_array())
        for (std::size_t i = 0; i < j.size(); ++i)
            if (std::string w = non_finite_at(j[i], at + "[" + std::to_string(i) + "]"); !w.empty()) return w;
    return "";
}

}  // namespace

CommandResult run_command(const std::string& name, const std::vector<std::string>& rest) {
    auto it = commands().find(name);
    if (it == commands().end()) {
        std::vector<std::string> names;
        for (const auto& [n, cmd] : commands()) names.push_back(n);
        const std::string hint = did_you_mean(name, names);
        throw InputError("unknown command '" + name + "'" +
                         (hint.empty() ? " (run rbmscope-cli --help for the list)" : hint));
    }
    // The budget every loader and run checks before allocating; --max-memory (any command) sets
    // another, for this command only (the Python module runs many in one process).
    set_memory_budget(default_memory_budget_for_machine());
    set_memory_budget_option("--max-memory");
    model_sources().clear();
    load_warnings().clear();
    simd_active();                          // a bad RBMSCOPE_SIMD fails here, before any work (exit 2)
    install_test_hooks_from_environment();  // RBMSCOPE_TEST_* variables (test_hooks.hpp)
    // Where Debian's dataset-* packages are looked for (--data fashion-mnist); default /usr/share/datasets.
    if (const char* dir = std::getenv("RBMSCOPE_DATASETS_DIR"); dir && *dir) set_system_datasets_dir(dir);
    CommandResult r;
    r.out = it->second.run(rest);
    json& out = r.out;
    if (out.is_object()) {  // what the result came from, to reopen it (core/io/result_source.hpp)
        if (!model_sources().empty()) out["model_file"] = model_sources().front();
        std::vector<std::string> line = {"rbmscope-cli", name};
        line.insert(line.end(), rest.begin(), rest.end());
        out["argv"] = std::vector<std::string>(line.begin() + 1, line.end());
        out["command_line"] = shell_command_line(line);
        // Which build, SIMD path, threads and ranks made it (bits differ between paths).
        const int threads = last_thread_limit() > 0 ? last_thread_limit().load() : threads_in_force();
        out["build"] = provenance_json(threads, mpi::world().size());
    }
    if (out.is_object() && !load_warnings().empty()) {  // e.g. a transposed W (--map)
        auto& w = out["warnings"];
        if (!w.is_array()) w = json::array();
        // Once each: a command that reads its model more than once (logz's estimators) noticed it each time.
        for (const auto& s : load_warnings())
            if (std::find(w.begin(), w.end(), s) == w.end()) w.push_back(s);
    }
    // Interrupted: the command returned its partial result ("complete": false), or printed its
    // partial CSV itself (null).
    r.partial = interrupt::requested() && (out.is_null() || (out.is_object() && out.value("complete", true) == false));
    if (r.partial) {
        if (!out.is_null()) out = interrupt::without_missing_numbers(out);
        return r;
    }
    // A complete result never holds null for a number (a non-finite value came from input the
    // checks let through: say where, rather than print it).
    if (const std::string at = non_finite_at(out, ""); !at.empty())
        throw InputError(
            "the result's " + at +
            " is not a finite number (the computation overflowed or the input holds one); nothing printed");
    return r;
}

}  // namespace rbm::cli
