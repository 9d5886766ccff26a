// rbmscope: the desktop app. Options (also for docs and tests):
//   --preset NAME | --model FILE     what to open (default: the last session, else the four-mode toy;
//                                    with --screenshot always the four-mode toy)
//   FILE                             the same as --model FILE; a result of rbmscope-cli (ais, ais-sweep,
//                                    pt, meanfield, train, train --log) opens in its view with its model
//   --session FILE                   open a session file (model, parameters, view)
//   --view density|annealing|compare|estimates|meanfield|...   which view to show
//   --run                            start the AIS run (or, with --view estimates, a sweep over K;
//                                    with --view meanfield, the three mean-field methods; with --view
//                                    tempering, the PT run, at full speed when headless) and wait for it
//   --path P --base B --compare P:B,P:B --steps K --chains N --seed S --sweep K1,K2,...
//   --perfect --reverse-ais          settings, as in the parameter panel
//   --beta B                         show the annealing views at this beta
//   --scale shared|separate          one colour scale for all compared methods, or one each
//   --data SPEC                      data set: bars:D, digits, a CSV / IDX file (training view, samples view)
//   --train-method M[,M...]          with --view training: train with M (several: one after another)
//   --train-kind K --train-hidden H --train-updates U --train-k K --train-batch B --train-lr LR
//   --train-monitor T --train-init-scale S --train-shifts --train-prep binarize|scale|standardize|raw   training
//   settings
//   --sampler gibbs|pt|anneal --sample-sweeps N   samples view (with --run: draw and wait)
//   --screenshot FILE.png [--size WxH] [--timeout S]  render the window once results are in, save it, exit
//                                    (exactly WxH with --presenter: exit 2 when the window needs more)
//   --presenter                      start in presenter mode (headless: its layout at --size)
//   --report FILE.html               as --screenshot, but File → Export report (both may be given)
//   --playback-frames DIR [--frames N] [--dpi D]   as --screenshot, but File → Export playback frames
//                                    (the current Annealing/Compare view from beta 0 to 1, or the Tempering
//                                    view's recorded scans; N frames, default 60, at D dpi)
//   --lesson NAME|FILE [--lesson-stop K]   open a lesson (a shipped one by name, or a lesson file) at
//                                    stop K (default 1) after everything above; with --screenshot the
//                                    picture is taken once the stop's action has finished
//   --max-memory SIZE                memory budget (e.g. 4G) for what a file, data set or run may allocate
//                                    (default: a quarter of the machine's memory, from 1G to 2G)
// Environment: RBMSCOPE_CONFIG_DIR  where last-session.json is kept (default: the platform's config folder).
// SIGTERM, SIGHUP and SIGINT close the window as the user would: the session is saved, exit 0.
#include <QApplication>
#include <QScreen>
#include <QTimer>
#include <iostream>
#include <optional>
#include <vector>

#include "app_options.hpp"
#include "core/io/presets.hpp"
#include "core/numerics/memory_budget.hpp"
#include "lessons/lesson_player.hpp"
#include "main_window/main_window.hpp"
#include "main_window/quit_signals.hpp"
#include "validated_field.hpp"
#include "views/annealing/annealing_view.hpp"
#include "views/meanfield/meanfield_view.hpp"
#include "views/samples/samples_view.hpp"
#include "views/tempering/tempering_view.hpp"
#include "views/training/training_view.hpp"

