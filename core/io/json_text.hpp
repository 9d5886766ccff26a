#pragma once
// JSON reading shared by the model and session loaders (internal to core): parsing with one
// clear message per problem, and the words those messages use for JSON types.
#include <algorithm>
#include <new>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

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

// What the parser callback of parse() does: refuses a key that appears twice in one object
// (nlohmann keeps the last silently), and skips the values of top-level keys not in `known`
// without building them (an unknown key may hold megabytes; built as a DOM it cost ~36 times
// its size). Events inside a skipped value are recognised by their depth: nlohmann reports no
// end event for a container it does not build.
class KeyFilter {
public:
    explicit KeyFilter(const std::vector<std::string>* known) : known_(known) {}
    bool operator()(int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        using E = nlohmann::json::parse_event_t;
        if (skip_depth_ >= 0) {
            const bool ends = (event == E::key && depth <= skip_depth_) ||
                              (event == E::object_end && depth < skip_depth_) ||
                              (event == E::array_end && depth < skip_depth_);
            if (!ends) return false;
            skip_depth_ = -1;
        }
        switch (event) {
            case E::object_start: keys_.emplace_back(); return true;
            case E::object_end:
                if (!keys_.empty()) keys_.pop_back();
                return true;
            case E::key: {
                const std::string& k = parsed.get_ref<const std::string&>();
                if (depth == 1 && known_ && std::find(known_->begin(), known_->end(), k) == known_->end()) {
                    skip_depth_ = depth;
                    return false;
                }
                if (path_.size() < static_cast<std::size_t>(depth)) path_.resize(static_cast<std::size_t>(depth));
                path_[static_cast<std::size_t>(depth) - 1] = k;
                if (!keys_.empty() && !keys_.back().insert(k).second) {
                    std::string where = "at the top level";
                    if (depth > 1) {
                        where = "in '";
                        for (int d = 0; d + 1 < depth; ++d)
                            where += (d ? "." : "") + path_[static_cast<std::size_t>(d)];
                        where += "'";
                    }
                    throw InputError("key '" + k + "' appears twice " + where + "; a key may appear only once");
                }
                return true;
            }
            default: return true;
        }
    }

private:
    const std::vector<std::string>* known_;
    int skip_depth_ = -1;
    std::vector<std::set<std::string>> keys_;  // the keys seen in each open object
    std::vector<std::string> path_;            // the key at each depth, for messages
};

// The deepest nesting of arrays and objects a file may have: far beyond any file rbmscope writes
// (a model, result, checkpoint or session nests fewer than ten levels), far below where a
// recursive walk of the document (nlohmann's own copy and comparison, the readers' checks)
// could exhaust the stack: a 200 KB file nested 100 000 levels deep crashed the readers (#35).
inline constexpr int kMaxDepth = 256;

// Refuses text nested deeper than kMaxDepth, before any of it is parsed: one loop over the
// bytes, no recursion, brackets inside strings (escapes included) not counted. InputError
// "JSON nested deeper than 256 levels (line L, column C)". Text that is not JSON is left to the
// parser's message.
inline void check_depth(const std::string& text) {
    int depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxDepth) {
                std::size_t line = 1, column = 1;
                for (std::size_t k = 0; k < i; ++k) {
                    if (text[k] == '\n') {
                        ++line;
                        column = 1;
                    } else {
                        ++column;
                    }
                }
                throw InputError("JSON nested deeper than " + std::to_string(kMaxDepth) + " levels (line " +
                                 std::to_string(line) + ", column " + std::to_string(column) + ")");
            }
        } else if (c == ']' || c == '}') {
            if (depth > 0) --depth;
        }
    }
}

// Headroom for unwinding out of memory. When an allocation of the parse fails, the partly built
// document is destroyed while the exception propagates, and nlohmann's destructor allocates a
// stack to flatten it (it cannot throw: a failure there is std::terminate, the abort seen when
// parsing hostile files under a memory cap). So while parsing, the first failed allocation frees this reserve and
// throws bad_alloc itself: the destructor then has the reserve to work with.
class OutOfMemoryReserve {
public:
    OutOfMemoryReserve() : previous_(std::set_new_handler(&OutOfMemoryReserve::release)) {
        reserve() = new (std::nothrow) char[kBytes];
    }
    ~OutOfMemoryReserve() {
        std::set_new_handler(previous_);
        delete[] reserve();
        reserve() = nullptr;
    }
    OutOfMemoryReserve(const OutOfMemoryReserve&) = delete;
    OutOfMemoryReserve& operator=(const OutOfMemoryReserve&) = delete;

private:
    static constexpr std::size_t kBytes = std::size_t(32) << 20;
    static char*& reserve() {
        static char* block = nullptr;
        return block;
    }
    static void release() {
        delete[] reserve();
        reserve() = nullptr;
        throw std::bad_alloc();
    }
    std::new_handler previous_;
};

// Parse a whole file's text. InputError "file is empty", "JSON nested deeper than 256 levels
// (...)" or "not valid JSON (line L, column C: ...)"; a NaN or Infinity literal adds "; JSON has
// no NaN or Infinity, and <finite_rule>".
// Duplicate keys are refused; with `known_top`, other top-level keys are skipped unbuilt. Out of
// memory is an InputError too (one line, exit 2), never an exception escaping as an abort.
inline nlohmann::json parse(const std::string& text, const char* finite_rule,
                            const std::vector<std::string>* known_top = nullptr) {
    using nlohmann::json;
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw InputError("file is empty");
    check_depth(text);
    try {
        const OutOfMemoryReserve headroom;
        KeyFilter filter(known_top);
        return json::parse(text, [&filter](int depth, json::parse_event_t event, json& parsed) {
            return filter(depth, event, parsed);
        });
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
    } catch (const std::bad_alloc&) {
        throw InputError("not enough memory to read " + std::to_string(text.size()) + " bytes of JSON");
    }
}

}  // namespace rbm::json_text
