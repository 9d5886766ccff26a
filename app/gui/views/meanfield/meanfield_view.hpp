#pragma once
// The mean-field panel (docs/methods/mean-field.md; Takahashi & Yasuda 2016, plus TAP). For a 2-D GRBM: the exact
// density with each method's Gaussian picture of p(v) on top — type I's q(v) = N(m, diag σ²) as
// one 2σ ellipse, type II's v-marginal (a mixture over the factorized q(h) of N(b + σ∘Wh, diag σ²))
// as its components' 2σ ellipses with opacity by weight plus its covariance ellipse, TAP's
// covariance ellipse and component means, and the exact covariance ellipse — next to a table of
// the three free energies, the exact -log Z, iterations and convergence, and a convergence plot:
// the residual max_j |f(μ)_j − μ_j| of each method's reported restart after every sweep (log
// axes; MeanFieldOptions::record_trace). Below, for any size: the
// random-model sweep of the paper's §4.2 (free energy against the coupling scale), run in the
// background scale by scale with progress; small by default so it finishes in seconds.
// Channels: "meanfield" (the model's panel) and "meanfield.sweep".
#include <QChartView>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPixmap>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTableWidget>
#include <QWidget>
#include <array>
#include <optional>
#include <vector>

#include "core/meanfield/meanfield.hpp"
#include "ellipse_heatmap.hpp"
#include "jobs/background_jobs.hpp"
#include "session_fields.hpp"

namespace rbmscope {

class MeanFieldView : public QWidget {
    Q_OBJECT
public:
    explicit MeanFieldView(QWidget* parent = nullptr, BackgroundJobs* jobs = nullptr);
    ~MeanFieldView() override;

    void setModel(const rbm::Model& model);  // cancels, clears; run() computes
    void run();                              // the model's three methods (+ the sweep when not 2-D)
    void runSweep();
    void cancel();
    bool running() const;
    QPixmap grabForScreenshot();
    // A result computed elsewhere (a reopened `meanfield` result, one method): its row of the
    // table (free energy, error against `exactF` = -log Z when known, iterations, convergence,
    // fixed points, MSE of the mean of v) and its residual trace; the other methods' rows say
    // they are not in the result, the density picture waits for Run. `source` goes to the
    // status line. method: 0 type I, 1 type II, 2 TAP.
    void showResult(int method, const rbm::MeanFieldResult& r, std::optional<double> exactF, const QString& source);
    QString statusText() const;

    // Free energies shown: type I, type II, TAP, exact -log Z (NaN when absent).
    std::array<double, 4> freeEnergies() const { return shownF_; }
    // The options the shown free energies were computed with (the controls may have moved since);
    // none when nothing was computed here (a reopened result: its own command line says how).
    const std::optional<rbm::MeanFieldOptions>& shownOptions() const { return shownOptions_; }
    EllipseHeatmap* heatmap() const { return heat_; }
    QTableWidget* table() const { return table_; }
    QTableWidget* sweepTable() const { return sweepTable_; }
    QChartView* sweepChartView() const { return sweepChart_; }
    // Residual against sweep: one series per method (type I, type II, TAP), one point per sweep of
    // the reported restart; residuals below kTraceFloor are drawn at it (the axis is logarithmic).
    QChartView* convergenceChartView() const { return traceChart_; }
    static constexpr double kTraceFloor = 1e-17;
    rbm::MeanFieldOptions runOptions() const;  // from the controls, with record_trace (type: set per method)
    QString message() const;                   // the text shown instead of the panel ("" when the panel is shown)
    QString channel() const { return QStringLiteral("meanfield"); }
    QString sweepChannel() const { return QStringLiteral("meanfield.sweep"); }
    rbm::MeanFieldSweepOptions sweepOptions() const;  // from the sweep controls (InputError)
    void setSweepTrials(int trials);
    // Sessions: restarts, update (sequential | parallel), damping, and the coupling sweep's
    // sweep_visible, sweep_hidden, sweep_trials, sweep_scales (as typed).
    std::vector<SessionField> sessionFields() const {
        return {{"restarts", restarts_},        {"update", update_, {"sequential", "parallel"}},
                {"damping", damping_},          {"sweep_visible", sweepVisible_},
                {"sweep_hidden", sweepHidden_}, {"sweep_trials", sweepTrials_},
                {"sweep_scales", sweepScales_}};
    }

Q_SIGNALS:
    void resultsShown();
    void sweepRowShown(int rows);
    void sweepFinished();

private:
    struct Bundle {
        rbm::MeanFieldOptions options;                // what the results were computed with
        std::array<rbm::MeanFieldResult, 3> results;  // I, II, TAP
        std::optional<double> exactF;                 // -log Z
        std::optional<rbm::Moments> exactMoments;     // 2-D only
        QImage image;
        QRectF domain;
        double vmax = 1;
        QString note;
    };
    void buildSweep(QWidget* box);
    void showBundle(const Bundle& b);
    void addSweepRow(const rbm::MeanFieldSweepRow& row);
    void showMessage(const QString& text);
    void showTraces(const Bundle& b);
    void clearTraces();

    BackgroundJobs* jobs_;
    rbm::Model model_;
    bool hasModel_ = false;
    std::array<double, 4> shownF_{};
    std::optional<rbm::MeanFieldOptions> shownOptions_;
    // Row i of the table: free energy, gap to -log Z, iterations, convergence, fixed points, MSE.
    void showMethodRow(int i, const rbm::MeanFieldResult& r, double exactF);
    std::vector<rbm::MeanFieldSweepRow> sweepRows_;

    QSpinBox* restarts_ = nullptr;
    QComboBox* update_ = nullptr;
    QDoubleSpinBox* damping_ = nullptr;
    QPushButton* runButton_ = nullptr;
    QLabel* status_ = nullptr;
    QStackedWidget* stack_ = nullptr;
    QLabel* message_ = nullptr;
    EllipseHeatmap* heat_ = nullptr;
    QTableWidget* table_ = nullptr;
    QLabel* note_ = nullptr;
    QChartView* traceChart_ = nullptr;
    QLogValueAxis* traceX_ = nullptr;
    QLogValueAxis* traceY_ = nullptr;
    std::array<QLineSeries*, 3> traceSeries_{};

    QSpinBox* sweepVisible_ = nullptr;
    QSpinBox* sweepHidden_ = nullptr;
    QSpinBox* sweepTrials_ = nullptr;
    QLineEdit* sweepScales_ = nullptr;
    QPushButton* sweepButton_ = nullptr;
    QProgressBar* sweepProgress_ = nullptr;
    QTableWidget* sweepTable_ = nullptr;
    QChartView* sweepChart_ = nullptr;
    std::array<QLineSeries*, 4> sweepSeries_{};
};

}  // namespace rbmscope
