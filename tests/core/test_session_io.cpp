// Session files: exact round trips (embedded models, preset names, every kind of setting), the
// bad-session corpus (tests/data/bad_sessions with its EXPECTED.tsv manifest) and atomic saves.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>

#include "check.hpp"
#include "core/io/model_io.hpp"
#include "core/io/presets.hpp"
#include "core/io/session_io.hpp"
#include "test_files.hpp"

namespace fs = std::filesystem;
using namespace rbm;
using namespace rbm::test;  // test_files.hpp

namespace {

const fs::path kData = RBMSCOPE_TEST_DATA;

// A GRBM with numbers that need all 17 digits, as an edited model has.
Model edited_grbm() {
    Model m = load_preset("four-mode");
    auto* g = m.as<Grbm>();
    g->W(0, 1) = 0.1 + 0.2;
    g->W(1, 0) = -1.0 / 3.0;
    g->b(0) = 1e-300;
    g->sigma(1) = 0.7000000000000001;
    m.name = "edited \"four-mode\"";
    return m;
}

Session full_session() {
    Session s;
    s.model = edited_grbm();
    s.view = "estimates";
    s.settings["path"] = SessionValue::scalar(std::string("cov"));
    s.settings["steps"] = SessionValue::scalar(std::int64_t{250});
    s.settings["seed"] = SessionValue::scalar(std::uint64_t{18446744073709551615ull});
    s.settings["geometric_start"] = SessionValue::scalar(0.1 + 0.2);
    s.settings["reverse"] = SessionValue::scalar(true);
    s.settings["sweep"] = SessionValue::list({std::int64_t{10}, std::int64_t{30}, std::int64_t{100}});
    s.settings["compare"] = SessionValue::list({std::string("cov:moment"), std::string("geometric:sigma")});
    s.settings["empty"] = SessionValue::list({});
    s.settings["negative"] = SessionValue::scalar(std::int64_t{-3});
    return s;
}

bool same_records(const std::vector<TrainRecord>& a, const std::vector<TrainRecord>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const TrainRecord &x = a[i], &y = b[i];
        // NaN is written as null and read as the default quiet NaN: compare NaN-ness for those.
        const auto same = [](double u, double v) { return std::isnan(u) ? std::isnan(v) : same_bits(u, v); };
        bool ok = x.update == y.update && x.log_likelihood_method == y.log_likelihood_method &&
                  x.projections == y.projections && x.swap_acceptance.size() == y.swap_acceptance.size();
        for (double TrainRecord::*f : {&TrainRecord::epoch, &TrainRecord::learning_rate, &TrainRecord::log_likelihood,
                                       &TrainRecord::log_likelihood_low, &TrainRecord::log_likelihood_high,
                                       &TrainRecord::log_z, &TrainRecord::ais_ess, &TrainRecord::reconstruction_error,
                                       &TrainRecord::max_singular_value, &TrainRecord::seconds})
            ok = ok && same(x.*f, y.*f);
        for (std::size_t k = 0; ok && k < x.swap_acceptance.size(); ++k)
            ok = same(x.swap_acceptance[k], y.swap_acceptance[k]);
        if (!ok) return false;
    }
    return true;
}

