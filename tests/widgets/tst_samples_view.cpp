// The samples view on the 4x4 bars-and-stripes BRBM: the grid changes as the Gibbs chains run
// (frames arrive while the job runs, not only at the end), the same seed gives the same samples,
// and the PT target-rung samples are mostly valid bars or stripes (the model puts ~91% of its mass
// on them; Gibbs chains barely mix on it); the data grid shows the data set's patterns; a 2-D model, a bad
// data path and a sampler that does not fit the model each give a message instead of a crash.
// The filters view sorts hidden units by the norm of their weights.
// Screenshots: samples.png and filters.png in screenshotDir().
#include <QSignalSpy>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "core/data/datasets.hpp"
#include "core/io/presets.hpp"
#include "screenshot_dir.hpp"
#include "views/filters/filters_view.hpp"
#include "views/samples/samples_view.hpp"

using namespace rbmscope;

namespace {

double validFraction(const rbm::RowMat& states, int d) {
    int valid = 0;
    for (rbm::Index r = 0; r < states.rows(); ++r) {
        rbm::Vec x = states.row(r).transpose();
        valid += rbm::is_bars_and_stripes(x.data(), d) ? 1 : 0;
    }
    return double(valid) / double(states.rows());
}

}  // namespace

class TestSamplesView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void gridChangesAsChainsRunAndEndsOnBarsAndStripes() {
        SamplesView v;
        v.resize(1100, 650);
        v.show();
        v.setModel(rbm::load_preset("bars-and-stripes"));
        QVERIFY2(v.message().isEmpty(), qPrintable(v.message()));
        QVERIFY(v.setDataSpec(QStringLiteral("bars:4")));
        QCOMPARE(v.dataGrid()->tileCount(), 30);  // every pattern of the data set once
        for (int t = 0; t < 30; ++t) {
            const QImage img = v.dataGrid()->tileImage(t);
            rbm::Vec x(16);
            for (int i = 0; i < 16; ++i) x(i) = qGray(img.pixel(i % 4, i / 4)) > 127 ? 1 : 0;
            QVERIFY(rbm::is_bars_and_stripes(x.data(), 4));
        }
        SamplesSettings s;
        s.sampler = SamplerKind::Gibbs;
        s.chains = 64;
        s.sweeps = 60;
        s.sweepsPerSecond = 20;  // paced (3 s), so frames arrive while it runs even on a loaded machine
        s.seed = 3;
        v.setSettings(s);
        v.setShowProbabilities(false);
        QSignalSpy frames(&v, &SamplesView::frameShown);
        QSignalSpy done(&v, &SamplesView::runFinished);
        v.run();
        QVERIFY(v.busy());
        QVERIFY(frames.wait(10000));
        const QImage first = v.sampleGrid()->image();
        const long long firstDone = v.shownFrame()->done;
        QVERIFY(done.wait(30000));
        QVERIFY2(frames.count() >= 2, qPrintable(QString::number(frames.count())));
        QVERIFY(v.shownFrame()->finished);
        QCOMPARE(v.shownFrame()->done, 60LL);
        QVERIFY(firstDone < 60);
        QVERIFY(v.sampleGrid()->image() != first);  // the grid followed the chains
        QCOMPARE(v.sampleGrid()->tileCount(), 64);
        const rbm::RowMat finalStates = v.shownFrame()->states;
        // Gibbs barely mixes on this hand-built model (weights ±16: a chain must hit a pattern
        // exactly to switch its hidden unit on), so validity is checked on PT below.
        qInfo("Gibbs: %.3f of 64 samples are bars or stripes", validFraction(finalStates, 4));
        // Binary display = the states themselves.
        const QImage t0 = v.sampleGrid()->tileImage(0);
        for (int i = 0; i < 16; ++i) QCOMPARE(qGray(t0.pixel(i % 4, i / 4)) > 127, finalStates(0, i) > 0.5);
        // Probabilities: P(v=1|h) in [0, 1], not the 0/1 states.
        v.setShowProbabilities(true);
        const rbm::RowMat& P = v.shownFrame()->means;
        QCOMPARE(P.rows(), 64);
        QVERIFY(P.minCoeff() >= 0 && P.maxCoeff() <= 1);

        // Same seed, same samples.
        s.sweepsPerSecond = 0;
        v.setSettings(s);
        v.run();
        QVERIFY(done.wait(30000));
        QCOMPARE(v.shownFrame()->states, finalStates);

