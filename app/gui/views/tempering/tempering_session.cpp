// The tempering view's settings in session files (see tempering_view.hpp).
#include "session_settings_reader.hpp"
#include "views/tempering/tempering_view.hpp"

namespace rbmscope {
namespace {

using rbm::SessionValue;
// The speed box's entries (scans per second) by name.
const std::vector<std::pair<std::string, double>> kSpeeds{{"slow", 60.0}, {"watch", 300.0}, {"fast", 0.0}};
const char* const kLadders[] = {"geometric", "linear", "adaptive"};

}  // namespace

std::map<std::string, SessionValue> TemperingView::sessionSettings() const {
    const TemperingSettings s = settings();
    std::map<std::string, SessionValue> m;
    m["scheme"] = SessionValue::scalar(std::string(rbm::pt_scheme_name(s.scheme)));
    m["ladder"] = SessionValue::scalar(std::string(kLadders[static_cast<int>(s.ladder)]));
    m["replicas"] = SessionValue::scalar(std::int64_t{s.replicas});
    m["gamma"] = SessionValue::scalar(s.gamma);
    m["seed"] = SessionValue::scalar(s.seed);
    m["scans"] = SessionValue::scalar(std::int64_t{s.scans});
    std::string speed = "watch";
    for (const auto& [name, value] : kSpeeds)
        if (value == s.scansPerSecond) speed = name;
    m["speed"] = SessionValue::scalar(speed);
    std::vector<rbm::SessionScalar> betas(s.customLadder.begin(), s.customLadder.end());
    m["custom_ladder"] = SessionValue::list(std::move(betas));
    return m;
}

QString TemperingView::readSessionSettings(const std::map<std::string, SessionValue>& map,
                                           TemperingSettings& out) const {
    SessionSettingsReader r(map, "views.tempering.");
    TemperingSettings s = settings();
    std::string text;
    if (r.choice("scheme", {"deo", "reversible", "single", "lifted"}, text)) s.scheme = rbm::parse_pt_scheme(text);
    if (r.choice("ladder", kLadders, text))
        s.ladder = text == "linear"     ? LadderKind::Linear
                   : text == "adaptive" ? LadderKind::Adaptive
                                        : LadderKind::Geometric;
    r.integer("replicas", replicas_->minimum(), replicas_->maximum(), s.replicas);
    r.real("gamma", gamma_->minimum(), gamma_->maximum(), s.gamma, true);
    long long seed = static_cast<long long>(s.seed);
    r.integer("seed", seed_->minimum(), seed_->maximum(), seed);
    s.seed = static_cast<std::uint64_t>(seed);
    r.integer("scans", scans_->minimum(), scans_->maximum(), s.scans);
    if (r.choice("speed", {"slow", "watch", "fast"}, text))
        for (const auto& [name, value] : kSpeeds)
            if (name == text) s.scansPerSecond = value;
    if (r.has("custom_ladder")) {
        std::vector<double> betas;
        if (r.reals("custom_ladder", 0.0, 1.0, betas)) {
            s.customLadder = betas;
            if (!betas.empty() && static_cast<int>(betas.size()) != s.replicas)
                r.fail("custom_ladder", QStringLiteral("empty or %1 β's (one per replica)").arg(s.replicas),
                       QStringLiteral("%1 β's").arg(betas.size()));
            else if (!betas.empty() && s.ladder == LadderKind::Adaptive)
                r.fail("custom_ladder", QStringLiteral("empty with the adaptive ladder (its rungs cannot be dragged)"),
                       QStringLiteral("%1 β's").arg(betas.size()));
            else if (!betas.empty()) {
                try {
                    initialLadder(s);
                } catch (const std::exception& e) {
                    r.fail("custom_ladder", QStringLiteral("a valid ladder"),
                           QStringLiteral("one that is not: %1").arg(QString::fromUtf8(e.what())));
                }
            }
        }
    } else {
        s.customLadder.clear();  // a ladder is its kind's unless the file lists its rungs
    }
    if (!r.error.isEmpty()) return r.error;
    out = s;
    return {};
}

}  // namespace rbmscope
