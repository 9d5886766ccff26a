#include "main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QFormLayout>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QVBoxLayout>
#include <cmath>
#include <iostream>

#include "colormap.hpp"
#include "rbmscope/exact.hpp"
#include "rbmscope/model_io.hpp"
#include "rbmscope/presets.hpp"

namespace rbmscope {
namespace {

struct DensityResult {
    QImage image;
    QRectF domain;
    double vmax = 1;
    double logZ = 0;
};

// Modes of a 2-D GRBM: b + sigma∘(W h) for the hidden configurations that carry weight.
QVector<QPointF> grbmModes(const rbm::Grbm& g) {
    QVector<QPointF> out;
    const Eigen::Index m = g.n_hidden();
    if (g.n_visible() != 2 || m > 12) return out;
    const rbm::Vec B = g.hidden_marginal_field();
    const rbm::Mat J = g.hidden_marginal_coupling();
    const std::size_t k = g.hidden_values.size();
    std::size_t total = 1;
    for (Eigen::Index j = 0; j < m; ++j) total *= k;
    std::vector<double> logw(total);
    std::vector<rbm::Vec> hs(total);
    double best = -INFINITY;
    for (std::size_t idx = 0; idx < total; ++idx) {
        rbm::Vec h(m);
        std::size_t r = idx;
        for (Eigen::Index j = 0; j < m; ++j) {
            h(j) = g.hidden_values[r % k];
            r /= k;
        }
        logw[idx] = B.dot(h) + 0.5 * h.dot(J * h);
        hs[idx] = h;
        best = std::max(best, logw[idx]);
    }
    for (std::size_t idx = 0; idx < total; ++idx) {
        if (logw[idx] < best - std::log(1000.0)) continue;
        const rbm::Vec v = g.b + g.sigma.cwiseProduct(g.W * hs[idx]);
        out.push_back({v(0), v(1)});
    }
    return out;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), jobs_(new BackgroundJobs(this)) {
    setWindowTitle(QStringLiteral("rbmscope"));
    tabs_ = new QTabWidget(this);
    densityStack_ = new QStackedWidget(tabs_);
    density_ = new HeatmapView(densityStack_);
    densityMessage_ = new QLabel(densityStack_);
    densityMessage_->setAlignment(Qt::AlignCenter);
    densityMessage_->setWordWrap(true);
    densityStack_->addWidget(density_);
    densityStack_->addWidget(densityMessage_);
    tabs_->addTab(densityStack_, tr("Density"));
    setCentralWidget(tabs_);

    statusText_ = new QLabel(this);
    progress_ = new QProgressBar(this);
    progress_->setMaximumWidth(220);
    progress_->setRange(0, 0);
    progress_->setVisible(false);
    cancelButton_ = new QPushButton(tr("Cancel"), this);
    cancelButton_->setVisible(false);
    statusBar()->addWidget(statusText_, 1);
    statusBar()->addPermanentWidget(progress_);
    statusBar()->addPermanentWidget(cancelButton_);
    connect(cancelButton_, &QPushButton::clicked, this, [this] {
        jobs_->cancel(QStringLiteral("density"));
        statusText_->setText(tr("Cancelled."));
    });
    connect(jobs_, &BackgroundJobs::runningChanged, this, [this](const QString&, bool) {
        const bool any = jobs_->isRunning(QStringLiteral("density")) || jobs_->isRunning(QStringLiteral("summary"));
        progress_->setVisible(any);
        cancelButton_->setVisible(any);
    });

    buildMenus();
    buildPanel();
    resize(1100, 720);
}

MainWindow::~MainWindow() = default;

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open model…"), this, &MainWindow::openModelDialog);
    open->setShortcut(QKeySequence::Open);
    QAction* save = file->addAction(tr("&Save model as…"), this, &MainWindow::saveModelDialog);
    save->setShortcut(QKeySequence::Save);
    QMenu* presets = file->addMenu(tr("&Presets"));
    for (const auto& p : rbm::list_presets()) {
        const QString name = QString::fromStdString(p.name);
        presets->addAction(QString::fromStdString(p.title), this, [this, name] { loadPreset(name); });
    }
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setShortcut(QKeySequence::Quit);
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About rbmscope"), this, &MainWindow::about);
}

void MainWindow::buildPanel() {
    auto* dock = new QDockWidget(tr("Model"), this);
    dock->setObjectName(QStringLiteral("modelDock"));
    auto* panel = new QWidget(dock);
    auto* layout = new QVBoxLayout(panel);
    presetBox_ = new QComboBox(panel);
    for (const auto& p : rbm::list_presets())
        presetBox_->addItem(QString::fromStdString(p.title), QString::fromStdString(p.name));
    connect(presetBox_, &QComboBox::activated, this, [this](int i) { loadPreset(presetBox_->itemData(i).toString()); });
    auto* openButton = new QPushButton(tr("Open model file…"), panel);
    connect(openButton, &QPushButton::clicked, this, &MainWindow::openModelDialog);
    summary_ = new QLabel(panel);
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::RichText);
    summary_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    summary_->setMinimumWidth(240);
    layout->addWidget(new QLabel(tr("Preset"), panel));
    layout->addWidget(presetBox_);
    layout->addWidget(openButton);
    layout->addSpacing(8);
    layout->addWidget(summary_, 1);
    dock->setWidget(panel);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
}

