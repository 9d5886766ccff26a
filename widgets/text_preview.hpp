#pragma once
// A bounded preview of text that comes from a file (a model's notes or name): laying out
// megabytes in a QLabel, a tooltip or a window title costs seconds per megabyte, so
// the app shows at most `limit` characters and says how many it left out.
#include <QCoreApplication>
#include <QString>
#include <string>

namespace rbmscope {

inline constexpr qsizetype kNotesPreviewChars = 2000;
inline constexpr qsizetype kNamePreviewChars = 120;

inline QString textPreview(const std::string& text, qsizetype limit) {
    // Only the head is decoded: at most 4 bytes of UTF-8 per character (a cut sequence at the end
    // decodes to U+FFFD and is dropped with the rest of the tail).
    const std::size_t head = std::min(text.size(), static_cast<std::size_t>(4 * (limit + 1)));
    const QString shown = QString::fromUtf8(text.data(), static_cast<qsizetype>(head));
    if (head == text.size() && shown.size() <= limit) return shown;
    // What is left out, in bytes of the file (counting characters would decode all of it).
    const std::size_t kept = shown.left(limit).toUtf8().size();
    return shown.left(limit) + QCoreApplication::translate("rbmscope", "… (%1 more bytes)").arg(text.size() - kept);
}

}  // namespace rbmscope
