// Session files in the app: a saved session (settings typed into the panel, a model edited by
// dragging an arrow, the view) opens in a fresh window exactly as it was; Save session (Ctrl+S)
// writes to the same file again; a broken session names its problem, leaves the window on the
// default preset (or, when opened later, on the user's work) and is never overwritten; the
// session saved on quit comes back on start.
#include <QFile>
#include <QLabel>
#include <QMenuBar>
#include <QPainter>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <cstring>

#include "core/io/model_io.hpp"
#include "core/io/presets.hpp"
#include "core/io/session_io.hpp"
#include "main_window/main_window.hpp"
#include "screenshot_dir.hpp"
#include "window_views.hpp"

using rbmscope::MainWindow;

namespace {

constexpr int kIdleMs = 60000;

QByteArray bytesOf(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("(unreadable)");
}

void writeBytes(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}

bool sameBits(const rbm::Mat& a, const rbm::Mat& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

// Every number of the model, bit for bit (the JSON text is the shortest round-trip form).
bool sameModel(const rbm::Model& a, const rbm::Model& b) {
    return rbm::model_to_json_text(a) == rbm::model_to_json_text(b);
}

// Type into a panel field as a user would.
void typeInto(MainWindow& w, const char* field, const QString& text) {
    QLineEdit* e = w.panel()->field(QString::fromLatin1(field))->lineEdit();
    e->selectAll();
    QTest::keyClicks(e, text);
    QTest::keyClick(e, Qt::Key_Return);  // commits the value
}

}  // namespace

class TestSession : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QFile::remove(MainWindow::autosavePath());
        QFile::remove(MainWindow::autosavePath() + QStringLiteral(".broken"));
    }
    void cleanup() {
        QFile::remove(MainWindow::autosavePath());
        QFile::remove(MainWindow::autosavePath() + QStringLiteral(".broken"));
    }

    void menusAndShortcuts() {
        MainWindow w;
        QCOMPARE(w.action(QStringLiteral("openSession"))->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
        QCOMPARE(w.action(QStringLiteral("saveSession"))->shortcut(), QKeySequence(QKeySequence::Save));
        QCOMPARE(w.action(QStringLiteral("saveSessionAs"))->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
        QCOMPARE(w.action(QStringLiteral("openModel"))->shortcut(), QKeySequence(QKeySequence::Open));
        QVERIFY(w.action(QStringLiteral("saveModel"))->shortcut() != QKeySequence(QKeySequence::Save));
        QVERIFY(w.autosavePath().endsWith(QStringLiteral("/last-session.json")));
    }

    void saveAndReopen_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("view");
        QTest::addColumn<bool>("dragArrow");
        QTest::newRow("four-mode, arrow dragged, estimates") << QString("four-mode") << QString("estimates") << true;
        QTest::newRow("four-mode as is, compare") << QString("four-mode") << QString("compare") << false;
        QTest::newRow("leaky-2d, mean field") << QString("leaky-2d") << QString("meanfield") << false;
        QTest::newRow("bars-and-stripes, filters") << QString("bars-and-stripes") << QString("filters") << false;
    }
    void saveAndReopen() {
        QFETCH(QString, preset);
        QFETCH(QString, view);
        QFETCH(bool, dragArrow);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("s.json"));
        MainWindow a;
        a.setInteractive(false);
        QVERIFY(a.loadPreset(preset));
        typeInto(a, "chains", QStringLiteral("321"));
        typeInto(a, "seed", QStringLiteral("18446744073709551615"));
        typeInto(a, "sweep", QStringLiteral("7, 70"));
        if (preset == QLatin1String("four-mode")) a.panel()->reverseBox()->setChecked(true);
        if (dragArrow) {
            // An arrow tip at a point that needs every digit: W_1 = (point - b) / sigma exactly.
            const QPointF tip(1.2345678901234567, 2.718281828459045);
            Q_EMIT densityViewOf(a)->arrowDragged(0, tip);
            Q_EMIT densityViewOf(a)->arrowDragFinished(0);
            QCOMPARE(a.model().as<rbm::Grbm>()->W(0, 0), tip.x());
        }
        QVERIFY(a.setCurrentView(view));
        QTRY_VERIFY_WITH_TIMEOUT(a.idle(), kIdleMs);
        QCOMPARE(a.settings().chains, rbm::Index{321});
        QVERIFY(a.saveSession(path));
        QCOMPARE(a.sessionPath(), path);
        QVERIFY(a.sessionMessage().isEmpty());
        // An unedited preset is saved by name, an edited model in full.
        QCOMPARE(rbm::load_session(path.toStdString()).preset.empty(), dragArrow);

        MainWindow b;
        b.setInteractive(false);
        QVERIFY(b.loadPreset(QStringLiteral("two-gaussians")));  // something else first
        QVERIFY2(b.openSession(path), qPrintable(b.sessionMessage()));
        QVERIFY(sameModel(b.model(), a.model()));
        if (dragArrow) QVERIFY(sameBits(b.model().as<rbm::Grbm>()->W, a.model().as<rbm::Grbm>()->W));
        QCOMPARE(b.currentView(), view);
        QCOMPARE(b.settings().chains, rbm::Index{321});
        QCOMPARE(b.settings().seed, std::uint64_t{18446744073709551615ull});
        QCOMPARE(b.settings().sweepSteps, (std::vector<rbm::Index>{7, 70}));
        QVERIFY(rbmscope::settingsToMap(b.settings()) == rbmscope::settingsToMap(a.settings()));
        QCOMPARE(b.panel()->field(QStringLiteral("chains"))->text(), QStringLiteral("321"));
        QCOMPARE(b.sessionPath(), path);
        QTRY_VERIFY_WITH_TIMEOUT(b.idle(), kIdleMs);
        QVERIFY(b.panel()->isValid());

        // Save session (Ctrl+S) writes to the same file without asking.
        typeInto(b, "chains", QStringLiteral("77"));
        b.action(QStringLiteral("saveSession"))->trigger();
        QCOMPARE(rbm::load_session(path.toStdString()).settings.at("chains"),
                 rbm::SessionValue::scalar(std::int64_t{77}));
        QTRY_VERIFY_WITH_TIMEOUT(b.idle(), kIdleMs);
    }

    // Every setting of the panel, including reals that need 17 digits, comes back exactly.
    void everySettingSurvivesExactly() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("s.json"));
        MainWindow a;
        a.setInteractive(false);
        QVERIFY(a.loadPreset(QStringLiteral("four-mode")));
        rbmscope::RunSettings s = a.settings();
        s.method = {"geometric", "sigma"};
        s.compare = {{"cov", "moment"}, {"geometric", "moment"}};
        s.schedule.kind = "geometric";
        s.schedule.steps = 77;
        s.schedule.geometric_start = 0.1 + 0.2;
        s.schedule.sigmoid_delta = 1.0 / 3.0;
        s.chains = 999;
        s.seed = 9007199254740993ull;  // 2^53 + 1: not a double
        s.threads = 3;
        s.perfect = true;
        s.reverse = true;
        s.sweepSteps = {5, 50, 500};
        s.autoRun = false;
        a.applySettings(s);
        QVERIFY(a.saveSession(path));
        MainWindow b;
        b.setInteractive(false);
        QVERIFY(b.loadPreset(QStringLiteral("four-mode")));
        QVERIFY2(b.openSession(path), qPrintable(b.sessionMessage()));
        const rbmscope::RunSettings t = b.settings();
        QCOMPARE(t.method, s.method);
        QCOMPARE(t.compare.size(), std::size_t{2});  // (the panel lists them in its catalogue's order)
        QVERIFY(t.compare == a.settings().compare);
        QCOMPARE(t.schedule.kind, s.schedule.kind);
        QCOMPARE(t.schedule.steps, s.schedule.steps);
        QCOMPARE(t.schedule.geometric_start, 0.1 + 0.2);  // QCOMPARE on doubles is fuzzy; check the bits too
        QVERIFY(std::memcmp(&t.schedule.geometric_start, &s.schedule.geometric_start, sizeof(double)) == 0);
        QVERIFY(std::memcmp(&t.schedule.sigmoid_delta, &s.schedule.sigmoid_delta, sizeof(double)) == 0);
        QCOMPARE(t.chains, s.chains);
        QCOMPARE(t.seed, s.seed);
        QCOMPARE(t.threads, s.threads);
        QCOMPARE(t.perfect, true);
        QCOMPARE(t.reverse, true);
        QCOMPARE(t.sweepSteps, s.sweepSteps);
        QCOMPARE(t.autoRun, false);
        QTRY_VERIFY_WITH_TIMEOUT(b.idle(), kIdleMs);
        QTRY_VERIFY_WITH_TIMEOUT(a.idle(), kIdleMs);
    }

    // Display options come back with the session: the log colour scale, the presenter text scale
    // and each view's pace (the Tempering view at 10 scans a second, the others at full speed).
    void displayOptionsSurvive() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("display.json"));
        MainWindow a;
        a.setInteractive(false);
        QVERIFY(a.loadPreset(QStringLiteral("four-mode")));
        a.action(QStringLiteral("logScale"))->trigger();
        QVERIFY(a.action(QStringLiteral("logScale"))->isChecked());
        a.scalePresenter(2.0 / a.presenterScale());
        a.setPace(10, QStringLiteral("tempering"));
        QVERIFY(a.saveSession(path));
        MainWindow b;
        b.setInteractive(false);
        QVERIFY(b.loadPreset(QStringLiteral("four-mode")));
        b.scalePresenter(1.0 / b.presenterScale());
        QVERIFY2(b.openSession(path), qPrintable(b.sessionMessage()));
        QCOMPARE(b.presenterScale(), 2.0);
        QCOMPARE(b.transport(QStringLiteral("tempering"))->pace(), 10.0);
        QCOMPARE(b.transport(QStringLiteral("annealing"))->pace(), 0.0);
        QVERIFY(b.action(QStringLiteral("logScale"))->isChecked());
        QTRY_VERIFY_WITH_TIMEOUT(a.idle(), kIdleMs);
        QTRY_VERIFY_WITH_TIMEOUT(b.idle(), kIdleMs);
    }

    void brokenSession_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        const QByteArray good = QByteArray::fromStdString(rbm::session_to_json_text(validSession()));
        QTest::newRow("empty") << QByteArray() << QString("file is empty");
        QTest::newRow("corrupt") << QByteArray("\x00\xff{garbage", 10) << QString("not valid JSON (line 1, column 1");
        QTest::newRow("truncated") << good.left(good.size() / 2) << QString("not valid JSON (line");
        QTest::newRow("a model file") << QByteArray::fromStdString(rbm::preset_json_text("four-mode"))
                                      << QString("'format' is 'rbmscope-model', expected \"rbmscope-session\"");
        QTest::newRow("bad embedded model")
            << QByteArray(
                   R"({"format":"rbmscope-session","version":1,"model":{"kind":"grbm","W":[[1],[1]],"sigma":[1,0]}})")
            << QString("in 'model': 'sigma' must be > 0");
        QTest::newRow("chains 0")
            << QByteArray(R"({"format":"rbmscope-session","version":1,"model":"four-mode","settings":{"chains":0}})")
            << QString("setting 'chains' must be an integer from 1 to 1000000, got 0");
        QTest::newRow("seed text")
            << QByteArray(R"({"format":"rbmscope-session","version":1,"model":"four-mode","settings":{"seed":"1"}})")
            << QString("setting 'seed' must be an integer from 0 to 18446744073709551615, got \"1\"");
        QTest::newRow("method for another kind")
            << QByteArray(R"({"format":"rbmscope-session","version":1,"model":"leaky-2d","settings":{"path":"cov"}})")
            << QString("settings 'path' and 'base' (cov:moment) do not suit this model");
        QTest::newRow("compare not a list")
            << QByteArray(
                   R"({"format":"rbmscope-session","version":1,"model":"four-mode","settings":{"compare":"cov"}})")
            << QString("setting 'compare' must be an array of \"path:base\" strings, got \"cov\"");
        QTest::newRow("unknown schedule")
            << QByteArray(
                   R"({"format":"rbmscope-session","version":1,"model":"four-mode","settings":{"schedule":"cubic"}})")
            << QString("setting 'schedule' must be one of linear, sigmoid");
        QTest::newRow("presenter scale out of range")
            << QByteArray(
                   R"({"format":"rbmscope-session","version":1,"model":"four-mode","views":{"display":{"presenter_scale":40}}})")
            << QString("'display.presenter_scale' must be a number from 0.5 to 4");
        QTest::newRow("negative pace")
            << QByteArray(
                   R"({"format":"rbmscope-session","version":1,"model":"four-mode","views":{"display":{"pace.tempering":-1}}})")
            << QString("'display.pace.tempering' must be a number of units a second");
        QTest::newRow("unknown view")
            << QByteArray(R"({"format":"rbmscope-session","version":1,"model":"four-mode","view":"3d"})")
            << QString("'view' is '3d', expected one of density, annealing");
    }
    // Opened at start-up (--session FILE): the message names the problem, the default preset
    // opens, the window works, and neither the quit's autosave nor anything else touches the file.
    void brokenSession() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("broken.json"));
        writeBytes(path, bytes);
        MainWindow w;
        w.setInteractive(false);
        QSignalSpy problems(&w, &MainWindow::sessionProblem);
        QVERIFY(!w.startWithSession(path));
        QCOMPARE(problems.count(), 1);
        QVERIFY2(w.sessionMessage().contains(expected), qPrintable(w.sessionMessage()));
        QVERIFY2(w.sessionMessage().contains(path), qPrintable(w.sessionMessage()));
        QVERIFY(w.sessionMessage().contains(QStringLiteral("four-mode preset is open instead")));
        QVERIFY(sameModel(w.model(), rbm::load_preset("four-mode")));
        QVERIFY(w.sessionPath().isEmpty());
        // The problem stays visible in the status bar, whatever the status text says next.
        const auto* label = w.findChild<QLabel*>(QStringLiteral("sessionProblemLabel"));
        QVERIFY(label && label->isVisibleTo(&w) && label->text().contains(QStringLiteral("Cannot open the session")));
        QCOMPARE(label->toolTip(), w.sessionMessage());
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kIdleMs);
        QVERIFY(w.action(QStringLiteral("run"))->isEnabled());
        w.close();  // autosaves elsewhere
        QCOMPARE(bytesOf(path), bytes);
        QVERIFY(QFile::exists(MainWindow::autosavePath()));
    }

    // Opened later: a failed open keeps the user's model (edited) and settings.
    void failedOpenKeepsCurrentWork() {
        QTemporaryDir dir;
        const QString good = dir.filePath(QStringLiteral("good.json"));
        const QString bad = dir.filePath(QStringLiteral("bad.json"));
        writeBytes(bad, R"({"format":"rbmscope-session","version":1,"model":"four-mode","settings":{"steps":-5}})");
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(w.loadPreset(QStringLiteral("four-mode")));
        QVERIFY(w.saveSession(good));
        typeInto(w, "steps", QStringLiteral("42"));
        Q_EMIT densityViewOf(w)->arrowDragged(1, QPointF(0.25, 3.5));
        Q_EMIT densityViewOf(w)->arrowDragFinished(1);
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kIdleMs);
        const rbm::Model before = w.model();
        QVERIFY(!w.openSession(bad));
        QVERIFY2(
            w.sessionMessage().contains(QStringLiteral("setting 'steps' must be an integer from 1 to 1000000, got -5")),
            qPrintable(w.sessionMessage()));
        QVERIFY(sameModel(w.model(), before));
        QCOMPARE(w.model().as<rbm::Grbm>()->W(1, 1), 3.5);
        QCOMPARE(w.settings().schedule.steps, rbm::Index{42});
        QCOMPARE(w.panel()->field(QStringLiteral("steps"))->text(), QStringLiteral("42"));
        QCOMPARE(w.sessionPath(), good);  // Save session still goes to the last good file
        QVERIFY(!w.openSession(dir.filePath(QStringLiteral("missing.json"))));
        QVERIFY(w.sessionMessage().contains(QStringLiteral("missing.json")));
        QVERIFY(sameModel(w.model(), before));
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kIdleMs);
    }

    void restoresTheLastSessionOnStart() {
        {
            MainWindow a;
            a.setInteractive(false);
            QVERIFY(!a.startWithSession(QString()));  // no autosave yet: the default preset, no complaint
            QVERIFY(a.sessionMessage().isEmpty());
            QVERIFY(sameModel(a.model(), rbm::load_preset("four-mode")));
            QVERIFY(a.loadPreset(QStringLiteral("two-gaussians")));
            typeInto(a, "chains", QStringLiteral("555"));
            QVERIFY(a.setCurrentView(QStringLiteral("annealing")));
            QTRY_VERIFY_WITH_TIMEOUT(a.idle(), kIdleMs);
            a.close();  // quitting saves the session
        }
        QVERIFY(QFile::exists(MainWindow::autosavePath()));
        MainWindow b;
        b.setInteractive(false);
        QVERIFY2(b.startWithSession(QString()), qPrintable(b.sessionMessage()));
        QVERIFY(sameModel(b.model(), rbm::load_preset("two-gaussians")));
        QCOMPARE(b.settings().chains, rbm::Index{555});
        QCOMPARE(b.currentView(), QStringLiteral("annealing"));
        QVERIFY(b.sessionPath().isEmpty());  // Save session asks where, it does not write the autosave
        QTRY_VERIFY_WITH_TIMEOUT(b.idle(), kIdleMs);
    }

    void brokenAutosaveIsMovedAsideNotOverwritten() {
        const QByteArray garbage("{\"format\": \"rbmscope-session\", \"version\": 1, \"model\": ");
        writeBytes(MainWindow::autosavePath(), garbage);
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(!w.startWithSession(QString()));
        const QString aside = MainWindow::autosavePath() + QStringLiteral(".broken");
        QVERIFY2(w.sessionMessage().contains(QStringLiteral("not valid JSON")), qPrintable(w.sessionMessage()));
        QVERIFY2(w.sessionMessage().contains(aside), qPrintable(w.sessionMessage()));
        QCOMPARE(bytesOf(aside), garbage);
        QVERIFY(!QFile::exists(MainWindow::autosavePath()));
        QVERIFY(sameModel(w.model(), rbm::load_preset("four-mode")));
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kIdleMs);
        w.close();
        QCOMPARE(bytesOf(aside), garbage);
        QVERIFY(rbm::load_session(MainWindow::autosavePath().toStdString()).preset == "four-mode");
    }

    // A picture for the eye: the window after a broken session, with the File menu open.
    void pictureOfTheFileMenu() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("broken.json"));
        writeBytes(path, R"({"format":"rbmscope-session","version":1,"model":"four-mode","settings":{"chains":0}})");
        MainWindow w;
        w.setInteractive(false);
        w.resize(1280, 800);
        QVERIFY(!w.startWithSession(path));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTRY_VERIFY_WITH_TIMEOUT(w.idle(), kIdleMs);
        QMenu* file = w.menuBar()->actions().front()->menu();
        QVERIFY(file);
        const QPoint at = w.menuBar()->actionGeometry(w.menuBar()->actions().front()).bottomLeft();
        file->popup(w.menuBar()->mapToGlobal(at));
        QVERIFY(QTest::qWaitForWindowExposed(file));
        QImage shot = w.grab().toImage();
        {
            QPainter p(&shot);
            p.drawPixmap(w.mapFromGlobal(file->pos()), file->grab());
        }
        file->hide();
        QVERIFY(shot.save(screenshotDir() + QStringLiteral("/session-file-menu.png")));
    }

private:
    static rbm::Session validSession() {
        rbm::Session s;
        s.model = rbm::load_preset("four-mode");
        s.settings["chains"] = rbm::SessionValue::scalar(std::int64_t{10});
        s.view = "density";
        return s;
    }
};

QTEST_MAIN(TestSession)
#include "tst_session.moc"
