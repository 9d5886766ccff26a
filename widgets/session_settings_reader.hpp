#pragma once
// Reading a session file's settings object (core's rbm::SessionValue map) into typed values,
// with one message for the first problem, naming the key ("setting 'views.samples.chains' must
// be an integer from 1 to 1024, got 0"). Used for the parameter panel's "settings"
// (run_settings_map.cpp) and for every view's own settings (app/gui/views/*/..._session.cpp).
// A key that is missing leaves its value alone; a value that is present but wrong sets `error`
// and leaves it alone too.
#include <QString>
#include <QStringList>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/io/session_io.hpp"

namespace rbmscope {

class SessionSettingsReader {
public:
    using Map = std::map<std::string, rbm::SessionValue>;
    // prefix: put before every key in messages ("views.tempering.").
    explicit SessionSettingsReader(const Map& map, std::string prefix = {}) : map_(map), prefix_(std::move(prefix)) {}
    QString error;

    static QString got(const rbm::SessionScalar& v) { return QString::fromStdString(rbm::session_scalar_text(v)); }
    static QString got(const rbm::SessionValue& v) {
        if (!v.is_list) return got(v.items.front());
        return QStringLiteral("an array of %1 values").arg(v.items.size());
    }

    bool has(const char* key) const { return map_.count(key) > 0; }

    const rbm::SessionValue* scalar(const char* key, const QString& expected) {
        const auto it = map_.find(key);
        if (it == map_.end() || !error.isEmpty()) return nullptr;
        if (it->second.is_list || it->second.items.size() != 1) {
            fail(key, expected, got(it->second));
            return nullptr;
        }
        return &it->second;
    }

    void integer(const char* key, long long lo, long long hi, long long& out) {
        const QString expected = QStringLiteral("an integer from %1 to %2").arg(lo).arg(hi);
        if (const rbm::SessionValue* v = scalar(key, expected)) {
            if (!integerOf(v->items.front(), lo, hi, out)) fail(key, expected, got(*v));
        }
    }
    template <class T>
    void integer(const char* key, long long lo, long long hi, T& out) {
        long long v = static_cast<long long>(out);
        integer(key, lo, hi, v);
        out = static_cast<T>(v);
    }

    void seed(const char* key, std::uint64_t& out) {
        if (const rbm::SessionValue* v = scalar(key, QStringLiteral("an integer from 0 to 18446744073709551615"))) {
            const rbm::SessionScalar& x = v->items.front();
            if (const auto* u = std::get_if<std::uint64_t>(&x)) out = *u;
            else if (const auto* i = std::get_if<std::int64_t>(&x); i && *i >= 0) out = static_cast<std::uint64_t>(*i);
            else fail(key, QStringLiteral("an integer from 0 to 18446744073709551615"), got(*v));
        }
    }

    // A real number in (lo, hi], or [lo, hi] when `closed`.
    void real(const char* key, double lo, double hi, double& out, bool closed = false) {
        const QString expected = closed ? QStringLiteral("a number from %1 to %2").arg(lo).arg(hi)
                                        : QStringLiteral("a number greater than %1 and at most %2").arg(lo).arg(hi);
        if (const rbm::SessionValue* v = scalar(key, expected)) {
            const double d = realOf(v->items.front());
            if (std::isfinite(d) && (closed ? d >= lo : d > lo) && d <= hi) out = d;
            else fail(key, expected, got(*v));
        }
    }

    void boolean(const char* key, bool& out) {
        if (const rbm::SessionValue* v = scalar(key, QStringLiteral("true or false"))) {
            if (const auto* b = std::get_if<bool>(&v->items.front())) out = *b;
            else fail(key, QStringLiteral("true or false"), got(*v));
        }
    }

    // One of `choices`; returns whether the key was there and valid.
    bool choice(const char* key, const std::vector<std::string>& choices, std::string& out) {
        QStringList names;
        for (const std::string& c : choices) names << QString::fromStdString(c);
        const QString expected = QStringLiteral("one of %1").arg(names.join(QStringLiteral(", ")));
        const rbm::SessionValue* v = scalar(key, expected);
        if (!v) return false;
        const auto* s = std::get_if<std::string>(&v->items.front());
        if (!s || !names.contains(QString::fromStdString(*s))) {
            fail(key, expected, got(*v));
            return false;
        }
        out = *s;
        return true;
    }
    template <std::size_t N>
    bool choice(const char* key, const char* const (&choices)[N], std::string& out) {
        return choice(key, std::vector<std::string>(std::begin(choices), std::end(choices)), out);
    }

    void string(const char* key, std::string& out) {
        if (const rbm::SessionValue* v = scalar(key, QStringLiteral("a string"))) {
            if (const auto* s = std::get_if<std::string>(&v->items.front())) out = *s;
            else fail(key, QStringLiteral("a string"), got(*v));
        }
    }

    // An array (absent: nullptr).
    const rbm::SessionValue* list(const char* key, const QString& expected) {
        const auto it = map_.find(key);
        if (it == map_.end() || !error.isEmpty()) return nullptr;
        if (!it->second.is_list) {
            fail(key, expected, got(it->second));
            return nullptr;
        }
        return &it->second;
    }

    // An array of numbers in [lo, hi]; true when the key was there and valid.
    bool reals(const char* key, double lo, double hi, std::vector<double>& out) {
        const QString expected = QStringLiteral("an array of numbers from %1 to %2").arg(lo).arg(hi);
        const rbm::SessionValue* v = list(key, expected);
        if (!v) return false;
        std::vector<double> xs;
        for (const rbm::SessionScalar& x : v->items) {
            const double d = realOf(x);
            if (!(std::isfinite(d) && d >= lo && d <= hi)) {
                fail(key, expected, QStringLiteral("an array holding %1").arg(got(x)));
                return false;
            }
            xs.push_back(d);
        }
        out = std::move(xs);
        return true;
    }

    void fail(const char* key, const QString& expected, const QString& what) {
        if (error.isEmpty())
            error = QStringLiteral("setting '%1%2' must be %3, got %4")
                        .arg(QString::fromStdString(prefix_), QString::fromLatin1(key), expected, what);
    }

    static bool integerOf(const rbm::SessionScalar& x, long long lo, long long hi, long long& out) {
        if (const auto* i = std::get_if<std::int64_t>(&x); i && *i >= lo && *i <= hi) {
            out = *i;
            return true;
        }
        return false;
    }
    static double realOf(const rbm::SessionScalar& x) {
        if (const auto* r = std::get_if<double>(&x)) return *r;
        if (const auto* i = std::get_if<std::int64_t>(&x)) return static_cast<double>(*i);
        return std::numeric_limits<double>::quiet_NaN();
    }

private:
    const Map& map_;
    std::string prefix_;
};

}  // namespace rbmscope
