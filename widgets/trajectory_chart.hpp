#pragma once
// Replica trajectories of parallel tempering: one coloured line per replica over the most recent
// scans, the rung (beta index) on the y axis, the newest scan at the right edge. Under the
// deterministic even-odd scheme replicas zig-zag across the whole ladder; under the reversible
// scheme they wander diffusively. Custom-painted (a polyline per replica), so hundreds of lines
// over a few hundred scans redraw quickly.
#include <QWidget>
#include <cstdint>
#include <vector>

namespace rbmscope {

class TrajectoryChart : public QWidget {
    Q_OBJECT
public:
    explicit TrajectoryChart(QWidget* parent = nullptr);

    // replicaAt: scans x rungs (row-major, oldest first) replica id at each rung; firstScan the
    // number of its first row. Replaces what is shown.
    void setIndexProcess(const std::vector<std::uint16_t>& replicaAt, int rungs, long long firstScan);
    // Replica drawn thick on top (the lifted replica); -1: none.
    void setHighlight(int replica);
    void setBetas(const std::vector<double>& betas);  // right-axis labels (optional)
    const std::vector<double>& betas() const { return betas_; }
    void setMessage(const QString& text);  // shown instead of the lines
    void clear();

    int lineCount() const { return rungs_ > 0 && scans_ > 0 ? rungs_ : 0; }
    int rungs() const { return rungs_; }
    int scans() const { return scans_; }
    long long lastScan() const { return scans_ > 0 ? firstScan_ + scans_ - 1 : -1; }
    int highlight() const { return highlight_; }
    // Rung of `replica` in every shown scan.
    std::vector<int> trajectory(int replica) const;

    QSize sizeHint() const override { return {640, 260}; }
    QSize minimumSizeHint() const override { return {240, 120}; }

Q_SIGNALS:
    void updated();  // after new data was handed over

protected:
    void paintEvent(QPaintEvent*) override;

private:
    std::vector<std::uint16_t> data_;
    std::vector<double> betas_;
    int rungs_ = 0, scans_ = 0, highlight_ = -1;
    long long firstScan_ = 0;
    QString message_;
};

// A qualitative colour for replica `i` of `n` (hues spread around the wheel).
QColor replicaColor(int i, int n);

}  // namespace rbmscope