bool MainWindow::loadPreset(const QString& name) {
    try {
        setModel(rbm::load_preset(name.toStdString()), QStringLiteral("preset ") + name);
        const int i = presetBox_->findData(name);
        if (i >= 0) presetBox_->setCurrentIndex(i);
        return true;
    } catch (const std::exception& e) {
        showError(tr("Cannot load preset"), QString::fromStdString(e.what()));
        return false;
    }
}

bool MainWindow::loadFile(const QString& path) {
    try {
        setModel(rbm::load_model(path.toStdString()), path);
        return true;
    } catch (const std::exception& e) {
        showError(tr("Cannot open model"), QString::fromStdString(e.what()));
        return false;
    }
}

void MainWindow::setModel(rbm::Model m, const QString& origin) {
    model_ = std::move(m);
    origin_ = origin;
    setWindowTitle(QStringLiteral("rbmscope — %1").arg(QString::fromStdString(model_.name.empty() ? origin.toStdString() : model_.name)));
    refreshSummary();
    recomputeDensity();
    Q_EMIT modelChanged();
}

void MainWindow::refreshSummary() {
    const rbm::Model snapshot = model_;
    const QString base = QStringLiteral("<b>%1</b><br>kind: %2<br>visible units n = %3<br>hidden units m = %4")
                             .arg(QString::fromStdString(snapshot.name).toHtmlEscaped())
                             .arg(QString::fromLatin1(rbm::kind_name(snapshot.kind())))
                             .arg(snapshot.n_visible())
                             .arg(snapshot.n_hidden());
    const QString notes = QString::fromStdString(snapshot.notes).toHtmlEscaped();
    summary_->setText(base + tr("<br>exact log Z: computing…") + QStringLiteral("<p>%1</p>").arg(notes));
    jobs_->submit<QString>(
        QStringLiteral("summary"),
        [snapshot](const BackgroundJobs::CancelFlag&) {
            if (!rbm::has_exact_log_z(snapshot)) {
                const auto size = rbm::enumeration_size(snapshot);
                return QStringLiteral("exact log Z: not available (%1)").arg(QString::fromStdString(size.what));
            }
            return QStringLiteral("exact log Z = %1").arg(rbm::exact_log_z(snapshot), 0, 'f', 6);
        },
        [this, base, notes](QString s) { summary_->setText(base + "<br>" + s + QStringLiteral("<p>%1</p>").arg(notes)); },
        [this, base, notes](QString err) {
            summary_->setText(base + "<br>exact log Z: " + err.toHtmlEscaped() + QStringLiteral("<p>%1</p>").arg(notes));
        });
}

