#include "core/io/train_record_json.hpp"

#include <cmath>
#include <limits>
#include <utility>

#include "core/io/json_fields.hpp"

namespace rbm {

using nlohmann::json;

json train_record_to_json(const TrainRecord& r) {
    auto num = [](double x) { return std::isfinite(x) ? json(x) : json(nullptr); };
    json acc = json::array();
    for (double a : r.swap_acceptance) acc.push_back(num(a));
    return {{"update", r.update},
            {"epoch", num(r.epoch)},
            {"learning_rate", num(r.learning_rate)},
            {"log_likelihood", num(r.log_likelihood)},
            {"log_likelihood_method", r.log_likelihood_method},
            {"log_likelihood_low", num(r.log_likelihood_low)},
            {"log_likelihood_high", num(r.log_likelihood_high)},
            {"test_log_likelihood", num(r.test_log_likelihood)},
            {"test_log_likelihood_low", num(r.test_log_likelihood_low)},
            {"test_log_likelihood_high", num(r.test_log_likelihood_high)},
            {"log_z", num(r.log_z)},
            {"ais_ess", num(r.ais_ess)},
            {"reconstruction_error", num(r.reconstruction_error)},
            {"swap_acceptance", acc},
            {"projections", r.projections},
            {"max_singular_value", num(r.max_singular_value)},
            {"seconds", num(r.seconds)}};
}

TrainRecord train_record_from_json(const json& j, const std::string& path, Index max_update) {
    namespace f = json_fields;
    if (!j.is_object()) f::refuse(path, "an object", j);
    // null: not measured (NaN); anything else a finite number.
    auto num = [&](const char* key) {
        const json& v = f::member(j, key, path);
        return v.is_null() ? std::numeric_limits<double>::quiet_NaN() : f::number(v, f::join(path, key));
    };
    TrainRecord r;
    r.update = f::integer_at(j, "update", path, 0, max_update);
    r.epoch = num("epoch");
    r.learning_rate = num("learning_rate");
    r.log_likelihood = num("log_likelihood");
    r.log_likelihood_low = num("log_likelihood_low");
    r.log_likelihood_high = num("log_likelihood_high");
    r.log_likelihood_method = f::string_at(j, "log_likelihood_method", path);
    // Logs written before held-out rows were monitored have no such members: not measured.
    for (auto [key, field] : {std::pair{"test_log_likelihood", &r.test_log_likelihood},
                              std::pair{"test_log_likelihood_low", &r.test_log_likelihood_low},
                              std::pair{"test_log_likelihood_high", &r.test_log_likelihood_high}})
        if (j.contains(key)) *field = num(key);
    r.log_z = num("log_z");
    r.ais_ess = num("ais_ess");
    r.reconstruction_error = num("reconstruction_error");
    const std::string acc_path = f::join(path, "swap_acceptance");
    const json& acc = f::array(f::member(j, "swap_acceptance", path), acc_path);
    for (std::size_t i = 0; i < acc.size(); ++i)
        r.swap_acceptance.push_back(acc[i].is_null() ? std::numeric_limits<double>::quiet_NaN()
                                                     : f::number(acc[i], f::at(acc_path, i), 0.0, 1.0));
    r.projections = f::integer_at(j, "projections", path, 0, max_update);
    r.max_singular_value = num("max_singular_value");
    r.seconds = num("seconds");
    return r;
}

}  // namespace rbm
