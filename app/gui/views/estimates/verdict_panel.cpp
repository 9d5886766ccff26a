#include "views/estimates/verdict_panel.hpp"

#include <QFile>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QVBoxLayout>
#include <cmath>

#include "core/io/model_io.hpp"
#include "jobs/remote_run.hpp"
#include "views/export_hidden.hpp"

namespace rbmscope {

namespace {

QString number(const QJsonValue& v, int digits) {
    return v.isDouble() ? QString::number(v.toDouble(), 'f', digits) : QStringLiteral("–");
}

}  // namespace

VerdictPanel::VerdictPanel(std::function<rbm::Model()> currentModel, QWidget* parent)
    : QWidget(parent), currentModel_(std::move(currentModel)) {
    auto* root = new QVBoxLayout(this);
    root->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    runButton_ = new QPushButton(tr("Verdict on log Z"), this);
    runButton_->setToolTip(
        tr("Ctrl+Shift+V in the Estimates view: forward AIS from each base, reverse AIS, tempering and the exact value "
           "when known, "
           "side by side, and whether they agree (rbmscope-cli logz)"));
    budget_ = new QComboBox(this);
    budget_->addItem(tr("quick"), QStringLiteral("quick"));
    budget_->addItem(tr("standard"), QStringLiteral("standard"));
    budget_->addItem(tr("thorough"), QStringLiteral("thorough"));
    budget_->setToolTip(
        tr("AIS steps × chains 1000 × 100, 5000 × 200 or 20000 × 500; tempering 2000, 8000 or "
           "32000 scans"));
    cancelButton_ = new QPushButton(tr("Cancel verdict"), this);
    cancelButton_->setEnabled(false);
    status_ = new QLabel(this);
    bar->addWidget(runButton_);
    bar->addWidget(budget_);
    bar->addWidget(cancelButton_);
    bar->addWidget(status_, 1);
    root->addWidget(controlsRow(bar, this));
    auto* about = new QLabel(
        tr("Forward AIS from each base, reverse AIS, parallel tempering (BAR, stepping stone) and the exact value "
           "when it is known, run side by side on this model by rbmscope-cli logz. One estimate can be confidently "
           "wrong — chains that never reach a mode give a narrow interval that misses — so the verdict trusts an "
           "interval only when independent estimates agree."),
        this);
    about->setWordWrap(true);
    root->addWidget(about);
    verdict_ = new QLabel(this);
    verdict_->setTextFormat(Qt::RichText);
    verdict_->setWordWrap(true);
    verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    root->addWidget(verdict_);
    table_ = new QTableWidget(0, 6, this);
    table_->setHorizontalHeaderLabels(
        {tr("method"), tr("side"), tr("log Ẑ"), tr("95% interval"), tr("ESS"), tr("Pareto k")});
    // Every column as wide as its contents, the spare width after the last: the numbers stay next to
    // their method on a narrow screen instead of being pushed to the far right.
    for (int c = 0; c < 6; ++c) table_->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionMode(QAbstractItemView::NoSelection);
    table_->hide();
    root->addWidget(table_, 1);
    warnings_ = new QLabel(this);
    warnings_->setWordWrap(true);
    warnings_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    warnings_->hide();
    root->addWidget(warnings_);
    root->addStretch(0);  // takes the room while the table is hidden

    connect(runButton_, &QPushButton::clicked, this, &VerdictPanel::run);
    connect(cancelButton_, &QPushButton::clicked, this, &VerdictPanel::cancel);
}

VerdictPanel::~VerdictPanel() = default;  // run_ (a child) cancels a run still going

bool VerdictPanel::running() const { return run_ && run_->running(); }

void VerdictPanel::setStatus(const QString& s) { status_->setText(s); }

void VerdictPanel::clear() {
    if (running()) cancel();
    result_ = {};
    verdict_->clear();
    table_->setRowCount(0);
    table_->hide();
    warnings_->hide();
    setStatus({});
}

void VerdictPanel::cancel() {
    if (!running()) return;
    setStatus(tr("cancelling: the estimates finished so far will be shown"));
    run_->cancel();
}

void VerdictPanel::run() {
    if (running()) return;
    dir_ = std::make_unique<QTemporaryDir>();
    if (!dir_->isValid()) {
        setStatus(tr("cannot make a temporary folder for the model: %1").arg(dir_->errorString()));
        return;
    }
    const QString modelPath = dir_->filePath(QStringLiteral("model.json"));
    try {
        rbm::save_model(currentModel_(), modelPath.toStdString());
    } catch (const std::exception& e) {
        setStatus(tr("cannot write the model for rbmscope-cli: %1").arg(QString::fromUtf8(e.what())));
        return;
    }
    delete run_;
    run_ = new RemoteRun(this);
    connect(run_, &RemoteRun::progress, this, [this](const RemoteProgress& p) {
        setStatus(tr("%1 · %2 %").arg(p.phase).arg(std::round(100 * p.fraction)));
    });
    connect(run_, &RemoteRun::finished, this, [this](const RemoteOutcome& o) {
        runButton_->setEnabled(true);
        cancelButton_->setEnabled(false);
        QJsonObject r;
        if (!o.resultPath.isEmpty()) {
            QFile f(o.resultPath);
            if (f.open(QIODevice::ReadOnly)) r = QJsonDocument::fromJson(f.readAll()).object();
        }
        if (r.isEmpty()) {
            setStatus(o.message.isEmpty() ? tr("rbmscope-cli logz printed no result") : o.message);
        } else {
            setStatus(o.complete ? tr("done") : tr("cancelled: the estimates finished before it"));
            showResult(r, o.complete);
        }
        Q_EMIT finished();
    });
    const QString command =
        QStringLiteral("rbmscope-cli logz '%1' --budget %2 --seed 1").arg(modelPath, budget_->currentData().toString());
    if (!run_->start(QString(), command, dir_->path(), dir_->filePath(QStringLiteral("logz.json")))) {
        setStatus(run_->error());
        return;
    }
    runButton_->setEnabled(false);
    cancelButton_->setEnabled(true);
    setStatus(tr("running rbmscope-cli logz…"));
    Q_EMIT started();
}

void VerdictPanel::showResult(const QJsonObject& r, bool complete) {
    result_ = r;
    const QJsonArray est = r.value(QStringLiteral("estimates")).toArray();
    table_->setRowCount(est.size());
    for (int i = 0; i < est.size(); ++i) {
        const QJsonObject e = est[i].toObject();
        const QJsonArray ci = e.value(QStringLiteral("ci95")).toArray();
        const QStringList cells = {
            e.value(QStringLiteral("method")).toString(),
            e.value(QStringLiteral("side")).toString(),
            number(e.value(QStringLiteral("log_z")), 4),
            ci.size() == 2 ? QStringLiteral("[%1, %2]").arg(number(ci[0], 4), number(ci[1], 4)) : QStringLiteral("–"),
            number(e.value(QStringLiteral("ess")), 1),
            number(e.value(QStringLiteral("pareto_k")), 2)};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (c >= 2) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            item->setToolTip(e.value(QStringLiteral("command_line")).toString());
            table_->setItem(i, c, item);
        }
    }
    table_->setVisible(!est.isEmpty());

