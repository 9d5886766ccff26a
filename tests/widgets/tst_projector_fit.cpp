// The window on the projectors a class has: 1280×720 and 1024×768, normal mode at the desktop's
// font ×1, ×1.5 and ×2, presenter mode at ×1, ×1.5 and ×2 (Ctrl+= / Ctrl+−). For every view: the window can be that
// small (its minimum size fits), the status bar or the presenter strip lies inside it with its
// text whole, the view's page lies inside it (a view larger than the page scrolls), and no label
// or button of the view is laid out narrower than its text. Data-driven: one row per size, mode
// and scale; each row visits every view.
#include <QAbstractButton>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QScrollArea>
#include <QStandardPaths>
#include <QStatusBar>
#include <QtTest>

#include "main_window/main_window.hpp"
#include "main_window/presenter_overlay.hpp"
#include "test_window.hpp"
#include "views/view.hpp"

using namespace rbmscope;

namespace {

QString where(const QWidget* w) {
    QStringList path;
    for (const QWidget* p = w; p && !p->isWindow(); p = p->parentWidget())
        path.prepend(p->objectName().isEmpty() ? QString::fromLatin1(p->metaObject()->className()) : p->objectName());
    return path.join(QLatin1Char('/'));
}

// The widget's rectangle in window coordinates lies inside the window.
bool insideWindow(const QWidget* w) {
    const QRect r(w->mapTo(w->window(), QPoint(0, 0)), w->size());
    return w->window()->rect().contains(r);
}

// Labels with one line of text and buttons are never laid out narrower than their text: Qt would
// cut the text (a label) or squeeze it (a button). Word-wrapped labels take what they get.
QStringList squeezed(const QWidget* root) {
    QStringList out;
    for (const QLabel* l : root->findChildren<QLabel*>()) {
        if (!l->isVisibleTo(root) || l->wordWrap() || l->text().isEmpty() || l->textFormat() == Qt::RichText) continue;
        const int need = l->minimumSizeHint().width();
        if (l->width() + 1 < need)
            out << QStringLiteral("%1 '%2' (%3 < %4 px)").arg(where(l), l->text()).arg(l->width()).arg(need);
    }
    for (const QComboBox* c : root->findChildren<QComboBox*>()) {
        if (!c->isVisibleTo(root) || c->currentText().isEmpty()) continue;
        const int need = c->sizeHint().width();  // its longest item: never cut, whatever is chosen
        if (c->width() + 1 < need)
            out << QStringLiteral("%1 '%2' (%3 < %4 px)").arg(where(c), c->currentText()).arg(c->width()).arg(need);
    }
    for (const QAbstractButton* b : root->findChildren<QAbstractButton*>()) {
        if (!b->isVisibleTo(root) || b->text().isEmpty()) continue;
        const int need = b->minimumSizeHint().width();
        if (b->width() + 1 < need) {
            out << QStringLiteral("%1 '%2' (%3 < %4 px)").arg(where(b), b->text()).arg(b->width()).arg(need);
            if (qEnvironmentVariableIsSet("FIT_DEBUG"))
                for (const QWidget* p = b; p && !p->isWindow(); p = p->parentWidget())
                    qInfo() << p->metaObject()->className() << p->objectName() << "w" << p->width() << "min"
                            << p->minimumSizeHint() << p->minimumSize() << "max" << p->maximumWidth()
                            << p->sizePolicy();
        }
    }
    return out;
}

}  // namespace

