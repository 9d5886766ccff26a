#include "views/filters/filters_view.hpp"

#include <QHBoxLayout>
#include <QVBoxLayout>
#include <algorithm>
#include <numeric>

#include "views/export_hidden.hpp"

namespace rbmscope {

rbm::Mat weightsOf(const rbm::Model& model) {
    if (const auto* g = model.as<rbm::Grbm>()) return g->W;
    if (const auto* b = model.as<rbm::Brbm>()) return b->W;
    if (const auto* l = model.as<rbm::Leaky>()) return l->W;
    return {};
}

FiltersView::FiltersView(QWidget* parent, bool compact) : QWidget(parent) {
    auto* root = new QVBoxLayout(this);
    root->setContentsMargins(4, 4, 4, 4);
    auto* strip = new QHBoxLayout;
    scale_ = new QComboBox(this);
    scale_->addItem(tr("shared scale"));
    scale_->addItem(tr("per-filter scale"));
    scale_->setToolTip(
        tr("Shared: one colour scale for all filters (compare strengths); per filter: each "
           "filter uses its own largest |weight| (see every pattern)"));
    count_ = new QSpinBox(this);
    count_->setRange(1, 4096);
    count_->setValue(compact ? 64 : 400);
    count_->setToolTip(tr("Show this many filters (largest norm first)"));
    rowsSpin_ = new QSpinBox(this);
    colsSpin_ = new QSpinBox(this);
    for (QSpinBox* s : {rowsSpin_, colsSpin_}) {
        s->setRange(0, 4096);
        s->setSpecialValueText(tr("auto"));
        s->setToolTip(tr("Image shape (rows × columns); auto: square, or the data set's shape"));
    }
    info_ = new QLabel(this);
    info_->setWordWrap(true);
    info_->setMinimumWidth(120);
    strip->addWidget(scale_);
    if (!compact) {
        strip->addWidget(new QLabel(tr("Show"), this));
        strip->addWidget(count_);
        strip->addWidget(new QLabel(tr("Shape"), this));
        strip->addWidget(rowsSpin_);
        strip->addWidget(new QLabel(QStringLiteral("×"), this));
        strip->addWidget(colsSpin_);
    } else {
        count_->hide();
        rowsSpin_->hide();
        colsSpin_->hide();
    }
    strip->addWidget(info_, 1);
    root->addWidget(controlsRow(strip, this));
    grid_ = new SampleGrid(this);
    grid_->setMode(SampleGrid::Mode::Diverging);
    root->addWidget(grid_, 1);
    connect(scale_, &QComboBox::currentIndexChanged, this,
            [this] { grid_->setPerTileScale(scale_->currentIndex() == 1); });
    for (QSpinBox* s : {count_, rowsSpin_, colsSpin_}) connect(s, &QSpinBox::valueChanged, this, [this] { refresh(); });
    grid_->setMessage(tr("Open or train an image-shaped RBM to see its filters."));
}

void FiltersView::setModel(const rbm::Model& model) {
    model_ = model;
    hasModel_ = true;
    refresh();
}

void FiltersView::setImageShape(int rows, int cols) {
    shapeRows_ = rows;
    shapeCols_ = cols;
    refresh();
}

void FiltersView::setSharedScale(bool shared) { scale_->setCurrentIndex(shared ? 0 : 1); }

void FiltersView::refresh() {
    if (!hasModel_) return;
    const rbm::Mat W = weightsOf(model_);
    order_.clear();
    norms_.clear();
    if (W.size() == 0) {
        grid_->clear();
        grid_->setMessage(tr("A %1 model has no hidden units, so no filters.")
                              .arg(QString::fromLatin1(rbm::kind_name(model_.kind()))));
        info_->clear();
        return;
    }
    int rows = rowsSpin_->value(), cols = colsSpin_->value();
    if (rows == 0 || cols == 0) {
        rows = shapeRows_;
        cols = shapeCols_;
    }
    if (rows == 0 || cols == 0 || static_cast<rbm::Index>(rows) * cols != W.rows()) {
        const QSize s = squareShape(W.rows());
        rows = s.height();
        cols = s.width();
    }
    if (rows == 0 || W.rows() < 4) {
        grid_->clear();
        grid_->setMessage(tr("Filters are drawn as images; this model has n = %1 visible units, which is not a square "
                             "image. Set the image shape above (rows × columns = n).")
                              .arg(W.rows()));
        info_->clear();
        return;
    }
    const int m = static_cast<int>(W.cols());
    std::vector<double> norm(static_cast<std::size_t>(m));
    for (int j = 0; j < m; ++j) norm[static_cast<std::size_t>(j)] = W.col(j).norm();
    order_.resize(static_cast<std::size_t>(m));
    std::iota(order_.begin(), order_.end(), 0);
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) {
        return norm[static_cast<std::size_t>(a)] > norm[static_cast<std::size_t>(b)];
    });
    const int shown = std::min(m, count_->value());
    rbm::RowMat F(shown, W.rows());
    QStringList captions;
    for (int i = 0; i < shown; ++i) {
        const int j = order_[static_cast<std::size_t>(i)];
        F.row(i) = W.col(j).transpose();
        norms_.push_back(norm[static_cast<std::size_t>(j)]);
        captions << QStringLiteral("h%1 %2").arg(j).arg(norm[static_cast<std::size_t>(j)], 0, 'f', 2);
    }
    grid_->setSamples(F, rows, cols);
    grid_->setCaptions(shown <= 100 ? captions : QStringList());
    info_->setText(tr("%1 of %2 units by |W·j|; max |w| = %3; blue < 0 < red")
                       .arg(shown)
                       .arg(m)
                       .arg(W.cwiseAbs().maxCoeff(), 0, 'g', 3));
}

}  // namespace rbmscope
