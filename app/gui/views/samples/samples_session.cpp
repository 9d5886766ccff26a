// The samples view's settings and data set in session files (see samples_view.hpp).
#include "session_settings_reader.hpp"
#include "views/samples/samples_view.hpp"

namespace rbmscope {
namespace {

using rbm::SessionValue;
const char* const kSamplers[] = {"gibbs", "pt", "anneal"};
const char* const kPreps[] = {"as-is", "binarize", "scale", "standardize"};  // the Preprocessing box's order

}  // namespace

std::map<std::string, SessionValue> SamplesView::sessionSettings() const {
    const SamplesSettings s = settings();
    std::map<std::string, SessionValue> m;
    m["sampler"] = SessionValue::scalar(std::string(kSamplers[static_cast<int>(s.sampler)]));
    m["chains"] = SessionValue::scalar(std::int64_t{s.chains});
    m["sweeps"] = SessionValue::scalar(std::int64_t{s.sweeps});
    m["seed"] = SessionValue::scalar(s.seed);
    m["speed"] = SessionValue::scalar(s.sweepsPerSecond);
    m["display"] = SessionValue::scalar(std::string(display_->currentIndex() == 0 ? "probabilities" : "binary"));
    m["rows"] = SessionValue::scalar(std::int64_t{rows_->value()});
    m["cols"] = SessionValue::scalar(std::int64_t{cols_->value()});
    m["prep"] = SessionValue::scalar(std::string(kPreps[std::max(0, prep_->currentIndex())]));
    return m;
}

QString SamplesView::readSession(const std::map<std::string, SessionValue>* map,
                                 const std::optional<rbm::TrainingData>& data, SessionState& out) const {
    SessionState s;
    s.settings = settings();
    s.probabilities = display_->currentIndex() == 0;
    s.rows = rows_->value();
    s.cols = cols_->value();
    s.prep = prep_->currentIndex();
    s.data = data;
    s.hasSettings = map != nullptr;
    if (map) {
        SessionSettingsReader r(*map, "views.samples.");
        std::string text;
        if (r.choice("sampler", kSamplers, text))
            s.settings.sampler = text == "pt"       ? SamplerKind::Pt
                                 : text == "anneal" ? SamplerKind::Anneal
                                                    : SamplerKind::Gibbs;
        r.integer("chains", chains_->minimum(), chains_->maximum(), s.settings.chains);
        r.integer("sweeps", sweeps_->minimum(), sweeps_->maximum(), s.settings.sweeps);
        long long seed = static_cast<long long>(s.settings.seed);
        r.integer("seed", seed_->minimum(), seed_->maximum(), seed);
        s.settings.seed = static_cast<std::uint64_t>(seed);
        if (const rbm::SessionValue* v =
                r.scalar("speed", QStringLiteral("one of 0, 200, 20, 2 (sweeps per second; 0: fast)"))) {
            bool found = false;
            for (int i = 0; i < speed_->count(); ++i)
                if (SessionSettingsReader::realOf(v->items.front()) == speed_->itemData(i).toDouble()) found = true;
            if (found) s.settings.sweepsPerSecond = SessionSettingsReader::realOf(v->items.front());
            else
                r.fail("speed", QStringLiteral("one of 0, 200, 20, 2 (sweeps per second; 0: fast)"),
                       SessionSettingsReader::got(*v));
        }
        if (r.choice("display", {"probabilities", "binary"}, text)) s.probabilities = text == "probabilities";
        r.integer("rows", rows_->minimum(), rows_->maximum(), s.rows);
        r.integer("cols", cols_->minimum(), cols_->maximum(), s.cols);
        if (r.choice("prep", kPreps, text))
            for (int i = 0; i < 4; ++i)
                if (text == kPreps[i]) s.prep = i;
        if (!r.error.isEmpty()) return r.error;
    }
    out = std::move(s);
    return {};
}

void SamplesView::applySession(const SessionState& s) {
    if (s.hasSettings) {
        setSettings(s.settings);
        setShowProbabilities(s.probabilities);
        prep_->setCurrentIndex(s.prep);
        setImageShape(s.rows, s.cols);
    }
    // The data set last: setTrainingData sets the Preprocessing box from it. A model that records
    // the same data has already loaded it (setModel).
    if (s.data && (!trainingData_ || !sameTrainingData(*trainingData_, *s.data))) setTrainingData(*s.data);
    // A session that showed no data set (and whose model records none) shows none.
    else if (!s.data && s.hasSettings && !model_.training) setDataSpec(QString());
    updateShape();
    showData();
}

}  // namespace rbmscope
