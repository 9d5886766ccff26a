#include "main_window/main_window.hpp"

#include <QAbstractAxis>
#include <QAbstractSpinBox>
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QChartView>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QKeyEvent>
#include <QLegend>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>
#include <QVBoxLayout>
#include <algorithm>
#include <functional>
#include <iostream>

#include "core/io/model_io.hpp"
#include "core/io/named_arrays.hpp"
#include "core/io/presets.hpp"
#include "core/io/result_file.hpp"
#include "core/kernels/simd.hpp"
#include "main_window/method_help.hpp"
#include "main_window/presenter_overlay.hpp"
#include "main_window/view_export.hpp"
#include "text_preview.hpp"
#include "views/view_registry.hpp"

namespace rbmscope {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), jobs_(new BackgroundJobs(this)) {
    setWindowTitle(QStringLiteral("rbmscope"));
    editTimer_ = new QTimer(this);
    editTimer_->setSingleShot(true);
    editTimer_->setInterval(33);
    connect(editTimer_, &QTimer::timeout, this, &MainWindow::applyModelEdit);
    editFinalTimer_ = new QTimer(this);
    editFinalTimer_->setSingleShot(true);
    editFinalTimer_->setInterval(300);
    connect(editFinalTimer_, &QTimer::timeout, this, [this] { onModelEdited(*model_.as<rbm::Grbm>(), true); });

    buildPanel();  // before the views: their jobs read the panel
    buildViews();
    buildStatusBar();
    buildMenus();
    setAcceptDrops(true);
    qApp->installEventFilter(this);
    resize(1280, 800);

    connect(jobs_, &BackgroundJobs::runningChanged, this, [this](const QString& channel, bool running) {
        if (running && !resultChannel_.isEmpty() && channel == resultChannel_)
            clearResultBanner();  // a live run replaces it
        updateActions();
    });
}

MainWindow::~MainWindow() {
    QFile::remove(autosavePath() + QStringLiteral(".opening"));  // this start got through (see startWithSession)
    // Workers may still post to the sessions and views: stop them before any of those goes.
    jobs_->cancelAll();
    jobs_->waitForAll();
    // The views (which may cancel their channels as they go) go while jobs_ still exists; jobs_
    // is this window's first child, so QObject would otherwise delete it before them.
    disconnect(jobs_, nullptr, this, nullptr);
    jobs_->blockSignals(true);  // views cancel their channels as they go; nobody must hear it then
    delete takeCentralWidget();
}

ViewContext MainWindow::viewContext() {
    ViewContext c;
    c.owner = this;
    c.parent = tabs_;
    c.jobs = jobs_;
    c.panel = panel_;
    c.model = [this]() -> const rbm::Model& { return model_; };
    c.say = [this](const QString& text) { statusText_->setText(text); };
    c.progressNote = [this](const QString& text) { Q_EMIT pathProgress(text); };
    c.showView = [this](const QString& name) { return setCurrentView(name); };
    c.view = [this](const QString& name) { return view(name); };
    c.changed = [this] { updateActions(); };
    c.statusChanged = [this] { updateStatus(); };
    c.openModel = [this](const rbm::Model& m, const QString& origin) {
        if (const QString problem = displayProblem(m); !problem.isEmpty()) {
            showError(tr("Cannot open the trained model"), problem);
            return false;
        }
        setModel(m, origin, QString());
        return true;
    };
    c.attachTrainingData = [this](const rbm::TrainingData& t) { attachTrainingData(t); };
    c.editModel = [this](const rbm::Grbm& g, bool final) {
        panel_->grbmEditor()->setGrbm(g);
        onModelEdited(g, final);
    };
    c.finishEdit = [this] {
        if (const auto* g = model_.as<rbm::Grbm>()) onModelEdited(*g, true);
    };
    c.resultDropped = [this](const QString& channel) {
        if (resultChannel_ == channel) clearResultBanner();
    };
    return c;
}

