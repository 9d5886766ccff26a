// The training view: training a BRBM on 3x3 bars-and-stripes raises the exact log-likelihood shown
// in the chart's series (which holds exactly the run's records, and never exceeds the data's
// bound -log 14); Stop keeps the model (saved and reloaded identically), Resume continues it and a
// checkpoint reloads it; a bad CSV path shows a message and keeps the settings; Compare methods
// runs every method one after another with one series each (tempered ones with swap acceptance in
// [0, 1]); Export data writes one CSV line per record; Open in app hands the trained model to the main window's samples
// view. Screenshot: training.png in screenshotDir().
#include <QComboBox>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QFile>
#include <QtTest>
#include <cmath>

#include "core/io/model_io.hpp"
#include "main_window/main_window.hpp"
#include "screenshot_dir.hpp"
#include "views/training/training_view.hpp"
#include "window_views.hpp"

using namespace rbmscope;

namespace {

rbm::TrainOptions smallOptions(rbm::TrainMethod method, rbm::Index updates) {
    rbm::TrainOptions o;
    o.kind = rbm::ModelKind::Brbm;
    o.hidden = 16;
    o.method = method;
    o.k = 1;
    o.batch = 10;
    o.learning_rate = 0.2;
    o.init_scale = 0.1;  // 0.01 sits on the bars-and-stripes plateau for ~1000 updates
    o.updates = updates;
    o.monitor_every = 25;
    o.seed = 5;
    return o;
}

TrainDataSpec bars3() {
    TrainDataSpec d;
    d.source = QStringLiteral("bars:3");
    d.prep = TrainDataSpec::Prep::AsIs;
    return d;
}

bool waitUntil(const std::function<bool()>& done, int ms = 60000) {
    QElapsedTimer t;
    t.start();
    while (!done() && t.elapsed() < ms) QTest::qWait(20);
    return done();
}

}  // namespace

