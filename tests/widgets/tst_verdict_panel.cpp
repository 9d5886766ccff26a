// The Estimates view's verdict on log Z (views/estimates/verdict_panel.hpp): rbmscope-cli logz
// runs on the window's model in another process and its estimates fill the table with the
// numbers the CLI prints for the same model file, bit for bit; the verdict line says exact, or
// trusted / not; Cancel keeps what finished; a new model clears it. Screenshot at 1280x720.
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <cstring>

#include "core/io/model_io.hpp"
#include "core/io/presets.hpp"
#include "jobs/remote_run.hpp"
#include "test_window.hpp"
#include "views/estimates/verdict_panel.hpp"

using namespace rbmscope;

namespace {

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

QJsonObject cliLogz(const QString& model, const QStringList& extra) {
    QProcess p;
    p.start(QStringLiteral(RBMSCOPE_CLI_BINARY), QStringList{QStringLiteral("logz"), model} + extra);
    if (!p.waitForFinished(120000) || p.exitCode() != 0) return {};
    return QJsonDocument::fromJson(p.readAllStandardOutput()).object();
}

}  // namespace

class TestVerdictPanel : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private Q_SLOTS:
    void initTestCase() { qputenv("RBMSCOPE_CLI", RBMSCOPE_CLI_BINARY); }

    void estimatesEqualTheCliForTheSameModel() {
        const rbm::Model m = rbm::load_preset("four-mode");
        VerdictPanel panel([&m] { return m; });
        panel.resize(900, 400);
        panel.show();
        QSignalSpy done(&panel, &VerdictPanel::finished);
        panel.run();
        QVERIFY(panel.running());
        QVERIFY(done.wait(120000));
        const QJsonObject r = panel.lastResult();
        QCOMPARE(r.value(QStringLiteral("complete")).toBool(), true);
        // four-mode: forward moment + reverse, forward sigma, BAR, stepping stone, exact.
        QCOMPARE(panel.table()->rowCount(), 6);
        QVERIFY(panel.verdictLabel()->text().contains(QStringLiteral("exact")));
        const QString path = dir_.filePath(QStringLiteral("four-mode.json"));
        rbm::save_model(m, path.toStdString());
        const QJsonObject direct = cliLogz(
            path, {QStringLiteral("--budget"), QStringLiteral("quick"), QStringLiteral("--seed"), QStringLiteral("1")});
        QVERIFY(!direct.isEmpty());
        const QJsonArray a = r.value(QStringLiteral("estimates")).toArray();
        const QJsonArray b = direct.value(QStringLiteral("estimates")).toArray();
        QCOMPARE(a.size(), b.size());
        for (int i = 0; i < a.size(); ++i) {
            QCOMPARE(a[i].toObject().value(QStringLiteral("method")), b[i].toObject().value(QStringLiteral("method")));
            QVERIFY(sameBits(a[i].toObject().value(QStringLiteral("log_z")).toDouble(),
                             b[i].toObject().value(QStringLiteral("log_z")).toDouble()));
            QCOMPARE(panel.table()->item(i, 0)->text(), a[i].toObject().value(QStringLiteral("method")).toString());
        }
        QVERIFY(
            sameBits(r.value(QStringLiteral("log_z")).toDouble(), direct.value(QStringLiteral("log_z")).toDouble()));
        panel.clear();
        QCOMPARE(panel.table()->rowCount(), 0);
        QVERIFY(panel.verdictLabel()->text().isEmpty());
    }

    void cancelKeepsWhatFinished() {
        const rbm::Model m = rbm::load_preset("bars-and-stripes");
        VerdictPanel panel([&m] { return m; });
        panel.show();
        auto* budget = panel.findChild<QComboBox*>();
        QVERIFY(budget);
        budget->setCurrentIndex(2);  // thorough: long enough to be cancelled
        QSignalSpy done(&panel, &VerdictPanel::finished);
        panel.run();
        QTest::qWait(1500);
        QVERIFY(panel.running());
        panel.cancel();
        QVERIFY(done.wait(60000));
        QVERIFY(!panel.running());
        // Either nothing had finished ("No verdict") or a partial verdict: never a crash, never empty.
        QVERIFY(!panel.verdictLabel()->text().isEmpty());
        QCOMPARE(panel.lastResult().value(QStringLiteral("complete")).toBool(true), false);
    }

    void inTheWindowAt1280x720() {
        auto w = testWindow(1280, 720);
        QVERIFY(w->loadPreset(QStringLiteral("two-gaussians")));
        QVERIFY(w->setCurrentView(QStringLiteral("estimates")));
        auto* panel = w->findChild<VerdictPanel*>(QStringLiteral("verdict"));
        QVERIFY(panel);
        QVERIFY(!panel->isVisible());  // the charts' page is shown until the verdict runs
        QSignalSpy done(panel, &VerdictPanel::finished);
        w->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(w.get()));
        press(*w, Qt::Key_V, Qt::ControlModifier | Qt::ShiftModifier);  // the shortcut, as typed
        QVERIFY(panel->running());
        QVERIFY(done.wait(120000));
        QVERIFY(panel->table()->rowCount() >= 4);
        QVERIFY(panel->table()->isVisible());
        QDir().mkpath(QStringLiteral(RBMSCOPE_TEST_SCREENSHOT_DIR));
        w->grab().save(QStringLiteral(RBMSCOPE_TEST_SCREENSHOT_DIR "/estimates-verdict-1280x720.png"));
        // A new model: the verdict no longer applies.
        QVERIFY(w->loadPreset(QStringLiteral("four-mode")));
        QCOMPARE(panel->table()->rowCount(), 0);
        // Esc, the window's Cancel, stops a verdict that runs (a long one: thorough on bars-and-stripes).
        QVERIFY(w->loadPreset(QStringLiteral("bars-and-stripes")));
        panel->findChild<QComboBox*>()->setCurrentIndex(2);
        press(*w, Qt::Key_V, Qt::ControlModifier | Qt::ShiftModifier);
        QVERIFY(panel->running());
        QTest::qWait(1000);
        QVERIFY(panel->running());
        press(*w, Qt::Key_Escape);
        QVERIFY(done.wait(60000));
        QVERIFY(!panel->running());
        QCOMPARE(panel->lastResult().value(QStringLiteral("complete")).toBool(true), false);
    }
};

QTEST_MAIN(TestVerdictPanel)
#include "tst_verdict_panel.moc"
