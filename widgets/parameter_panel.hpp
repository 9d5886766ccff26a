#pragma once
// The parameter panel: model (preset, file, summary, direct editing of 2-D GRBMs), annealing
// path and base, schedule with its parameters and a plot of beta against step, K, chains, seed,
// threads, transition kernel, reverse AIS, the methods to compare and the K values of a sweep.
// Every field is checked as the user types; a refused value shows its reason under the field
// and disables Run. It holds no app logic: it reports settings and shows what it is told
// (model summary, path notes or build_path's refusal, exact-sampling availability).
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QWidget>

#include "grbm_editor.hpp"
#include "run_settings.hpp"
#include "schedule_plot.hpp"
#include "validated_field.hpp"

class QGroupBox;
class QVBoxLayout;

namespace rbmscope {

class ParameterPanel : public QWidget {
    Q_OBJECT
public:
    explicit ParameterPanel(QWidget* parent = nullptr);

    // (name, title) of each preset.
    void setPresets(const QList<QPair<QString, QString>>& presets);
    void setCurrentPreset(const QString& name);  // "" when the model came from a file
    void setModelSummary(const QString& html);
    QString modelSummary() const;

    // A new model: offers the methods its kind allows and applies `settings` (usually
    // defaultSettings(traits)). Emits nothing.
    void setModel(const ModelTraits& traits, const RunSettings& settings);
    void setSettings(const RunSettings& settings);  // programmatic; emits nothing
    RunSettings settings() const;
    const ModelTraits& traits() const { return traits_; }

    bool isValid() const { return problems().isEmpty(); }
    QStringList problems() const;  // every current reason Run is disabled

    // What the app learned from building the path(s): notes, or build_path's InputError.
    void setPathStatus(const QString& text, bool isError);
    // Whether the primary path can draw exact samples (perfect transitions, reverse AIS).
    void setExactSampling(bool available, const QString& reason);
    // The schedule of the built path (the binned schedule needs the path's knots), or why not.
    void setSchedulePreview(const std::vector<double>& betas);
    void setScheduleProblem(const QString& reason);

    GrbmEditor* grbmEditor() const { return editor_; }
    void setGrbmEditorVisible(bool on);

    // For tests and for the app's actions.
    ValidatedField* field(const QString& name) const;  // steps chains seed threads start delta sweep
    QComboBox* pathBox() const { return pathBox_; }
    QComboBox* baseBox() const { return baseBox_; }
    QComboBox* scheduleBox() const { return scheduleBox_; }
    QComboBox* kernelBox() const { return kernelBox_; }
    QCheckBox* reverseBox() const { return reverseBox_; }
    QListWidget* compareList() const { return compareList_; }
    QPushButton* runButton() const { return runButton_; }
    QLabel* problemLabel() const { return problemLabel_; }
    SchedulePlot* schedulePlot() const { return plot_; }

Q_SIGNALS:
    void presetChosen(const QString& name);
    void openFileRequested();
    void settingsChanged();  // any user change, valid or not
    void validityChanged(bool valid);
    void runRequested();
    void sweepRequested();

private:
    void buildUi();
    QGroupBox* buildModelGroup();
    QGroupBox* buildPathGroup();
    QGroupBox* buildScheduleGroup();
    QGroupBox* buildChainGroup();
    QGroupBox* buildCompareGroup();
    void buildRunControls(QVBoxLayout* root);
    void fillPaths();
    void fillBases();
    void fillCompare();
    void updateScheduleFields();
    void refreshSchedulePreview();
    void refreshValidity();
    void userTyping();  // a field is being edited: validity and previews only
    void userChanged();
    std::string currentKey(QComboBox* box) const;
    void selectKey(QComboBox* box, const std::string& key);

    ModelTraits traits_;
    bool updating_ = false;
    bool lastValid_ = true;
    bool exactAvailable_ = true;
    QString exactReason_, pathError_, scheduleProblem_;

    QComboBox* presetBox_ = nullptr;
    QLabel* summary_ = nullptr;
    GrbmEditor* editor_ = nullptr;
    QComboBox* pathBox_ = nullptr;
    QComboBox* baseBox_ = nullptr;
    QLabel* leakyLabel_ = nullptr;
    QComboBox* leakyBox_ = nullptr;
    QLabel* pathStatus_ = nullptr;
    QComboBox* scheduleBox_ = nullptr;
    ValidatedField* steps_ = nullptr;
    QLabel* startLabel_ = nullptr;
    ValidatedField* start_ = nullptr;
    QLabel* deltaLabel_ = nullptr;
    ValidatedField* delta_ = nullptr;
    SchedulePlot* plot_ = nullptr;
    QLabel* scheduleReason_ = nullptr;
    ValidatedField* chains_ = nullptr;
    ValidatedField* seed_ = nullptr;
    ValidatedField* threads_ = nullptr;
    QComboBox* kernelBox_ = nullptr;
    QCheckBox* reverseBox_ = nullptr;
    QLabel* exactReasonLabel_ = nullptr;
    QListWidget* compareList_ = nullptr;
    ValidatedField* sweep_ = nullptr;
    QCheckBox* autoRun_ = nullptr;
    QPushButton* runButton_ = nullptr;
    QPushButton* sweepButton_ = nullptr;
    QLabel* problemLabel_ = nullptr;
};

}  // namespace rbmscope
