#include "filmstrip.hpp"

namespace rbmscope {

Filmstrip::Filmstrip(QWidget* parent) : QWidget(parent), grid_(new QGridLayout(this)) {
    grid_->setContentsMargins(2, 2, 2, 2);
    grid_->setSpacing(3);
}

void Filmstrip::setLayout(const QStringList& rowLabels, const std::vector<double>& betas) {
    for (QWidget* w : owned_) delete w;
    owned_.clear();
    cells_.clear();
    rowLabels_ = rowLabels;
    betas_ = betas;
    for (int r = 0; r < rowLabels.size(); ++r) {
        auto* label = new QLabel(rowLabels[r], this);
        label->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        label->setWordWrap(true);
        label->setMaximumWidth(110);
        QFont f = label->font();
        f.setBold(true);
        label->setFont(f);
        grid_->addWidget(label, r, 0);
        owned_.push_back(label);
        for (std::size_t c = 0; c < betas.size(); ++c) {
            auto* cell = new HeatmapView(this);
            cell->setCompact(true);
            cell->setTitle(QStringLiteral("β = %1").arg(betas[c], 0, 'g', 3));
            cell->setMinimumSize(70, 90);
            grid_->addWidget(cell, r, static_cast<int>(c) + 1);
            cells_.push_back(cell);
            owned_.push_back(cell);
        }
    }
    for (int c = 1; c <= static_cast<int>(betas.size()); ++c) grid_->setColumnStretch(c, 1);
    for (int r = 0; r < rowLabels.size(); ++r) grid_->setRowStretch(r, 1);
}

HeatmapView* Filmstrip::cell(int row, int column) const {
    if (row < 0 || column < 0 || row >= rows() || column >= columns()) return nullptr;
    return cells_[static_cast<std::size_t>(row * columns() + column)];
}

}  // namespace rbmscope
