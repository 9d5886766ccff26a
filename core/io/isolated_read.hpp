#pragma once
// Private to core/io. Reading through libhdf5 (.h5 files, MATLAB v7.3 .mat files) in a forked
// child process, so that a crafted file cannot take the app or the CLI down: libhdf5 1.10.8 still crashes inside itself
// on some crafted files (tests/data/bad/h5-metadata-accumulator-null.h5 and the two mat-v73-* files next to it), below
// anything the readers can check first. The child parses the file into NamedArrays (or a
// listing), sends them back through a pipe and _exits; a child that dies, hangs or asks for
// more memory than the file can justify becomes an InputError in the caller.
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "core/io/named_arrays.hpp"

namespace rbm {

// What a child may use. Chosen by isolated_limits_for() from the file size.
struct IsolatedLimits {
    std::uint64_t memory_bytes = 0;  // address space the child may add to what it inherits
    int seconds = 0;                 // wall-clock time before the child is killed
    std::uint64_t reply_bytes = 0;   // the most the parent reads back from the pipe
};
IsolatedLimits isolated_limits_for(std::uintmax_t file_bytes);

// Runs `work` in a forked child and returns the bytes it returned. An InputError thrown by
// `work` is rethrown here with its message unchanged. A child killed by a signal, exiting
// abnormally, running past the time limit or sending more than the cap is an InputError
// "<library> crashed reading this file (...); the file is damaged or not <what>".
std::string run_isolated(const std::function<std::string()>& work, const IsolatedLimits& limits,
                         const std::string& library, const std::string& what);

// Test-only: every later child misbehaves as `fault` says before it runs its work (crashes,
// aborts, exits with status 7, hangs, or allocates 64 MB more than its memory limit), so the
// suites make each failure happen by construction instead of hunting for a file that triggers
// it. ChildFault::None (the default) turns it off.
enum class ChildFault { None, Segv, Abort, Exit, Hang, Alloc };
void set_isolated_child_fault_for_testing(ChildFault fault);

// The parent's own calls into libhdf5 and libmatio (the writers) hold this lock, and so does
// run_isolated while it forks: a child never starts with another thread inside those libraries.
std::mutex& container_library_mutex();

// The pipe's format: NpyArray's fields as they are (shape, doubles bit for bit, strings byte
// for byte). The .npy writers would not do: they write float64 in 0-2 dimensions and strings as
// UTF-32, which would change an array's declared shape or a string's bytes before the checks
// that name them. The decoders refuse anything that does not fit the bytes received.
std::string encode_named_arrays(const NamedArrays& a);
NamedArrays decode_named_arrays(const std::string& bytes);
std::string encode_array_list(const std::vector<ArrayInfo>& list);
std::vector<ArrayInfo> decode_array_list(const std::string& bytes);

}  // namespace rbm
