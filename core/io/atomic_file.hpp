#pragma once
// Whole files on disk: the atomic write every saver uses (models, sessions, logs, checkpoints)
// and the read that refuses what is not a regular file. POSIX only.
//
// write_file_atomically(path, bytes): "<path>.tmp-<16 hex>" is created beside the target (same
// file system, so the rename is atomic), locked with flock while alive, written, fsynced, renamed
// over `path`, and the directory is fsynced so the rename itself is durable. A crash at any point
// leaves the previous file or the complete new one, never a mixture. Temporaries of that pattern
// for `path` left by a writer that died are removed first (only those older than this process and
// not locked by a live writer).
//
// Typical use:
//   write_file_atomically(dir / "run.json", json_text);   // InputError naming the step on failure
//   const std::string back = read_file(dir / "run.json");
//
// Tests make a writer stop at a chosen moment (to SIGKILL it there, or to fail the write as a
// full disk would) with set_atomic_write_hooks_for_testing(); nothing here reads the environment.
// The CLI turns its one test variable into these hooks (app/cli/test_hooks.cpp).
#include <filesystem>
#include <functional>
#include <string>

namespace rbm {

void write_file_atomically(const std::filesystem::path& path, const std::string& bytes);
// Checks, before any work, that write_file_atomically(path, ...) can succeed as far as creating
// its temporary beside `path`: creates and removes one. InputError "<what> '<path>': cannot write
// there: <reason>" when the directory does not exist, is not a directory, is not writable, or
// `path` is a directory. `what` names the option, e.g. "--out".
void check_writable(const std::filesystem::path& path, const std::string& what);
// InputError if unreadable or not a regular file (a FIFO or device would block or never end).
std::string read_file(const std::filesystem::path& path);

// Test-only moments inside write_file_atomically. Each is called with the file it concerns and
// may block (a test kills the writer meanwhile) or throw. A throw from after_first_chunk is a
// failed write: the temporary is closed and removed, the previous file is unchanged and the
// exception reaches the caller. A throw from after_rename reaches the caller too, but the new
// file is already in place (as when a writer dies after the rename).
struct AtomicWriteHooks {
    // The temporary holds its first 64 KiB and the rest is not yet written (called only when the
    // bytes are longer than that); the argument is the temporary's path.
    std::function<void(const std::string& temporary)> after_first_chunk;
    // The temporary has just been renamed over the target, the directory not yet flushed; the
    // argument is the target's path.
    std::function<void(const std::string& target)> after_rename;
};
// Installs `hooks` for every later write in this process (thread-safe; a write in progress keeps
// the hooks it started with). AtomicWriteHooks{} removes them.
void set_atomic_write_hooks_for_testing(AtomicWriteHooks hooks);

}  // namespace rbm
