#pragma once
// The rbmscope main window: the parameter panel (left dock), the views in the centre (Target
// density, Annealing, Compare, Estimates, Tempering, Mean field, Samples, Filters, Training), and a status bar with progress, elapsed time, speed
// and a cancel button. Every computation runs through BackgroundJobs (oneTBB workers); results
// reach the views as snapshots on the GUI thread.
//
// main_window.cpp builds the window, menus, export and help; main_window/runs.cpp holds the flow:
// model -> paths (lanes) -> heatmaps, runs and sweeps, and the status bar.
#include <QElapsedTimer>
#include <QLabel>
#include <QMainWindow>
#include <QProgressBar>
#include <QPushButton>
#include <QTabWidget>
#include <QTimer>
#include <optional>

#include "views/annealing/ais_job.hpp"
#include "views/annealing/annealing_view.hpp"
#include "jobs/background_jobs.hpp"
#include "views/density/density_tab.hpp"
#include "views/estimates/estimates_view.hpp"
#include "heatmap_view.hpp"
#include "jobs/lanes.hpp"
#include "views/meanfield/meanfield_view.hpp"
#include "parameter_panel.hpp"
#include "core/models/models.hpp"
#include "core/io/session_io.hpp"
#include "views/filters/filters_view.hpp"
#include "views/samples/samples_view.hpp"
#include "views/estimates/sweep_job.hpp"
#include "views/tempering/tempering_view.hpp"
#include "views/training/training_view.hpp"
#include "jobs/transport.hpp"
#include <map>

class QAction;
class QMenu;
class QComboBox;
class QToolBar;

namespace rbmscope {

struct CliEquivalent;  // main_window/cli_equivalent.hpp

class RemoteRunDialog;
class PresenterOverlay;  // main_window/presenter_overlay.hpp

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Load a preset or file; on failure show the reason and keep the current model.
    bool loadPreset(const QString& name);
    bool loadFile(const QString& path);

    // Results of rbmscope-cli (main_window/result_files.cpp, issue #18): the JSON printed by ais,
    // ais-sweep, pt, meanfield and train, and train's --log FILE.json, open in the matching view
    // with the model they name, as they were computed (nothing is re-run): ais and ais-sweep in
    // Estimates, pt in Tempering, meanfield in Mean field, train in Training. loadFile() comes
    // here for a result, so File → Open, drag and drop, Open recent and `rbmscope RESULT.json`
    // all do. The model is looked for as recorded, then beside the result; a missing or changed
    // file (FNV-1a differs) is said in the banner, and the result is still shown when the model
    // used has the recorded kind and shape (else refused: false, the reason reported, nothing
    // changes). A banner above the views names the file and its command line while that view
    // shows it; a live run (Run) replaces it.
    bool openResult(const QString& path);
    QString resultBanner() const;  // "" when no reopened result is shown
    QString resultView() const { return resultView_; }

    // Model files (main_window/model_files.cpp). The Open model dialog's filter: every format
    // load_model reads (.json .npz .npy .mat .h5 .hdf5).
    static QString modelFileFilter();
    static bool isModelFileName(const QString& path);
    // File -> Open Recent: the last models opened from files, newest first (QSettings key
    // "recentModels", at most kMaxRecent). A file gone since is removed, with a message.
    static constexpr int kMaxRecent = 8;
    QStringList recentModels() const;
    bool openRecent(const QString& path);
    QMenu* recentMenu() const { return recentMenu_; }
    QString statusMessage() const;  // the status bar's text (the last error or note)
    const rbm::Model& model() const { return model_; }
    // True once every view shows results for the current model and settings and nothing runs
    // (used by --screenshot and tests).
    bool idle() const;
    // When false, errors go to the status bar and stderr instead of a modal box (screenshots, tests).
    void setInteractive(bool on) { interactive_ = on; }

    // Views by name: "density", "annealing", "compare", "estimates", and any other tab by its
    // widget's objectName (else its tab text in lower case, spaces as dashes).
    bool setCurrentView(const QString& name);
    QString currentView() const;
    QStringList viewNames() const;
    // Programmatic settings (tests, command line): applied as if the user had made them.
    void applySettings(const RunSettings& s);
    RunSettings settings() const { return settings_; }

