#pragma once
// Test-only hooks of rbmscope-cli: the one place where the CLI turns a test variable into hooks
// of the core (the core itself reads no test variable; it takes hooks from whoever runs it).
//
//   RBMSCOPE_TEST_WRITE_PAUSE=during-write:MS   every atomic file write (core/io/atomic_file.hpp)
//       says "rbmscope: test write pause: writing <temporary>" on stderr once the temporary holds
//       its first 64 KiB, then sleeps MS milliseconds before writing the rest;
//   RBMSCOPE_TEST_WRITE_PAUSE=after-rename:MS   likewise "rbmscope: test write pause: renamed
//       <target>" just after the temporary is renamed over the target.
//
//   RBMSCOPE_TEST_PAUSE_AFTER_CHECKPOINT=S   rank 0 sleeps S seconds after each checkpoint it
//       writes (mpi/world.hpp; tests/cli/test_cli_mpi.cpp kills a rank in that window).
//
// tests/cli/test_cli_atomic_write.cpp SIGKILLs `rbmscope-cli convert` on reading that line, so
// the kill lands inside the write (or just after the rename) by construction, not by timing.
namespace rbm::cli {

// Installs the hooks the environment asks for (none when the variable is unset); an InputError
// naming the variable when its value is malformed.
void install_test_hooks_from_environment();

}  // namespace rbm::cli
