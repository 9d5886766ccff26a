#include "app_options.hpp"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <string>

#include "core/io/presets.hpp"
#include "core/kernels/build_info.hpp"

namespace rbmscope {
namespace {

std::optional<QString> valueIfSet(const QCommandLineParser& parser, const QString& name) {
    if (!parser.isSet(name)) return std::nullopt;
    return parser.value(name);
}

// Every option, in the order --help lists them.
void addOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription(QStringLiteral("See and measure samplers and annealers on RBMs."));
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption preset(QStringLiteral("preset"), QStringLiteral("Open a bundled preset."),
                              QStringLiteral("NAME"), QString::fromStdString(rbm::default_preset_name()));
    QCommandLineOption model(QStringLiteral("model"), QStringLiteral("Open a model file."), QStringLiteral("FILE"));
    // Listed for --help only: takeSessionOption has taken it out of argv.
    QCommandLineOption sessionOption(QStringLiteral("session"),
                                     QStringLiteral("Open a session file (model, parameters and view)."),
                                     QStringLiteral("FILE"));
    QCommandLineOption view(
        QStringLiteral("view"),
        QStringLiteral("View to show: density, annealing, compare, estimates (or another tab by name)."),
        QStringLiteral("VIEW"));
    QCommandLineOption run(QStringLiteral("run"),
                           QStringLiteral("Run the current view's job (AIS for density/annealing/compare, a sweep over "
                                          "K for estimates, PT for tempering) and wait for it."));
    QCommandLineOption path(QStringLiteral("path"),
                            QStringLiteral("Annealing path: geometric, cov, moments, leaky, energy."),
                            QStringLiteral("PATH"));
    QCommandLineOption base(QStringLiteral("base"), QStringLiteral("Base distribution: moment, sigma, uniform, data."),
                            QStringLiteral("BASE"));
    QCommandLineOption compare(QStringLiteral("compare"),
                               QStringLiteral("Further methods, e.g. cov:moment,geometric:sigma."),
                               QStringLiteral("LIST"));
    QCommandLineOption steps(QStringLiteral("steps"), QStringLiteral("K, the number of annealing steps."),
                             QStringLiteral("K"));
    QCommandLineOption chains(QStringLiteral("chains"), QStringLiteral("Number of chains."), QStringLiteral("N"));
    QCommandLineOption seed(QStringLiteral("seed"), QStringLiteral("Seed."), QStringLiteral("S"));
    QCommandLineOption sweep(QStringLiteral("sweep"), QStringLiteral("K values of a sweep, e.g. 10,30,100."),
                             QStringLiteral("LIST"));
    QCommandLineOption perfect(QStringLiteral("perfect"),
                               QStringLiteral("Perfect transitions (exact draws from p_beta)."));
    // Not "--reverse": QApplication takes that as its own switch for right-to-left layout.
    QCommandLineOption reverse(QStringLiteral("reverse-ais"), QStringLiteral("Also run reverse AIS (upper bound)."));
    QCommandLineOption beta(QStringLiteral("beta"), QStringLiteral("Show the annealing views at this beta."),
                            QStringLiteral("B"));
    QCommandLineOption scale(QStringLiteral("scale"),
                             QStringLiteral("Colour scale of the comparison: shared or separate."),
                             QStringLiteral("MODE"), QStringLiteral("shared"));
    QCommandLineOption shot(QStringLiteral("screenshot"), QStringLiteral("Render, save a PNG and exit."),
                            QStringLiteral("FILE"));
    QCommandLineOption presenter(
        QStringLiteral("presenter"),
        QStringLiteral("Start in presenter mode (F11); with --screenshot, rendered at --size."));
    QCommandLineOption size(QStringLiteral("size"),
                            QStringLiteral("Window size for --screenshot, exactly (exit 2 if the window needs more)."),
                            QStringLiteral("WxH"), QStringLiteral("1280x800"));
    QCommandLineOption data(QStringLiteral("data"), QStringLiteral("Data set: bars:D, digits, or a CSV / IDX file."),
                            QStringLiteral("SPEC"));
    QCommandLineOption trainMethod(
        QStringLiteral("train-method"),
        QStringLiteral("Train with these methods (cd, pcd, pt, lpt, deo, leaky, mix; comma-separated)."),
        QStringLiteral("LIST"));
    QCommandLineOption trainKind(QStringLiteral("train-kind"),
                                 QStringLiteral("Model kind to train: brbm, grbm, leaky."), QStringLiteral("KIND"));
    QCommandLineOption trainHidden(QStringLiteral("train-hidden"), QStringLiteral("Hidden units to train."),
                                   QStringLiteral("M"));
    QCommandLineOption trainUpdates(QStringLiteral("train-updates"), QStringLiteral("Updates per training run."),
                                    QStringLiteral("U"));
    QCommandLineOption trainK(QStringLiteral("train-k"), QStringLiteral("Sweeps / scans / annealing steps per update."),
                              QStringLiteral("K"));
    QCommandLineOption trainBatch(QStringLiteral("train-batch"), QStringLiteral("Mini-batch size."),
                                  QStringLiteral("B"));
    QCommandLineOption trainLr(QStringLiteral("train-lr"), QStringLiteral("Learning rate."), QStringLiteral("LR"));
    QCommandLineOption trainInit(QStringLiteral("train-init-scale"),
                                 QStringLiteral("Initial weights W_ij ~ N(0, s^2)."), QStringLiteral("S"));
    QCommandLineOption trainMonitor(QStringLiteral("train-monitor"),
                                    QStringLiteral("Log-likelihood record every this many updates."),
                                    QStringLiteral("T"));
    QCommandLineOption trainShifts(QStringLiteral("train-shifts"),
                                   QStringLiteral("Grow image data with one-pixel shifts."));
    QCommandLineOption trainPrep(QStringLiteral("train-prep"),
                                 QStringLiteral("Data values: binarize, scale, standardize, raw."),
                                 QStringLiteral("P"));
    QCommandLineOption report(
        QStringLiteral("report"),
        QStringLiteral("Write the HTML report (File → Export report) once results are in, and exit."),
        QStringLiteral("FILE"));
    QCommandLineOption playbackFrames(QStringLiteral("playback-frames"),
                                      QStringLiteral("Export the playback of the Annealing/Compare/Tempering view as "
                                                     "DIR/frame-0001.png … (or, for a DIR ending in .gif, one "
                                                     "animated GIF, 100 ms a frame) once the run is in, and exit."),
                                      QStringLiteral("DIR"));
    QCommandLineOption frameCount(QStringLiteral("frames"), QStringLiteral("Frames of --playback-frames (default 60)."),
                                  QStringLiteral("N"), QStringLiteral("60"));
    QCommandLineOption dpiOption(QStringLiteral("dpi"), QStringLiteral("Resolution of --playback-frames (default 96)."),
                                 QStringLiteral("D"), QStringLiteral("96"));
    QCommandLineOption timeout(QStringLiteral("timeout"),
                               QStringLiteral("Seconds --screenshot waits for results (default 120)."),
                               QStringLiteral("S"));
    QCommandLineOption sampler(QStringLiteral("sampler"), QStringLiteral("Samples view sampler: gibbs, pt, anneal."),
                               QStringLiteral("S"));
    QCommandLineOption sampleSweeps(QStringLiteral("sample-sweeps"),
                                    QStringLiteral("Samples view: sweeps (scans, annealing steps)."),
                                    QStringLiteral("N"));
    QCommandLineOption maxMemory(
        QStringLiteral("max-memory"),
        QStringLiteral("Memory budget for what a file, a data set or a run may allocate, e.g. 4G "
                       "(default: a quarter of this machine's memory, from 1G to 2G)."),
        QStringLiteral("SIZE"));
    parser.addOptions({maxMemory,  preset,      model,        sessionOption, view,         run,     path,
                       base,       compare,     steps,        chains,        seed,         sweep,   perfect,
                       reverse,    beta,        scale,        shot,          size,         data,    trainMethod,
                       trainKind,  trainHidden, trainUpdates, trainK,        trainBatch,   trainLr, trainMonitor,
                       trainInit,  trainShifts, trainPrep,    sampler,       sampleSweeps, report,  playbackFrames,
                       frameCount, dpiOption,   timeout,      presenter});
    QCommandLineOption lesson(QStringLiteral("lesson"),
                              QStringLiteral("Open a lesson: a shipped one by name (tour, ...) or a lesson file."),
                              QStringLiteral("NAME|FILE"));
    QCommandLineOption lessonStop(QStringLiteral("lesson-stop"),
                                  QStringLiteral("Open the lesson at stop K (1 = the first)."), QStringLiteral("K"));
    parser.addOptions({lesson, lessonStop});
    parser.addPositionalArgument(
        QStringLiteral("FILE"),
        QStringLiteral("A model file, or a result JSON of rbmscope-cli to reopen (as --model)."),
        QStringLiteral("[FILE]"));
}

AppOptions readOptions(const QCommandLineParser& parser) {
    const auto given = [&parser](const char* name) { return valueIfSet(parser, QString::fromLatin1(name)); };
    const auto isSet = [&parser](const char* name) { return parser.isSet(QString::fromLatin1(name)); };
    AppOptions o;
    o.presetGiven = isSet("preset");
    o.preset = parser.value(QStringLiteral("preset"));
    o.view = given("view");
    o.run = isSet("run");
    o.path = given("path");
    o.base = given("base");
    o.compare = given("compare");
    o.steps = given("steps");
    o.chains = given("chains");
    o.seed = given("seed");
    o.sweep = given("sweep");
    o.perfect = isSet("perfect");
    o.reverseAis = isSet("reverse-ais");
    o.beta = given("beta");
    o.scale = parser.value(QStringLiteral("scale"));
    o.data = given("data");
    o.trainMethod = given("train-method");
    o.trainKind = given("train-kind");
    o.trainHidden = given("train-hidden");
    o.trainUpdates = given("train-updates");
    o.trainK = given("train-k");
    o.trainBatch = given("train-batch");
    o.trainLr = given("train-lr");
    o.trainMonitor = given("train-monitor");
    o.trainInitScale = given("train-init-scale");
    o.trainPrep = given("train-prep");
    o.trainShifts = isSet("train-shifts");
    o.sampler = given("sampler");
    o.sampleSweeps = given("sample-sweeps");
    o.screenshot = given("screenshot");
    o.report = given("report");
    o.playbackFrames = given("playback-frames");
    o.frames = given("frames");
    o.dpi = given("dpi");
    o.timeout = given("timeout");
    o.size = parser.value(QStringLiteral("size"));
    o.presenter = isSet("presenter");
    o.maxMemory = given("max-memory");
    o.lesson = given("lesson");
    o.lessonStop = given("lesson-stop");
    return o;
}

}  // namespace