void MainWindow::buildViews() {
    tabs_ = new QTabWidget(this);
    views_ = createViews(viewContext());
    for (View* v : views_) {
        // Each view in a scroll area: on a screen smaller than the view's minimum (a 1280 x 720 or
        // 1024 x 768 projector, a large presenter font) it scrolls instead of pushing the window,
        // and with it the status bar and the presenter strip, off the screen.
        auto* page = new QScrollArea;
        page->setObjectName(QStringLiteral("viewPage"));
        page->setWidget(v->widget());
        page->setWidgetResizable(true);
        page->setFrameShape(QFrame::NoFrame);
        // A narrow page shows a view at its minimum width, where a combo box would cut its text
        // ("DEO (non-reve"): each keeps the width of its longest item, and the page scrolls instead.
        for (QComboBox* c : v->widget()->findChildren<QComboBox*>())
            if (c->sizePolicy().horizontalPolicy() == QSizePolicy::Preferred)
                c->setSizePolicy(QSizePolicy::Minimum, c->sizePolicy().verticalPolicy());
        const int i = tabs_->addTab(page, v->title());
        if (!v->toolTip().isEmpty()) tabs_->setTabToolTip(i, v->toolTip());
        connect(v, &View::pictureReady, this, &MainWindow::densityReady);
    }
    // Above the views: where a reopened result came from (main_window/result_files.cpp), shown
    // while its view is the current one.
    auto* centre = new QWidget(this);
    auto* centreLayout = new QVBoxLayout(centre);
    centreLayout->setContentsMargins(0, 0, 0, 0);
    centreLayout->setSpacing(0);
    resultBanner_ = new QLabel(centre);
    resultBanner_->setObjectName(QStringLiteral("resultBanner"));
    resultBanner_->setWordWrap(true);
    resultBanner_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    resultBanner_->setStyleSheet(
        QStringLiteral("QLabel { background: #fff8e1; border-bottom: 1px solid #e0c060; padding: 4px 8px; }"));
    resultBanner_->hide();
    centreLayout->addWidget(resultBanner_);
    centreLayout->addWidget(tabs_, 1);
    setCentralWidget(centre);
    overlay_ = new PresenterOverlay(centre);
    overlay_->hide();
    connect(tabs_, &QTabWidget::currentChanged, this, [this] {
        resultBanner_->setVisible(!presenter_ && !resultView_.isEmpty() && currentView() == resultView_);
    });
    for (View* v : views_) v->widget()->setFocusPolicy(Qt::ClickFocus);
}

void MainWindow::buildPanel() {
    auto* dock = new QDockWidget(tr("Parameters"), this);
    dock->setObjectName(QStringLiteral("parameterDock"));
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                      QDockWidget::DockWidgetClosable);
    panel_ = new ParameterPanel;
    QList<QPair<QString, QString>> presets;
    for (const auto& p : rbm::list_presets())
        presets.append({QString::fromStdString(p.name), QString::fromStdString(p.title)});
    panel_->setPresets(presets);
    auto* scroll = new QScrollArea(dock);
    scroll->setWidget(panel_);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(panel_->sizeHint().width() + 24);
    dock->setWidget(scroll);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
    connect(panel_, &ParameterPanel::presetChosen, this, [this](const QString& name) { loadPreset(name); });
    connect(panel_, &ParameterPanel::openFileRequested, this, &MainWindow::openModelDialog);
    connect(panel_, &ParameterPanel::settingsChanged, this, &MainWindow::onSettingsChanged);
    connect(panel_, &ParameterPanel::validityChanged, this, [this] { updateActions(); });
    connect(panel_->grbmEditor(), &GrbmEditor::edited, this, [this](const rbm::Grbm& g) {
        onModelEdited(g, false);
        editFinalTimer_->start();
    });
}

