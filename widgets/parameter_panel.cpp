#include "parameter_panel.hpp"

#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QStandardItemModel>
#include <QVBoxLayout>

namespace rbmscope {
namespace {

const QString kReasonStyle = QStringLiteral("color: #c62828; font-size: small;");
const QString kNoteStyle = QStringLiteral("color: #666; font-size: small;");

QLabel* smallLabel(QWidget* parent, const QString& style) {
    auto* l = new QLabel(parent);
    l->setWordWrap(true);
    l->setStyleSheet(style);
    l->setVisible(false);
    return l;
}

// Fill a combo box with choices; disabled ones stay visible, greyed, with the reason as tooltip.
void fillChoices(QComboBox* box, const std::vector<Choice>& choices) {
    box->clear();
    for (const Choice& c : choices) {
        box->addItem(c.label, QString::fromStdString(c.key));
        const int i = box->count() - 1;
        if (!c.enabled) {
            auto* model = qobject_cast<QStandardItemModel*>(box->model());
            if (model) model->item(i)->setEnabled(false);
            box->setItemData(i, c.reason, Qt::ToolTipRole);
        }
    }
}

int firstEnabled(QComboBox* box) {
    auto* model = qobject_cast<QStandardItemModel*>(box->model());
    for (int i = 0; i < box->count(); ++i)
        if (!model || model->item(i)->isEnabled()) return i;
    return -1;
}

}  // namespace

ParameterPanel::ParameterPanel(QWidget* parent) : QWidget(parent) { buildUi(); }

// The groups top to bottom; built in this order, so the tab order follows the panel.
void ParameterPanel::buildUi() {
    auto* root = new QVBoxLayout(this);
    root->setContentsMargins(6, 6, 6, 6);
    root->addWidget(buildModelGroup());
    root->addWidget(buildPathGroup());
    root->addWidget(buildScheduleGroup());
    root->addWidget(buildChainGroup());
    root->addWidget(buildCompareGroup());
    buildRunControls(root);
    updateScheduleFields();
    refreshValidity();
}

QGroupBox* ParameterPanel::buildModelGroup() {
    auto* modelGroup = new QGroupBox(tr("Model"), this);
    auto* mv = new QVBoxLayout(modelGroup);
    presetBox_ = new QComboBox(modelGroup);
    presetBox_->setToolTip(tr("The papers' toy models"));
    auto* open = new QPushButton(tr("Open model file…"), modelGroup);
    summary_ = new QLabel(modelGroup);
    summary_->setObjectName(QStringLiteral("modelSummary"));
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::RichText);
    summary_->setMinimumWidth(230);
    editor_ = new GrbmEditor(modelGroup);
    editor_->setVisible(false);
    mv->addWidget(presetBox_);
    mv->addWidget(open);
    mv->addWidget(summary_);
    mv->addWidget(editor_);
    connect(presetBox_, &QComboBox::activated, this,
            [this](int i) { Q_EMIT presetChosen(presetBox_->itemData(i).toString()); });
    connect(open, &QPushButton::clicked, this, &ParameterPanel::openFileRequested);
    return modelGroup;
}

QGroupBox* ParameterPanel::buildPathGroup() {
    auto* pathGroup = new QGroupBox(tr("Annealing path"), this);
    auto* pf = new QFormLayout(pathGroup);
    pathBox_ = new QComboBox(pathGroup);
    baseBox_ = new QComboBox(pathGroup);
    leakyBox_ = new QComboBox(pathGroup);
    leakyBox_->addItem(tr("exact (Gibbs proposal + MH)"), int(rbm::LeakyKernel::ExactMH));
    leakyBox_->addItem(tr("paper's Gibbs (approximate)"), int(rbm::LeakyKernel::PaperGibbs));
    leakyBox_->setToolTip(tr(
        "docs/methods/models.md#leaky-kernels: the paper's Gibbs conditionals sample a slightly different distribution "
        "for leakiness < 1; the MH correction makes the kernel exact."));
    pathStatus_ = smallLabel(pathGroup, kNoteStyle);
    pf->addRow(tr("Path"), pathBox_);
    pf->addRow(tr("Base"), baseBox_);
    leakyLabel_ = new QLabel(tr("Kernel"), pathGroup);
    pf->addRow(leakyLabel_, leakyBox_);
    pf->addRow(pathStatus_);
    connect(pathBox_, &QComboBox::activated, this, [this] {
        fillBases();
        updateScheduleFields();
        userChanged();
    });
    connect(baseBox_, &QComboBox::activated, this, &ParameterPanel::userChanged);
    connect(leakyBox_, &QComboBox::activated, this, &ParameterPanel::userChanged);
    return pathGroup;
}

