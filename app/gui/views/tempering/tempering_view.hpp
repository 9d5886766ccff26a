#pragma once
// The tempering view (parallel tempering, docs/methods/tempering.md): a control strip (scheme, ladder, replicas, γ,
// seed, scans, speed), the replica trajectories over the most recent scans, the ladder on a β
// axis with each pair's swap acceptance and the local barrier λ(β), round-trip counters measured
// against the theory, and for 2-D models one small heatmap of p_β per rung with a dot where that
// rung's state (chain 0) is now.
//
// Every computation runs through BackgroundJobs: the run on channel "pt" (a new run cancels the
// old one and its late frames are dropped), the rung heatmaps on "pt.heat". Frames from the
// worker are coalesced: the newest one is kept and drawn by a ~35 ms single-shot timer.
// Switching the scheme restarts on the same seed so the schemes are compared on equal terms.
//
// Paced playback: the engine always computes at full speed; what is shown is paced.
// Every run is recorded (views/tempering/tempering_recording.hpp, bounded and decimated) and, while
// the engine computes, the view shows the recording from scan 0 at the pace — the transport's speed
// when one is set (Run → Speed), else the speed box (slow 60, watch 300 scans per second; fast: the
// newest recorded scan, as the engine goes) — following behind the engine and waiting when it
// catches up. The run's StepGate (jobs/transport.hpp) drives what is shown, not the engine: its
// pause holds the shown scan, a unit of its budget shows exactly the next recorded scan, and its
// counter is the scan on screen. The run is active until the show reaches the engine's last scan;
// Esc (cancel) stops the engine if it still computes and shows the last scan it computed.
// With nothing running, Play (Space in the main window) replays the last run from its first scan
// at the same pace (fast: the whole run in 8 s); the slider below the controls scrubs through the
// recorded scans and Step (→ in the main window) shows the next one. lastRun / the report describe
// the run's end. The pacing, the show's use of the StepGate and the replay's timeline are the
// playhead's (jobs/playhead.hpp): its state (Off, Showing, Cutting, Ended, Replaying, Playing) is
// the view's, and the view only draws the records it asks for.
// The engine has no sweeps-per-swap option (one local move per rung per scan), so there is none here.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QGridLayout>
#include <QLabel>
#include <QPixmap>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTimer>
#include <QWidget>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/io/session_io.hpp"

#include "ellipse_heatmap.hpp"
#include "jobs/background_jobs.hpp"
#include "jobs/coalesced_mailbox.hpp"
#include "jobs/playhead.hpp"
#include "jobs/transport.hpp"
#include "ladder_plot.hpp"
#include "trajectory_chart.hpp"
#include "views/tempering/tempering_job.hpp"
#include "views/tempering/tempering_recording.hpp"

namespace rbmscope {

class TemperingView : public QWidget {
    Q_OBJECT
public:
    // jobs: the application's job runner; null: the view makes its own.
    explicit TemperingView(QWidget* parent = nullptr, BackgroundJobs* jobs = nullptr);
    ~TemperingView() override;

    void setModel(const rbm::Model& model);  // cancels a run, clears, redraws the rung heatmaps
    // The model's exact log Z from the window's summary (computed once there, cancellable), shown
    // next to the run's PT estimates; nullopt when the model has none.
    void setExactLogZ(std::optional<double> logZ);
    // gate: pause, single steps and pacing (jobs/transport.hpp); null: a gate of its own.
    void run(std::shared_ptr<rbm::StepGate> gate = {});
    rbm::StepGate* stepGate() const { return playhead_->gate(); }
    bool lastRunFinished() const;  // the last run ended complete (a reopened result: that result)
    // The settings the last run started with (the controls may have changed since); none before a
    // run or after a reopened result replaced it.
    const std::optional<TemperingSettings>& lastRunSettings() const { return lastRun_; }
    void cancel();
    bool running() const;    // the engine computes, or its run is still being shown
    bool computing() const;  // the engine computes
    // The toolbar's words on what is shown and what the engine did ("" when nothing is shown live).
    QString transportDetail() const;
    const TemperingRecording* liveRecording() const { return recording_.get(); }  // of the current / last run
    bool lastScanPending() const {
        return playhead_->state() == Playhead::State::Cutting;
    }  // cancelled: the last computed scan is not on screen yet
    QPixmap grabForScreenshot();
    // A run computed elsewhere (a reopened `pt` result): its ladder, swap rates, round trips and
    // barrier, shown as its last frame (no trajectories or states: a result holds none), with
    // `source` in the status line. Cancels a run in progress; Run runs live as usual.
    void showResult(const TemperingFrame& frame, const QString& source);
    QString statusText() const;