void MainWindow::buildStatusBar() {
    statusText_ = new QLabel(this);
    elapsedLabel_ = new QLabel(this);
    speedLabel_ = new QLabel(this);
    progress_ = new QProgressBar(this);
    progress_->setMaximumWidth(220);
    progress_->setRange(0, 1000);
    progress_->setTextVisible(true);
    progress_->setFormat(QStringLiteral("%p%"));
    cancelButton_ = new QPushButton(tr("Cancel"), this);
    cancelButton_->setToolTip(tr("Stop the run and keep what it computed (Esc)"));
    sessionLabel_ = new QLabel(this);
    sessionLabel_->setObjectName(QStringLiteral("sessionProblemLabel"));
    sessionLabel_->setStyleSheet(QStringLiteral("color: #c62828;"));
    sessionLabel_->setMaximumWidth(720);
    sessionLabel_->setVisible(false);
    statusBar()->addWidget(statusText_, 1);
    statusBar()->addWidget(sessionLabel_);
    statusBar()->addPermanentWidget(elapsedLabel_);
    statusBar()->addPermanentWidget(speedLabel_);
    statusBar()->addPermanentWidget(progress_);
    statusBar()->addPermanentWidget(cancelButton_);
    for (QWidget* w : {static_cast<QWidget*>(elapsedLabel_), static_cast<QWidget*>(speedLabel_),
                       static_cast<QWidget*>(progress_), static_cast<QWidget*>(cancelButton_)})
        w->setVisible(false);
    connect(cancelButton_, &QPushButton::clicked, this, &MainWindow::stopAll);
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    openModelAction_ = file->addAction(tr("&Open model or result…"), this, &MainWindow::openModelDialog);
    openModelAction_->setShortcut(QKeySequence::Open);
    recentMenu_ = file->addMenu(tr("Open &recent"));
    rebuildRecentMenu();
    saveModelAction_ = file->addAction(tr("Save &model as…"), this, &MainWindow::saveModelDialog);
    saveModelAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_S));
    file->addSeparator();
    openSessionAction_ = file->addAction(tr("Open s&ession…"), this, &MainWindow::openSessionDialog);
    openSessionAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    saveSessionAction_ = file->addAction(tr("&Save session"), this, &MainWindow::saveSessionToCurrent);
    saveSessionAction_->setShortcut(QKeySequence::Save);
    saveSessionAction_->setToolTip(tr("Save the model, the parameters and the view (asks for a file the first time)"));
    saveSessionAsAction_ = file->addAction(tr("Save session &as…"), this, &MainWindow::saveSessionAsDialog);
    saveSessionAsAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    file->addSeparator();
    QMenu* presets = file->addMenu(tr("&Presets"));
    for (const auto& p : rbm::list_presets()) {
        const QString name = QString::fromStdString(p.name);
        presets->addAction(QString::fromStdString(p.title), this, [this, name] { loadPreset(name); });
    }
    file->addSeparator();
    exportImageAction_ =
        file->addAction(tr("Export &image of this view (PNG, SVG)…"), this, &MainWindow::exportImageDialog);
    exportImageAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    exportDataAction_ =
        file->addAction(tr("Export &data of this view (CSV, JSON)…"), this, &MainWindow::exportDataDialog);
    exportDataAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    exportPlaybackAction_ =
        file->addAction(tr("Export &playback frames (PNG)…"), this, &MainWindow::exportPlaybackDialog);
    exportPlaybackAction_->setToolTip(
        tr("The Annealing or Compare view from β = 0 to 1, or the Tempering view's recorded run, as numbered PNG "
           "images, for slides"));
    exportGifAction_ = file->addAction(tr("Export playback as animated &GIF…"), this, &MainWindow::exportGifDialog);
    exportGifAction_->setToolTip(tr("The same frames as one animated GIF that loops, for slides and web pages"));
    exportReportAction_ = file->addAction(tr("Export &report (HTML)…"), this, &MainWindow::exportReportDialog);
    exportReportAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_E));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setShortcut(QKeySequence::Quit);

    // One transport for every view's job (jobs/transport.hpp): the actions act on the current view's.
    QMenu* runMenu = menuBar()->addMenu(tr("&Run"));
    runAction_ =
        runMenu->addAction(style()->standardIcon(QStyle::SP_MediaPlay), tr("&Run"), this, &MainWindow::runCurrent);
    runAction_->setShortcut(QKeySequence(Qt::Key_F5));
    runAction_->setToolTip(tr("Run this view's job from the start (F5)"));
    sweepAction_ = runMenu->addAction(tr("Run &sweep over K"), this, &MainWindow::startSweep);
    sweepAction_->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
    pauseAction_ =
        runMenu->addAction(style()->standardIcon(QStyle::SP_MediaPause), tr("&Pause"), this, &MainWindow::togglePause);
    pauseAction_->setShortcut(QKeySequence(Qt::Key_Space));
    pauseAction_->setCheckable(true);
    pauseAction_->setToolTip(tr("Pause or resume this view's job (Space)"));
    stepAction_ = runMenu->addAction(style()->standardIcon(QStyle::SP_MediaSeekForward), tr("S&tep"), this,
                                     &MainWindow::stepCurrent);
    stepAction_->setShortcuts({QKeySequence(Qt::Key_Right), QKeySequence(Qt::Key_Period)});
    stepAction_->setToolTip(
        tr("Pause and advance one unit: an annealing step, a PT scan, a sampling sweep, a training update (→ or .)"));
    cancelAction_ = runMenu->addAction(style()->standardIcon(QStyle::SP_MediaStop), tr("&Cancel (keep results)"), this,
                                       &MainWindow::cancelCurrent);
    cancelAction_->setShortcut(QKeySequence(Qt::Key_Escape));
    cancelAction_->setToolTip(tr("Stop this view's job and keep what it computed (Esc)"));
    restartAction_ = runMenu->addAction(style()->standardIcon(QStyle::SP_BrowserReload), tr("Res&tart"), this,
                                        &MainWindow::restartCurrent);
    restartAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_F5));
    restartAction_->setToolTip(tr("Start this view's job again from the beginning (Ctrl+F5)"));
    QMenu* speed = runMenu->addMenu(tr("S&peed"));
    auto* speedGroup = new QActionGroup(this);
    speedBox_ = new QComboBox(this);
    speedBox_->setToolTip(tr("At most this many units (steps, scans, sweeps, updates) per second"));
    speedBox_->setFocusPolicy(Qt::NoFocus);
    for (double v : {0.0, 1000.0, 100.0, 30.0, 10.0, 3.0, 1.0}) {
        const QString label = v == 0 ? tr("Full speed") : tr("%1 per second").arg(v);
        QAction* a = speed->addAction(label, this, [this, v] { setPace(v); });
        a->setCheckable(true);
        a->setChecked(v == 0);
        a->setData(v);
        speedGroup->addAction(a);
        speedActions_ << a;
        speedBox_->addItem(label, v);
    }
    connect(speedBox_, &QComboBox::activated, this, [this](int i) { setPace(speedBox_->itemData(i).toDouble()); });
    runMenu->addSeparator();
    remoteRunAction_ = runMenu->addAction(tr("Run with &MPI…"), this, [this] { openRemoteRun(); });
    remoteRunAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M));
    remoteRunAction_->setToolTip(
        tr("Run this view's computation with rbmscope-cli under mpirun (or srun, or as one process) "
           "and open its result here"));
    runMenu->addSeparator();
    resetAction_ = runMenu->addAction(tr("R&eset model and parameters"), this, &MainWindow::reset);
    resetAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));

    transportBar_ = addToolBar(tr("Transport"));
    transportBar_->setObjectName(QStringLiteral("transportBar"));
    transportBar_->setFocusPolicy(Qt::NoFocus);
    transportBar_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    for (QAction* a : {runAction_, pauseAction_, stepAction_, cancelAction_, restartAction_})
        transportBar_->addAction(a);
    transportBar_->addSeparator();
    transportBar_->addWidget(new QLabel(tr(" Speed "), this));
    transportBar_->addWidget(speedBox_);
    transportState_ = new QLabel(this);
    transportState_->setObjectName(QStringLiteral("transportState"));
    transportBar_->addWidget(transportState_);
    connect(tabs_, &QTabWidget::currentChanged, this, [this] {
        updateSpeedControls();
        updateActions();
    });

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (int i = 0; i < tabs_->count(); ++i) {
        QAction* a = view->addAction(tabs_->tabText(i), this, [this, i] { tabs_->setCurrentIndex(i); });
        if (i < 9) a->setShortcut(QKeySequence(Qt::CTRL | (Qt::Key_1 + i)));
    }
    view->addSeparator();
    // Low bumps next to a high one (the four-mode preset's two far modes) vanish on a linear
    // scale; on a log scale every mode within four decades of the peak shows.
    logScaleAction_ = view->addAction(tr("&Logarithmic colour scale"), this, [this](bool on) {
        const ColourScale scale = on ? ColourScale::Log : ColourScale::Linear;
        for (View* v : views_) v->setColourScale(scale);
    });
    logScaleAction_->setCheckable(true);
    logScaleAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    // F9 folds the parameter panel away, for the width a 1024-pixel projector does not have.
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("parameterDock"))) {
        QAction* panel = dock->toggleViewAction();
        panel->setText(tr("P&arameter panel"));
        panel->setObjectName(QStringLiteral("parameterPanel"));
        panel->setShortcut(QKeySequence(Qt::Key_F9));
        view->addAction(panel);
    }
    presenterAction_ = view->addAction(tr("&Presenter mode"), this, [this](bool on) { setPresenter(on); });
    presenterAction_->setCheckable(true);
    presenterAction_->setShortcut(QKeySequence(Qt::Key_F11));
    QAction* larger = view->addAction(tr("&Larger (presenter)"), this, [this] { scalePresenter(1.15); });
    larger->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Equal), QKeySequence(Qt::CTRL | Qt::Key_Plus)});
    QAction* smaller = view->addAction(tr("&Smaller (presenter)"), this, [this] { scalePresenter(1 / 1.15); });
    smaller->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Minus));
    presenterScale_ = std::clamp(QSettings().value(QStringLiteral("presenter/scale"), 1.5).toDouble(), 0.5, 4.0);
    // The overlay's buttons do what the keys do.
    connect(overlay_, &PresenterOverlay::clicked, this, [this](const QString& name) {
        if (QAction* a = action(name); a && a->isEnabled()) a->trigger();
    });

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* method = help->addAction(tr("About this &method"), this, &MainWindow::aboutMethod);
    method->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("About the &estimates"), this, &MainWindow::aboutEstimates);
    help->addAction(tr("&About rbmscope"), this, &MainWindow::about);
    // The keys also work while presenter mode hides the menu bar (a hidden menu's shortcuts
    // would not fire): every action with a key belongs to the window too.
    for (QMenu* m : menuBar()->findChildren<QMenu*>())
        for (QAction* a : m->actions())
            if (!a->shortcuts().isEmpty()) addAction(a);
    updateActions();
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    const auto type = event->type();
    if (type == QEvent::Resize && presenter_ && watched == centralWidget()) placeOverlay();
    if ((type == QEvent::ShortcutOverride || type == QEvent::KeyPress) && watched->isWidgetType()) {
        auto* w = static_cast<QWidget*>(watched);
        auto* k = static_cast<QKeyEvent*>(event);
        if (w->window() == this && k->modifiers() == Qt::NoModifier) {
            // A number field (spin box) never takes Space: unaccepted, the override lets the pause
            // shortcut fire. Free-text fields (file names) keep it.
            const bool numberField =
                qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QAbstractSpinBox*>(w->parentWidget());
            if (k->key() == Qt::Key_Space && numberField) {
                event->ignore();
                return true;
            }
            // Enter ends editing of a field; the focus goes back to the view, so the next Space pauses.
            if (type == QEvent::KeyPress && (k->key() == Qt::Key_Return || k->key() == Qt::Key_Enter) &&
                (qobject_cast<QLineEdit*>(w) || numberField))
                QMetaObject::invokeMethod(
                    this,
                    [this] {
                        if (View* v = activeView()) v->widget()->setFocus(Qt::OtherFocusReason);
                    },
                    Qt::QueuedConnection);
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::setPresenter(bool on) {
    if (on == presenter_) return;
    presenter_ = on;
    if (presenterAction_ && presenterAction_->isChecked() != on) presenterAction_->setChecked(on);
    if (on) {
        // One view at a time: whatever would compete with it goes while presenter mode lasts.
        presenterHidden_.clear();
        QList<QWidget*> others{menuBar(), statusBar(), transportBar_, tabs_->tabBar(), resultBanner_};
        for (QDockWidget* d : findChildren<QDockWidget*>()) others << d;
        for (QToolBar* b : findChildren<QToolBar*>()) others << b;
        for (QWidget* w : others)
            if (w && w->isVisibleTo(this) && !presenterHidden_.contains(w)) {
                presenterHidden_ << w;
                w->hide();
            }
        tabs_->setDocumentMode(true);  // no frame around the view
        normalFont_ = font();
        normalIconSize_ = transportBar_->iconSize();
        showFullScreen();
    } else {
        for (QWidget* w : presenterHidden_) w->show();
        presenterHidden_.clear();
        tabs_->setDocumentMode(false);
        showNormal();
    }
    overlay_->setVisible(on);
    applyPresenterScale();
}

void MainWindow::placeOverlay() {
    auto* centre = centralWidget();
    const int h = presenter_ ? overlay_->barHeight() : 0;
    if (auto* l = centre->layout()) {
        l->setContentsMargins(0, 0, 0, h);
        l->activate();  // the strip's height follows the view's figure lines: lay the view out above it now
    }
    if (!presenter_) return;
    overlay_->setGeometry(0, centre->height() - h, centre->width(), h);
    overlay_->raise();
}

void MainWindow::scalePresenter(double factor) {
    presenterScale_ = std::clamp(presenterScale_ * factor, 0.5, 4.0);
    QSettings().setValue(QStringLiteral("presenter/scale"), presenterScale_);
    applyPresenterScale();
}

namespace {
// Qt Charts draw titles, tick labels and legends in fonts of their own, not the widget's: scaled
// here from the sizes each chart had when first seen (kept as properties of its objects).
void scaleFont(QObject* holder, const char* key, QFont f, double factor, const std::function<void(const QFont&)>& set) {
    if (!holder->property(key).isValid()) holder->setProperty(key, f.pointSizeF());
    const double base = holder->property(key).toDouble();
    if (base <= 0) return;
    f.setPointSizeF(base * factor);
    set(f);
}

void scaleChartFonts(QWidget* root, double factor) {
    for (QChartView* view : root->findChildren<QChartView*>()) {
        QChart* c = view->chart();
        if (!c) continue;
        scaleFont(c, "rbmTitlePt", c->titleFont(), factor, [c](const QFont& f) { c->setTitleFont(f); });
        QLegend* l = c->legend();
        scaleFont(l, "rbmLegendPt", l->font(), factor, [l](const QFont& f) { l->setFont(f); });
        for (QAbstractAxis* a : c->axes()) {
            scaleFont(a, "rbmLabelsPt", a->labelsFont(), factor, [a](const QFont& f) { a->setLabelsFont(f); });
            scaleFont(a, "rbmAxisTitlePt", a->titleFont(), factor, [a](const QFont& f) { a->setTitleFont(f); });
        }
    }
}
}  // namespace

void MainWindow::applyPresenterScale() {
    for (View* v : views_) scaleChartFonts(v->widget(), presenter_ ? presenterScale_ : 1.0);
    if (!presenter_) {
        if (normalIconSize_.isValid()) {
            setFont(normalFont_);
            transportBar_->setIconSize(normalIconSize_);
        }
        if (statusText_->text().startsWith(tr("Presenter mode:"))) statusText_->clear();  // it said how to leave
        placeOverlay();
        return;
    }
    QFont f = normalFont_;
    f.setPointSizeF(normalFont_.pointSizeF() * presenterScale_);
    setFont(f);  // every child widget inherits it (labels, tables, menus, chart titles that use the widget font)
    transportBar_->setIconSize(normalIconSize_ * presenterScale_);
    statusText_->setText(
        tr("Presenter mode: F11 leaves it, Ctrl+= / Ctrl+− scale (now ×%1)").arg(presenterScale_, 0, 'f', 2));
    placeOverlay();
    updateOverlay();
}

QAction* MainWindow::action(const QString& name) const {
    if (name == QLatin1String("run")) return runAction_;
    if (name == QLatin1String("sweep")) return sweepAction_;
    if (name == QLatin1String("pause")) return pauseAction_;
    if (name == QLatin1String("step")) return stepAction_;
    if (name == QLatin1String("restart")) return restartAction_;
    if (name == QLatin1String("presenter")) return presenterAction_;
    if (name == QLatin1String("cancel")) return cancelAction_;
    if (name == QLatin1String("reset")) return resetAction_;
    if (name == QLatin1String("exportImage")) return exportImageAction_;
    if (name == QLatin1String("exportData")) return exportDataAction_;
    if (name == QLatin1String("exportReport")) return exportReportAction_;
    if (name == QLatin1String("remoteRun")) return remoteRunAction_;
    if (name == QLatin1String("exportPlayback")) return exportPlaybackAction_;
    if (name == QLatin1String("exportGif")) return exportGifAction_;
    if (name == QLatin1String("logScale")) return logScaleAction_;
    if (name == QLatin1String("openModel")) return openModelAction_;
    if (name == QLatin1String("saveModel")) return saveModelAction_;
    if (name == QLatin1String("openSession")) return openSessionAction_;
    if (name == QLatin1String("saveSession")) return saveSessionAction_;
    if (name == QLatin1String("saveSessionAs")) return saveSessionAsAction_;
    return nullptr;
}

View* MainWindow::view(const QString& name) const {
    for (View* v : views_)
        if (v->name() == name) return v;
    return nullptr;
}

QWidget* MainWindow::pageOf(const View* v) const {
    QWidget* parent = v->widget()->parentWidget();  // the scroll area's viewport
    return parent ? parent->parentWidget() : nullptr;
}

View* MainWindow::activeView() const {
    for (View* v : views_)
        if (pageOf(v) == tabs_->currentWidget()) return v;
    return nullptr;
}

bool MainWindow::setCurrentView(const QString& name) {
    View* v = view(name);
    if (!v) return false;
    tabs_->setCurrentWidget(pageOf(v));
    return true;
}

QString MainWindow::currentView() const {
    const View* v = activeView();
    return v ? v->name() : QString();
}

QStringList MainWindow::viewNames() const {
    QStringList out;
    for (const View* v : views_) out << v->name();
    return out;
}

bool MainWindow::loadPreset(const QString& name) {
    try {
        setModel(rbm::load_preset(name.toStdString()), QStringLiteral("preset ") + name, name);
        return true;
    } catch (const std::exception& e) {
        showError(tr("Cannot load preset"), QString::fromStdString(e.what()));
        return false;
    }
}

bool MainWindow::loadFile(const QString& path) {
    // A result of rbmscope-cli opens with its model in its view (main_window/result_files.cpp).
    if (QFileInfo(path).suffix().compare(QStringLiteral("json"), Qt::CaseInsensitive) == 0 &&
        QFileInfo(path).isFile() && QFileInfo(path).size() <= static_cast<qint64>(rbm::kMaxResultBytes)) {
        QFile f(path);
        if (f.open(QIODevice::ReadOnly) && rbm::looks_like_result(f.readAll().toStdString())) return openResult(path);
    }
    try {
        rbm::LoadedModel loaded = rbm::load_model_file(path.toStdString(), {});
        // A model no view can show is refused here, with the reason, and the current one stays.
        if (const QString problem = displayProblem(loaded.model); !problem.isEmpty())
            throw rbm::InputError(path.toStdString() + ": " + problem.toStdString());
        setModel(std::move(loaded.model), path, QString());
        rememberRecent(path);
        // What the loader noticed (a transposed W) stays readable in the status bar.
        QStringList notes;
        for (const auto& w : loaded.warnings) notes << QString::fromStdString(w);
        if (!notes.isEmpty())
            statusText_->setText(QFileInfo(path).fileName() + ": " + notes.join(QStringLiteral("; ")));
        return true;
    } catch (const std::exception& e) {
        const QString why = QString::fromStdString(e.what());
        // A .mat/.h5/.npz without the standard names: let the user pick the arrays (the CLI's --map).
        if (interactive_ && why.contains(QStringLiteral("no 'W' "))) {
            if (const int picked = importWithDialog(path); picked >= 0) return picked == 1;
        }
        showError(tr("Cannot open model"), why);
        return false;
    }
}

void MainWindow::showError(const QString& title, const QString& message) {
    statusText_->setText(title + ": " + message);
    if (interactive_) QMessageBox::warning(this, title, message);
    else std::cerr << "rbmscope: " << title.toStdString() << ": " << message.toStdString() << std::endl;
}

void MainWindow::openModelDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open model or result"), QString(), modelFileFilter());
    if (!path.isEmpty()) loadFile(path);
}

void MainWindow::saveModelDialog() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save model"), QString(), modelSaveFilter());
    if (path.isEmpty()) return;
    try {
        rbm::save_model(model_, path.toStdString());
        statusText_->setText(tr("Saved %1").arg(path));
    } catch (const std::exception& e) {
        showError(tr("Cannot save model"), QString::fromStdString(e.what()));
    }
}

