#pragma once
// Strict reading of the fields of our own JSON state files (training and ais-sweep checkpoints):
// a field that is missing, of the wrong type, fractional where an integer is meant, or out of
// range is an InputError naming its key path ("sampler.replica_at[3]") and what was expected.
// nlohmann's get<T>() would convert 150.5 to 150 and -1 to 65535 silently.
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/numerics/types.hpp"

namespace rbm::json_fields {

using nlohmann::json;

// The value as the user would see it in the file, cut to one short line.
inline std::string shown(const json& j) {
    std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
    if (s.size() > 40) s = s.substr(0, 37) + "...";
    return s;
}

[[noreturn]] inline void refuse(const std::string& path, const std::string& expected, const json& got) {
    throw InputError(path + " must be " + expected + ", got " + shown(got));
}

inline const json& member(const json& obj, const std::string& key, const std::string& path) {
    if (!obj.is_object()) refuse(path, "an object", obj);
    const auto it = obj.find(key);
    if (it == obj.end()) throw InputError((path.empty() ? key : path + "." + key) + " is missing");
    return *it;
}
inline std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
}
inline std::string at(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

// An integer (no fraction, no exponent form that is not integral) in [lo, hi].
inline std::int64_t integer(const json& j, const std::string& path, std::int64_t lo, std::int64_t hi) {
    const std::string want = "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
    if (j.is_number_unsigned()) {
        const auto u = j.get<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(hi) || (lo > 0 && u < static_cast<std::uint64_t>(lo))) refuse(path, want, j);
        return static_cast<std::int64_t>(u);
    }
    if (!j.is_number_integer()) refuse(path, want, j);
    const auto v = j.get<std::int64_t>();
    if (v < lo || v > hi) refuse(path, want, j);
    return v;
}
inline std::uint64_t unsigned64(const json& j, const std::string& path) {
    if (!j.is_number_unsigned() && !(j.is_number_integer() && j.get<std::int64_t>() >= 0))
        refuse(path, "an integer from 0 to 2^64 - 1", j);
    return j.get<std::uint64_t>();
}
// A finite number in [lo, hi].
inline double number(const json& j, const std::string& path, double lo = -std::numeric_limits<double>::max(),
                     double hi = std::numeric_limits<double>::max()) {
    if (!j.is_number() || !std::isfinite(j.get<double>()) || j.get<double>() < lo || j.get<double>() > hi) {
        std::ostringstream os;
        os.precision(17);
        constexpr double kMax = std::numeric_limits<double>::max();
        if (lo == -kMax && hi == kMax) os << "a finite number";
        else if (hi == kMax) os << "a finite number >= " << lo;
        else os << "a number from " << lo << " to " << hi;
        refuse(path, os.str(), j);
    }
    return j.get<double>();
}
inline bool boolean(const json& j, const std::string& path) {
    if (!j.is_boolean()) refuse(path, "true or false", j);
    return j.get<bool>();
}
inline std::string string(const json& j, const std::string& path) {
    if (!j.is_string()) refuse(path, "a string", j);
    return j.get<std::string>();
}
// One of `choices` (listed in the message).
inline std::string choice(const json& j, const std::string& path, const std::vector<std::string>& choices) {
    std::string list;
    for (std::size_t i = 0; i < choices.size(); ++i)
        list += (i ? i + 1 == choices.size() ? " or " : ", " : "") + choices[i];
    if (!j.is_string()) refuse(path, list, j);
    const std::string s = j.get<std::string>();
    for (const std::string& c : choices)
        if (s == c) return s;
    refuse(path, list, j);
}
inline const json& array(const json& j, const std::string& path) {
    if (!j.is_array()) refuse(path, "an array", j);
    return j;
}
inline const json& array_of_size(const json& j, const std::string& path, std::size_t n) {
    if (!j.is_array() || j.size() != n) refuse(path, "an array of " + std::to_string(n) + " entries", j);
    return j;
}

// Convenience: member + reader.
inline std::int64_t integer_at(const json& o, const std::string& key, const std::string& path, std::int64_t lo,
                               std::int64_t hi) {
    return integer(member(o, key, path), join(path, key), lo, hi);
}
inline double number_at(const json& o, const std::string& key, const std::string& path,
                        double lo = -std::numeric_limits<double>::max(),
                        double hi = std::numeric_limits<double>::max()) {
    return number(member(o, key, path), join(path, key), lo, hi);
}
inline bool boolean_at(const json& o, const std::string& key, const std::string& path) {
    return boolean(member(o, key, path), join(path, key));
}
inline std::string string_at(const json& o, const std::string& key, const std::string& path) {
    return string(member(o, key, path), join(path, key));
}

}  // namespace rbm::json_fields