QGroupBox* ParameterPanel::buildScheduleGroup() {
    auto* schedGroup = new QGroupBox(tr("Schedule"), this);
    auto* sf = new QFormLayout(schedGroup);
    scheduleBox_ = new QComboBox(schedGroup);
    const std::vector<std::pair<QString, QString>> kinds{{"linear", tr("linear")},
                                                         {"sigmoid", tr("sigmoid (Grosse et al.)")},
                                                         {"four-period", tr("four-period (Kiwaki & Aihara)")},
                                                         {"piecewise", tr("piecewise (Salakhutdinov & Murray)")},
                                                         {"geometric", tr("geometric in β")},
                                                         {"binned", tr("optimal binned (MAS knots)")}};
    for (const auto& [key, label] : kinds) scheduleBox_->addItem(label, key);
    steps_ = new ValidatedField(
        QStringLiteral("100"), [](const QString& t) { return checkInteger(t, 1, kMaxSteps, QObject::tr("K (steps)")); },
        schedGroup);
    start_ = new ValidatedField(
        QStringLiteral("0.0001"),
        [](const QString& t) { return checkReal(t, 0, 1, true, true, QObject::tr("first β")); }, schedGroup);
    delta_ = new ValidatedField(
        QStringLiteral("4"), [](const QString& t) { return checkReal(t, 0, 50, true, false, QObject::tr("δ")); },
        schedGroup);
    plot_ = new SchedulePlot(schedGroup);
    scheduleReason_ = smallLabel(schedGroup, kReasonStyle);
    sf->addRow(tr("Kind"), scheduleBox_);
    sf->addRow(tr("K (steps)"), steps_);
    startLabel_ = new QLabel(tr("First β"), schedGroup);
    deltaLabel_ = new QLabel(tr("δ (steepness)"), schedGroup);
    sf->addRow(startLabel_, start_);
    sf->addRow(deltaLabel_, delta_);
    sf->addRow(plot_);
    sf->addRow(scheduleReason_);
    connect(scheduleBox_, &QComboBox::activated, this, [this] {
        updateScheduleFields();
        userChanged();
    });
    // While typing only the validity and the schedule preview follow; a committed value (Enter,
    // Tab, focus elsewhere) changes the settings (and may re-run).
    for (ValidatedField* f : {steps_, start_, delta_}) {
        connect(f, &ValidatedField::edited, this, &ParameterPanel::userTyping);
        connect(f, &ValidatedField::committed, this, &ParameterPanel::userChanged);
    }
    return schedGroup;
}

