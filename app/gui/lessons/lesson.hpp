#pragma once
// Lesson files (docs/user/lessons.md): a title and a list of stops. Each stop is a model (a preset
// or a model file), a view, settings written exactly as in a session file ("settings" as the
// parameter panel's, "views" as each view's; core's session parser and the views' own checks read
// them), an action (none, run, sweep, play) and a caption with what to watch. A stop is what a
// session restore would make of it, so the same keys mean the same thing in both files.
//
//   {"format": "rbmscope-lesson", "version": 1, "title": "...", "summary": "...",
//    "stops": [{"title": "...", "preset": "four-mode" | "model": "file next to the lesson",
//               "view": "annealing", "settings": {...}, "views": {"tempering": {...}},
//               "log_scale": false, "beta": 0.3, "action": "run", "caption": "...",
//               "watch": "...", "caption_corner": "top-right"}, ...]}
//
// parseLesson checks the document's shape and every stop's session part (core's session parser
// names the key and what was expected); what needs the window (view names, the settings against
// the model's kind, each view's settings) is checked by LessonPlayer::open before anything changes.
#include <QByteArray>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "core/io/session_io.hpp"

namespace rbmscope {

enum class LessonAction { None, Run, Sweep, Play };
enum class CaptionCorner { TopLeft, TopRight, BottomLeft, BottomRight };

struct LessonStop {
    QString title;
    QString caption;  // plain text; "\n" breaks lines
    QString watch;    // what to look at ("" when the caption says it)
    QString view;     // the view's name (MainWindow::viewNames)
    LessonAction action = LessonAction::None;
    bool logScale = false;
    std::optional<double> beta;  // the annealing views scrubbed to this β once the run is in
    CaptionCorner corner = CaptionCorner::TopRight;
    QString origin;        // "preset NAME" or the model file's path
    rbm::Session session;  // model, settings (auto_run false unless given), view, views
};

struct Lesson {
    QString title, summary;
    QString source;  // the file it came from (":/lessons/NAME.json" for a shipped one)
    std::vector<LessonStop> stops;
};

inline constexpr qint64 kMaxLessonBytes = 1 << 20;
inline constexpr int kMaxLessonStops = 200;

// Parses a lesson document. `source` names it in messages; model files are looked for relative
// to `baseDir`. nullopt and `error` set ("tour.json, stop 3: 'action' must be one of none, run,
// sweep, play, not 'go'") when anything is wrong; never throws.
std::optional<Lesson> parseLesson(const QByteArray& json, const QString& source, const QString& baseDir,
                                  QString* error);
// A shipped lesson by name ("tour"), else a file; nullopt and `error` when it cannot be read.
std::optional<Lesson> loadLesson(const QString& nameOrPath, QString* error);

// The lessons shipped in the resources (resources/lessons/*.json), by name, in menu order
// (resources/lessons/order.txt).
QStringList shippedLessons();
QString shippedLessonPath(const QString& name);

QString lessonActionName(LessonAction a);

}  // namespace rbmscope
