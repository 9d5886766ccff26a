#pragma once
// rbmscope-cli plumbing: each subcommand lives in its own cmd_*.cpp and registers itself with
// REGISTER_COMMAND, so adding a command touches no other file.
//
// Contract (docs/user/cli.md): success prints exactly one JSON object on stdout, exit 0; bad input
// prints one line on stderr, exit 2; never a crash.
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/models/models.hpp"
#include "core/numerics/types.hpp"

namespace rbm::cli {

using nlohmann::json;

// An option the command does not take (Args::parse): an InputError whose message is the CLI's,
// with the option's name and the closest one apart, for the Python module's TypeError.
class UnknownOption : public InputError {
public:
    UnknownOption(const std::string& message, std::string option, std::string closest)
        : InputError(message), option_(std::move(option)), closest_(std::move(closest)) {}
    const std::string& option() const { return option_; }    // without dashes
    const std::string& closest() const { return closest_; }  // "" when none is near
private:
    std::string option_, closest_;
};

// Parsed arguments: positionals and --key value / --flag options, checked against a spec.
class Args {
public:
    struct Option {
        std::string name;   // without dashes
        std::string value;  // placeholder shown in help, empty for a flag
        std::string help;
    };
    Args(std::string command, std::vector<std::string> positional_names, std::vector<Option> options,
         std::string summary);
    // Throws InputError for unknown options, missing values or missing positionals.
    void parse(const std::vector<std::string>& argv);
    bool help_requested() const { return help_; }
    std::string usage() const;

    const std::string& positional(std::size_t i) const { return positional_values_.at(i); }
    bool has(const std::string& name) const;
    bool flag(const std::string& name) const { return has(name); }
    std::string get(const std::string& name, const std::string& fallback) const;
    std::optional<std::string> get(const std::string& name) const;
    // Typed getters: InputError "--steps expects an integer >= 1, got 'x'".
    long long get_int(const std::string& name, long long fallback, long long min_value,
                      long long max_value = (1LL << 53)) const;
    double get_double(const std::string& name, double fallback) const;
    std::uint64_t get_seed(const std::string& name, std::uint64_t fallback) const;
    std::vector<double> get_doubles(const std::string& name) const;  // comma-separated
    std::vector<long long> get_ints(const std::string& name, long long min_value) const;
    // One of `choices` (InputError listing them otherwise).
    std::string get_choice(const std::string& name, const std::string& fallback,
                           const std::vector<std::string>& choices) const;
    // The model named by positional i (a MODEL or IN): a file read with --map, or a preset.
    // What the loader noticed (a transposed W) goes to load_warnings().
    Model model(std::size_t i) const;

private:
    std::string command_, summary_;
    std::vector<std::string> positional_names_;
    std::vector<Option> options_;
    std::vector<std::string> positional_values_;
    std::map<std::string, std::string> values_;
    bool help_ = false;
};

struct Command {
    std::string name;
    std::string summary;
    // Returns the JSON object to print. Throw InputError for bad input. A command that writes
    // non-JSON output on request (e.g. --format csv) may print it itself and return null.
    std::function<json(const std::vector<std::string>& argv)> run;
};

std::map<std::string, Command>& commands();
// Warnings from loading the command's model; main() adds them to the result's "warnings".
std::vector<std::string>& load_warnings();
// The models the command read through Args::model, in order: {"path" as given, "fnv1a64" of the
// file's bytes, "kind", "n", "m"} (a preset: {"preset", "kind", "n", "m"}). main() adds the first
// to the result as "model_file", so the app can reopen the result with its model.
std::vector<json>& model_sources();
// Models handed over in memory by the Python module, on the thread that runs the command: the
// positional MODEL "python:K" is the K-th (Args::model). Empty in the CLI.
std::vector<Model>& in_memory_models();
constexpr const char* kInMemoryPrefix = "python:";

// What rbmscope-cli's main() and the Python module do with one command: run it with `argv` (the
// arguments after its name) and add what the CLI adds to every result object: "model_file",
// "argv", "command_line", "build" and "warnings". Throws what the command throws (InputError for
// bad input, an unknown command included; Cancelled). A result that is not complete after an
// interrupt is returned with `partial` set and its missing numbers left out; a complete result
// holding a non-finite number is an InputError saying where.
struct CommandResult {
    json out;              // null: the command printed its output itself (--help, --format csv)
    bool partial = false;  // interrupted ("complete": false)
};
CommandResult run_command(const std::string& name, const std::vector<std::string>& argv);

struct Registrar {
    explicit Registrar(Command c) { commands()[c.name] = std::move(c); }
};

// JSON helpers
json to_json(const Vec& v);
json to_json(const Mat& m);
json to_json(const RowMat& m);

}  // namespace rbm::cli

#define RBM_CLI_CAT2(a, b) a##b
#define RBM_CLI_CAT(a, b) RBM_CLI_CAT2(a, b)
#define REGISTER_COMMAND(...) \
    static ::rbm::cli::Registrar RBM_CLI_CAT(rbm_cli_registrar_, __LINE__)(::rbm::cli::Command{__VA_ARGS__})
