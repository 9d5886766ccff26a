#include "lessons/lesson_player.hpp"

#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QKeyEvent>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QTextDocument>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <iostream>

#include "main_window/main_window.hpp"
#include "run_settings.hpp"
#include "views/annealing/annealing_view.hpp"
#include "views/tempering/tempering_view.hpp"

namespace rbmscope {

LessonCaption::LessonCaption(QWidget* parent) : QFrame(parent) {
    setObjectName(QStringLiteral("lessonCaption"));
    // Dark text on an almost opaque light card, readable over any colour map from the back of a room.
    // Painted, not a style sheet: a style sheet fixes the font, and the caption must follow the window's.
    QPalette p = palette();
    p.setColor(QPalette::WindowText, QColor(0x1a, 0x1a, 0x1a));
    setPalette(p);
    auto* layout = new QVBoxLayout(this);
    const int m = fontMetrics().height() / 2;
    layout->setContentsMargins(m, m / 2, m, m / 2);
    layout->setSpacing(m / 2);
    header_ = new QLabel(this);
    body_ = new QLabel(this);
    keys_ = new QLabel(this);
    for (QLabel* l : {header_, body_, keys_}) {
        l->setWordWrap(true);
        layout->addWidget(l);
    }
    header_->setTextFormat(Qt::RichText);
    body_->setTextFormat(Qt::PlainText);
    keys_->setTextFormat(Qt::RichText);
    keys_->setText(tr("<span style='color:#5a5a5a'>PgDn next · PgUp back · B hide · Esc leave</span>"));
    setAttribute(Qt::WA_TransparentForMouseEvents);  // the plot under it stays draggable
}

void LessonCaption::showStop(const Lesson& lesson, int index) {
    const LessonStop& st = lesson.stops[static_cast<std::size_t>(index)];
    const QString title = st.title.isEmpty() ? lesson.title : st.title;
    header_->setText(QStringLiteral("<b>%1</b> <span style='color:#5a5a5a'>· %2 of %3</span>")
                         .arg(title.toHtmlEscaped(), tr("stop %1").arg(index + 1))
                         .arg(lesson.stops.size()));
    body_->setText(st.watch.isEmpty() ? st.caption : st.caption + QStringLiteral("\n") + tr("Watch: %1").arg(st.watch));
}

void LessonCaption::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(QPen(QColor(0x8a, 0x7a, 0x3a), 1));
    painter.setBrush(QColor(255, 252, 235, 240));
    painter.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 6, 6);
}

QString LessonCaption::counter() const {
    const QString h = header_->text();
    const int at = h.indexOf(tr("stop "));
    return at < 0 ? QString() : QString(h.mid(at)).remove(QStringLiteral("</span>"));
}

QString LessonCaption::plainText() const {
    QTextDocument doc;
    doc.setHtml(header_->text());
    return doc.toPlainText() + QStringLiteral("\n") + body_->text();
}

void LessonCaption::place(const QRect& area, CaptionCorner corner) {
    const int margin = fontMetrics().height() / 2;
    // About 50 characters a line, never more than 40 % of the view's width: the plot stays visible.
    const int width =
        std::max(160, std::min(static_cast<int>(area.width() * 0.4), fontMetrics().averageCharWidth() * 52));
    int height = heightForWidth(width);
    if (height <= 0) height = sizeHint().height();
    height = std::min(height, area.height() / 2);
    const bool left = corner == CaptionCorner::TopLeft || corner == CaptionCorner::BottomLeft;
    const bool top = corner == CaptionCorner::TopLeft || corner == CaptionCorner::TopRight;
    const int x = left ? area.left() + margin : area.right() - margin - width;
    const int y = top ? area.top() + margin : area.bottom() - margin - height;
    setGeometry(x, y, width, height);
    raise();
}

