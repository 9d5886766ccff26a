// File → Export report: one self-contained HTML page. The numbers in it are the
// app's, and each command line it prints, run by the real rbmscope-cli, gives those numbers
// exactly (same core, same seed); settings the CLI cannot express are said, not misprinted.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTextDocumentFragment>
#include <QtTest>

#include "core/io/model_io.hpp"
#include "main_window/main_window.hpp"
#include "test_window.hpp"

using namespace rbmscope;

namespace {

QString readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

// The <pre class="cmd"> blocks, unescaped.
QStringList commands(const QString& html) {
    QStringList out;
    QRegularExpression re(QStringLiteral("<pre class=\"cmd\">(.*?)</pre>"),
                          QRegularExpression::DotMatchesEverythingOption);
    for (auto it = re.globalMatch(html); it.hasNext();)
        out << QTextDocumentFragment::fromHtml(it.next().captured(1)).toPlainText();
    return out;
}

// Splits a command line as a POSIX shell would for the quoting rbm::shell_command_line writes
// (single quotes, '\'' for a quote), and runs it with the real CLI in `dir`.
QJsonObject runCli(const QString& commandLine, const QString& dir) {
    QStringList args;
    QString cur;
    bool inQuote = false, any = false;
    for (int i = 0; i < commandLine.size(); ++i) {
        const QChar c = commandLine[i];
        if (inQuote) {
            if (c == QLatin1Char('\'')) inQuote = false;
            else cur += c;
        } else if (c == QLatin1Char('\'')) {
            inQuote = any = true;
        } else if (c == QLatin1Char('\\') && i + 1 < commandLine.size()) {
            cur += commandLine[++i];
        } else if (c == QLatin1Char(' ')) {
            if (any || !cur.isEmpty()) args << cur;
            cur.clear();
            any = false;
        } else {
            cur += c;
        }
    }
    if (any || !cur.isEmpty()) args << cur;
    if (args.isEmpty() || args.front() != QLatin1String("rbmscope-cli")) return {};
    args.removeFirst();
    QProcess p;
    p.setWorkingDirectory(dir);
    p.start(QStringLiteral(RBMSCOPE_CLI_BINARY), args);
    if (!p.waitForFinished(120000) || p.exitCode() != 0) {
        qWarning() << "rbmscope-cli failed:" << args << p.readAllStandardError();
        return {};
    }
    return QJsonDocument::fromJson(p.readAllStandardOutput()).object();
}

// Bit for bit (QCOMPARE on doubles is a fuzzy compare); says both when they differ.
bool sameDouble(double cli, double app) {
    if (cli == app) return true;
    qWarning("CLI %.17g, app %.17g", cli, app);
    return false;
}

}  // namespace

class TestReport : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<MainWindow> w_;
    QTemporaryDir dir_;

    bool waitIdle() { return ::waitIdle(*w_); }

    // Runs `rbmscope-cli ARGS`, opens its result in the window and exports the report into *html
    // (a QVERIFY failure returns early: callers check QTest::currentTestFailed()).
    void reportOfReopenedResult(const QStringList& args, const QString& stem, QString* html) {
        QProcess cli;
        cli.start(QStringLiteral(RBMSCOPE_CLI_BINARY), args);
        QVERIFY(cli.waitForFinished(60000) && cli.exitCode() == 0);
        const QString result = dir_.filePath(stem + QStringLiteral("-result.json"));
        QFile f(result);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(cli.readAllStandardOutput());
        f.close();
        QVERIFY(w_->loadFile(result));
        QVERIFY(waitIdle());
        const QString path = dir_.filePath(stem + QStringLiteral("-reopened.html"));
        QCOMPARE(w_->exportReport(path), QString());
        *html = readAll(path);
    }

