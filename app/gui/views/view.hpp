#pragma once
// One interface every view of the window implements, after Tiled's Editor: the main
// window holds a list of View* made by the registry (views/view_registry.cpp) and only forwards —
// `if (View* v = currentView()) v->...` — so it never asks which view is current, and a tenth view
// is the view plus one line in the registry.
//
// A View is the view's widget (widget(), shown as a tab titled title()) and what the window asks
// of it:
//   transport   Run (F5), Pause (Space), Step (→), Cancel (Esc), Restart and the speed of the
//               view's job (jobs/transport.hpp); each view owns its Transport, so a speed chosen on
//               one view leaves the others alone. null: nothing to run (noTransport() says why).
//   model       setModel() on a new model, a finished edit, a live edit, attached training data.
//   session     its part of a session file: write, read-and-check (nothing changes), apply.
//   export      data (CSV and JSON), its section of the HTML report, playback frames.
//   playback    what Space does while nothing runs (Play β, a tempering replay).
//   results     the rbmscope-cli result kinds it reopens (opensResult / showResult).
//
// Typical use (main window):
//   if (View* v = currentView(); v && v->transport()) v->transport()->run();
//   for (View* v : views_) v->setModel(model_, {ModelChange::Opened, origin});
#include <QJsonObject>
#include <QObject>
#include <QPointF>
#include <QSize>
#include <QString>
#include <QStringList>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "colormap.hpp"
#include "core/io/result_file.hpp"
#include "core/io/session_io.hpp"
#include "core/models/models.hpp"
#include "jobs/transport.hpp"
#include "run_settings.hpp"
#include "session_fields.hpp"

namespace rbmscope {

class BackgroundJobs;
class ParameterPanel;
class View;
struct CliEquivalent;  // views/cli_equivalent.hpp

// The save dialogs' filter for a model: every format rbm::save_model (and `convert`) writes.
QString modelSaveFilter();

// What the window lends its views; nothing in it names a view.
struct ViewContext {
    QObject* owner = nullptr;   // the window: parent of the objects views share (their jobs outlive the widgets)
    QWidget* parent = nullptr;  // parent of the views' widgets (the tab widget)
    BackgroundJobs* jobs = nullptr;
    ParameterPanel* panel = nullptr;
    std::function<const rbm::Model&()> model;          // the window's model as it is now (with live edits)
    std::function<void(const QString&)> say;           // the status bar's text
    std::function<void(const QString&)> progressNote;  // a long preparation says how far it is
    std::function<bool(const QString&)> showView;      // make the view of that name the current one
    std::function<View*(const QString&)> view;         // another view, by name
    std::function<void()> changed;                     // a transport's state moved: the window's actions follow
    std::function<void()> statusChanged;               // what View::status() reports moved: the status bar follows
    // A view replaces the window's model (Training's "Open in app"): false, reported, when no view can show it.
    std::function<bool(const rbm::Model&, const QString& origin)> openModel;
    std::function<void(const rbm::TrainingData&)> attachTrainingData;  // Samples' data becomes the model's
    std::function<void(const rbm::Grbm&, bool final)> editModel;       // a view edits the model (density arrows)
    std::function<void()> finishEdit;                                  // the edit is finished: paths and runs follow
    std::function<void(const QString& channel)> resultDropped;  // a job dropped what it showed (a reopened result goes)
};

enum class ModelChange {
    Opened,  // a new model (preset, file, session, result, reset): everything computed goes
    Edited,  // a finished hand edit: paths and runs follow it
    Live,    // an edit in progress (~30 a second): only what is cheap follows
    Data,    // training data attached to the same model (its AIS method may change)
};

struct ModelEvent {
    ModelChange change = ModelChange::Opened;
    QString origin;        // the file or "preset NAME" it came from (Opened)
    RunSettings settings;  // the panel's settings after the change
};

// The status bar while a view's job runs (or after it ended): nullopt from views that leave it alone.
struct StatusReport {
    bool busy = false;    // progress, elapsed time, speed and Cancel shown
    double fraction = 0;  // of the run, in [0, 1]
    QString elapsed, speed;
    QString text;
};

// What Space does on a view while its job is not running.
struct Playback {
    bool available = false;
    QString label;          // the Pause action's text then ("&Play β", "&Replay run", "&Pause replay")
    bool playGlyph = true;  // the action shows ▶ (else ⏸)
};

// File → Export playback frames: how frame i of n is put on screen and when it is there.
struct PlaybackFrames {
    std::function<void(int)> show;
    std::function<bool(int)> shown;
    std::function<void()> restore;     // back to what the view showed before
    std::function<bool()> superseded;  // a new run started: the export stops
    QWidget* target = nullptr;
};

// What the HTML report (File → Export report) gives each view to write its section.
struct ReportContext {
    std::string modelArg;  // MODEL in the commands (preset:NAME or a file written beside the page)
    rbm::ModelKind kind = rbm::ModelKind::Brbm;
    RunSettings settings;
    QSize pageSize;    // the figures' size (the current view's)
    QString baseName;  // the page's file name without suffix (train's output is named after it)
};

// A reopened result as its view shows it (for the banner above the views).
struct ShownResult {
    QString shown;    // what the view shows
    QString missing;  // what the result holds that the view cannot show
    QString channel;  // the job channel whose live run replaces it ("" when none)
};

class View : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    ~View() override = default;

