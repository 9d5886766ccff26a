// Hostile result files opened by the app (each written by this test from a real CLI result):
// megabytes of path_name, notes and command_line and 100 000 warnings open with bounded previews;
// a sweep of 2 000 methods and a path longer than any file's are refused with a message; the
// model file a result names is checked against the memory budget before it is hashed (an 8 GB
// sparse file took 17-45 s to hash before).
#include <sys/stat.h>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_process.hpp"
#include "main_window/main_window.hpp"

using namespace rbmscope;

namespace {

bool writeJson(const QString& path, const QJsonObject& o) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(QJsonDocument(o).toJson(QJsonDocument::Compact)) > 0;
}

}  // namespace

class TestHostileResults : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(settingsDir_.isValid());
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir_.path());
        QVERIFY(dir_.isValid());
        const QString d = dir_.path();
        QCOMPARE(cli(d, {QStringLiteral("convert"), QStringLiteral("four-mode"), QStringLiteral("m.json")},
                     QStringLiteral("convert.json")),
                 QString());
        QCOMPARE(cli(d, QStringLiteral("ais m.json --steps 50 --chains 50").split(' '), QStringLiteral("ais.json")),
                 QString());
        QCOMPARE(cli(d, QStringLiteral("ais-sweep m.json --steps 10 --chains 20 --repeats 1").split(' '),
                     QStringLiteral("sweep.json")),
                 QString());
    }

    void longStringsAndManyWarningsOpenAsBoundedPreviews() {
        QJsonObject j = readJson(dir_.filePath(QStringLiteral("ais.json")));
        QVERIFY(!j.isEmpty());
        j[QStringLiteral("path_name")] = QString(60000, QLatin1Char('p'));
        j[QStringLiteral("notes")] = QString(60000, QLatin1Char('n'));
        j[QStringLiteral("command_line")] = QStringLiteral("rbmscope-cli ais ") + QString(900000, QLatin1Char('c'));
        QJsonArray warnings;
        for (int i = 0; i < 100000; ++i) warnings.append(QStringLiteral("warning %1").arg(i));
        j[QStringLiteral("warnings")] = warnings;
        const QString file = dir_.filePath(QStringLiteral("long-strings.json"));
        QVERIFY(writeJson(file, j));
        MainWindow w;
        w.setInteractive(false);
        w.setAutosave(false);
        w.resize(1280, 800);
        w.show();
        QElapsedTimer t;
        t.start();
        QVERIFY2(w.loadFile(file), qPrintable(w.statusMessage()));
        (void)w.grab();  // lays out every label the result filled
        // Before: 26 s for a 60 KB path_name, no window within 40 s for 900 KB of command_line.
        QVERIFY2(t.elapsed() < 10000, qPrintable(QString::number(t.elapsed())));
        const QString banner = w.resultBanner();
        QVERIFY2(banner.size() < 30000, qPrintable(QString::number(banner.size())));
        QVERIFY(banner.contains(QStringLiteral("more bytes)")));
        QVERIFY(banner.contains(QStringLiteral("warning 99<br>")));  // the first 100 warnings, one a line
        QVERIFY(!banner.contains(QStringLiteral("warning 100<br>")));
        QVERIFY(banner.contains(QStringLiteral("and 99900 more warnings, not shown")));
    }

    void aSweepOfTwoThousandMethodsIsRefused() {
        QJsonObject j = readJson(dir_.filePath(QStringLiteral("sweep.json")));
        const QJsonObject row = j[QStringLiteral("results")].toArray().first().toObject();
        QJsonArray rows;
        for (int i = 0; i < 2000; ++i) {
            QJsonObject r = row;
            r[QStringLiteral("method")] = QStringLiteral("geometric:moment-%1").arg(i);
            rows.append(r);
        }
        j[QStringLiteral("results")] = rows;
        const QString file = dir_.filePath(QStringLiteral("many-methods.json"));
        QVERIFY(writeJson(file, j));
        MainWindow w;
        w.setInteractive(false);
        w.setAutosave(false);
        QVERIFY(!w.loadFile(file));
        QVERIFY2(w.statusMessage().contains(QStringLiteral("results[64].method: the sweep holds more than 64 methods")),
                 qPrintable(w.statusMessage()));
    }

    void aModelPathLongerThanAnyFileIsRefused() {
        QJsonObject j = readJson(dir_.filePath(QStringLiteral("ais.json")));
        QJsonObject mf = j[QStringLiteral("model_file")].toObject();
        mf[QStringLiteral("path")] = QString(60000, QLatin1Char('m'));
        j[QStringLiteral("model_file")] = mf;
        const QString file = dir_.filePath(QStringLiteral("long-path.json"));
        QVERIFY(writeJson(file, j));
        MainWindow w;
        w.setInteractive(false);
        w.setAutosave(false);
        QVERIFY(!w.loadFile(file));
        QVERIFY2(w.statusMessage().contains(
                     QStringLiteral("model_file.path is a path of 60000 bytes; a file path holds at most 4096")),
                 qPrintable(w.statusMessage()));
        QVERIFY(w.statusMessage().size() < 2000);
    }

    void aHugeModelFileIsRefusedBeforeItIsHashed() {
        const QString big = dir_.filePath(QStringLiteral("big.json"));
        {
            QFile f(big);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QVERIFY(f.resize(qint64(8) << 30));  // sparse: no disk used
        }
        QJsonObject j = readJson(dir_.filePath(QStringLiteral("ais.json")));
        QJsonObject mf = j[QStringLiteral("model_file")].toObject();
        mf[QStringLiteral("path")] = QStringLiteral("big.json");
        j[QStringLiteral("model_file")] = mf;
        const QString file = dir_.filePath(QStringLiteral("huge-model.json"));
        QVERIFY(writeJson(file, j));
        MainWindow w;
        w.setInteractive(false);
        w.setAutosave(false);
        QElapsedTimer t;
        t.start();
        QVERIFY(!w.loadFile(file));
        QVERIFY2(t.elapsed() < 5000, qPrintable(QString::number(t.elapsed())));
        QVERIFY2(w.statusMessage().contains(QStringLiteral("more than the memory budget")),
                 qPrintable(w.statusMessage()));
        QFile::remove(big);
    }

    // The same for 8 GB sparse .mat and .h5 model files, opened directly and named by a result: a
    // v5 .mat is refused by its size (it took 10 minutes and 15 GB), an .h5 by libhdf5's header search.
    void hugeSparseMatAndH5ModelsAreRefusedAtOnce() {
        for (const QString& name : {QStringLiteral("big.mat"), QStringLiteral("big.h5")}) {
            const QString big = dir_.filePath(name);
            {
                QFile f(big);
                QVERIFY(f.open(QIODevice::WriteOnly));
                QVERIFY(f.resize(qint64(8) << 30));  // sparse: no disk used
            }
            const QString needle = name.endsWith(QLatin1String(".mat")) ? QStringLiteral("twice the memory budget")
                                                                        : QStringLiteral("not an HDF5 file");
            MainWindow w;
            w.setInteractive(false);
            w.setAutosave(false);
            QElapsedTimer t;
            t.start();
            QVERIFY(!w.loadFile(big));
            QVERIFY2(t.elapsed() < 5000, qPrintable(QString::number(t.elapsed())));
            QVERIFY2(w.statusMessage().contains(needle), qPrintable(w.statusMessage()));

            QJsonObject j = readJson(dir_.filePath(QStringLiteral("ais.json")));
            QJsonObject mf = j[QStringLiteral("model_file")].toObject();
            mf[QStringLiteral("path")] = name;
            j[QStringLiteral("model_file")] = mf;
            const QString file = dir_.filePath(QStringLiteral("huge-model-") + name + QStringLiteral(".json"));
            QVERIFY(writeJson(file, j));
            t.restart();
            (void)w.loadFile(file);  // the result may open with the current model; it must not read the file
            QVERIFY2(t.elapsed() < 5000, qPrintable(QString::number(t.elapsed())));
            QFile::remove(big);
        }
    }

    void anEmptyTrainingLogIsRefusedAsALog() {
        const QString file = dir_.filePath(QStringLiteral("empty-log.json"));
        {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly) && f.write("[]\n") == 3);
        }
        MainWindow w;
        w.setInteractive(false);
        w.setAutosave(false);
        QVERIFY(!w.loadFile(file));
        QVERIFY2(w.statusMessage().contains(QStringLiteral("an empty training log ([]): it holds no records to show")),
                 qPrintable(w.statusMessage()));
    }

    void aFifoAsTheModelFileIsNamedNotNotFound() {
        const QString fifo = dir_.filePath(QStringLiteral("pipe.json"));
        QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
        QJsonObject j = readJson(dir_.filePath(QStringLiteral("ais.json")));
        QJsonObject mf = j[QStringLiteral("model_file")].toObject();
        mf[QStringLiteral("path")] = QStringLiteral("pipe.json");
        j[QStringLiteral("model_file")] = mf;
        const QString file = dir_.filePath(QStringLiteral("fifo-model.json"));
        QVERIFY(writeJson(file, j));
        MainWindow w;
        w.setInteractive(false);
        w.setAutosave(false);
        QVERIFY(!w.loadFile(file));  // returns at once: a FIFO is never opened
        QVERIFY2(
            w.statusMessage().contains(QStringLiteral("pipe.json is a FIFO (named pipe), not a regular file: refused")),
            qPrintable(w.statusMessage()));
        QVERIFY(!w.statusMessage().contains(QStringLiteral("not found")));
    }

private:
    QTemporaryDir settingsDir_, dir_;
};

QTEST_MAIN(TestHostileResults)
#include "tst_hostile_results.moc"
