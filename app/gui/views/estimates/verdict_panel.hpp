#pragma once
// The Estimates view's verdict on log Z: `rbmscope-cli logz` on the current model in another
// process (jobs/remote_run.hpp: progress lines, Cancel = Ctrl-C, the partial result kept), then its
// estimates side by side -- forward AIS from each base, reverse AIS, tempering BAR and stepping
// stone, exact when known -- with the verdict and its warnings (docs/methods/log-z-verdict.md).
// The model is written to a temporary JSON file first, so what runs is what the window shows.
#include <QComboBox>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QWidget>
#include <functional>
#include <memory>

#include "core/models/models.hpp"

namespace rbmscope {

class RemoteRun;

class VerdictPanel : public QWidget {
    Q_OBJECT
public:
    VerdictPanel(std::function<rbm::Model()> currentModel, QWidget* parent = nullptr);
    ~VerdictPanel() override;

    void run();     // starts logz on the current model (a run going is cancelled first)
    void cancel();  // Ctrl-C to the CLI: the estimates finished so far are shown
    bool running() const;
    void clear();  // the model changed: the last verdict no longer applies

    // For tests.
    QPushButton* runButton() const { return runButton_; }
    QTableWidget* table() const { return table_; }
    QLabel* verdictLabel() const { return verdict_; }
    QLabel* warningsLabel() const { return warnings_; }
    QJsonObject lastResult() const { return result_; }

Q_SIGNALS:
    void started();
    void finished();

private:
    void showResult(const QJsonObject& r, bool complete);
    void setStatus(const QString& s);

    std::function<rbm::Model()> currentModel_;
    std::unique_ptr<QTemporaryDir> dir_;
    RemoteRun* run_ = nullptr;
    QJsonObject result_;
    QComboBox* budget_ = nullptr;
    QPushButton* runButton_ = nullptr;
    QPushButton* cancelButton_ = nullptr;
    QLabel* status_ = nullptr;
    QLabel* verdict_ = nullptr;
    QLabel* warnings_ = nullptr;
    QTableWidget* table_ = nullptr;
};

}  // namespace rbmscope
