// The training view: training a BRBM on 3x3 bars-and-stripes raises the exact log-likelihood shown
// in the chart's series (which holds exactly the run's records, and never exceeds the data's
// bound -log 14); Stop keeps the model (saved and reloaded identically), Resume continues it and a
// checkpoint reloads it; a bad CSV path shows a message and keeps the settings; Compare methods
// runs every method one after another with one series each (tempered ones with swap acceptance in
// [0, 1]); Export data writes one CSV line per record; Open in app hands the trained model to the main window's samples
// view. With held-out rows a dashed curve per run holds their log-likelihood against the same log Z,
// carried by the status, the exports and sessions. Screenshots: training.png, training_heldout*.png
// in screenshotDir().
#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "core/data/datasets.hpp"
#include "core/exact/exact.hpp"
#include "core/io/model_io.hpp"
#include "core/training/heldout.hpp"
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

    // The view's defaults visibly learn within their own run on 4x4 bars-and-stripes (within 1 nat
    // of the best method in docs/user/training.md#measured, -3.88), a second run of a method has
    // another colour, and runs on other data get their own chart (the selected run's data set).
    void defaultsLearnWithDistinctColoursAndOneChartPerDataSet() {
        TrainingView v;
        v.resize(1400, 900);
        v.show();
        QCOMPARE(v.dataSpec().source, QStringLiteral("bars:4"));
        QSignalSpy ended(&v, &TrainingView::runEnded);
        QVERIFY(v.train());
        QVERIFY(ended.wait(120000));
        const int first = v.selectedRun();
        const auto& log = v.session()->run(first)->snapshot->log;
        QCOMPARE(v.session()->run(first)->snapshot->status, rbm::TrainStatus::Finished);
        const double start = log.front().log_likelihood, end = log.back().log_likelihood;
        qInfo("defaults (%s, %lld updates) on bars:4: exact log-likelihood %.3f -> %.3f",
              rbm::train_method_name(v.options().method), static_cast<long long>(v.options().updates), start, end);
        QVERIFY(end >= -3.88 - 1.0);
        QVERIFY(end - start > 5.0);

        QVERIFY(v.train());  // "pcd 2"
        QVERIFY(ended.wait(120000));
        const int second = v.selectedRun();
        QVERIFY(second != first);
        QVERIFY(v.likelihoodChart()->series(first) && v.likelihoodChart()->series(second));
        QVERIFY(v.likelihoodChart()->series(first)->color() != v.likelihoodChart()->series(second)->color());

        v.setDataSpec(bars3());
        v.setOptions(smallOptions(rbm::TrainMethod::Cd, 100));
        QVERIFY(v.train());
        QVERIFY(ended.wait(120000));
        const int other = v.selectedRun();
        QVERIFY(v.likelihoodChart()->series(other));
        QVERIFY(!v.likelihoodChart()->series(first));  // bars:4 runs leave the bars:3 chart
        QVERIFY(!v.likelihoodChart()->series(second));
        v.selectRun(first);
        QTRY_VERIFY(v.likelihoodChart()->series(first) && v.likelihoodChart()->series(second));
        QVERIFY(!v.likelihoodChart()->series(other));
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

    void heldOutCurveNextToTheTrainingOne() {
        // Held-out rows (20 draws from the 14 patterns, as the data spec samples them) scored at every
        // record against the same exact log Z: a dashed curve of its own, each point the records'
        // value, which is mean log p*(v) over those rows - log Z recomputed here from the model.
        TrainingView v;
        v.resize(1400, 900);
        v.show();
        TrainDataSpec d = bars3();
        d.test = QStringLiteral("bars:3:20:7");
        v.setDataSpec(d);
        QCOMPARE(v.dataSpec().test, d.test);
        v.setOptions(smallOptions(rbm::TrainMethod::Pcd, 300));
        QSignalSpy ended(&v, &TrainingView::runEnded);
        QVERIFY(v.train());
        QVERIFY(ended.wait(60000));
        const int id = v.selectedRun();
        const TrainingRun* r = v.session()->run(id);
        QVERIFY2(r && r->snapshot && r->error.isEmpty(), r ? qPrintable(r->error) : "no run");
        QLineSeries* train = v.likelihoodChart()->series(id);
        QLineSeries* held = v.likelihoodChart()->series(TrainingView::heldOutCurve(id));
        QVERIFY(train && held);
        QCOMPARE(held->pen().style(), Qt::DashLine);
        QCOMPARE(held->pen().color(), train->pen().color());
        QVERIFY2(held->name().contains(QStringLiteral("held out")), qPrintable(held->name()));
        const auto& log = r->snapshot->log;
        const auto hp = held->points(), tp = train->points();
        QCOMPARE(hp.size(), static_cast<qsizetype>(log.size()));
        double maxGap = 0;
        for (qsizetype i = 0; i < hp.size(); ++i) {
            QVERIFY(std::isfinite(hp[i].y()));
            QCOMPARE(hp[i].y(), log[static_cast<std::size_t>(i)].test_log_likelihood);
            maxGap = std::max(maxGap, std::abs(hp[i].y() - tp[i].y()));
        }
        QVERIFY2(maxGap > 1e-3, qPrintable(QString::number(maxGap)));
        const rbm::Dataset test = rbm::load_dataset("bars:3:20:7");
        const rbm::Model& m = r->snapshot->model;
        const double expected = rbm::log_unnorm_rows(m, test.X).mean() - rbm::exact_log_z(m);
        QVERIFY2(std::abs(hp.back().y() - expected) < 1e-9,
                 qPrintable(QStringLiteral("%1 vs %2").arg(hp.back().y()).arg(expected)));
        QVERIFY2(v.statusText().contains(QStringLiteral("held out")), qPrintable(v.statusText()));
        // Export carries it: the CSV's last three columns, the JSON's test_data and records.
        const QStringList lines = v.exportCsv().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QVERIFY(lines.first().endsWith(QStringLiteral("test_log_likelihood,test_low,test_high")));
        QCOMPARE(lines.last().section(QLatin1Char(','), 10, 10).toDouble(), hp.back().y());
        const QJsonObject run0 = v.exportJson()[QStringLiteral("runs")].toArray().first().toObject();
        QCOMPARE(run0[QStringLiteral("test_data")].toString(), d.test);
        const QJsonObject lastRecord = run0[QStringLiteral("log")].toArray().last().toObject();
        QCOMPARE(lastRecord[QStringLiteral("test_log_likelihood")].toDouble(), hp.back().y());
        // A session keeps the choice and the curve.
        TrainingView::SessionState state;
        const auto settings = v.sessionSettings();
        QCOMPARE(v.readSession(&settings, v.sessionRuns(), state), QString());
        QCOMPARE(state.data.test, d.test);
        TrainingView w;
        w.applySession(state);
        QCOMPARE(w.dataSpec().test, d.test);
        QLineSeries* restored = w.likelihoodChart()->series(TrainingView::heldOutCurve(w.selectedRun()));
        QVERIFY(restored);
        QCOMPARE(restored->points(), hp);
        QTest::qWait(50);  // the chart's title and legend are laid out in the event loop
        QVERIFY(v.grabForScreenshot().save(screenshotDir() + QStringLiteral("/training_heldout.png")));
        v.resize(1280, 720);
        QTest::qWait(50);
        QVERIFY(v.grabForScreenshot().save(screenshotDir() + QStringLiteral("/training_heldout_1280x720.png")));
        // Held-out rows of another width fail the run with a message, before any update.
        TrainDataSpec bad = bars3();
        bad.test = QStringLiteral("bars:2");
        v.setDataSpec(bad);
        QVERIFY(v.train());
        QVERIFY(ended.wait(60000));
        QVERIFY2(v.statusText().contains(QStringLiteral("held-out")), qPrintable(v.statusText()));
    }

    void heldOutFashionMnistScreenshot() {
        // The researcher's case: the test split of the same data, AIS bands (no exact log Z at 784 x 20).
        try {
            (void)rbm::load_dataset("fashion-mnist:test");
        } catch (const std::exception&) {
            QSKIP("dataset-fashion-mnist is not installed");
        }
        TrainingView v;
        v.resize(1280, 720);
        v.show();
        TrainDataSpec d;
        d.source = QStringLiteral("fashion-mnist");
        d.test = QStringLiteral("fashion-mnist:test");
        v.setDataSpec(d);
        auto o = smallOptions(rbm::TrainMethod::Pcd, 200);
        o.hidden = 20;
        o.batch = 100;
        o.learning_rate = 0.05;
        o.monitor_every = 40;
        o.monitor_examples = 500;
        o.ais_chains = 20;
        o.ais_steps = 200;
        v.setOptions(o);
        QSignalSpy ended(&v, &TrainingView::runEnded);
        QVERIFY(v.train());
        QVERIFY(ended.wait(120000));
        const int id = v.selectedRun();
        QLineSeries* held = v.likelihoodChart()->series(TrainingView::heldOutCurve(id));
        QVERIFY2(held, qPrintable(v.statusText()));
        for (const QPointF& p : held->points()) QVERIFY(std::isfinite(p.y()));
        QTest::qWait(50);
        QVERIFY(v.grabForScreenshot().save(screenshotDir() + QStringLiteral("/training_heldout_fashion.png")));
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
