#pragma once
// Reading back what rbmscope-cli printed ("reopen any result"): the JSON of `ais`,
// `ais-sweep`, `pt`, `meanfield` and `train` (its printed summary, and the `--log FILE.json`
// array), recognised by the command named in "argv" (a log array by its records), parsed into
// plain structs with the model it refers to ("model_file", core/io/result_source.hpp).
// The strictness is the model loader's: a missing key, a wrong type or shape, a null or
// non-finite number where one is required is an InputError naming the key path
// ("results[2].steps is missing"); duplicate keys are refused; keys not read are skipped unbuilt.
// The structs hold numbers only: the app turns them into what its views show.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/io/provenance.hpp"
#include "core/numerics/types.hpp"

namespace rbm {

// A result file larger than this is refused before it is read (an `ais --log-weights` of
// millions of chains is far below it; the weights themselves are skipped unread).
inline constexpr std::uintmax_t kMaxResultBytes = std::uintmax_t(1) << 30;
// Any array of a result (a ladder, a histogram, a log) holds at most this many entries.
inline constexpr std::size_t kMaxResultArray = std::size_t(1) << 24;

// What the app shows of a result is bounded: names (path_name, kernel, schedule, a method...) keep
// their first kResultNameBytes bytes and texts (notes, command_line, argv, each warning) their
// first kResultTextBytes, followed by "… (N more bytes)"; at most kMaxResultWarnings warnings are
// kept (then "… and N more warnings, not shown"), and a sweep of more than kMaxResultMethods
// methods is refused. File paths are never cut; one longer than 4096 bytes is refused.
inline constexpr std::size_t kResultNameBytes = 200, kResultTextBytes = 2000;
inline constexpr std::size_t kMaxResultWarnings = 100, kMaxResultMethods = 64;

enum class ResultCommand { Ais, AisSweep, Pt, MeanField, Train, TrainLog };
const char* result_command_name(ResultCommand c);  // "ais", "ais-sweep", ..., "train --log"

// "model_file": a model file as given on the command line, with its FNV-1a hash, or a preset.
struct ResultModelRef {
    std::string path;     // as given ("" for a preset)
    std::string fnv1a64;  // 16 hex digits ("" for a preset)
    std::string preset;   // e.g. "four-mode" ("" for a file)
    std::string map;      // --map NAME=ARRAY,... it was read with ("" when none)
    std::string kind;     // grbm | brbm | leaky | gaussian
    Index n = 0, m = 0;
};

struct AisFileReverse {
    bool complete = true;
    std::optional<double> log_z_upper;  // absent when the reverse chains did not finish
    double ci95_low = 0, ci95_high = 0, ess = 0, ess_fraction = 0, log_w_mean = 0, log_w_var = 0;
};

struct AisFileResult {
    double log_z = 0, log_z_high = 0, ci95_low = 0, ci95_high = 0, ess = 0, ess_fraction = 0, log_w_mean = 0,
           log_w_var = 0, log_z0 = 0, seconds = 0;
    std::optional<double> log_z_low;  // null when the -3 sigma bound does not exist
    std::optional<double> exact_log_z, cost_functional, beta_reached;
    std::string path, path_name, base, kernel, schedule, notes;
    Index steps = 0, steps_done = 0, chains = 0;
    std::uint64_t seed = 0;
    bool perfect = false;
    double hist_lo = 0, hist_hi = 0;
    std::vector<std::int64_t> hist_counts;
    std::vector<std::pair<double, double>> running;  // (beta, log Zhat_beta)
    std::optional<AisFileReverse> reverse;
};

struct SweepFileRow {
    std::string method, path, base, path_name;
    Index steps = 0;
    double log_z_mean = 0, log_z_sd = 0, ci95_low_mean = 0, ci95_high_mean = 0, ess_mean = 0, ess_fraction_mean = 0,
           log_w_mean = 0, seconds = 0;
    std::optional<double> log_z_upper_mean, log_z_upper_sd;
};

struct SweepFileResult {
    std::optional<double> exact_log_z;
    Index chains = 0, repeats = 0;
    std::uint64_t seed = 0;
    std::string schedule;
    bool perfect = false;
    std::vector<SweepFileRow> rows;  // in the file's order (method by method, K increasing)
};

struct PtFileResult {
    std::string scheme, kind, family, kernel, prediction;
    Index chains = 0, sweeps = 0;
    std::uint64_t seed = 0;
    std::vector<double> betas;                                                // the final ladder, N + 1 rungs
    std::vector<double> swap_acceptance, rejection;                           // per pair (N)
    std::vector<std::int64_t> swaps_proposed, swaps_accepted;                 // per pair
    std::vector<std::int64_t> round_trips_per_replica, restarts_per_replica;  // per replica (N + 1)
    std::int64_t round_trips = 0, restarts = 0;
    double round_trip_rate = 0, predicted_round_trip_rate = 0, barrier = 0;
    std::vector<double> local_beta, local_lambda;    // the local barrier lambda(beta) on a grid
    std::optional<std::int64_t> scans_done;          // interrupted runs
    std::optional<std::int64_t> lifted_round_trips;  // the lifted scheme's lifted replica
};

struct MeanFieldFilePoint {
    double free_energy = 0;
    Index iterations = 0, restarts = 0;
    bool converged = false;
    std::vector<double> mean_h;
};

struct MeanFieldFileResult {
    std::string type, method;
    double free_energy = 0, residual = 0;
    bool free_energy_is_bound = true, converged = false;
    Index iterations = 0;
    std::vector<double> mean_v, mean_h, var_v;
    std::vector<MeanFieldFilePoint> fixed_points;
    std::vector<double> trace_free_energy, trace_residual;  // with --trace
    std::optional<double> exact_free_energy, exact_mse_v;
    std::vector<double> exact_mean_v, exact_mean_h;  // empty when not enumerable
};

// One record of a training log (core/training/monitor.cpp's record_json); NaN for a null.
struct TrainFileRecord {
    Index update = 0;
    double epoch = 0, learning_rate = 0, log_likelihood = 0, log_likelihood_low = 0, log_likelihood_high = 0, log_z = 0,
           reconstruction_error = 0, seconds = 0;
    std::string log_likelihood_method;
};

struct TrainFileResult {
    // The printed summary: the trained model ("model") and the log file ("log", may be "").
    std::string model, log, status, kind, method, data;
    Index hidden = 0, visible = 0, updates = 0;
    // The log's records: the --log array itself, or the .json log a summary names (read by the caller).
    std::vector<TrainFileRecord> records;
};

struct ResultFile {
    ResultCommand command = ResultCommand::Ais;
    std::vector<std::string> argv;        // without the program name: argv[0] is the command
    std::string command_line;             // "rbmscope-cli ais model.json --seed 3"
    std::optional<ResultModelRef> model;  // absent: train's summary and log (see TrainFileResult)
    std::vector<std::string> warnings;
    bool complete = true;
    std::optional<AisFileResult> ais;
    std::optional<SweepFileResult> sweep;
    std::optional<PtFileResult> pt;
    std::optional<MeanFieldFileResult> meanfield;
    std::optional<TrainFileResult> train;
    BuildRecord build;  // the result's "build" record (read tolerantly; absent in older results)
};

// True when `text` is a result of rbmscope-cli (an object with "argv" and no "format") or a
// training log (an array of records): what the app opens as a result instead of a model.
// Never throws; text that is not JSON is not a result (the model loader then says why).
bool looks_like_result(const std::string& text);

// Parses a result. `origin` prefixes every message ("run.json: results[0].steps is missing").
ResultFile result_from_json_text(const std::string& text, const std::string& origin);
// Reads and parses a file (regular files only, at most kMaxResultBytes).
ResultFile load_result_file(const std::filesystem::path& path);
// The records of a training log (a --log FILE.json, or FILE.csv as Trainer::log_csv writes it),
// for a train summary that names one.
std::vector<TrainFileRecord> load_train_log(const std::filesystem::path& path);
// The records of a CSV training log's text (columns found by the header's names; "nan" or an empty
// field is a null). InputError naming the line for a field that is not a number or records out of order.
std::vector<TrainFileRecord> train_log_from_csv_text(const std::string& text);

}  // namespace rbm