QGroupBox* ParameterPanel::buildChainGroup() {
    auto* chainGroup = new QGroupBox(tr("Chains"), this);
    auto* cf = new QFormLayout(chainGroup);
    chains_ = new ValidatedField(
        QStringLiteral("1000"),
        [](const QString& t) { return checkInteger(t, 1, kMaxChains, QObject::tr("number of chains")); }, chainGroup);
    seed_ = new ValidatedField(
        QStringLiteral("1"), [](const QString& t) { return checkUnsigned64(t, QObject::tr("seed")); }, chainGroup);
    threads_ = new ValidatedField(
        QStringLiteral("0"),
        [](const QString& t) { return checkInteger(t, 0, kMaxThreads, QObject::tr("threads (0 = all cores)")); },
        chainGroup);
    threads_->lineEdit()->setToolTip(tr("0 uses every core; results are identical for any number of threads"));
    kernelBox_ = new QComboBox(chainGroup);
    kernelBox_->addItem(tr("Markov kernel (Gibbs)"), false);
    kernelBox_->addItem(tr("perfect (exact draws from p_β)"), true);
    kernelBox_->setToolTip(
        tr("Perfect transitions replace each kernel step by an exact sample of p_β: "
           "they separate the quality of the path from the mixing of the kernel (docs/methods/ais-estimates.md)."));
    reverseBox_ = new QCheckBox(tr("also run reverse AIS (upper bound)"), chainGroup);
    reverseBox_->setToolTip(
        tr("Bidirectional Monte Carlo: start from exact target samples and anneal back; "
           "forward and reverse estimates sandwich log Z."));
    exactReasonLabel_ = smallLabel(chainGroup, kReasonStyle);
    cf->addRow(tr("Chains N"), chains_);
    cf->addRow(tr("Seed"), seed_);
    cf->addRow(tr("Threads"), threads_);
    cf->addRow(tr("Transitions"), kernelBox_);
    cf->addRow(reverseBox_);
    cf->addRow(exactReasonLabel_);
    for (ValidatedField* f : {chains_, seed_, threads_}) {
        connect(f, &ValidatedField::edited, this, &ParameterPanel::userTyping);
        connect(f, &ValidatedField::committed, this, &ParameterPanel::userChanged);
    }
    connect(kernelBox_, &QComboBox::activated, this, &ParameterPanel::userChanged);
    connect(reverseBox_, &QCheckBox::toggled, this, [this] {
        if (!updating_) userChanged();
    });
    return chainGroup;
}

QGroupBox* ParameterPanel::buildCompareGroup() {
    auto* cmpGroup = new QGroupBox(tr("Compare and sweep"), this);
    auto* cv = new QVBoxLayout(cmpGroup);
    auto* cmpLabel = new QLabel(tr("Also run (same model, same seed):"), cmpGroup);
    compareList_ = new QListWidget(cmpGroup);
    compareList_->setMaximumHeight(110);
    sweep_ = new ValidatedField(
        QStringLiteral("10, 30, 100, 300, 1000"),
        [](const QString& t) { return checkIntegerList(t, 1, kMaxSteps, QObject::tr("sweep K values")); }, cmpGroup);
    cv->addWidget(cmpLabel);
    cv->addWidget(compareList_);
    cv->addWidget(new QLabel(tr("K values of a sweep (Estimates view):"), cmpGroup));
    cv->addWidget(sweep_);
    connect(compareList_, &QListWidget::itemChanged, this, [this] {
        if (!updating_) userChanged();
    });
    connect(sweep_, &ValidatedField::edited, this, &ParameterPanel::userTyping);
    connect(sweep_, &ValidatedField::committed, this, &ParameterPanel::userChanged);
    return cmpGroup;
}

// Not a group box: the reasons Run is disabled, auto-run and the buttons, then the stretch that
// keeps the groups at the top.
void ParameterPanel::buildRunControls(QVBoxLayout* root) {
    problemLabel_ = smallLabel(this, kReasonStyle);
    autoRun_ = new QCheckBox(tr("Run again whenever something changes"), this);
    autoRun_->setChecked(true);
    runButton_ = new QPushButton(tr("Run  (F5)"), this);
    sweepButton_ = new QPushButton(tr("Run sweep"), this);
    runButton_->setDefault(true);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(runButton_, 1);
    buttons->addWidget(sweepButton_);
    root->addWidget(problemLabel_);
    root->addWidget(autoRun_);
    root->addLayout(buttons);
    root->addStretch(1);
    connect(runButton_, &QPushButton::clicked, this, &ParameterPanel::runRequested);
    connect(sweepButton_, &QPushButton::clicked, this, &ParameterPanel::sweepRequested);
    connect(autoRun_, &QCheckBox::toggled, this, [this] {
        if (!updating_) userChanged();
    });
}

void ParameterPanel::setPresets(const QList<QPair<QString, QString>>& presets) {
    const QSignalBlocker block(presetBox_);
    presetBox_->clear();
    for (const auto& [name, title] : presets) presetBox_->addItem(title, name);
}

