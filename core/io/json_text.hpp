#pragma once
// JSON reading shared by the model and session loaders (internal to core): parsing with one
// clear message per problem, and the words those messages use for JSON types.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "core/numerics/types.hpp"

namespace rbm::json_text {

inline std::string type_name(const nlohmann::json& j) {
    using nlohmann::json;
    switch (j.type()) {
        case json::value_t::null: return "null";
        case json::value_t::object: return "an object";
        case json::value_t::array: return "an array";
        case json::value_t::string: return "a string";
        case json::value_t::boolean: return "true/false";
        case json::value_t::binary: return "binary data";
        case json::value_t::discarded: return "nothing";
        default: return "a number";
    }
}

// nlohmann's message without its "[json.exception...] " and "parse error at " prefixes, so
// "line L, column C: what went wrong" remains.
inline std::string json_problem(const std::string& what) {
    std::string s = what;
    if (const auto p = s.find("] "); p != std::string::npos && s.rfind("[json.exception", 0) == 0) s = s.substr(p + 2);
    if (s.rfind("parse error at ", 0) == 0) s = s.substr(15);
    // The message quotes the input it stopped at, which may be binary: keep it one line of
    // valid UTF-8 (a stray byte becomes '?').
    std::string clean;
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        const std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        bool ok = len > 0 && i + len <= s.size();
        for (std::size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(s[i + k]) >> 6) == 2;
        if (!ok) {
            clean += '?';
            ++i;
        } else if (c < 0x20) {
            clean += ' ';
            ++i;
        } else {
            clean.append(s, i, len);
            i += len;
        }
    }
    return clean;
}

// Parse a whole file's text. InputError "file is empty" or "not valid JSON (line L, column C:
// ...)"; a NaN or Infinity literal adds "; JSON has no NaN or Infinity, and <finite_rule>".
inline nlohmann::json parse(const std::string& text, const char* finite_rule) {
    using nlohmann::json;
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw InputError("file is empty");
    try {
        return json::parse(text);
    } catch (const json::parse_error& e) {
        std::string hint;
        const std::size_t from = e.byte > 12 ? e.byte - 12 : 0;
        const std::string near = text.substr(std::min(from, text.size()), 24);
        if (near.find("NaN") != std::string::npos || near.find("Infinity") != std::string::npos)
            hint = std::string("; JSON has no NaN or Infinity, and ") + finite_rule;
        throw InputError("not valid JSON (" + json_problem(e.what()) + hint + ")");
    } catch (const json::exception& e) {
        // e.g. out_of_range.406 for 1e999: a number too large for a double.
        throw InputError("not valid JSON (" + json_problem(e.what()) + ")");
    }
}

}  // namespace rbm::json_text
