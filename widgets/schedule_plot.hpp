#pragma once
// A small plot of beta against step k for an annealing schedule (or the reason there is none).
#include <QString>
#include <QWidget>
#include <vector>

namespace rbmscope {

class SchedulePlot : public QWidget {
    Q_OBJECT
public:
    explicit SchedulePlot(QWidget* parent = nullptr);
    void setSchedule(const std::vector<double>& betas);
    void setMessage(const QString& message);  // shown instead of a curve
    const std::vector<double>& schedule() const { return betas_; }
    QSize sizeHint() const override { return {260, 120}; }
    QSize minimumSizeHint() const override { return {160, 90}; }

protected:
    void paintEvent(QPaintEvent*) override;

private:
    std::vector<double> betas_;
    QString message_;
};

}  // namespace rbmscope
