#include "main_window/cli_equivalent.hpp"

#include <cstdio>

#include "core/kernels/gibbs.hpp"

namespace rbmscope {
namespace {

// 17 significant digits: the CLI parses back the same double.
std::string exact(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", x);
    return buf;
}

// "a,b,c" (written without `(cond ? "" : ",") + s`, which GCC 12 wrongly warns about).
std::string joined(const std::vector<std::string>& parts) {
    std::string out;
    for (const std::string& p : parts) {
        if (!out.empty()) out.push_back(',');
        out.append(p);
    }
    return out;
}

std::string joinSteps(const std::vector<rbm::Index>& ks) {
    std::vector<std::string> parts;
    for (rbm::Index k : ks) parts.push_back(std::to_string(k));
    return joined(parts);
}

bool leakyPath(const std::string& path, rbm::ModelKind kind) {
    return path == "leaky" || path == "energy" || kind == rbm::ModelKind::Leaky;  // as cmd_ais.cpp decides
}

// Settings that both ais and ais-sweep take; "" on success, else the setting the CLI cannot express.
QString common(std::vector<std::string>& a, const RunSettings& s, bool geometricStartOption) {
    const rbm::ScheduleRequest defaults;
    if (s.schedule.kind == "sigmoid" && s.schedule.sigmoid_delta != defaults.sigmoid_delta)
        return QStringLiteral("the sigmoid schedule's delta %1 (the CLI uses %2)")
            .arg(s.schedule.sigmoid_delta)
            .arg(defaults.sigmoid_delta);
    if (s.schedule.kind == "geometric" && s.schedule.geometric_start != defaults.geometric_start && !geometricStartOption)
        return QStringLiteral("the geometric schedule's first beta %1 (ais-sweep uses %2)")
            .arg(s.schedule.geometric_start)
            .arg(defaults.geometric_start);
    a.insert(a.end(), {"--schedule", s.schedule.kind});
    if (s.schedule.kind == "geometric" && geometricStartOption)
        a.insert(a.end(), {"--geometric-start", exact(s.schedule.geometric_start)});
    a.insert(a.end(), {"--chains", std::to_string(s.chains), "--seed", std::to_string(s.seed)});
    if (s.perfect) a.push_back("--perfect");
    if (s.reverse) a.push_back("--reverse");
    return {};
}

}  // namespace

CliEquivalent aisCommand(const std::string& model, rbm::ModelKind kind, const RunSettings& s, const MethodSpec& m) {
    CliEquivalent out;
    std::vector<std::string> a{"rbmscope-cli", "ais", model, "--path", m.path, "--base", m.base};
    if (QString missing = common(a, s, true); !missing.isEmpty()) return {{}, missing};
    if (s.schedule.kind == "list") {
        std::vector<std::string> betas;
        for (double b : s.schedule.list) betas.push_back(exact(b));
        a.insert(a.end(), {"--betas", joined(betas)});
    } else if (s.schedule.steps > 0) {
        a.insert(a.end(), {"--steps", std::to_string(s.schedule.steps)});
    }
    if (leakyPath(m.path, kind)) a.insert(a.end(), {"--kernel", rbm::leaky_kernel_name(s.leakyKernel)});
    out.argv = std::move(a);
    return out;
}

CliEquivalent sweepCommand(const std::string& model, rbm::ModelKind kind, const RunSettings& s) {
    CliEquivalent out;
    std::vector<std::string> methods;
    bool leaky = false;
    for (const MethodSpec& m : s.methods()) {
        methods.push_back(m.path + ":" + m.base);
        leaky = leaky || leakyPath(m.path, kind);
    }
    if (s.schedule.kind == "list") return {{}, QStringLiteral("a schedule given as a list of betas (ais-sweep takes a kind)")};
    std::vector<std::string> a{"rbmscope-cli", "ais-sweep", model, "--methods", joined(methods), "--steps", joinSteps(s.sweepSteps),
                               "--repeats", "1"};
    if (QString missing = common(a, s, false); !missing.isEmpty()) return {{}, missing};
    if (leaky) a.insert(a.end(), {"--kernel", rbm::leaky_kernel_name(s.leakyKernel)});
    out.argv = std::move(a);
    return out;
}

CliEquivalent meanFieldCommand(const std::string& model, const rbm::MeanFieldOptions& o, rbm::MeanFieldType type) {
    CliEquivalent out;
    out.argv = {"rbmscope-cli", "meanfield", model, "--type", rbm::mean_field_type_name(type), "--damping", exact(o.damping),
                "--update", o.update == rbm::MeanFieldUpdate::Parallel ? "parallel" : "sequential", "--restarts",
                std::to_string(o.restarts), "--tol", exact(o.tol), "--max-iterations", std::to_string(o.max_iterations),
                "--seed", std::to_string(o.seed)};
    return out;
}

}  // namespace rbmscope
