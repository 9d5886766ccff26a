// Sessions keep every view: a training run finished in the app and one
// stopped part-way come back in a fresh window with their curves, negative samples and models
// bit for bit, shown without re-running; the tempering ladder with a dragged rung, the Samples
// view's data set (standardized digits, with the values applied) and the other views' controls
// come back as they were; the autosave keeps them too; a version-1 session written before any
// of this still opens (and leaves the Training view alone); a wrong value in a new key is
// refused with a message naming it, and nothing in the window changes.
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <cstring>

#include "core/io/model_io.hpp"
#include "core/io/session_io.hpp"
#include "main_window/main_window.hpp"
#include "screenshot_dir.hpp"
#include "views/training/training_view.hpp"
#include "window_views.hpp"

using namespace rbmscope;

namespace {

constexpr int kIdleMs = 60000;
const QString kData = QStringLiteral(RBMSCOPE_TEST_DATA);

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool sameBits(const rbm::RowMat& a, const rbm::RowMat& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

// Every double of every record, bitwise (NaN, "not measured", is written as null and read back
// as NaN: compared by being NaN).
bool sameRecords(const std::vector<rbm::TrainRecord>& a, const std::vector<rbm::TrainRecord>& b) {
    if (a.size() != b.size()) return false;
    const auto same = [](double u, double v) { return std::isnan(u) ? std::isnan(v) : sameBits(u, v); };
    for (std::size_t i = 0; i < a.size(); ++i) {
        const rbm::TrainRecord &x = a[i], &y = b[i];
        if (x.update != y.update || x.log_likelihood_method != y.log_likelihood_method ||
            x.projections != y.projections || x.swap_acceptance.size() != y.swap_acceptance.size())
            return false;
        for (double rbm::TrainRecord::*f :
             {&rbm::TrainRecord::epoch, &rbm::TrainRecord::learning_rate, &rbm::TrainRecord::log_likelihood,
              &rbm::TrainRecord::log_likelihood_low, &rbm::TrainRecord::log_likelihood_high, &rbm::TrainRecord::log_z,
              &rbm::TrainRecord::ais_ess, &rbm::TrainRecord::reconstruction_error,
              &rbm::TrainRecord::max_singular_value, &rbm::TrainRecord::seconds})
            if (!same(x.*f, y.*f)) return false;
        for (std::size_t k = 0; k < x.swap_acceptance.size(); ++k)
            if (!same(x.swap_acceptance[k], y.swap_acceptance[k])) return false;
    }
    return true;
}

bool waitUntil(const std::function<bool()>& done, int ms = 60000) {
    QElapsedTimer t;
    t.start();
    while (!done() && t.elapsed() < ms) QTest::qWait(20);
    return done();
}

rbm::TrainOptions options(rbm::TrainMethod method, rbm::Index updates) {
    rbm::TrainOptions o;
    o.kind = rbm::ModelKind::Brbm;
    o.hidden = 8;
    o.method = method;
    o.batch = 10;
    o.learning_rate = 0.2;
    o.init_scale = 0.1;
    o.updates = updates;
    o.monitor_every = 20;
    o.seed = 7;
    o.temperatures = 3;
    return o;
}

TrainDataSpec bars4() {
    TrainDataSpec d;
    d.source = QStringLiteral("bars:4");
    d.prep = TrainDataSpec::Prep::AsIs;
    return d;
}

// A window with two training runs (one finished, a tempered one stopped part-way), a dragged
// rung, a data set in the Samples view and non-default controls in the other views.
struct Worked {
    std::vector<double> ladder;
};

Worked work(MainWindow& a) {
    Worked out;
    TrainingView* t = trainingViewOf(a);
    t->setDataSpec(bars4());
    t->setOptions(options(rbm::TrainMethod::Pcd, 200));
    QSignalSpy ended(t, &TrainingView::runEnded);
    if (!t->train()) return out;
    if (!ended.wait(60000)) return out;
    t->setOptions(options(rbm::TrainMethod::Deo, 10000000));
    if (!t->train()) return out;
    const int id = t->selectedRun();
    if (!waitUntil([&] {
            const TrainingRun* r = t->session()->run(id);
            return r->snapshot && r->snapshot->updatesDone >= 40;
        }))
        return out;
    t->stop();
    if (!waitUntil([&] { return !t->busy(); })) return out;
    t->selectRun(t->session()->ids().front());
    // Controls of the view that differ from the defaults.
    rbm::TrainOptions later = options(rbm::TrainMethod::Lpt, 321);
    later.learning_rate = 0.125;
    t->setOptions(later);

    // The tempering ladder: a linear ladder of 5 rungs with rung 2 dragged to a β needing every digit.
    TemperingSettings ts = temperingViewOf(a)->settings();
    ts.scheme = rbm::PtScheme::Lifted;
    ts.ladder = LadderKind::Linear;
    ts.replicas = 5;
    ts.seed = 99;
    temperingViewOf(a)->setSettings(ts);
    std::vector<double> betas = temperingViewOf(a)->ladderPlot()->ladder();
    betas[2] = 0.1 + 0.2 + 0.3;  // 0.6000000000000001: every digit is needed to get it back
    Q_EMIT temperingViewOf(a)->ladderPlot()->ladderEdited(betas);
    temperingViewOf(a)->cancel();
    out.ladder = betas;

    // The Samples view: the digits, standardized (a data set of 64 values: not this model's, so
    // it is not attached to the model and only the session keeps it).
    samplesViewOf(a)->setSettings({SamplerKind::Pt, 25, 1234, 77, 0.7, 6, 20.0});
    return out;
}

}  // namespace

class TestSessionViews : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QFile::remove(MainWindow::autosavePath());
    }
    void cleanup() { QFile::remove(MainWindow::autosavePath()); }

    void everyViewComesBackBitForBit() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("s.json"));
        MainWindow a;
        a.setInteractive(false);
        a.resize(1400, 900);
        QVERIFY(a.loadPreset(QStringLiteral("bars-and-stripes")));
        const Worked worked = work(a);
        QCOMPARE(worked.ladder.size(), std::size_t{5});
        QVERIFY(worked.ladder[2] == 0.6000000000000001);  // dragged off the linear ladder's 0.5
        QCOMPARE(trainingViewOf(a)->session()->ids().size(), std::size_t{2});
        // The digits, standardized (the values applied are computed from the data on loading).
        rbm::TrainingData digits;
        digits.data = "digits";
        digits.standardize = true;
        QVERIFY(samplesViewOf(a)->setTrainingData(digits));
        QVERIFY(samplesViewOf(a)->trainingData() && samplesViewOf(a)->trainingData()->standardize);
        // Other views' controls.
        estimatesViewOf(a)->setBars(EstimatesView::Bars::ThreeSigma);
        filtersViewOf(a)->setSharedScale(false);
        QVERIFY(a.setCurrentView(QStringLiteral("training")));
        QTRY_VERIFY_WITH_TIMEOUT(!trainingViewOf(a)->busy(), kIdleMs);
        const rbm::Session saved = a.captureSession();
        QVERIFY(a.saveSession(path));
        // Kept beside the screenshots, to open in the app: rbmscope --session FILE --view training.
        const QString kept = screenshotDir() + QStringLiteral("/session-with-training-runs.json");
        QFile::remove(kept);
        QVERIFY(QFile::copy(path, kept));

        MainWindow b;
        b.setInteractive(false);
        b.resize(1400, 900);
        QVERIFY(b.loadPreset(QStringLiteral("four-mode")));
        QVERIFY2(b.openSession(path), qPrintable(b.sessionMessage()));
        QCOMPARE(b.currentView(), QStringLiteral("training"));

        // Training: the same runs, records, negatives and models, bit for bit; the curves drawn
        // from them without a job having run (nothing is busy, no trainer exists).
        TrainingView* ta = trainingViewOf(a);
        TrainingView* tb = trainingViewOf(b);
        QVERIFY(!tb->busy());
        const auto idsA = ta->session()->ids(), idsB = tb->session()->ids();
        QCOMPARE(idsB.size(), idsA.size());
        for (std::size_t i = 0; i < idsA.size(); ++i) {
            const TrainingRun* x = ta->session()->run(idsA[i]);
            const TrainingRun* y = tb->session()->run(idsB[i]);
            QVERIFY(x->snapshot && y->snapshot);
            QVERIFY(!y->trainer);
            QCOMPARE(y->label, x->label);
            QCOMPARE(y->snapshot->status, x->snapshot->status);
            QCOMPARE(y->snapshot->updatesDone, x->snapshot->updatesDone);
            QCOMPARE(y->snapshot->totalUpdates, x->snapshot->totalUpdates);
            QVERIFY(sameRecords(y->snapshot->log, x->snapshot->log));
            QVERIFY(y->snapshot->log.size() >= 3);
            QCOMPARE(rbm::model_to_json_text(y->snapshot->model), rbm::model_to_json_text(x->snapshot->model));
            QVERIFY(sameBits(rbm::RowMat(y->snapshot->model.as<rbm::Brbm>()->W),
                             rbm::RowMat(x->snapshot->model.as<rbm::Brbm>()->W)));
            QVERIFY(sameBits(y->snapshot->negatives, x->snapshot->negatives));
            QVERIFY(trainSettingsToMap(y->data, y->options) == trainSettingsToMap(x->data, x->options));
            // The chart holds exactly the run's records.
            QLineSeries* s = tb->likelihoodChart()->series(idsB[i]);
            QVERIFY(s);
            const auto pts = s->points();
            std::size_t finite = 0;
            for (const auto& rec : y->snapshot->log) finite += std::isfinite(rec.log_likelihood) ? 1 : 0;
            QCOMPARE(static_cast<std::size_t>(pts.size()), finite);
            QCOMPARE(pts.back().y(), y->snapshot->log.back().log_likelihood);
        }
        QCOMPARE(ta->session()->run(idsA[0])->snapshot->status, rbm::TrainStatus::Finished);
        QCOMPARE(ta->session()->run(idsA[1])->snapshot->status, rbm::TrainStatus::Cancelled);
        // The selected run and the controls.
        QCOMPARE(tb->selectedRun(), idsB[0]);
        QCOMPARE(tb->options().method, rbm::TrainMethod::Lpt);
        QCOMPARE(tb->options().updates, rbm::Index{321});
        QCOMPARE(tb->options().learning_rate, 0.125);
        // A restored run is saved and opened in the app like any other; it cannot be resumed.
        QCOMPARE(tb->saveModel(QDir(dir.path()).filePath(QStringLiteral("m.json"))), QString());
        QVERIFY(!tb->resume());
        QVERIFY(tb->statusText().contains(QStringLiteral("restored from a session")));

        // Tempering: the dragged ladder, shown and used.
        QCOMPARE(temperingViewOf(b)->settings().customLadder, worked.ladder);
        QCOMPARE(temperingViewOf(b)->ladderPlot()->ladder(), worked.ladder);
        QCOMPARE(temperingViewOf(b)->settings().scheme, rbm::PtScheme::Lifted);
        QCOMPARE(temperingViewOf(b)->settings().seed, std::uint64_t{99});

        // Samples: the data set with the values its standardization applied.
        const auto& da = samplesViewOf(a)->trainingData();
        const auto& db = samplesViewOf(b)->trainingData();
        QVERIFY(db && db->data == "digits" && db->standardize);
        QVERIFY(sameBits(rbm::RowMat(db->standardize_mean.transpose()), rbm::RowMat(da->standardize_mean.transpose())));
        QVERIFY(sameBits(rbm::RowMat(db->standardize_sd.transpose()), rbm::RowMat(da->standardize_sd.transpose())));
        QVERIFY(samplesViewOf(b)->dataset() && samplesViewOf(b)->dataset()->dim() == 64);
        QCOMPARE(samplesViewOf(b)->settings().chains, 25);
        QCOMPARE(samplesViewOf(b)->settings().sampler, SamplerKind::Pt);

        // Every view's settings as the session holds them, and the file written again: the same.
        const rbm::Session back = b.captureSession();
        QVERIFY(back.views == saved.views);
        QCOMPARE(rbm::session_to_json_text(back), rbm::session_to_json_text(saved));

        QImage shot = b.grab().toImage();
        QVERIFY(!shot.isNull());
        shot.save(screenshotDir() + QStringLiteral("/session-training-restored.png"));
    }

    void autosaveKeepsTheRuns() {
        MainWindow a;
        a.setInteractive(false);
        QVERIFY(a.loadPreset(QStringLiteral("bars-and-stripes")));
        TrainingView* t = trainingViewOf(a);
        t->setDataSpec(bars4());
        t->setOptions(options(rbm::TrainMethod::Cd, 60));
        QSignalSpy ended(t, &TrainingView::runEnded);
        QVERIFY(t->train());
        QVERIFY(ended.wait(60000));
        QCOMPARE(a.autosaveSession(), QString());
        const rbm::Session s = rbm::load_session(MainWindow::autosavePath().toStdString());
        QCOMPARE(s.training_runs.size(), std::size_t{1});
        QVERIFY(sameRecords(s.training_runs[0].log, t->session()->run(t->selectedRun())->snapshot->log));
        QVERIFY(s.views.count("tempering") && s.views.count("samples") && s.views.count("training"));
    }

    void versionOneSessionsStillOpen() {
        MainWindow a;
        a.setInteractive(false);
        QVERIFY(a.loadPreset(QStringLiteral("bars-and-stripes")));
        TrainingView* t = trainingViewOf(a);
        t->setDataSpec(bars4());
        t->setOptions(options(rbm::TrainMethod::Cd, 40));
        QSignalSpy ended(t, &TrainingView::runEnded);
        QVERIFY(t->train());
        QVERIFY(ended.wait(60000));
        for (const char* name : {"preset-four-mode.json", "embedded-grbm.json", "embedded-leaky.json"}) {
            const QString path = kData + QStringLiteral("/fuzz/session/") + QString::fromLatin1(name);
            QVERIFY2(a.openSession(path), qPrintable(a.sessionMessage()));
            // Written before the Training view was kept: its run stays.
            QCOMPARE(t->session()->ids().size(), std::size_t{1});
        }
    }

    void aWrongNewKeyIsNamedAndChangesNothing_data() {
        QTest::addColumn<QString>("views");
        QTest::addColumn<QString>("message");
        QTest::newRow("replicas")
            << QStringLiteral(R"("views": {"tempering": {"replicas": 1000}},)")
            << QStringLiteral("setting 'views.tempering.replicas' must be an integer from 2 to 64, got 1000");
        QTest::newRow("ladder not increasing")
            << QStringLiteral(
                   R"("views": {"tempering": {"ladder": "linear", "replicas": 3, "custom_ladder": [0.5, 0.2, 1]}},)")
            << QStringLiteral("setting 'views.tempering.custom_ladder' must be a valid ladder, got one that is not");
        QTest::newRow("ladder length")
            << QStringLiteral(R"("views": {"tempering": {"replicas": 3, "custom_ladder": [0, 1]}},)")
            << QStringLiteral(
                   "setting 'views.tempering.custom_ladder' must be empty or 3 β's (one per replica), got 2 β's");
        QTest::newRow("samples speed") << QStringLiteral(R"("views": {"samples": {"speed": 7}},)")
                                       << QStringLiteral("setting 'views.samples.speed' must be one of 0, 200, 20, 2");
        QTest::newRow("training hidden")
            << QStringLiteral(R"("views": {"training": {"hidden": 5000}},)")
            << QStringLiteral(
                   "setting 'views.training.hidden' must be a number from 1 to 4096 (the view's field), got 5000");
        QTest::newRow("training method")
            << QStringLiteral(R"("views": {"training": {"method": "sgd"}},)")
            << QStringLiteral(
                   "setting 'views.training.method' must be one of cd, pcd, pt, lpt, deo, leaky, mix, got \"sgd\"");
        QTest::newRow("estimates bars")
            << QStringLiteral(R"("views": {"estimates": {"bars": "none"}},)")
            << QStringLiteral("setting 'views.estimates.bars' must be one of bootstrap95, three-sigma, got \"none\"");
        QTest::newRow("meanfield damping")
            << QStringLiteral(R"("views": {"meanfield": {"damping": 0}},)")
            << QStringLiteral("setting 'views.meanfield.damping' must be a number from 0.05 to 1, got 0");
        QTest::newRow("film betas") << QStringLiteral(R"("views": {"annealing": {"film_betas": "0, 2"}},)")
                                    << QStringLiteral(
                                           "setting 'views.annealing.film_betas' must be text the field accepts");
        QTest::newRow("run does not match its model")
            << QStringLiteral(
                   R"("training_runs": [{"label": "cd", "settings": {"hidden": 3}, "status": "finished", "message": "",
                 "updates_done": 0, "total_updates": 0, "projections": 0, "image_rows": 0, "image_cols": 0, "seconds": 0,
                 "log": [], "negatives": [], "model": {"kind": "brbm", "W": [[1, 2]], "b": [0], "c": [0, 0]}}],)")
            << QStringLiteral(
                   "training_runs[0]: the model (brbm, 2 hidden units) does not match the run's settings (kind brbm, "
                   "hidden 3)");
    }
    void aWrongNewKeyIsNamedAndChangesNothing() {
        QFETCH(QString, views);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.json"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write((QStringLiteral(R"({"format": "rbmscope-session", "version": 1, "model": "four-mode", )") + views +
                     QStringLiteral(R"( "view": "tempering"})"))
                        .toUtf8());
        }
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(w.loadPreset(QStringLiteral("leaky-2d")));
        const rbm::Session before = w.captureSession();
        QVERIFY(!w.openSession(path));
        QVERIFY2(w.sessionMessage().contains(message), qPrintable(w.sessionMessage()));
        QVERIFY2(!w.sessionMessage().contains(QLatin1Char('\n')), qPrintable(w.sessionMessage()));
        QCOMPARE(w.model().kind(), rbm::ModelKind::Leaky);
        QCOMPARE(rbm::session_to_json_text(w.captureSession()), rbm::session_to_json_text(before));
    }
};

QTEST_MAIN(TestSessionViews)
#include "tst_session_views.moc"
