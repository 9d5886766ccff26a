// Reopening results of rbmscope-cli in the app: an ais-sweep JSON written by the real
// CLI opens in Estimates with the same points (compared exactly) and nothing re-runs; an ais
// result opens with the same log Ẑ and the run's settings in the panel; pt, meanfield and a
// training log open in their views; a missing model file gives a message and keeps the model
// (or, when the open model has the recorded shape, the result is shown with it and the banner
// says so); a changed model file is named; a broken result is refused with its one line.
#include <QApplication>
#include <QDir>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineSeries>
#include <QMimeData>
#include <QProcess>
#include <QScatterSeries>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUrl>
#include <QtTest>
#include <cstring>
#include <set>

#include "cli_process.hpp"
#include "main_window/main_window.hpp"
#include "screenshot_dir.hpp"
#include "window_views.hpp"

using namespace rbmscope;

namespace {

const QString kData = QStringLiteral(RBMSCOPE_TEST_DATA);

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Drags `path` over the window and drops it; returns whether the drop was accepted.
bool dropFile(MainWindow& w, const QString& path) {
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(path)});
    const QPoint at(w.width() / 2, w.height() / 2);
    QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &enter);
    if (!enter.isAccepted()) return false;
    QDropEvent drop(QPointF(at), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &drop);
    return drop.isAccepted();
}

bool waitIdle(MainWindow& w) {
    return QTest::qWaitFor([&] { return w.idle(); }, 60000);
}

}  // namespace

