#pragma once
// The app's --map: when a .mat, .h5 or .npz file lacks the standard array names, this dialog lists its
// arrays with their shapes and types and lets the user pick which holds W, b, c and sigma. The
// guesses and the shape check are the loader's (rbm::guess_array_map, rbm::check_array_map).
#include <QComboBox>
#include <QDialog>
#include <QLabel>
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
    // The line under the choices: n x m and the warnings, or why the choice is refused (OK disabled).
    QString summary() const { return summary_->text(); }
    bool acceptable() const { return ok_; }

private:
    std::map<QString, QComboBox*> boxes_;
    QLabel* summary_ = nullptr;
    bool ok_ = false;
};

}  // namespace rbmscope
