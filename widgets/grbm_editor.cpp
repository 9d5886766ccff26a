#include "grbm_editor.hpp"

#include <QGridLayout>
#include <QLabel>
#include <QSignalBlocker>

namespace rbmscope {

GrbmEditor::GrbmEditor(QWidget* parent) : QGroupBox(tr("Edit the model"), parent) {
    setToolTip(tr("Change biases, σ and weights; or drag the arrows of the hidden units on the Target density view."));
}

bool GrbmEditor::editable(const rbm::Model& m) {
    const auto* g = m.as<rbm::Grbm>();
    return g && g->n_visible() == 2 && g->n_hidden() >= 1 && g->n_hidden() <= kMaxHidden;
}

QDoubleSpinBox* GrbmEditor::makeBox(double lo, double hi, double step) {
    auto* box = new QDoubleSpinBox(this);
    box->setRange(lo, hi);
    box->setSingleStep(step);
    box->setDecimals(3);
    box->setKeyboardTracking(false);  // typing "1.25" is one change, not four
    box->setMinimumWidth(64);
    connect(box, &QDoubleSpinBox::valueChanged, this, [this] {
        if (!updating_) readBack();
    });
    return box;
}

QDoubleSpinBox* GrbmEditor::weightBox(int visible, int hidden) const {
    const std::size_t k = static_cast<std::size_t>(2 * hidden + visible);
    return k < w_.size() ? w_[k] : nullptr;
}

void GrbmEditor::setGrbm(const rbm::Grbm& g) {
    const bool sameShape = g.n_hidden() == g_.n_hidden() && !w_.empty();
    g_ = g;
    if (!sameShape) rebuild();
    updating_ = true;
    for (int i = 0; i < 2; ++i) {
        b_[static_cast<std::size_t>(i)]->setValue(g.b(i));
        s_[static_cast<std::size_t>(i)]->setValue(g.sigma(i));
    }
    for (Eigen::Index j = 0; j < g.n_hidden(); ++j) {
        c_[static_cast<std::size_t>(j)]->setValue(g.c(j));
        for (int i = 0; i < 2; ++i) weightBox(i, static_cast<int>(j))->setValue(g.W(i, j));
    }
    updating_ = false;
}

void GrbmEditor::rebuild() {
    for (QObject* child : children())
        if (child->isWidgetType()) delete child;
    delete layout();
    b_.clear();
    s_.clear();
    c_.clear();
    w_.clear();
    auto* grid = new QGridLayout(this);
    grid->setHorizontalSpacing(4);
    grid->setVerticalSpacing(3);
    grid->addWidget(new QLabel(QStringLiteral("v₁"), this), 0, 1, Qt::AlignHCenter);
    grid->addWidget(new QLabel(QStringLiteral("v₂"), this), 0, 2, Qt::AlignHCenter);
    grid->addWidget(new QLabel(tr("bias c"), this), 0, 3, Qt::AlignHCenter);
    grid->addWidget(new QLabel(tr("bias b"), this), 1, 0);
    grid->addWidget(new QLabel(QStringLiteral("σ"), this), 2, 0);
    for (int i = 0; i < 2; ++i) {
        b_.push_back(makeBox(-50, 50, 0.1));
        s_.push_back(makeBox(0.01, 50, 0.05));
        grid->addWidget(b_.back(), 1, 1 + i);
        grid->addWidget(s_.back(), 2, 1 + i);
    }
    for (Eigen::Index j = 0; j < g_.n_hidden(); ++j) {
        const int row = 3 + static_cast<int>(j);
        auto* label = new QLabel(tr("W of h%1").arg(j + 1), this);
        label->setStyleSheet(QStringLiteral("color: %1; font-weight: bold;")
                                 .arg(QColor::fromHsv(static_cast<int>(j * 97 + 20) % 360, 200, 200).name()));
        grid->addWidget(label, row, 0);
        for (int i = 0; i < 2; ++i) {
            w_.push_back(makeBox(-50, 50, 0.1));
            grid->addWidget(w_.back(), row, 1 + i);
        }
        c_.push_back(makeBox(-500, 500, 0.5));
        grid->addWidget(c_.back(), row, 3);
    }
}

void GrbmEditor::readBack() {
    for (int i = 0; i < 2; ++i) {
        g_.b(i) = b_[static_cast<std::size_t>(i)]->value();
        g_.sigma(i) = s_[static_cast<std::size_t>(i)]->value();
    }
    for (Eigen::Index j = 0; j < g_.n_hidden(); ++j) {
        g_.c(j) = c_[static_cast<std::size_t>(j)]->value();
        for (int i = 0; i < 2; ++i) g_.W(i, j) = weightBox(i, static_cast<int>(j))->value();
    }
    Q_EMIT edited(g_);
}

}  // namespace rbmscope