    // Actions (also on menus and shortcuts).
    void startRun();     // the AIS run of the Annealing and Compare views
    void startSweep();   // the sweep over K of the Estimates view
    void stopAll();      // stop every run, keep partial results (the status bar's Cancel)
    void reset();
    // The transport (jobs/transport.hpp) of a view's job, by view name ("" = the current view);
    // null for a view without one (Target density, Filters). Run (F5), Pause (Space), Step
    // (→ or .), Cancel (Esc), Restart (Ctrl+F5) and the speed act on the current view's.
    Transport* transport(const QString& view = QString()) const;
    void runCurrent();
    void togglePause();  // Space; with nothing running on an annealing view: plays the β animation (Tempering: the replay)
    void stepCurrent();  // → or .; in a Tempering replay: the next recorded scan
    void cancelCurrent();
    void restartCurrent();
    void setPace(double unitsPerSecond);  // every transport; 0 = full speed
    // Presenter mode (F11): full screen with one view at a time (no menu, tab, tool or status
    // bar, no docks, no banner; Ctrl+1…9 still change the view), text scaled by presenterScale()
    // (Ctrl+= / Ctrl+-, kept in QSettings "presenter/scale"), and the transport drawn on the
    // canvas by presenterOverlay(): a strip along the bottom with the view's name, the job's
    // state, progress, speed, and Run / Pause / Step / Cancel buttons with their keys. The view
    // is laid out above the strip.
    void setPresenter(bool on);
    PresenterOverlay* presenterOverlay() const { return overlay_; }
    bool presenter() const { return presenter_; }
    double presenterScale() const { return presenterScale_; }
    void scalePresenter(double factor);
    // Run → Run with MPI… (main_window/remote_runs.cpp, issue #17): the current view's computation
    // as an rbmscope-cli command under a launcher (mpirun, srun or none), followed in a non-modal
    // dialog (progress, ETA, speed, a sweep's finished runs); its result opens in its view when it
    // ends (openResult), also after Cancel (the partial result). Returns the dialog, shown.
    RemoteRunDialog* openRemoteRun();
    RemoteRunDialog* remoteRunDialog() const { return remoteRun_; }
    // The command the dialog starts with: the Estimates view's sweep, else the first method of the
    // Annealing run (ais), as rbmscope-cli argv (argv[0] = "rbmscope-cli"); `note` says what it
    // could not carry over. MODEL is preset:NAME for an unedited preset, else the model written
    // to `dir`/`baseName`.model.json ("" and `error` set when that cannot be written).
    std::vector<std::string> remoteCommand(const QString& dir, const QString& baseName, QString* note, QString* error);
    // Export the current view; empty string on success, else the reason.
    QString exportImage(const QString& path, double dpi = 96);  // PNG at dpi (view_export.hpp)
    QString exportData(const QString& path);
    // File → Export report (main_window/report_export.cpp): one self-contained HTML page with the
    // model, every view's results as inline SVG, the numbers and the rbmscope-cli command that
    // reproduces each; "" on success, else the reason.
    QString exportReport(const QString& path);
    // File → Export playback frames (main_window/playback_export.cpp): the Annealing or Compare
    // view at `frames` betas from 0 to 1 as DIR/frame-0001.png … at `dpi`, each once its heatmap
    // for that beta is in (the recorded particles of the run, as Play shows them); the Tempering
    // view at `frames` evenly spaced recorded scans of its last run (as Replay shows them). Runs on the
    // event loop; playbackExported(error) says when it ended ("" on success). "" when started.
    QString exportPlayback(const QString& dir, int frames, double dpi = 96);
    bool exportingPlayback() const { return playbackTimer_ != nullptr; }

    HeatmapView* densityView() const { return density_->view(); }
    DensityTab* densityTab() const { return density_; }
    ParameterPanel* panel() const { return panel_; }
    AnnealingView* annealingView() const { return annealing_; }
    AnnealingView* compareView() const { return compare_; }
    EstimatesView* estimatesView() const { return estimates_; }
    SamplesView* samplesView() const { return samples_; }
    FiltersView* filtersView() const { return filters_; }
    TrainingView* trainingView() const { return training_; }
    MeanFieldView* meanFieldView() const { return meanfield_; }
    TemperingView* temperingView() const { return tempering_; }
    QString statusLine() const { return statusText_->text(); }
    QString modelSummary() const;  // the description in the parameter panel (HTML)
    AisJob* session() const { return run_; }
    SweepJob* sweepJob() const { return sweep_; }
    BackgroundJobs* jobs() const { return jobs_; }
    const std::vector<Lane>& lanes() const { return lanes_; }
    bool lanesReady() const { return lanesReady_; }
    std::optional<double> exactLogZ() const { return exactLogZ_; }
    // run sweep pause step cancel restart reset presenter exportImage exportData exportReport remoteRun exportPlayback logScale openModel saveModel openSession saveSession saveSessionAs
    QAction* action(const QString& name) const;