namespace {

using rbmscope::AppOptions;
using rbmscope::MainWindow;

int fail(const QString& message) {
    std::cerr << "rbmscope: " << message.toStdString() << std::endl;
    return 2;
}

// An integer option checked as the panel checks its field; `out` keeps its value when the option
// is not given. Returns the reason it is refused, or an empty string.
QString readInteger(const std::optional<QString>& value, const char* name, long long lo, long long hi, long long& out) {
    if (!value) return {};
    const QString err = rbmscope::checkInteger(*value, lo, hi, QStringLiteral("--") + QLatin1String(name));
    if (err.isEmpty()) out = value->toLongLong();
    return err;
}

bool viewIs(const AppOptions& o, const char* name) { return o.view.value_or(QString()) == QLatin1String(name); }

// Opens what the command line names. Without --preset/--model the last session comes back (never
// when headless, whose pictures must not depend on it); a session that cannot be opened says why
// and the default preset opens instead. Returns whether a session was opened, or nothing when a
// headless run cannot open what it was given (the window has said why).
std::optional<bool> openStartModel(MainWindow& w, const AppOptions& o) {
    const bool headless = o.headless();
    if (o.session && headless) {
        if (!w.openSession(*o.session)) return std::nullopt;
        return true;
    }
    if (o.session || (!headless && !o.file && !o.presetGiven)) return w.startWithSession(o.session.value_or(QString()));
    const bool ok = o.file ? w.loadFile(*o.file) : w.loadPreset(o.preset);
    if (!ok && headless) return std::nullopt;
    if (!ok) w.loadPreset(QString::fromStdString(rbm::default_preset_name()));
    return false;
}

// The primary method (--path, --base) and the compared ones, each checked against the open model's kind.
QString applyMethods(const MainWindow& w, const AppOptions& o, rbmscope::RunSettings& s) {
    const rbmscope::ModelTraits traits = rbmscope::traitsOf(w.model());
    if (o.path || o.base) {
        s.method.path = o.path ? o.path->toStdString() : s.method.path;
        s.method.base = o.base ? o.base->toStdString() : s.method.base;
        s.compare.clear();
    }
    if (o.compare) {
        s.compare.clear();
        for (const QString& item : o.compare->split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            rbmscope::MethodSpec m;
            if (const QString err = rbmscope::parseMethod(item, m); !err.isEmpty())
                return QStringLiteral("--compare: ") + err;
            if (const QString err = rbmscope::methodProblem(traits, m); !err.isEmpty())
                return QStringLiteral("--compare %1: %2").arg(item, err);
            s.compare.push_back(rbmscope::canonicalMethod(traits, m));
        }
    }
    if (const QString problem = rbmscope::methodProblem(traits, s.method); !problem.isEmpty()) return problem;
    s.method = rbmscope::canonicalMethod(traits, s.method);
    return {};
}

// The parameter panel's settings from the command line, checked as the panel checks them.
QString applyRunSettings(MainWindow& w, const AppOptions& o, bool sessionOpened) {
    rbmscope::RunSettings s = w.settings();
    if (const QString err = applyMethods(w, o, s); !err.isEmpty()) return err;
    long long k = s.schedule.steps, n = s.chains, sd = static_cast<long long>(s.seed);
    for (const QString& err :
         {readInteger(o.steps, "steps", 1, 1000000, k), readInteger(o.chains, "chains", 1, 1000000, n),
          readInteger(o.seed, "seed", 0, 1LL << 62, sd)})
        if (!err.isEmpty()) return err;
    s.schedule.steps = k;
    s.chains = n;
    s.seed = static_cast<std::uint64_t>(sd);
    if (o.sweep) {
        if (const QString err = rbmscope::checkIntegerList(*o.sweep, 1, 1000000, QStringLiteral("--sweep"));
            !err.isEmpty())
            return err;
        s.sweepSteps.clear();
        for (long long v : rbmscope::parseIntegerList(*o.sweep)) s.sweepSteps.push_back(v);
    }
    if (o.perfect) s.perfect = true;
    if (o.reverseAis) s.reverse = true;
    // These views run their own job on --run; the AIS run starts by itself only for the others.
    const QStringList ownRunViews{QStringLiteral("estimates"), QStringLiteral("samples"),
                                  QStringLiteral("filters"),   QStringLiteral("training"),
                                  QStringLiteral("meanfield"), QStringLiteral("tempering")};
    if (o.run || !sessionOpened) s.autoRun = o.run && !ownRunViews.contains(o.view.value_or(QString()));
    w.applySettings(s);
    return {};
}

QString showView(MainWindow& w, const AppOptions& o) {
    if (o.view && !w.setCurrentView(*o.view))
        return QStringLiteral("--view must be one of %1, not '%2'")
            .arg(w.viewNames().join(QStringLiteral(", ")), *o.view);
    if (o.run && viewIs(o, "estimates")) {
        w.startSweep();
        w.startRun();  // the current run's histogram and running estimate, too
    }
    return {};
}

// Samples view: data beside the samples, the sampler, and --run to draw.
QString configureSamplesView(MainWindow& w, const AppOptions& o) {
    rbmscope::SamplesView* view = w.viewWidget<rbmscope::SamplesView>(QStringLiteral("samples"));
    if (o.data && !view->setDataSpec(*o.data) && viewIs(o, "samples"))
        return QStringLiteral("--data: ") + view->dataMessage();
    rbmscope::SamplesSettings ss = view->settings();
    if (o.sampler) {
        const QString& v = *o.sampler;
        if (v == QLatin1String("gibbs")) ss.sampler = rbmscope::SamplerKind::Gibbs;
        else if (v == QLatin1String("pt")) ss.sampler = rbmscope::SamplerKind::Pt;
        else if (v == QLatin1String("anneal")) ss.sampler = rbmscope::SamplerKind::Anneal;
        else return QStringLiteral("--sampler must be gibbs, pt or anneal, not '%1'").arg(v);
    }
    long long sw = ss.sweeps;
    if (const QString err = readInteger(o.sampleSweeps, "sample-sweeps", 1, 100000000, sw); !err.isEmpty()) return err;
    ss.sweeps = sw;
    view->setSettings(ss);
    if (o.run && viewIs(o, "samples")) view->run();
    return {};
}

// Mean-field view: --run computes the three methods (and, for a model that is not 2-D, the sweep).
// Tempering view: --run starts its PT run (as F5 there); headless nobody watches, so no pacing.
void startMeanFieldOrTempering(MainWindow& w, const AppOptions& o) {
    if (o.run && viewIs(o, "meanfield")) w.viewWidget<rbmscope::MeanFieldView>(QStringLiteral("meanfield"))->run();
    if (o.run && viewIs(o, "tempering")) {
        if (o.headless()) {
            rbmscope::TemperingSettings ts =
                w.viewWidget<rbmscope::TemperingView>(QStringLiteral("tempering"))->settings();
            ts.scansPerSecond = 0;
            w.viewWidget<rbmscope::TemperingView>(QStringLiteral("tempering"))->setSettings(ts);
        }
        w.runCurrent();
    }
}

// Training view: where the data comes from and how its values are prepared.
QString configureTrainingData(rbmscope::TrainingView* tv, const AppOptions& o) {
    rbmscope::TrainDataSpec d = tv->dataSpec();
    if (o.data) d.source = *o.data;
    d.shifts = o.trainShifts;
    if (o.trainPrep) {
        const QString& p = *o.trainPrep;
        if (p == QLatin1String("binarize")) d.prep = rbmscope::TrainDataSpec::Prep::Binarize;
        else if (p == QLatin1String("scale")) d.prep = rbmscope::TrainDataSpec::Prep::Scale;
        else if (p == QLatin1String("standardize")) d.prep = rbmscope::TrainDataSpec::Prep::Standardize;
        else if (p == QLatin1String("raw")) d.prep = rbmscope::TrainDataSpec::Prep::AsIs;
        else return QStringLiteral("--train-prep must be binarize, scale, standardize or raw, not '%1'").arg(p);
    }
    tv->setDataSpec(d);
    return {};
}

// Training view: the training settings, then train (several methods: one after another).
QString startTraining(rbmscope::TrainingView* tv, const AppOptions& o) {
    rbm::TrainOptions t = tv->options();
    std::vector<rbm::TrainMethod> methods;
    try {
        for (const QString& m : o.trainMethod->split(QLatin1Char(','), Qt::SkipEmptyParts))
            methods.push_back(rbm::parse_train_method(m.trimmed().toStdString()));
        if (o.trainKind) {
            const QString& k = *o.trainKind;
            if (k == QLatin1String("brbm")) t.kind = rbm::ModelKind::Brbm;
            else if (k == QLatin1String("grbm")) t.kind = rbm::ModelKind::Grbm;
            else if (k == QLatin1String("leaky")) t.kind = rbm::ModelKind::Leaky;
            else throw rbm::InputError("--train-kind must be brbm, grbm or leaky, not '" + k.toStdString() + "'");
        }
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    if (methods.empty()) return QStringLiteral("--train-method needs at least one method");
    long long hid = t.hidden, upd = t.updates, kk = t.k, bat = t.batch, mon = t.monitor_every;
    for (const QString& err :
         {readInteger(o.trainHidden, "train-hidden", 1, 4096, hid),
          readInteger(o.trainUpdates, "train-updates", 1, 100000000, upd),
          readInteger(o.trainK, "train-k", 1, 100000, kk), readInteger(o.trainBatch, "train-batch", 1, 100000, bat),
          readInteger(o.trainMonitor, "train-monitor", 0, 1000000, mon)})
        if (!err.isEmpty()) return err;
    t.hidden = hid;
    t.updates = upd;
    t.k = static_cast<int>(kk);
    t.batch = bat;
    t.monitor_every = mon;
    if (o.trainLr) {
        if (const QString err = rbmscope::checkReal(*o.trainLr, 0, 10, true, false, QStringLiteral("--train-lr"));
            !err.isEmpty())
            return err;
        t.learning_rate = o.trainLr->toDouble();
    }
    if (o.trainInitScale) {
        if (const QString err =
                rbmscope::checkReal(*o.trainInitScale, 0, 10, false, false, QStringLiteral("--train-init-scale"));
            !err.isEmpty())
            return err;
        t.init_scale = o.trainInitScale->toDouble();
    }
    t.method = methods.front();
    tv->setOptions(t);
    const bool started = methods.size() == 1 ? tv->train() : tv->compareMethods(methods);
    if (!started) return QStringLiteral("training: ") + tv->statusText();
    return {};
}

QString applyCompareScale(MainWindow& w, const AppOptions& o) {
    if (o.scale != QLatin1String("shared") && o.scale != QLatin1String("separate"))
        return QStringLiteral("--scale must be shared or separate, not '%1'").arg(o.scale);
    w.viewWidget<rbmscope::AnnealingView>(QStringLiteral("compare"))
        ->setSharedScale(o.scale == QLatin1String("shared"));
    return {};
}

QString readBeta(const AppOptions& o, std::optional<double>& showBeta) {
    if (!o.beta) return {};
    if (const QString err = rbmscope::checkReal(*o.beta, 0, 1, false, false, QStringLiteral("--beta")); !err.isEmpty())
        return err;
    showBeta = o.beta->toDouble();
    return {};
}

// Configures every view from the command line and starts the runs asked for, in this order
// (the first refused option is the one reported).
QString configureViews(MainWindow& w, const AppOptions& o, bool sessionOpened, std::optional<double>& showBeta) {
    if (const QString err = applyRunSettings(w, o, sessionOpened); !err.isEmpty()) return err;
    if (const QString err = showView(w, o); !err.isEmpty()) return err;
    if (const QString err = configureSamplesView(w, o); !err.isEmpty()) return err;
    startMeanFieldOrTempering(w, o);
    if (o.trainMethod) {
        if (const QString err =
                configureTrainingData(w.viewWidget<rbmscope::TrainingView>(QStringLiteral("training")), o);
            !err.isEmpty())
            return err;
        if (const QString err = startTraining(w.viewWidget<rbmscope::TrainingView>(QStringLiteral("training")), o);
            !err.isEmpty())
            return err;
    }
    if (const QString err = applyCompareScale(w, o); !err.isEmpty()) return err;
    return readBeta(o, showBeta);
}

// Headless: once every job is idle (and the annealing views are at --beta), writes the report,
// the screenshot and the playback frames asked for, then exits (0, or 2 when one cannot be
// written; 3 after --timeout seconds without results).
QString exportWhenResultsAreIn(MainWindow& w, const AppOptions& o, std::optional<double> showBeta, QSize asked) {
    const QString file = o.screenshot.value_or(QString()), reportFile = o.report.value_or(QString()),
                  framesDir = o.playbackFrames.value_or(QString());
    long long frames = 60, dpi = 96;
    for (const QString& err :
         {readInteger(o.frames, "frames", 2, 10000, frames), readInteger(o.dpi, "dpi", 24, 1200, dpi)})
        if (!err.isEmpty()) return err;
    long long timeoutSeconds = 120;
    if (const QString err = readInteger(o.timeout, "timeout", 1, 86400, timeoutSeconds); !err.isEmpty()) return err;
    const int timeoutMs = static_cast<int>(timeoutSeconds * 1000);
    auto* poll = new QTimer(&w);
    QObject::connect(&w, &MainWindow::playbackExported, &w, [framesDir](const QString& err) {
        if (!err.isEmpty()) std::cerr << "rbmscope: " << err.toStdString() << std::endl;
        else
            std::cout << "rbmscope: wrote the playback "
                      << (framesDir.endsWith(QLatin1String(".gif")) ? "as " : "frames into ") << framesDir.toStdString()
                      << std::endl;
        QApplication::exit(err.isEmpty() ? 0 : 2);
    });
    QObject::connect(
        poll, &QTimer::timeout, &w,
        [&w, asked, presenter = o.presenter, file, reportFile, framesDir, frames, dpi, poll, showBeta,
         betaApplied = !showBeta]() mutable {
            if (!w.idle()) return;
            if (const rbmscope::LessonPlayer* lp = rbmscope::LessonPlayer::of(&w); lp && lp->active() && !lp->settled())
                return;  // a lesson's stop still runs its action
            if (const rbmscope::TemperingView* tv = w.viewWidget<rbmscope::TemperingView>(QStringLiteral("tempering"));
                tv->running() || tv->jobs()->isRunning(tv->heatChannel()))
                return;
            if (!betaApplied) {
                // Scrub to the asked beta once the run is in: particles from the nearest checkpoint.
                betaApplied = true;
                w.viewWidget<rbmscope::AnnealingView>(QStringLiteral("annealing"))->setBeta(*showBeta);
                return;
            }
            poll->stop();
            QApplication::processEvents();
            if (!reportFile.isEmpty()) {
                if (const QString err = w.exportReport(reportFile); !err.isEmpty()) {
                    std::cerr << "rbmscope: " << err.toStdString() << std::endl;
                    QApplication::exit(2);
                    return;
                }
                std::cout << "rbmscope: wrote " << reportFile.toStdString() << std::endl;
            }
            if (!file.isEmpty()) {
                // A window that needs more than --size was enlarged by Qt. Presenter shots stand for a
                // projector of that size, so they are exactly --size or nothing; a normal shot says so.
                if (w.size() != asked) {
                    std::cerr << "rbmscope: the window needs " << w.width() << "x" << w.height()
                              << ", more than --size " << asked.width() << "x" << asked.height()
                              << (presenter ? "; no screenshot" : "; the shot has the larger size") << std::endl;
                    if (presenter) {
                        QApplication::exit(2);
                        return;
                    }
                }
                if (!w.grab().save(file)) {
                    std::cerr << "rbmscope: cannot write " << file.toStdString() << std::endl;
                    QApplication::exit(2);
                    return;
                }
                std::cout << "rbmscope: wrote " << file.toStdString() << std::endl;
            }
            if (!framesDir.isEmpty()) {  // exits when the last frame is written (playbackExported)
                if (const QString err = w.exportPlayback(framesDir, static_cast<int>(frames), static_cast<double>(dpi));
                    !err.isEmpty()) {
                    std::cerr << "rbmscope: " << err.toStdString() << std::endl;
                    QApplication::exit(2);
                }
                return;
            }
            QApplication::exit(0);
        });
    poll->start(50);
    QTimer::singleShot(timeoutMs, &w, [] {
        std::cerr << "rbmscope: timed out waiting for results" << std::endl;
        QApplication::exit(3);
    });
    return {};
}

}  // namespace

int main(int argc, char** argv) {
    rbmscope::answerHelpOrVersionWithoutDisplay(argc, argv);
    rbmscope::QtArguments qtArgs = rbmscope::takeSessionOption(argc, argv);
    if (!qtArgs.problem.isEmpty()) return fail(qtArgs.problem);
    QApplication app(qtArgs.argc, qtArgs.argv.data());
    QApplication::setApplicationName(QStringLiteral("rbmscope"));
    rbmscope::setApplicationVersion();
    QApplication::setOrganizationName(QStringLiteral("rbmscope"));
    AppOptions o;
    if (const QString err = rbmscope::parseOptions(app, qtArgs.session, o); !err.isEmpty()) return fail(err);
    // The budget every loader and run checks before allocating, set before anything is opened.
    rbm::set_memory_budget(rbm::default_memory_budget_for_machine());
    rbm::set_memory_budget_option("rbmscope --max-memory");
    if (o.maxMemory) {
        const std::uint64_t bytes = rbm::parse_memory_size(o.maxMemory->toStdString());
        if (bytes == 0)
            return fail(QStringLiteral("--max-memory expects a size of at least 1M such as 4G, 512M or 1.5G, not '%1'")
                            .arg(*o.maxMemory));
        rbm::set_memory_budget(bytes);
    }

    MainWindow w;
    w.setInteractive(!o.headless());
    // SIGTERM / SIGHUP / SIGINT: close the window normally, so the session is saved.
    rbmscope::closeOnTerminationSignals(&w);
    if (!o.headless()) w.checkAutosaveLocation();
    const std::optional<bool> sessionOpened = openStartModel(w, o);
    if (!sessionOpened) return 2;
    std::optional<double> showBeta;
    if (const QString err = configureViews(w, o, *sessionOpened, showBeta); !err.isEmpty()) return fail(err);
    auto* lessons = new rbmscope::LessonPlayer(&w);  // the Lessons menu, PgDn / PgUp, the caption
    lessons->setInteractive(!o.headless());
    lessons->setFullSpeed(o.headless());
    if (o.lesson) {
        long long stop = 1;
        if (const QString err = readInteger(o.lessonStop, "lesson-stop", 1, rbmscope::kMaxLessonStops, stop);
            !err.isEmpty())
            return fail(err);
        if (!lessons->open(*o.lesson, static_cast<int>(stop - 1)).isEmpty() && o.headless()) return 2;  // said why
    }

    const QStringList wh = o.size.split('x');
    bool okW = false, okH = false;
    const QSize asked = wh.size() == 2 ? QSize(wh[0].toInt(&okW), wh[1].toInt(&okH)) : QSize();
    if (!okW || !okH || asked.width() < 1 || asked.height() < 1)
        return fail(QStringLiteral("--size expects WIDTHxHEIGHT such as 1280x720, not '%1'").arg(o.size));
    if (o.presenter) {
        w.setPresenter(true);
        // Headless, the layout is rendered at --size rather than at the (virtual) screen's size.
        if (o.headless()) w.setWindowState(Qt::WindowNoState);
    }
    // On a screen smaller than the size asked (a 1280 x 720 projector and the default 1280 x 800),
    // the window takes the screen's free area rather than reaching past its edges.
    const QScreen* screen = o.headless() ? nullptr : QGuiApplication::primaryScreen();
    w.resize(asked);
    const QSize free = screen ? screen->availableGeometry().size() : QSize();
    if (screen && !o.presenter &&
        (asked.width() > free.width() || asked.height() + 40 > free.height()))  // 40: a title bar
        w.showMaximized();
    else w.show();
    if (!o.headless()) {
        if (showBeta)
            QTimer::singleShot(0, &w, [&w, showBeta] {
                w.viewWidget<rbmscope::AnnealingView>(QStringLiteral("annealing"))->setBeta(*showBeta);
            });
        return app.exec();
    }
    if (const QString err = exportWhenResultsAreIn(w, o, showBeta, asked); !err.isEmpty()) return fail(err);
    return app.exec();
}