SessionTrainingRun training_run() {
    SessionTrainingRun r;
    r.label = "pt 2";
    r.settings["data"] = SessionValue::scalar(std::string("bars:2"));
    r.settings["learning_rate"] = SessionValue::scalar(0.1 + 0.2);
    r.status = "cancelled";
    r.message = "stopped";
    r.updates_done = 40;
    r.total_updates = 100;
    r.projections = 3;
    r.image_rows = 4;
    r.image_cols = 4;
    r.seconds = 1.0 / 3.0;
    for (Index t = 0; t <= 40; t += 20) {
        TrainRecord rec;
        rec.update = t;
        rec.epoch = static_cast<double>(t) / 3.0;
        rec.learning_rate = 0.1 + 0.2;
        rec.log_likelihood =
            t == 20 ? std::numeric_limits<double>::quiet_NaN() : -2.7725887222397811 + 1e-3 * static_cast<double>(t);
        rec.log_likelihood_method = t == 20 ? "ais-failed" : "exact";
        rec.log_likelihood_low = -0.0;
        rec.log_likelihood_high = 5e-324;  // the smallest denormal
        rec.log_z = std::nextafter(1.0, 2.0);
        rec.reconstruction_error = 1e300;
        rec.swap_acceptance = {0.25, std::numeric_limits<double>::quiet_NaN(), 1.0};
        rec.projections = 1;
        rec.seconds = 0.001 * static_cast<double>(t);
        r.log.push_back(rec);
    }
    Model m = load_preset("bars-and-stripes");
    auto* b = m.as<Brbm>();
    b->W(0, 0) = 0.1 + 0.2;
    b->c(0) = -1.0 / 3.0;
    r.model = m;
    r.negatives = RowMat(3, m.n_visible());
    for (Index i = 0; i < r.negatives.size(); ++i)
        r.negatives.data()[i] = static_cast<double>(i % 2) + 1e-17 * static_cast<double>(i);
    return r;
}

}  // namespace

TEST_CASE("round trip: views' settings, the samples data and training runs, bit for bit") {
    Session s = full_session();
    s.views["tempering"]["custom_ladder"] = SessionValue::list({0.0, 0.1 + 0.2, 1.0});
    s.views["tempering"]["scheme"] = SessionValue::scalar(std::string("lifted"));
    s.views["samples"]["chains"] = SessionValue::scalar(std::int64_t{16});
    TrainingData data;
    data.data = "digits";
    data.shifts = true;
    data.standardize = true;
    data.standardize_mean = Vec::Constant(64, 0.1 + 0.2);
    data.standardize_sd = Vec::Constant(64, 1.0 / 3.0);
    s.samples_data = data;
    s.training_runs = {training_run(), training_run()};
    s.training_runs[1].negatives.resize(0, s.training_runs[1].model.n_visible());
    s.training_runs[1].status = "finished";
    const std::string text = session_to_json_text(s);
    const Session back = session_from_json_text(text, "s.json");
    CHECK(back.views == s.views);
    CHECK(back.samples_data && back.samples_data->data == "digits" && back.samples_data->shifts &&
          back.samples_data->standardize);
    CHECK(back.samples_data->standardize_mean.size() == 64 && back.samples_data->standardize_mean(63) == 0.1 + 0.2);
    CHECK(back.samples_data->standardize_sd(0) == 1.0 / 3.0);
    CHECK(back.training_runs.size() == 2u);
    for (std::size_t i = 0; i < 2; ++i) {
        const SessionTrainingRun &x = s.training_runs[i], &y = back.training_runs[i];
        CHECK(x.label == y.label && x.settings == y.settings && x.status == y.status && x.message == y.message);
        CHECK(x.updates_done == y.updates_done && x.total_updates == y.total_updates && x.projections == y.projections);
        CHECK(x.image_rows == y.image_rows && x.image_cols == y.image_cols && same_bits(x.seconds, y.seconds));
        CHECK(same_records(x.log, y.log));
        CHECK(same_model(x.model, y.model));
        CHECK(x.negatives.rows() == y.negatives.rows() && x.negatives.cols() == y.negatives.cols());
        for (Index k = 0; k < x.negatives.size(); ++k) CHECK(same_bits(x.negatives.data()[k], y.negatives.data()[k]));
    }
    CHECK(same_bits(back.training_runs[0].log[0].log_likelihood_low, -0.0));
    CHECK(std::isnan(back.training_runs[0].log[1].log_likelihood));
    CHECK(session_to_json_text(back) == text);
    // A file without the new keys (version 1 as first written) has none of them.
    const Session old =
        session_from_json_text(R"({"format":"rbmscope-session","version":1,"model":"four-mode"})", "s.json");
    CHECK(old.views.empty() && !old.samples_data && old.training_runs.empty());
}

