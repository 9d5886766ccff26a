#include "main_window/quit_signals.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <QCoreApplication>
#include <QSocketNotifier>
#include <QWidget>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>

#include "main_window/main_window.hpp"

namespace rbmscope {
namespace {

int g_pipe[2] = {-1, -1};
volatile std::sig_atomic_t g_pending = 0;

extern "C" void onTerminationSignal(int sig) {
    if (g_pending) {
        // Asked twice: the quit is stuck or the user insists.
        std::signal(sig, SIG_DFL);
        std::raise(sig);
        return;
    }
    g_pending = 1;
    const int saved = errno;
    const char byte = static_cast<char>(sig);
    [[maybe_unused]] const ssize_t n = ::write(g_pipe[1], &byte, 1);
    errno = saved;
}

}  // namespace

bool closeOnTerminationSignals(QWidget* window) {
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, g_pipe) != 0) {
        std::cerr << "rbmscope: cannot watch for SIGTERM/SIGHUP (" << std::strerror(errno)
                  << "); they will quit without saving the session" << std::endl;
        return false;
    }
    auto* notifier = new QSocketNotifier(g_pipe[0], QSocketNotifier::Read, window);
    QObject::connect(notifier, &QSocketNotifier::activated, window, [window] {
        char byte = 0;
        while (::read(g_pipe[0], &byte, 1) == 1) {
        }
        const char* name = byte == SIGHUP ? "SIGHUP" : byte == SIGINT ? "SIGINT" : "SIGTERM";
        std::cerr << "rbmscope: " << name << ": saving the session and quitting" << std::endl;
        // Nobody is there to answer a message: errors go to stderr, and the window closes.
        if (auto* w = qobject_cast<MainWindow*>(window)) w->setInteractive(false);
        // A non-modal message box still open would keep the app alive after its window closed.
        if (window->close()) QCoreApplication::quit();
    });
    struct sigaction sa {};
    sa.sa_handler = onTerminationSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (int sig : {SIGTERM, SIGHUP, SIGINT}) sigaction(sig, &sa, nullptr);
    return true;
}

}  // namespace rbmscope
