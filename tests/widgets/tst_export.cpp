// Export of every view: PNG and SVG images that read back (size, content), CSV tables whose
// rows hold the view's numbers, JSON documents that parse; unknown formats are refused by name.
#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLineEdit>
#include <QScrollBar>
#include <QSvgRenderer>
#include <QTabBar>
#include <QTemporaryDir>
#include <QtTest>

#include "main_window/main_window.hpp"
#include "main_window/view_export.hpp"
#include "screenshot_dir.hpp"
#include "test_window.hpp"
#include "views/export_hidden.hpp"

using namespace rbmscope;

class TestExport : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<MainWindow> w_;
    QTemporaryDir dir_;

    bool waitIdle() { return ::waitIdle(*w_); }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        w_ = testWindow();
        QVERIFY(w_->loadPreset("four-mode"));
        QVERIFY(waitIdle());
        RunSettings s = w_->settings();
        s.sweepSteps = {10, 30};
        s.chains = 200;
        w_->applySettings(s);
        QVERIFY(waitIdle());
        w_->startSweep();
        QVERIFY(waitIdle());
    }
    void cleanupTestCase() { w_.reset(); }

    void everyViewExports_data() {
        QTest::addColumn<QString>("view");
        QTest::addColumn<int>("minRows");
        QTest::newRow("density") << "density" << 256 * 200;
        QTest::newRow("annealing") << "annealing" << 256 * 200;
        QTest::newRow("compare") << "compare" << 256 * 200;
        QTest::newRow("estimates") << "estimates" << 4;
    }
    void everyViewExports() {
        QFETCH(QString, view);
        QFETCH(int, minRows);
        QVERIFY(w_->setCurrentView(view));
        QVERIFY(waitIdle());
        QApplication::processEvents();

        const QString png = dir_.filePath(view + ".png");
        QCOMPARE(w_->exportImage(png), QString());
        const QImage img(png);
        QVERIFY(!img.isNull());
        QVERIFY(img.width() > 400 && img.height() > 300);
        // Not a blank picture: many distinct colours (heatmaps, charts, text).
        QSet<QRgb> colours;
        for (int y = 0; y < img.height(); y += 7)
            for (int x = 0; x < img.width(); x += 7) colours.insert(img.pixel(x, y));
        QVERIFY2(colours.size() > 20, qPrintable(QString::number(colours.size())));

        const QString svg = dir_.filePath(view + ".svg");
        QCOMPARE(w_->exportImage(svg), QString());
        QSvgRenderer renderer(svg);
        QVERIFY(renderer.isValid());
        // The viewBox carries the exact geometry (defaultSize goes through millimetres and rounds).
        QCOMPARE(renderer.viewBox().size(), img.size());
        QVERIFY(std::abs(renderer.defaultSize().width() - img.width()) <= 1);
        QFile svgFile(svg);
        QVERIFY(svgFile.open(QIODevice::ReadOnly));
        const QByteArray svgText = svgFile.readAll();
        QVERIFY(svgText.contains("<svg"));
        QVERIFY(svgText.contains("rbmscope"));

        const QString csv = dir_.filePath(view + ".csv");
        QCOMPARE(w_->exportData(csv), QString());
        QFile csvFile(csv);
        QVERIFY(csvFile.open(QIODevice::ReadOnly | QIODevice::Text));
        QStringList rows;
        while (!csvFile.atEnd()) {
            const QString line = QString::fromUtf8(csvFile.readLine()).trimmed();
            if (!line.isEmpty() && !line.startsWith('#')) rows << line;
        }
        QVERIFY2(rows.size() >= minRows + 1, qPrintable(QString::number(rows.size())));
        const int columns = static_cast<int>(rows[0].split(',').size());
        for (int i = 1; i < rows.size(); i += std::max<qsizetype>(1, rows.size() / 50)) {
            const QStringList cells = rows[i].split(',');
            QCOMPARE(static_cast<int>(cells.size()), columns);
            bool ok = false;
            cells[view == "estimates" ? 2 : 0].toDouble(&ok);
            QVERIFY2(ok, qPrintable(rows[i]));
        }
        if (view != "estimates") {
            // Densities: non-negative, and they integrate to about 1 over the grid.
            double sum = 0;
            for (int i = 1; i < rows.size(); ++i) sum += rows[i].split(',')[2].toDouble();
            const QJsonObject grid = [&] {
                const QString json = dir_.filePath(view + ".json");
                w_->exportData(json);
                QFile f(json);
                f.open(QIODevice::ReadOnly);
                return QJsonDocument::fromJson(f.readAll()).object().value("grid").toObject();
            }();
            const double cell = (grid["x1"].toDouble() - grid["x0"].toDouble()) / grid["nx"].toInt() *
                                (grid["y1"].toDouble() - grid["y0"].toDouble()) / grid["ny"].toInt();
            QVERIFY2(std::fabs(sum * cell - 1.0) < 1e-3, qPrintable(QString::number(sum * cell)));
        }

        const QString json = dir_.filePath(view + ".json");
        QCOMPARE(w_->exportData(json), QString());
        QFile jsonFile(json);
        QVERIFY(jsonFile.open(QIODevice::ReadOnly));
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(jsonFile.readAll(), &err);
        QCOMPARE(err.error, QJsonParseError::NoError);
        QVERIFY(doc.isObject());
        QCOMPARE(doc.object().value("model").toString(), QStringLiteral("Four-mode 2-D GRBM"));
        if (view == "estimates") QCOMPARE(doc.object().value("sweep").toArray().size(), 4);
        if (view == "compare") QCOMPARE(doc.object().value("lanes").toArray().size(), 2);
    }

    // A slide shows the figure, not the controls: while an export draws, every view's buttons,
    // sliders, check boxes, combo and spin boxes and text fields are hidden (their room goes to the
    // plots); afterwards they are back where they were. Tab bars stay: they name the page shown.
    void exportsLeaveTheControlsOut() {
        const QString shown = w_->currentView();
        const auto visibleControls = [](QWidget* view) {
            QStringList found;
            for (QWidget* c : view->findChildren<QWidget*>()) {
                const bool control = qobject_cast<QAbstractButton*>(c) || qobject_cast<QComboBox*>(c) ||
                                     qobject_cast<QAbstractSpinBox*>(c) || qobject_cast<QAbstractSlider*>(c) ||
                                     qobject_cast<QLineEdit*>(c);
                // Scroll bars, a tab bar's scroll buttons and a table's corner button belong to the
                // figure's frame, not the controls.
                const bool frame = qobject_cast<QScrollBar*>(c) || qobject_cast<QTabBar*>(c->parentWidget()) ||
                                   qobject_cast<QAbstractSpinBox*>(c->parentWidget()) ||
                                   qobject_cast<QAbstractItemView*>(c->parentWidget());
                if (control && !frame && c->isVisibleTo(view))
                    found << QStringLiteral("%1 '%2'").arg(
                        QString::fromLatin1(c->metaObject()->className()),
                        c->objectName().isEmpty() ? c->property("text").toString() : c->objectName());
            }
            return found;
        };
        int withControls = 0;
        for (const QString& name : w_->viewNames()) {
            QVERIFY(w_->setCurrentView(name));
            QWidget* view = w_->viewWidget<QWidget>(name);
            QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
            const QStringList before = visibleControls(view);
            if (before.isEmpty()) continue;
            ++withControls;
            QList<QWidget*> marked;
            for (QWidget* c : view->findChildren<QWidget*>())
                if (c->property(kExportHidden).toBool() && c->isVisible()) marked << c;
            QVERIFY2(!marked.isEmpty(), qPrintable(name));
            const QRect geometry = marked.front()->geometry();
            {
                const ControlsLeftOut figuresOnly(view);
                const QStringList left = visibleControls(view);
                QVERIFY2(left.isEmpty(), qPrintable(name + QStringLiteral(": ") + left.join(QStringLiteral(", "))));
                const QImage image = renderImage(view, 96);
                QCOMPARE(image.size(), view->size());
                QVERIFY(image.save(screenshotDir() + QStringLiteral("/export-figures-%1.png").arg(name)));
            }
            QCOMPARE(visibleControls(view), before);
            QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
            QCOMPARE(marked.front()->geometry(), geometry);
        }
        QVERIFY2(withControls >= 7, qPrintable(QString::number(withControls)));
        QVERIFY(w_->setCurrentView(shown));
    }

    // A slide's size: the view laid out at the size asked (at 96 dpi; twice the pixels at 192), then
    // back to its size on screen; sizes out of range are refused.
    void exportAtAChosenSize() {
        QWidget* view = w_->viewWidget<QWidget>(w_->currentView());
        const QSize shown = view->size();
        const QString png = dir_.filePath(QStringLiteral("slide.png"));
        QCOMPARE(w_->exportImage(png, 96, QSize(1200, 700)), QString());
        QCOMPARE(QImage(png).size(), QSize(1200, 700).expandedTo(view->minimumSizeHint()));
        QCOMPARE(w_->exportImage(png, 192, QSize(1200, 700)), QString());
        QCOMPARE(QImage(png).size(), QSize(1200, 700).expandedTo(view->minimumSizeHint()) * 2);
        QCOMPARE(view->size(), shown);
        QVERIFY(w_->exportImage(png, 96, QSize(50, 50)).contains(QStringLiteral("from 100×100")));
        QCOMPARE(w_->exportImage(screenshotDir() + QStringLiteral("/slide-1600x900.png"), 96, QSize(1600, 900)),
                 QString());
    }

    void unknownFormatsAreRefused() {
        QVERIFY(w_->exportImage(dir_.filePath("x.bmp")).contains("use .png or .svg"));
        QVERIFY(w_->exportData(dir_.filePath("x.xml")).contains("use .csv or .json"));
        QVERIFY(w_->exportData("/nonexistent-dir/x.csv").contains("cannot write"));
    }
};

QTEST_MAIN(TestExport)
#include "tst_export.moc"
