#include "progress.hpp"

#include "mpi/world.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace rbm::cli {
namespace {

constexpr double kInterval = 0.2;  // seconds between lines: at most 5 a second

Progress::Sink& sink() {
    static Progress::Sink s;
    return s;
}

std::string fixed(double x, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, x);
    return buf;
}

std::string duration(double s) {
    if (s < 60) return fixed(s, 0) + "s";
    if (s < 3600) return fixed(std::floor(s / 60), 0) + "m" + fixed(std::fmod(s, 60), 0) + "s";
    return fixed(std::floor(s / 3600), 0) + "h" + fixed(std::floor(std::fmod(s, 3600) / 60), 0) + "m";
}

struct OuterSpan {
    bool on = false;
    double begin = 0, width = 1;
    std::chrono::steady_clock::time_point start;
};

// The width of the terminal line printed last, by any Progress (they share the one line).
std::size_t& line_width() {
    static std::size_t w = 0;
    return w;
}

OuterSpan& outer() {
    static OuterSpan o;
    return o;
}

}  // namespace

Progress::Span::Span(double begin, double width, std::chrono::steady_clock::time_point start) {
    outer() = {true, std::clamp(begin, 0.0, 1.0), std::clamp(width, 0.0, 1.0 - std::clamp(begin, 0.0, 1.0)), start};
}

Progress::Span::~Span() { outer() = {}; }

Args::Option Progress::option() {
    return {"progress", "jsonl",
            "progress as JSON lines on stderr (phase, fraction, eta_s, chain_sweeps_per_s);\n"
            "      without it a terminal gets one updating line, a pipe nothing"};
}

void Progress::set_sink(Sink s) { sink() = std::move(s); }

Progress::Progress(const Args& a) : mode_(Mode::Off) {
    if (sink()) {
        if (a.has("progress")) a.get_choice("progress", "jsonl", {"jsonl"});
        mode_ = Mode::Jsonl;
    } else if (a.has("progress")) {
        a.get_choice("progress", "jsonl", {"jsonl"});
        mode_ = Mode::Jsonl;
    } else if (::isatty(STDERR_FILENO)) {
        mode_ = Mode::Line;
    }
    if (!mpi::World::instance().root()) mode_ = Mode::Off;  // one stream: rank 0's
}

Progress::Progress(Mode mode) : mode_(mode) {}

Progress::~Progress() {
    if (mode_ == Mode::Line && emitted_ && !finished_) {
        std::fprintf(stderr, "\r%*s\r", static_cast<int>(line_width()), "");
        line_width() = 0;
    }
}

void Progress::update(const std::string& phase, double fraction, double chain_sweeps, const nlohmann::json& extra) {
    if (mode_ == Mode::Off) return;
    std::lock_guard lock(mutex_);
    if (finished_) return;
    const auto now = Clock::now();
    // A new phase, or a new run of the same phase (its chain-sweep count starts again). It began
    // after the previous call (update is called far more often than it prints), so its rate is
    // measured from then: measured from this call, a count already past zero would be divided by
    // microseconds (rates of 1e9 chain-sweeps/s were printed for a sweep's second run).
    if (phase != phase_ || (chain_sweeps >= 0 && chain_sweeps < last_sweeps_)) {
        phase_ = phase;
        phase_start_ = last_update_;
        last_sweeps_ = 0;
    }
    last_update_ = now;
    if (chain_sweeps >= 0) last_sweeps_ = chain_sweeps;
    if (std::isfinite(fraction)) fraction_ = std::max(fraction_, std::min(1.0, fraction));
    if (emitted_ && std::chrono::duration<double>(now - last_emit_).count() < kInterval) return;
    emit(phase, chain_sweeps, extra, false, false);
}

void Progress::result(const std::string& phase, const nlohmann::json& extra) {
    if (mode_ != Mode::Jsonl) return;
    std::lock_guard lock(mutex_);
    if (finished_) return;
    emit(phase, -1, extra, false, false);
}

void Progress::finish(bool complete, const nlohmann::json& extra) {
    if (mode_ == Mode::Off) return;
    std::lock_guard lock(mutex_);
    if (finished_) return;
    if (complete) fraction_ = 1;
    emit(phase_.empty() ? "done" : phase_, last_sweeps_, extra, true, complete);  // the last phase's rate
    finished_ = true;
}

void Progress::emit(const std::string& phase, double chain_sweeps, const nlohmann::json& extra, bool final_line,
                    bool complete) {
    const auto now = Clock::now();
    last_emit_ = now;
    emitted_ = true;
    const OuterSpan& o = outer();
    // Inside a span: the whole command's fraction and clock; a finished sub-run is not the end.
    const double fraction = o.on ? o.begin + o.width * fraction_ : fraction_;
    if (o.on) final_line = false;
    const double elapsed = std::chrono::duration<double>(now - (o.on ? o.start : start_)).count();
    const double phase_elapsed = std::chrono::duration<double>(now - phase_start_).count();
    const double eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : NAN;
    const double rate = chain_sweeps > 0 && phase_elapsed > 0 ? chain_sweeps / phase_elapsed : NAN;
    if (mode_ == Mode::Jsonl) {
        nlohmann::json j = extra.is_object() ? extra : nlohmann::json::object();
        j["phase"] = phase;
        j["fraction"] = fraction;
        j["elapsed_s"] = elapsed;
        if (std::isfinite(eta)) j["eta_s"] = eta;
        if (std::isfinite(rate)) j["chain_sweeps_per_s"] = rate;
        if (final_line) {
            j["final"] = true;
            j["complete"] = complete;
        }
        if (sink()) {
            sink()(j);
            return;
        }
        std::fputs((j.dump() + "\n").c_str(), stderr);
        std::fflush(stderr);
        return;
    }
    // Mode::Line: one line on the terminal, rewritten in place; erased by the final call.
    if (final_line) {
        std::fprintf(stderr, "\r%*s\r", static_cast<int>(line_width()), "");
        line_width() = 0;
        std::fflush(stderr);
        return;
    }
    std::string line = phase + " " + fixed(100 * fraction, 1) + "%  " + duration(elapsed) + " elapsed";
    if (std::isfinite(eta)) line += ", about " + duration(eta) + " left";
    if (std::isfinite(rate)) line += "  (" + fixed(rate, 0) + " chain-sweeps/s)";
    // train: where the time goes (the monitor's records run between updates, off their clock).
    if (extra.is_object() && extra.contains("update_s") && extra.contains("monitor_s"))
        line += "  (updates " + duration(extra["update_s"].get<double>()) + ", monitor " +
                duration(extra["monitor_s"].get<double>()) + ")";
    if (line.size() < line_width()) line.resize(line_width(), ' ');
    line_width() = line.size();
    std::fprintf(stderr, "\r%s", line.c_str());
    std::fflush(stderr);
}

}  // namespace rbm::cli
