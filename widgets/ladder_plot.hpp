#pragma once
// The tempering ladder on a beta axis [0, 1]: one tick per rung, a bar over every pair's interval
// whose height is the pair's swap acceptance 1 - r_k, and the local barrier lambda(beta) as a
// curve (its own scale on the right). When editable, rungs 1 .. N-1 can be dragged between their
// neighbours; letting go emits the edited ladder.
#include <QWidget>
#include <vector>

namespace rbmscope {

class LadderPlot : public QWidget {
    Q_OBJECT
public:
    explicit LadderPlot(QWidget* parent = nullptr);

    void setLadder(const std::vector<double>& betas);           // clears acceptance and barrier
    void setAcceptance(const std::vector<double>& acceptance);  // one per pair
    // Local barrier lambda(beta) sampled at the given betas (same length).
    void setBarrierCurve(const std::vector<double>& betas, const std::vector<double>& lambda);
    void setEditable(bool on);
    bool editable() const { return editable_; }

    const std::vector<double>& ladder() const { return betas_; }
    const std::vector<double>& acceptance() const { return acceptance_; }
    int barCount() const { return static_cast<int>(acceptance_.size()); }
    QRect plotRect() const;
    double xOf(double beta) const;

    QSize sizeHint() const override { return {640, 180}; }
    QSize minimumSizeHint() const override { return {240, 120}; }

Q_SIGNALS:
    void ladderEdited(const std::vector<double>& betas);

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;

private:
    double betaAt(double x) const;

    std::vector<double> betas_, acceptance_, curveBeta_, curveLambda_;
    bool editable_ = false;
    int dragging_ = -1;
};

}  // namespace rbmscope
