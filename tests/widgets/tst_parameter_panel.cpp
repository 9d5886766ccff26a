// The parameter panel checks every field as the user types, shows the reason it refuses a value
// under the field and disables Run; it offers only the (path, base) pairs build_path accepts for
// the model's kind; it shows build_path's refusal; the schedule plot follows the schedule fields.
#include <QLabel>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QtTest>

#include "core/ais/paths.hpp"
#include "core/io/presets.hpp"
#include "parameter_panel.hpp"

using namespace rbmscope;

namespace {

void typeInto(ValidatedField* f, const QString& text) {
    f->lineEdit()->selectAll();
    QTest::keyClick(f->lineEdit(), Qt::Key_Backspace);
    QTest::keyClicks(f->lineEdit(), text);
    QTest::keyClick(f->lineEdit(), Qt::Key_Return);  // commits the value
}

bool itemEnabled(QComboBox* box, int i) {
    auto* m = qobject_cast<QStandardItemModel*>(box->model());
    return m && m->item(i)->isEnabled();
}

}  // namespace

class TestParameterPanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void refusesBadValuesWithAVisibleReason_data() {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<QString>("bad");
        QTest::addColumn<QString>("reason");
        QTest::addColumn<QString>("good");
        QTest::newRow("K zero") << "steps"
                                << "linear"
                                << "0"
                                << "between 1 and 1000000"
                                << "50";
        QTest::newRow("K text") << "steps"
                                << "linear"
                                << "ten"
                                << "whole number"
                                << "10";
        QTest::newRow("K too big") << "steps"
                                   << "linear"
                                   << "5000000"
                                   << "between 1 and 1000000"
                                   << "100";
        QTest::newRow("chains negative") << "chains"
                                         << "linear"
                                         << "-5"
                                         << "between 1 and"
                                         << "200";
        QTest::newRow("seed text") << "seed"
                                   << "linear"
                                   << "abc"
                                   << "seed must be a whole number"
                                   << "42";
        QTest::newRow("threads too many") << "threads"
                                          << "linear"
                                          << "999"
                                          << "between 0 and 256"
                                          << "2";
        QTest::newRow("sweep list") << "sweep"
                                    << "linear"
                                    << "10, x, 100"
                                    << "'x' is not a whole number"
                                    << "10, 100";
        QTest::newRow("geometric start 1") << "start"
                                           << "geometric"
                                           << "1.5"
                                           << "first β must lie in (0, 1)"
                                           << "0.001";
        QTest::newRow("sigmoid delta 0") << "delta"
                                         << "sigmoid"
                                         << "0"
                                         << "δ must lie in (0, 50]"
                                         << "6";
    }
    void refusesBadValuesWithAVisibleReason() {
        QFETCH(QString, field);
        QFETCH(QString, schedule);
        QFETCH(QString, bad);
        QFETCH(QString, reason);
        QFETCH(QString, good);
        ParameterPanel panel;
        const ModelTraits traits = traitsOf(rbm::load_preset("four-mode"));
        RunSettings s = defaultSettings(traits);
        s.schedule.kind = schedule.toStdString();
        panel.setModel(traits, s);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QVERIFY(panel.isValid());
        QVERIFY(panel.runButton()->isEnabled());
        QSignalSpy validity(&panel, &ParameterPanel::validityChanged);
        QSignalSpy changed(&panel, &ParameterPanel::settingsChanged);

        ValidatedField* f = panel.field(field);
        QVERIFY(f);
        typeInto(f, bad);
        QVERIFY(!f->isValid());
        QVERIFY2(f->reasonLabel()->isVisible(), "the reason must be on screen");
        QVERIFY2(f->reasonLabel()->text().contains(reason), qPrintable(f->reasonLabel()->text()));
        QVERIFY(!panel.isValid());
        QVERIFY(!panel.runButton()->isEnabled());
        QVERIFY(!validity.isEmpty() && validity.last().at(0).toBool() == false);
        QVERIFY(changed.count() > 0);

        typeInto(f, good);
        QVERIFY(f->isValid());
        QVERIFY(!f->reasonLabel()->isVisible());
        QVERIFY(panel.isValid());
        QVERIFY(panel.runButton()->isEnabled());
        QCOMPARE(validity.last().at(0).toBool(), true);
    }

    void settingsFollowTheFields() {
        ParameterPanel panel;
        const ModelTraits traits = traitsOf(rbm::load_preset("four-mode"));
        panel.setModel(traits, defaultSettings(traits));
        typeInto(panel.field("steps"), "37");
        typeInto(panel.field("chains"), "321");
        typeInto(panel.field("seed"), "18446744073709551615");
        typeInto(panel.field("sweep"), "5, 50");
        const RunSettings s = panel.settings();
        QCOMPARE(s.schedule.steps, rbm::Index(37));
        QCOMPARE(s.chains, rbm::Index(321));
        QCOMPARE(s.seed, std::uint64_t(18446744073709551615ull));
        QCOMPARE(s.sweepSteps, (std::vector<rbm::Index>{5, 50}));
        // The schedule plot shows K + 1 betas of the linear schedule.
        QCOMPARE(panel.schedulePlot()->schedule().size(), std::size_t(38));
        QCOMPARE(panel.schedulePlot()->schedule()[1], 1.0 / 37);
    }

    // For every preset and every (path, base) pair: whatever the panel offers, build_path
    // accepts; whatever build_path refuses, the panel does not offer.
    void offersOnlyWhatBuildPathAccepts_data() {
        QTest::addColumn<QString>("preset");
        for (const auto& p : rbm::list_presets()) QTest::newRow(p.name.c_str()) << QString::fromStdString(p.name);
    }
    void offersOnlyWhatBuildPathAccepts() {
        QFETCH(QString, preset);
        const rbm::Model model = rbm::load_preset(preset.toStdString());
        const ModelTraits traits = traitsOf(model);
        ParameterPanel panel;
        panel.setModel(traits, defaultSettings(traits));
        int offered = 0;
        const auto paths = pathChoices(traits);
        for (int pi = 0; pi < panel.pathBox()->count(); ++pi)
            QCOMPARE(itemEnabled(panel.pathBox(), pi), paths[static_cast<std::size_t>(pi)].enabled);
        for (const std::string path : {"geometric", "cov", "moments", "leaky", "energy"}) {
            for (const std::string base : {"moment", "sigma", "uniform", "data"}) {
                // MAS on the 16-visible BRBM fits nine knots by enumeration: slow, and the
                // geometric path checks the same base table for that kind.
                if (path == "moments" && traits.kind == rbm::ModelKind::Brbm) continue;
                const MethodSpec m{path, base};
                const bool allowed = methodProblem(traits, m).isEmpty();
                rbm::PathRequest req;
                req.path = path;
                req.base = base;
                bool accepted = true;
                QString why;
                try {
                    rbm::build_path(model, req);
                } catch (const rbm::InputError& e) {
                    accepted = false;
                    why = QString::fromStdString(e.what());
                }
                if (allowed) {
                    ++offered;
                    QVERIFY2(accepted,
                             qPrintable(QStringLiteral("offered %1:%2 but build_path says: %3")
                                            .arg(QString::fromStdString(path), QString::fromStdString(base), why)));
                }
                if (!accepted) QVERIFY(!allowed);
            }
        }
        QVERIFY(offered > 0);
        // The default method is one of the offered ones and Run is enabled.
        QVERIFY(panel.isValid());
    }

    void disabledChoicesSayWhy() {
        ParameterPanel panel;
        const ModelTraits traits = traitsOf(rbm::load_preset("four-mode"));
        panel.setModel(traits, defaultSettings(traits));
        const int leaky = panel.pathBox()->findData(QStringLiteral("leaky"));
        QVERIFY(leaky >= 0);
        QVERIFY(!itemEnabled(panel.pathBox(), leaky));
        QVERIFY(panel.pathBox()->itemData(leaky, Qt::ToolTipRole).toString().contains("leaky-ReLU"));
        const int uniform = panel.baseBox()->findData(QStringLiteral("uniform"));
        QVERIFY(!itemEnabled(panel.baseBox(), uniform));
        QVERIFY(panel.baseBox()->itemData(uniform, Qt::ToolTipRole).toString().contains("Bernoulli"));
        // The binned schedule needs MAS knots: disabled on the geometric path.
        const int binned = panel.scheduleBox()->findData(QStringLiteral("binned"));
        QVERIFY(!itemEnabled(panel.scheduleBox(), binned));
        RunSettings s = panel.settings();
        s.method = {"moments", "moment"};
        panel.setSettings(s);
        QVERIFY(itemEnabled(panel.scheduleBox(), binned));
    }

    void showsBuildPathRefusalAndDisablesRun() {
        ParameterPanel panel;
        const ModelTraits traits = traitsOf(rbm::load_preset("four-mode"));
        panel.setModel(traits, defaultSettings(traits));
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setPathStatus(QStringLiteral("--path cov (AISC) needs a GRBM target"), true);
        QVERIFY(!panel.isValid());
        QVERIFY(!panel.runButton()->isEnabled());
        QVERIFY(panel.problemLabel()->isVisible());
        QVERIFY(panel.problemLabel()->text().contains("needs a GRBM target"));
        panel.setPathStatus(QStringLiteral("geometric (AIS base)"), false);
        QVERIFY(panel.isValid());
        QVERIFY(!panel.problemLabel()->isVisible());
    }

    void perfectTransitionsNeedExactSamples() {
        ParameterPanel panel;
        const ModelTraits traits = traitsOf(rbm::load_preset("four-mode"));
        RunSettings s = defaultSettings(traits);
        s.perfect = true;
        panel.setModel(traits, s);
        QVERIFY(panel.isValid());
        panel.setExactSampling(false, QStringLiteral("model too large to enumerate"));
        QVERIFY(!panel.isValid());
        QVERIFY(panel.problems().join(' ').contains("perfect transitions: model too large"));
        s.perfect = false;
        panel.setSettings(s);
        QVERIFY(panel.isValid());
        s.reverse = true;
        panel.setSettings(s);
        QVERIFY(!panel.isValid());
        QVERIFY(panel.problems().join(' ').contains("reverse AIS"));
    }

    // The red "exact samples unavailable" line is about perfect transitions and
    // reverse AIS; at the defaults (neither asked for) it stays hidden.
    void exactSamplesWarningOnlyWhenAskedFor() {
        ParameterPanel panel;
        const ModelTraits traits = traitsOf(rbm::load_preset("four-mode"));
        RunSettings s = defaultSettings(traits);
        QVERIFY(!s.perfect && !s.reverse);
        panel.setModel(traits, s);
        panel.setExactSampling(false, QStringLiteral("model too large to enumerate"));
        const auto shown = [&panel] {
            for (QLabel* l : panel.findChildren<QLabel*>())
                if (l->text().contains(QStringLiteral("exact samples unavailable")) && l->isVisibleTo(&panel))
                    return true;
            return false;
        };
        QVERIFY(!shown());
        s.reverse = true;
        panel.setSettings(s);
        QVERIFY(shown());
        s.reverse = false;
        s.perfect = true;
        panel.setSettings(s);
        QVERIFY(shown());
        s.perfect = false;
        panel.setSettings(s);
        QVERIFY(!shown());
    }

    void scheduleRefusalFromTheCoreIsShown() {
        ParameterPanel panel;
        const ModelTraits traits = traitsOf(rbm::load_preset("four-mode"));
        RunSettings s = defaultSettings(traits);
        s.schedule.kind = "four-period";
        s.schedule.steps = 3;  // four periods need K >= 4 (rbm::four_period_schedule)
        panel.setModel(traits, s);
        QVERIFY(!panel.isValid());
        QVERIFY(panel.schedulePlot()->schedule().empty());
        typeInto(panel.field("steps"), "8");
        QVERIFY(panel.isValid());
        const auto& b = panel.schedulePlot()->schedule();
        QCOMPARE(b.size(), std::size_t(9));
        QCOMPARE(b[2], 0.1);  // two steps on [0, 0.1]
        QCOMPARE(b[4], 0.25);
    }

    void comparisonListComesFromTheCatalogue() {
        ParameterPanel panel;
        const ModelTraits traits = traitsOf(rbm::load_preset("four-mode"));
        panel.setModel(traits, defaultSettings(traits));
        QCOMPARE(panel.compareList()->count(), static_cast<int>(methodCatalogue(traits).size()));
        const RunSettings s = panel.settings();
        QCOMPARE(s.methods().size(), std::size_t(2));  // AIS and AISC (Kiwaki & Aihara)
        QCOMPARE(s.methods()[1], (MethodSpec{"cov", "moment"}));
        QCOMPARE(methodLabel(s.methods()[1], traits.kind), QStringLiteral("AISC"));
    }
};

QTEST_MAIN(TestParameterPanel)
#include "tst_parameter_panel.moc"
