#pragma once
// Lessons in the window (docs/user/lessons.md): the Lessons menu (the shipped lessons and "Open
// lesson file…"), PgDn / PgUp (a presenter remote's keys) for the next and previous stop, B to
// hide or show the caption, Esc to leave the lesson once nothing runs (while a job runs Esc
// cancels it, as everywhere), and the caption drawn on the canvas over a corner of the view.
//
// The player attaches itself to a window from outside (main.cpp, the widget suites): the window
// knows nothing of lessons. A stop is applied as a session is (MainWindow::applySession: the model,
// the panel's settings, the view, each view's settings, all checked before anything changes),
// then the colour scale, and once the window is idle its action: run (F5 on the stop's view),
// sweep (Shift+F5), play (F5, then Space: the view's playback) or none.
//
//   LessonPlayer player(&window);
//   player.open("tour");       // "" or why not (a shipped lesson's name or a file)
//   player.next();             // PgDn
#include <QFrame>
#include <QObject>
#include <QPointer>
#include <optional>

#include "lessons/lesson.hpp"

class QAction;
class QLabel;
class QMenu;
class QTimer;

namespace rbmscope {

class MainWindow;

// The caption: the stop's title and "stop k of N", the caption, what to watch and the keys.
// Its font is the window's (so presenter mode's scale and Ctrl+= reach it); it takes at most
// about 40 % of the view's width and half its height, in the corner the stop names.
class LessonCaption : public QFrame {
    Q_OBJECT
public:
    explicit LessonCaption(QWidget* parent);
    void showStop(const Lesson& lesson, int index);
    // Sized for its text and placed in `corner` of `area` (the view, in the parent's coordinates).
    void place(const QRect& area, CaptionCorner corner);
    QString counter() const;  // "stop 2 of 7"
    QString plainText() const;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QLabel* header_;
    QLabel* body_;
    QLabel* keys_;
};

class LessonPlayer : public QObject {
    Q_OBJECT
public:
    explicit LessonPlayer(MainWindow* window);
    static LessonPlayer* of(const MainWindow* window);

    // Problems go to a non-modal box when interactive, else to stderr; always to problem().
    void setInteractive(bool on) { interactive_ = on; }
    // Every view's job at full speed (headless renders and tests: nobody watches the pace).
    void setFullSpeed(bool on) { fullSpeed_ = on; }

    // Opens a shipped lesson (by name) or a lesson file, checks every stop against the window
    // (views, settings for each stop's model, each view's settings) and shows stop `stop`
    // (0-based). "" or why not; a refused lesson changes nothing.
    QString open(const QString& nameOrPath, int stop = 0);
    QString start(Lesson lesson, int stop = 0);
    QString goTo(int index);
    void next();
    void previous();
    void leave();
    void setCaptionVisible(bool on);

    bool active() const { return lesson_.has_value(); }
    const Lesson* lesson() const { return lesson_ ? &*lesson_ : nullptr; }
    int currentStop() const { return index_; }
    // True once the current stop's action has finished (run done, sweep done, playback ended).
    bool settled() const { return phase_ == Phase::Done; }
    LessonCaption* caption() const { return caption_; }
    QMenu* menu() const { return menu_; }
    QString lastProblem() const { return lastProblem_; }

Q_SIGNALS:
    void stopShown(int index);
    void stopSettled(int index);
    void left();
    void problem(const QString& message);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    enum class Phase { Idle, Waiting, Running, Playing, Done };
    QString check(const Lesson& lesson) const;
    void tick();
    void placeCaption();
    void report(const QString& message);
    void openFileDialog();
    void updateActions();

    MainWindow* w_;
    std::optional<Lesson> lesson_;
    int index_ = -1;
    Phase phase_ = Phase::Idle;
    int polls_ = 0;  // ticks since the phase began
    bool interactive_ = true, fullSpeed_ = false, captionHidden_ = false;
    QString lastProblem_;
    QList<const QObject*> viewWidgets_;  // the views' widgets: the caption follows their size
    QPointer<LessonCaption> caption_;    // a child of the central widget, which may go first
    QMenu* menu_ = nullptr;
    QAction *next_ = nullptr, *previous_ = nullptr, *leave_ = nullptr, *hide_ = nullptr;
    QTimer* poll_ = nullptr;
};

}  // namespace rbmscope
