// Opening model files: the formats the Open model dialog offers, drag and drop onto the window,
// and File -> Open recent (QSettings). Every path ends in MainWindow::loadFile, so a bad file
// gives the same message and keeps the current model whichever way it came; a result JSON of
// rbmscope-cli takes the same ways (loadFile hands it to openResult, main_window/result_files.cpp).
#include <QAction>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMimeData>
#include <QSettings>
#include <QUrl>

#include "main_window/array_import_dialog.hpp"
#include "main_window/main_window.hpp"

namespace rbmscope {

namespace {

const QString kRecentKey = QStringLiteral("recentModels");

// The one local model file a drag carries, or "" (several files, remote URLs, other types).
QString droppedModelFile(const QMimeData* mime) {
    if (!mime || !mime->hasUrls()) return {};
    const QList<QUrl> urls = mime->urls();
    if (urls.size() != 1 || !urls.front().isLocalFile()) return {};
    const QString path = urls.front().toLocalFile();
    return MainWindow::isModelFileName(path) ? path : QString();
}

}  // namespace

QString MainWindow::modelFileFilter() {
    return tr(
        "Models and results (*.json *.npz *.npy *.mat *.h5 *.hdf5);;JSON: models, rbmscope-cli results (*.json);;"
        "NumPy (*.npz *.npy);;MATLAB (*.mat);;HDF5 (*.h5 *.hdf5);;All files (*)");
}

bool MainWindow::isModelFileName(const QString& path) {
    static const QStringList exts = {QStringLiteral("json"), QStringLiteral("npz"), QStringLiteral("npy"),
                                     QStringLiteral("mat"),  QStringLiteral("h5"),  QStringLiteral("hdf5")};
    return exts.contains(QFileInfo(path).suffix().toLower());
}

QString MainWindow::statusMessage() const { return statusText_->text(); }

QStringList MainWindow::recentModels() const { return QSettings().value(kRecentKey).toStringList(); }

void MainWindow::rememberRecent(const QString& path) {
    const QString abs = QFileInfo(path).absoluteFilePath();
    QStringList list = recentModels();
    list.removeAll(abs);
    list.prepend(abs);
    while (list.size() > kMaxRecent) list.removeLast();
    QSettings().setValue(kRecentKey, list);
    rebuildRecentMenu();
}

bool MainWindow::openRecent(const QString& path) {
    if (!QFileInfo::exists(path)) {
        QStringList list = recentModels();
        list.removeAll(path);
        QSettings().setValue(kRecentKey, list);
        rebuildRecentMenu();
        showError(tr("Cannot open model"), tr("%1 no longer exists; removed from Open recent").arg(path));
        return false;
    }
    return loadFile(path);
}

void MainWindow::rebuildRecentMenu() {
    if (!recentMenu_) return;
    recentMenu_->clear();
    const QStringList list = recentModels();
    for (int i = 0; i < list.size(); ++i) {
        const QString path = list[i];
        // &1 ... &8: keyboard mnemonics; the full path in the tooltip and status tip.
        QAction* a = recentMenu_->addAction(QStringLiteral("&%1  %2").arg(i + 1).arg(QFileInfo(path).fileName()), this,
                                            [this, path] { openRecent(path); });
        a->setToolTip(path);
        a->setStatusTip(path);
    }
    if (list.isEmpty()) recentMenu_->addAction(tr("(none yet)"))->setEnabled(false);
    recentMenu_->addSeparator();
    QAction* clear = recentMenu_->addAction(tr("&Clear list"), this, [this] {
        QSettings().remove(kRecentKey);
        rebuildRecentMenu();
    });
    clear->setEnabled(!list.isEmpty());
}

int MainWindow::importWithDialog(const QString& path) {
    std::vector<rbm::ArrayInfo> arrays;
    try {
        arrays = rbm::list_model_arrays(path.toStdString());
    } catch (const std::exception&) {
        return -1;  // not a listable container: the caller reports the original problem
    }
    if (arrays.empty()) return -1;
    ArrayImportDialog dialog(QFileInfo(path).fileName(), arrays, this);
    if (dialog.exec() != QDialog::Accepted) return -1;
    try {
        rbm::ModelLoadOptions options;
        options.names = dialog.names();
        rbm::LoadedModel loaded = rbm::load_model_file(path.toStdString(), options);
        if (const QString problem = displayProblem(loaded.model); !problem.isEmpty())  // as File → Open
            throw rbm::InputError(path.toStdString() + ": " + problem.toStdString());
        setModel(std::move(loaded.model), path, QString());
        rememberRecent(path);
        QStringList notes;
        for (const auto& w : loaded.warnings) notes << QString::fromStdString(w);
        statusText_->setText(
            QFileInfo(path).fileName() + ": " +
            (notes.isEmpty() ? tr("arrays picked in the import dialog") : notes.join(QStringLiteral("; "))));
        return 1;
    } catch (const std::exception& e) {
        showError(tr("Cannot open model"), QString::fromStdString(e.what()));
        return 0;
    }
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (!droppedModelFile(event->mimeData()).isEmpty()) event->acceptProposedAction();
    else event->ignore();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QString path = droppedModelFile(event->mimeData());
    if (path.isEmpty()) {
        event->ignore();
        return;
    }
    event->acceptProposedAction();
    loadFile(path);
}

}  // namespace rbmscope
