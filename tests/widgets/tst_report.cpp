// File → Export report (issue #18): one self-contained HTML page. The numbers in it are the
// app's, and each command line it prints, run by the real rbmscope-cli, gives those numbers
// exactly (same core, same seed); settings the CLI cannot express are said, not misprinted.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTextDocumentFragment>
#include <QSignalSpy>
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
    QRegularExpression re(QStringLiteral("<pre class=\"cmd\">(.*?)</pre>"), QRegularExpression::DotMatchesEverythingOption);
    for (auto it = re.globalMatch(html); it.hasNext();) out << QTextDocumentFragment::fromHtml(it.next().captured(1)).toPlainText();
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
        const auto& lanes = w_->session()->lanes();
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
        QVERIFY(!html.contains(QStringLiteral("<img src=\"http")) && !html.contains(QStringLiteral("<script src=")));  // self-contained
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
        const auto& points = w_->sweepJob()->points();
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
                if (r.value(QStringLiteral("method")).toString() != method || r.value(QStringLiteral("steps")).toInteger() != p.steps)
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
        QVERIFY(sameDouble(cli.value(QStringLiteral("log_z")).toDouble(), w_->session()->lanes().front().result->estimate.log_z));
    }

    // Mean field: the three free energies of the view, and each command gives its own exactly.
    void meanFieldCommandsReproduceTheFreeEnergies() {
        QVERIFY(w_->setCurrentView(QStringLiteral("meanfield")));
        QSignalSpy shown(w_->meanFieldView(), &MeanFieldView::resultsShown);
        w_->meanFieldView()->run();
        QVERIFY(shown.wait(60000));
        const std::array<double, 4> f = w_->meanFieldView()->freeEnergies();
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
        QProcess cli;
        cli.start(QStringLiteral(RBMSCOPE_CLI_BINARY), {QStringLiteral("meanfield"), QStringLiteral("preset:four-mode"),
                                                        QStringLiteral("--type"), QStringLiteral("tap"), QStringLiteral("--restarts"),
                                                        QStringLiteral("3")});
        QVERIFY(cli.waitForFinished(60000) && cli.exitCode() == 0);
        const QString result = dir_.filePath(QStringLiteral("mf-result.json"));
        QFile f(result);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(cli.readAllStandardOutput());
        f.close();
        QVERIFY(w_->loadFile(result));
        QVERIFY(waitIdle());
        const QString path = dir_.filePath(QStringLiteral("mf-reopened.html"));
        QCOMPARE(w_->exportReport(path), QString());
        const QString html = readAll(path);
        QVERIFY(html.contains(QStringLiteral("<h2 id=\"meanfield\">")));
        QVERIFY(commands(html).filter(QStringLiteral(" meanfield ")).isEmpty());
        QCOMPARE(html.count(QStringLiteral("Reopened from a result file")), 1);
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