    virtual QString name() const = 0;   // "annealing": session files, setCurrentView, the command line
    virtual QString title() const = 0;  // "Annealing": the tab
    virtual QString toolTip() const { return {}; }
    virtual QWidget* widget() const = 0;

    // The view's job. Views that share a job (the AIS run of Target density, Annealing and Compare)
    // share its transport; every other view's is its own.
    virtual Transport* transport() const { return nullptr; }
    virtual QString noTransport() const { return tr("the %1 view has nothing to run").arg(title()); }
    virtual void cancel() {
        if (Transport* t = transport()) t->cancel();
    }
    virtual void setPace(double unitsPerSecond) {
        if (Transport* t = transport()) t->setPace(unitsPerSecond);
    }
    double pace() const { return transport() ? transport()->pace() : 0; }
    // Nobody watches (headless lesson renders and tests): the view's own paced shows and playbacks
    // (a tempering show at its speed box's pace, β played over seconds) go at once to what they show
    // at their end. The numbers are the same; only the waiting goes.
    virtual void setHurried(bool) {}
    virtual void stop() { cancel(); }            // the status bar's Cancel: every view's job stops
    virtual bool busy() const { return false; }  // still computing for the current model and settings
    // Work of the view's besides its transport's that Cancel (Esc) stops: the Estimates view's verdict on log Z.
    virtual bool otherWorkRunning() const { return false; }
    virtual std::optional<StatusReport> status() const { return std::nullopt; }
    // The numbers the lesson reads off this view, one short line each, for presenter mode's strip
    // (which replaces the status bar): empty when the view has none yet.
    virtual QStringList presenterFigures() const { return {}; }

    virtual void setModel(const rbm::Model&, const ModelEvent&) {}
    virtual void setSettings(const RunSettings&) {}      // the panel changed
    virtual void setExactLogZ(std::optional<double>) {}  // once the window's summary has it
    virtual void setColourScale(ColourScale) {}

    // Session: write the view's part into `s`; read it back checking everything ("" or why not),
    // nothing changes until applySession. Views whose settings are just their controls give
    // sessionFields() and keep the defaults.
    virtual std::vector<SessionField> sessionFields() const { return {}; }
    virtual void saveSession(rbm::Session& s) const;
    virtual QString readSession(const rbm::Session& s);
    virtual void applySession(const rbm::Session& s);

    // Export: the view's data ("" or why not); its section of the HTML report ("" for none).
    virtual QString exportData(QString* csv, QJsonObject* json) const;
    virtual QString reportSection(const ReportContext&) const { return {}; }
    // The command of Run with MPI…; nullopt: the window's default (the AIS run's first method).
    // `readsModel` false: the command writes a model rather than reading one.
    virtual std::optional<CliEquivalent> cliCommand(const std::string& modelArg, const QString& dir,
                                                    const QString& baseName, bool* readsModel) const;

    // Playback while the job does not run.
    virtual Playback playback() const { return {}; }
    virtual void togglePlayback() {}
    virtual bool stepPlayback() { return false; }  // true: Step advanced the playback, not the job
    virtual QString framesPrompt() const { return {}; }
    // "" and `out` filled, or why the view cannot export frames.
    virtual QString playbackFrames(int frames, PlaybackFrames* out);

    // rbmscope-cli results this view reopens; showResult after the window has the model and settings.
    virtual bool opensResult(const rbm::ResultFile&) const { return false; }
    virtual ShownResult showResult(const rbm::ResultFile&, const QString& file,
                                   const std::vector<rbm::TrainFileRecord>& log);

Q_SIGNALS:
    void pictureReady();  // the view drew the first picture of a model (the density: start-up is through)
};

// Views by name (the window's list), in tab order.
using ViewList = std::vector<View*>;

}  // namespace rbmscope
