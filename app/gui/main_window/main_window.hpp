#pragma once
// The rbmscope main window: the parameter panel (left dock), the views in the centre (the list
// views/view_registry.cpp makes: Target density, Annealing, Compare, Estimates, Tempering, Mean
// field, Samples, Filters, Training), and a status bar with progress, elapsed time, speed and a
// cancel button. Every computation runs through BackgroundJobs (oneTBB workers); results reach the
// views as snapshots on the GUI thread.
//
// The window knows its views only through the View interface (views/view.hpp): it forwards the
// model, the settings, the transport keys, session files, export and reopened results to them and
// never asks which view is which. main_window.cpp builds the window, menus, export and help;
// main_window/runs.cpp holds the model, the transport keys and the status bar.
#include <QElapsedTimer>
#include <QLabel>
#include <QMainWindow>
#include <QProgressBar>
#include <QPushButton>
#include <QTabWidget>
#include <QTimer>
#include <optional>

#include "core/io/provenance.hpp"
#include "core/io/session_io.hpp"
#include "core/models/models.hpp"
#include "heatmap_view.hpp"
#include "jobs/background_jobs.hpp"
#include "jobs/transport.hpp"
#include "parameter_panel.hpp"
#include "views/view.hpp"

class QAction;
class QMenu;
class QComboBox;
class QToolBar;

namespace rbmscope {

struct CliEquivalent;  // views/cli_equivalent.hpp

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

    // Results of rbmscope-cli (main_window/result_files.cpp): the JSON printed by ais,
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
    // "" when a file's "build" record names this build and SIMD path (or records none); else the
    // sentence saying which build and path produced it (core/io/provenance.hpp).
    static QString buildDifference(const rbm::BuildRecord& recorded);
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
    void startRun();    // Run on the "annealing" view (the AIS run of the Annealing and Compare views)
    void startSweep();  // Run on the "estimates" view (the sweep over K)
    void stopAll();     // stop every run, keep partial results (the status bar's Cancel)
    void reset();
    // The transport (jobs/transport.hpp) of a view's job, by view name ("" = the current view);
    // null for a view without one (Target density, Filters). Run (F5), Pause (Space), Step
    // (→ or .), Cancel (Esc), Restart (Ctrl+F5) and the speed act on the current view's.
    Transport* transport(const QString& view = QString()) const;
    void runCurrent();
    void togglePause();  // Space; with nothing running: the view's playback (Play β, the Tempering replay)
    void stepCurrent();  // → or .; in a playback that steps (a Tempering replay): its next frame
    void cancelCurrent();
    void restartCurrent();
    // The speed of a view's transport ("" = the current view's; the speed box and menu show the
    // current view's): at most that many units a second, 0 = full speed. Other views keep theirs.
    void setPace(double unitsPerSecond, const QString& view = QString());
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
    // Run → Run with MPI… (main_window/remote_runs.cpp): the current view's computation
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
    // PNG at dpi or SVG (view_export.hpp); a valid `size` lays the view out at that size for the
    // picture (a slide's width and height, in pixels at 96 dpi), else as on screen.
    QString exportImage(const QString& path, double dpi = 96, QSize size = {});
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
    // A `dir` ending in .gif is instead one animated GIF of those frames, `frameMs` each
    // (main_window/gif_writer.hpp), written when the last frame is in.
    QString exportPlayback(const QString& dir, int frames, double dpi = 96, int frameMs = 100);
    bool exportingPlayback() const { return playbackTimer_ != nullptr; }

    ParameterPanel* panel() const { return panel_; }
    // The views (views/view.hpp), in tab order; by name; the current one (null when none).
    const ViewList& views() const { return views_; }
    View* view(const QString& name) const;
    View* activeView() const;
    // The tab page holding a view: the scroll area around its widget.
    QWidget* pageOf(const View* v) const;
    // A view's widget as its own type T, e.g. the Samples view's: viewWidget<T>("samples") (null when not a T).
    template <class T>
    T* viewWidget(const QString& name) const {
        View* v = view(name);
        return v ? qobject_cast<T*>(v->widget()) : nullptr;
    }
    QString statusLine() const { return statusText_->text(); }
    QString modelSummary() const;  // the description in the parameter panel (HTML)
    BackgroundJobs* jobs() const { return jobs_; }
    // run sweep pause step cancel restart reset presenter exportImage exportData exportReport remoteRun exportPlayback
    // exportGif
    // logScale openModel saveModel openSession saveSession saveSessionAs
    QAction* action(const QString& name) const;

