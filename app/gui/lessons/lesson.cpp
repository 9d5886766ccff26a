#include "lessons/lesson.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <nlohmann/json.hpp>

#include "core/io/model_io.hpp"
#include "core/io/presets.hpp"

namespace rbmscope {
namespace {

using LessonJson = nlohmann::json;

struct LessonError {
    QString message;
};

[[noreturn]] void refuseLesson(const QString& where, const QString& what) {
    throw LessonError{where + QStringLiteral(": ") + what};
}

QString jsonTypeName(const LessonJson& v) { return QString::fromUtf8(v.type_name()); }

QString stringField(const LessonJson& obj, const char* key, const QString& where, bool required) {
    const auto it = obj.find(key);
    if (it == obj.end()) {
        if (required) refuseLesson(where, QStringLiteral("'%1' is missing (a string)").arg(QLatin1String(key)));
        return {};
    }
    if (!it->is_string())
        refuseLesson(where, QStringLiteral("'%1' must be a string, not %2").arg(QLatin1String(key), jsonTypeName(*it)));
    return QString::fromStdString(it->get<std::string>());
}

template <class T, std::size_t N>
T choiceField(const LessonJson& obj, const char* key, const QString& where, const char* const (&names)[N], T fallback) {
    const QString v = stringField(obj, key, where, false);
    if (v.isEmpty() && !obj.contains(key)) return fallback;
    for (std::size_t i = 0; i < N; ++i)
        if (v == QLatin1String(names[i])) return static_cast<T>(i);
    QStringList all;
    for (const char* n : names) all << QLatin1String(n);
    refuseLesson(
        where,
        QStringLiteral("'%1' must be one of %2, not '%3'").arg(QLatin1String(key), all.join(QStringLiteral(", ")), v));
}

const char* const kLessonActions[] = {"none", "run", "sweep", "play"};
const char* const kCaptionCorners[] = {"top-left", "top-right", "bottom-left", "bottom-right"};
const char* const kStopKeys[] = {"title",     "preset", "model",  "view",    "settings", "views",
                                 "log_scale", "beta",   "action", "caption", "watch",    "caption_corner"};
const char* const kLessonKeys[] = {"format", "version", "title", "summary", "stops"};

// A key nobody reads is a typo ("captoin"): said, not ignored, so a lesson never silently loses a setting.
template <std::size_t N>
void onlyKnownKeys(const LessonJson& obj, const char* const (&keys)[N], const QString& where) {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
        bool known = false;
        for (const char* k : keys) known = known || it.key() == k;
        if (!known) {
            QStringList all;
            for (const char* k : keys) all << QLatin1String(k);
            refuseLesson(where, QStringLiteral("unknown key '%1' (expected %2)")
                                    .arg(QString::fromStdString(it.key()), all.join(QStringLiteral(", "))));
        }
    }
}

LessonStop parseStop(const LessonJson& j, const QString& where, const QString& baseDir) {
    if (!j.is_object()) refuseLesson(where, QStringLiteral("a stop must be an object, not %1").arg(jsonTypeName(j)));
    onlyKnownKeys(j, kStopKeys, where);
    LessonStop st;
    st.title = stringField(j, "title", where, false);
    st.caption = stringField(j, "caption", where, true);
    if (st.caption.trimmed().isEmpty()) refuseLesson(where, QStringLiteral("'caption' is empty"));
    st.watch = stringField(j, "watch", where, false);
    st.view = stringField(j, "view", where, true);
    st.action = choiceField(j, "action", where, kLessonActions, LessonAction::None);
    st.corner = choiceField(j, "caption_corner", where, kCaptionCorners, CaptionCorner::TopRight);
    if (const auto it = j.find("log_scale"); it != j.end()) {
        if (!it->is_boolean())
            refuseLesson(where, QStringLiteral("'log_scale' must be true or false, not %1").arg(jsonTypeName(*it)));
        st.logScale = it->get<bool>();
    }
    if (const auto it = j.find("beta"); it != j.end()) {
        if (!it->is_number() || it->get<double>() < 0 || it->get<double>() > 1)
            refuseLesson(
                where,
                QStringLiteral("'beta' must be a number from 0 to 1, got %1").arg(QString::fromStdString(it->dump())));
        st.beta = it->get<double>();
    }
    const bool hasPreset = j.contains("preset"), hasModel = j.contains("model");
    if (hasPreset == hasModel)
        refuseLesson(where, QStringLiteral("give exactly one of 'preset' (a preset's name) or 'model' (a model file)"));
    const QString preset = stringField(j, "preset", where, false), modelFile = stringField(j, "model", where, false);
    if (hasPreset) {
        bool known = false;
        QStringList names;
        for (const rbm::PresetInfo& p : rbm::list_presets()) {
            names << QString::fromStdString(p.name);
            known = known || preset.toStdString() == p.name;
        }
        if (!known)
            refuseLesson(
                where,
                QStringLiteral("'preset' must be one of %1, not '%2'").arg(names.join(QStringLiteral(", ")), preset));
    }

    // The session document this stop stands for, read by core's session parser (its messages name the key).
    LessonJson doc{{"format", "rbmscope-session"},
                   {"version", 1},
                   {"model", hasPreset ? preset.toStdString() : rbm::default_preset_name()},
                   {"view", st.view.toStdString()}};
    LessonJson settings = LessonJson::object();
    if (const auto it = j.find("settings"); it != j.end()) {
        if (!it->is_object())
            refuseLesson(where, QStringLiteral("'settings' must be an object, not %1").arg(jsonTypeName(*it)));
        settings = *it;
    }
    // A stop runs what its action says, not whatever a changed setting starts by itself.
    if (!settings.contains("auto_run")) settings["auto_run"] = false;
    doc["settings"] = settings;
    if (const auto it = j.find("views"); it != j.end()) {
        if (!it->is_object())
            refuseLesson(where, QStringLiteral("'views' must be an object, not %1").arg(jsonTypeName(*it)));
        doc["views"] = *it;
    }
    try {
        st.session = rbm::session_from_json_text(doc.dump(), where.toStdString());
        if (hasModel) {
            const QString path = QDir(baseDir).absoluteFilePath(modelFile);
            if (!QFileInfo::exists(path)) refuseLesson(where, QStringLiteral("'model': no file %1").arg(path));
            st.session.model = rbm::load_model(path.toStdString());
            st.session.preset.clear();
            st.origin = path;
        } else {
            st.origin = QStringLiteral("preset ") + preset;
        }
    } catch (const LessonError&) {
        throw;
    } catch (const std::exception& e) {
        refuseLesson(where, QString::fromUtf8(e.what()));
    }
    return st;
}

}  // namespace

