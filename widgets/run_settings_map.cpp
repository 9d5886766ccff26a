// RunSettings as the "settings" object of a session file (core's rbm::SessionValue), and back,
// with the panel's checks: a session can never put a value into the panel that it would refuse.
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <limits>

#include "run_settings.hpp"
#include "session_settings_reader.hpp"

namespace rbmscope {
namespace {

using rbm::SessionScalar;
using rbm::SessionValue;
using Map = std::map<std::string, SessionValue>;

const char* const kKernels[] = {"exact-mh", "paper-gibbs"};
// The schedules the panel offers ("list" needs β's the panel has no field for).
const char* const kPanelSchedules[] = {"linear", "sigmoid", "four-period", "piecewise", "geometric", "binned"};

using Reader = SessionSettingsReader;
QString got(const SessionScalar& v) { return Reader::got(v); }

std::string methodText(const MethodSpec& m) { return m.path + ":" + m.base; }

}  // namespace

std::map<std::string, SessionValue> settingsToMap(const RunSettings& s) {
    Map m;
    m["path"] = SessionValue::scalar(s.method.path);
    m["base"] = SessionValue::scalar(s.method.base);
    std::vector<SessionScalar> compare;
    for (const MethodSpec& c : s.compare) compare.emplace_back(methodText(c));
    m["compare"] = SessionValue::list(std::move(compare));
    m["schedule"] = SessionValue::scalar(s.schedule.kind);
    m["steps"] = SessionValue::scalar(std::int64_t{s.schedule.steps});
    m["geometric_start"] = SessionValue::scalar(s.schedule.geometric_start);
    m["sigmoid_delta"] = SessionValue::scalar(s.schedule.sigmoid_delta);
    m["chains"] = SessionValue::scalar(std::int64_t{s.chains});
    m["seed"] = SessionValue::scalar(s.seed);
    m["threads"] = SessionValue::scalar(std::int64_t{s.threads});
    m["perfect"] = SessionValue::scalar(s.perfect);
    m["reverse"] = SessionValue::scalar(s.reverse);
    m["leaky_kernel"] = SessionValue::scalar(std::string(kKernels[s.leakyKernel == rbm::LeakyKernel::ExactMH ? 0 : 1]));
    std::vector<SessionScalar> sweep;
    for (rbm::Index k : s.sweepSteps) sweep.emplace_back(std::int64_t{k});
    m["sweep"] = SessionValue::list(std::move(sweep));
    m["auto_run"] = SessionValue::scalar(s.autoRun);
    return m;
}

QString settingsFromMap(const Map& map, const ModelTraits& traits, const RunSettings& defaults, RunSettings& out) {
    RunSettings s = defaults;
    Reader r(map);
    r.string("path", s.method.path);
    r.string("base", s.method.base);
    if (r.error.isEmpty() && (map.count("path") || map.count("base"))) {
        if (const QString why = methodProblem(traits, s.method); !why.isEmpty())
            return QStringLiteral("settings 'path' and 'base' (%1) do not suit this model: %2")
                .arg(QString::fromStdString(methodText(s.method)), why);
        s.method = canonicalMethod(traits, s.method);
    }
    if (const SessionValue* v = r.list("compare", QStringLiteral("an array of \"path:base\" strings"))) {
        s.compare.clear();
        for (std::size_t i = 0; i < v->items.size(); ++i) {
            const auto* text = std::get_if<std::string>(&v->items[i]);
            MethodSpec m;
            const QString why = !text ? QStringLiteral("it is not a string")
                                : !parseMethod(QString::fromStdString(*text), m).isEmpty()
                                    ? parseMethod(QString::fromStdString(*text), m)
                                    : methodProblem(traits, m);
            if (!why.isEmpty())
                return QStringLiteral("setting 'compare'[%1] (%2) cannot be used: %3")
                    .arg(i)
                    .arg(got(v->items[i]), why);
            s.compare.push_back(canonicalMethod(traits, m));
        }
    }
    r.choice("schedule", kPanelSchedules, s.schedule.kind);
    long long steps = s.schedule.steps, chains = s.chains, threads = s.threads;
    r.integer("steps", 1, kMaxSteps, steps);
    r.real("geometric_start", 0, 1, s.schedule.geometric_start);
    r.real("sigmoid_delta", 0, 50, s.schedule.sigmoid_delta);
    r.integer("chains", 1, kMaxChains, chains);
    r.seed("seed", s.seed);
    r.integer("threads", 0, kMaxThreads, threads);
    r.boolean("perfect", s.perfect);
    r.boolean("reverse", s.reverse);
    std::string kernel;
    if (r.choice("leaky_kernel", kKernels, kernel))
        s.leakyKernel = kernel == kKernels[0] ? rbm::LeakyKernel::ExactMH : rbm::LeakyKernel::PaperGibbs;
    const QString sweepExpected = QStringLiteral("an array of integers from 1 to %1").arg(kMaxSteps);
    if (const SessionValue* v = r.list("sweep", sweepExpected)) {
        std::vector<rbm::Index> ks;
        for (const SessionScalar& x : v->items) {
            long long k = 0;
            if (!Reader::integerOf(x, 1, kMaxSteps, k)) {
                r.fail("sweep", sweepExpected, QStringLiteral("an array holding %1").arg(got(x)));
                break;
            }
            ks.push_back(k);
        }
        if (ks.empty() && r.error.isEmpty()) r.fail("sweep", sweepExpected, QStringLiteral("an empty array"));
        s.sweepSteps = ks;
    }
    r.boolean("auto_run", s.autoRun);
    if (!r.error.isEmpty()) return r.error;
    s.schedule.steps = steps;
    s.chains = chains;
    s.threads = static_cast<int>(threads);
    out = s;
    return {};
}

}  // namespace rbmscope