TEST_CASE("round trip: embedded model, settings of every type and the view, bit for bit") {
    const Session s = full_session();
    const Session back = session_from_json_text(session_to_json_text(s), "s.json");
    CHECK(back.preset.empty());
    CHECK(back.view == "estimates");
    CHECK(back.settings == s.settings);
    CHECK(same_model(back.model, s.model));
    // The 64-bit seed stays an unsigned integer, small integers stay signed ones.
    CHECK(std::holds_alternative<std::uint64_t>(back.settings.at("seed").items[0]));
    CHECK(std::holds_alternative<std::int64_t>(back.settings.at("steps").items[0]));
    CHECK(std::holds_alternative<double>(back.settings.at("geometric_start").items[0]));
    // Writing the read session again gives the same bytes.
    CHECK(session_to_json_text(back) == session_to_json_text(s));
}

TEST_CASE("round trip: every preset by name, and models of every kind embedded") {
    for (const auto& p : list_presets()) {
        Session s;
        s.model = load_preset(p.name);
        s.preset = p.name;
        const std::string text = session_to_json_text(s);
        CHECK_MSG(text.find("\"model\": \"" + p.name + "\"") != std::string::npos, text);
        const Session back = session_from_json_text(text, "s.json");
        CHECK(back.preset == p.name);
        CHECK(back.model.kind() == s.model.kind());
        CHECK(model_to_json_text(back.model) == model_to_json_text(s.model));
        // Embedded instead: the same model, and the model file's own text inside.
        s.preset.clear();
        const Session embedded = session_from_json_text(session_to_json_text(s), "s.json");
        CHECK(embedded.preset.empty());
        CHECK_MSG(model_to_json_text(embedded.model) == model_to_json_text(s.model), p.name);
    }
}

TEST_CASE("parsing: optional keys, unknown keys ignored, integers kept apart from reals") {
    const Session s = session_from_json_text(
        R"({"format":"rbmscope-session","version":1,"model":"four-mode","future":{"x":[1,2]},
            "settings":{"a":1,"b":1.0,"c":-2,"d":"x","e":[true,"y",2.5],"f":9223372036854775808}})",
        "s.json");
    CHECK(s.view.empty());
    CHECK(s.preset == "four-mode");
    CHECK(std::get<std::int64_t>(s.settings.at("a").items[0]) == 1);
    CHECK(std::get<double>(s.settings.at("b").items[0]) == 1.0);
    CHECK(std::get<std::int64_t>(s.settings.at("c").items[0]) == -2);
    CHECK(std::get<std::string>(s.settings.at("d").items[0]) == "x");
    CHECK(s.settings.at("e").is_list && s.settings.at("e").items.size() == 3u);
    CHECK(std::get<std::uint64_t>(s.settings.at("f").items[0]) == 9223372036854775808ull);
    const Session bare =
        session_from_json_text(R"({"format":"rbmscope-session","version":1,"model":"leaky-2d"})", "s.json");
    CHECK(bare.settings.empty());
    CHECK(bare.model.kind() == ModelKind::Leaky);
}

TEST_CASE("parsing: an unknown top-level key is skipped unread; a repeated key is refused") {
    const Session s =
        session_from_json_text(R"({"format": "rbmscope-session", "version": 1, "junk": [[1, 2], {"x": 1, "x": 2}],
        "model": "two-gaussians", "view": "density"})",
                               "s.json");
    CHECK(s.preset == "two-gaussians" && s.view == "density");
    CHECK_THROWS_WITH(session_from_json_text(R"({"format": "rbmscope-session", "version": 1, "model": "two-gaussians",
        "settings": {"a": 1, "a": 2}})",
                                             "d.json"),
                      InputError, "d.json: key 'a' appears twice in 'settings'");
}

