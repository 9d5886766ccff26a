#include "views/cli_equivalent.hpp"

#include <cmath>
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
    if (s.schedule.kind == "geometric" && s.schedule.geometric_start != defaults.geometric_start &&
        !geometricStartOption)
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
    if (s.schedule.kind == "list")
        return {{}, QStringLiteral("a schedule given as a list of betas (ais-sweep takes a kind)")};
    std::vector<std::string> a{"rbmscope-cli",          "ais-sweep", model, "--methods", joined(methods), "--steps",
                               joinSteps(s.sweepSteps), "--repeats", "1"};
    if (QString missing = common(a, s, false); !missing.isEmpty()) return {{}, missing};
    if (leaky) a.insert(a.end(), {"--kernel", rbm::leaky_kernel_name(s.leakyKernel)});
    out.argv = std::move(a);
    return out;
}

CliEquivalent meanFieldCommand(const std::string& model, const rbm::MeanFieldOptions& o, rbm::MeanFieldType type) {
    CliEquivalent out;
    out.argv = {"rbmscope-cli",
                "meanfield",
                model,
                "--type",
                rbm::mean_field_type_name(type),
                "--damping",
                exact(o.damping),
                "--update",
                o.update == rbm::MeanFieldUpdate::Parallel ? "parallel" : "sequential",
                "--restarts",
                std::to_string(o.restarts),
                "--tol",
                exact(o.tol),
                "--max-iterations",
                std::to_string(o.max_iterations),
                "--seed",
                std::to_string(o.seed)};
    return out;
}

CliEquivalent ptCommand(const std::string& model, const TemperingSettings& s) {
    CliEquivalent out;
    std::vector<std::string> a{"rbmscope-cli",
                               "pt",
                               model,
                               "--scheme",
                               rbm::pt_scheme_name(s.scheme),
                               "--chains",
                               std::to_string(s.chains),
                               "--sweeps",
                               std::to_string(s.scans),
                               "--seed",
                               std::to_string(s.seed)};
    if (!s.customLadder.empty()) {  // dragged rungs: the ladder itself, and no tuning (as runTempering)
        std::vector<std::string> betas;
        for (double b : s.customLadder) betas.push_back(exact(b));
        a.insert(a.end(), {"--betas", joined(betas)});
    } else if (s.ladder == LadderKind::Linear) {
        a.insert(a.end(), {"--ladder", "linear", "--replicas", std::to_string(s.replicas)});
    } else {
        a.insert(a.end(),
                 {"--ladder", "geometric", "--replicas", std::to_string(s.replicas), "--gamma", exact(s.gamma)});
        if (s.ladder == LadderKind::Adaptive && s.adaptiveRounds > 0)
            a.insert(a.end(), {"--adaptive", std::to_string(s.adaptiveRounds)});
    }
    out.argv = std::move(a);
    return out;
}

CliEquivalent trainCommand(const TrainDataSpec& data, const rbm::TrainOptions& o, const std::string& out) {
    const rbm::TrainOptions defaults;
    if (!o.init_bias_from_data) return {{}, QStringLiteral("visible biases that do not start from the data")};
    if (o.ais_seed != defaults.ais_seed) return {{}, QStringLiteral("the monitor's AIS seed %1").arg(o.ais_seed)};
    if (o.exact_limit != std::floor(o.exact_limit) || o.exact_limit < 0 || o.exact_limit > 9.0e15)
        return {
            {},
            QStringLiteral("an exact-enumeration limit of %1 terms (the CLI takes a whole number)").arg(o.exact_limit)};
    std::vector<std::string> a{"rbmscope-cli", "train", "--data", data.source.trimmed().toStdString()};
    if (data.shifts) a.push_back("--shifts");
    switch (data.prep) {
        case TrainDataSpec::Prep::AsIs: break;
        case TrainDataSpec::Prep::Binarize: a.insert(a.end(), {"--binarize", "0.5"}); break;  // as trainingDataOf
        case TrainDataSpec::Prep::Scale: a.push_back("--scale"); break;
        case TrainDataSpec::Prep::Standardize: a.push_back("--standardize"); break;
    }
    a.insert(a.end(), {"--kind",
                       rbm::kind_name(o.kind),
                       "--hidden",
                       std::to_string(o.hidden),
                       "--method",
                       rbm::train_method_name(o.method),
                       "--k",
                       std::to_string(o.k),
                       "--batch",
                       std::to_string(o.batch),
                       "--updates",
                       std::to_string(o.updates),
                       "--lr",
                       exact(o.learning_rate),
                       "--lr-schedule",
                       o.schedule == rbm::LearningRateSchedule::Linear ? "linear" : "constant",
                       "--momentum",
                       exact(o.momentum),
                       "--weight-decay",
                       exact(o.weight_decay)});
    if (rbm::is_tempered(o.method))
        a.insert(a.end(), {"--gamma", exact(o.gamma), "--rungs", std::to_string(o.temperatures)});
    if (o.chains > 0) a.insert(a.end(), {"--chains", std::to_string(o.chains)});
    a.insert(a.end(), {"--seed", std::to_string(o.seed), "--init-scale", exact(o.init_scale)});
    if (o.kind == rbm::ModelKind::Grbm) {
        a.insert(a.end(), {"--sigma", exact(o.sigma)});
        if (o.learn_sigma) a.push_back("--learn-sigma");
    }
    if (o.kind == rbm::ModelKind::Leaky) {
        a.insert(a.end(), {"--leakiness", exact(o.leakiness), "--kernel", rbm::leaky_kernel_name(o.leaky_kernel)});
        if (!o.projection) a.push_back("--no-projection");
        else if (o.projection_limit > 0) a.insert(a.end(), {"--projection-limit", exact(o.projection_limit)});
    }
    char limit[32];
    std::snprintf(limit, sizeof limit, "%.0f", o.exact_limit);
    a.insert(a.end(), {"--monitor-every", std::to_string(o.monitor_every), "--monitor-examples",
                       std::to_string(o.monitor_examples), "--ais-chains", std::to_string(o.ais_chains), "--ais-steps",
                       std::to_string(o.ais_steps), "--exact-limit", limit, "--out", out});
    return {std::move(a), {}};
}

}  // namespace rbmscope
