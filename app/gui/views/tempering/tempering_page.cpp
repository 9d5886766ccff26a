// The Tempering view as the window sees it (views/view.hpp): its transport (moved verbatim from
// the main window's buildTransports), the replay of the last run on Space and Step, playback
// frames over the recorded scans, its session part, report section, pt command, and the results
// of rbmscope-cli pt reopened.
#include <QLabel>
#include <QTextDocumentFragment>
#include <algorithm>
#include <cmath>

#include "core/tempering/pt.hpp"
#include "jobs/background_jobs.hpp"
#include "views/cli_equivalent.hpp"
#include "views/report_html.hpp"
#include "views/tempering/tempering_recording.hpp"
#include "views/tempering/tempering_view.hpp"
#include "views/view.hpp"

namespace rbmscope {
namespace {

class TemperingPage : public View {
public:
    explicit TemperingPage(const ViewContext& ctx) : View(ctx.owner), ctx_(ctx) {
        tempering_ = new TemperingView(ctx.parent, ctx.jobs);
        tempering_->setObjectName(name());
        buildTransport();
        connect(ptT_, &Transport::stateChanged, this, [this] { ctx_.changed(); });
        connect(ctx_.jobs, &BackgroundJobs::runningChanged, ptT_, &Transport::refresh);
        connect(tempering_, &TemperingView::playingChanged, this,
                [this] { ctx_.changed(); });  // Replay run / Pause replay
        connect(tempering_, &TemperingView::replayAvailableChanged, this, [this] { ctx_.changed(); });
        // A PT run is complete when its last frame is delivered, just after its channel stops running.
        connect(tempering_, &TemperingView::runFinished, ptT_, &Transport::refresh);
        connect(tempering_, &TemperingView::playbackChanged, ptT_, &Transport::refresh);  // Replaying, and back
    }
    QString name() const override { return QStringLiteral("tempering"); }
    QString title() const override { return tr("Tempering"); }
    QWidget* widget() const override { return tempering_; }
    Transport* transport() const override { return ptT_; }
    void setPace(double unitsPerSecond) override {
        View::setPace(unitsPerSecond);
        tempering_->setReplayPace(unitsPerSecond > 0 ? unitsPerSecond
                                                     : 0);  // a PT replay goes at the transport's speed
    }
    void setHurried(bool on) override { tempering_->setHurried(on); }
    void setModel(const rbm::Model& m, const ModelEvent& e) override {
        if (e.change == ModelChange::Opened || e.change == ModelChange::Edited) {
            tempering_->setModel(m);
            ptT_->reset();  // the run shown is no longer the model's (idle, 0 units)
        }
    }

    void setExactLogZ(std::optional<double> logZ) override { tempering_->setExactLogZ(logZ); }
    // The counters' round-trip and log Z lines (measured vs predicted, BAR vs exact) as plain text.
    QStringList presenterFigures() const override {
        QStringList out;
        for (QString line : tempering_->countersLabel()->text().split(QStringLiteral("<br>"))) {
            line = QTextDocumentFragment::fromHtml(line).toPlainText();
            // The rates in parentheses repeat the counts per scan: left to the view's own counters.
            if (const int rate = line.indexOf(QStringLiteral(" (rate ")); rate > 0) line.truncate(rate);
            line.remove(QStringLiteral(" (95 %, batch means)"));  // the ± are 95 % intervals, as in the view
            if (line.startsWith(tr("Round trips")) || line.startsWith(tr("log Z"))) out << line;
        }
        return out;
    }

    void saveSession(rbm::Session& s) const override { s.views["tempering"] = tempering_->sessionSettings(); }
    QString readSession(const rbm::Session& s) override {
        pending_.reset();
        const auto it = s.views.find("tempering");
        if (it == s.views.end()) return {};
        TemperingSettings t = tempering_->settings();
        if (const QString err = tempering_->readSessionSettings(it->second, t); !err.isEmpty()) return err;
        pending_ = t;
        return {};
    }
    void applySession(const rbm::Session&) override {
        if (pending_) tempering_->setSettings(*pending_);
        pending_.reset();
    }