    // Controls <-> settings. setSettings restarts a run in progress (or shown) when the scheme changed.
    void setSettings(const TemperingSettings& s);
    TemperingSettings settings() const;
    void setScheme(rbm::PtScheme scheme);
    // Sessions (tempering_session.cpp): the controls and the ladder (dragged rungs included) as
    // the view's settings — scheme, ladder, replicas, gamma, seed, scans, speed, custom_ladder
    // (the β's, empty when the ladder follows its kind). readSessionSettings checks and changes
    // nothing ("" or one message naming the key); setSettings applies.
    std::map<std::string, rbm::SessionValue> sessionSettings() const;
    QString readSessionSettings(const std::map<std::string, rbm::SessionValue>& map, TemperingSettings& out) const;

    TrajectoryChart* trajectoryChart() const { return chart_; }
    LadderPlot* ladderPlot() const { return ladder_; }
    int rungHeatmapCount() const { return static_cast<int>(rungMaps_.size()); }
    EllipseHeatmap* rungHeatmap(int k) const { return rungMaps_.at(static_cast<std::size_t>(k)); }
    QLabel* countersLabel() const { return counters_; }
    // The run's newest frame from its engine (its end once it ended), or a reopened result; what is
    // on screen is displayedFrame().
    const TemperingFrame* shownFrame() const { return shown_.get(); }
    int framesShown() const { return framesShown_; }
    QString runChannel() const { return QStringLiteral("pt"); }
    QString heatChannel() const { return QStringLiteral("pt.heat"); }
    BackgroundJobs* jobs() const { return jobs_; }