class TestOpenResults : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);  // QSettings (Open recent) out of the user's files
        QVERIFY(settingsDir_.isValid());
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir_.path());
        QVERIFY(dir_.isValid());
        const QString d = dir_.path();
        QCOMPARE(cli(d, {QStringLiteral("convert"), QStringLiteral("four-mode"), QStringLiteral("m.json")},
                     QStringLiteral("convert.json")),
                 QString());
        QCOMPARE(cli(d,
                     QStringLiteral(
                         "ais-sweep m.json --methods geometric:moment,cov --steps 10,30,100 --chains 50 --repeats 2")
                         .split(' '),
                     QStringLiteral("sweep.json")),
                 QString());
        QCOMPARE(cli(d, QStringLiteral("ais m.json --steps 200 --chains 100 --seed 3").split(' '),
                     QStringLiteral("ais.json")),
                 QString());
        QCOMPARE(cli(d, QStringLiteral("pt m.json --chains 2 --sweeps 400").split(' '), QStringLiteral("pt.json")),
                 QString());
        QCOMPARE(cli(d, QStringLiteral("meanfield m.json --type 2 --trace").split(' '), QStringLiteral("mf.json")),
                 QString());
        QCOMPARE(
            cli(d,
                QStringLiteral("train --data bars:3 --hidden 4 --updates 60 --out t.json --log tlog.json").split(' '),
                QStringLiteral("train.json")),
            QString());
    }

    void sweepOpensInEstimatesWithTheSamePoints() {
        const QJsonObject j = readJson(dir_.filePath(QStringLiteral("sweep.json")));
        const QJsonArray rows = j[QStringLiteral("results")].toArray();
        QCOMPARE(rows.size(), qsizetype(6));
        MainWindow w;
        w.setInteractive(false);
        w.setAutosave(false);
        w.resize(1280, 800);
        w.show();
        QVERIFY(w.loadFile(dir_.filePath(QStringLiteral("sweep.json"))));
        QCOMPARE(w.currentView(), QStringLiteral("estimates"));
        QCOMPARE(w.model().n_visible(), rbm::Index(2));
        QVERIFY(waitIdle(w));  // the paths are built; nothing may have re-run the sweep
        const std::vector<SweepPoint>& pts = sweepJobOf(w)->points();
        QCOMPARE(static_cast<qsizetype>(pts.size()), rows.size());
        QCOMPARE(sweepJobOf(w)->laneLabels().size(), qsizetype(2));
        std::vector<std::string> methods;
        for (int i = 0; i < rows.size(); ++i) {
            const QJsonObject r = rows[i].toObject();
            const std::string m = r[QStringLiteral("method")].toString().toStdString();
            if (std::find(methods.begin(), methods.end(), m) == methods.end()) methods.push_back(m);
            const SweepPoint& p = pts[static_cast<std::size_t>(i)];
            QCOMPARE(p.lane, static_cast<int>(std::find(methods.begin(), methods.end(), m) - methods.begin()));
            QCOMPARE(p.steps, static_cast<rbm::Index>(r[QStringLiteral("steps")].toInteger()));
            // QJsonValue::toDouble reads the 17 printed digits back to the same double.
            QVERIFY(sameBits(p.estimate.log_z, r[QStringLiteral("log_z_mean")].toDouble()));
            QVERIFY(sameBits(p.estimate.ci95_low, r[QStringLiteral("ci95_low_mean")].toDouble()));
            QVERIFY(sameBits(p.estimate.ci95_high, r[QStringLiteral("ci95_high_mean")].toDouble()));
            QVERIFY(sameBits(p.estimate.ess, r[QStringLiteral("ess_mean")].toDouble()));
        }
        // Plotted: the log Ẑ values on the chart are the file's, one point per row.
        QCOMPARE(static_cast<qsizetype>(estimatesViewOf(w)->plottedPoints()), rows.size());
        // The summary speaks of the single-run charts, not as if nothing were shown.
        QVERIFY(!estimatesViewOf(w)->summaryLabel()->text().contains(QStringLiteral("No run yet")));
        std::multiset<double> plotted, inFile;
        for (QAbstractSeries* s : estimatesViewOf(w)->logZChart()->chart()->series())
            if (auto* sc = qobject_cast<QScatterSeries*>(s))
                for (const QPointF& p : sc->points()) plotted.insert(p.y());
        for (const auto& r : rows) inFile.insert(r.toObject()[QStringLiteral("log_z_mean")].toDouble());
        QVERIFY(plotted == inFile);
        // The settings of the sweep, auto-run off; the banner names the file and the command.
        QVERIFY(w.settings().sweepSteps == (std::vector<rbm::Index>{10, 30, 100}));
        QCOMPARE(w.settings().chains, rbm::Index(50));
        QVERIFY(!w.settings().autoRun);
        QVERIFY(w.resultBanner().contains(QStringLiteral("sweep.json")));
        QVERIFY(w.resultBanner().contains(j[QStringLiteral("command_line")].toString().toHtmlEscaped()));
        QVERIFY(!sweepJobOf(w)->running());
        QVERIFY(w.grab().save(screenshotDir() + QStringLiteral("/reopened-sweep.png")));
    }

    void aisOpensWithTheSameLogZ() {
        const QJsonObject j = readJson(dir_.filePath(QStringLiteral("ais.json")));
        MainWindow w;
        w.setInteractive(false);
        w.setAutosave(false);
        w.show();
        QVERIFY(w.loadPreset(QStringLiteral("bars-and-stripes")));
        QVERIFY(w.loadFile(dir_.filePath(QStringLiteral("ais.json"))));
        QCOMPARE(w.currentView(), QStringLiteral("estimates"));
        QVERIFY(waitIdle(w));
        const std::uint64_t id = aisJobOf(w)->runId();
        QCOMPARE(aisJobOf(w)->lanes().size(), std::size_t(1));
        const LaneRun& lane = aisJobOf(w)->lanes().front();
        QVERIFY(lane.result.has_value());
        QVERIFY(sameBits(lane.result->estimate.log_z, j[QStringLiteral("log_z")].toDouble()));
        QVERIFY(sameBits(lane.result->estimate.ess, j[QStringLiteral("ess")].toDouble()));
        QVERIFY(sameBits(lane.result->estimate.ci95_low, j[QStringLiteral("ci95")].toArray()[0].toDouble()));
        QCOMPARE(lane.running.size(), static_cast<std::size_t>(j[QStringLiteral("running")].toArray().size()));
        QCOMPARE(w.settings().seed, std::uint64_t(3));
        QCOMPARE(w.settings().schedule.steps, rbm::Index(200));
        QCOMPARE(w.settings().chains, rbm::Index(100));
        QVERIFY(estimatesViewOf(w)->summaryLabel()->text().contains(QStringLiteral("log Ẑ")));
        QTest::qWait(400);  // longer than the auto-run debounce: nothing replaces the result
        QCOMPARE(aisJobOf(w)->runId(), id);
        QVERIFY(w.resultBanner().contains(QStringLiteral("ais.json")));
        // Run afterwards runs live: the banner goes, a new run replaces the reopened one.
        w.startRun();
        QVERIFY(QTest::qWaitFor([&] { return aisJobOf(w)->runId() != id; }, 20000));
        QVERIFY(w.resultBanner().isEmpty());
        QVERIFY(waitIdle(w));
    }

    void droppedAndRecentResultsOpen() {
        QSettings().remove(QStringLiteral("recentModels"));
        MainWindow w;
        w.setInteractive(false);
        w.setAutosave(false);
        QVERIFY(w.loadPreset(QStringLiteral("bars-and-stripes")));
        const QString sweep = QFileInfo(dir_.filePath(QStringLiteral("sweep.json"))).absoluteFilePath();
        QVERIFY(dropFile(w, sweep));
        QCOMPARE(w.currentView(), QStringLiteral("estimates"));
        QCOMPARE(sweepJobOf(w)->points().size(), std::size_t(6));
        QCOMPARE(w.recentModels().front(), sweep);
        QVERIFY(w.loadPreset(QStringLiteral("bars-and-stripes")));
        QVERIFY(sweepJobOf(w)->points().empty());
        QVERIFY(w.openRecent(sweep));
        QCOMPARE(sweepJobOf(w)->points().size(), std::size_t(6));
        QVERIFY(waitIdle(w));
    }

    void missingModelGivesAMessageNeverACrash() {
        QTemporaryDir other;
        QVERIFY(QFile::copy(dir_.filePath(QStringLiteral("ais.json")), other.filePath(QStringLiteral("ais.json"))));
        MainWindow w;
        w.setInteractive(false);
        w.setAutosave(false);
        QVERIFY(w.loadPreset(QStringLiteral("bars-and-stripes")));  // a BRBM 16 x 30: not the recorded shape
        // Run from elsewhere so "m.json" as recorded is not found either.
        const QString cwd = QDir::currentPath();
        QDir::setCurrent(other.path());
        QVERIFY(!w.loadFile(other.filePath(QStringLiteral("ais.json"))));
        QVERIFY2(w.statusMessage().contains(QStringLiteral("its model file 'm.json' is not found")),
                 qPrintable(w.statusMessage()));
        QVERIFY(w.statusMessage().contains(QStringLiteral("open that model first")));
        QCOMPARE(w.model().n_visible(), rbm::Index(16));  // the model stays
        QVERIFY(w.resultBanner().isEmpty());
        // With a model of the recorded kind and shape open, the result is shown with it and the
        // banner says the file was not found.
        QVERIFY(w.loadPreset(QStringLiteral("four-mode")));
        QVERIFY(w.loadFile(other.filePath(QStringLiteral("ais.json"))));
        QDir::setCurrent(cwd);
        QVERIFY(w.resultBanner().contains(QStringLiteral("is not found")));
        QVERIFY(waitIdle(w));
    }

    void changedModelFileIsNamed() {
        QTemporaryDir copy;
        for (const char* f : {"m.json", "ais.json"})
            QVERIFY(QFile::copy(dir_.filePath(QLatin1String(f)), copy.filePath(QLatin1String(f))));
        {
            QFile m(copy.filePath(QStringLiteral("m.json")));
            QVERIFY(m.open(QIODevice::Append));
            m.write("\n");  // same model, other bytes: another hash
        }
        MainWindow w;
        w.setInteractive(false);
        w.setAutosave(false);
        QVERIFY(w.loadFile(copy.filePath(QStringLiteral("ais.json"))));
        QVERIFY(w.resultBanner().contains(QStringLiteral("has changed since the run")));
        QVERIFY(waitIdle(w));
    }

    void brokenResultIsRefusedWithItsLine() {
        MainWindow w;
        w.setInteractive(false);
        w.setAutosave(false);
        QVERIFY(w.loadPreset(QStringLiteral("bars-and-stripes")));
        QVERIFY(!w.loadFile(kData + QStringLiteral("/bad_results/sweep-steps-missing.json")));
        QVERIFY2(w.statusMessage().contains(QStringLiteral("results[2].steps is missing")),
                 qPrintable(w.statusMessage()));
        QCOMPARE(w.model().n_visible(), rbm::Index(16));
        QVERIFY(waitIdle(w));
    }

    void ptMeanfieldAndTrainingOpenInTheirViews() {
        MainWindow w;
        w.setInteractive(false);
        w.setAutosave(false);
        w.show();
        const QJsonObject pt = readJson(dir_.filePath(QStringLiteral("pt.json")));
        QVERIFY(w.loadFile(dir_.filePath(QStringLiteral("pt.json"))));
        QCOMPARE(w.currentView(), QStringLiteral("tempering"));
        std::vector<double> betas;
        for (const auto& b : pt[QStringLiteral("betas")].toArray()) betas.push_back(b.toDouble());
        QVERIFY(temperingViewOf(w)->ladderPlot()->ladder() == betas);
        QVERIFY(temperingViewOf(w)->countersLabel()->text().contains(
            QStringLiteral("<b>%1</b> measured").arg(pt[QStringLiteral("round_trips")].toInteger())));
        QVERIFY(temperingViewOf(w)->statusText().contains(QStringLiteral("reopened from pt.json")));
        // The rung heatmaps arrive later and redraw the frame: it still says where it came from.
        QSignalSpy rungs(temperingViewOf(w), &TemperingView::rungImagesReady);
        QVERIFY(rungs.wait(20000));
        QVERIFY(temperingViewOf(w)->statusText().contains(QStringLiteral("reopened from pt.json")));

        const QJsonObject mf = readJson(dir_.filePath(QStringLiteral("mf.json")));
        QVERIFY(w.loadFile(dir_.filePath(QStringLiteral("mf.json"))));
        QCOMPARE(w.currentView(), QStringLiteral("meanfield"));
        QVERIFY(sameBits(meanFieldViewOf(w)->freeEnergies()[1], mf[QStringLiteral("free_energy")].toDouble()));
        QVERIFY(std::isnan(meanFieldViewOf(w)->freeEnergies()[0]));  // type I is not in a type II result
        QVERIFY(sameBits(meanFieldViewOf(w)->freeEnergies()[3],
                         mf[QStringLiteral("exact")].toObject()[QStringLiteral("free_energy")].toDouble()));

        // train's summary: the trained model (9 visible units) and its log's curves.
        QVERIFY(w.loadFile(dir_.filePath(QStringLiteral("train.json"))));
        QCOMPARE(w.currentView(), QStringLiteral("training"));
        QCOMPARE(w.model().n_visible(), rbm::Index(9));
        QLineSeries* ll = trainingViewOf(w)->likelihoodChart()->series(TrainingView::kReopenedCurve);
        QVERIFY(ll);
        QFile log(dir_.filePath(QStringLiteral("tlog.json")));
        QVERIFY(log.open(QIODevice::ReadOnly));
        const QJsonArray records = QJsonDocument::fromJson(log.readAll()).array();
        QCOMPARE(static_cast<qsizetype>(ll->count()), records.size());
        QVERIFY(
            sameBits(ll->points().back().y(), records.last().toObject()[QStringLiteral("log_likelihood")].toDouble()));
        // The --log array alone: the curves, with the model open now.
        QVERIFY(w.loadFile(dir_.filePath(QStringLiteral("tlog.json"))));
        QCOMPARE(w.currentView(), QStringLiteral("training"));
        QVERIFY(waitIdle(w));
    }

    // A train result whose --log is CSV (the README's examples mostly write CSV) shows its curves too:
    // the same run logged as JSON gives the same points to the CSV's 10 significant digits.
    void trainingWithCsvLogShowsItsCurves() {
        const QString d = dir_.path();
        QCOMPARE(
            cli(d,
                QStringLiteral("train --data bars:3 --hidden 4 --updates 60 --out tc.json --log tlog.csv").split(' '),
                QStringLiteral("train-csv.json")),
            QString());
        QFile csv(dir_.filePath(QStringLiteral("tlog.csv")));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(csv.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QVERIFY(lines.size() > 3);
        MainWindow w;
        w.setInteractive(false);
        w.setAutosave(false);
        w.show();
        QVERIFY(w.loadFile(dir_.filePath(QStringLiteral("train-csv.json"))));
        QCOMPARE(w.currentView(), QStringLiteral("training"));
        QVERIFY2(!w.statusMessage().contains(QStringLiteral("CSV")), qPrintable(w.statusMessage()));
        QLineSeries* ll = trainingViewOf(w)->likelihoodChart()->series(TrainingView::kReopenedCurve);
        QVERIFY(ll);
        QCOMPARE(static_cast<qsizetype>(ll->count()), lines.size() - 1);  // the header is no record
        // The same seed's JSON log (initTestCase) holds the same records at full precision.
        QFile log(dir_.filePath(QStringLiteral("tlog.json")));
        QVERIFY(log.open(QIODevice::ReadOnly));
        const QJsonArray records = QJsonDocument::fromJson(log.readAll()).array();
        QCOMPARE(static_cast<qsizetype>(ll->count()), records.size());
        for (qsizetype i = 0; i < records.size(); ++i) {
            const double want = records[i].toObject()[QStringLiteral("log_likelihood")].toDouble();
            QVERIFY2(std::abs(ll->points()[i].y() - want) <= 1e-9 * std::abs(want),
                     qPrintable(QStringLiteral("%1: %2 vs %3").arg(i).arg(ll->points()[i].y(), 0, 'g', 17).arg(want)));
        }
        QVERIFY(waitIdle(w));
    }

private:
    QTemporaryDir settingsDir_, dir_;
};

QTEST_MAIN(TestOpenResults)
#include "tst_open_results.moc"
