// Hostile models in the app: models whose numbers are extreme (the loader takes every finite number)
// never crash a view — each is shown, or refused with a message that names the problem while the
// current model stays; a last session whose model cannot be shown, or whose last start died while
// showing it, is moved aside; megabytes of notes cost nothing to show.
#include <sys/resource.h>

#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QPainter>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

#include "core/io/model_io.hpp"
#include "core/io/presets.hpp"
#include "core/io/session_io.hpp"
#include "core/numerics/memory_budget.hpp"
#include "ellipse_heatmap.hpp"
#include "jobs/lanes.hpp"
#include "main_window/main_window.hpp"
#include "screenshot_dir.hpp"
#include "text_preview.hpp"
#include "window_views.hpp"

using rbmscope::MainWindow;

namespace {

constexpr int kIdleMs = 120000;

void writeBytes(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes), bytes.size());
}

QString statusText(MainWindow& w) {
    QString all;
    for (QLabel* l : w.statusBar()->findChildren<QLabel*>()) all += l->text() + QLatin1Char('\n');
    return all;
}

bool sameModel(const rbm::Model& a, const rbm::Model& b) {
    return rbm::model_to_json_text(a) == rbm::model_to_json_text(b);
}

// A 2-D GRBM as the issue's hand-made files had it.
QByteArray grbmJson(const char* b, const char* W, const char* hidden, const char* sigma = "[1, 1]") {
    return QStringLiteral(R"({"format": "rbmscope-model", "version": 1, "kind": "grbm", "name": "hostile",
        "W": %1, "b": %2, "c": [-1, -1], "sigma": %3, "hidden_values": %4})")
        .arg(QLatin1String(W), QLatin1String(b), QLatin1String(sigma), QLatin1String(hidden))
        .toUtf8();
}

// Every view shown and painted, every run started, until the window is idle again.
void exerciseEveryView(MainWindow& w) {
    w.startRun();
    samplesViewOf(w)->run();
    meanFieldViewOf(w)->run();
    auto* tempering = w.findChild<rbmscope::TemperingView*>();
    QVERIFY(tempering);
    rbmscope::TemperingSettings ts = tempering->settings();
    ts.scans = 500;  // a short run: this is about surviving, not about mixing
    tempering->setSettings(ts);
    tempering->run();
    for (const QString& view : w.viewNames()) {
        QVERIFY(w.setCurrentView(view));
        QCoreApplication::processEvents();
        QVERIFY(!w.grab().isNull());
    }
    QTRY_VERIFY_WITH_TIMEOUT(w.idle() && !tempering->running(), kIdleMs);
    for (const QString& view : w.viewNames()) {
        QVERIFY(w.setCurrentView(view));
        QVERIFY(!w.grab().isNull());  // paint whatever the runs left on screen
    }
}

}  // namespace