TEST_CASE("messages: an embedded model's problem reads as in a model file, with where it is") {
    const std::string model_msg = error_of(
        [] { (void)model_from_json_text(R"({"kind":"grbm","W":[[1],[1]],"sigma":[1,-1]})", "s.json: in 'model'"); });
    const std::string session_msg = error_of([] {
        (void)session_from_json_text(
            R"({"format":"rbmscope-session","version":1,"model":{"kind":"grbm","W":[[1],[1]],"sigma":[1,-1]}})",
            "s.json");
    });
    CHECK(session_msg == model_msg);
    CHECK(session_msg.rfind("s.json: in 'model': 'sigma' must be > 0, but sigma[1] = -1", 0) == 0);
    CHECK(error_of([] {
              (void)session_from_json_text("{\"format\":\"rbmscope-session\",\n\"version\":1,\n\"model\"[]}", "s.json");
          }) ==
          "s.json: not valid JSON (line 3, column 8: syntax error while parsing object separator - unexpected '['; "
          "expected ':')");
}

TEST_CASE("corpus: every bad session fails with the message its manifest line expects") {
    const fs::path dir = kData / "bad_sessions";
    const std::map<std::string, std::string> expected = read_corpus_manifest(dir);
    CHECK(expected.size() >= 30u);
    check_corpus_messages(dir, expected, [](const fs::path& p) { (void)load_session(p); });
}

TEST_CASE("files: save and load, atomic replacement, refusals leave the old file") {
    TempDir tmp;
    const fs::path p = tmp.path / "s.json";
    const Session s = full_session();
    save_session(s, p);
    const std::string first = slurp(p);
    CHECK(load_session(p).settings == s.settings);
    // Replace it: the new content, and no temporary file left behind.
    Session t = s;
    t.view = "density";
    save_session(t, p);
    CHECK(load_session(p).view == "density");
    CHECK(tmp.entries() == std::set<std::string>{"s.json"});
    // A model that cannot be saved, a non-finite setting, an unwritable place: the file stays.
    const std::string before = slurp(p);
    Session bad = s;
    bad.model.as<Grbm>()->sigma(0) = -1;
    CHECK_THROWS_WITH(save_session(bad, p), InputError, "cannot save the session to");
    CHECK_THROWS_WITH(save_session(bad, p), InputError, "'sigma' must be > 0");
    Session nan = s;
    nan.settings["x"] = SessionValue::scalar(std::nan(""));
    CHECK_THROWS_WITH(save_session(nan, p), InputError, "setting 'x' is not a finite number");
    CHECK_THROWS_WITH(save_session(s, tmp.path / "missing" / "s.json"), InputError, "No such file or directory");
    CHECK(slurp(p) == before);
    CHECK(tmp.entries() == std::set<std::string>{"s.json"});
    CHECK(first != before);
    // Missing files and directories are InputErrors that name the path.
    CHECK(error_of([&] { (void)load_session(tmp.path / "none.json"); }).find("none.json") != std::string::npos);
    CHECK(error_of([&] { (void)load_session(tmp.path); }).find("it is a directory") != std::string::npos);
}

TEST_CASE("size guards: too many settings or list items are refused by count") {
    std::string many = R"({"format":"rbmscope-session","version":1,"model":"four-mode","settings":{)";
    for (std::size_t i = 0; i <= kMaxSessionSettings; ++i) many += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":1";
    many += "}}";
    CHECK(error_of([&] { (void)session_from_json_text(many, "s.json"); }) ==
          "s.json: 'settings' has 4097 entries, more than the limit 4096");
    std::string list = R"({"format":"rbmscope-session","version":1,"model":"four-mode","settings":{"l":[)";
    for (std::size_t i = 0; i <= kMaxSessionListItems; ++i) list += i ? ",0" : "0";
    list += "]}}";
    CHECK(error_of([&] { (void)session_from_json_text(list, "s.json"); }) ==
          "s.json: setting 'l' has 1048577 items, more than the limit 1048576");
}

RBM_TEST_MAIN