    // Sessions (main_window/session_files.cpp): the model, every panel setting and the view, in a
    // session file (core's session_io). Opening checks everything first: on failure the
    // problem is reported (sessionProblem, sessionMessage, the status bar; a non-modal box when
    // interactive) and the current model and settings stay.
    bool openSession(const QString& path);
    bool saveSession(const QString& path);  // atomically; becomes the file Save session writes
    rbm::Session captureSession() const;
    QString sessionPath() const { return sessionPath_; }        // "" until a session is opened or saved
    QString sessionMessage() const { return sessionMessage_; }  // the last session problem, "" if none
    // Where the session is saved on quit and restored from on start (AppConfigLocation).
    // $RBMSCOPE_CONFIG_DIR/last-session.json when that variable is set.
    static QString autosavePath();
    // "" when the autosave's folder can be created and written, else why not (a real write).
    static QString autosaveLocationProblem();
    // At start: a folder the autosave cannot write is reported (status bar, non-modal message).
    void checkAutosaveLocation();
    QString autosaveSession();  // save to autosavePath(); "" on success, else why not
    // On quit (closeEvent); on by default. A failed autosave is reported (status bar, stderr,
    // autosaveFailed); when interactive the window stays open with a non-modal message once, and
    // closing it again quits.
    void setAutosave(bool on) { autosave_ = on; }
    // Start-up without --preset/--model: open `sessionFile`, or the autosave when it is empty.
    // When that fails (the reason is reported; a broken autosave is moved aside to
    // autosavePath() + ".broken", never overwritten) or there is none, the default preset
    // opens. True when a session was opened. An autosave whose model no view can show
    // (displayProblem), or whose last start died while showing it (a marker file,
    // autosavePath() + ".opening", lives until the density is in), counts as broken.
    bool startWithSession(const QString& sessionFile);

Q_SIGNALS:
    void modelChanged();  // a model opened, or an edit finished (the views follow it)
    void densityReady();
    void lanesChanged();
    void pathProgress(const QString& text);  // a long path build (Gibbs target moments) says how far it is
    void summaryReady();
    void sessionProblem(const QString& message);
    void autosaveFailed(const QString& message);
    void playbackExported(const QString& error);

protected:
    void closeEvent(QCloseEvent* event) override;
    // A model file dropped on the window opens as File -> Open model does.
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    // Space on a number field goes to the pause action; Enter in a field gives the focus back to the view.
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    // main_window.cpp
    void buildViews();
    void buildMenus();
    void buildPanel();
    void buildStatusBar();
    void showError(const QString& title, const QString& message);
    void openModelDialog();
    void saveModelDialog();
    void exportImageDialog();
    void exportDataDialog();
    void exportReportDialog();
    void exportPlaybackDialog();
    void aboutMethod();
    void aboutEstimates();
    void about();

    // main_window/model_files.cpp
    void rememberRecent(const QString& path);
    // -1: no dialog (not a listable container, or cancelled); 1: the picked arrays loaded;
    // 0: they did not (reported).
    int importWithDialog(const QString& path);
    void rebuildRecentMenu();

    // What the rbmscope-cli commands of the report and of Run with MPI… name as MODEL: preset:NAME
    // for an unedited preset, else the model saved as `dir`/`baseName`.model.json, named by its
    // file name (a report's commands run in its folder) or, with `absolute`, its full path.
    // `note` says where the model was written; "" and `error` on failure.
    std::string cliModelArgument(const QString& dir, const QString& baseName, bool absolute, QString* note, QString* error);
    CliEquivalent trainViewCommand(const QString& dir, const QString& baseName) const;  // remote_runs.cpp
    // main_window/result_files.cpp
    void setResultBanner(const QString& view, const QString& channel, const QString& html);
    void clearResultBanner();

    // main_window/session_files.cpp
    QString applySessionFile(const QString& path);  // "" on success; nothing changes otherwise
    // The views whose session settings are just their controls (session_fields.hpp), by view id.
    std::vector<std::pair<QString, std::vector<SessionField>>> fieldViews() const;
    void reportSessionProblem(const QString& title, const QString& message);
    void openSessionDialog();
    void saveSessionToCurrent();
    void saveSessionAsDialog();

    // main_window/runs.cpp
    // "" when the views can show the model; else why not (refused on open, edit and restore).
    static QString displayProblem(const rbm::Model& m);
    void setModel(rbm::Model m, const QString& origin, const QString& presetName);
    void refreshSummary();
    QString modelTitle() const;  // the model's name, "(edited)" once changed by hand
    void rebuildLanes();
    void onLanes(std::vector<Lane> lanes);
    void onSettingsChanged();
    void onModelEdited(const rbm::Grbm& g, bool final);
    // The Samples view's data and preprocessing become the model's "training" (saved with it; a
    // BRBM's AIS then defaults to the data's base rate when the run settings were the defaults).
    void attachTrainingData(const rbm::TrainingData& t);
    void applyModelEdit();
    void onArrowDragged(int index, QPointF point);
    void maybeAutoRun();
    void updateStatus();
    void updateActions();
    void launchRun(std::shared_ptr<rbm::StepGate> gate);    // the AIS run, with the transport's gate
    void launchSweep(std::shared_ptr<rbm::StepGate> gate);
    void buildTransports();