    const QJsonArray ci = r.value(QStringLiteral("ci95")).toArray();
    if (r.contains(QStringLiteral("log_z")) && ci.size() == 2) {
        const bool trusted = r.value(QStringLiteral("trusted")).toBool();
        const bool exact = r.value(QStringLiteral("verdict")).toString().startsWith(QLatin1String("exact"));
        const QString colour = exact     ? palette().color(QPalette::WindowText).name()
                               : trusted ? QStringLiteral("#1a7f37")
                                         : QStringLiteral("#b42318");
        verdict_->setText(tr("<b style=\"color:%1\">%2</b> — log Z = %3, 95%: [%4, %5]%6")
                              .arg(colour, r.value(QStringLiteral("verdict")).toString().toHtmlEscaped(),
                                   number(r.value(QStringLiteral("log_z")), 4), number(ci[0], 4), number(ci[1], 4),
                                   complete ? QString() : tr(" (interrupted: from the estimates finished)")));
    } else {
        verdict_->setText(tr("<b>No verdict</b>: interrupted before any estimate finished"));
    }
    QStringList lines;
    for (const QJsonValue& w : r.value(QStringLiteral("warnings")).toArray())
        lines << QStringLiteral("⚠ ") + w.toString();
    warnings_->setText(lines.join(QLatin1Char('\n')));
    warnings_->setVisible(!lines.isEmpty());
}

}  // namespace rbmscope
