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
//   --train-monitor T --train-init-scale S --train-shifts --train-prep binarize|scale|standardize|raw   training settings
//   --sampler gibbs|pt|anneal --sample-sweeps N   samples view (with --run: draw and wait)
//   --screenshot FILE.png [--size WxH] [--timeout S]  render the window once results are in, save it, exit
//   --report FILE.html               as --screenshot, but File → Export report (both may be given)
//   --playback-frames DIR [--frames N] [--dpi D]   as --screenshot, but File → Export playback frames
//                                    (the current Annealing/Compare view from beta 0 to 1, or the Tempering
//                                    view's recorded scans; N frames, default 60, at D dpi)
// Environment: RBMSCOPE_CONFIG_DIR  where last-session.json is kept (default: the platform's config folder).
// SIGTERM, SIGHUP and SIGINT close the window as the user would: the session is saved, exit 0.
#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>
#include <iostream>
#include <string>
#include <vector>

#include "main_window/main_window.hpp"
#include "main_window/quit_signals.hpp"
#include "views/annealing/annealing_view.hpp"
#include "views/meanfield/meanfield_view.hpp"
#include "views/samples/samples_view.hpp"
#include "views/tempering/tempering_view.hpp"
#include "views/training/training_view.hpp"
#include "core/io/presets.hpp"
#include "validated_field.hpp"

