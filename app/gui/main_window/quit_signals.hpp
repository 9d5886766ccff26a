#pragma once
// SIGTERM, SIGHUP and SIGINT close the window as a user would (so the session is saved on quit):
// the handler only writes a byte to a pipe (the self-pipe pattern; nothing else is
// async-signal-safe), and a QSocketNotifier on the other end closes `window` on the GUI thread.
// A second signal while the first is handled ends the process at once (the default action).
class QWidget;

namespace rbmscope {

// Installs the handlers; false (and a message on stderr) when the pipe cannot be made.
bool closeOnTerminationSignals(QWidget* window);

}  // namespace rbmscope
