#pragma once
// Progress of a long rbmscope-cli command on stderr (docs/user/cli.md, "--progress jsonl"):
//   --progress jsonl   one JSON object per line, at most every 0.2 s (the first and the last line
//                      always): {"phase", "fraction", "elapsed_s", "eta_s", "chain_sweeps_per_s",
//                      ...the command's extra fields}; the last line has "final": true (and
//                      "complete": false after Ctrl-C).
//   no option, stderr a terminal: one line rewritten in place ('\r'), cleared at the end.
//   no option, stderr not a terminal: nothing (stderr stays clean for scripts).
// Under mpirun only rank 0 reports (the other ranks' Progress is Off), so a reader sees one stream.
//
// Use, in a command:
//   Args a("cmd", {...}, {..., Progress::option()}, "...");  a.parse(argv);
//   Progress progress(a);                       // reads --progress
//   progress.update("annealing", fraction, chain_sweeps_done);   // often is fine: rate-limited
//   progress.finish(complete);                  // before returning the JSON
//
// `fraction` is of the whole command (0..1) and is kept nondecreasing; `chain_sweeps` counts the
// chain-sweeps done in the current phase (the rate is that count over the phase's wall time; a
// count lower than the last one starts a new run of the phase; 0 or negative: no rate given).
// eta_s = elapsed x (1 - fraction) / fraction, omitted at fraction 0.
// update() may be called from any thread (it locks).
#include <chrono>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_command.hpp"

namespace rbm::cli {

class Progress {
public:
    // Where the jsonl records go instead of stderr: the Python module's progress callback. While
    // a sink is set every Progress is in jsonl mode, with or without --progress.
    using Sink = std::function<void(const nlohmann::json&)>;
    static void set_sink(Sink sink);
    enum class Mode { Off, Line, Jsonl };
    static Args::Option option();      // --progress jsonl
    explicit Progress(const Args& a);  // InputError for a value other than jsonl
    explicit Progress(Mode mode);
    ~Progress();  // a terminal line left by a command that threw is erased
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    void update(const std::string& phase, double fraction, double chain_sweeps = -1,
                const nlohmann::json& extra = nlohmann::json::object());
    // A line that is never skipped by the rate limit (jsonl only): a finished piece of the result,
    // e.g. one run of ais-sweep as {"point": {...}}, so a follower (the app's Run with MPI…) can
    // show estimates while the command runs.
    void result(const std::string& phase, const nlohmann::json& extra);
    // The final line: fraction 1 when complete, else the fraction reached.
    void finish(bool complete, const nlohmann::json& extra = nlohmann::json::object());
    Mode mode() const { return mode_; }

    // A command that runs others one after another (logz): while a Span is alive, every Progress
    // reports begin + width x its own fraction, elapsed_s and eta_s from the span's `start`, and its
    // final line as an ordinary one (even after Ctrl-C): the outer command prints the final line.
    class Span {
    public:
        Span(double begin, double width, std::chrono::steady_clock::time_point start);
        ~Span();
        Span(const Span&) = delete;
        Span& operator=(const Span&) = delete;
    };
    double fraction() const { return fraction_; }

private:
    using Clock = std::chrono::steady_clock;
    void emit(const std::string& phase, double chain_sweeps, const nlohmann::json& extra, bool final_line,
              bool complete);

    Mode mode_;
    std::mutex mutex_;
    Clock::time_point start_ = Clock::now(), phase_start_ = start_, last_update_ = start_, last_emit_{};
    bool emitted_ = false, finished_ = false;
    std::string phase_;
    double fraction_ = 0, last_sweeps_ = 0;
};

}  // namespace rbm::cli
