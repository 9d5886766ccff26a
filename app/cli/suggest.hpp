#pragma once
// "Did you mean": the candidate closest to what the user typed (commands, options), by the
// optimal string alignment distance (Levenshtein plus adjacent transpositions: "trian" is one
// edit from "train").
#include <string>
#include <vector>

namespace rbm::cli {

// Edits (insert, delete, substitute, swap two adjacent characters) from a to b.
std::size_t edit_distance(const std::string& a, const std::string& b);

// The candidate within max(1, |typed|/3) edits of `typed`, or one that `typed` begins (e.g.
// "--step" for "--steps"); the closest, and the first listed on a tie. Empty when none is near.
std::string closest_match(const std::string& typed, const std::vector<std::string>& candidates);

// " (did you mean 'X'?)" for the closest candidate, or "" when none is near.
std::string did_you_mean(const std::string& typed, const std::vector<std::string>& candidates,
                         const std::string& prefix = "");

}  // namespace rbm::cli
