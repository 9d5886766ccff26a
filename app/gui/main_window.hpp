#pragma once
// The rbmscope main window: model panel (left dock), views in the centre, status bar with
// progress and cancel. Every computation runs through BackgroundJobs (oneTBB workers).
#include <QElapsedTimer>
#include <QLabel>
#include <QMainWindow>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QStackedWidget>
#include <QTabWidget>
#include <QComboBox>
#include <optional>

#include "background_jobs.hpp"
#include "heatmap_view.hpp"
#include "rbmscope/models.hpp"

namespace rbmscope {

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Load a preset or file; on failure show the reason and keep the current model.
    bool loadPreset(const QString& name);
    bool loadFile(const QString& path);
    const rbm::Model& model() const { return model_; }
    HeatmapView* densityView() const { return density_; }
    BackgroundJobs* jobs() const { return jobs_; }
    // True once the views show results for the current model (used by --screenshot and tests).
    bool idle() const;
    // When false, errors go to the status bar and stderr instead of a modal box (screenshots, tests).
    void setInteractive(bool on) { interactive_ = on; }

Q_SIGNALS:
    void modelChanged();
    void densityReady();

private:
    void buildMenus();
    void buildPanel();
    void setModel(rbm::Model m, const QString& origin);
    void refreshSummary();
    void recomputeDensity();
    void showError(const QString& title, const QString& message);
    void openModelDialog();
    void saveModelDialog();
    void about();

    rbm::Model model_;
    QString origin_;
    bool interactive_ = true;
    BackgroundJobs* jobs_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    QStackedWidget* densityStack_ = nullptr;
    HeatmapView* density_ = nullptr;
    QLabel* densityMessage_ = nullptr;
    QComboBox* presetBox_ = nullptr;
    QLabel* summary_ = nullptr;
    QLabel* statusText_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QPushButton* cancelButton_ = nullptr;
    QElapsedTimer jobClock_;
};

}  // namespace rbmscope
