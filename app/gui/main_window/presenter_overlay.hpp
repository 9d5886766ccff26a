#pragma once
// Presenter mode's bar on the canvas: a dark, semi-transparent strip along the bottom
// edge of the view area, drawn large enough to read from the back of a room. Top row: the view's
// name and key, the job's state (Running / Paused / Stopped …) in its colour, the progress.
// Bottom row: Run, Pause (Resume), Step and Cancel as glyphs with their keys, the units done and
// the speed. A click on a glyph does what its key does (clicked(name)). The main window lays the
// view out above the strip, so the bar never hides part of it, and feeds it through setInfo()
// from its action updates (the transport's state changes and the jobs' coalesced progress):
// no timer of its own, and a repaint only when something shown changed.
#include <QColor>
#include <QRect>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <array>

namespace rbmscope {

class PresenterOverlay : public QWidget {
    Q_OBJECT
public:
    struct Info {
        QString view;            // "Annealing"
        QString viewKey;         // "Ctrl+2"
        bool transport = false;  // the view has a job (else only the name is shown)
        QString state;           // "Running"
        QColor stateColour;
        double fraction = -1;  // progress in [0, 1]; < 0 unknown
        QString units;         // "1 234 annealing steps"
        QString speed;         // "980 per s · at most 1000 per s"
        bool canRun = false, canPause = false, held = false, canStep = false, canCancel = false;
        QString pauseLabel;      // "Pause", "Resume" or "Play β" (Space with nothing running)
        bool playGlyph = false;  // the pause button draws ▶ (Resume, Play β)
        // The view's key figures (View::presenterFigures), one line each under the buttons: what
        // the status bar says outside presenter mode, which presenter mode hides.
        QStringList figures;
        bool operator==(const Info&) const = default;
    };
    explicit PresenterOverlay(QWidget* parent = nullptr);

    void setInfo(const Info& info);
    const Info& info() const { return info_; }
    // The strip's height for the current font and figures (the main window keeps the view above it).
    int barHeight() const;
    // Where figure line i is drawn (tests check it fits the strip's width).
    QRect figureRect(int i) const;
    QFont figureFont() const;
    // The units and speed after the buttons: text, place and font (shrunk to fit; tests check it does).
    QString unitsText() const;
    QRect unitsRect() const;
    QFont unitsFont() const;
    bool unitsOnOwnRow() const;
    // Where a button is drawn, in this widget's coordinates: "run", "pause", "step", "cancel".
    QRect buttonRect(const QString& name) const;
    int paints() const { return paints_; }  // paint events handled (tests)

Q_SIGNALS:
    void clicked(const QString& name);

protected:
    void paintEvent(QPaintEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;

private:
    QFont bigFont() const;  // the state and the view's name
    QFont rowFont() const;  // the buttons, units and speed
    struct Button {
        QRect rect;
        QString label, key;
    };
    std::array<Button, 4> buttons() const;  // run, pause, step, cancel
    bool enabled(int i) const;
    int hit(QPoint p) const;  // the enabled button under p, else -1

    Info info_;
    int paints_ = 0;
};

}  // namespace rbmscope