QtArguments takeSessionOption(int argc, char** argv) {
    QtArguments out;
    for (int i = 0; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--session") {
            if (i + 1 >= argc) {
                out.problem = QStringLiteral("--session needs a FILE");
                return out;
            }
            out.session = QString::fromLocal8Bit(argv[++i]);
        } else if (a.rfind("--session=", 0) == 0) {
            out.session = QString::fromLocal8Bit(argv[i] + 10);
        } else {
            out.argv.push_back(argv[i]);
        }
    }
    out.argc = static_cast<int>(out.argv.size());
    out.argv.push_back(nullptr);
    return out;
}

void setApplicationVersion() {
    // "rbmscope 0.1.0 (commit ...)\nbuilt with ...\nSIMD paths ...": Qt prints the name itself.
    std::string text;
    try {
        text = rbm::version_text("rbmscope");
    } catch (const std::exception& e) {  // RBMSCOPE_SIMD names a path this machine cannot run
        text = "rbmscope " + rbm::build_info().version + " (commit " + rbm::build_info().commit + ")\n" + e.what();
    }
    while (!text.empty() && text.back() == '\n') text.pop_back();
    QCoreApplication::setApplicationVersion(QString::fromStdString(text.substr(std::string("rbmscope ").size())));
}

void answerHelpOrVersionWithoutDisplay(int argc, char** argv) {
    bool asked = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        asked = asked || a == "--help" || a == "-h" || a == "-?" || a == "--help-all" || a == "--version" || a == "-v";
    }
    if (!asked) return;
    QCoreApplication app(argc, argv);  // no platform plugin: works over SSH, without a display
    QCoreApplication::setApplicationName(QStringLiteral("rbmscope"));
    setApplicationVersion();
    QCommandLineParser parser;
    addOptions(parser);
    parser.process(app);  // prints the help or the version and exits (or reports a bad option)
}

QString parseOptions(const QApplication& app, const std::optional<QString>& session, AppOptions& out) {
    QCommandLineParser parser;
    addOptions(parser);
    parser.process(app);
    const QStringList files = parser.positionalArguments();
    const bool modelGiven = parser.isSet(QStringLiteral("model"));
    if (files.size() > 1) return QStringLiteral("give one FILE (a model or a result), not %1").arg(files.size());
    if (files.size() == 1 && modelGiven) return QStringLiteral("give the file once: as --model FILE or as FILE");
    out = readOptions(parser);
    out.session = session;
    if (modelGiven) out.file = parser.value(QStringLiteral("model"));
    else if (files.size() == 1) out.file = files.front();
    return {};
}

}  // namespace rbmscope