namespace {

int fail(const QString& message) {
    std::cerr << "rbmscope: " << message.toStdString() << std::endl;
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    // QGuiApplication takes "-session ID" and "--session ID" for X11 session management, so
    // "--session FILE" (ours) is taken out of argv before Qt sees it; "-session ID" stays Qt's.
    QString sessionFile;
    bool sessionGiven = false;
    std::vector<char*> qtArgv;
    for (int i = 0; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--session") {
            if (i + 1 >= argc) return fail(QStringLiteral("--session needs a FILE"));
            sessionFile = QString::fromLocal8Bit(argv[++i]);
            sessionGiven = true;
        } else if (a.rfind("--session=", 0) == 0) {
            sessionFile = QString::fromLocal8Bit(argv[i] + 10);
            sessionGiven = true;
        } else {
            qtArgv.push_back(argv[i]);
        }
    }
    int qtArgc = static_cast<int>(qtArgv.size());
    qtArgv.push_back(nullptr);
    QApplication app(qtArgc, qtArgv.data());
    QApplication::setApplicationName(QStringLiteral("rbmscope"));
    QApplication::setOrganizationName(QStringLiteral("rbmscope"));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("See and measure samplers and annealers on RBMs."));
    parser.addHelpOption();
    QCommandLineOption preset(QStringLiteral("preset"), QStringLiteral("Open a bundled preset."), QStringLiteral("NAME"),
                              QString::fromStdString(rbm::default_preset_name()));
    QCommandLineOption model(QStringLiteral("model"), QStringLiteral("Open a model file."), QStringLiteral("FILE"));
    QCommandLineOption session(QStringLiteral("session"), QStringLiteral("Open a session file (model, parameters and view)."),
                               QStringLiteral("FILE"));
    QCommandLineOption view(QStringLiteral("view"), QStringLiteral("View to show: density, annealing, compare, estimates (or another tab by name)."),
                            QStringLiteral("VIEW"));
    QCommandLineOption run(QStringLiteral("run"), QStringLiteral("Run the current view's job (AIS for density/annealing/compare, a sweep over K for estimates, PT for tempering) and wait for it."));
    QCommandLineOption path(QStringLiteral("path"), QStringLiteral("Annealing path: geometric, cov, moments, leaky, energy."),
                            QStringLiteral("PATH"));
    QCommandLineOption base(QStringLiteral("base"), QStringLiteral("Base distribution: moment, sigma, uniform, data."), QStringLiteral("BASE"));
    QCommandLineOption compare(QStringLiteral("compare"), QStringLiteral("Further methods, e.g. cov:moment,geometric:sigma."),
                               QStringLiteral("LIST"));
    QCommandLineOption steps(QStringLiteral("steps"), QStringLiteral("K, the number of annealing steps."), QStringLiteral("K"));
    QCommandLineOption chains(QStringLiteral("chains"), QStringLiteral("Number of chains."), QStringLiteral("N"));
    QCommandLineOption seed(QStringLiteral("seed"), QStringLiteral("Seed."), QStringLiteral("S"));
    QCommandLineOption sweep(QStringLiteral("sweep"), QStringLiteral("K values of a sweep, e.g. 10,30,100."), QStringLiteral("LIST"));
    QCommandLineOption perfect(QStringLiteral("perfect"), QStringLiteral("Perfect transitions (exact draws from p_beta)."));
    // Not "--reverse": QApplication takes that as its own switch for right-to-left layout.
    QCommandLineOption reverse(QStringLiteral("reverse-ais"), QStringLiteral("Also run reverse AIS (upper bound)."));
    QCommandLineOption beta(QStringLiteral("beta"), QStringLiteral("Show the annealing views at this beta."), QStringLiteral("B"));
    QCommandLineOption scale(QStringLiteral("scale"), QStringLiteral("Colour scale of the comparison: shared or separate."),
                             QStringLiteral("MODE"), QStringLiteral("shared"));
    QCommandLineOption shot(QStringLiteral("screenshot"), QStringLiteral("Render, save a PNG and exit."), QStringLiteral("FILE"));
    QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size for --screenshot."), QStringLiteral("WxH"),
                            QStringLiteral("1280x800"));
    QCommandLineOption data(QStringLiteral("data"), QStringLiteral("Data set: bars:D, digits, or a CSV / IDX file."), QStringLiteral("SPEC"));
    QCommandLineOption trainMethod(QStringLiteral("train-method"), QStringLiteral("Train with these methods (cd, pcd, pt, lpt, deo, leaky, mix; comma-separated)."),
                                   QStringLiteral("LIST"));
    QCommandLineOption trainKind(QStringLiteral("train-kind"), QStringLiteral("Model kind to train: brbm, grbm, leaky."), QStringLiteral("KIND"));
    QCommandLineOption trainHidden(QStringLiteral("train-hidden"), QStringLiteral("Hidden units to train."), QStringLiteral("M"));
    QCommandLineOption trainUpdates(QStringLiteral("train-updates"), QStringLiteral("Updates per training run."), QStringLiteral("U"));
    QCommandLineOption trainK(QStringLiteral("train-k"), QStringLiteral("Sweeps / scans / annealing steps per update."), QStringLiteral("K"));
    QCommandLineOption trainBatch(QStringLiteral("train-batch"), QStringLiteral("Mini-batch size."), QStringLiteral("B"));
    QCommandLineOption trainLr(QStringLiteral("train-lr"), QStringLiteral("Learning rate."), QStringLiteral("LR"));
    QCommandLineOption trainInit(QStringLiteral("train-init-scale"), QStringLiteral("Initial weights W_ij ~ N(0, s^2)."), QStringLiteral("S"));
    QCommandLineOption trainMonitor(QStringLiteral("train-monitor"), QStringLiteral("Log-likelihood record every this many updates."), QStringLiteral("T"));
    QCommandLineOption trainShifts(QStringLiteral("train-shifts"), QStringLiteral("Grow image data with one-pixel shifts."));
    QCommandLineOption trainPrep(QStringLiteral("train-prep"), QStringLiteral("Data values: binarize, scale, standardize, raw."), QStringLiteral("P"));
    QCommandLineOption report(QStringLiteral("report"), QStringLiteral("Write the HTML report (File → Export report) once results are in, and exit."),
                              QStringLiteral("FILE"));
    QCommandLineOption playbackFrames(QStringLiteral("playback-frames"),
                                      QStringLiteral("Export the playback of the Annealing/Compare/Tempering view as DIR/frame-0001.png … once the run is in, and exit."),
                                      QStringLiteral("DIR"));
    QCommandLineOption frameCount(QStringLiteral("frames"), QStringLiteral("Frames of --playback-frames (default 60)."), QStringLiteral("N"),
                                  QStringLiteral("60"));
    QCommandLineOption dpiOption(QStringLiteral("dpi"), QStringLiteral("Resolution of --playback-frames (default 96)."), QStringLiteral("D"),
                                 QStringLiteral("96"));
    QCommandLineOption timeout(QStringLiteral("timeout"), QStringLiteral("Seconds --screenshot waits for results (default 120)."), QStringLiteral("S"));
    QCommandLineOption sampler(QStringLiteral("sampler"), QStringLiteral("Samples view sampler: gibbs, pt, anneal."), QStringLiteral("S"));
    QCommandLineOption sampleSweeps(QStringLiteral("sample-sweeps"), QStringLiteral("Samples view: sweeps (scans, annealing steps)."), QStringLiteral("N"));
    parser.addOptions({preset, model, session, view, run, path, base, compare, steps, chains, seed, sweep, perfect, reverse, beta, scale, shot, size,
                       data, trainMethod, trainKind, trainHidden, trainUpdates, trainK, trainBatch, trainLr, trainMonitor, trainInit, trainShifts,
                       trainPrep, sampler, sampleSweeps, report, playbackFrames, frameCount, dpiOption, timeout});
    parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("A model file, or a result JSON of rbmscope-cli to reopen (as --model)."),
                                 QStringLiteral("[FILE]"));
    parser.process(app);
    if (parser.positionalArguments().size() > 1)
        return fail(QStringLiteral("give one FILE (a model or a result), not %1").arg(parser.positionalArguments().size()));
    if (parser.positionalArguments().size() == 1 && parser.isSet(model))
        return fail(QStringLiteral("give the file once: as --model FILE or as FILE"));
    const bool fileGiven = parser.isSet(model) || parser.positionalArguments().size() == 1;
    const QString fileArg = parser.isSet(model) ? parser.value(model) : parser.positionalArguments().value(0);

    rbmscope::MainWindow w;
    // Headless: render (and/or report) once results are in, then exit.
    const bool screenshot = parser.isSet(shot) || parser.isSet(report) || parser.isSet(playbackFrames);
    w.setInteractive(!screenshot);
    // SIGTERM / SIGHUP / SIGINT: close the window normally, so the session is saved.
    rbmscope::closeOnTerminationSignals(&w);
    if (!screenshot) w.checkAutosaveLocation();
    // Without --preset/--model the last session comes back (never for --screenshot, whose
    // pictures must not depend on it); a session that cannot be opened says why and the
    // default preset opens instead.
    bool sessionOpened = false;
    if (sessionGiven && screenshot) {
        if (!w.openSession(sessionFile)) return 2;
        sessionOpened = true;
    } else if (sessionGiven || (!screenshot && !fileGiven && !parser.isSet(preset))) {
        sessionOpened = w.startWithSession(sessionFile);
    } else {
        const bool ok = fileGiven ? w.loadFile(fileArg) : w.loadPreset(parser.value(preset));
        if (!ok && screenshot) return 2;
        if (!ok) w.loadPreset(QString::fromStdString(rbm::default_preset_name()));
    }

    // Settings from the command line, checked like the panel checks them.
    rbmscope::RunSettings s = w.settings();
    if (parser.isSet(path) || parser.isSet(base)) {
        s.method.path = parser.isSet(path) ? parser.value(path).toStdString() : s.method.path;
        s.method.base = parser.isSet(base) ? parser.value(base).toStdString() : s.method.base;
        s.compare.clear();
    }
    if (parser.isSet(compare)) {
        s.compare.clear();
        for (const QString& item : parser.value(compare).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            rbmscope::MethodSpec m;
            if (const QString err = rbmscope::parseMethod(item, m); !err.isEmpty()) return fail(QStringLiteral("--compare: ") + err);
            if (const QString err = rbmscope::methodProblem(rbmscope::traitsOf(w.model()), m); !err.isEmpty())
                return fail(QStringLiteral("--compare %1: %2").arg(item, err));
            s.compare.push_back(rbmscope::canonicalMethod(rbmscope::traitsOf(w.model()), m));
        }
    }
    if (const QString problem = rbmscope::methodProblem(rbmscope::traitsOf(w.model()), s.method); !problem.isEmpty())
        return fail(problem);
    s.method = rbmscope::canonicalMethod(rbmscope::traitsOf(w.model()), s.method);
    const auto integer = [&](const QCommandLineOption& o, long long lo, long long hi, long long& out) -> QString {
        if (!parser.isSet(o)) return {};
        const QString err = rbmscope::checkInteger(parser.value(o), lo, hi, QStringLiteral("--") + o.names().front());
        if (err.isEmpty()) out = parser.value(o).toLongLong();
        return err;
    };
    long long k = s.schedule.steps, n = s.chains, sd = static_cast<long long>(s.seed);
    for (const QString& err : {integer(steps, 1, 1000000, k), integer(chains, 1, 1000000, n), integer(seed, 0, 1LL << 62, sd)})
        if (!err.isEmpty()) return fail(err);
    s.schedule.steps = k;
    s.chains = n;
    s.seed = static_cast<std::uint64_t>(sd);
    if (parser.isSet(sweep)) {
        if (const QString err = rbmscope::checkIntegerList(parser.value(sweep), 1, 1000000, QStringLiteral("--sweep")); !err.isEmpty())
            return fail(err);
        s.sweepSteps.clear();
        for (long long v : rbmscope::parseIntegerList(parser.value(sweep))) s.sweepSteps.push_back(v);
    }
    if (parser.isSet(perfect)) s.perfect = true;
    if (parser.isSet(reverse)) s.reverse = true;
    const QStringList ownRunViews{QStringLiteral("estimates"), QStringLiteral("samples"), QStringLiteral("filters"), QStringLiteral("training"),
                                  QStringLiteral("meanfield"), QStringLiteral("tempering")};
    if (parser.isSet(run) || !sessionOpened) s.autoRun = parser.isSet(run) && !ownRunViews.contains(parser.value(view));
    w.applySettings(s);

    if (parser.isSet(view) && !w.setCurrentView(parser.value(view)))
        return fail(QStringLiteral("--view must be one of %1, not '%2'").arg(w.viewNames().join(QStringLiteral(", ")), parser.value(view)));
    const bool sweepRun = parser.isSet(run) && parser.value(view) == QLatin1String("estimates");
    if (sweepRun) {
        w.startSweep();
        w.startRun();  // the current run's histogram and running estimate, too
    }
    // Samples view: data beside the samples, the sampler, and --run to draw.
    if (parser.isSet(data) && !w.viewWidget<rbmscope::SamplesView>(QStringLiteral("samples"))->setDataSpec(parser.value(data)) && parser.value(view) == QLatin1String("samples"))
        return fail(QStringLiteral("--data: ") + w.viewWidget<rbmscope::SamplesView>(QStringLiteral("samples"))->dataMessage());
    {
        rbmscope::SamplesSettings ss = w.viewWidget<rbmscope::SamplesView>(QStringLiteral("samples"))->settings();
        if (parser.isSet(sampler)) {
            const QString v = parser.value(sampler);
            if (v == QLatin1String("gibbs")) ss.sampler = rbmscope::SamplerKind::Gibbs;
            else if (v == QLatin1String("pt")) ss.sampler = rbmscope::SamplerKind::Pt;
            else if (v == QLatin1String("anneal")) ss.sampler = rbmscope::SamplerKind::Anneal;
            else return fail(QStringLiteral("--sampler must be gibbs, pt or anneal, not '%1'").arg(v));
        }
        long long sw = ss.sweeps;
        if (const QString err = integer(sampleSweeps, 1, 100000000, sw); !err.isEmpty()) return fail(err);
        ss.sweeps = sw;
        w.viewWidget<rbmscope::SamplesView>(QStringLiteral("samples"))->setSettings(ss);
        if (parser.isSet(run) && parser.value(view) == QLatin1String("samples")) w.viewWidget<rbmscope::SamplesView>(QStringLiteral("samples"))->run();
    }
    // Mean-field view: --run computes the three methods (and, for a model that is not 2-D, the sweep).
    if (parser.isSet(run) && parser.value(view) == QLatin1String("meanfield")) w.viewWidget<rbmscope::MeanFieldView>(QStringLiteral("meanfield"))->run();
    // Tempering view: --run starts its PT run (as F5 there); headless nobody watches, so no pacing.
    if (parser.isSet(run) && parser.value(view) == QLatin1String("tempering")) {
        if (screenshot) {
            rbmscope::TemperingSettings ts = w.viewWidget<rbmscope::TemperingView>(QStringLiteral("tempering"))->settings();
            ts.scansPerSecond = 0;
            w.viewWidget<rbmscope::TemperingView>(QStringLiteral("tempering"))->setSettings(ts);
        }
        w.runCurrent();
    }
    // Training view: settings from the command line, then train (several methods: one after another).
    if (parser.isSet(trainMethod)) {
        rbmscope::TrainingView* tv = w.viewWidget<rbmscope::TrainingView>(QStringLiteral("training"));
        rbmscope::TrainDataSpec d = tv->dataSpec();
        if (parser.isSet(data)) d.source = parser.value(data);
        d.shifts = parser.isSet(trainShifts);
        if (parser.isSet(trainPrep)) {
            const QString p = parser.value(trainPrep);
            if (p == QLatin1String("binarize")) d.prep = rbmscope::TrainDataSpec::Prep::Binarize;
            else if (p == QLatin1String("scale")) d.prep = rbmscope::TrainDataSpec::Prep::Scale;
            else if (p == QLatin1String("standardize")) d.prep = rbmscope::TrainDataSpec::Prep::Standardize;
            else if (p == QLatin1String("raw")) d.prep = rbmscope::TrainDataSpec::Prep::AsIs;
            else return fail(QStringLiteral("--train-prep must be binarize, scale, standardize or raw, not '%1'").arg(p));
        }
        tv->setDataSpec(d);
        rbm::TrainOptions o = tv->options();
        std::vector<rbm::TrainMethod> methods;
        try {
            for (const QString& m : parser.value(trainMethod).split(QLatin1Char(','), Qt::SkipEmptyParts))
                methods.push_back(rbm::parse_train_method(m.trimmed().toStdString()));
            if (parser.isSet(trainKind)) {
                const QString k = parser.value(trainKind);
                if (k == QLatin1String("brbm")) o.kind = rbm::ModelKind::Brbm;
                else if (k == QLatin1String("grbm")) o.kind = rbm::ModelKind::Grbm;
                else if (k == QLatin1String("leaky")) o.kind = rbm::ModelKind::Leaky;
                else throw rbm::InputError("--train-kind must be brbm, grbm or leaky, not '" + k.toStdString() + "'");
            }
        } catch (const std::exception& e) {
            return fail(QString::fromStdString(e.what()));
        }
        if (methods.empty()) return fail(QStringLiteral("--train-method needs at least one method"));
        long long hid = o.hidden, upd = o.updates, kk = o.k, bat = o.batch, mon = o.monitor_every;
        for (const QString& err : {integer(trainHidden, 1, 4096, hid), integer(trainUpdates, 1, 100000000, upd), integer(trainK, 1, 100000, kk),
                                   integer(trainBatch, 1, 100000, bat), integer(trainMonitor, 0, 1000000, mon)})
            if (!err.isEmpty()) return fail(err);
        o.hidden = hid;
        o.updates = upd;
        o.k = static_cast<int>(kk);
        o.batch = bat;
        o.monitor_every = mon;
        if (parser.isSet(trainLr)) {
            if (const QString err = rbmscope::checkReal(parser.value(trainLr), 0, 10, true, false, QStringLiteral("--train-lr")); !err.isEmpty())
                return fail(err);
            o.learning_rate = parser.value(trainLr).toDouble();
        }
        if (parser.isSet(trainInit)) {
            if (const QString err = rbmscope::checkReal(parser.value(trainInit), 0, 10, false, false, QStringLiteral("--train-init-scale")); !err.isEmpty())
                return fail(err);
            o.init_scale = parser.value(trainInit).toDouble();
        }
        o.method = methods.front();
        tv->setOptions(o);
        const bool started = methods.size() == 1 ? tv->train() : tv->compareMethods(methods);
        if (!started) return fail(QStringLiteral("training: ") + tv->statusText());
    }
    if (parser.value(scale) != QLatin1String("shared") && parser.value(scale) != QLatin1String("separate"))
        return fail(QStringLiteral("--scale must be shared or separate, not '%1'").arg(parser.value(scale)));
    w.viewWidget<rbmscope::AnnealingView>(QStringLiteral("compare"))->setSharedScale(parser.value(scale) == QLatin1String("shared"));
    std::optional<double> showBeta;
    if (parser.isSet(beta)) {
        const QString err = rbmscope::checkReal(parser.value(beta), 0, 1, false, false, QStringLiteral("--beta"));
        if (!err.isEmpty()) return fail(err);
        showBeta = parser.value(beta).toDouble();
    }

    const QStringList wh = parser.value(size).split('x');
    if (wh.size() == 2 && wh[0].toInt() > 0 && wh[1].toInt() > 0) w.resize(wh[0].toInt(), wh[1].toInt());
    w.show();
    if (!screenshot) {
        if (showBeta) QTimer::singleShot(0, &w, [&w, showBeta] { w.viewWidget<rbmscope::AnnealingView>(QStringLiteral("annealing"))->setBeta(*showBeta); });
        return app.exec();
    }

    const QString file = parser.value(shot), reportFile = parser.value(report), framesDir = parser.value(playbackFrames);
    long long frames = 60, dpi = 96;
    for (const QString& err : {integer(frameCount, 2, 10000, frames), integer(dpiOption, 24, 1200, dpi)})
        if (!err.isEmpty()) return fail(err);
    long long timeoutSeconds = 120;
    if (const QString err = integer(timeout, 1, 86400, timeoutSeconds); !err.isEmpty()) return fail(err);
    const int timeoutMs = static_cast<int>(timeoutSeconds * 1000);
    auto* poll = new QTimer(&w);
    bool betaApplied = !showBeta;
    QObject::connect(&w, &rbmscope::MainWindow::playbackExported, &w, [framesDir](const QString& err) {
        if (!err.isEmpty()) std::cerr << "rbmscope: " << err.toStdString() << std::endl;
        else std::cout << "rbmscope: wrote the playback frames into " << framesDir.toStdString() << std::endl;
        QApplication::exit(err.isEmpty() ? 0 : 2);
    });
    QObject::connect(poll, &QTimer::timeout, &w, [&w, file, reportFile, framesDir, frames, dpi, poll, showBeta, &betaApplied] {
        if (!w.idle()) return;
        if (const rbmscope::TemperingView* tv = w.viewWidget<rbmscope::TemperingView>(QStringLiteral("tempering")); tv->running() || tv->jobs()->isRunning(tv->heatChannel())) return;
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
            if (!w.grab().save(file)) {
                std::cerr << "rbmscope: cannot write " << file.toStdString() << std::endl;
                QApplication::exit(2);
                return;
            }
            std::cout << "rbmscope: wrote " << file.toStdString() << std::endl;
        }
        if (!framesDir.isEmpty()) {  // exits when the last frame is written (playbackExported)
            if (const QString err = w.exportPlayback(framesDir, static_cast<int>(frames), static_cast<double>(dpi)); !err.isEmpty()) {
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
    return app.exec();
}
