#pragma once
// Curves of several runs on one chart (training monitors: log-likelihood, reconstruction error,
// swap acceptance against the update number). Each curve has a key, a legend name and a colour,
// and optionally a band (e.g. an AIS interval) drawn as a translucent area behind it. Axes follow
// the data of all curves; hovering a point shows the run, x, y and the band in a tooltip.
#include <QChartView>
#include <QColor>
#include <QLineSeries>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <map>
#include <vector>

namespace rbmscope {

class RunCurves : public QChartView {
    Q_OBJECT
public:
    explicit RunCurves(QWidget* parent = nullptr);

    void setTitles(const QString& title, const QString& xTitle, const QString& yTitle);
    // Replaces the points of curve `key` (created on first use). low/high: band per point, or empty.
    void setCurve(int key, const QString& name, const QColor& color, const std::vector<QPointF>& points,
                  const std::vector<double>& low = {}, const std::vector<double>& high = {});
    void removeCurve(int key);
    void clearCurves();
    void setEmptyText(const QString& text);

    int curveCount() const { return static_cast<int>(curves_.size()); }
    QLineSeries* series(int key) const;
    QString curveName(int key) const;
    std::vector<int> keys() const;
    // The tick labels an axis prints now (Qt::Vertical: the y axis).
    QStringList tickLabels(Qt::Orientation o) const;
    // Whether the y axis shows its title (hidden where the plot is shorter than it: fitYTitle).
    bool yTitleShown() const;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fitYTitle();
    struct Curve {
        QLineSeries* line = nullptr;
        QLineSeries* lowLine = nullptr;
        QLineSeries* highLine = nullptr;
        QAbstractSeries* band = nullptr;
        std::vector<double> low, high;
    };
    void rescale();
    void placeEmptyText();
    void hovered(int key, const QPointF& point, bool state);

    std::map<int, Curve> curves_;
    QString emptyText_;
    QGraphicsSimpleTextItem* empty_ = nullptr;
};

}  // namespace rbmscope
