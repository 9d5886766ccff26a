// Trainer checkpoints: one JSON file with everything a resumed run needs to continue exactly.
#include <cstring>

#include "core/io/atomic_file.hpp"
#include "core/io/json_fields.hpp"
#include "core/io/json_text.hpp"
#include "core/io/model_json.hpp"
#include "core/io/train_record_json.hpp"
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
json grad_json(const ParamGrad& g) {
    return {{"W", detail::matrix_json(g.W)},
            {"b", vec_json(g.b)},
            {"c", vec_json(g.c)},
            {"log_sigma", vec_json(g.log_sigma)}};
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
            {"ais_seed", o.ais_seed},
            {"float32", o.float32}};
}

// Every field is checked as the command line checks it (the ranges of rbmscope-cli train), so an
// edited checkpoint is refused with its key named instead of crashing a later update.
TrainOptions options_from(const json& j) {
    namespace f = json_fields;
    const std::string p = "options";
    constexpr std::int64_t kBig = std::int64_t{1} << 53;  // counts a double still holds exactly
    TrainOptions o;
    const std::string kind = f::choice(f::member(j, "kind", p), "options.kind", {"brbm", "grbm", "leaky"});
    o.kind = kind == "brbm" ? ModelKind::Brbm : kind == "grbm" ? ModelKind::Grbm : ModelKind::Leaky;
    o.hidden = f::integer_at(j, "hidden", p, 1, 100000);
    o.method = parse_train_method(
        f::choice(f::member(j, "method", p), "options.method", {"cd", "pcd", "pt", "lpt", "deo", "leaky", "mix"}));
    o.k = static_cast<int>(f::integer_at(j, "k", p, 1, 100000));
    o.updates = f::integer_at(j, "updates", p, 0, kBig);
    o.batch = f::integer_at(j, "batch", p, 1, kBig);
    o.learning_rate = f::number_at(j, "learning_rate", p, 0.0);
    o.schedule = f::choice(f::member(j, "schedule", p), "options.schedule", {"constant", "linear"}) == "linear"
                     ? LearningRateSchedule::Linear
                     : LearningRateSchedule::Constant;
    o.momentum = f::number_at(j, "momentum", p, 0.0, 1.0);
    o.weight_decay = f::number_at(j, "weight_decay", p, 0.0);
    o.gamma = f::number_at(j, "gamma", p);
    o.temperatures = f::integer_at(j, "temperatures", p, 0, 1000);
    o.chains = f::integer_at(j, "chains", p, 0, 1000000);
    o.seed = f::unsigned64(f::member(j, "seed", p), "options.seed");
    o.init_scale = f::number_at(j, "init_scale", p, 0.0);
    o.init_bias_from_data = f::boolean_at(j, "init_bias_from_data", p);
    o.learn_sigma = f::boolean_at(j, "learn_sigma", p);
    o.sigma = f::number_at(j, "sigma", p);
    o.leakiness = f::number_at(j, "leakiness", p);
    o.projection = f::boolean_at(j, "projection", p);
    // Checkpoints written before the automatic bound existed used the fixed 1 - 1e-6.
    o.projection_limit = j.contains("projection_limit") ? f::number_at(j, "projection_limit", p, 0.0, 1.0) : 1.0 - 1e-6;
    o.leaky_kernel =
        f::choice(f::member(j, "leaky_kernel", p), "options.leaky_kernel", {"exact-mh", "paper-gibbs"}) == "paper-gibbs"
            ? LeakyKernel::PaperGibbs
            : LeakyKernel::ExactMH;
    o.monitor_every = f::integer_at(j, "monitor_every", p, 0, kBig);
    o.monitor_examples = f::integer_at(j, "monitor_examples", p, 0, kBig);
    o.exact_limit = f::number_at(j, "exact_limit", p, 0.0);
    o.ais_chains = f::integer_at(j, "ais_chains", p, 1, 1000000);
    o.ais_steps = f::integer_at(j, "ais_steps", p, 1, 10000000);
    o.ais_seed = f::unsigned64(f::member(j, "ais_seed", p), "options.ais_seed");
    o.float32 = j.contains("float32") ? f::boolean_at(j, "float32", p) : false;  // absent before it existed
    return o;
}