class TestHostileModels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(config_.isValid());
        qputenv("RBMSCOPE_CONFIG_DIR", config_.path().toUtf8());
    }
    void cleanup() {
        for (const char* suffix : {"", ".broken", ".opening"})
            QFile::remove(MainWindow::autosavePath() + QLatin1String(suffix));
    }

    // The crash of the issue at its root: the density tab's setModel on b = 1e308 says why it
    // draws nothing (it indexed an empty list of mode centres before).
    void densityTabRefusesWhatItCannotDraw() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("b.json"));
        writeBytes(path, grbmJson("[1e308, 0]", "[[1, 0], [0, 1]]", "[0, 1]"));
        rbmscope::BackgroundJobs jobs;
        rbmscope::DensityTab tab(&jobs);
        QSignalSpy ready(&tab, &rbmscope::DensityTab::ready);
        tab.setModel(rbm::load_model(path.toStdString()), false);
        QCOMPARE(ready.count(), 1);
        auto* label = qobject_cast<QLabel*>(tab.currentWidget());
        QVERIFY(label);
        QVERIFY2(label->text().contains(QStringLiteral("cannot be drawn")), qPrintable(label->text()));
    }

    // The painters: particles, modes, arrows and ellipses at 1e300 or NaN (the annealing view of a
    // leaky RBM with b = 1e300 crashed in QRasterPaintEngine::drawImage) are left out, not painted.
    void paintersSkipPointsTheyCannotDraw() {
        const QVector<QPointF> wild{{1e300, -1e300}, {std::nan(""), 0.0}, {0.5, 0.5}, {-1e12, 3e15}};
        QImage img(8, 8, QImage::Format_RGB32);
        img.fill(Qt::darkBlue);
        rbmscope::HeatmapView h;
        h.resize(400, 300);
        h.setImage(img, QRectF(0, 0, 1, 1), 0, 1, QStringLiteral("p"));
        h.setParticles(wild);
        h.setMarkers(wild);
        h.setArrows({0.5, 0.5}, wild);
        QVERIFY(!h.grab().isNull());
        rbmscope::EllipseHeatmap e;
        e.resize(400, 300);
        e.setImage(img, QRectF(0, 0, 1, 1), 0, 1, QStringLiteral("p"));
        e.setSpot({1e300, 1e300}, Qt::red);
        rbmscope::EllipseOverlay el;
        el.mean = {1e300, 0.5};
        el.cxx = el.cyy = 1e290;
        e.setEllipses({el});
        QVERIFY(!e.grab().isNull());
    }

    void everyViewSurvivesExtremeNumbers_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::newRow("grbm b = +1e308") << grbmJson("[1e308, 0]", "[[1, 0], [0, 1]]", "[0, 1]");
        QTest::newRow("grbm b = -1e308") << grbmJson("[-1e308, 1e308]", "[[1, 0], [0, 1]]", "[0, 1]");
        QTest::newRow("grbm hidden [0, 1e300]") << grbmJson("[0, 0]", "[[1, 0], [0, 1]]", "[0, 1e300]");
        QTest::newRow("grbm W = 1e200") << grbmJson("[0, 0]", "[[1e200, 0], [0, 1e200]]", "[0, 1]");
        QTest::newRow("grbm W = 1e308") << grbmJson("[0, 0]", "[[1e308, -1e308], [1e308, 1e308]]", "[0, 1]");
        QTest::newRow("grbm sigma = 1e300") << grbmJson("[0, 0]", "[[1, 0], [0, 1]]", "[0, 1]", "[1e300, 1e300]");
        QTest::newRow("grbm sigma = 1e-300") << grbmJson("[0, 0]", "[[1, 0], [0, 1]]", "[0, 1]", "[1e-300, 1e-300]");
        QTest::newRow("grbm 4-d W = 1e308")
            << QByteArray(R"({"format": "rbmscope-model", "version": 1, "kind": "grbm", "W": [[1e308, 0], [0, 1e308],
                [-1e308, 1], [1, 1]], "b": [1e308, 0, 0, -1e308], "c": [0, 0], "sigma": [1, 1, 1, 1], "hidden_values": [0, 1]})");
        QTest::newRow("brbm W = 1e308") << QByteArray(
            R"({"format": "rbmscope-model", "version": 1, "kind": "brbm", "W": [[1e308, -1e308], [1e308, 1e308],
                [-1e308, 1], [1, 1]], "b": [1e308, 0, 0, -1e308], "c": [1e308, -1e308]})");
        QTest::newRow("gaussian mean 1e308")
            << QByteArray(R"({"format": "rbmscope-model", "version": 1, "kind": "gaussian", "mean": [1e308, -1e308],
                "cov": [[1, 0], [0, 1]]})");
        QTest::newRow("gaussian cov 1e300")
            << QByteArray(R"({"format": "rbmscope-model", "version": 1, "kind": "gaussian", "mean": [0, 0],
                "cov": [[1e300, 0], [0, 1e300]]})");
        // Crashed the annealing view's painter (particles at 1e300 handed to QPainter).
        QTest::newRow("leaky b = 1e300") << QByteArray(
            R"({"format": "rbmscope-model", "version": 1, "kind": "leaky", "W": [[0.5, 0], [0, 0.5]],
                "b": [1e300, -1e300], "c": [1e300, 0], "leakiness": 0.5})");
    }
    // Each model is shown (and every view and run survives it) or refused with a message while
    // the model the user had stays.
    void everyViewSurvivesExtremeNumbers() {
        QFETCH(QByteArray, json);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("model.json"));
        writeBytes(path, json);
        MainWindow w;
        w.setInteractive(false);
        w.setAutosave(false);
        w.resize(1000, 700);
        w.show();
        QVERIFY(w.loadPreset(QStringLiteral("four-mode")));
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kIdleMs);
        const bool opened = w.loadFile(path);
        if (!opened) {
            QVERIFY(sameModel(w.model(), rbm::load_preset("four-mode")));
            QVERIFY2(statusText(w).contains(QStringLiteral("Cannot open model")), qPrintable(statusText(w)));
            QVERIFY2(statusText(w).contains(path), qPrintable(statusText(w)));
            qInfo("refused: %s", qPrintable(statusText(w).section(QLatin1Char('\n'), 0, 0)));
        }
        exerciseEveryView(w);
    }

    // Models built in the app: an arrow dragged out to 1e300 and a trained model opened from the
    // training view go through the same check as files.
    void modelsBuiltInTheAppAreCheckedToo() {
        MainWindow w;
        w.setInteractive(false);
        w.setAutosave(false);
        w.show();
        QVERIFY(w.loadPreset(QStringLiteral("four-mode")));
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kIdleMs);
        const rbm::Model before = w.model();
        Q_EMIT densityViewOf(w)->arrowDragged(0, QPointF(1e300, -1e300));  // W_0 = 1e300: no finite log Z
        QVERIFY2(statusText(w).contains(QStringLiteral("Edit refused")), qPrintable(statusText(w)));
        QVERIFY(sameModel(w.model(), before));
        Q_EMIT densityViewOf(w)->arrowDragFinished(0);
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kIdleMs);
        QVERIFY(sameModel(w.model(), before));
        exerciseEveryView(w);

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("b.json"));
        writeBytes(path, grbmJson("[1e308, 0]", "[[1, 0], [0, 1]]", "[0, 1]"));
        const rbm::Model shown = w.model();
        Q_EMIT trainingViewOf(w)->openModel(rbm::load_model(path.toStdString()), rbm::Dataset{},
                                            QStringLiteral("trained"));
        QVERIFY(sameModel(w.model(), shown));
        QVERIFY2(statusText(w).contains(QStringLiteral("Cannot open the trained model")), qPrintable(statusText(w)));
        QVERIFY2(statusText(w).contains(QStringLiteral("cannot be drawn")), qPrintable(statusText(w)));
    }

    // The issue's loop: such a model in last-session.json crashed every start. Now it is moved
    // aside with a message, and the default preset opens.
    void unshowableLastSessionIsMovedAside() {
        QTemporaryDir dir;
        const QString modelPath = dir.filePath(QStringLiteral("b.json"));
        writeBytes(modelPath, grbmJson("[1e308, 0]", "[[1, 0], [0, 1]]", "[0, 1]"));
        rbm::Session s;
        s.model = rbm::load_model(modelPath.toStdString());
        s.view = "density";
        rbm::save_session(s, MainWindow::autosavePath().toStdString());
        QFile saved(MainWindow::autosavePath());
        QVERIFY(saved.open(QIODevice::ReadOnly));
        const QByteArray bytes = saved.readAll();
        saved.close();

        MainWindow w;
        w.resize(1100, 700);
        w.setInteractive(true);  // the message box the user sees, for the picture
        w.setAutosave(false);
        QVERIFY(!w.startWithSession(QString()));
        const QString aside = MainWindow::autosavePath() + QStringLiteral(".broken");
        QVERIFY2(w.sessionMessage().contains(QStringLiteral("cannot be drawn")), qPrintable(w.sessionMessage()));
        QVERIFY2(w.sessionMessage().contains(aside), qPrintable(w.sessionMessage()));
        QVERIFY(!QFile::exists(MainWindow::autosavePath()));
        QVERIFY(!QFile::exists(MainWindow::autosavePath() + QStringLiteral(".opening")));
        QFile moved(aside);
        QVERIFY(moved.open(QIODevice::ReadOnly));
        QCOMPARE(moved.readAll(), bytes);
        QVERIFY(sameModel(w.model(), rbm::load_preset("four-mode")));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kIdleMs);
        // The picture: the window with the non-modal message over it.
        auto* box = w.findChild<QMessageBox*>();
        QVERIFY(box);
        QVERIFY(box->isVisible());
        QImage shot = w.grab().toImage();
        {
            QPainter p(&shot);
            const QPixmap b = box->grab();
            p.drawPixmap((shot.width() - b.width()) / 2, (shot.height() - b.height()) / 3, b);
        }
        QVERIFY(shot.save(screenshotDir() + QStringLiteral("/broken-last-session.png")));
        box->close();
    }

    // A start that dies while showing the last session (a crash this suite cannot cause any
    // more, a kill) leaves the marker; the next start moves that session aside.
    void lastSessionThatKilledTheStartIsMovedAside() {
        rbm::Session s;
        s.model = rbm::load_preset("four-mode");
        s.preset = "four-mode";
        rbm::save_session(s, MainWindow::autosavePath().toStdString());
        writeBytes(MainWindow::autosavePath() + QStringLiteral(".opening"), "x");
        {
            MainWindow w;
            w.setInteractive(false);
            w.setAutosave(false);
            QVERIFY(!w.startWithSession(QString()));
            QVERIFY2(w.sessionMessage().contains(QStringLiteral("stopped while showing")),
                     qPrintable(w.sessionMessage()));
            QVERIFY(QFile::exists(MainWindow::autosavePath() + QStringLiteral(".broken")));
            QVERIFY(!QFile::exists(MainWindow::autosavePath() + QStringLiteral(".opening")));
        }
        // A start that gets through removes its marker: the next start restores the session.
        QVERIFY(QFile::rename(MainWindow::autosavePath() + QStringLiteral(".broken"), MainWindow::autosavePath()));
        {
            MainWindow w;
            w.setInteractive(false);
            w.setAutosave(false);
            QVERIFY(w.startWithSession(QString()));
            QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kIdleMs);
            QVERIFY(!QFile::exists(MainWindow::autosavePath() + QStringLiteral(".opening")));
        }
        MainWindow w;
        w.setInteractive(false);
        w.setAutosave(false);
        QVERIFY(w.startWithSession(QString()));
    }

    // A 2 KB BRBM recording bars:3:40000000:1 as its training data (2.7 GiB of rows; the app peaked
    // at 11 GB for ~50 s on open): with a budget that would allow it (as after --max-memory 64G), the
    // model is shown without its data, the Samples view and the data-based AIS lane say why, and
    // the process grows by far less than the data (its peak resident size, getrusage).
    void recordedTrainingDataIsNotLoadedBeyondTheLimit() {
        rbm::set_memory_budget(std::uint64_t(64) << 30);
        // As the app's main() names it: a refusal of the budget then advises "--max-memory 3G",
        // which the cap's refusals must not (raising the budget does not lift the cap).
        rbm::set_memory_budget_option("rbmscope --max-memory");
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bars-40M.json"));
        writeBytes(path, QByteArray(R"({"format": "rbmscope-model", "version": 1, "kind": "brbm",
            "W": [[0.1, -0.1], [0.2, 0], [0, 0.3], [0.1, 0.1], [-0.2, 0], [0, -0.1], [0.3, 0.2], [0, 0], [0.1, -0.3]],
            "b": [0, 0, 0, 0, 0, 0, 0, 0, 0], "c": [0, 0],
            "training": {"data": "bars:3:40000000:1", "preprocessing": {"limit": null, "shifts": false,
                         "binarize": null, "scale": false, "standardize": null}}})"));
        rusage before{};
        ::getrusage(RUSAGE_SELF, &before);
        {
            MainWindow w;
            w.setInteractive(false);
            w.setAutosave(false);
            w.show();
            QVERIFY(w.loadFile(path));
            QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kIdleMs);
            QVERIFY(w.model().training && w.model().training->data == "bars:3:40000000:1");
            QVERIFY(samplesViewOf(w)->grab().width() > 0);
            QString samplesText;
            for (QLabel* l : samplesViewOf(w)->findChildren<QLabel*>()) samplesText += l->text() + QLatin1Char('\n');
            QVERIFY2(samplesText.contains(QStringLiteral("at most 256.0 MiB")), qPrintable(samplesText));
            QVERIFY2(!samplesText.contains(QStringLiteral("allows it")), qPrintable(samplesText));

            rbmscope::RunSettings settings = w.settings();
            settings.method = {"geometric", "data"};
            settings.compare.clear();
            const std::vector<rbmscope::Lane> lanes = rbmscope::buildLanes(w.model(), settings, nullptr);
            QCOMPARE(lanes.size(), std::size_t(1));
            QVERIFY(!lanes[0].path);
            QVERIFY2(lanes[0].error.contains(QStringLiteral("training data was not loaded")) &&
                         lanes[0].error.contains(QStringLiteral("256.0 MiB")) &&
                         !lanes[0].error.contains(QStringLiteral("allows it")),
                     qPrintable(lanes[0].error));
        }
        rusage after{};
        ::getrusage(RUSAGE_SELF, &after);
        rbm::set_memory_budget(0);
        rbm::set_memory_budget_option("");
        const long grown_mb = (after.ru_maxrss - before.ru_maxrss) / 1024;
        qInfo("peak resident size grew by %ld MB opening the model", grown_mb);
        QVERIFY2(grown_mb < 512, qPrintable(QString::number(grown_mb)));
    }

    // 5 MB of notes (67 s before): the summary shows a bounded preview and says how much is left
    // out; the model keeps every byte.
    void megabytesOfNotesCostNothingToShow() {
        rbm::Model m = rbm::load_preset("four-mode");
        std::string notes;
        notes.reserve(5u << 20);
        while (notes.size() < (5u << 20)) notes += "A line of notes, with <markup> & entities. ";
        m.notes = notes;
        m.name = std::string(100000, 'n');
        QTemporaryDir dir;
        const QString modelPath = dir.filePath(QStringLiteral("notes.json"));
        rbm::save_model(m, modelPath.toStdString());
        rbm::Session s;
        s.model = m;
        const QString sessionPath = dir.filePath(QStringLiteral("notes-session.json"));
        rbm::save_session(s, sessionPath.toStdString());

        MainWindow w;
        w.setInteractive(false);
        w.setAutosave(false);
        w.show();
        auto* summary = w.findChild<QLabel*>(QStringLiteral("modelSummary"));
        QVERIFY(summary);
        for (int k = 0; k < 2; ++k) {
            QVERIFY(k == 0 ? w.loadFile(modelPath) : w.openSession(sessionPath));
            QCOMPARE(w.model().notes, notes);
            // The label holds the preview: about 2000 characters of notes (escaped) and a short name.
            QVERIFY2(summary->text().size() < 20000, qPrintable(QString::number(summary->text().size())));
            QVERIFY(summary->text().contains(QStringLiteral("more bytes")));
            QVERIFY(w.windowTitle().size() < 300);
            QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kIdleMs);
            QVERIFY(summary->text().size() < 20000);
            QVERIFY(densityViewOf(w)->grab().width() > 0);
        }
        // The preview itself: bounded, never splits a character, counts what it leaves out.
        const QString p = rbmscope::textPreview(std::string(3000, 'x') + "é", 2000);
        QVERIFY(p.startsWith(QString(2000, QLatin1Char('x'))));
        QVERIFY2(p.contains(QStringLiteral("1002 more bytes")), qPrintable(p));
        QCOMPARE(rbmscope::textPreview("short é", 2000), QStringLiteral("short é"));
        QCOMPARE(rbmscope::textPreview(std::string(2000, 'y'), 2000), QString(2000, QLatin1Char('y')));
    }

private:
    QTemporaryDir config_;
};

QTEST_MAIN(TestHostileModels)
#include "tst_hostile_models.moc"