        // PT target rung.
        s.sampler = SamplerKind::Pt;
        s.sweeps = 3000;
        v.setSettings(s);
        v.run();
        QVERIFY(done.wait(30000));
        const double validPt = validFraction(v.shownFrame()->states, 4);
        qInfo("PT: %.3f of 64 samples are bars or stripes", validPt);
        QVERIFY(validPt >= 0.73);
        v.setShowProbabilities(true);
        QVERIFY(v.grabForScreenshot().save(
            screenshotDir() +
            QStringLiteral("/samples.png")));  // exact mass 0.91 minus 5 standard errors of 64 draws (0.036 each)
    }

    // The defaults show what the model holds: on bars-and-stripes, the default sampler (PT) draws
    // mostly patterns where Gibbs chains, with the same chains, sweeps and seed, stay stuck.
    void defaultSamplerShowsPatterns() {
        SamplesView v;
        v.resize(1100, 650);
        v.show();
        v.setModel(rbm::load_preset("bars-and-stripes"));
        QSignalSpy done(&v, &SamplesView::runFinished);
        const SamplesSettings defaults = v.settings();
        QCOMPARE(defaults.sampler, SamplerKind::Pt);
        v.setShowProbabilities(false);
        v.run();
        QVERIFY(done.wait(60000));
        const int valid = qRound(validFraction(v.shownFrame()->states, 4) * defaults.chains);
        SamplesSettings gibbs = defaults;
        gibbs.sampler = SamplerKind::Gibbs;
        v.setSettings(gibbs);
        v.run();
        QVERIFY(done.wait(60000));
        const int validGibbs = qRound(validFraction(v.shownFrame()->states, 4) * defaults.chains);
        qInfo("default sampler: %d of %d samples are patterns after %lld scans; Gibbs chains: %d of %d", valid,
              defaults.chains, defaults.sweeps, validGibbs, defaults.chains);
        // Exact mass on the patterns 0.91: PT within 5 standard errors of 64 draws (0.036 each).
        QVERIFY(valid >= qRound(0.73 * defaults.chains));
        QVERIFY(valid > validGibbs);
    }

    // A BRBM trained on binarized digits shows binarized data (not grey levels) next to
    // its samples; data chosen for a model without a record is preprocessed for the model (BRBM:
    // binarized) and offered for attaching.
    void dataAndSamplesShareTheModelsPreprocessing() {
        rbm::Dataset digits = rbm::load_digits();
        rbm::binarize(digits, 0.5);
        const rbm::Vec p = digits.X.colwise().mean().transpose();
        rbm::Vec b(64);
        for (int i = 0; i < 64; ++i) b(i) = std::log(std::clamp(p(i), 0.01, 0.99) / (1 - std::clamp(p(i), 0.01, 0.99)));
        rbm::Model m;
        m.params = rbm::Brbm{rbm::Mat::Zero(64, 4), b, rbm::Vec::Zero(4)};
        rbm::TrainingData t;
        t.data = "digits";
        t.binarize = 0.5;
        m.training = t;

        SamplesView v;
        v.resize(1100, 650);
        v.show();
        v.setModel(m);
        QVERIFY(v.dataset());
        QVERIFY2(v.dataset()->name.find("binarized") != std::string::npos, v.dataset()->name.c_str());
        QVERIFY((v.dataset()->X.array() == 0.0 || v.dataset()->X.array() == 1.0).all());
        QVERIFY(v.dataset()->X == digits.X);
        const auto greys = [](SampleGrid* g) {
            std::set<int> out;
            for (int k = 0; k < g->tileCount(); ++k) {
                const QImage img = g->tileImage(k);
                for (int y = 0; y < img.height(); ++y)
                    for (int x = 0; x < img.width(); ++x) out.insert(qGray(img.pixel(x, y)));
            }
            return out;
        };
        QVERIFY(v.dataGrid()->tileCount() > 0);
        QVERIFY2(greys(v.dataGrid()).size() == 2,
                 qPrintable(QString::number(greys(v.dataGrid()).size())));  // black and white only

        SamplesSettings s;
        s.sampler = SamplerKind::Gibbs;
        s.chains = 16;
        s.sweeps = 5;
        s.seed = 2;
        v.setSettings(s);
        v.setShowProbabilities(false);
        QSignalSpy done(&v, &SamplesView::runFinished);
        v.run();
        QVERIFY(done.wait(20000));
        QTRY_VERIFY(v.shownFrame() && v.shownFrame()->finished);
        const rbm::RowMat& states = v.shownFrame()->states;
        QVERIFY((states.array() == 0.0 || states.array() == 1.0).all());
        QVERIFY(greys(v.sampleGrid()).size() <= 2);
        for (int g : greys(v.sampleGrid())) QVERIFY(greys(v.dataGrid()).count(g) == 1);  // the same two levels
        QVERIFY(v.grabForScreenshot().save(screenshotDir() + QStringLiteral("/samples-trained-digits.png")));

        // The same model without its record: the data typed in is binarized for the BRBM, and
        // offered to the window for attaching.
        m.training.reset();
        SamplesView w;
        w.setModel(m);
        std::optional<rbm::TrainingData> chosen;
        connect(&w, &SamplesView::trainingDataChosen, &w, [&chosen](const rbm::TrainingData& c) { chosen = c; });
        QVERIFY(w.setDataSpec(QStringLiteral("digits")));
        QVERIFY(chosen && chosen->data == "digits" && chosen->binarize && *chosen->binarize == 0.5);
        QVERIFY(w.dataset() && w.dataset()->X == digits.X);
    }

    void messagesInsteadOfCrashes() {
        SamplesView v;
        v.show();
        v.setModel(rbm::load_preset("four-mode"));
        QVERIFY2(v.message().contains(QStringLiteral("2-D")), qPrintable(v.message()));
        QCOMPARE(v.sampleGrid()->tileCount(), 0);
        v.run();  // nothing to run
        QVERIFY(!v.busy());
        v.setModel(rbm::load_preset("bars-and-stripes"));
        QVERIFY(v.message().isEmpty());
        QVERIFY(!v.setDataSpec(QStringLiteral("/no/such/file.csv")));
        QVERIFY2(v.dataMessage().contains(QStringLiteral("no such file")), qPrintable(v.dataMessage()));
        SamplesSettings s;
        s.sampler = SamplerKind::Anneal;  // leaky only
        v.setSettings(s);
        v.run();
        QVERIFY(!v.busy());
        // Shape set by hand for a model whose n is not a square.
        rbm::Brbm b{rbm::Mat::Zero(6, 2), rbm::Vec::Zero(6), rbm::Vec::Zero(2)};
        rbm::Model m;
        m.params = b;
        v.setModel(m);
        QVERIFY(v.message().contains(QStringLiteral("not a square")));
        v.setImageShape(2, 3);
        QVERIFY(v.message().isEmpty());
    }

    void filtersSortedByNorm() {
        FiltersView f;
        f.resize(600, 400);
        f.show();
        rbm::Mat W = rbm::Mat::Zero(4, 3);
        W.col(0) << 1, 0, 0, 0;   // norm 1
        W.col(1) << 0, 3, 0, 0;   // norm 3
        W.col(2) << 0, 0, -2, 0;  // norm 2
        rbm::Model m;
        m.params = rbm::Brbm{W, rbm::Vec::Zero(4), rbm::Vec::Zero(3)};
        f.setModel(m);
        QCOMPARE(f.order(), (std::vector<int>{1, 2, 0}));
        QCOMPARE(f.norms().front(), 3.0);
        QCOMPARE(f.grid()->tileCount(), 3);
        QCOMPARE(f.grid()->captions().front(), QStringLiteral("h1 3.00"));
        // Shared scale (3): unit 1's +3 is full red, unit 2's -2 two thirds blue.
        QCOMPARE(f.grid()->tileImage(0).pixel(1, 0), divergingColor(1));
        QCOMPARE(f.grid()->tileImage(1).pixel(0, 1), divergingColor(-2.0 / 3));
        f.setSharedScale(false);
        QCOMPARE(f.grid()->tileImage(1).pixel(0, 1), divergingColor(-1));
        // The bars preset: 30 filters, its screenshot.
        f.setSharedScale(true);
        f.resize(900, 600);
        f.setModel(rbm::load_preset("bars-and-stripes"));
        QCOMPARE(f.grid()->tileCount(), 30);
        for (std::size_t i = 1; i < f.norms().size(); ++i) QVERIFY(f.norms()[i - 1] >= f.norms()[i]);
        QVERIFY(f.grab().save(screenshotDir() + QStringLiteral("/filters.png")));
        m.params = rbm::Gaussian{rbm::Vec::Zero(2), rbm::Mat::Identity(2, 2)};
        f.setModel(m);
        QVERIFY(f.message().contains(QStringLiteral("no hidden units")));
    }
};

QTEST_MAIN(TestSamplesView)
#include "tst_samples_view.moc"