// A vector of finite numbers of length n.
Vec strict_vec(const json& j, const std::string& path, Index n) {
    json_fields::array_of_size(j, path, static_cast<std::size_t>(n));
    Vec v(n);
    for (Index i = 0; i < n; ++i)
        v(i) = json_fields::number(j[static_cast<std::size_t>(i)], json_fields::at(path, static_cast<std::size_t>(i)));
    return v;
}

ParamGrad strict_grad(const json& j, const ParamGrad& like, const std::string& path) {
    namespace f = json_fields;
    ParamGrad g;
    g.W = detail::matrix_from_json(f::member(j, "W", path), path + ".W");
    if (g.W.rows() != like.W.rows() || g.W.cols() != like.W.cols())
        throw InputError(path + ".W must be " + std::to_string(like.W.rows()) + " x " + std::to_string(like.W.cols()) +
                         " for this model, got " + std::to_string(g.W.rows()) + " x " + std::to_string(g.W.cols()));
    g.b = strict_vec(f::member(j, "b", path), path + ".b", like.b.size());
    g.c = strict_vec(f::member(j, "c", path), path + ".c", like.c.size());
    g.log_sigma = strict_vec(f::member(j, "log_sigma", path), path + ".log_sigma", like.log_sigma.size());
    return g;
}

}  // namespace

