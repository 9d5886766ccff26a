#pragma once
// The command line of the `rbmscope` app (the options are listed at the top of main.cpp), read
// into AppOptions. Values stay as typed and are checked where they are applied, because some
// checks need the open model (the methods its kind allows) or the window (the views' names).
#include <QApplication>
#include <QString>
#include <optional>
#include <vector>

namespace rbmscope {

struct AppOptions {
    // What to open; without any of these, the last session (the four-mode toy for headless runs).
    std::optional<QString> session;  // --session FILE
    std::optional<QString> file;     // --model FILE, or FILE
    bool presetGiven = false;
    QString preset;  // --preset NAME; the default preset when not given
    std::optional<QString> view;
    bool run = false;

    // Run settings, as in the parameter panel.
    std::optional<QString> path, base, compare, steps, chains, seed, sweep;
    bool perfect = false, reverseAis = false;
    std::optional<QString> beta;
    QString scale;  // shared (default) or separate

    // Data (training and samples views), training and samples settings.
    std::optional<QString> data;
    std::optional<QString> trainMethod, trainKind, trainHidden, trainUpdates, trainK, trainBatch, trainLr, trainMonitor,
        trainInitScale, trainPrep;
    bool trainShifts = false;
    std::optional<QString> sampler, sampleSweeps;

    // Headless output: render, write and exit.
    std::optional<QString> screenshot, report, playbackFrames;
    std::optional<QString> frames, dpi, timeout;
    QString size;            // WxH, default 1280x800
    bool presenter = false;  // --presenter: start in presenter mode (with --screenshot: its layout at --size)

    std::optional<QString> maxMemory;  // --max-memory SIZE: the memory budget (core/numerics/memory_budget.hpp)
    std::optional<QString> lesson, lessonStop;  // --lesson NAME|FILE [--lesson-stop K] (lessons/lesson_player.hpp)

    bool headless() const { return screenshot || report || playbackFrames; }
};

// argv without our "--session FILE": QGuiApplication takes "-session ID" and "--session ID" for
// X11 session management, so ours is taken out before Qt sees argv ("-session ID" stays Qt's).
// QApplication keeps a reference to `argc`, so this object must outlive it.
struct QtArguments {
    std::vector<char*> argv;  // null-terminated
    int argc = 0;
    std::optional<QString> session;
    QString problem;  // why the command line is refused; empty when it is fine
};
QtArguments takeSessionOption(int argc, char** argv);

// `rbmscope --help` and `--version` answered before any window or platform plugin exists (over
// SSH, with no display): prints and exits when argv asks for either, else returns.
void answerHelpOrVersionWithoutDisplay(int argc, char** argv);
// The version, commit, compiler and SIMD paths, as --version and the About box show them.
void setApplicationVersion();

// Parses the command line of `app` (QCommandLineParser: --help and unknown options print and
// exit). Returns why it is refused (two files, or a file given twice), or an empty string.
QString parseOptions(const QApplication& app, const std::optional<QString>& session, AppOptions& out);

}  // namespace rbmscope