LessonPlayer::LessonPlayer(MainWindow* window) : QObject(window), w_(window) {
    setObjectName(QStringLiteral("lessonPlayer"));
    caption_ = new LessonCaption(w_->centralWidget());
    caption_->hide();
    poll_ = new QTimer(this);
    poll_->setInterval(50);
    connect(poll_, &QTimer::timeout, this, &LessonPlayer::tick);

    menu_ = new QMenu(tr("&Lessons"), w_);
    for (const QString& name : shippedLessons()) {
        const std::optional<Lesson> l = loadLesson(name, nullptr);
        menu_->addAction(l ? l->title : name, this, [this, name] { open(name); });
    }
    menu_->addSeparator();
    menu_->addAction(tr("&Open lesson file…"), this, &LessonPlayer::openFileDialog);
    menu_->addSeparator();
    next_ = menu_->addAction(tr("&Next stop"), this, &LessonPlayer::next);
    next_->setShortcut(QKeySequence(Qt::Key_PageDown));
    previous_ = menu_->addAction(tr("&Previous stop"), this, &LessonPlayer::previous);
    previous_->setShortcut(QKeySequence(Qt::Key_PageUp));
    hide_ = menu_->addAction(tr("&Hide caption"), this, [this](bool on) { setCaptionVisible(!on); });
    hide_->setCheckable(true);
    hide_->setShortcut(QKeySequence(Qt::Key_B));
    // Esc is the Cancel action's key while a job runs; once nothing runs it leaves the lesson (eventFilter).
    leave_ = menu_->addAction(tr("&Leave lesson") + QStringLiteral("\tEsc"), this, &LessonPlayer::leave);
    // Presenter mode hides the menu bar; the window keeps the keys.
    for (QAction* a : {next_, previous_, hide_}) w_->addAction(a);
    QAction* before = nullptr;
    for (QAction* a : w_->menuBar()->actions())
        if (a->menu() && a->text().remove(QLatin1Char('&')) == tr("Help")) before = a;
    w_->menuBar()->insertMenu(before, menu_);

    for (const View* v : w_->views()) viewWidgets_ << v->widget() << w_->pageOf(v);
    qApp->installEventFilter(this);  // Esc, and what moves the caption (eventFilter)
    updateActions();
}

LessonPlayer* LessonPlayer::of(const MainWindow* window) {
    return window->findChild<LessonPlayer*>(QStringLiteral("lessonPlayer"), Qt::FindDirectChildrenOnly);
}

QString LessonPlayer::open(const QString& nameOrPath, int stop) {
    QString error;
    std::optional<Lesson> l = loadLesson(nameOrPath, &error);
    if (!l) {
        report(error);
        return error;
    }
    return start(std::move(*l), stop);
}

QString LessonPlayer::check(const Lesson& lesson) const {
    for (std::size_t i = 0; i < lesson.stops.size(); ++i) {
        const LessonStop& st = lesson.stops[i];
        const QString where = QStringLiteral("%1, stop %2: ").arg(lesson.source).arg(i + 1);
        if (!w_->viewNames().contains(st.view))
            return where + QStringLiteral("'view' is '%1', expected one of %2")
                               .arg(st.view, w_->viewNames().join(QStringLiteral(", ")));
        // The same checks a session restore makes (MainWindow::applySession), before anything changes.
        const ModelTraits traits = traitsOf(st.session.model);
        RunSettings settings;
        if (const QString err = settingsFromMap(st.session.settings, traits, defaultSettings(traits), settings);
            !err.isEmpty())
            return where + err;
        for (View* v : w_->views())
            if (const QString err = v->readSession(st.session); !err.isEmpty()) return where + err;
        if (st.action != LessonAction::None && st.action != LessonAction::Sweep && !w_->view(st.view)->transport())
            return where + QStringLiteral("'action' is '%1' but %2")
                               .arg(lessonActionName(st.action), w_->view(st.view)->noTransport());
    }
    return {};
}

