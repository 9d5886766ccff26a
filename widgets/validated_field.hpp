#pragma once
// A line edit that checks its text as the user types and, when it refuses a value, says why in
// a red line under the field (and outlines the field in red). Typing only edits: the value is
// committed when editing ends (Enter, Tab, focus elsewhere), so a half-typed value never acts.
// Space is never typed into it (the values are numbers and lists); it stays the window's pause key.
#include <QLabel>
#include <QLineEdit>
#include <QWidget>
#include <functional>

namespace rbmscope {

class ValidatedField : public QWidget {
    Q_OBJECT
public:
    // check(text) returns an empty string when the text is acceptable, else the reason.
    using Check = std::function<QString(const QString&)>;
    ValidatedField(const QString& text, Check check, QWidget* parent = nullptr);

    QString text() const { return edit_->text(); }
    void setText(const QString& text);  // programmatic; re-validates, emits nothing
    bool isValid() const { return reason_.isEmpty(); }
    QString reason() const { return reason_; }
    QLineEdit* lineEdit() const { return edit_; }
    QLabel* reasonLabel() const { return message_; }
    // What the check says of `text` ("" when acceptable), without touching the field.
    QString checkText(const QString& text) const { return check_ ? check_(text) : QString(); }
    // Re-run the check (e.g. after something it depends on changed).
    void revalidate();

Q_SIGNALS:
    void edited();     // the user changed the text (valid or not), while typing
    void committed();  // editing ended with a text different from the last committed one

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void apply(const QString& reason);
    void commit();

    QLineEdit* edit_;
    QLabel* message_;
    Check check_;
    QString reason_;
    QString committed_;
};

// Common checks. Each returns an empty string or a reason naming the expectation.
QString checkInteger(const QString& text, long long lo, long long hi, const QString& what);
QString checkUnsigned64(const QString& text, const QString& what);
QString checkReal(const QString& text, double lo, double hi, bool openLo, bool openHi, const QString& what);
// Comma-separated list of positive integers (e.g. "10, 30, 100").
QString checkIntegerList(const QString& text, long long lo, long long hi, const QString& what);
// Comma-separated list of reals in [0,1].
QString checkUnitList(const QString& text, const QString& what);
std::vector<long long> parseIntegerList(const QString& text);
std::vector<double> parseRealList(const QString& text);

}  // namespace rbmscope