QString MainWindow::exportImage(const QString& path, double dpi, QSize size) {
    if (size.isValid() && (size.width() < 100 || size.height() < 100 || size.width() > 10000 || size.height() > 10000))
        return tr("the picture's size must be from 100×100 to 10000×10000 pixels, got %1×%2")
            .arg(size.width())
            .arg(size.height());
    QWidget* target = activeView() ? activeView()->widget() : tabs_->currentWidget();
    // The view laid out at the size asked, for the picture only; its page puts it back.
    const QSize shown = target->size();
    auto* page = activeView() ? qobject_cast<QScrollArea*>(pageOf(activeView())) : nullptr;
    if (size.isValid()) {
        if (page) page->setWidgetResizable(false);  // else the page sizes it back to the window at once
        target->resize(size.expandedTo(target->minimumSizeHint()));
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    }
    const QString err = rbmscope::exportImage(
        target, path,
        QStringLiteral("rbmscope — %1 — %2")
            .arg(tabs_->tabText(tabs_->currentIndex()), textPreview(model_.name, kNamePreviewChars)),
        dpi);
    if (size.isValid()) {
        target->resize(shown);
        if (page) page->setWidgetResizable(true);
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    }
    statusText_->setText(err.isEmpty() ? tr("Wrote %1").arg(path) : err);
    return err;
}