void MainWindow::recomputeDensity() {
    if (model_.n_visible() != 2 || model_.kind() == rbm::ModelKind::Brbm) {
        densityMessage_->setText(tr("The density view shows models with two continuous visible units.\n"
                                    "This %1 model has %2 visible units.")
                                     .arg(QString::fromLatin1(rbm::kind_name(model_.kind())))
                                     .arg(model_.n_visible()));
        densityStack_->setCurrentWidget(densityMessage_);
        jobs_->cancel(QStringLiteral("density"));
        Q_EMIT densityReady();
        return;
    }
    densityStack_->setCurrentWidget(density_);
    const rbm::Model snapshot = model_;
    statusText_->setText(tr("Computing the exact density…"));
    jobClock_.start();
    jobs_->submit<DensityResult>(
        QStringLiteral("density"),
        [snapshot](const BackgroundJobs::CancelFlag& cancel) {
            const rbm::GridSpec spec = rbm::default_view(snapshot, 256, 256);
            const rbm::DensityGrid grid = rbm::density_grid(snapshot, spec, {}, [cancel] { return cancel->load(); });
            std::vector<double> p(grid.log_density.size());
            double vmax = 0;
            for (std::size_t i = 0; i < p.size(); ++i) {
                p[i] = std::exp(grid.log_density[i]);
                vmax = std::max(vmax, p[i]);
            }
            DensityResult r;
            r.image = colorize(p, spec.nx, spec.ny, 0.0, vmax);
            r.domain = QRectF(spec.x0, spec.y0, spec.x1 - spec.x0, spec.y1 - spec.y0);
            r.vmax = vmax;
            r.logZ = grid.log_z;
            return r;
        },
        [this](DensityResult r) {
            density_->setImage(r.image, r.domain, 0.0, r.vmax, tr("density p(v)"));
            density_->setTitle(QString::fromStdString(model_.name));
            density_->clearOverlays();
            if (const auto* g = model_.as<rbm::Grbm>()) {
                density_->setMarkers(grbmModes(*g));
                QVector<QPointF> arrows;
                for (Eigen::Index j = 0; j < g->n_hidden(); ++j)
                    arrows.push_back({g->sigma(0) * g->W(0, j), g->sigma(1) * g->W(1, j)});
                density_->setArrows({g->b(0), g->b(1)}, arrows);
            }
            statusText_->setText(tr("Exact density on a 256×256 grid in %1 ms.").arg(jobClock_.elapsed()));
            Q_EMIT densityReady();
        },
        [this](QString err) {
            densityMessage_->setText(tr("Cannot draw the density: %1").arg(err));
            densityStack_->setCurrentWidget(densityMessage_);
            Q_EMIT densityReady();
        });
}

bool MainWindow::idle() const {
    return !jobs_->isRunning(QStringLiteral("density")) && !jobs_->isRunning(QStringLiteral("summary"));
}

void MainWindow::showError(const QString& title, const QString& message) {
    statusText_->setText(title + ": " + message);
    if (interactive_) QMessageBox::warning(this, title, message);
    else std::cerr << "rbmscope: " << title.toStdString() << ": " << message.toStdString() << std::endl;
}

void MainWindow::openModelDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open model"), QString(),
                                                      tr("Models (*.json *.npz *.npy);;All files (*)"));
    if (!path.isEmpty()) loadFile(path);
}

void MainWindow::saveModelDialog() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save model"), QString(), tr("Model file (*.json);;NumPy (*.npz)"));
    if (path.isEmpty()) return;
    try {
        rbm::save_model(model_, path.toStdString());
        statusText_->setText(tr("Saved %1").arg(path));
    } catch (const std::exception& e) {
        showError(tr("Cannot save model"), QString::fromStdString(e.what()));
    }
}

void MainWindow::about() {
    QMessageBox::about(this, tr("About rbmscope"),
                       tr("<b>rbmscope</b><p>See and measure how samplers and annealers behave on restricted "
                          "Boltzmann machines: exact answers for small models, annealed importance sampling, "
                          "parallel tempering and mean field.</p>"));
}

}  // namespace rbmscope
