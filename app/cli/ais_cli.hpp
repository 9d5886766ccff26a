#pragma once
// Pieces shared by `rbmscope-cli ais` and `ais-sweep` (defined in cmd_ais.cpp): the options
// that say how to build an annealing path, and turning them into a PathRequest.
#include <string>
#include <vector>

#include "cli_command.hpp"
#include "core/ais/paths.hpp"

namespace rbm::cli {

// --from, --data, --moments, --moment-chains/-steps/-burn-in, --kernel, --knots.
std::vector<Args::Option> ais_path_options();
// The request for `path` and `base` on `target`, from the options above (InputError for
// options that do not apply, e.g. --kernel on a non-leaky path). `seed` seeds the Gibbs moments.
PathRequest ais_path_request(const Args& a, const Model& target, const std::string& path, const std::string& base,
                             std::uint64_t seed);
// A CSV (or whitespace-separated) file of visible vectors, one per row; '#' lines and a
// non-numeric first line (a header) are skipped. Binary: every value must be 0 or 1.
RowMat read_data_rows(const std::string& file, Index n_visible, bool binary);

}  // namespace rbm::cli
