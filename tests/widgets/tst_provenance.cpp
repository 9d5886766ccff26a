// Provenance in the app: a session and a report record the build (version, commit, SIMD path,
// threads, ranks); reopening a result or a session that another build or SIMD path produced says so
// in the status bar (and the result's banner) instead of promising the same bits; a file from
// before the record opens as before.
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_process.hpp"
#include "core/kernels/build_info.hpp"
#include "main_window/main_window.hpp"

using namespace rbmscope;

namespace {

void writeJson(const QString& path, const QJsonObject& o) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(QJsonDocument(o).toJson());
}

// A SIMD path other than the one this build selects now.
QString otherSimd() {
    return rbm::build_json().at("simd") == "sse2" ? QStringLiteral("avx512") : QStringLiteral("sse2");
}

}  // namespace

class TestProvenance : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void resultFromAnotherPathSaysSo() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString d = dir.path();
        QCOMPARE(cli(d, QStringLiteral("convert four-mode m.json").split(' '), QStringLiteral("c.json")), QString());
        QCOMPARE(cli(d, QStringLiteral("ais m.json --steps 50 --chains 20 --seed 3 --threads 1").split(' '),
                     QStringLiteral("ais.json")),
                 QString());
        QJsonObject res = readJson(dir.filePath(QStringLiteral("ais.json")));
        const QJsonObject build = res[QStringLiteral("build")].toObject();
        QCOMPARE(build[QStringLiteral("threads")].toInt(), 1);
        QCOMPARE(build[QStringLiteral("ranks")].toInt(), 1);
        const auto here = rbm::build_json();
        QCOMPARE(build[QStringLiteral("simd")].toString(), QString::fromStdString(here.at("simd").get<std::string>()));
        MainWindow w;
        w.setInteractive(false);
        w.setAutosave(false);
        // This build's own result: no notice.
        QVERIFY(w.loadFile(dir.filePath(QStringLiteral("ais.json"))));
        QVERIFY2(!w.statusMessage().contains(QStringLiteral("produced by")), qPrintable(w.statusMessage()));
        // Another SIMD path: said in the status bar.
        QJsonObject other = build;
        other[QStringLiteral("simd")] = otherSimd();
        res[QStringLiteral("build")] = other;
        writeJson(dir.filePath(QStringLiteral("other.json")), res);
        QVERIFY(w.loadFile(dir.filePath(QStringLiteral("other.json"))));
        QVERIFY2(w.statusMessage().contains(QStringLiteral("on the %1 SIMD path").arg(otherSimd())),
                 qPrintable(w.statusMessage()));
        QVERIFY2(w.statusMessage().contains(QStringLiteral("need not repeat it bit for bit")),
                 qPrintable(w.statusMessage()));
        // Another commit on the same path.
        other = build;
        other[QStringLiteral("commit")] = QStringLiteral("0123456789ab");
        res[QStringLiteral("build")] = other;
        writeJson(dir.filePath(QStringLiteral("commit.json")), res);
        QVERIFY(w.loadFile(dir.filePath(QStringLiteral("commit.json"))));
        QVERIFY2(w.statusMessage().contains(QStringLiteral("commit 0123456789ab")), qPrintable(w.statusMessage()));
        // A result from before the record (no "build"), or with a damaged one, opens without a notice.
        res.remove(QStringLiteral("build"));
        writeJson(dir.filePath(QStringLiteral("old.json")), res);
        QVERIFY(w.loadFile(dir.filePath(QStringLiteral("old.json"))));
        QVERIFY2(!w.statusMessage().contains(QStringLiteral("produced by")), qPrintable(w.statusMessage()));
        res[QStringLiteral("build")] = QStringLiteral("not an object");
        writeJson(dir.filePath(QStringLiteral("odd.json")), res);
        QVERIFY(w.loadFile(dir.filePath(QStringLiteral("odd.json"))));
        QVERIFY2(!w.statusMessage().contains(QStringLiteral("produced by")), qPrintable(w.statusMessage()));
    }

    void sessionRecordsTheBuildAndSaysWhenAnotherMadeIt() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("s.json"));
        MainWindow a;
        a.setInteractive(false);
        a.setAutosave(false);
        QVERIFY(a.loadPreset(QStringLiteral("four-mode")));
        QVERIFY(a.saveSession(path));
        QJsonObject s = readJson(path);
        const QJsonObject build = s[QStringLiteral("build")].toObject();
        for (const char* key : {"version", "commit", "compiler", "simd"})
            QVERIFY2(!build[QLatin1String(key)].toString().isEmpty(), key);
        QVERIFY(build[QStringLiteral("threads")].toInt() >= 1);
        QCOMPARE(build[QStringLiteral("ranks")].toInt(), 1);
        MainWindow b;
        b.setInteractive(false);
        b.setAutosave(false);
        QVERIFY2(b.openSession(path), qPrintable(b.sessionMessage()));
        QVERIFY2(!b.statusMessage().contains(QStringLiteral("produced by")), qPrintable(b.statusMessage()));
        QJsonObject other = build;
        other[QStringLiteral("simd")] = otherSimd();
        s[QStringLiteral("build")] = other;
        writeJson(path, s);
        QVERIFY2(b.openSession(path), qPrintable(b.sessionMessage()));
        QVERIFY2(b.statusMessage().contains(QStringLiteral("on the %1 SIMD path").arg(otherSimd())),
                 qPrintable(b.statusMessage()));
        s.remove(QStringLiteral("build"));  // a session from before the record
        writeJson(path, s);
        QVERIFY2(b.openSession(path), qPrintable(b.sessionMessage()));
        QVERIFY2(!b.statusMessage().contains(QStringLiteral("produced by")), qPrintable(b.statusMessage()));
    }

    void reportNamesTheBuild() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        MainWindow w;
        w.setInteractive(false);
        w.setAutosave(false);
        QVERIFY(w.loadPreset(QStringLiteral("four-mode")));
        const QString path = dir.filePath(QStringLiteral("r.html"));
        QCOMPARE(w.exportReport(path), QString());
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString html = QString::fromUtf8(f.readAll());
        const auto b = rbm::build_json();
        QVERIFY2(html.contains(QStringLiteral("id=\"build\"")), "no build line");
        const QString commit = QString::fromStdString(b.at("commit").get<std::string>());
        const QString simd = QString::fromStdString(b.at("simd").get<std::string>());
        QVERIFY(html.contains(QStringLiteral("commit %1").arg(commit)));
        QVERIFY(html.contains(QStringLiteral("SIMD path %1").arg(simd)));
        QVERIFY(html.contains(QStringLiteral(" threads, 1 rank.")));
    }
};

QTEST_MAIN(TestProvenance)
#include "tst_provenance.moc"