QString LessonPlayer::start(Lesson lesson, int stop) {
    if (stop < 0 || stop >= static_cast<int>(lesson.stops.size())) {
        const QString err = QStringLiteral("%1: there is no stop %2 (it has %3)")
                                .arg(lesson.source)
                                .arg(stop + 1)
                                .arg(lesson.stops.size());
        report(err);
        return err;
    }
    if (const QString err = check(lesson); !err.isEmpty()) {
        report(err);
        return err;
    }
    lesson_ = std::move(lesson);
    return goTo(stop);
}

QString LessonPlayer::goTo(int index) {
    if (!lesson_) return tr("no lesson is open");
    if (index < 0 || index >= static_cast<int>(lesson_->stops.size())) return tr("there is no stop %1").arg(index + 1);
    const LessonStop& st = lesson_->stops[static_cast<std::size_t>(index)];
    poll_->stop();
    phase_ = Phase::Idle;
    const QString where = QStringLiteral("%1, stop %2").arg(lesson_->source).arg(index + 1);
    if (const QString err = w_->applySession(st.session, st.session.preset.empty() ? st.origin : where);
        !err.isEmpty()) {
        report(err);
        return err;
    }
    if (QAction* log = w_->action(QStringLiteral("logScale")); log && log->isChecked() != st.logScale) log->trigger();
    if (fullSpeed_) {
        for (const QString& v : w_->viewNames()) w_->setPace(0, v);
        for (View* v : w_->views()) v->setHurried(true);
    }
    index_ = index;
    caption_->showStop(*lesson_, index);
    caption_->setVisible(!captionHidden_);
    placeCaption();
    phase_ = Phase::Waiting;
    polls_ = 0;
    poll_->start();
    updateActions();
    Q_EMIT stopShown(index);
    return {};
}

void LessonPlayer::next() {
    if (lesson_ && index_ + 1 < static_cast<int>(lesson_->stops.size())) goTo(index_ + 1);
}

void LessonPlayer::previous() {
    if (lesson_ && index_ > 0) goTo(index_ - 1);
}

void LessonPlayer::leave() {
    if (!lesson_) return;
    lesson_.reset();
    index_ = -1;
    phase_ = Phase::Idle;
    poll_->stop();
    caption_->hide();
    updateActions();
    Q_EMIT left();
}

void LessonPlayer::setCaptionVisible(bool on) {
    captionHidden_ = !on;
    if (hide_->isChecked() == on) hide_->setChecked(!on);
    caption_->setVisible(on && lesson_);
    if (on) placeCaption();
}

void LessonPlayer::tick() {
    ++polls_;
    const LessonStop& st = lesson_->stops[static_cast<std::size_t>(index_)];
    const Transport* t = w_->transport();
    const auto* tempering = qobject_cast<const TemperingView*>(w_->activeView() ? w_->activeView()->widget() : nullptr);
    const bool busy = !w_->idle() || (t && t->active()) ||
                      (tempering && (tempering->running() || tempering->jobs()->isRunning(tempering->heatChannel())));
    switch (phase_) {
        case Phase::Waiting:
            // The model's density and paths first (600 ticks: 30 s at most), as a user waits before F5.
            if (!w_->idle() && polls_ < 600) return;
            if (st.action == LessonAction::Run || st.action == LessonAction::Play) w_->runCurrent();
            else if (st.action == LessonAction::Sweep) w_->startSweep();
            phase_ = st.action == LessonAction::None ? Phase::Done : Phase::Running;
            polls_ = 0;
            break;
        case Phase::Running:
            if (polls_ < 3 || busy) return;
            if (st.action == LessonAction::Play) {
                w_->togglePause();  // nothing runs: Space plays the view's playback
                phase_ = Phase::Playing;
                polls_ = 0;
                return;
            }
            phase_ = Phase::Done;
            break;
        case Phase::Playing:
            if (polls_ < 3 || (t && t->state() == Transport::State::Playing)) return;
            phase_ = Phase::Done;
            break;
        case Phase::Idle:
        case Phase::Done: break;
    }
    if (phase_ != Phase::Done) return;
    poll_->stop();
    if (st.beta)  // particles from the run's nearest checkpoint, as the β slider shows them
        if (auto* a = qobject_cast<AnnealingView*>(w_->activeView() ? w_->activeView()->widget() : nullptr))
            a->setBeta(*st.beta);
    Q_EMIT stopSettled(index_);
}