    Playback playback() const override {
        if (!tempering_->canReplay()) return {};
        const bool replaying = tempering_->playing();
        return {true, replaying ? tr("&Pause replay") : tr("&Replay run"), !replaying};
    }
    void togglePlayback() override {
        if (tempering_->canReplay()) tempering_->setPlaying(!tempering_->playing());  // the replay of the last PT run
    }
    bool stepPlayback() override {
        // In a replay of the last PT run, Step shows the next recorded scan; otherwise the job's unit.
        if (!tempering_->replaying()) return false;
        tempering_->stepReplay();
        return true;
    }
    QString framesPrompt() const override { return tr("Frames over the recorded scans:"); }
    QString playbackFrames(int frames, PlaybackFrames* out) override {
        if (!tempering_->canReplay())
            return tr("there is no recorded run to play back: run parallel tempering first (F5)");
        // Frames at evenly spaced recorded scans, first to last (Replay's path through the run).
        TemperingView* tv = tempering_;
        tv->setPlaying(false);
        const int records = tv->recording()->size();
        const int before = tv->shownRecord();
        const auto index = [frames, records](int i) {
            return static_cast<int>(std::lround(static_cast<double>(i) * (records - 1) / (frames - 1)));
        };
        out->show = [tv, index](int i) { tv->showRecord(index(i)); };
        out->shown = [tv, index](int i) {
            return tv->shownRecord() == index(i) && !tv->jobs()->isRunning(tv->heatChannel());
        };
        out->restore = [tv, before] {
            if (before >= 0) tv->showRecord(before);
            else tv->endReplay();
        };
        out->superseded = [tv] { return tv->recording() == nullptr; };
        out->target = tv;
        return {};
    }

    // Tempering: the view's last pt run (or the reopened result it shows): ladder, swap rates, round trips.
    QString reportSection(const ReportContext& r) const override {
        const TemperingFrame* f = tempering_->shownFrame();
        if (!f || f->stats.betas.empty()) return {};
        const auto num = [](double x, int digits = 6) { return reportNumber(x, digits); };
        const auto row = reportRow;
        const rbm::PtStats& st = f->stats;
        QString html;
        html += QStringLiteral("<h2 id=\"tempering\">Parallel tempering</h2>\n");
        html += reportSvg(tempering_, tr("Tempering"), r.pageSize);
        html += QStringLiteral("<table>");
        html += row(tr("scheme"), QString::fromLatin1(rbm::pt_scheme_name(st.scheme)));
        html += row(tr("replicas (ladder points)"), QString::number(st.betas.size()));
        html += row(tr("chains"), QString::number(st.chains));
        html += row(tr("scans (final run)"), QString::number(st.scans));
        html += row(tr("round trips"), QString::number(st.total_round_trips()));
        html += row(tr("round-trip rate (per scan and chain)"), num(st.round_trip_rate(), 8));
        html += row(tr("predicted round-trip rate"), num(st.predicted_round_trip_rate(), 8));
        html += row(tr("barrier Λ"), num(st.barrier(), 8));
        html += row(tr("state"), f->finished ? tr("complete") : tr("stopped before the end"));
        html +=
            QStringLiteral("</table>\n<table><tr><th>pair</th><th>β_k</th><th>β_k+1</th><th>swap acceptance</th></tr>");
        const std::vector<double> acc = st.acceptance();
        for (std::size_t k = 0; k < acc.size() && k + 1 < st.betas.size(); ++k)
            html += QStringLiteral(
                        "<tr><td class=\"n\">%1</td><td class=\"n\">%2</td><td class=\"n\">%3</td><td "
                        "class=\"n\">%4</td></tr>")
                        .arg(k)
                        .arg(num(st.betas[k], 8), num(st.betas[k + 1], 8), num(acc[k], 8));
        html += QStringLiteral("</table>\n");
        if (const auto& ran = tempering_->lastRunSettings(); ran && tempering_->lastRunFinished())
            html += reportCommand(ptCommand(r.modelArg, *ran));
        else if (ran)
            html += QStringLiteral(
                "<p class=\"note\">The run was stopped before the end: no command line gives these partial "
                "figures.</p>");
        else
            html += QStringLiteral(
                "<p class=\"note\">Reopened from a result file: its own command line (shown in the app) reproduces "
                "it.</p>");
        return html;
    }
    // pt with the view's controls as they are (what Run there would start).
    std::optional<CliEquivalent> cliCommand(const std::string& modelArg, const QString&, const QString&,
                                            bool*) const override {
        CliEquivalent c = ptCommand(modelArg, tempering_->settings());
        if (c.argv.empty()) return std::nullopt;
        return c;
    }

