// Opening model files in the app: a .mat dropped on the window opens like File ->
// Open model; a bad file dropped gives the message and keeps the current model; File -> Open
// recent remembers the last files and drops those that are gone; the dialog offers every format.
#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDropEvent>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QPainter>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QUrl>
#include <QtTest>

#include "main_window/array_import_dialog.hpp"
#include "main_window/main_window.hpp"
#include "screenshot_dir.hpp"

using namespace rbmscope;

namespace {

const QString kData = QStringLiteral(RBMSCOPE_TEST_DATA);

// Drags `path` over the window and drops it; returns whether the drag was accepted.
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

}  // namespace

class TestModelFiles : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);  // QSettings and autosave out of the user's files
        QVERIFY(settingsDir_.isValid());
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir_.path());
    }
    void init() { QSettings().remove(QStringLiteral("recentModels")); }

    void droppedMatFileOpens() {
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(w.loadPreset(QStringLiteral("four-mode")));
        QVERIFY(dropFile(w, kData + QStringLiteral("/loaders/brbm-v5.mat")));
        QCOMPARE(w.model().kind(), rbm::ModelKind::Brbm);
        QCOMPARE(w.model().n_visible(), rbm::Index(5));
        QCOMPARE(w.model().n_hidden(), rbm::Index(3));
        // The same numbers as the JSON twin.
        const rbm::Model twin = rbm::load_model((kData + QStringLiteral("/loaders/brbm.json")).toStdString());
        QVERIFY(w.model().as<rbm::Brbm>()->W == twin.as<rbm::Brbm>()->W);
        QVERIFY(w.model().as<rbm::Brbm>()->b == twin.as<rbm::Brbm>()->b);
        // An h5py file too, and the transposed one says so in the status bar.
        QVERIFY(dropFile(w, kData + QStringLiteral("/loaders/grbm.h5")));
        QCOMPARE(w.model().kind(), rbm::ModelKind::Grbm);
        QVERIFY(dropFile(w, kData + QStringLiteral("/loaders/brbm-transposed.h5")));
        QVERIFY2(w.statusMessage().contains(QStringLiteral("transposed")), qPrintable(w.statusMessage()));
    }

    void droppedBadFileKeepsTheModel() {
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(w.loadPreset(QStringLiteral("four-mode")));
        const std::string before = w.model().name;
        QVERIFY(dropFile(w, kData + QStringLiteral("/bad/mat-W-cell.mat")));
        QCOMPARE(w.model().name, before);
        QCOMPARE(w.model().kind(), rbm::ModelKind::Grbm);
        // The message File -> Open model gives for the same file.
        const QString dropped = w.statusMessage();
        QVERIFY(!w.loadFile(kData + QStringLiteral("/bad/mat-W-cell.mat")));
        QCOMPARE(w.statusMessage(), dropped);
        QVERIFY2(dropped.contains(QStringLiteral("'W' (variable 'vishid') must be a numeric array")),
                 qPrintable(dropped));
        // A file libhdf5 crashes on (read in a child process): a message, the model kept.
        for (const char* crash : {"h5-metadata-accumulator-null.h5", "mat-v73-metadata-accumulator-null.mat"}) {
            QVERIFY(dropFile(w, kData + QStringLiteral("/bad/") + QString::fromUtf8(crash)));
            QVERIFY2(w.statusMessage().contains(QStringLiteral("the HDF5 library crashed reading this file (")),
                     qPrintable(w.statusMessage()));
            QCOMPARE(w.model().name, before);
        }
        // Not a model file, or several files: the drag is refused and nothing happens.
        QVERIFY(!dropFile(w, kData + QStringLiteral("/bad/model.txt")));
        QMimeData two;
        two.setUrls({QUrl::fromLocalFile(kData + QStringLiteral("/loaders/brbm.json")),
                     QUrl::fromLocalFile(kData + QStringLiteral("/loaders/grbm.json"))});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &two, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &enter);
        QVERIFY(!enter.isAccepted());
        QCOMPARE(w.model().name, before);
    }

    void openRecentRemembersAndForgets() {
        QTemporaryDir dir;
        QStringList files;
        for (int i = 0; i < MainWindow::kMaxRecent + 2; ++i) {
            const QString p = dir.filePath(QStringLiteral("m%1.json").arg(i));
            QVERIFY(QFile::copy(kData + QStringLiteral("/loaders/brbm.json"), p));
            files << p;
        }
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(w.loadFile(files[0]));
        QVERIFY(w.loadFile(files[1]));
        QCOMPARE(w.recentModels(), (QStringList{files[1], files[0]}));
        QVERIFY(w.loadFile(files[0]));  // to the front, not twice
        QCOMPARE(w.recentModels(), (QStringList{files[0], files[1]}));
        // A failed open is not remembered.
        QVERIFY(!w.loadFile(kData + QStringLiteral("/bad/mat-W-cell.mat")));
        QCOMPARE(w.recentModels().size(), 2);
        for (const QString& f : files) QVERIFY(w.loadFile(f));
        QCOMPARE(w.recentModels().size(), MainWindow::kMaxRecent);
        QCOMPARE(w.recentModels().front(), files.back());
        // The menu lists them (plus the separator and Clear list).
        QCOMPARE(w.recentMenu()->actions().size(), MainWindow::kMaxRecent + 2);
        // A file gone since: removed, with a message, and the model stays.
        const QString gone = w.recentModels()[1];
        QVERIFY(QFile::remove(gone));
        const rbm::Index n = w.model().n_visible();
        QVERIFY(!w.openRecent(gone));
        QVERIFY(!w.recentModels().contains(gone));
        QVERIFY2(w.statusMessage().contains(QStringLiteral("no longer exists; removed from Open recent")),
                 qPrintable(w.statusMessage()));
        QCOMPARE(w.model().n_visible(), n);
        // A second window (the next start) reads the same list.
        MainWindow again;
        QCOMPARE(again.recentModels(), w.recentModels());
        QVERIFY(again.openRecent(again.recentModels().front()));
    }

    void dialogOffersEveryFormat() {
        const QString f = MainWindow::modelFileFilter();
        for (const char* ext : {"*.json", "*.npz", "*.npy", "*.mat", "*.h5", "*.hdf5"})
            QVERIFY2(f.section(QStringLiteral(";;"), 0, 0).contains(QLatin1String(ext)), ext);
    }

    void importDialogPicksArrays() {
        // Hinton's names are recognised and preselected; the map loads the JSON twin's model.
        const std::string mat = (kData + QStringLiteral("/loaders/brbm-v5.mat")).toStdString();
        ArrayImportDialog hinton(QStringLiteral("brbm-v5.mat"), rbm::list_model_arrays(mat));
        const rbm::ArrayNameMap picked = hinton.names();
        QCOMPARE(picked.size(), std::size_t(3));
        QCOMPARE(picked.at("W"), std::string("vishid"));
        QCOMPARE(picked.at("b"), std::string("visbiases"));
        QCOMPARE(picked.at("c"), std::string("hidbiases"));
        rbm::ModelLoadOptions o;
        o.names = picked;
        const rbm::Model twin = rbm::load_model((kData + QStringLiteral("/loaders/brbm.json")).toStdString());
        QVERIFY(rbm::load_model_file(mat, o).model.as<rbm::Brbm>()->W == twin.as<rbm::Brbm>()->W);
        // Other names: W is guessed as the only matrix, the biases by their names and lengths
        // (rbm::guess_array_map, as --map loads them); picking them by hand gives the same.
        const std::vector<rbm::ArrayInfo> other = {{"hbias", {3}, "float64"},
                                                   {"vbias", {5}, "float64"},
                                                   {"weights", {3, 5}, "float64"},
                                                   {"epoch", {}, "int64"}};
        ArrayImportDialog d(QStringLiteral("trained.h5"), other);
        QCOMPARE(d.names().size(), std::size_t(3));
        QCOMPARE(d.names().at("W"), std::string("weights"));
        d.choice(QStringLiteral("b"))->setCurrentIndex(2);
        d.choice(QStringLiteral("c"))->setCurrentIndex(1);
        QCOMPARE(d.names().at("b"), std::string("vbias"));
        QCOMPARE(d.names().at("c"), std::string("hbias"));
        // Without a W the dialog cannot be accepted.
        d.choice(QStringLiteral("W"))->setCurrentIndex(0);
        QVERIFY(!d.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->isEnabled());
        d.choice(QStringLiteral("W"))->setCurrentIndex(3);
        QVERIFY(d.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->isEnabled());
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        QVERIFY(d.grab().save(screenshotDir() + QStringLiteral("/import-dialog.png")));
    }

    // The file: an .h5 with weights (m x n), vbias (n), hbias (m). The dialog guesses b and c
    // by the loader's rules, shows n x m and the transposition before OK, refuses contradicting
    // shapes, and OK gives the JSON twin (before: W as stored, zero biases, n and m swapped).
    void importDialogCannotSilentlyTranspose() {
        const QString h5 = kData + QStringLiteral("/loaders/brbm-mapped.h5");
        const std::vector<rbm::ArrayInfo> arrays = rbm::list_model_arrays(h5.toStdString());
        QCOMPARE(arrays.size(), std::size_t(3));
        ArrayImportDialog d(QStringLiteral("brbm-mapped.h5"), arrays);
        const rbm::ArrayNameMap picked = d.names();
        QCOMPARE(picked.size(), std::size_t(3));
        QCOMPARE(picked.at("W"), std::string("weights"));
        QCOMPARE(picked.at("b"), std::string("vbias"));
        QCOMPARE(picked.at("c"), std::string("hbias"));
        QVERIFY(d.acceptable());
        QVERIFY2(d.summary().contains(QStringLiteral("n = 5 visible × m = 3 hidden")), qPrintable(d.summary()));
        QVERIFY2(d.summary().contains(QStringLiteral("stored hidden x visible")), qPrintable(d.summary()));
        auto* ok = d.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
        QVERIFY(ok->isEnabled());
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        QVERIFY(d.grab().save(screenshotDir() + QStringLiteral("/import-dialog-transposed.png")));
        // The guessed map loads the JSON twin, transposed, with the biases.
        rbm::ModelLoadOptions o;
        o.names = picked;
        const rbm::Model twin = rbm::load_model((kData + QStringLiteral("/loaders/brbm.json")).toStdString());
        const rbm::LoadedModel loaded = rbm::load_model_file(h5.toStdString(), o);
        QVERIFY(loaded.model.as<rbm::Brbm>()->W == twin.as<rbm::Brbm>()->W);
        QVERIFY(loaded.model.as<rbm::Brbm>()->b == twin.as<rbm::Brbm>()->b);
        QVERIFY(loaded.model.as<rbm::Brbm>()->c == twin.as<rbm::Brbm>()->c);
        // b and c both of length 5 (vbias twice) fit no orientation of a 3 x 5 W: refused, OK disabled.
        const auto pick = [](QComboBox* box, const QString& name) {
            for (int i = 0; i < box->count(); ++i)
                if (box->itemData(i).toString() == name) box->setCurrentIndex(i);
        };
        pick(d.choice(QStringLiteral("c")), QStringLiteral("vbias"));
        QVERIFY(!d.acceptable());
        QVERIFY(!ok->isEnabled());
        QVERIFY2(d.summary().contains(QStringLiteral("Cannot import")), qPrintable(d.summary()));
        QVERIFY(d.grab().save(screenshotDir() + QStringLiteral("/import-dialog-refused.png")));
        // Without biases W is taken as stored, and the dialog says what that gives.
        d.choice(QStringLiteral("b"))->setCurrentIndex(0);
        d.choice(QStringLiteral("c"))->setCurrentIndex(0);
        QVERIFY(d.acceptable());
        QVERIFY2(d.summary().contains(QStringLiteral("n = 3 visible × m = 5 hidden")), qPrintable(d.summary()));
        QVERIFY2(d.summary().contains(QStringLiteral("no b chosen")), qPrintable(d.summary()));
        // Through the window: the dialog opens with the guess, OK gives the twin and the status bar
        // says W was transposed.
        MainWindow w;
        bool seen = false;
        QTimer::singleShot(0, &w, [&] {
            auto* dialog = qobject_cast<ArrayImportDialog*>(QApplication::activeModalWidget());
            if (!dialog) return;
            seen = true;
            dialog->accept();
        });
        QVERIFY(w.loadFile(h5));
        QVERIFY(seen);
        QVERIFY(w.model().as<rbm::Brbm>() && w.model().as<rbm::Brbm>()->W == twin.as<rbm::Brbm>()->W);
        QVERIFY(w.model().as<rbm::Brbm>()->c == twin.as<rbm::Brbm>()->c);
        QVERIFY2(w.statusMessage().contains(QStringLiteral("transposed")), qPrintable(w.statusMessage()));
    }

    // An .npz whose arrays lack the standard names opens through the same import
    // dialog as a .mat or .h5 file: its arrays listed with their shapes, W guessed, the biases
    // picked, and the model equals its JSON twin (W stored hidden x visible, transposed).
    void npzWithOtherNamesOpensThroughTheImportDialog() {
        const QString npz = kData + QStringLiteral("/loaders/brbm-mapped.npz");
        std::map<std::string, std::vector<std::int64_t>> shapes;
        for (const rbm::ArrayInfo& a : rbm::list_model_arrays(npz.toStdString())) shapes[a.name] = a.shape;
        QCOMPARE(shapes.size(), std::size_t(3));
        QVERIFY(shapes["weights"] == (std::vector<std::int64_t>{3, 5}));
        QVERIFY(shapes["vbias"] == (std::vector<std::int64_t>{5}));
        QVERIFY(shapes["hbias"] == (std::vector<std::int64_t>{3}));
        MainWindow w;  // interactive: a failed open offers the dialog
        bool seen = false;
        QString guessedW;
        QTimer::singleShot(0, &w, [&] {
            auto* d = qobject_cast<ArrayImportDialog*>(QApplication::activeModalWidget());
            if (!d) return;
            seen = true;
            guessedW = d->choice(QStringLiteral("W"))->currentText();
            const auto pick = [](QComboBox* box, const QString& name) {
                for (int i = 0; i < box->count(); ++i)
                    if (box->itemText(i).startsWith(name + QStringLiteral("  "))) box->setCurrentIndex(i);
            };
            pick(d->choice(QStringLiteral("b")), QStringLiteral("vbias"));
            pick(d->choice(QStringLiteral("c")), QStringLiteral("hbias"));
            d->accept();
        });
        QVERIFY(w.loadFile(npz));
        QVERIFY(seen);
        QVERIFY2(guessedW.startsWith(QStringLiteral("weights")), qPrintable(guessedW));
        const rbm::Model twin = rbm::load_model((kData + QStringLiteral("/loaders/brbm.json")).toStdString());
        QVERIFY(w.model().as<rbm::Brbm>() && w.model().as<rbm::Brbm>()->W == twin.as<rbm::Brbm>()->W);
        QVERIFY(w.model().as<rbm::Brbm>()->b == twin.as<rbm::Brbm>()->b);
    }

    void recentMenuScreenshot() {
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(w.loadFile(kData + QStringLiteral("/loaders/grbm.json")));
        QVERIFY(w.loadFile(kData + QStringLiteral("/loaders/brbm-v73.mat")));
        QVERIFY(w.loadFile(kData + QStringLiteral("/loaders/grbm.h5")));
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QMenu* file = w.menuBar()->actions().front()->menu();
        const QPoint at = w.menuBar()->actionGeometry(w.menuBar()->actions().front()).bottomLeft();
        file->popup(w.menuBar()->mapToGlobal(at));
        QVERIFY(QTest::qWaitForWindowExposed(file));
        const QRect recentRect = file->actionGeometry(w.recentMenu()->menuAction());
        w.recentMenu()->popup(file->mapToGlobal(recentRect.topRight()));
        QVERIFY(QTest::qWaitForWindowExposed(w.recentMenu()));
        QImage shot = w.grab().toImage();
        {
            QPainter p(&shot);
            p.drawPixmap(w.mapFromGlobal(file->pos()), file->grab());
            p.drawPixmap(w.mapFromGlobal(w.recentMenu()->pos()), w.recentMenu()->grab());
        }
        w.recentMenu()->hide();
        file->hide();
        QVERIFY(shot.save(screenshotDir() + QStringLiteral("/open-recent-menu.png")));
    }

private:
    QTemporaryDir settingsDir_;
};

QTEST_MAIN(TestModelFiles)
#include "tst_model_files.moc"