QString MainWindow::exportData(const QString& path) {
    QString csv;
    QJsonObject json;
    View* v = activeView();
    if (const QString err = v ? v->exportData(&csv, &json) : tr("no view is shown"); !err.isEmpty()) {
        statusText_->setText(err);
        return err;
    }
    json[QStringLiteral("model")] = QString::fromStdString(model_.name);
    const QString err = rbmscope::exportData(path, csv, json);
    statusText_->setText(err.isEmpty() ? tr("Wrote %1").arg(path) : err);
    return err;
}

void MainWindow::exportImageDialog() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export image"), QDir(lastExportFolder()).filePath(currentView() + QStringLiteral(".png")),
        tr("PNG image (*.png);;SVG image (*.svg)"));
    if (path.isEmpty()) return;
    rememberExportFolder(path);
    int dpi = 96;
    if (QFileInfo(path).suffix().toLower() == QLatin1String("png")) {
        bool ok = false;
        dpi = QInputDialog::getInt(this, tr("Export image"),
                                   tr("Resolution (dpi; 96 is the screen's pixels, 192 twice as many):"), 96,
                                   static_cast<int>(kMinExportDpi), static_cast<int>(kMaxExportDpi), 24, &ok);
        if (!ok) return;
    }
    // The picture's size: as on screen, or a slide's (e.g. 1920x1080), kept for the next export.
    bool ok = false;
    const QString asked = QInputDialog::getText(
        this, tr("Export image"), tr("Size in pixels at 96 dpi (e.g. 1920x1080; empty: as on screen):"),
        QLineEdit::Normal, QSettings().value(QStringLiteral("export/size")).toString(), &ok);
    if (!ok) return;
    QSize size;
    if (!asked.trimmed().isEmpty()) {
        const QStringList wh = asked.trimmed().split(QLatin1Char('x'));
        bool okW = false, okH = false;
        if (wh.size() == 2) size = QSize(wh[0].toInt(&okW), wh[1].toInt(&okH));
        if (!okW || !okH) {
            showError(tr("Cannot export the image"),
                      tr("the size must be WIDTHxHEIGHT such as 1920x1080, not '%1'").arg(asked));
            return;
        }
    }
    QSettings().setValue(QStringLiteral("export/size"), asked.trimmed());
    if (const QString err = exportImage(path, dpi, size); !err.isEmpty()) showError(tr("Cannot export the image"), err);
}