void ParameterPanel::setCurrentPreset(const QString& name) {
    const QSignalBlocker block(presetBox_);
    const int i = presetBox_->findData(name);
    if (i >= 0) {
        presetBox_->setCurrentIndex(i);
    } else {
        if (presetBox_->findData(QString()) < 0) presetBox_->insertItem(0, tr("(model from a file)"), QString());
        presetBox_->setCurrentIndex(presetBox_->findData(QString()));
    }
}

void ParameterPanel::setModelSummary(const QString& html) { summary_->setText(html); }
QString ParameterPanel::modelSummary() const { return summary_->text(); }

void ParameterPanel::setGrbmEditorVisible(bool on) { editor_->setVisible(on); }

std::string ParameterPanel::currentKey(QComboBox* box) const { return box->currentData().toString().toStdString(); }

void ParameterPanel::selectKey(QComboBox* box, const std::string& key) {
    const int i = box->findData(QString::fromStdString(key));
    box->setCurrentIndex(i >= 0 ? i : firstEnabled(box));
}

void ParameterPanel::fillPaths() {
    const std::string keep = currentKey(pathBox_);
    fillChoices(pathBox_, pathChoices(traits_));
    selectKey(pathBox_, keep);
}

void ParameterPanel::fillBases() {
    const std::string keep = currentKey(baseBox_);
    const auto choices = baseChoices(traits_, currentKey(pathBox_));
    fillChoices(baseBox_, choices);
    const int i = baseBox_->findData(QString::fromStdString(keep));
    auto* model = qobject_cast<QStandardItemModel*>(baseBox_->model());
    if (i >= 0 && model && model->item(i)->isEnabled()) baseBox_->setCurrentIndex(i);
    else baseBox_->setCurrentIndex(std::max(0, firstEnabled(baseBox_)));
    const bool anyEnabled = firstEnabled(baseBox_) >= 0;
    baseBox_->setEnabled(anyEnabled);
    baseBox_->setToolTip(anyEnabled ? QString() : choices.front().reason);
}

void ParameterPanel::fillCompare() {
    const QSignalBlocker block(compareList_);
    compareList_->clear();
    for (const MethodSpec& m : methodCatalogue(traits_)) {
        auto* item = new QListWidgetItem(methodLabel(m, traits_.kind), compareList_);
        item->setData(Qt::UserRole,
                      QStringLiteral("%1:%2").arg(QString::fromStdString(m.path), QString::fromStdString(m.base)));
        item->setToolTip(
            QStringLiteral("path %1, base %2").arg(QString::fromStdString(m.path), QString::fromStdString(m.base)));
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
    }
}

void ParameterPanel::setModel(const ModelTraits& traits, const RunSettings& settings) {
    traits_ = traits;
    pathError_.clear();
    scheduleProblem_.clear();
    exactAvailable_ = true;
    exactReason_.clear();
    pathStatus_->setVisible(false);
    const bool leaky = traits.kind == rbm::ModelKind::Leaky;
    leakyLabel_->setVisible(leaky);
    leakyBox_->setVisible(leaky);
    setSettings(settings);
}

void ParameterPanel::setSettings(const RunSettings& s) {
    updating_ = true;
    fillPaths();
    selectKey(pathBox_, s.method.path);
    fillBases();
    selectKey(baseBox_, s.method.base);
    leakyBox_->setCurrentIndex(leakyBox_->findData(int(s.leakyKernel)));
    selectKey(scheduleBox_, s.schedule.kind);
    steps_->setText(QString::number(s.schedule.steps));
    // Shortest text that reads back to the same double: a setting survives a session exactly.
    start_->setText(QString::number(s.schedule.geometric_start, 'g', QLocale::FloatingPointShortest));
    delta_->setText(QString::number(s.schedule.sigmoid_delta, 'g', QLocale::FloatingPointShortest));
    chains_->setText(QString::number(s.chains));
    seed_->setText(QString::number(s.seed));
    threads_->setText(QString::number(s.threads));
    kernelBox_->setCurrentIndex(s.perfect ? 1 : 0);
    reverseBox_->setChecked(s.reverse);
    autoRun_->setChecked(s.autoRun);
    fillCompare();
    for (int i = 0; i < compareList_->count(); ++i) {
        QListWidgetItem* item = compareList_->item(i);
        MethodSpec m;
        parseMethod(item->data(Qt::UserRole).toString(), m);
        const bool on = std::find(s.compare.begin(), s.compare.end(), m) != s.compare.end();
        item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
    }
    QStringList ks;
    for (rbm::Index k : s.sweepSteps) ks << QString::number(k);
    sweep_->setText(ks.join(QStringLiteral(", ")));
    updateScheduleFields();
    updating_ = false;
    refreshValidity();
}

