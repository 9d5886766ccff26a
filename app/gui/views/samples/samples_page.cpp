// The Samples view as the window sees it (views/view.hpp): its transport (moved from the main
// window's buildTransports), its part of a session (settings and data set), and its data becoming
// the model's training data.
#include <QFileInfo>
#include <algorithm>

#include "jobs/background_jobs.hpp"
#include "views/samples/samples_view.hpp"
#include "views/view.hpp"

namespace rbmscope {
namespace {

class SamplesPage : public View {
public:
    explicit SamplesPage(const ViewContext& ctx) : View(ctx.owner), ctx_(ctx) {
        samples_ = new SamplesView(ctx.parent, ctx.jobs);
        samples_->setObjectName(name());
        connect(samples_, &SamplesView::trainingDataChosen, this,
                [this](const rbm::TrainingData& t) { ctx_.attachTrainingData(t); });
        buildTransport();
        connect(smpT_, &Transport::stateChanged, this, [this] { ctx_.changed(); });
        connect(ctx_.jobs, &BackgroundJobs::runningChanged, smpT_, &Transport::refresh);
        // A Samples run is complete when its last frame is delivered (else the toolbar keeps the
        // "stopped" it read as the channel stopped).
        connect(samples_, &SamplesView::runFinished, smpT_, &Transport::refresh);
    }
    QString name() const override { return QStringLiteral("samples"); }
    QString title() const override { return tr("Samples"); }
    QString toolTip() const override { return tr("Visible samples of an image-shaped model next to data examples"); }
    QWidget* widget() const override { return samples_; }
    Transport* transport() const override { return smpT_; }
    bool busy() const override { return samples_->busy(); }
    void setModel(const rbm::Model& m, const ModelEvent& e) override {
        if (e.change == ModelChange::Opened) {
            // A relative data path recorded in the model file is looked up beside the file too.
            const QFileInfo file(e.origin);
            samples_->setModelDirectory(file.exists() ? file.absolutePath() : QString());
        }
        if (e.change == ModelChange::Opened || e.change == ModelChange::Edited) {
            samples_->setModel(m);
            smpT_->reset();  // the run shown is no longer the model's
        }
    }

    void saveSession(rbm::Session& s) const override {
        s.views["samples"] = samples_->sessionSettings();
        if (samples_->trainingData()) s.samples_data = *samples_->trainingData();
    }
    QString readSession(const rbm::Session& s) override {
        const auto it = s.views.find("samples");
        return samples_->readSession(it == s.views.end() ? nullptr : &it->second, s.samples_data, pending_);
    }
    void applySession(const rbm::Session&) override { samples_->applySession(pending_); }

private:
    void buildTransport() {
        const auto ofUnits = [](const rbm::StepGate* g, double total) {
            return g && total > 0 ? std::min(1.0, static_cast<double>(g->done.load()) / total) : -1.0;
        };
        Transport::Job smp;
        smp.unit = tr("sampling sweep");
        smp.start = [this](std::shared_ptr<rbm::StepGate> g) { samples_->run(std::move(g)); };
        smp.stop = [this] { samples_->cancel(); };
        smp.active = [this] { return ctx_.jobs->isRunning(samples_->channel()); };
        smp.finished = [this] { return samples_->lastRunFinished(); };
        smp.gate = [this] { return samples_->stepGate(); };
        smp.fraction = [this, ofUnits] {
            return ofUnits(samples_->stepGate(), static_cast<double>(samples_->settings().sweeps));
        };
        smpT_ = new Transport(smp, this);
    }

    ViewContext ctx_;
    SamplesView* samples_ = nullptr;
    Transport* smpT_ = nullptr;
    SamplesView::SessionState pending_;  // read from a session, applied by applySession
};

}  // namespace

View* makeSamplesView(const ViewContext& ctx) { return new SamplesPage(ctx); }

}  // namespace rbmscope