private Q_SLOTS:
    void init() {
        QVERIFY(dir_.isValid());
        w_ = testWindow();
        QVERIFY(w_->loadPreset("four-mode"));
        QVERIFY(waitIdle());
    }
    void cleanup() { w_.reset(); }

    // The AIS run of every method: its numbers in the page, and the page's commands give them bit for bit.
    void aisCommandsReproduceTheRun() {
        RunSettings s = w_->settings();
        s.chains = 300;
        s.schedule.steps = 50;
        s.seed = 7;
        w_->applySettings(s);
        w_->startRun();
        QVERIFY(waitIdle());
        const auto& lanes = aisJobOf(*w_)->lanes();
        QVERIFY(lanes.size() >= 2);  // the preset compares AIS and AISC
        const QString path = dir_.filePath(QStringLiteral("ais.html"));
        QCOMPARE(w_->exportReport(path), QString());
        const QString html = readAll(path);
        QVERIFY(html.startsWith(QStringLiteral("<!DOCTYPE html>")));
        QVERIFY(html.count(QStringLiteral("<svg")) >= 3);  // density, annealing, compare
        // Every figure is drawn at the size of the view on screen, also the tabs not shown (a
        // never-shown tab is 100 x 30 and its text would fill the figure).
        const QRegularExpression viewBox(QStringLiteral("viewBox=\"0 0 (\\d+) (\\d+)\""));
        int figures = 0;
        for (auto it = viewBox.globalMatch(html); it.hasNext(); ++figures) {
            const auto m = it.next();
            QVERIFY2(m.captured(1).toInt() > 600 && m.captured(2).toInt() > 400, qPrintable(m.captured(0)));
        }
        QVERIFY(figures >= 3);
        QVERIFY(!html.contains(QStringLiteral("<img src=\"http")) &&
                !html.contains(QStringLiteral("<script src=")));  // self-contained
        QVERIFY(html.contains(QStringLiteral("exact log Z")));
        const QStringList cmds = commands(html);
        QCOMPARE(cmds.size(), static_cast<int>(lanes.size()));
        for (std::size_t i = 0; i < lanes.size(); ++i) {
            QVERIFY(lanes[i].result && lanes[i].result->complete);
            const rbm::AisEstimate& e = lanes[i].result->estimate;
            QVERIFY2(html.contains(QString::number(e.log_z, 'g', 8)), qPrintable(QString::number(e.log_z, 'g', 8)));
            QVERIFY(cmds[static_cast<int>(i)].contains(QStringLiteral("preset:four-mode")));
            const QJsonObject cli = runCli(cmds[static_cast<int>(i)], dir_.path());
            QVERIFY2(!cli.isEmpty(), qPrintable(cmds[static_cast<int>(i)]));
            QVERIFY(sameDouble(cli.value(QStringLiteral("log_z")).toDouble(), e.log_z));
            QVERIFY(sameDouble(cli.value(QStringLiteral("ess")).toDouble(), e.ess));
        }
    }

    // The Estimates sweep: one ais-sweep command whose rows are the view's points.
    void sweepCommandReproducesThePoints() {
        RunSettings s = w_->settings();
        s.chains = 200;
        s.sweepSteps = {10, 40};
        w_->applySettings(s);
        w_->startSweep();
        QVERIFY(waitIdle());
        const auto& points = sweepJobOf(*w_)->points();
        QVERIFY(points.size() >= 4);
        const QString path = dir_.filePath(QStringLiteral("sweep.html"));
        QCOMPARE(w_->exportReport(path), QString());
        QStringList cmds = commands(readAll(path));
        cmds = cmds.filter(QStringLiteral("ais-sweep"));
        QCOMPARE(cmds.size(), 1);
        const QJsonObject cli = runCli(cmds.front(), dir_.path());
        const QJsonArray rows = cli.value(QStringLiteral("results")).toArray();
        QCOMPARE(rows.size(), static_cast<qsizetype>(points.size()));
        const std::vector<MethodSpec> methods = w_->settings().methods();
        for (const SweepPoint& p : points) {
            const MethodSpec& m = methods.at(static_cast<std::size_t>(p.lane));
            const QString method = QString::fromStdString(m.path + ":" + m.base);
            bool found = false;
            for (const QJsonValue& v : rows) {
                const QJsonObject r = v.toObject();
                if (r.value(QStringLiteral("method")).toString() != method ||
                    r.value(QStringLiteral("steps")).toInteger() != p.steps)
                    continue;
                found = true;
                QVERIFY(sameDouble(r.value(QStringLiteral("log_z_mean")).toDouble(), p.estimate.log_z));
            }
            QVERIFY2(found, qPrintable(QStringLiteral("%1 K=%2").arg(method).arg(p.steps)));
        }
    }

    // A model that is not an unchanged preset is written next to the page (the file it came
    // from may change or be far away), and the command reads that copy and gives the run's numbers.
    void modelIsWrittenBesideThePage() {
        rbm::Model m = w_->model();
        m.as<rbm::Grbm>()->W(0, 0) += 0.25;
        m.name = "four-mode, edited";
        const QString modelPath = dir_.filePath(QStringLiteral("edited-source.json"));
        rbm::save_model(m, modelPath.toStdString());
        QVERIFY(w_->loadFile(modelPath));
        QVERIFY(waitIdle());
        RunSettings s = w_->settings();
        s.chains = 200;
        s.schedule.steps = 30;
        w_->applySettings(s);
        w_->startRun();
        QVERIFY(waitIdle());
        const QString path = dir_.filePath(QStringLiteral("edited.html"));
        QCOMPARE(w_->exportReport(path), QString());
        QVERIFY(QFileInfo::exists(dir_.filePath(QStringLiteral("edited.model.json"))));
        const QStringList cmds = commands(readAll(path));
        QVERIFY(!cmds.isEmpty());
        QVERIFY(cmds.front().contains(QStringLiteral("edited.model.json")));
        const QJsonObject cli = runCli(cmds.front(), dir_.path());
        QVERIFY(sameDouble(cli.value(QStringLiteral("log_z")).toDouble(),
                           aisJobOf(*w_)->lanes().front().result->estimate.log_z));
    }

    // Mean field: the three free energies of the view, and each command gives its own exactly.
    void meanFieldCommandsReproduceTheFreeEnergies() {
        QVERIFY(w_->setCurrentView(QStringLiteral("meanfield")));
        QSignalSpy shown(meanFieldViewOf(*w_), &MeanFieldView::resultsShown);
        meanFieldViewOf(*w_)->run();
        QVERIFY(shown.wait(60000));
        const std::array<double, 4> f = meanFieldViewOf(*w_)->freeEnergies();
        const QString path = dir_.filePath(QStringLiteral("meanfield.html"));
        QCOMPARE(w_->exportReport(path), QString());
        const QStringList cmds = commands(readAll(path)).filter(QStringLiteral(" meanfield "));
        QCOMPARE(cmds.size(), 3);
        for (int i = 0; i < 3; ++i) {
            const QJsonObject cli = runCli(cmds[i], dir_.path());
            QVERIFY2(!cli.isEmpty(), qPrintable(cmds[i]));
            QVERIFY(sameDouble(cli.value(QStringLiteral("free_energy")).toDouble(), f[static_cast<std::size_t>(i)]));
        }
    }

    // A reopened mean-field result holds one method and was not computed here: the report shows
    // that method only, and points at the result's own command line instead of inventing options.
    void reopenedMeanFieldResultHasNoInventedCommand() {
        QString html;
        reportOfReopenedResult(
            {QStringLiteral("meanfield"), QStringLiteral("preset:four-mode"), QStringLiteral("--type"),
             QStringLiteral("tap"), QStringLiteral("--restarts"), QStringLiteral("3")},
            QStringLiteral("mf"), &html);
        if (QTest::currentTestFailed()) return;
        QVERIFY(html.contains(QStringLiteral("<h2 id=\"meanfield\">")));
        QVERIFY(commands(html).filter(QStringLiteral(" meanfield ")).isEmpty());
        QCOMPARE(html.count(QStringLiteral("Reopened from a result file")), 1);
    }

    // Tempering: the view's last run (a fixed ladder under one scheme, then an adaptive one under
    // another); the page's pt command gives its ladder, swap acceptances and round trips exactly.
    void ptCommandReproducesTheTemperingRun() {
        QVERIFY(w_->setCurrentView(QStringLiteral("tempering")));
        TemperingView* v = temperingViewOf(*w_);
        for (int variant = 0; variant < 2; ++variant) {
            TemperingSettings ts = v->settings();
            ts.scheme = variant == 0 ? rbm::PtScheme::Reversible : rbm::PtScheme::Deo;
            ts.ladder = variant == 0 ? LadderKind::Linear : LadderKind::Adaptive;
            ts.replicas = 5;
            ts.gamma = 0.6;
            ts.scans = 400;  // the view has no control for the chains or the adaptive rounds: they keep theirs
            ts.seed = 11 + static_cast<std::uint64_t>(variant);
            ts.scansPerSecond = 0;
            v->setSettings(ts);
            QSignalSpy finished(v, &TemperingView::runFinished);
            v->run();
            QVERIFY(finished.wait(60000));
            QVERIFY(v->lastRunFinished());
            QVERIFY(waitIdle());
            const TemperingFrame* f = v->shownFrame();
            QVERIFY(f && f->finished);
            const QString path = dir_.filePath(QStringLiteral("pt%1.html").arg(variant));
            QCOMPARE(w_->exportReport(path), QString());
            const QString html = readAll(path);
            QVERIFY(html.contains(QStringLiteral("<h2 id=\"tempering\">")));
            const QStringList cmds = commands(html).filter(QStringLiteral("rbmscope-cli pt "));
            QCOMPARE(cmds.size(), 1);
            QVERIFY2(
                cmds.front().contains(variant == 0 ? QStringLiteral("--ladder linear") : QStringLiteral("--adaptive ")),
                qPrintable(cmds.front()));
            const QJsonObject cli = runCli(cmds.front(), dir_.path());
            QVERIFY2(!cli.isEmpty(), qPrintable(cmds.front()));
            const rbm::PtStats& st = f->stats;
            QCOMPARE(cli.value(QStringLiteral("round_trips")).toInteger(), static_cast<qint64>(st.total_round_trips()));
            QVERIFY(st.total_round_trips() > 0);  // a count of zero would compare equal too easily
            const QJsonArray betas = cli.value(QStringLiteral("betas")).toArray();
            QCOMPARE(betas.size(), static_cast<qsizetype>(st.betas.size()));
            for (std::size_t k = 0; k < st.betas.size(); ++k)
                QVERIFY(sameDouble(betas[static_cast<qsizetype>(k)].toDouble(), st.betas[k]));
            const std::vector<double> acc = st.acceptance();
            const QJsonArray cliAcc = cli.value(QStringLiteral("swap_acceptance")).toArray();
            QCOMPARE(cliAcc.size(), static_cast<qsizetype>(acc.size()));
            for (std::size_t k = 0; k < acc.size(); ++k) {
                QVERIFY(sameDouble(cliAcc[static_cast<qsizetype>(k)].toDouble(), acc[k]));
                QVERIFY2(html.contains(QString::number(acc[k], 'g', 8)), qPrintable(QString::number(acc[k], 'g', 8)));
            }
        }
    }

    // A reopened pt result was not run here: its figures are shown with a pointer to its own
    // command line, and no pt command is made up from the Tempering view's controls.
    void reopenedPtResultHasNoInventedCommand() {
        QString html;
        reportOfReopenedResult({QStringLiteral("pt"), QStringLiteral("preset:four-mode"), QStringLiteral("--sweeps"),
                                QStringLiteral("300"), QStringLiteral("--replicas"), QStringLiteral("4")},
                               QStringLiteral("pt"), &html);
        if (QTest::currentTestFailed()) return;
        QVERIFY(temperingViewOf(*w_)->shownFrame());
        QVERIFY(html.contains(QStringLiteral("<h2 id=\"tempering\">")));
        QVERIFY(commands(html).filter(QStringLiteral(" pt ")).isEmpty());
        QCOMPARE(html.count(QStringLiteral("Reopened from a result file")), 1);
    }

    // Training: the view's last run (tempered PCD on binarized bars); the page's train command
    // gives its final log-likelihood and reconstruction error and the same weights, bit for bit.
    void trainCommandReproducesTheTrainingRun() {
        QVERIFY(w_->setCurrentView(QStringLiteral("training")));
        TrainingView* v = trainingViewOf(*w_);
        TrainDataSpec d;
        d.source = QStringLiteral("bars:3");
        d.prep = TrainDataSpec::Prep::Binarize;
        v->setDataSpec(d);
        rbm::TrainOptions o;
        o.hidden = 6;
        o.method = rbm::TrainMethod::Pt;
        o.temperatures = 3;
        o.gamma = 0.6;
        o.batch = 5;
        o.learning_rate = 0.2;
        o.momentum = 0.5;
        o.init_scale = 0.1;
        o.updates = 200;
        o.monitor_every = 50;
        o.seed = 9;
        v->setOptions(o);
        QSignalSpy ended(v, &TrainingView::runEnded);
        QVERIFY(v->train());
        QVERIFY(ended.wait(60000));
        QVERIFY(waitIdle());
        const TrainingRun* r = v->session()->run(v->selectedRun());
        QVERIFY(r && r->snapshot && !r->snapshot->log.empty());
        QCOMPARE(r->snapshot->status, rbm::TrainStatus::Finished);
        QCOMPARE(r->snapshot->updatesDone, o.updates);
        const rbm::TrainRecord& last = r->snapshot->log.back();
        QCOMPARE(QString::fromStdString(last.log_likelihood_method), QStringLiteral("exact"));
        const QString path = dir_.filePath(QStringLiteral("train.html"));
        QCOMPARE(w_->exportReport(path), QString());
        const QString html = readAll(path);
        QVERIFY(html.contains(QStringLiteral("<h2 id=\"training\">")));
        QVERIFY(html.contains(QString::number(last.log_likelihood, 'g', 10)));
        const QStringList cmds = commands(html).filter(QStringLiteral("rbmscope-cli train "));
        QCOMPARE(cmds.size(), 1);
        const QJsonObject cli = runCli(cmds.front(), dir_.path());
        QVERIFY2(!cli.isEmpty(), qPrintable(cmds.front()));
        const QJsonObject fin = cli.value(QStringLiteral("final")).toObject();
        QVERIFY(sameDouble(fin.value(QStringLiteral("log_likelihood")).toDouble(), last.log_likelihood));
        QVERIFY(sameDouble(fin.value(QStringLiteral("reconstruction_error")).toDouble(), last.reconstruction_error));
        const rbm::Model trained =
            rbm::load_model(dir_.filePath(cli.value(QStringLiteral("model")).toString()).toStdString());
        const rbm::Brbm* a = r->snapshot->model.as<rbm::Brbm>();
        const rbm::Brbm* b = trained.as<rbm::Brbm>();
        QVERIFY(a && b);
        QVERIFY(a->W == b->W && a->b == b->b && a->c == b->c);  // exact, element by element
    }

    // A run stopped before its last update: the figures are shown, and the page says no command gives them.
    void stoppedTrainingRunHasNoCommand() {
        QVERIFY(w_->setCurrentView(QStringLiteral("training")));
        TrainingView* v = trainingViewOf(*w_);
        TrainDataSpec d;
        d.source = QStringLiteral("bars:3");
        v->setDataSpec(d);
        rbm::TrainOptions o;
        o.updates = 10000000;
        o.monitor_every = 1;
        v->setOptions(o);
        QSignalSpy shown(v, &TrainingView::runShown);
        QSignalSpy ended(v, &TrainingView::runEnded);
        QVERIFY(v->train());
        QVERIFY(shown.wait(60000));
        v->stop();
        QVERIFY(ended.wait(60000));
        QVERIFY(waitIdle());
        const QString path = dir_.filePath(QStringLiteral("train-stopped.html"));
        QCOMPARE(w_->exportReport(path), QString());
        const QString html = readAll(path);
        QVERIFY(html.contains(QStringLiteral("<h2 id=\"training\">")));
        QVERIFY(commands(html).filter(QStringLiteral(" train ")).isEmpty());
        QVERIFY(html.contains(QStringLiteral("The run did not finish (cancelled)")));
    }

    // A setting the CLI has no option for: the page says so instead of printing a wrong command.
    void settingWithoutCliOptionIsSaid() {
        RunSettings s = w_->settings();
        s.schedule.kind = "sigmoid";
        s.schedule.sigmoid_delta = 6;
        s.chains = 100;
        s.schedule.steps = 20;
        w_->applySettings(s);
        w_->startRun();
        QVERIFY(waitIdle());
        const QString path = dir_.filePath(QStringLiteral("sigmoid.html"));
        QCOMPARE(w_->exportReport(path), QString());
        const QString html = readAll(path);
        QVERIFY(commands(html).isEmpty());
        QVERIFY(html.contains(QStringLiteral("No command line reproduces this exactly")));
        QVERIFY(html.contains(QStringLiteral("sigmoid schedule's delta 6")));
    }

    void badDestinationsAreRefused() {
        QVERIFY(w_->exportReport(dir_.filePath(QStringLiteral("report.txt"))).contains(QStringLiteral(".html")));
        const QString err = w_->exportReport(QStringLiteral("/nonexistent-folder/r.html"));
        QVERIFY(!err.isEmpty());
        QVERIFY(err.contains(QStringLiteral("/nonexistent-folder/r.html")));
    }
};

QTEST_MAIN(TestReport)
#include "tst_report.moc"