RunSettings ParameterPanel::settings() const {
    RunSettings s;
    s.method.path = currentKey(pathBox_);
    s.method.base = currentKey(baseBox_);
    s.leakyKernel = static_cast<rbm::LeakyKernel>(leakyBox_->currentData().toInt());
    s.schedule.kind = currentKey(scheduleBox_);
    s.schedule.steps = steps_->isValid() ? steps_->text().trimmed().toLongLong() : 0;
    if (start_->isValid()) s.schedule.geometric_start = start_->text().trimmed().toDouble();
    if (delta_->isValid()) s.schedule.sigmoid_delta = delta_->text().trimmed().toDouble();
    if (chains_->isValid()) s.chains = chains_->text().trimmed().toLongLong();
    if (seed_->isValid()) s.seed = seed_->text().trimmed().toULongLong();
    if (threads_->isValid()) s.threads = threads_->text().trimmed().toInt();
    s.perfect = kernelBox_->currentData().toBool();
    s.reverse = reverseBox_->isChecked();
    s.autoRun = autoRun_->isChecked();
    for (int i = 0; i < compareList_->count(); ++i) {
        const QListWidgetItem* item = compareList_->item(i);
        if (item->checkState() != Qt::Checked) continue;
        MethodSpec m;
        if (parseMethod(item->data(Qt::UserRole).toString(), m).isEmpty()) s.compare.push_back(m);
    }
    if (sweep_->isValid()) {
        s.sweepSteps.clear();
        for (long long k : parseIntegerList(sweep_->text())) s.sweepSteps.push_back(k);
    }
    return s;
}

void ParameterPanel::updateScheduleFields() {
    const std::string kind = currentKey(scheduleBox_);
    // The binned schedule needs knots, which only moment averaging has.
    auto* model = qobject_cast<QStandardItemModel*>(scheduleBox_->model());
    const int binned = scheduleBox_->findData(QStringLiteral("binned"));
    const bool knots = currentKey(pathBox_) == "moments" && traits_.kind != rbm::ModelKind::Gaussian;
    if (model && binned >= 0) {
        model->item(binned)->setEnabled(knots);
        scheduleBox_->setItemData(
            binned, knots ? QString() : tr("needs the knots of the moment-averaged spline (path: moment averaging)"),
            Qt::ToolTipRole);
    }
    const bool geo = kind == "geometric", sig = kind == "sigmoid";
    startLabel_->setVisible(geo);
    start_->setVisible(geo);
    deltaLabel_->setVisible(sig);
    delta_->setVisible(sig);
    refreshSchedulePreview();
}

void ParameterPanel::refreshSchedulePreview() {
    scheduleProblem_.clear();
    const RunSettings s = settings();
    if (!steps_->isValid() || (s.schedule.kind == "geometric" && !start_->isValid()) ||
        (s.schedule.kind == "sigmoid" && !delta_->isValid())) {
        plot_->setMessage(tr("fix the values above"));
        return;
    }
    if (s.schedule.kind == "binned") {
        if (s.method.path != "moments")
            scheduleProblem_ = tr("the optimal binned schedule needs the moment-averaging path's knots");
        plot_->setMessage(tr("computed from the path's knots once it is built"));
        return;
    }
    try {
        plot_->setSchedule(rbm::make_schedule(s.schedule));
    } catch (const std::exception& e) {
        scheduleProblem_ = QString::fromStdString(e.what());
        plot_->setMessage(scheduleProblem_);
    }
}

