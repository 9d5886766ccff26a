#pragma once
// Where widget suites save the screenshots they render: $RBMSCOPE_SCREENSHOT_DIR if set
// (scripts/screenshots.sh points it at docs/screenshots), otherwise the build tree, so a
// test run never rewrites files of the source tree.
#include <QDir>
#include <QString>

inline QString screenshotDir() {
    QString dir = qEnvironmentVariable("RBMSCOPE_SCREENSHOT_DIR");
    if (dir.isEmpty()) dir = QStringLiteral(RBMSCOPE_TEST_SCREENSHOT_DIR);
    QDir().mkpath(dir);
    return dir;
}