std::optional<Lesson> parseLesson(const QByteArray& bytes, const QString& source, const QString& baseDir,
                                  QString* error) {
    try {
        if (bytes.size() > kMaxLessonBytes)
            refuseLesson(source,
                         QStringLiteral("%1 bytes; a lesson holds at most %2").arg(bytes.size()).arg(kMaxLessonBytes));
        LessonJson j;
        try {
            j = LessonJson::parse(bytes.constData(), bytes.constData() + bytes.size());
        } catch (const LessonJson::parse_error& e) {
            refuseLesson(source, QStringLiteral("not valid JSON (%1)").arg(QString::fromUtf8(e.what())));
        }
        if (!j.is_object())
            refuseLesson(source, QStringLiteral("a lesson must be a JSON object, not %1").arg(jsonTypeName(j)));
        onlyKnownKeys(j, kLessonKeys, source);
        if (stringField(j, "format", source, true) != QLatin1String("rbmscope-lesson"))
            refuseLesson(source, QStringLiteral("'format' must be \"rbmscope-lesson\""));
        const auto version = j.find("version");
        if (version == j.end() || !version->is_number_integer() || version->get<long long>() != 1)
            refuseLesson(source, QStringLiteral("'version' must be 1 (the only version this build reads)"));
        Lesson lesson;
        lesson.source = source;
        lesson.title = stringField(j, "title", source, true);
        lesson.summary = stringField(j, "summary", source, false);
        const auto stops = j.find("stops");
        if (stops == j.end() || !stops->is_array() || stops->empty())
            refuseLesson(source, QStringLiteral("'stops' must be a non-empty array of stops"));
        if (stops->size() > static_cast<std::size_t>(kMaxLessonStops))
            refuseLesson(source,
                         QStringLiteral("%1 stops; a lesson holds at most %2").arg(stops->size()).arg(kMaxLessonStops));
        for (std::size_t i = 0; i < stops->size(); ++i)
            lesson.stops.push_back(
                parseStop((*stops)[i], QStringLiteral("%1, stop %2").arg(source).arg(i + 1), baseDir));
        return lesson;
    } catch (const LessonError& e) {
        if (error) *error = e.message;
    } catch (const std::exception& e) {  // a model file the loaders refuse, an allocation over the budget
        if (error) *error = source + QStringLiteral(": ") + QString::fromUtf8(e.what());
    }
    return std::nullopt;
}

QStringList shippedLessons() {
    QFile f(QStringLiteral(":/lessons/order.txt"));
    QStringList names;
    if (!f.open(QIODevice::ReadOnly)) return names;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (!line.trimmed().isEmpty()) names << QString::fromUtf8(line.trimmed());
    return names;
}

QString shippedLessonPath(const QString& name) { return QStringLiteral(":/lessons/%1.json").arg(name); }

std::optional<Lesson> loadLesson(const QString& nameOrPath, QString* error) {
    const bool shipped = shippedLessons().contains(nameOrPath);
    const QString path = shipped ? shippedLessonPath(nameOrPath) : nameOrPath;
    QFile f(path);
    if (!shipped && !QFileInfo(path).isFile()) {
        if (error)
            *error = QStringLiteral("%1: no such lesson file, and no shipped lesson of that name (%2)")
                         .arg(nameOrPath, shippedLessons().join(QStringLiteral(", ")));
        return std::nullopt;
    }
    if (QFileInfo(path).size() > kMaxLessonBytes) {
        if (error) *error = QStringLiteral("%1: larger than a lesson can be (%2 bytes)").arg(path).arg(kMaxLessonBytes);
        return std::nullopt;
    }
    if (!f.open(QIODevice::ReadOnly)) {
        if (error) *error = QStringLiteral("%1: cannot read it (%2)").arg(path, f.errorString());
        return std::nullopt;
    }
    return parseLesson(f.readAll(), shipped ? nameOrPath + QStringLiteral(".json") : path,
                       shipped ? QDir::currentPath() : QFileInfo(path).absolutePath(), error);
}

QString lessonActionName(LessonAction a) { return QLatin1String(kLessonActions[static_cast<int>(a)]); }

}  // namespace rbmscope