void MainWindow::exportDataDialog() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export data"), QDir(lastExportFolder()).filePath(currentView() + QStringLiteral(".csv")),
        tr("CSV table (*.csv);;JSON (*.json)"));
    if (path.isEmpty()) return;
    rememberExportFolder(path);
    if (const QString err = exportData(path); !err.isEmpty()) showError(tr("Cannot export the data"), err);
}

void MainWindow::aboutMethod() {
    QString html;
    const auto methods = settings_.methods();
    for (std::size_t i = 0; i < methods.size(); ++i) {
        if (i > 0) html += QStringLiteral("<hr>");
        html += methodHelpHtml(methods[i], model_.kind());
    }
    QMessageBox box(this);
    box.setWindowTitle(tr("About this method"));
    box.setTextFormat(Qt::RichText);
    box.setText(html);
    box.exec();
}

void MainWindow::aboutEstimates() {
    QMessageBox box(this);
    box.setWindowTitle(tr("About the estimates"));
    box.setTextFormat(Qt::RichText);
    box.setText(estimatesHelpHtml());
    box.exec();
}

void MainWindow::about() {
    // The instruction set of the hot kernels (core/kernels/simd.hpp); a bad RBMSCOPE_SIMD is named here.
    QString simd;
    try {
        simd = tr("Kernels: %1 (this processor has %2)")
                   .arg(QString::fromLatin1(rbm::simd_name(rbm::simd_active())),
                        QString::fromStdString(rbm::cpu_features()));
    } catch (const rbm::InputError& e) {
        simd = QString::fromStdString(e.what()).toHtmlEscaped();
    }
    QMessageBox::about(this, tr("About rbmscope"),
                       tr("<b>rbmscope</b><p>See and measure how samplers and annealers behave on restricted "
                          "Boltzmann machines: exact answers for small models, annealed importance sampling, "
                          "parallel tempering and mean field.</p>") +
                           QStringLiteral("<p>") + simd + QStringLiteral("</p>"));
}

}  // namespace rbmscope