    // Replay of the last run (see the top of this file).
    const TemperingRecording* recording() const;  // null while a run is in progress or before one ended
    bool canReplay() const { return recording() != nullptr && recording()->size() > 0; }
    void setPlaying(bool on);
    bool playing() const { return playhead_->state() == Playhead::State::Playing; }
    bool replaying() const { return replay_ != nullptr; }  // a recorded scan is on screen
    void showRecord(int index);                            // scrub to a recorded scan (clamped)
    bool stepReplay();                                     // the next recorded scan; false at the end
    void endReplay();                                      // back to the run's latest frame
    int shownRecord() const { return replay_ ? replayIndex_ : -1; }
    void setReplayPace(double unitsPerSecond) {
        playhead_->setPace(unitsPerSecond);
    }                                            // the transport's; 0: the speed box
    double replayRate() const;                   // scans per second of Play
    void setHurried(bool on) { hurried_ = on; }  // View::setHurried: a show follows the engine (as "fast")
    // What is on screen: the recorded scan of a replay, else the run's latest frame.
    const TemperingFrame* displayedFrame() const { return replay_ ? replay_.get() : shown_.get(); }
    QSlider* replaySlider() const { return playSlider_; }
    // Records kept per run (tests): at most this many, decimated evenly; takes effect at the next run.
    void setMaxRecords(int n) { maxRecords_ = n; }
    // What is shown of the last run, and when (the show, the replay): its state is the view's.
    const Playhead* playhead() const { return playhead_; }
    // For the transport (Transport::Job::playback and ::restored): Replaying while a record of the
    // last run is replayed (playing, scrubbed or stepped), else Idle; and a reopened result's
    // scans and end.
    Transport::State playbackState() const {
        return playhead_->replaying() ? Transport::State::Replaying : Transport::State::Idle;
    }
    std::optional<Transport::Restored> restoredRun() const;

Q_SIGNALS:
    void frameShown();   // a new frame reached the screen
    void runFinished();  // the run ended (not cancelled)
    void rungImagesReady();
    void runningChanged(bool running);
    void playingChanged(bool playing);
    void replayAvailableChanged(bool available);  // canReplay() changed (a run ended, a new one started)
    void playbackChanged();  // the playhead's state or the replayed record changed (the transport reads them)

private:
    std::optional<double> exactLogZ_;
    void buildControls(QWidget* strip);
    void controlsChanged(bool restartIfShown);
    void showInitialLadder();
    void receive(std::shared_ptr<TemperingFrame> frame);
    void showPending();
    void showFrame(const TemperingFrame& f);
    void requestRungImages(const std::vector<double>& betas);
    void rebuildRungMaps(int rungs);
    void updateCounters(const TemperingFrame& f);
    void updateEnabled();
    void buildReplayControls(QWidget* strip);
    void stopReplay();  // back to the live frame (a new run, a new model, a reopened result)
    void updateReplayControls();
    void playheadChanged(Playhead::State from, Playhead::State to);
    // The playhead's Source: the record at or before `scan` (after: the next one) on screen.
    long long seekRecord(long long scan, bool after);
    void drawRecord(int index);              // a record of the ended run on screen (the replay)
    void showLive(const TemperingFrame& f);  // a recorded scan of the run in progress on screen
    long long showRunEnd();                  // the show is over: the run's last computed scan
    long long computedScans() const;
    void updateShowStatus();

    BackgroundJobs* jobs_;
    rbm::Model model_;
    bool hasModel_ = false, drawable_ = false;
    std::vector<double> customLadder_;
    std::vector<double> heatBetas_;
    RungImages heat_;
    std::shared_ptr<TemperingFrame> pending_, shown_;
    std::unique_ptr<FrameGate> gate_;
    int framesShown_ = 0;
    bool updatingControls_ = false;

    QComboBox* scheme_ = nullptr;
    QComboBox* ladderKind_ = nullptr;
    QSpinBox* replicas_ = nullptr;
    QDoubleSpinBox* gamma_ = nullptr;
    QSpinBox* seed_ = nullptr;
    QSpinBox* scans_ = nullptr;
    QComboBox* speed_ = nullptr;
    QPushButton* runButton_ = nullptr;
    QPushButton* cancelButton_ = nullptr;
    QLabel* status_ = nullptr;
    TrajectoryChart* chart_ = nullptr;
    LadderPlot* ladder_ = nullptr;
    QLabel* counters_ = nullptr;
    QStackedWidget* heatStack_ = nullptr;
    QLabel* heatMessage_ = nullptr;
    QWidget* heatGrid_ = nullptr;
    QGridLayout* heatLayout_ = nullptr;
    std::vector<EllipseHeatmap*> rungMaps_;
    std::optional<TemperingSettings> lastRun_;
    bool hurried_ = false;
    QString reopened_;  // where the shown frame came from when reopened (showResult), else ""

    std::shared_ptr<TemperingRecording> recording_;  // of the last run (written by its worker until it ends)
    std::shared_ptr<TemperingFrame> replay_;         // the recorded scan on screen, when replaying
    int replayIndex_ = 0;                            // the record on screen in the replay
    int maxRecords_ = 4096;
    bool replayAvailable_ = false;
    Playhead* playhead_ = nullptr;  // the show and the replay: what is on screen, and when
    QPushButton* playButton_ = nullptr;
    QSlider* playSlider_ = nullptr;
    QLabel* playLabel_ = nullptr;
};

}  // namespace rbmscope
