#include "validated_field.hpp"

#include <QKeyEvent>
#include <QVBoxLayout>
#include <cmath>

namespace rbmscope {

ValidatedField::ValidatedField(const QString& text, Check check, QWidget* parent)
    : QWidget(parent), edit_(new QLineEdit(text, this)), message_(new QLabel(this)), check_(std::move(check)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(1);
    layout->addWidget(edit_);
    layout->addWidget(message_);
    message_->setWordWrap(true);
    message_->setStyleSheet(QStringLiteral("color: #c62828; font-size: small;"));
    message_->setVisible(false);
    connect(edit_, &QLineEdit::textEdited, this, [this] {
        revalidate();
        Q_EMIT edited();
    });
    connect(edit_, &QLineEdit::editingFinished, this, &ValidatedField::commit);
    edit_->installEventFilter(this);
    committed_ = text;
    revalidate();
}

void ValidatedField::setText(const QString& text) {
    edit_->setText(text);
    committed_ = text;
    revalidate();
}

void ValidatedField::commit() {
    if (edit_->text() == committed_) return;
    committed_ = edit_->text();
    Q_EMIT committed();
}

bool ValidatedField::eventFilter(QObject* watched, QEvent* event) {
    if (watched == edit_ && (event->type() == QEvent::ShortcutOverride || event->type() == QEvent::KeyPress)) {
        auto* k = static_cast<QKeyEvent*>(event);
        if (k->key() == Qt::Key_Space && (k->modifiers() & ~Qt::KeypadModifier) == Qt::NoModifier) {
            // Not for the field: left unaccepted, a ShortcutOverride lets the window's Space
            // shortcut (pause) fire; a plain key press is dropped.
            event->ignore();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void ValidatedField::revalidate() { apply(check_ ? check_(edit_->text()) : QString()); }

void ValidatedField::apply(const QString& reason) {
    reason_ = reason;
    message_->setText(reason);
    message_->setVisible(!reason.isEmpty());
    edit_->setStyleSheet(reason.isEmpty() ? QString() : QStringLiteral("QLineEdit { border: 1px solid #c62828; }"));
    edit_->setToolTip(reason);
}

QString checkInteger(const QString& text, long long lo, long long hi, const QString& what) {
    bool ok = false;
    const long long v = text.trimmed().toLongLong(&ok);
    if (text.trimmed().isEmpty())
        return QStringLiteral("%1 is empty: enter a whole number from %2 to %3").arg(what).arg(lo).arg(hi);
    if (!ok) return QStringLiteral("%1 must be a whole number, not '%2'").arg(what, text.trimmed());
    if (v < lo || v > hi) return QStringLiteral("%1 must be between %2 and %3").arg(what).arg(lo).arg(hi);
    return {};
}

QString checkUnsigned64(const QString& text, const QString& what) {
    bool ok = false;
    text.trimmed().toULongLong(&ok);
    if (!ok) return QStringLiteral("%1 must be a whole number from 0 to 18446744073709551615").arg(what);
    return {};
}

QString checkReal(const QString& text, double lo, double hi, bool openLo, bool openHi, const QString& what) {
    bool ok = false;
    const double v = text.trimmed().toDouble(&ok);
    const QString range = QStringLiteral("%1%2, %3%4").arg(openLo ? "(" : "[").arg(lo).arg(hi).arg(openHi ? ")" : "]");
    if (!ok || !std::isfinite(v)) return QStringLiteral("%1 must be a number in %2").arg(what, range);
    if (v < lo || v > hi || (openLo && v == lo) || (openHi && v == hi))
        return QStringLiteral("%1 must lie in %2").arg(what, range);
    return {};
}

std::vector<long long> parseIntegerList(const QString& text) {
    std::vector<long long> out;
    for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
        out.push_back(part.trimmed().toLongLong());
    return out;
}

std::vector<double> parseRealList(const QString& text) {
    std::vector<double> out;
    for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
        out.push_back(part.trimmed().toDouble());
    return out;
}

QString checkIntegerList(const QString& text, long long lo, long long hi, const QString& what) {
    const QStringList parts = text.split(QLatin1Char(','), Qt::SkipEmptyParts);
    if (parts.isEmpty()) return QStringLiteral("%1: enter at least one value, e.g. 10, 100, 1000").arg(what);
    if (parts.size() > 20) return QStringLiteral("%1: at most 20 values").arg(what);
    for (const QString& p : parts) {
        bool ok = false;
        const long long v = p.trimmed().toLongLong(&ok);
        if (!ok) return QStringLiteral("%1: '%2' is not a whole number").arg(what, p.trimmed());
        if (v < lo || v > hi) return QStringLiteral("%1: %2 is outside %3 to %4").arg(what).arg(v).arg(lo).arg(hi);
    }
    return {};
}

QString checkUnitList(const QString& text, const QString& what) {
    const QStringList parts = text.split(QLatin1Char(','), Qt::SkipEmptyParts);
    if (parts.isEmpty()) return QStringLiteral("%1: enter at least one β, e.g. 0, 0.5, 1").arg(what);
    if (parts.size() > 12) return QStringLiteral("%1: at most 12 values").arg(what);
    for (const QString& p : parts) {
        bool ok = false;
        const double v = p.trimmed().toDouble(&ok);
        if (!ok || !(v >= 0.0 && v <= 1.0))
            return QStringLiteral("%1: '%2' is not a β in [0, 1]").arg(what, p.trimmed());
    }
    return {};
}

}  // namespace rbmscope
