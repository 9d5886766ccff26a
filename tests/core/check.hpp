#pragma once
// A tiny test harness for the core suites, which must link nothing but rbmscope_core (that is
// how we enforce "no Qt in core"). Usage:
//   TEST_CASE("grbm log Z matches quadrature") { CHECK_CLOSE(a, b, 1e-8); }
//   int main() { return rbm::test::run_all(); }   // or use RBM_TEST_MAIN
// Each test prints its failures with file:line; run_all prints "N passed, N failed".
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace rbm::test {

struct Case {
    const char* name;
    std::function<void()> fn;
};
inline std::vector<Case>& registry() {
    static std::vector<Case> r;
    return r;
}
inline int& failures_in_case() {
    static int f = 0;
    return f;
}
struct Register {
    Register(const char* name, std::function<void()> fn) { registry().push_back({name, std::move(fn)}); }
};

inline void fail(const char* file, int line, const std::string& what) {
    ++failures_in_case();
    std::fprintf(stderr, "  FAIL %s:%d: %s\n", file, line, what.c_str());
}

// True in the sanitizer builds (scripts/sanitize.sh sets RBMSCOPE_SANITIZED=1), where code runs
// 10-40x slower: a few suites then do less work. Each such place says which power it keeps, and
// the Release build runs the full size.
inline bool sanitized() { return std::getenv("RBMSCOPE_SANITIZED") != nullptr; }

// Relative-or-absolute closeness: |a-b| <= tol * max(1, |a|, |b|) when relative, else |a-b| <= tol.
inline bool close_rel(double a, double b, double tol) {
    if (!std::isfinite(a) || !std::isfinite(b)) return false;
    return std::fabs(a - b) <= tol * std::max({1.0, std::fabs(a), std::fabs(b)});
}

// argv: an optional filter substring selects the cases to run. RBMSCOPE_TEST_SHARD=i/n runs only
// the cases whose position in the file is i modulo n (ctest runs the longest suites as n entries,
// tests/CMakeLists.txt, so both cores stay busy); a shard with no case fails, like an empty run.
inline int run_all(int argc = 0, char** argv = nullptr) {
    int passed = 0, failed = 0;
    const char* filter = argc > 1 ? argv[1] : nullptr;
    long shard = 0, shards = 1;
    if (const char* s = std::getenv("RBMSCOPE_TEST_SHARD")) {
        if (std::sscanf(s, "%ld/%ld", &shard, &shards) != 2 || shards < 1 || shard < 0 || shard >= shards) {
            std::fprintf(stderr, "RBMSCOPE_TEST_SHARD must be i/n with 0 <= i < n, not '%s'\n", s);
            return 2;
        }
    }
    long index = -1;
    for (auto& c : registry()) {
        ++index;
        if (index % shards != shard) continue;
        if (filter && !std::strstr(c.name, filter)) continue;
        failures_in_case() = 0;
        const auto t0 = std::chrono::steady_clock::now();
        try {
            c.fn();
        } catch (const std::exception& e) {
            fail(__FILE__, __LINE__, std::string("unexpected exception: ") + e.what());
        }
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (failures_in_case() == 0) {
            ++passed;
            std::printf("PASS %s (%.2f s)\n", c.name, secs);
        } else {
            ++failed;
            std::printf("FAIL %s (%.2f s)\n", c.name, secs);
        }
        std::fflush(stdout);
    }
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 && passed > 0 ? 0 : 1;
}

}  // namespace rbm::test

#define RBM_CAT2(a, b) a##b
#define RBM_CAT(a, b) RBM_CAT2(a, b)
#define TEST_CASE(name)                                                                                    \
    static void RBM_CAT(rbm_test_fn_, __LINE__)();                                                         \
    static ::rbm::test::Register RBM_CAT(rbm_test_reg_, __LINE__)(name, &RBM_CAT(rbm_test_fn_, __LINE__)); \
    static void RBM_CAT(rbm_test_fn_, __LINE__)()
#define RBM_TEST_MAIN \
    int main(int argc, char** argv) { return ::rbm::test::run_all(argc, argv); }

#define CHECK(cond)                                                             \
    do {                                                                        \
        if (!(cond)) ::rbm::test::fail(__FILE__, __LINE__, "CHECK(" #cond ")"); \
    } while (0)
#define CHECK_MSG(cond, msg)                                      \
    do {                                                          \
        if (!(cond)) {                                            \
            std::ostringstream rbm_os_;                           \
            rbm_os_ << "CHECK(" #cond ") " << msg;                \
            ::rbm::test::fail(__FILE__, __LINE__, rbm_os_.str()); \
        }                                                         \
    } while (0)
// Relative tolerance (absolute below magnitude 1).
#define CHECK_CLOSE(a, b, tol)                                                                      \
    do {                                                                                            \
        const double rbm_a_ = (a), rbm_b_ = (b);                                                    \
        if (!::rbm::test::close_rel(rbm_a_, rbm_b_, (tol))) {                                       \
            std::ostringstream rbm_os_;                                                             \
            rbm_os_.precision(15);                                                                  \
            rbm_os_ << #a " = " << rbm_a_ << " vs " #b " = " << rbm_b_ << " (tol " << (tol) << ")"; \
            ::rbm::test::fail(__FILE__, __LINE__, rbm_os_.str());                                   \
        }                                                                                           \
    } while (0)
// |a - b| <= tol, absolute.
#define CHECK_NEAR(a, b, tol)                                                                           \
    do {                                                                                                \
        const double rbm_a_ = (a), rbm_b_ = (b);                                                        \
        if (!(std::fabs(rbm_a_ - rbm_b_) <= (tol))) {                                                   \
            std::ostringstream rbm_os_;                                                                 \
            rbm_os_.precision(15);                                                                      \
            rbm_os_ << #a " = " << rbm_a_ << " vs " #b " = " << rbm_b_ << " (abs tol " << (tol) << ")"; \
            ::rbm::test::fail(__FILE__, __LINE__, rbm_os_.str());                                       \
        }                                                                                               \
    } while (0)
// expr must throw ExceptionType whose what() contains `substring`.
#define CHECK_THROWS_WITH(expr, ExceptionType, substring)                                                   \
    do {                                                                                                    \
        bool rbm_thrown_ = false;                                                                           \
        try {                                                                                               \
            (void)(expr);                                                                                   \
        } catch (const ExceptionType& e) {                                                                  \
            rbm_thrown_ = true;                                                                             \
            if (!std::strstr(e.what(), substring))                                                          \
                ::rbm::test::fail(__FILE__, __LINE__,                                                       \
                                  std::string("message '") + e.what() + "' lacks '" + (substring) + "'");   \
        } catch (const std::exception& e) {                                                                 \
            rbm_thrown_ = true;                                                                             \
            ::rbm::test::fail(__FILE__, __LINE__, std::string("wrong exception type: ") + e.what());        \
        }                                                                                                   \
        if (!rbm_thrown_) ::rbm::test::fail(__FILE__, __LINE__, "expected " #ExceptionType " from " #expr); \
    } while (0)