void LessonPlayer::placeCaption() {
    if (!lesson_ || !caption_ || caption_->isHidden()) return;  // isHidden: the window may be hidden a moment
    QWidget* centre = w_->centralWidget();
    QRect area = centre->rect();
    if (const View* v = w_->activeView(); v && v->widget()->isVisible()) {
        // The view's page: what its scroll area shows, laid out above the presenter strip.
        const QWidget* page = w_->pageOf(v);
        area = QRect(page->mapTo(centre, QPoint(0, 0)), page->size());
    }
    // What of it the window shows: a view laid out wider than a small screen is cut at the window's edge.
    area = area.intersected(QRect(centre->mapFrom(w_, QPoint(0, 0)), w_->size())).intersected(centre->rect());
    caption_->place(area, lesson_->stops[static_cast<std::size_t>(index_)].corner);
}

bool LessonPlayer::eventFilter(QObject* watched, QEvent* event) {
    // Every event of the application passes here: only these few can concern a lesson. (The window's
    // own teardown sends others, when its views are half gone.)
    const QEvent::Type type = event->type();
    if (!lesson_ || (type != QEvent::KeyPress && type != QEvent::Resize && type != QEvent::Show &&
                     type != QEvent::FontChange && type != QEvent::LayoutRequest))
        return false;
    if (type == QEvent::KeyPress && static_cast<QKeyEvent*>(event)->key() == Qt::Key_Escape &&
        static_cast<QKeyEvent*>(event)->modifiers() == Qt::NoModifier && watched->isWidgetType() &&
        static_cast<QWidget*>(watched)->window() == w_) {
        // While a job runs Esc is its Cancel (that shortcut is taken before any key press); after, it leaves.
        QAction* cancel = w_->action(QStringLiteral("cancel"));
        if (!cancel || !cancel->isEnabled()) {
            leave();
            return true;
        }
    }
    // The caption follows the view: its size, the tab shown, the font (presenter mode, Ctrl+=), its own
    // text. Pointers are only compared here: during the window's teardown its views are half gone.
    const bool view = viewWidgets_.contains(watched);
    if (((watched == w_ || watched == w_->centralWidget()) && type == QEvent::Resize) ||
        (view && (type == QEvent::Resize || type == QEvent::Show)) ||
        (watched == caption_ && (type == QEvent::FontChange || type == QEvent::LayoutRequest)))
        QTimer::singleShot(0, this, &LessonPlayer::placeCaption);
    return QObject::eventFilter(watched, event);
}

void LessonPlayer::report(const QString& message) {
    lastProblem_ = message;
    if (interactive_) {
        auto* box = new QMessageBox(QMessageBox::Warning, tr("Cannot open the lesson"), message, QMessageBox::Ok, w_);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setModal(false);
        box->show();
    } else {
        std::cerr << "rbmscope: " << message.toStdString() << std::endl;
    }
    Q_EMIT problem(message);
}

void LessonPlayer::openFileDialog() {
    const QString path =
        QFileDialog::getOpenFileName(w_, tr("Open lesson"), QString(), tr("rbmscope lessons (*.json);;All files (*)"));
    if (!path.isEmpty()) open(path);
}

void LessonPlayer::updateActions() {
    const int n = lesson_ ? static_cast<int>(lesson_->stops.size()) : 0;
    next_->setEnabled(lesson_ && index_ + 1 < n);
    previous_->setEnabled(lesson_ && index_ > 0);
    leave_->setEnabled(lesson_.has_value());
    hide_->setEnabled(lesson_.has_value());
}

}  // namespace rbmscope
