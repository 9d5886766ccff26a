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

// The array a key most likely is: its own name, Hinton's, else by shape (W: the only 2-D array).
int guess(const QString& key, const std::vector<rbm::ArrayInfo>& arrays) {
    const std::map<QString, QStringList> names = {
        {QStringLiteral("W"), {QStringLiteral("W"), QStringLiteral("vishid")}},
        {QStringLiteral("b"), {QStringLiteral("b"), QStringLiteral("visbiases")}},
        {QStringLiteral("c"), {QStringLiteral("c"), QStringLiteral("hidbiases")}},
        {QStringLiteral("sigma"), {QStringLiteral("sigma")}}};
    for (std::size_t i = 0; i < arrays.size(); ++i)
        if (names.at(key).contains(QString::fromStdString(arrays[i].name))) return static_cast<int>(i);
    if (key == QLatin1String("W")) {
        int found = -1, count = 0;
        for (std::size_t i = 0; i < arrays.size(); ++i)
            if (arrays[i].shape.size() == 2 && arrays[i].shape[0] > 1 && arrays[i].shape[1] > 1) {
                found = static_cast<int>(i);
                ++count;
            }
        if (count == 1) return found;
    }
    return -1;
}

}  // namespace

ArrayImportDialog::ArrayImportDialog(const QString& fileName, const std::vector<rbm::ArrayInfo>& arrays,
                                     QWidget* parent)
    : QDialog(parent) {
    setWindowTitle(tr("Import model arrays"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("<b>%1</b> has no array named W. Pick the arrays that hold the model: W is visible × "
                                "hidden (a hidden × visible W is transposed when b and c say so).")
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
    auto* form = new QFormLayout;
    for (const char* k : {"W", "b", "c", "sigma"}) {
        const QString key = QString::fromLatin1(k);
        auto* box = new QComboBox(this);
        box->setObjectName(QStringLiteral("map_") + key);
        box->addItem(key == QLatin1String("W") ? tr("(choose)") : tr("(none: default)"));
        for (const auto& a : arrays)
            box->addItem(QStringLiteral("%1  (%2)").arg(QString::fromStdString(a.name), shapeText(a.shape)),
                         QString::fromStdString(a.name));
        box->setCurrentIndex(guess(key, arrays) + 1);
        boxes_[key] = box;
        form->addRow(key == QLatin1String("sigma") ? tr("sigma (GRBM)") : key, box);
    }
    layout->addLayout(form);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto updateOk = [this, buttons] {
        buttons->button(QDialogButtonBox::Ok)->setEnabled(boxes_.at(QStringLiteral("W"))->currentIndex() > 0);
    };
    connect(boxes_.at(QStringLiteral("W")), &QComboBox::currentIndexChanged, this, updateOk);
    updateOk();
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
