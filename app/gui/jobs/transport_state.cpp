// The transport's states and every change between them, in one table (jobs/transport.hpp).
#include "jobs/transport.hpp"

namespace rbmscope {

std::optional<Transport::State> Transport::next(State from, Event e) {
    using S = State;
    using E = Event;
    // A new run can start from anywhere (Run restarts a run in progress).
    if (e == E::Run) return S::Running;
    if (e == E::StepRun) return S::Stepping;
    switch (from) {
        case S::Idle:
            switch (e) {
                case E::Finish: return S::Finished;  // a restored or reopened run, or one that came and went unseen
                case E::End: return S::Stopped;
                case E::Forget: return S::Idle;
                case E::Replay: return S::Replaying;
                case E::Play: return S::Playing;
                default: return std::nullopt;  // nothing runs: nothing to pause, step, hold or cancel
            }
        case S::Running:
            switch (e) {
                case E::Pause: return S::Pausing;
                case E::Step: return S::Pausing;  // Step while running stops where it is
                case E::Cancel: return S::Stopped;
                case E::Finish: return S::Finished;
                case E::End: return S::Stopped;
                default: return std::nullopt;  // a running worker does not hold; a run is not forgotten
            }
        case S::Pausing:
        case S::Paused:
        case S::Stepping:
            switch (e) {
                case E::Resume: return S::Running;
                case E::Step: return S::Stepping;
                case E::Held:
                    if (from == S::Paused) return std::nullopt;  // already held
                    return S::Paused;
                case E::Cancel: return S::Stopped;
                case E::Finish: return S::Finished;
                case E::End: return S::Stopped;
                default: return std::nullopt;
            }
        case S::Stopped:
        case S::Finished:
        case S::Replaying:
        case S::Playing:
            switch (e) {
                // The job's account of how its run ended may arrive after its channel stopped, and
                // a playback goes back to that end.
                case E::Finish: return S::Finished;
                case E::End: return S::Stopped;
                case E::Forget: return S::Idle;
                case E::Replay: return S::Replaying;
                case E::Play: return S::Playing;
                default: return std::nullopt;  // nothing runs: nothing to pause, step, hold or cancel
            }
    }
    return std::nullopt;
}

QString stateName(Transport::State s) {
    switch (s) {
        case Transport::State::Idle: return QStringLiteral("idle");
        case Transport::State::Running: return QStringLiteral("running");
        case Transport::State::Pausing: return QStringLiteral("pausing");
        case Transport::State::Paused: return QStringLiteral("paused");
        case Transport::State::Stepping: return QStringLiteral("stepping");
        case Transport::State::Stopped: return QStringLiteral("stopped");
        case Transport::State::Finished: return QStringLiteral("finished");
        case Transport::State::Replaying: return QStringLiteral("replaying");
        case Transport::State::Playing: return QStringLiteral("playing");
    }
    return {};
}

}  // namespace rbmscope
