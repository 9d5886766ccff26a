#pragma once
// Direct editing of a 2-D Gaussian RBM: visible biases b, standard deviations sigma, and each
// hidden unit's weight vector W_j and bias c_j. The weight vectors can also be dragged as arrows
// on a heatmap; setGrbm() keeps these fields in step without echoing a change back.
#include <QDoubleSpinBox>
#include <QGroupBox>
#include <vector>

#include "core/models/models.hpp"

namespace rbmscope {

class GrbmEditor : public QGroupBox {
    Q_OBJECT
public:
    explicit GrbmEditor(QWidget* parent = nullptr);

    // Shows the fields for this model (2 visible units; hidden units up to kMaxHidden).
    void setGrbm(const rbm::Grbm& g);
    const rbm::Grbm& grbm() const { return g_; }
    static bool editable(const rbm::Model& m);
    static constexpr int kMaxHidden = 8;

    QDoubleSpinBox* weightBox(int visible, int hidden) const;
    QDoubleSpinBox* biasBox(int visible) const { return b_[static_cast<std::size_t>(visible)]; }
    QDoubleSpinBox* sigmaBox(int visible) const { return s_[static_cast<std::size_t>(visible)]; }

Q_SIGNALS:
    // The user changed a value (each step of a spin box counts).
    void edited(const rbm::Grbm& g);

private:
    void rebuild();
    void readBack();
    QDoubleSpinBox* makeBox(double lo, double hi, double step);

    rbm::Grbm g_;
    bool updating_ = false;
    std::vector<QDoubleSpinBox*> b_, s_, c_, w_;  // w_[2*j + i]
};

}  // namespace rbmscope
