#pragma once
// The filters view: each hidden unit's weights W[:, j] drawn as an image (the visible layer's
// shape), sorted by norm |W[:, j]| (largest first), on a diverging blue-white-red map around 0
// with one shared scale (compare units) or one per filter (see each unit's pattern). A GRBM's
// weights are drawn as they are (they act on v / sigma). Models that are not image-shaped, or
// have no hidden units, show why instead.
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QSpinBox>
#include <QWidget>
#include <vector>

#include "core/models/models.hpp"
#include "sample_grid.hpp"
#include "session_fields.hpp"

namespace rbmscope {

class FiltersView : public QWidget {
    Q_OBJECT
public:
    explicit FiltersView(QWidget* parent = nullptr, bool compact = false);

    void setModel(const rbm::Model& model);
    // Image shape used when the model's n is not a square (e.g. from the data set); 0: infer.
    void setImageShape(int rows, int cols);
    void setSharedScale(bool shared);
    // Sessions: scale (shared | per-filter), count, rows, cols (0 = from the model or data).
    std::vector<SessionField> sessionFields() const {
        return {
            {"scale", scale_, {"shared", "per-filter"}}, {"count", count_}, {"rows", rowsSpin_}, {"cols", colsSpin_}};
    }

    SampleGrid* grid() const { return grid_; }
    // Hidden units in the order shown (largest norm first) and their norms.
    const std::vector<int>& order() const { return order_; }
    const std::vector<double>& norms() const { return norms_; }
    QString message() const { return grid_->message(); }

private:
    void refresh();

    rbm::Model model_;
    bool hasModel_ = false;
    int shapeRows_ = 0, shapeCols_ = 0;
    std::vector<int> order_;
    std::vector<double> norms_;
    QComboBox* scale_ = nullptr;
    QSpinBox* count_ = nullptr;
    QSpinBox* rowsSpin_ = nullptr;
    QSpinBox* colsSpin_ = nullptr;
    QLabel* info_ = nullptr;
    SampleGrid* grid_ = nullptr;
};

// The weight matrix W (n x m) of an RBM kind; empty for a gaussian model.
rbm::Mat weightsOf(const rbm::Model& model);

}  // namespace rbmscope
