#pragma once
// The app's --map: when a .mat, .h5 or .npz file lacks the standard array names, this dialog lists its
// arrays with their shapes and types and lets the user pick which holds W, b, c and sigma.
#include <QComboBox>
#include <QDialog>
#include <map>
#include <vector>

#include "core/io/named_arrays.hpp"

namespace rbmscope {

class ArrayImportDialog : public QDialog {
    Q_OBJECT
public:
    ArrayImportDialog(const QString& fileName, const std::vector<rbm::ArrayInfo>& arrays, QWidget* parent = nullptr);
    // The chosen map (keys with "(none)" left out), as --map would give it.
    rbm::ArrayNameMap names() const;
    QComboBox* choice(const QString& key) const { return boxes_.at(key); }

private:
    std::map<QString, QComboBox*> boxes_;
};

}  // namespace rbmscope
