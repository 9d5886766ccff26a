#pragma once
// One transport for every view's job: Run (F5), Pause/Resume (Space), Step (→ or .), Cancel (Esc,
// keeps what was computed), Restart and a speed limit. The main window drives the current view's
// Transport. A job plugs in with a few hooks (Transport::Job) and hands its worker the StepGate of
// the run (core/numerics/step_gate.hpp), which does pause, single steps, pacing and the unit
// counter the same way for every job. A unit is what Step advances: one annealing step, one PT
// scan, one sampling sweep, one training update.
//
// States: Idle (nothing has run), Running, Pausing (pause asked, the worker has not stopped yet),
// Paused (the worker waits: units() cannot change until Resume or Step), Stopped (cancelled or
// failed; what was computed is kept), Finished.
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

#include "core/numerics/step_gate.hpp"

class QTimer;

namespace rbmscope {

class Transport : public QObject {
    Q_OBJECT
public:
    enum class State { Idle, Running, Pausing, Paused, Stopped, Finished };
    Q_ENUM(State)
    struct Job {
        QString unit;  // what one Step advances, e.g. "annealing step"
        // Start a new run whose worker uses `gate` (fresh, with pause, budget and pace already set).
        std::function<void(std::shared_ptr<rbm::StepGate> gate)> start;
        std::function<void()> stop;              // stop, keeping what was computed
        std::function<bool()> active;            // a run is in progress (or about to start)
        std::function<bool()> finished;          // the last run ended complete
        std::function<rbm::StepGate*()> gate;    // the gate of the current / last run (may be null)
        std::function<QString()> cannotRun;      // "" when Run is possible, else why not
        std::function<double()> fraction;        // of the current / last run in [0, 1], < 0 unknown (may be null)
        bool canStep = true;                     // false: the job has no units (Step disabled)
        // Words after the unit count in the toolbar, e.g. what a paced view shows against what its
        // engine computed (may be null).
        std::function<QString()> detail;
    };
    explicit Transport(Job job, QObject* parent = nullptr);

    void run();                  // a new run from the start with the current settings
    void restart() { run(); }
    void setPaused(bool on);     // while no job runs: nothing
    void togglePause();
    void step();                 // one unit; when no run is in progress: a new run, paused after its first unit
    void cancel();               // stop, keep what was computed
    void setPace(double unitsPerSecond);  // 0: full speed; applies to the run in progress too
    double pace() const { return pace_; }

    State state() const;
    // Running, pausing or paused; false from the moment cancel() returns.
    bool active() const { return job_.active() && !stopping(); }
    bool jobActive() const { return job_.active(); }  // the worker has not handed over its end yet
    long long units() const;                       // units done by the current / last run
    double fraction() const;                       // < 0 when the job cannot say
    QString unitName() const { return job_.unit; }
    QString detail() const { return job_.detail ? job_.detail() : QString(); }
    bool canStep() const { return job_.canStep; }
    QString cannotRun() const { return job_.cannotRun ? job_.cannotRun() : QString(); }
    // Re-read the job's state (call when the job started or ended outside the transport).
    void refresh();

Q_SIGNALS:
    void stateChanged();

private:
    std::shared_ptr<rbm::StepGate> freshGate(bool paused) const;
    void poll();
    // Cancelled, the worker not ended yet: the gate of the run cancelled is still the job's
    // (a run started since, by the transport or by the view, has a gate of its own).
    bool stopping() const { return stoppedGate_ && job_.gate() == stoppedGate_; }

    Job job_;
    double pace_ = 0;
    bool cancelled_ = false;
    const rbm::StepGate* stoppedGate_ = nullptr;  // the gate of the run cancel() stopped, until its worker ends
    State last_ = State::Idle;
    long long lastUnits_ = 0;
    int ticks_ = 0;
    QTimer* poll_ = nullptr;  // while active: notices the worker acknowledging a pause, the end
};

QString stateName(Transport::State s);

}  // namespace rbmscope