    bool opensResult(const rbm::ResultFile& res) const override { return res.pt.has_value(); }
    ShownResult showResult(const rbm::ResultFile& res, const QString& file,
                           const std::vector<rbm::TrainFileRecord>&) override {
        const rbm::PtFileResult& p = *res.pt;
        TemperingFrame f;
        f.stats.scheme = rbm::parse_pt_scheme(p.scheme);
        f.stats.betas = p.betas;
        f.stats.scans = p.scans_done ? *p.scans_done : p.sweeps;
        f.stats.chains = p.chains;
        f.stats.rejection = p.rejection;
        f.stats.proposed = p.swaps_proposed;
        f.stats.accepted = p.swaps_accepted;
        f.stats.round_trips = p.round_trips_per_replica;
        f.stats.restarts = p.restarts_per_replica;
        f.stats.lifted_round_trips = p.lifted_round_trips.value_or(0);
        f.betas = p.betas;
        f.rungs = static_cast<int>(p.betas.size());
        f.scansDone = f.stats.scans;
        f.scansTotal = p.sweeps;
        f.finished = res.complete;
        ctx_.showView(name());  // shown first: the view lays out its rung maps for the ladder
        tempering_->showResult(f, tr("reopened from %1 (not a live run)").arg(file));
        return {tr("the ladder, swap acceptance per pair, round trips against the prediction, the barrier"),
                tr("replica trajectories and the rung states (a result holds none)"), tempering_->runChannel()};
    }

private:
    void buildTransport() {
        Transport::Job pt;
        pt.unit = tr("PT scan");
        pt.start = [this](std::shared_ptr<rbm::StepGate> g) { tempering_->run(std::move(g)); };
        pt.stop = [this] { tempering_->cancel(); };
        pt.active = [this] { return tempering_->running(); };
        pt.finished = [this] { return tempering_->lastRunFinished(); };
        pt.gate = [this] { return tempering_->stepGate(); };
        // The engine computes at full speed; the transport drives what the view shows (its counter is
        // the scan on screen), and the toolbar says how far the engine is.
        pt.detail = [this] { return tempering_->transportDetail(); };
        // The replay of the last run (playing, scrubbed or stepped), and a reopened result.
        pt.playback = [this] { return tempering_->playbackState(); };
        pt.restored = [this] { return tempering_->restoredRun(); };
        // Progress of the views that count units against their settings (tuning rounds come on top
        // of a tempering run's scans: the fraction is capped).
        const auto ofUnits = [](const rbm::StepGate* g, double total) {
            return g && total > 0 ? std::min(1.0, static_cast<double>(g->done.load()) / total) : -1.0;
        };
        pt.fraction = [this, ofUnits] {
            return ofUnits(tempering_->stepGate(), static_cast<double>(tempering_->settings().scans));
        };
        ptT_ = new Transport(pt, this);
    }

    ViewContext ctx_;
    TemperingView* tempering_ = nullptr;
    Transport* ptT_ = nullptr;
    std::optional<TemperingSettings> pending_;  // read from a session, applied by applySession
};

}  // namespace

View* makeTemperingView(const ViewContext& ctx) { return new TemperingPage(ctx); }

}  // namespace rbmscope
