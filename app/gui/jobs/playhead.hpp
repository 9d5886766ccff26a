#pragma once
// What a view shows of a run that is recorded while it is computed (the Tempering view's PT runs,
// views/tempering/tempering_recording.hpp): a playhead over the recording, in the run's units (PT
// scans). The engine always computes at full speed; the playhead paces what is shown. Two
// timelines, one at a time:
//   the show   from unit 0 at a pace, behind the engine, waiting when it catches up. The run's
//              StepGate (core/numerics/step_gate.hpp) drives it as it drives a worker: its pause
//              holds the shown unit, a unit of its budget shows exactly the next record, its pace
//              (unless setPace() set one) is the speed, and its counter is the unit on screen. The
//              playhead is that gate's worker, on the GUI thread: it never blocks, it looks at the
//              gate every tick (~30 a second), and it is the only code that writes the gate's
//              worker side (budget taken, holding, done).
//   the replay once the run ended: Play goes through the recording from its first record at a pace,
//              Step shows the next record, seek() jumps to one (a scrub).
// States (every change through enter(), which refuses what allowed() does not list):
//   Off        nothing recorded is shown: no run yet, a new model, a reopened result
//   Showing    the show follows the engine (the transport's job is active)
//   Cutting    Esc stopped the show; the run's last computed unit goes on screen once the worker
//              has written its last record
//   Ended      the run's end is on screen (complete, or cut by Esc: cut())
//   Replaying  a record of the ended run is on screen, still (scrubbed or stepped)
//   Playing    the replay moves at its pace
// The view draws; the playhead decides what and when, through Source.
#include <QElapsedTimer>
#include <QObject>
#include <functional>
#include <memory>

#include "core/numerics/step_gate.hpp"

class QTimer;

namespace rbmscope {

class Playhead : public QObject {
    Q_OBJECT
public:
    enum class State { Off, Showing, Cutting, Ended, Replaying, Playing };
    Q_ENUM(State)
    static bool allowed(State from, State to);

    struct Source {
        // Puts on screen the newest record at or before `unit` (after: the oldest one after it),
        // unless it is there already, and returns its unit; -1 when there is none (yet).
        std::function<long long(long long unit, bool after)> seek;
        std::function<long long()> newest;  // unit of the newest record, -1 when none
        std::function<bool()> written;      // the worker wrote its last record (the recording is complete)
        std::function<bool()> computing;    // the engine still computes
        std::function<double()>
            showPace;  // units per second of the show when neither setPace nor the gate sets one; 0: as computed
        std::function<double()> replayPace;  // units per second of Play when setPace sets none
        // The show is over: put the run's end on screen (the last unit computed); returns its unit.
        std::function<long long()> showEnd;
    };
    explicit Playhead(Source source, QObject* parent = nullptr);

    // The show.
    void start(std::shared_ptr<rbm::StepGate> gate);  // a new run: Showing from unit 0
    void engineEnded(bool complete);                  // its engine delivered its end (complete: not cancelled)
    void abort();                                     // its engine failed: Ended where it is
    void cancel();                                    // Esc: Cutting (Ended at once when the end is written)
    void clear();                                     // Off (a new model, a reopened result)
    // The replay (of an Ended run whose recording is written).
    bool canReplay() const;
    void setPlaying(bool on);
    bool step();                // the next record; false at the end (Ended: the first record)
    void seek(long long unit);  // the record at or before unit
    void endReplay();           // back to the run's end

    State state() const { return state_; }
    bool showing() const { return state_ == State::Showing; }
    bool replaying() const { return state_ == State::Replaying || state_ == State::Playing; }
    long long shown() const { return shown_; }                  // the unit on screen, -1 none
    bool complete() const { return complete_; }                 // the last run's engine ended complete
    bool cut() const { return cut_; }                           // Esc stopped the last run's show before its end
    bool held() const { return gate_ && gate_->pause.load(); }  // the show's pause is asked
    rbm::StepGate* gate() const { return gate_.get(); }
    // The transport's speed (units per second; 0: none): the show's and the replay's pace when set.
    void setPace(double unitsPerSecond) { pace_ = unitsPerSecond > 0 ? unitsPerSecond : 0; }
    double replayRate() const;
    double showPace() const;

Q_SIGNALS:
    void stateChanged(Playhead::State from, Playhead::State to);
    void ticked();  // the show moved or held (the view's status lines)

private:
    bool enter(State to);
    void tick();
    void tickShow();
    void tickReplay();
    void endShow();
    double secondsSinceLastTick();

    Source source_;
    State state_ = State::Off;
    std::shared_ptr<rbm::StepGate> gate_;
    long long shown_ = -1;
    double pos_ = 0;  // the show's or the replay's position, in units
    double pace_ = 0;
    bool complete_ = false, cut_ = false;
    QTimer* timer_ = nullptr;
    QElapsedTimer clock_;  // wall time between ticks
};

}  // namespace rbmscope
