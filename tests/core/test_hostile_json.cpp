// Every JSON reader refuses text nested deeper than 256 levels with one message, before parsing
// (a 200 KB file nested 100 000 levels deep crashed `info`, `ais-sweep --resume` and
// the app). Models, results, train logs, sweep checkpoints, train checkpoints and sessions.
#include <functional>
#include <string>

#include "check.hpp"
#include "core/data/datasets.hpp"
#include "core/io/json_text.hpp"
#include "core/io/model_io.hpp"
#include "core/io/result_file.hpp"
#include "core/io/session_io.hpp"
#include "core/io/sweep_checkpoint.hpp"
#include "core/training/training.hpp"
#include "test_files.hpp"

using namespace rbm;
using namespace rbm::test;

namespace {

std::string nested(int depth, const char* open = "[", const char* close = "]") {
    std::string s;
    for (int i = 0; i < depth; ++i) s += open;
    for (int i = 0; i < depth; ++i) s += close;
    return s;
}

// Each reader, given a document whose `value` sits where that reader expects a member.
const std::vector<std::pair<std::string, std::function<void(const std::string&)>>>& readers() {
    static const std::vector<std::pair<std::string, std::function<void(const std::string&)>>> list = {
        {"model",
         [](const std::string& v) { (void)model_from_json_text(R"({"kind": "brbm", "training": )" + v + "}"); }},
        {"result",
         [](const std::string& v) {
             (void)result_from_json_text(R"({"command": "ais", "runs": )" + v + "}", "result");
         }},
        {"sweep checkpoint",
         [](const std::string& v) {
             (void)sweep_checkpoint_from_json(
                 R"({"format": "rbmscope-ais-sweep-checkpoint", "version": 1, "runs": )" + v + "}",
                 nlohmann::json::array(), "sweep");
         }},
        {"train checkpoint",
         [](const std::string& v) {
             (void)Trainer::from_checkpoint_json(
                 R"({"format": "rbmscope-train-checkpoint", "version": 1, "log": )" + v + "}", bars_and_stripes(2),
                 "checkpoint");
         }},
        {"session",
         [](const std::string& v) {
             (void)session_from_json_text(R"({"format": "rbmscope-session", "views": )" + v + "}");
         }},
    };
    return list;
}

}  // namespace

TEST_CASE("100 000 levels of arrays or objects are refused by every reader with one message, not a crash") {
    const std::string arrays = nested(100000);
    std::string objects;
    for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
    objects += "1";
    objects += std::string(100000, '}');
    for (const auto& entry : readers()) {
        const auto& name = entry.first;
        const auto& read = entry.second;  // not a structured binding: clang 14 cannot capture those
        for (const std::string* v : {&arrays, static_cast<const std::string*>(&objects)}) {
            const std::string msg = error_of([&] { read(*v); });
            CHECK_MSG(msg.find("JSON nested deeper than 256 levels (line 1, column ") != std::string::npos,
                      name << ": " << msg);
            CHECK_MSG(msg.size() < 200, name << ": " << msg.size() << " bytes");
        }
    }
}

TEST_CASE("the limit is 256: 256 levels pass the depth check, 257 do not; brackets in strings do not count") {
    CHECK(error_of([] { json_text::check_depth(nested(256)); }) == "(no InputError)");
    CHECK(error_of([] { json_text::check_depth("{\"a\": " + nested(255) + "}"); }) == "(no InputError)");
    CHECK_THROWS_WITH(json_text::check_depth(nested(257)), InputError,
                      "JSON nested deeper than 256 levels (line 1, column 257)");
    CHECK_THROWS_WITH(json_text::check_depth("{\n\"a\": " + nested(256) + "}"), InputError, "(line 2, column 261)");
    // Brackets inside strings, escaped quotes included, are text.
    CHECK(error_of([] {
              json_text::check_depth("[\"" + std::string(1000, '[') + "\\\"" + std::string(1000, '{') + "\"]");
          }) == "(no InputError)");
    // A parse of the bounded text goes on to the reader's own checks.
    const std::string msg =
        error_of([] { (void)model_from_json_text("{\"kind\": \"brbm\", \"notes\": " + nested(200) + "}"); });
    CHECK_MSG(msg.find("nested deeper") == std::string::npos, msg);
}

RBM_TEST_MAIN
