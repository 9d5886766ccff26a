#pragma once
// The real rbmscope-cli as the widget suites run it (RBMSCOPE_CLI_BINARY, defined for every widget
// suite by tests/CMakeLists.txt), and its JSON read back.
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>

// Runs rbmscope-cli in `dir` with its stdout written to dir/out; empty string on success, else
// what went wrong (exit code and stderr, or "timed out" after two minutes).
inline QString cli(const QString& dir, const QStringList& args, const QString& out) {
    QProcess p;
    p.setWorkingDirectory(dir);
    p.setStandardOutputFile(dir + QLatin1Char('/') + out);
    p.start(QStringLiteral(RBMSCOPE_CLI_BINARY), args);
    if (!p.waitForFinished(120000)) return QStringLiteral("timed out");
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return QStringLiteral("exit %1: %2").arg(p.exitCode()).arg(QString::fromUtf8(p.readAllStandardError()));
    return {};
}

// The JSON object in `path`; empty when the file cannot be read or holds no object.
inline QJsonObject readJson(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}
