#pragma once
// The estimates view: log Zhat against K for every method of a sweep, with error bars (bootstrap
// 95% or +-3 sigma) and the exact value as a line when known; ESS (or ESS/N) against K; the
// running estimate log Zhat_beta along beta and the log-weight histogram of the current run;
// and a summary of that run (forward/reverse sandwich when reverse AIS is on). Points appear as
// each run of a sweep finishes; series are replaced whole (QXYSeries::replace), animations off.
#include <QChart>
#include <QComboBox>
#include <QJsonObject>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPushButton>
#include <QScatterSeries>
#include <QValueAxis>
#include <QWidget>
#include <optional>

#include "error_bar_chart.hpp"
#include "session_fields.hpp"
#include "views/annealing/ais_job.hpp"
#include "views/estimates/sweep_job.hpp"

class QAreaSeries;
class QTabWidget;

namespace rbmscope {

class VerdictPanel;

class EstimatesView : public QWidget {
    Q_OBJECT
public:
    explicit EstimatesView(QWidget* parent = nullptr);

    void setExactLogZ(std::optional<double> logZ);
    void setSweep(const SweepJob* sweep);  // call again whenever it progresses
    void setRun(const AisJob* run);        // idem
    void setChains(rbm::Index n) { chains_ = n; }
    // The verdict on log Z as a second page beside the charts, shown when it runs; Ctrl+Shift+V runs it.
    void addVerdictPage(VerdictPanel* panel);
    QTabWidget* pages() const { return pages_; }

    enum class Bars { Bootstrap95, ThreeSigma };
    void setBars(Bars b);
    void setEssFraction(bool on);
    // Sessions: bars (bootstrap95 | three-sigma), ess (ess | fraction).
    std::vector<SessionField> sessionFields() const {
        return {{"bars", barsBox_, {"bootstrap95", "three-sigma"}}, {"ess", essBox_, {"ess", "fraction"}}};
    }

    // For tests and export.
    ErrorBarChartView* logZChart() const { return logZView_; }
    QChart* essChart() const { return essChart_; }
    int plottedPoints() const;  // sweep points on the log Z chart
    QLabel* summaryLabel() const { return summary_; }
    QPushButton* sweepButton() const { return sweepButton_; }

    QString exportCsv() const;
    QJsonObject exportJson() const;

Q_SIGNALS:
    void sweepRequested();

protected:
    void showEvent(QShowEvent* e) override;

private:
    struct LaneSeries {
        QLineSeries* line = nullptr;
        QScatterSeries* points = nullptr;
        QLineSeries* revLine = nullptr;
        QScatterSeries* revPoints = nullptr;
        QLineSeries* ess = nullptr;
        QScatterSeries* essPoints = nullptr;
    };
    void ensureSweepLanes(const QStringList& labels);
    void ensureRunLanes(const QStringList& labels);
    void refreshSweep();
    void refreshRun();
    void refreshHistogram();
    static QColor laneColor(int i);

    const SweepJob* sweep_ = nullptr;
    const AisJob* run_ = nullptr;
    std::optional<double> exact_;
    rbm::Index chains_ = 1000;
    Bars bars_ = Bars::Bootstrap95;
    bool essFraction_ = false;
    bool staleSweep_ = false, staleRun_ = false;
    QStringList sweepLabels_, runLabels_;
    std::vector<LaneSeries> series_;
    std::vector<QLineSeries*> runSeries_;

    QChart* logZChart_ = nullptr;
    ErrorBarChartView* logZView_ = nullptr;
    QLogValueAxis* logZX_ = nullptr;
    QValueAxis* logZY_ = nullptr;
    QLineSeries* exactLine_ = nullptr;
    QChart* essChart_ = nullptr;
    QLogValueAxis* essX_ = nullptr;
    QValueAxis* essY_ = nullptr;
    QChart* runChart_ = nullptr;
    QValueAxis* runX_ = nullptr;
    QValueAxis* runY_ = nullptr;
    QLineSeries* runExact_ = nullptr;
    QChart* histChart_ = nullptr;
    QValueAxis* histX_ = nullptr;
    QValueAxis* histY_ = nullptr;
    QLineSeries* histUpper_ = nullptr;
    QLineSeries* histLower_ = nullptr;
    QAreaSeries* histArea_ = nullptr;

    QComboBox* barsBox_ = nullptr;
    QComboBox* essBox_ = nullptr;
    QComboBox* histLane_ = nullptr;
    QPushButton* sweepButton_ = nullptr;
    QLabel* sweepStatus_ = nullptr;
    QLabel* summary_ = nullptr;
    QTabWidget* pages_ = nullptr;
};

}  // namespace rbmscope
