#pragma once
// A view's own controls as the settings map of a session file (core's rbm::SessionValue), for
// views whose settings are just their controls: spin boxes (an integer or number within the
// box's range), check boxes (true/false), combo boxes (one of the names given, by index) and
// validated fields (a string the field's own check accepts). Each control defines what it
// accepts, so a session can never put a value into a control that the control would refuse.
#include <QString>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "core/io/session_io.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

namespace rbmscope {

class ValidatedField;

struct SessionField {
    const char* key;
    std::variant<QSpinBox*, QDoubleSpinBox*, QCheckBox*, QComboBox*, ValidatedField*, QLineEdit*> widget;
    std::vector<std::string> names = {};  // QComboBox: the name of each entry, in order
};

std::map<std::string, rbm::SessionValue> fieldsToMap(const std::vector<SessionField>& fields);
// "" when every key of `map` that names a field holds a value the field accepts (other keys are
// ignored), else one message naming `prefix` + the key. Changes nothing.
QString checkFields(const std::map<std::string, rbm::SessionValue>& map, const std::vector<SessionField>& fields,
                    const std::string& prefix);
// Sets the fields (after checkFields), as the user would: their signals fire.
void applyFields(const std::map<std::string, rbm::SessionValue>& map, const std::vector<SessionField>& fields);

// A plain line edit's text is kept up to this many bytes.
inline constexpr int kMaxFieldText = 4096;

}  // namespace rbmscope
