#pragma once
// What a command-line result came from, so the app can reopen it with its model: the model file
// as given on the command line with a content hash (FNV-1a, 64 bit, of the file's bytes) and its
// shape, and the exact argument list that reproduces the result. Written by rbmscope-cli as
// "model_file" and "argv" / "command_line" (extra keys: the CLI's results carry "at least" the documented ones).
#include <filesystem>
#include <string>
#include <vector>

#include "core/models/models.hpp"

namespace rbm {

// FNV-1a 64 of the file's bytes as 16 lower-case hex digits; InputError when it cannot be read.
std::string file_fnv1a64(const std::filesystem::path& path);

// A shell command line (POSIX quoting) for `argv`, e.g. {"rbmscope-cli", "ais", "my model.json"}
// -> rbmscope-cli ais 'my model.json'.
std::string shell_command_line(const std::vector<std::string>& argv);

}  // namespace rbm