void ParameterPanel::setSchedulePreview(const std::vector<double>& betas) {
    plot_->setSchedule(betas);
    scheduleProblem_.clear();
    refreshValidity();
}

void ParameterPanel::setScheduleProblem(const QString& reason) {
    scheduleProblem_ = reason;
    plot_->setMessage(reason);
    refreshValidity();
}

void ParameterPanel::setPathStatus(const QString& text, bool isError) {
    pathError_ = isError ? text : QString();
    pathStatus_->setText(text);
    pathStatus_->setStyleSheet(isError ? kReasonStyle : kNoteStyle);
    pathStatus_->setVisible(!text.isEmpty());
    refreshValidity();
}

void ParameterPanel::setExactSampling(bool available, const QString& reason) {
    exactAvailable_ = available;
    exactReason_ = reason;
    refreshValidity();
}

QStringList ParameterPanel::problems() const {
    QStringList out;
    for (ValidatedField* f : {steps_, chains_, seed_, threads_, sweep_})
        if (!f->isValid()) out << f->reason();
    const std::string kind = currentKey(scheduleBox_);
    if (kind == "geometric" && !start_->isValid()) out << start_->reason();
    if (kind == "sigmoid" && !delta_->isValid()) out << delta_->reason();
    const RunSettings s = settings();
    if (const QString why = methodProblem(traits_, s.method); !why.isEmpty()) out << why;
    if (!scheduleProblem_.isEmpty()) out << scheduleProblem_;
    if (!pathError_.isEmpty()) out << pathError_;
    if (!exactAvailable_ && (s.perfect || s.reverse))
        out << (s.perfect ? tr("perfect transitions: ") : tr("reverse AIS: ")) + exactReason_;
    return out;
}

void ParameterPanel::refreshValidity() {
    const QStringList p = problems();
    const bool valid = p.isEmpty();
    // Field reasons already sit under their fields; repeat the others (path, schedule, kernel) here.
    QStringList shown;
    for (const QString& s : p) {
        bool underField = false;
        for (ValidatedField* f : {steps_, chains_, seed_, threads_, sweep_, start_, delta_})
            if (f->reason() == s) underField = true;
        if (!underField) shown << s;
    }
    problemLabel_->setText(shown.join(QLatin1Char('\n')));
    problemLabel_->setVisible(!shown.isEmpty());
    // Only when the run asks for exact samples (perfect transitions or reverse AIS).
    const RunSettings current = settings();
    const bool asked = current.perfect || current.reverse;
    exactReasonLabel_->setText(exactAvailable_ || !asked ? QString()
                                                         : tr("exact samples unavailable: %1").arg(exactReason_));
    exactReasonLabel_->setVisible(!exactAvailable_ && asked);
    runButton_->setEnabled(valid);
    sweepButton_->setEnabled(valid);
    runButton_->setToolTip(valid ? tr("Run the annealing (F5)") : p.join(QLatin1Char('\n')));
    if (valid != lastValid_) {
        lastValid_ = valid;
        Q_EMIT validityChanged(valid);
    }
}

void ParameterPanel::userTyping() {
    if (updating_) return;
    refreshSchedulePreview();
    refreshValidity();
}

void ParameterPanel::userChanged() {
    if (updating_) return;
    refreshSchedulePreview();
    refreshValidity();
    Q_EMIT settingsChanged();
}

ValidatedField* ParameterPanel::field(const QString& name) const {
    if (name == QLatin1String("steps")) return steps_;
    if (name == QLatin1String("chains")) return chains_;
    if (name == QLatin1String("seed")) return seed_;
    if (name == QLatin1String("threads")) return threads_;
    if (name == QLatin1String("start")) return start_;
    if (name == QLatin1String("delta")) return delta_;
    if (name == QLatin1String("sweep")) return sweep_;
    return nullptr;
}

}  // namespace rbmscope