std::string Trainer::checkpoint_json() const {
    impl_->materialize_velocity();
    impl_->materialize_gradient();
    const Impl& s = *impl_;
    json log = json::array();
    for (const TrainRecord& r : s.log) log.push_back(train_record_to_json(r));
    std::string projected;
    for (std::uint8_t p : s.projected) projected += p ? '1' : '0';
    const json j = {{"format", kFormat},
                    {"version", 1},
                    {"options", options_json(s.options)},
                    {"data",
                     {{"name", s.data.name},
                      {"rows", s.data.size()},
                      {"cols", s.data.dim()},
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
    if (s.provenance.empty()) return j.dump(1);
    json with_build = j;
    with_build["build"] = json::parse(s.provenance);
    return with_build.dump(1);
}

Trainer Trainer::from_checkpoint_json(const std::string& text, Dataset data, const std::string& origin) {
    namespace f = json_fields;
    json j;
    try {
        json_text::check_depth(text);  // nlohmann's parser nests without bound
        j = json::parse(text);
    } catch (const InputError& e) {
        throw InputError(origin + ": " + e.what());
    } catch (const json::exception& e) {
        throw InputError(origin + ": not JSON (" + json_text::json_problem(e.what()) + ")");
    }
    if (!j.is_object() || !j.contains("format") || !j["format"].is_string() ||
        j["format"].get<std::string>() != kFormat)
        throw InputError(origin + ": not a training checkpoint (expected \"format\": \"" + kFormat + "\")");
    if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<std::int64_t>() != 1)
        throw InputError(origin + ": unsupported checkpoint version (expected 1)");
    try {
        const json& d = f::member(j, "data", "");
        const Index rows = f::integer_at(d, "rows", "data", 0, std::numeric_limits<std::int64_t>::max());
        const Index cols = f::integer_at(d, "cols", "data", 0, std::numeric_limits<std::int64_t>::max());
        const std::string name = f::string_at(d, "name", "data");
        if (rows != data.size() || cols != data.dim() ||
            f::unsigned64(f::member(d, "fingerprint", "data"), "data.fingerprint") != data_fingerprint(data))
            throw InputError("it was made with other data (" + name + ", " + std::to_string(rows) + " x " +
                             std::to_string(cols) + "); resume with the same data and transforms");
        const TrainOptions options = options_from(f::member(j, "options", ""));
        // The model before the state built from the options, so shapes are checked before any
        // allocation they would size.
        Model model = model_from_json_text(f::member(j, "model", "").dump(), "model");
        if (model.kind() != options.kind || model.n_visible() != data.dim() || model.n_hidden() != options.hidden)
            throw InputError("the model (" + std::string(kind_name(model.kind())) + ", " +
                             std::to_string(model.n_visible()) + " x " + std::to_string(model.n_hidden()) +
                             ") does not match the options and data (" + kind_name(options.kind) + ", " +
                             std::to_string(data.dim()) + " x " + std::to_string(options.hidden) + ")");
        const Index persistent = options.chains > 0 ? options.chains : options.batch;
        if (const json& sampler = f::member(j, "sampler", ""); sampler.is_object()) {
            const bool tempered = is_tempered(options.method);
            const char* key = tempered ? "V" : "chains";
            const Index want = tempered ? persistent * (options.temperatures + 1) : persistent;
            const json& m = f::member(sampler, key, "sampler");
            const std::string mp = std::string("sampler.") + key;
            f::integer_at(m, "rows", mp, want, want);
            f::array_of_size(f::member(m, "data", mp), mp + ".data", static_cast<std::size_t>(want));
        }
        auto impl = std::make_unique<Impl>(options, std::move(data));
        Impl& s = *impl;
        s.model = std::move(model);
        s.velocity = strict_grad(f::member(j, "velocity", ""), s.velocity, "velocity");
        s.last_gradient = strict_grad(f::member(j, "last_gradient", ""), s.velocity, "last_gradient");
        s.gradient_pending = false;
        s.velocity_pending = false;
        if (const json& sampler = j.at("sampler"); !sampler.is_null()) s.sampler->load(sampler, "sampler");
        else if (s.sampler->save().is_object())
            throw InputError("sampler is missing its state (null) for method " +
                             std::string(train_method_name(options.method)));
        s.done = f::integer_at(j, "updates_done", "", 0, options.updates);
        const std::string status =
            f::choice(f::member(j, "status", ""), "status", {"running", "finished", "diverged", "cancelled"});
        s.status = status == "diverged"   ? TrainStatus::Diverged
                   : status == "finished" ? TrainStatus::Finished
                                          : TrainStatus::Running;
        s.message = f::string_at(j, "message", "");
        const Index pairs = is_tempered(options.method) ? options.temperatures : 0;
        const json& acc = f::array(f::member(j, "acceptance_sum", ""), "acceptance_sum");
        if (!acc.empty()) f::array_of_size(acc, "acceptance_sum", static_cast<std::size_t>(pairs));
        for (std::size_t i = 0; i < acc.size(); ++i)
            s.acceptance_sum.push_back(f::number(acc[i], f::at("acceptance_sum", i), 0.0));
        s.acceptance_updates = f::integer_at(j, "acceptance_updates", "", 0, s.done);
        s.projections_since = f::integer_at(j, "projections_since", "", 0, s.done);
        const std::string projected = f::string_at(j, "projected", "");
        const std::size_t want_projected = options.kind == ModelKind::Leaky ? static_cast<std::size_t>(s.done) : 0;
        if (projected.size() != want_projected || projected.find_first_not_of("01") != std::string::npos)
            throw InputError("projected must be a string of " + std::to_string(want_projected) +
                             " characters 0 or 1 (one per update of a leaky RBM), got " +
                             std::to_string(projected.size()) + " characters");
        for (char c : projected) s.projected.push_back(c == '1' ? 1 : 0);
        s.seconds = f::number_at(j, "seconds", "", 0.0);
        // Read tolerantly: it says where the run came from and decides nothing in it.
        if (const auto b = j.find("build"); b != j.end() && b->is_object()) s.recorded_provenance = b->dump();
        const json& log = f::array(f::member(j, "log", ""), "log");
        for (std::size_t i = 0; i < log.size(); ++i) {
            s.log.push_back(train_record_from_json(log[i], f::at("log", i), s.done));
        }
        return Trainer(std::move(impl));
    } catch (const json::exception& e) {
        throw InputError(origin + ": malformed checkpoint (" + json_text::json_problem(e.what()) + ")");
    } catch (const InputError& e) {
        throw InputError(origin + ": " + e.what());
    }
}

void Trainer::set_provenance(std::string build_json_text) { impl_->provenance = std::move(build_json_text); }

const std::string& Trainer::recorded_provenance() const { return impl_->recorded_provenance; }

void Trainer::save_checkpoint(const std::filesystem::path& path) const {
    write_file_atomically(path, checkpoint_json());
}

Trainer Trainer::load_checkpoint(const std::filesystem::path& path, Dataset data) {
    return from_checkpoint_json(read_file(path), std::move(data), path.string());
}

}  // namespace rbm
