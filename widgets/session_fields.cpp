#include "session_fields.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>

#include "session_settings_reader.hpp"
#include "validated_field.hpp"

namespace rbmscope {

using rbm::SessionValue;

namespace {
template <class... Ts>
struct Overloaded : Ts... {
    using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;
}  // namespace

std::map<std::string, SessionValue> fieldsToMap(const std::vector<SessionField>& fields) {
    std::map<std::string, SessionValue> m;
    for (const SessionField& f : fields) {
        m[f.key] =
            std::visit(Overloaded{[](QSpinBox* w) { return SessionValue::scalar(std::int64_t{w->value()}); },
                                  [](QDoubleSpinBox* w) { return SessionValue::scalar(w->value()); },
                                  [](QCheckBox* w) { return SessionValue::scalar(w->isChecked()); },
                                  [&f](QComboBox* w) {
                                      const int i = w->currentIndex();
                                      return SessionValue::scalar(i >= 0 && i < static_cast<int>(f.names.size())
                                                                      ? f.names[static_cast<std::size_t>(i)]
                                                                      : std::string());
                                  },
                                  [](ValidatedField* w) { return SessionValue::scalar(w->text().toStdString()); },
                                  [](QLineEdit* w) { return SessionValue::scalar(w->text().toStdString()); }},
                       f.widget);
    }
    return m;
}

QString checkFields(const std::map<std::string, SessionValue>& map, const std::vector<SessionField>& fields,
                    const std::string& prefix) {
    SessionSettingsReader r(map, prefix);
    for (const SessionField& f : fields) {
        if (!r.has(f.key)) continue;
        std::visit(Overloaded{[&](QSpinBox* w) {
                                  long long v = 0;
                                  r.integer(f.key, w->minimum(), w->maximum(), v);
                              },
                              [&](QDoubleSpinBox* w) {
                                  double v = 0;
                                  r.real(f.key, w->minimum(), w->maximum(), v, true);
                              },
                              [&](QCheckBox*) {
                                  bool v = false;
                                  r.boolean(f.key, v);
                              },
                              [&](QComboBox*) {
                                  std::string v;
                                  r.choice(f.key, f.names, v);
                              },
                              [&](ValidatedField* w) {
                                  std::string v;
                                  r.string(f.key, v);
                                  if (!r.error.isEmpty()) return;
                                  if (const QString why = w->checkText(QString::fromStdString(v)); !why.isEmpty())
                                      r.fail(f.key, QStringLiteral("text the field accepts (%1)").arg(why),
                                             QStringLiteral("\"%1\"").arg(QString::fromStdString(v)));
                              },
                              [&](QLineEdit*) {
                                  std::string v;
                                  r.string(f.key, v);
                                  if (r.error.isEmpty() && v.size() > static_cast<std::size_t>(kMaxFieldText))
                                      r.fail(f.key, QStringLiteral("a string of at most %1 bytes").arg(kMaxFieldText),
                                             QStringLiteral("%1 bytes").arg(v.size()));
                              }},
                   f.widget);
        if (!r.error.isEmpty()) return r.error;
    }
    return {};
}

void applyFields(const std::map<std::string, SessionValue>& map, const std::vector<SessionField>& fields) {
    SessionSettingsReader r(map);
    for (const SessionField& f : fields) {
        if (!r.has(f.key)) continue;
        std::visit(Overloaded{[&](QSpinBox* w) {
                                  long long v = w->value();
                                  r.integer(f.key, w->minimum(), w->maximum(), v);
                                  w->setValue(static_cast<int>(v));
                              },
                              [&](QDoubleSpinBox* w) {
                                  double v = w->value();
                                  r.real(f.key, w->minimum(), w->maximum(), v, true);
                                  w->setValue(v);
                              },
                              [&](QCheckBox* w) {
                                  bool v = w->isChecked();
                                  r.boolean(f.key, v);
                                  w->setChecked(v);
                              },
                              [&](QComboBox* w) {
                                  std::string v;
                                  if (!r.choice(f.key, f.names, v)) return;
                                  for (std::size_t i = 0; i < f.names.size(); ++i)
                                      if (f.names[i] == v) w->setCurrentIndex(static_cast<int>(i));
                              },
                              [&](ValidatedField* w) {
                                  std::string v;
                                  r.string(f.key, v);
                                  if (QString::fromStdString(v) == w->text()) return;
                                  w->setText(QString::fromStdString(v));
                                  // As if typed and committed, so the view follows.
                                  Q_EMIT w->edited();
                                  Q_EMIT w->committed();
                              },
                              [&](QLineEdit* w) {
                                  std::string v;
                                  r.string(f.key, v);
                                  w->setText(QString::fromStdString(v));
                              }},
                   f.widget);
    }
}

}  // namespace rbmscope