class TestProjectorFit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("rbmscope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_projector_fit"));
        QSettings().clear();
    }

    void everyViewFits_data() {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("presenter");
        QTest::addColumn<double>("scale");
        for (const QSize s : {QSize(1280, 720), QSize(1024, 768)}) {
            const QString name = QStringLiteral("%1x%2").arg(s.width()).arg(s.height());
            for (double scale : {1.0, 1.5, 2.0})  // normal mode: the desktop's font scale
                QTest::newRow(qPrintable(name + QStringLiteral(" normal x") + QString::number(scale)))
                    << s << false << scale;
            for (double scale : {1.0, 1.5, 2.0})
                QTest::newRow(qPrintable(name + QStringLiteral(" presenter x") + QString::number(scale)))
                    << s << true << scale;
        }
    }

    void everyViewFits() {
        QFETCH(QSize, size);
        QFETCH(bool, presenter);
        QFETCH(double, scale);
        const QFont desktop = QApplication::font();
        const auto restore = qScopeGuard([desktop] { QApplication::setFont(desktop); });
        if (!presenter && scale != 1.0) {
            QFont f = desktop;
            f.setPointSizeF(desktop.pointSizeF() * scale);
            QApplication::setFont(f);
        }
        auto w = testWindow(size.width(), size.height());
        QVERIFY(w->loadPreset(QStringLiteral("four-mode")));
        QVERIFY(waitIdle(*w, 60000));
        if (presenter) {
            w->setPresenter(true);
            w->scalePresenter(scale / w->presenterScale());
            QCOMPARE(w->presenterScale(), scale);
        }
        w->setWindowState(Qt::WindowNoState);  // offscreen: the layout at `size`, not the screen's
        for (const QString& name : w->viewNames()) {
            QVERIFY(w->setCurrentView(name));
            w->resize(size);
            QTRY_COMPARE(w->size(), size);
            QTest::qWait(100);  // the layouts settle (a tab shown for the first time lays itself out)
            const QSize min = w->minimumSizeHint();
            QVERIFY2(min.width() <= size.width() && min.height() <= size.height(),
                     qPrintable(QStringLiteral("%1: the window needs at least %2x%3")
                                    .arg(name)
                                    .arg(min.width())
                                    .arg(min.height())));
            const View* v = w->activeView();
            QVERIFY(v);
            const QWidget* page = w->pageOf(v);
            QVERIFY2(insideWindow(page), qPrintable(name + QStringLiteral(": its page reaches past the window")));
            if (presenter) {
                const PresenterOverlay* strip = w->presenterOverlay();
                QVERIFY(strip->isVisible());
                QVERIFY2(insideWindow(strip), qPrintable(name + QStringLiteral(": the strip reaches past the window")));
                QVERIFY2(QFontMetrics(strip->unitsFont())
                                 .elidedText(strip->unitsText(), Qt::ElideRight, strip->unitsRect().width()) ==
                             strip->unitsText(),
                         qPrintable(QStringLiteral("%1: strip text cut: %2").arg(name, strip->unitsText())));
                const QFontMetrics fm(strip->figureFont());
                for (int i = 0; i < strip->info().figures.size(); ++i) {
                    const QRect r = strip->figureRect(i);
                    QVERIFY2(strip->rect().contains(r),
                             qPrintable(QStringLiteral("%1: strip line %2 outside").arg(name).arg(i)));
                    QVERIFY2(
                        fm.elidedText(strip->info().figures[i], Qt::ElideRight, r.width()) == strip->info().figures[i],
                        qPrintable(QStringLiteral("%1: strip line cut: %2").arg(name, strip->info().figures[i])));
                }
            } else {
                QVERIFY2(insideWindow(w->statusBar()),
                         qPrintable(name + QStringLiteral(": the status bar is off the window")));
                const auto* dock = w->findChild<QDockWidget*>(QStringLiteral("parameterDock"));
                QVERIFY(dock && dock->isVisible());
                QVERIFY2(insideWindow(dock),
                         qPrintable(name + QStringLiteral(": the parameter panel is off the window")));
            }
            // The page gives the view at least its minimum size, and scrolls where the window is smaller.
            const QWidget* vw = v->widget();
            QTRY_VERIFY2_WITH_TIMEOUT(
                vw->width() >= vw->minimumSizeHint().width() && vw->height() >= vw->minimumSizeHint().height(),
                qPrintable(name + QStringLiteral(": the view is squeezed below its minimum")), 3000);
            if (size == QSize(1280, 720) && scale == 1.0 && name == QStringLiteral("tempering")) {
                // On a 1280 px projector the Tempering view fits beside the parameter panel with no
                // sideways scrolling: it used to scroll, cutting its third column of rung heatmaps.
                const auto* area = qobject_cast<const QScrollArea*>(page);
                const int room = area ? area->viewport()->width() : page->width();
                QVERIFY2(vw->minimumSizeHint().width() <= room,
                         qPrintable(QStringLiteral("tempering needs %1 px, the page has %2")
                                        .arg(vw->minimumSizeHint().width())
                                        .arg(room)));
            }
            const QStringList cut = squeezed(v->widget());
            QVERIFY2(cut.isEmpty(), qPrintable(name + QStringLiteral(": text cut: ") + cut.join(QStringLiteral("; "))));
        }
    }

    // F9 folds the parameter panel away and brings it back: the width a 1024-pixel screen lacks.
    void f9TogglesTheParameterPanel() {
        auto w = testWindow(1024, 768);
        QVERIFY(w->loadPreset(QStringLiteral("four-mode")));
        QVERIFY(waitIdle(*w, 60000));
        auto* dock = w->findChild<QDockWidget*>(QStringLiteral("parameterDock"));
        QVERIFY(dock && dock->isVisible());
        const int pageWidth = w->pageOf(w->activeView())->width();
        QTest::keyClick(w.get(), Qt::Key_F9);
        QTRY_VERIFY(!dock->isVisible());
        QTRY_VERIFY(w->pageOf(w->activeView())->width() > pageWidth + 200);
        QTest::keyClick(w.get(), Qt::Key_F9);
        QTRY_VERIFY(dock->isVisible());
    }
};

QTEST_MAIN(TestProjectorFit)
#include "tst_projector_fit.moc"