    // Sessions (main_window/session_files.cpp): the model, every panel setting and the view, in a
    // session file (core's session_io). Opening checks everything first: on failure the
    // problem is reported (sessionProblem, sessionMessage, the status bar; a non-modal box when
    // interactive) and the current model and settings stay.
    bool openSession(const QString& path);
    bool saveSession(const QString& path);  // atomically; becomes the file Save session writes
    // A session already read (a lesson's stop): checked and applied as openSession does; `path`
    // names it in messages and is the origin of an embedded model. "" or why not (nothing changed).
    QString applySession(rbm::Session s, const QString& path);
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
    void exportGifDialog();
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
    std::string cliModelArgument(const QString& dir, const QString& baseName, bool absolute, QString* note,
                                 QString* error);
    // main_window/result_files.cpp: openResult in named steps.
    struct ResultModel;
    bool locateResultModel(const rbm::ResultFile& res, const QString& path, ResultModel* out);
    bool readResultLog(const rbm::ResultFile& res, const QString& path, std::vector<rbm::TrainFileRecord>* records,
                       QStringList* notes);
    void applyResultSettings(const rbm::ResultFile& res);
    bool showResultInView(const rbm::ResultFile& res, const QString& path,
                          const std::vector<rbm::TrainFileRecord>& records, QStringList notes);
    void setResultBanner(const QString& view, const QString& channel, const QString& html);
    void clearResultBanner();

    // main_window/session_files.cpp
    QString applySessionFile(const QString& path);  // "" on success; nothing changes otherwise
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
    ViewContext viewContext();
    void updateSpeedControls();  // the speed box and menu show the current view's pace
    void onSettingsChanged();
    void onModelEdited(const rbm::Grbm& g, bool final);
    // The Samples view's data and preprocessing become the model's "training" (saved with it; a
    // BRBM's AIS then defaults to the data's base rate when the run settings were the defaults).
    void attachTrainingData(const rbm::TrainingData& t);
    void applyModelEdit();
    void updateStatus();
    void updateActions();

    rbm::Model model_;
    rbm::Model loaded_;  // as opened, for Reset
    QString origin_, presetName_;
    bool modelEdited_ = false;  // changed since setModel (editor or arrows)
    QString sessionPath_, sessionMessage_;
    QString sessionBuildNote_;  // the opened session was saved by another build or SIMD path (buildDifference)
    bool autosave_ = true;
    bool quitWithoutSaving_ = false;  // the autosave failed and the user was told: the next close quits
    QLabel* sessionLabel_ = nullptr;  // the last session problem, in the status bar
    bool interactive_ = true;
    RunSettings settings_;
    std::optional<double> exactLogZ_;  // of model_, once the summary has it (the report's model table)

    BackgroundJobs* jobs_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    ViewList views_;  // in tab order (views/view_registry.cpp)
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
    QList<QWidget*> presenterHidden_;    // what presenter mode hid (restored when it ends)
    const Transport* rateOf_ = nullptr;  // the overlay's measured speed: units over >= 0.5 s
    long long rateUnits_ = 0;
    QElapsedTimer rateClock_;
    double rate_ = -1;
    QAction* cancelAction_ = nullptr;
    QAction* resetAction_ = nullptr;
    QAction* exportImageAction_ = nullptr;
    QAction* exportDataAction_ = nullptr;
    QAction* exportReportAction_ = nullptr;
    QAction* remoteRunAction_ = nullptr;
    RemoteRunDialog* remoteRun_ = nullptr;
    QAction* exportPlaybackAction_ = nullptr;
    QAction* exportGifAction_ = nullptr;
    QTimer* playbackTimer_ = nullptr;  // while frames are being exported
    QAction* openModelAction_ = nullptr;
    QAction* saveModelAction_ = nullptr;
    QAction* openSessionAction_ = nullptr;
    QAction* saveSessionAction_ = nullptr;
    QAction* saveSessionAsAction_ = nullptr;
    QMenu* recentMenu_ = nullptr;

    QTimer* editTimer_ = nullptr;       // live model edits: at most ~30 density recomputes per second
    QTimer* editFinalTimer_ = nullptr;  // paths and runs follow a finished edit
    bool editPending_ = false;
};

}  // namespace rbmscope
