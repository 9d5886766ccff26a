// Trainer checkpoints: one JSON file with everything a resumed run needs to continue exactly.
#include <cstring>

#include "core/io/model_io.hpp"
#include "core/training/trainer_impl.hpp"

namespace rbm {

using nlohmann::json;

std::uint64_t data_fingerprint(const Dataset& d) {
    std::uint64_t h = 1469598103934665603ULL;
    auto mix = [&](const void* p, std::size_t n) {
        const auto* c = static_cast<const unsigned char*>(p);
        for (std::size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 1099511628211ULL;
    };
    const std::int64_t shape[2] = {d.X.rows(), d.X.cols()};
    mix(shape, sizeof shape);
    mix(d.X.data(), static_cast<std::size_t>(d.X.size()) * sizeof(double));
    return h;
}

namespace {

constexpr const char* kFormat = "rbmscope-train-checkpoint";

json vec_json(const Vec& v) { return std::vector<double>(v.data(), v.data() + v.size()); }
Vec vec_from(const json& j) {
    const std::vector<double> x = j.get<std::vector<double>>();
    return Eigen::Map<const Vec>(x.data(), static_cast<Index>(x.size()));
}
json grad_json(const ParamGrad& g) {
    return {{"W", detail::matrix_json(g.W)}, {"b", vec_json(g.b)}, {"c", vec_json(g.c)}, {"log_sigma", vec_json(g.log_sigma)}};
}
ParamGrad grad_from(const json& j, const ParamGrad& like, const std::string& what) {
    ParamGrad g{detail::matrix_from_json(j.at("W"), what + ".W"), vec_from(j.at("b")), vec_from(j.at("c")), vec_from(j.at("log_sigma"))};
    if (g.W.rows() != like.W.rows() || g.W.cols() != like.W.cols() || g.b.size() != like.b.size() ||
        g.c.size() != like.c.size() || g.log_sigma.size() != like.log_sigma.size())
        throw InputError(what + " has the wrong shape for these options");
    return g;
}

json options_json(const TrainOptions& o) {
    return {{"kind", kind_name(o.kind)},
            {"hidden", o.hidden},
            {"method", train_method_name(o.method)},
            {"k", o.k},
            {"updates", o.updates},
            {"batch", o.batch},
            {"learning_rate", o.learning_rate},
            {"schedule", o.schedule == LearningRateSchedule::Linear ? "linear" : "constant"},
            {"momentum", o.momentum},
            {"weight_decay", o.weight_decay},
            {"gamma", o.gamma},
            {"temperatures", o.temperatures},
            {"chains", o.chains},
            {"seed", o.seed},
            {"init_scale", o.init_scale},
            {"init_bias_from_data", o.init_bias_from_data},
            {"learn_sigma", o.learn_sigma},
            {"sigma", o.sigma},
            {"leakiness", o.leakiness},
            {"projection", o.projection},
            {"projection_limit", o.projection_limit},
            {"leaky_kernel", leaky_kernel_name(o.leaky_kernel)},
            {"monitor_every", o.monitor_every},
            {"monitor_examples", o.monitor_examples},
            {"exact_limit", o.exact_limit},
            {"ais_chains", o.ais_chains},
            {"ais_steps", o.ais_steps},
            {"ais_seed", o.ais_seed}};
}

TrainOptions options_from(const json& j) {
    TrainOptions o;
    const std::string kind = j.at("kind").get<std::string>();
    if (kind == "brbm") o.kind = ModelKind::Brbm;
    else if (kind == "grbm") o.kind = ModelKind::Grbm;
    else if (kind == "leaky") o.kind = ModelKind::Leaky;
    else throw InputError("options.kind must be brbm, grbm or leaky, got '" + kind + "'");
    o.hidden = j.at("hidden").get<Index>();
    o.method = parse_train_method(j.at("method").get<std::string>());
    o.k = j.at("k").get<int>();
    o.updates = j.at("updates").get<Index>();
    o.batch = j.at("batch").get<Index>();
    o.learning_rate = j.at("learning_rate").get<double>();
    o.schedule = j.at("schedule").get<std::string>() == "linear" ? LearningRateSchedule::Linear : LearningRateSchedule::Constant;
    o.momentum = j.at("momentum").get<double>();
    o.weight_decay = j.at("weight_decay").get<double>();
    o.gamma = j.at("gamma").get<double>();
    o.temperatures = j.at("temperatures").get<Index>();
    o.chains = j.at("chains").get<Index>();
    o.seed = j.at("seed").get<std::uint64_t>();
    o.init_scale = j.at("init_scale").get<double>();
    o.init_bias_from_data = j.at("init_bias_from_data").get<bool>();
    o.learn_sigma = j.at("learn_sigma").get<bool>();
    o.sigma = j.at("sigma").get<double>();
    o.leakiness = j.at("leakiness").get<double>();
    o.projection = j.at("projection").get<bool>();
    // Checkpoints written before the automatic bound existed used the fixed 1 - 1e-6.
    o.projection_limit = j.value("projection_limit", 1.0 - 1e-6);
    o.leaky_kernel = j.at("leaky_kernel").get<std::string>() == "paper-gibbs" ? LeakyKernel::PaperGibbs : LeakyKernel::ExactMH;
    o.monitor_every = j.at("monitor_every").get<Index>();
    o.monitor_examples = j.at("monitor_examples").get<Index>();
    o.exact_limit = j.at("exact_limit").get<double>();
    o.ais_chains = j.at("ais_chains").get<Index>();
    o.ais_steps = j.at("ais_steps").get<Index>();
    o.ais_seed = j.at("ais_seed").get<std::uint64_t>();
    return o;
}

}  // namespace

std::string Trainer::checkpoint_json() const {
    const Impl& s = *impl_;
    json log = json::array();
    for (const TrainRecord& r : s.log) log.push_back(detail::record_json(r));
    std::string projected;
    for (std::uint8_t p : s.projected) projected += p ? '1' : '0';
    const json j = {{"format", kFormat},
                    {"version", 1},
                    {"options", options_json(s.options)},
                    {"data", {{"name", s.data.name}, {"rows", s.data.size()}, {"cols", s.data.dim()},
                              {"fingerprint", data_fingerprint(s.data)}}},
                    {"updates_done", s.done},
                    {"status", train_status_name(s.status)},
                    {"message", s.message},
                    {"model", json::parse(model_to_json_text(s.model))},
                    {"velocity", grad_json(s.velocity)},
                    {"last_gradient", grad_json(s.last_gradient)},
                    {"sampler", s.sampler->save()},
                    {"acceptance_sum", s.acceptance_sum},
                    {"acceptance_updates", s.acceptance_updates},
                    {"projections_since", s.projections_since},
                    {"projected", projected},
                    {"seconds", s.seconds},
                    {"log", log}};
    return j.dump(1);
}

Trainer Trainer::from_checkpoint_json(const std::string& text, Dataset data, const std::string& origin) {
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception& e) {
        throw InputError(origin + ": not JSON (" + e.what() + ")");
    }
    if (!j.is_object() || !j.contains("format") || !j["format"].is_string() || j["format"].get<std::string>() != kFormat)
        throw InputError(origin + ": not a training checkpoint (expected \"format\": \"" + kFormat + "\")");
    if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<int>() != 1) throw InputError(origin + ": unsupported checkpoint version (expected 1)");
    try {
        const json& d = j.at("data");
        if (d.at("rows").get<Index>() != data.size() || d.at("cols").get<Index>() != data.dim() ||
            d.at("fingerprint").get<std::uint64_t>() != data_fingerprint(data))
            throw InputError(origin + ": it was made with other data (" + d.at("name").get<std::string>() + ", " +
                             std::to_string(d.at("rows").get<Index>()) + " x " + std::to_string(d.at("cols").get<Index>()) +
                             "); resume with the same data and transforms");
        auto impl = std::make_unique<Impl>(options_from(j.at("options")), std::move(data));
        Impl& s = *impl;
        s.model = model_from_json_text(j.at("model").dump(), origin + " (model)");
        if (s.model.kind() != s.options.kind || s.model.n_visible() != s.data.dim() || s.model.n_hidden() != s.options.hidden)
            throw InputError(origin + ": the model does not match the options");
        s.velocity = grad_from(j.at("velocity"), s.velocity, origin + ": velocity");
        s.last_gradient = grad_from(j.at("last_gradient"), s.velocity, origin + ": last_gradient");
        if (!j.at("sampler").is_null()) s.sampler->load(j.at("sampler"), origin);
        s.done = j.at("updates_done").get<Index>();
        const std::string status = j.at("status").get<std::string>();
        s.status = status == "diverged" ? TrainStatus::Diverged : status == "finished" ? TrainStatus::Finished : TrainStatus::Running;
        s.message = j.at("message").get<std::string>();
        s.acceptance_sum = j.at("acceptance_sum").get<std::vector<double>>();
        s.acceptance_updates = j.at("acceptance_updates").get<Index>();
        s.projections_since = j.at("projections_since").get<Index>();
        for (char c : j.at("projected").get<std::string>()) s.projected.push_back(c == '1' ? 1 : 0);
        s.seconds = j.at("seconds").get<double>();
        for (const json& r : j.at("log")) s.log.push_back(detail::record_from_json(r));
        return Trainer(std::move(impl));
    } catch (const json::exception& e) {
        throw InputError(origin + ": malformed checkpoint (" + e.what() + ")");
    }
}

void Trainer::save_checkpoint(const std::filesystem::path& path) const { write_file_atomically(path, checkpoint_json()); }

Trainer Trainer::load_checkpoint(const std::filesystem::path& path, Dataset data) {
    return from_checkpoint_json(read_file(path), std::move(data), path.string());
}

}  // namespace rbm
