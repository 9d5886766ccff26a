#pragma once
// A QChartView that draws vertical error bars on top of scatter/line series (Qt Charts has no
// error bars). Intervals are in data units, one per point of the series; a missing lower end
// (NaN, e.g. a -3 sigma bound that does not exist) is drawn as a dashed bar to the plot's bottom.
#include <QChartView>
#include <QPointer>
#include <QXYSeries>
#include <vector>

namespace rbmscope {

struct ErrorInterval {
    double low = 0, high = 0;  // low may be NaN: no lower end
};

class ErrorBarChartView : public QChartView {
    Q_OBJECT
public:
    explicit ErrorBarChartView(QChart* chart, QWidget* parent = nullptr);

    // Replaces the bars of `series` (matched to its points by index).
    void setErrorBars(QXYSeries* series, std::vector<ErrorInterval> bars);
    void clearErrorBars();
    std::size_t barCount() const;

protected:
    void drawForeground(QPainter* painter, const QRectF& rect) override;

private:
    struct Bars {
        QPointer<QXYSeries> series;
        std::vector<ErrorInterval> bars;
    };
    std::vector<Bars> bars_;
};

}  // namespace rbmscope
