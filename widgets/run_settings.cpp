#include "run_settings.hpp"

#include <QStringList>
#include <algorithm>

namespace rbmscope {
namespace {

using rbm::ModelKind;

const QString kDataReason = QStringLiteral(
    "needs the model's training data: attach it in the Samples view (Data) or with File → Attach training data…");

bool ownsStart(const ModelTraits& t, const std::string& path) {
    // These paths ignore the base choice (build_path): the leaky paths start from their own
    // Gaussian, and a stored start distribution overrides the base of the others.
    return path == "leaky" || path == "energy" || t.hasStart || t.kind == ModelKind::Leaky ||
           t.kind == ModelKind::Gaussian;
}

QString pathReason(const ModelTraits& t, const std::string& path) {
    const bool leakyPath = path == "leaky" || path == "energy";
    switch (t.kind) {
        case ModelKind::Leaky:
            if (path == "geometric")
                return QStringLiteral("on a leaky RBM the geometric path is AIS-Energy: choose energy");
            if (!leakyPath)
                return QStringLiteral("is for GRBMs%1; a leaky RBM takes leakiness or energy")
                    .arg(path == "cov" ? QString() : QStringLiteral(" and BRBMs"));
            return {};
        case ModelKind::Gaussian:
            if (!t.hasStart)
                return QStringLiteral("a gaussian target needs a start distribution ('anneal_from' in the model file)");
            if (path == "cov") return QStringLiteral("AISC needs a GRBM target");
            if (leakyPath) return QStringLiteral("needs a leaky-ReLU RBM");
            return {};
        case ModelKind::Brbm:
            if (path == "cov") return QStringLiteral("AISC needs a GRBM target");
            if (leakyPath) return QStringLiteral("needs a leaky-ReLU RBM");
            if (path == "moments" && t.hasStart) return QStringLiteral("MAS anneals within one model family");
            return {};
        case ModelKind::Grbm:
            if (leakyPath) return QStringLiteral("needs a leaky-ReLU RBM");
            if (path == "moments" && t.hasStart)
                return QStringLiteral("MAS anneals within one model family, but the stored start is a Gaussian");
            return {};
    }
    return {};
}

QString baseReason(const ModelTraits& t, const std::string& path, const std::string& base) {
    if (base == "data" && !t.hasData) return kDataReason;
    if (t.kind == ModelKind::Brbm) {
        if (base == "sigma")
            return QStringLiteral("σ-base (AISM) is for GRBMs; a BRBM takes uniform or moment (base rate)");
        return {};
    }
    // GRBM
    if (base == "uniform")
        return QStringLiteral("is for Bernoulli RBMs; a GRBM needs a Gaussian base: moment or sigma");
    if (path == "cov" && base != "moment")
        return QStringLiteral("AISC matches the target's mean and covariance, so its base is moment-matched");
    if (path == "moments" && base != "moment")
        return QStringLiteral("MAS keeps σ fixed, so its base is N(target mean, σ²) whichever you pick: use moment");
    return {};
}

QString baseLabel(const std::string& base) {
    if (base == "moment") return QStringLiteral("moment-matched");
    if (base == "sigma") return QStringLiteral("σ (target mean, sd = σ)");
    if (base == "uniform") return QStringLiteral("uniform");
    return QStringLiteral("data");
}

}  // namespace

QString methodLabel(const MethodSpec& m, rbm::ModelKind kind) {
    switch (kind) {
        case ModelKind::Gaussian:
            return m.path == "moments" ? QStringLiteral("moment averages") : QStringLiteral("geometric averages");
        case ModelKind::Leaky: return m.path == "leaky" ? QStringLiteral("AIS-Leaky") : QStringLiteral("AIS-Energy");
        case ModelKind::Brbm: {
            const QString b = m.base == "uniform" ? QStringLiteral("uniform base") : QStringLiteral("base-rate base");
            return (m.path == "moments" ? QStringLiteral("MAS, ") : QStringLiteral("AIS, ")) + b;
        }
        case ModelKind::Grbm:
            if (m.path == "cov") return QStringLiteral("AISC");
            if (m.path == "moments") return QStringLiteral("MAS");
            if (m.path == "geometric") return m.base == "sigma" ? QStringLiteral("AISM") : QStringLiteral("AIS");
            return QString::fromStdString(m.path);
    }
    return QString::fromStdString(m.path);
}

QString parseMethod(const QString& text, MethodSpec& out) {
    const QStringList parts = text.trimmed().split(QLatin1Char(':'));
    static const QStringList paths{"geometric", "cov", "moments", "leaky", "energy"};
    static const QStringList bases{"moment", "sigma", "uniform", "data"};
    if (parts.isEmpty() || parts.size() > 2 || !paths.contains(parts[0]))
        return QStringLiteral("'%1' is not a method: expected PATH[:BASE] with PATH one of %2")
            .arg(text, paths.join(QLatin1Char('|')));
    if (parts.size() == 2 && !bases.contains(parts[1]))
        return QStringLiteral("'%1' is not a base: expected one of %2").arg(parts[1], bases.join(QLatin1Char('|')));
    out.path = parts[0].toStdString();
    out.base = parts.size() == 2 ? parts[1].toStdString() : std::string("moment");
    return {};
}

ModelTraits traitsOf(const rbm::Model& m) {
    return {m.kind(), m.anneal_from != nullptr, static_cast<int>(m.n_visible()), m.training.has_value()};
}

std::vector<Choice> pathChoices(const ModelTraits& t) {
    const std::vector<std::pair<std::string, QString>> all{{"geometric", QStringLiteral("geometric (joint energy)")},
                                                           {"cov", QStringLiteral("covariance base (AISC)")},
                                                           {"moments", QStringLiteral("moment averaging")},
                                                           {"leaky", QStringLiteral("leakiness (AIS-Leaky)")},
                                                           {"energy", QStringLiteral("energy (AIS-Energy)")}};
    std::vector<Choice> out;
    for (const auto& [key, label] : all) {
        const QString why = pathReason(t, key);
        out.push_back({key, label, why.isEmpty(), why});
    }
    return out;
}

std::vector<Choice> baseChoices(const ModelTraits& t, const std::string& path) {
    std::vector<Choice> out;
    const bool own = ownsStart(t, path);
    for (const std::string base : {"moment", "sigma", "uniform", "data"}) {
        QString why;
        if (own)
            why = t.hasStart && path != "leaky" && path != "energy"
                      ? QStringLiteral("the model's stored start distribution is the base")
                      : QStringLiteral("this path has its own start distribution");
        else why = baseReason(t, path, base);
        out.push_back({base, baseLabel(base), why.isEmpty(), why});
    }
    return out;
}

QString methodProblem(const ModelTraits& t, const MethodSpec& m) {
    if (const QString why = pathReason(t, m.path); !why.isEmpty())
        return QStringLiteral("path %1: %2").arg(QString::fromStdString(m.path), why);
    if (ownsStart(t, m.path)) return {};
    if (const QString why = baseReason(t, m.path, m.base); !why.isEmpty())
        return QStringLiteral("base %1: %2").arg(QString::fromStdString(m.base), why);
    return {};
}

MethodSpec canonicalMethod(const ModelTraits& t, MethodSpec m) {
    if (ownsStart(t, m.path)) m.base = "moment";
    return m;
}

std::vector<MethodSpec> methodCatalogue(const ModelTraits& t) {
    std::vector<MethodSpec> out;
    for (const Choice& p : pathChoices(t)) {
        if (!p.enabled) continue;
        if (ownsStart(t, p.key)) {
            out.push_back({p.key, "moment"});
            continue;
        }
        for (const Choice& b : baseChoices(t, p.key))
            if (b.enabled) out.push_back({p.key, b.key});
    }
    return out;
}

std::vector<MethodSpec> RunSettings::methods() const {
    std::vector<MethodSpec> out{method};
    for (const auto& m : compare)
        if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
    return out;
}

RunSettings defaultSettings(const ModelTraits& t) {
    RunSettings s;
    s.schedule.kind = "linear";
    switch (t.kind) {
        case ModelKind::Grbm:
            // Kiwaki & Aihara's comparison: moment-matched diagonal base vs full covariance.
            s.method = {"geometric", "moment"};
            s.compare = {{"cov", "moment"}};
            if (t.hasStart) s.compare.clear();
            s.schedule.steps = 100;
            break;
        case ModelKind::Brbm:
            // (The base-rate base equals the uniform one when every visible mean is 1/2, as on bars-and-stripes; the
            // user adds comparisons that differ for the model at hand.) A trained BRBM with its data: the data's base
            // rate (Salakhutdinov & Murray, docs/methods/annealing-paths.md#geometric-brbm).
            s.method = {"geometric", t.hasData ? "data" : "uniform"};
            s.compare.clear();
            s.schedule.steps = 1000;
            s.chains = 500;
            break;
        case ModelKind::Leaky:
            s.method = {"leaky", "moment"};
            s.compare = {{"energy", "moment"}};
            s.schedule.steps = 200;
            break;
        case ModelKind::Gaussian:
            // Grosse et al. section 5.1: perfect transitions, K = 25 intermediate distributions.
            s.method = {"geometric", "moment"};
            s.compare = {{"moments", "moment"}};
            s.schedule.steps = 25;
            s.perfect = true;
            s.sweepSteps = {5, 10, 25, 50, 100, 250};
            break;
    }
    return s;
}

}  // namespace rbmscope