    rbm::Model model_;
    rbm::Model loaded_;  // as opened, for Reset
    QString origin_, presetName_;
    bool modelEdited_ = false;  // changed since setModel (editor or arrows)
    QString sessionPath_, sessionMessage_;
    bool autosave_ = true;
    bool quitWithoutSaving_ = false;  // the autosave failed and the user was told: the next close quits
    QLabel* sessionLabel_ = nullptr;  // the last session problem, in the status bar
    bool interactive_ = true;
    RunSettings settings_;
    LaneKey laneKey_;
    std::vector<Lane> lanes_;
    bool lanesReady_ = false;
    bool runAfterLanes_ = false;
    bool sweepAfterLanes_ = false;
    std::optional<double> exactLogZ_;

    BackgroundJobs* jobs_ = nullptr;
    AisJob* run_ = nullptr;
    SweepJob* sweep_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    DensityTab* density_ = nullptr;
    AnnealingView* annealing_ = nullptr;
    AnnealingView* compare_ = nullptr;
    EstimatesView* estimates_ = nullptr;
    TemperingView* tempering_ = nullptr;
    MeanFieldView* meanfield_ = nullptr;
    SamplesView* samples_ = nullptr;
    FiltersView* filters_ = nullptr;
    TrainingView* training_ = nullptr;
    ParameterPanel* panel_ = nullptr;

    QLabel* resultBanner_ = nullptr;  // above the views: where a reopened result came from
    QString resultView_;              // the view showing it ("" when none)
    QString resultChannel_;           // the job channel whose live run replaces it ("" when none)
    QLabel* statusText_ = nullptr;
    QLabel* elapsedLabel_ = nullptr;
    QLabel* speedLabel_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QPushButton* cancelButton_ = nullptr;
    QAction* runAction_ = nullptr;
    QAction* sweepAction_ = nullptr;
    QAction* pauseAction_ = nullptr;
    QAction* stepAction_ = nullptr;
    QAction* restartAction_ = nullptr;
    QComboBox* speedBox_ = nullptr;
    QList<QAction*> speedActions_;
    QToolBar* transportBar_ = nullptr;
    QLabel* transportState_ = nullptr;
    QAction* presenterAction_ = nullptr;
    QAction* logScaleAction_ = nullptr;
    bool presenter_ = false;
    double presenterScale_ = 1.5;
    QFont normalFont_;
    QSize normalIconSize_;
    void applyPresenterScale();
    void placeOverlay();   // the strip along the bottom of the view area, the view above it
    void updateOverlay();  // from updateActions: the current view's transport as the strip shows it
    PresenterOverlay* overlay_ = nullptr;
    QList<QWidget*> presenterHidden_;  // what presenter mode hid (restored when it ends)
    const Transport* rateOf_ = nullptr;  // the overlay's measured speed: units over >= 0.5 s
    long long rateUnits_ = 0;
    QElapsedTimer rateClock_;
    double rate_ = -1;
    std::map<const QWidget*, Transport*> transports_;
    Transport* aisTransport_ = nullptr;
    Transport* sweepTransport_ = nullptr;
    std::shared_ptr<rbm::StepGate> pendingRunGate_, pendingSweepGate_;  // for a run waiting for its lanes
    QAction* cancelAction_ = nullptr;
    QAction* resetAction_ = nullptr;
    QAction* exportImageAction_ = nullptr;
    QAction* exportDataAction_ = nullptr;
    QAction* exportReportAction_ = nullptr;
    QAction* remoteRunAction_ = nullptr;
    RemoteRunDialog* remoteRun_ = nullptr;
    QAction* exportPlaybackAction_ = nullptr;
    QTimer* playbackTimer_ = nullptr;  // while frames are being exported
    QAction* openModelAction_ = nullptr;
    QAction* saveModelAction_ = nullptr;
    QAction* openSessionAction_ = nullptr;
    QAction* saveSessionAction_ = nullptr;
    QAction* saveSessionAsAction_ = nullptr;
    QMenu* recentMenu_ = nullptr;

    QTimer* autoRunTimer_ = nullptr;   // debounces runs while the user types
    QTimer* editTimer_ = nullptr;      // live model edits: at most ~30 density recomputes per second
    QTimer* editFinalTimer_ = nullptr; // paths and runs follow a finished edit
    bool editPending_ = false;
};

}  // namespace rbmscope
