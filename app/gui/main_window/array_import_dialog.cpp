#include "main_window/array_import_dialog.hpp"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace rbmscope {

namespace {

QString shapeText(const std::vector<std::int64_t>& shape) {
    QStringList parts;
    for (auto d : shape) parts << QString::number(d);
    return shape.empty() ? QStringLiteral("scalar") : parts.join(QStringLiteral(" × "));
}

}  // namespace

ArrayImportDialog::ArrayImportDialog(const QString& fileName, const std::vector<rbm::ArrayInfo>& arrays,
                                     QWidget* parent)
    : QDialog(parent) {
    setWindowTitle(tr("Import model arrays"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("<b>%1</b> has no array named W. Pick the arrays that hold the model: W is visible × "
                                "hidden (a hidden × visible W is transposed when b and c say so; "
                                "the guesses below follow the same rules as the CLI's --map).")
                                 .arg(fileName.toHtmlEscaped()),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* table = new QTableWidget(static_cast<int>(arrays.size()), 3, this);
    table->setObjectName(QStringLiteral("arrays"));
    table->setHorizontalHeaderLabels({tr("Array"), tr("Shape"), tr("Type")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    for (std::size_t i = 0; i < arrays.size(); ++i) {
        const int r = static_cast<int>(i);
        table->setItem(r, 0, new QTableWidgetItem(QString::fromStdString(arrays[i].name)));
        table->setItem(r, 1, new QTableWidgetItem(shapeText(arrays[i].shape)));
        table->setItem(r, 2, new QTableWidgetItem(QString::fromStdString(arrays[i].type)));
    }
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    layout->addWidget(table);
    // The loader's own guess and shape rule (core/io/named_arrays.hpp), so the dialog and --map agree.
    const bool matlab = fileName.endsWith(QLatin1String(".mat"), Qt::CaseInsensitive);
    const rbm::ArrayNameMap guessed = rbm::guess_array_map(arrays, matlab);
    auto* form = new QFormLayout;
    for (const char* k : {"W", "b", "c", "sigma"}) {
        const QString key = QString::fromLatin1(k);
        auto* box = new QComboBox(this);
        box->setObjectName(QStringLiteral("map_") + key);
        box->addItem(key == QLatin1String("W") ? tr("(choose)") : tr("(none: default)"));
        for (const auto& a : arrays)
            box->addItem(QStringLiteral("%1  (%2)").arg(QString::fromStdString(a.name), shapeText(a.shape)),
                         QString::fromStdString(a.name));
        const auto g = guessed.find(key.toStdString());
        if (g != guessed.end()) box->setCurrentIndex(box->findData(QString::fromStdString(g->second)));
        boxes_[key] = box;
        form->addRow(key == QLatin1String("sigma") ? tr("sigma (GRBM)") : key, box);
    }
    layout->addLayout(form);
    summary_ = new QLabel(this);
    summary_->setObjectName(QStringLiteral("summary"));
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(summary_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    // Before OK: the n x m the choice gives, what the loader will do to it, and a refusal when the
    // shapes contradict each other (a bias that fits neither side of W).
    auto update = [this, buttons, arrays, matlab] {
        const rbm::ArrayMapCheck check = rbm::check_array_map(arrays, names(), matlab);
        QStringList lines;
        if (!check.error.empty()) {
            lines << tr("<b>Cannot import:</b> %1.").arg(QString::fromStdString(check.error).toHtmlEscaped());
        } else {
            lines << tr("Model: <b>n = %1 visible × m = %2 hidden</b>.").arg(check.n).arg(check.m);
            for (const auto& w : check.warnings)
                lines << tr("Warning: %1.").arg(QString::fromStdString(w).toHtmlEscaped());
            if (boxes_.at(QStringLiteral("b"))->currentIndex() == 0)
                lines << tr("Warning: no b chosen: the %1 visible biases are 0.").arg(check.n);
            if (boxes_.at(QStringLiteral("c"))->currentIndex() == 0)
                lines << tr("Warning: no c chosen: the %1 hidden biases are 0.").arg(check.m);
        }
        ok_ = check.error.empty();
        summary_->setText(lines.join(QStringLiteral("<br>")));
        summary_->setStyleSheet(ok_ ? QString() : QStringLiteral("color: #b00020;"));
        buttons->button(QDialogButtonBox::Ok)->setEnabled(ok_);
    };
    for (const auto& kv : boxes_) connect(kv.second, &QComboBox::currentIndexChanged, this, update);
    update();
    layout->addWidget(buttons);
    resize(520, 420);
}

rbm::ArrayNameMap ArrayImportDialog::names() const {
    rbm::ArrayNameMap out;
    for (const auto& [key, box] : boxes_)
        if (box->currentIndex() > 0) out[key.toStdString()] = box->currentData().toString().toStdString();
    return out;
}

}  // namespace rbmscope
