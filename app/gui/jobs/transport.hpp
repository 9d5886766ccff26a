#pragma once
// One transport for every view's job: Run (F5), Pause/Resume (Space), Step (→ or .), Cancel (Esc,
// keeps what was computed), Restart and a speed limit. The main window drives the current view's
// Transport. A job plugs in with a few hooks (Transport::Job) and hands its worker the StepGate of
// the run (core/numerics/step_gate.hpp), which does pause, single steps, pacing and the unit
// counter the same way for every job. A unit is what Step advances: one annealing step, one PT
// scan, one sampling sweep, one training update.
//
// States (one enum, every change through the transition table next(), transport_state.cpp):
//   Idle      nothing has run (or the model changed since: no counter to show)
//   Running
//   Pausing   pause asked, the worker has not stopped yet
//   Paused    the worker waits: units() cannot change until Resume or Step
//   Stepping  paused with a unit granted that the worker has not finished yet
//   Stopped   cancelled or failed; what was computed is kept (and counted)
//   Finished
//   Replaying the view shows a recording of the last run (Tempering's Replay), no job runs
//   Playing   the view animates what the last run recorded (the annealing views' Play β)
// The transport's commands (run, pause, step, cancel, reset) move the state at once; what the
// transport observes of the job (the worker acknowledged a pause, the job ended, a run started by
// the view's own button, a playback) moves it when the state is read (state() folds it in) or
// refreshed. A change the table refuses does not happen.
//
// Cancel is shown at once: from the moment Esc is handled the transport says Stopped and
// active() is false, while the worker still winds down (a few ms: it sees the flag between two
// units) and hands over its partial result, which the job applies when it arrives (a Run or Step
// in between starts a new generation of the job's channel, so that late hand-over is dropped).
// jobActive() tells whether the worker is still there.
#include <QObject>
#include <QString>
#include <functional>
#include <memory>
#include <optional>

#include "core/numerics/step_gate.hpp"

class QTimer;

namespace rbmscope {

class Transport : public QObject {
    Q_OBJECT
public:
    enum class State { Idle, Running, Pausing, Paused, Stepping, Stopped, Finished, Replaying, Playing };
    Q_ENUM(State)
    // What moves the state: a command of the transport or what it observed of the job.
    enum class Event {
        Run,      // a new run from the start (F5, or one the job started itself)
        StepRun,  // a new run that holds after its first unit (Step with nothing running)
        Pause,    // pause asked
        Resume,   // pause released
        Step,     // one more unit granted while paused
        Held,     // the worker waits in the pause with no unit granted
        Cancel,   // stopped at once; the worker winds down
        Finish,   // the job ended complete (or restored / reopened complete)
        End,      // the job ended incomplete: cancelled, failed (or restored / reopened so)
        Forget,   // the job's run is gone (the model changed): nothing to count
        Replay,   // the view replays the last run's recording
        Play,     // the view animates the last run's recording
    };
    Q_ENUM(Event)
    // The state after `e` in `from`; none when the table refuses it (e.g. Cancel with nothing
    // running, Held while running, Forget while a job runs).
    static std::optional<State> next(State from, Event e);
    // A job runs (or is about to): its worker may be paused, but it has not ended.
    static bool isRun(State s) {
        return s == State::Running || s == State::Pausing || s == State::Paused || s == State::Stepping;
    }

    // A run the job shows without having run it here: restored from a session, reopened from a
    // result file.
    struct Restored {
        long long units = 0;
        bool finished = true;
    };
    struct Job {
        QString unit;  // what one Step advances, e.g. "annealing step"
        // Start a new run whose worker uses `gate` (fresh, with pause, budget and pace already set).
        std::function<void(std::shared_ptr<rbm::StepGate> gate)> start;
        std::function<void()> stop;            // stop, keeping what was computed
        std::function<bool()> active;          // a run is in progress (or about to start)
        std::function<bool()> finished;        // the last run ended complete
        std::function<rbm::StepGate*()> gate;  // the gate of the current / last run (may be null)
        std::function<QString()> cannotRun;    // "" when Run is possible, else why not
        std::function<double()> fraction;      // of the current / last run in [0, 1], < 0 unknown (may be null)
        bool canStep = true;                   // false: the job has no units (Step disabled)
        // Words after the unit count in the toolbar, e.g. what a paced view shows against what its
        // engine computed (may be null).
        std::function<QString()> detail;
        // With no run in progress, what the view plays back of the last run: State::Replaying,
        // State::Playing, or State::Idle for nothing (may be null: the job has no playback).
        std::function<State()> playback;
        // The run shown when it was not run here (a restored session, a reopened result), until a
        // new run starts; none otherwise (may be null).
        std::function<std::optional<Restored>()> restored;
    };
    explicit Transport(Job job, QObject* parent = nullptr);

    void run();  // a new run from the start with the current settings
    void restart() { run(); }
    void setPaused(bool on);  // while no job runs: nothing
    void togglePause();
    void step();    // one unit; when no run is in progress: a new run, paused after its first unit
    void cancel();  // stop, keep what was computed
    // The model changed: the last run is no longer the model's, so Idle with 0 units (nothing
    // while a run is in progress: that run is the new model's).
    void reset();
    void setPace(double unitsPerSecond);  // 0: full speed; applies to the run in progress too
    double pace() const { return pace_; }

    State state() const;
    // Running, pausing, paused or stepping; false from the moment cancel() returns.
    bool active() const { return job_.active() && !stopping(); }
    bool jobActive() const { return job_.active(); }  // the worker has not handed over its end yet
    long long units() const;                          // units done by the current / last run (0 when Idle)
    double fraction() const;                          // < 0 when the job cannot say
    QString unitName() const { return job_.unit; }
    QString detail() const { return job_.detail ? job_.detail() : QString(); }
    bool canStep() const { return job_.canStep; }
    QString cannotRun() const { return job_.cannotRun ? job_.cannotRun() : QString(); }
    // The toolbar's words: "running · 1234 PT scans shown · …" (state, units, detail).
    QString describe() const;
    // Re-read the job's state (call when the job started or ended outside the transport).
    void refresh();

Q_SIGNALS:
    void stateChanged();

private:
    std::shared_ptr<rbm::StepGate> freshGate(bool paused) const;
    void poll();
    bool apply(Event e) const;              // through next(); false when refused
    void sync() const;                      // fold in what the job did since the last look
    std::optional<State> endOfRun() const;  // how the last run ended, as the job tells it; none: no run
    // Cancelled, the worker not ended yet: the gate of the run cancelled is still the job's
    // (a run started since, by the transport or by the view, has a gate of its own).
    bool stopping() const { return stoppedGate_ && job_.gate() == stoppedGate_; }

    Job job_;
    double pace_ = 0;
    mutable bool cancelled_ = false;              // the last run was cancelled (a run the job starts itself clears it)
    const rbm::StepGate* stoppedGate_ = nullptr;  // the gate of the run cancel() stopped, until its worker ends
    // The state machine (mutable: reading the state folds in what the job did).
    mutable State state_ = State::Idle;
    mutable bool ran_ = false;                        // a run started since the last reset
    mutable std::optional<long long> restoredUnits_;  // the units of a restored run, while it is shown
    State last_ = State::Idle;
    long long lastUnits_ = 0;
    int ticks_ = 0;
    QTimer* poll_ = nullptr;  // while active: notices the worker acknowledging a pause, the end
};

QString stateName(Transport::State s);

}  // namespace rbmscope
