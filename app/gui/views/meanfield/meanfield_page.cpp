// The Mean field view as the window sees it (views/view.hpp): its transport (moved from the main
// window's buildTransports), report section, and the results of rbmscope-cli meanfield reopened.
#include <algorithm>
#include <array>
#include <cmath>

#include "jobs/background_jobs.hpp"
#include "views/cli_equivalent.hpp"
#include "views/meanfield/meanfield_view.hpp"
#include "views/report_html.hpp"
#include "views/view.hpp"

namespace rbmscope {
namespace {

class MeanFieldPage : public View {
public:
    explicit MeanFieldPage(const ViewContext& ctx) : View(ctx.owner), ctx_(ctx) {
        meanfield_ = new MeanFieldView(ctx.parent, ctx.jobs);
        meanfield_->setObjectName(name());
        buildTransport();
        connect(mfT_, &Transport::stateChanged, this, [this] { ctx_.changed(); });
        // The results arrive after the transport finished: the strip's figures follow them.
        connect(meanfield_, &MeanFieldView::resultsShown, this, [this] { ctx_.changed(); });
        connect(ctx_.jobs, &BackgroundJobs::runningChanged, mfT_, &Transport::refresh);
    }
    QString name() const override { return QStringLiteral("meanfield"); }
    QString title() const override { return tr("Mean field"); }
    QWidget* widget() const override { return meanfield_; }
    Transport* transport() const override { return mfT_; }
    bool busy() const override { return meanfield_->running(); }
    // The table's free energies in one line, so −log Z ≤ F_II ≤ F_I can be read off the strip.
    QStringList presenterFigures() const override {
        if (meanfield_->running()) return {};
        static const char* names[] = {"F type I", "F type II", "F TAP", "exact −log Z"};
        const std::array<double, 4> f = meanfield_->freeEnergies();
        QStringList parts;
        for (std::size_t i = 0; i < f.size(); ++i)
            if (std::isfinite(f[i]))
                parts << QStringLiteral("%1 = %2").arg(QString::fromUtf8(names[i])).arg(f[i], 0, 'f', 4);
        if (parts.isEmpty()) return {};
        return {parts.join(QStringLiteral(" · "))};
    }
    void setModel(const rbm::Model& m, const ModelEvent& e) override {
        if (e.change == ModelChange::Opened || e.change == ModelChange::Edited) {
            meanfield_->setModel(m);
            mfT_->reset();  // the computation shown is no longer the model's
        }
    }
    std::vector<SessionField> sessionFields() const override { return meanfield_->sessionFields(); }

    // Mean field: the three methods' free energies beside -log Z, and the command of each.
    QString reportSection(const ReportContext& r) const override {
        const std::array<double, 4> mf = meanfield_->freeEnergies();
        if (r.kind != rbm::ModelKind::Grbm ||
            !std::any_of(mf.begin(), mf.begin() + 3, [](double x) { return std::isfinite(x); }))
            return {};
        const auto num = [](double x, int digits = 6) { return reportNumber(x, digits); };
        QString html;
        html += QStringLiteral("<h2 id=\"meanfield\">Mean field</h2>\n");
        html += reportSvg(meanfield_, tr("Mean field"), r.pageSize);
        const rbm::MeanFieldType types[3] = {rbm::MeanFieldType::TypeI, rbm::MeanFieldType::TypeII,
                                             rbm::MeanFieldType::Tap};
        const QString names[3] = {tr("type I"), tr("type II"), tr("TAP")};
        html += QStringLiteral("<table><tr><th>method</th><th>free energy</th><th>F − (−log Z)</th></tr>");
        for (int i = 0; i < 3; ++i)
            html += QStringLiteral("<tr><td>%1</td><td class=\"n\">%2</td><td class=\"n\">%3</td></tr>")
                        .arg(names[i], num(mf[static_cast<std::size_t>(i)], 10),
                             num(mf[static_cast<std::size_t>(i)] - mf[3], 4));
        html += QStringLiteral("<tr><td>exact −log Z</td><td class=\"n\">%1</td><td></td></tr></table>\n")
                    .arg(num(mf[3], 10));
        for (int i = 0; i < 3; ++i) {
            if (!std::isfinite(mf[static_cast<std::size_t>(i)])) continue;  // a reopened result holds one method
            html += QStringLiteral("<p>%1:</p>").arg(names[i]);
            if (const auto& o = meanfield_->shownOptions())
                html += reportCommand(meanFieldCommand(r.modelArg, *o, types[i]));
            else
                html += QStringLiteral(
                    "<p class=\"note\">Reopened from a result file: its own command line (shown in the app) reproduces "
                    "it.</p>");
        }
        return html;
    }

    bool opensResult(const rbm::ResultFile& res) const override { return res.meanfield.has_value(); }
    ShownResult showResult(const rbm::ResultFile& res, const QString& file,
                           const std::vector<rbm::TrainFileRecord>&) override {
        const rbm::MeanFieldFileResult& m = *res.meanfield;
        rbm::MeanFieldResult r;
        r.free_energy = m.free_energy;
        r.iterations = m.iterations;
        r.converged = m.converged;
        r.residual = m.residual;
        r.mean_v = Eigen::Map<const rbm::Vec>(m.mean_v.data(), static_cast<rbm::Index>(m.mean_v.size()));
        r.mean_h = Eigen::Map<const rbm::Vec>(m.mean_h.data(), static_cast<rbm::Index>(m.mean_h.size()));
        r.var_v = Eigen::Map<const rbm::Vec>(m.var_v.data(), static_cast<rbm::Index>(m.var_v.size()));
        r.fixed_points.resize(m.fixed_points.size());
        r.trace.residual = m.trace_residual;
        r.trace.free_energy = m.trace_free_energy;
        if (m.exact_mse_v) {
            rbm::MeanFieldExact e;
            e.mse_v = *m.exact_mse_v;
            r.exact = e;
        }
        const int method = m.type == "1" ? 0 : m.type == "2" ? 1 : 2;
        std::optional<double> exactF = m.exact_free_energy;  // -log Z, as the view's exact row
        meanfield_->showResult(method, r, exactF, tr("reopened from %1 (not a live run)").arg(file));
        const QString names[3] = {tr("type I"), tr("type II"), tr("TAP")};
        return {tr("the %1 row of the table (free energy, error, iterations, convergence, fixed points) and its "
                   "residual trace")
                    .arg(names[method]),
                tr("the density picture and the other two methods (press Run to compute them)"), meanfield_->channel()};
    }

private:
    void buildTransport() {
        Transport::Job mf;
        mf.unit = tr("mean-field computation");
        mf.canStep = false;  // one fixed-point solve per method: nothing to step through
        // The gate is kept only to tell "never run" from "ran" (the solver does not take it).
        auto mfGate = std::make_shared<std::shared_ptr<rbm::StepGate>>();
        mf.start = [this, mfGate](std::shared_ptr<rbm::StepGate> g) {
            *mfGate = std::move(g);
            meanfield_->run();
        };
        mf.stop = [this] { meanfield_->cancel(); };
        mf.active = [this] { return meanfield_->running(); };
        mf.finished = [] { return true; };
        mf.gate = [mfGate] { return mfGate->get(); };
        mfT_ = new Transport(mf, this);
    }

    ViewContext ctx_;
    MeanFieldView* meanfield_ = nullptr;
    Transport* mfT_ = nullptr;
};

}  // namespace

View* makeMeanFieldView(const ViewContext& ctx) { return new MeanFieldPage(ctx); }

}  // namespace rbmscope