class TestTrainingView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void exactLogLikelihoodRisesInTheChart() {
        TrainingView v;
        v.resize(1400, 900);
        v.show();
        v.setDataSpec(bars3());
        v.setOptions(smallOptions(rbm::TrainMethod::Pcd, 600));
        QSignalSpy ended(&v, &TrainingView::runEnded);
        QVERIFY(v.train());
        QVERIFY(ended.wait(60000));
        const int id = v.selectedRun();
        const TrainingRun* r = v.session()->run(id);
        QVERIFY(r && r->snapshot);
        QCOMPARE(r->snapshot->status, rbm::TrainStatus::Finished);
        QLineSeries* s = v.likelihoodChart()->series(id);
        QVERIFY(s);
        QVERIFY2(s->name().contains(QStringLiteral("exact")), qPrintable(s->name()));
        const auto pts = s->points();
        const auto& log = r->snapshot->log;
        QCOMPARE(pts.size(), static_cast<qsizetype>(log.size()));
        QVERIFY(pts.size() >= 25);  // update 0, every 25, the end
        for (qsizetype i = 0; i < pts.size(); ++i) {
            QCOMPARE(pts[i].x(), double(log[static_cast<std::size_t>(i)].update));
            QCOMPARE(pts[i].y(), log[static_cast<std::size_t>(i)].log_likelihood);
        }
        const double first = pts.front().y(), last = pts.back().y(), bound = -std::log(14.0);
        qInfo("pcd on bars:3: exact log-likelihood %.4f -> %.4f (bound %.4f)", first, last, bound);
        QVERIFY(last - first > 1.0);
        for (const QPointF& p : pts) QVERIFY(p.y() <= bound + 1e-9);
        QVERIFY(v.reconstructionChart()->series(id));
        // Export data: a header and one line per record.
        const QStringList lines = v.exportCsv().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), static_cast<qsizetype>(log.size() + 1));
        QVERIFY2(lines.last().startsWith(QStringLiteral("pcd,pcd,600,")), qPrintable(lines.last()));
        QCOMPARE(lines.last().section(QLatin1Char(','), 3, 3).toDouble(), last);
        QCOMPARE(v.negativeGrid()->imageRows(), 3);
        QCOMPARE(v.filtersView()->grid()->tileCount(), 16);
    }

    void stopKeepsTheModelAndResumeContinues() {
        QTemporaryDir dir;
        TrainingView v;
        v.show();
        v.setDataSpec(bars3());
        v.setOptions(smallOptions(rbm::TrainMethod::Cd, 10000000));
        QSignalSpy ended(&v, &TrainingView::runEnded);
        QVERIFY(v.train());
        const int id = v.selectedRun();
        QVERIFY(waitUntil([&] {
            const TrainingRun* r = v.session()->run(id);
            return r->snapshot && r->snapshot->updatesDone >= 30;
        }));
        v.stop();
        QVERIFY(ended.wait(30000));
        const TrainingRun* r = v.session()->run(id);
        QCOMPARE(r->snapshot->status, rbm::TrainStatus::Cancelled);
        const rbm::Index done = r->snapshot->updatesDone;
        QVERIFY(done >= 30);
        const rbm::Model kept = r->snapshot->model;
        QVERIFY(kept.as<rbm::Brbm>()->W.cwiseAbs().maxCoeff() > 0.05);  // trained, not the 0.01-scale start
        // Saved and reloaded: the same parameters.
        const QString modelPath = dir.filePath(QStringLiteral("m.json"));
        QCOMPARE(v.saveModel(modelPath), QString());
        const rbm::Model back = rbm::load_model(modelPath.toStdString());
        QCOMPARE(back.as<rbm::Brbm>()->W, kept.as<rbm::Brbm>()->W);
        // Checkpoint, then resume the original.
        const QString ckpt = dir.filePath(QStringLiteral("c.json"));
        QCOMPARE(v.saveCheckpoint(ckpt), QString());
        QVERIFY(v.resume());
        QVERIFY(waitUntil([&] { return v.session()->run(id)->snapshot->updatesDone >= done + 20; }));
        v.stop();
        QVERIFY(ended.wait(30000));
        QVERIFY(v.session()->run(id)->snapshot->updatesDone > done);
        // The checkpoint is a new run at the stopping point with the same model.
        QCOMPARE(v.loadCheckpoint(ckpt), QString());
        const TrainingRun* loaded = v.session()->run(v.selectedRun());
        QVERIFY(loaded != r);
        QCOMPARE(loaded->snapshot->updatesDone, done);
        QCOMPARE(loaded->snapshot->model.as<rbm::Brbm>()->W, kept.as<rbm::Brbm>()->W);
        QVERIFY(!v.statusText().contains(QStringLiteral("The checkpoint was")));  // this build made it
        // The same checkpoint as if another SIMD path had written it: the status says so.
        {
            QFile f(ckpt);
            QVERIFY(f.open(QIODevice::ReadOnly));
            QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
            f.close();
            QJsonObject build = o.value(QStringLiteral("build")).toObject();
            QVERIFY(!build.isEmpty());
            build[QStringLiteral("simd")] = build.value(QStringLiteral("simd")).toString() == QLatin1String("sse2")
                                                ? QStringLiteral("avx2")
                                                : QStringLiteral("sse2");
            o[QStringLiteral("build")] = build;
            const QString other = dir.filePath(QStringLiteral("c-other-path.json"));
            QFile g(other);
            QVERIFY(g.open(QIODevice::WriteOnly));
            g.write(QJsonDocument(o).toJson());
            g.close();
            QCOMPARE(v.loadCheckpoint(other), QString());
            QVERIFY2(v.statusText().contains(QStringLiteral("The checkpoint was")), qPrintable(v.statusText()));
        }
        // A checkpoint with other data is refused with a message.
        TrainDataSpec other = bars3();
        other.source = QStringLiteral("bars:2");
        v.setDataSpec(other);
        QVERIFY(!v.loadCheckpoint(ckpt).isEmpty());
        QVERIFY(v.statusText().startsWith(QStringLiteral("Cannot load the checkpoint")));
    }

    void fashionMnistIsOfferedAndRoundTrips() {
        // Both Fashion-MNIST sets are entries of the Data choice, and a session's spec selects them.
        TrainingView v;
        QComboBox* kind = nullptr;
        for (QComboBox* c : v.findChildren<QComboBox*>())
            if (c->count() > 0 && c->itemText(0) == QStringLiteral("bars and stripes")) kind = c;
        QVERIFY(kind);
        QStringList items;
        for (int i = 0; i < kind->count(); ++i) items << kind->itemText(i);
        QVERIFY2(items.filter(QStringLiteral("Fashion-MNIST")).size() == 2,
                 qPrintable(items.join(QStringLiteral(" | "))));
        for (const QString& spec :
             {QStringLiteral("fashion-mnist"), QStringLiteral("fashion-mnist:test"), QStringLiteral("digits"),
              QStringLiteral("bars:3"), QStringLiteral("/tmp/x-idx3-ubyte.gz")}) {
            TrainDataSpec d;
            d.source = spec;
            d.prep = TrainDataSpec::Prep::Binarize;
            v.setDataSpec(d);
            QCOMPARE(v.dataSpec().source, spec);
        }
        TrainDataSpec train;
        train.source = QStringLiteral("fashion-mnist:train");
        v.setDataSpec(train);
        QCOMPARE(v.dataSpec().source, QStringLiteral("fashion-mnist"));  // the same set, by its short name
    }

    void badCsvPathShowsAMessage() {
        TrainingView v;
        v.show();
        TrainDataSpec d;
        d.source = QStringLiteral("/no/such/dir/data.csv");
        v.setDataSpec(d);
        v.setOptions(smallOptions(rbm::TrainMethod::Pcd, 50));
        QSignalSpy ended(&v, &TrainingView::runEnded);
        QVERIFY(v.train());  // the data loads in the background
        QVERIFY(ended.wait(30000));
        QVERIFY2(v.statusText().contains(QStringLiteral("no such file")), qPrintable(v.statusText()));
        QCOMPARE(v.session()->run(v.selectedRun())->error.isEmpty(), false);
        QCOMPARE(v.dataSpec().source, d.source);  // the settings stay
        QVERIFY(!v.busy());
        // A method that does not fit the kind is refused before anything starts.
        auto o = smallOptions(rbm::TrainMethod::Leaky, 50);
        v.setOptions(o);
        const auto before = v.session()->ids().size();
        QVERIFY(!v.train());
        QVERIFY(v.statusText().contains(QStringLiteral("leaky")));
        QCOMPARE(v.session()->ids().size(), before);
    }

    void compareMethodsDrawsOneSeriesEach() {
        TrainingView v;
        v.resize(1500, 950);
        v.show();
        v.setDataSpec(bars3());
        v.setOptions(smallOptions(rbm::TrainMethod::Pcd, 600));
        QVERIFY(v.compareMethods());
        QVERIFY(v.busy());
        QVERIFY(waitUntil([&] { return !v.busy(); }, 120000));
        QCOMPARE(v.likelihoodChart()->curveCount(), 5);
        for (const int id : v.session()->ids()) {
            const TrainingRun* r = v.session()->run(id);
            QCOMPARE(r->snapshot->status, rbm::TrainStatus::Finished);
            const auto pts = v.likelihoodChart()->series(id)->points();
            qInfo("%s: %.4f -> %.4f", qPrintable(r->label), pts.front().y(), pts.back().y());
            QVERIFY(pts.back().y() - pts.front().y() > 1.0);
            if (rbm::is_tempered(r->options.method)) {
                QLineSeries* sw = v.swapChart()->series(id);
                QVERIFY(sw && sw->count() > 0);
                for (const QPointF& p : sw->points()) QVERIFY(p.y() >= 0 && p.y() <= 1);
            } else {
                QVERIFY(!v.swapChart()->series(id));
            }
        }
        QVERIFY(v.grabForScreenshot().save(screenshotDir() + QStringLiteral("/training.png")));
    }

    void openInAppLoadsTheModelIntoTheWindow() {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        TrainingView* v = trainingViewOf(w);
        QVERIFY(w.setCurrentView(QStringLiteral("training")));
        v->setDataSpec(bars3());
        v->setOptions(smallOptions(rbm::TrainMethod::Pcd, 60));
        QSignalSpy ended(v, &TrainingView::runEnded);
        QVERIFY(v->train());
        QVERIFY(ended.wait(60000));
        v->openInApp();
        QCOMPARE(w.model().n_visible(), rbm::Index(9));
        QCOMPARE(w.model().n_hidden(), rbm::Index(16));
        QCOMPARE(w.currentView(), QStringLiteral("samples"));
        QCOMPARE(samplesViewOf(w)->dataGrid()->tileCount(), 14);
        QVERIFY(samplesViewOf(w)->message().isEmpty());
        QVERIFY(waitUntil([&] { return w.idle(); }, 60000));
        QCOMPARE(samplesViewOf(w)->sampleGrid()->imageRows(), 3);
        QCOMPARE(filtersViewOf(w)->grid()->tileCount(), 16);
    }
};

QTEST_MAIN(TestTrainingView)
#include "tst_training_view.moc"
