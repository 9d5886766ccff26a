// A library read in a forked child (see isolated_read.hpp). The core is Linux-only (POSIX fork,
// pipes, /proc/self/statm); there is no exec: the child runs the same reader the parent would.
//
// Why fork without exec is safe here although the GUI and the CLI's jobs are multithreaded: the
// child has only the thread that forked, so it must not need a lock another thread may have held
// at fork time. What it runs is the parse alone, then _exit:
// - malloc: glibc's fork takes and resets its arena locks around the fork (and stdio's list lock);
// - libhdf5 and libmatio: every call the parent makes (the writers) holds
//   container_library_mutex(), which run_isolated holds while it forks, so no thread is inside
//   them; all reading goes through children;
// - oneTBB: the child runs no parallel algorithm (the readers are sequential; its worker threads
//   do not exist in the child); the model is assembled from the arrays in the parent;
// - Qt: nothing in core uses it, the child never returns to an event loop;
// - iostreams (the readers' std::ifstream, std::ostringstream): libstdc++ locks its locale mutex
//   only when std::locale::global has replaced the classic locale, which rbmscope never does;
// - exit: the child ends with _exit, so neither the parent's atexit handlers (libhdf5's
//   H5_term_library, LeakSanitizer's check) nor its unflushed stdio buffers run or are written
//   twice; its stdout is /dev/null and its stderr a pipe the parent reads (kept to the last line).
// A child that still blocks (a lock held by something this list missed, a loop in libhdf5)
// is killed at the time limit: the worst case is a message, not a hang.
//
// Under ASan or TSan the child inherits the sanitizer: a fault inside libhdf5 makes it print a
// report and exit abnormally, and the report's last line (its SUMMARY) goes into the message.
// The death callback is cleared first: libFuzzer sets one that would write a crash artifact for
// the input being fuzzed and end the child as if the fuzzer had failed.
#include "core/io/isolated_read.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>

#include "core/io/model_io.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RBM_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define RBM_SANITIZED 1
#endif
#endif
#ifdef RBM_SANITIZED
#include <sanitizer/common_interface_defs.h>
#endif

namespace rbm {

namespace {

// ------------------------------------------------------------------------- the pipe's format

void put_u64(std::string& out, std::uint64_t v) {
    for (int k = 0; k < 8; ++k) out += static_cast<char>((v >> (8 * k)) & 0xFF);
}
void put_text(std::string& out, const std::string& s) {
    put_u64(out, s.size());
    out += s;
}
void put_shape(std::string& out, const std::vector<std::int64_t>& shape) {
    put_u64(out, shape.size());
    for (auto d : shape) put_u64(out, static_cast<std::uint64_t>(d));
}

class Reader {
public:
    explicit Reader(const std::string& bytes) : b_(bytes) {}
    std::uint64_t u64() {
        need(8);
        std::uint64_t v = 0;
        for (int k = 0; k < 8; ++k) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(b_[at_ + k])) << (8 * k);
        at_ += 8;
        return v;
    }
    // A count of items of at least `item_bytes` each: it must fit in what remains.
    std::size_t count(std::uint64_t item_bytes) {
        const std::uint64_t n = u64();
        if (item_bytes > 0 && n > (b_.size() - at_) / item_bytes) malformed();
        return static_cast<std::size_t>(n);
    }
    std::string text() {
        const std::size_t n = count(1);
        std::string s = b_.substr(at_, n);
        at_ += n;
        return s;
    }
    std::vector<std::int64_t> shape() {
        std::vector<std::int64_t> s(count(8));
        for (auto& d : s) d = static_cast<std::int64_t>(u64());
        return s;
    }
    std::vector<double> doubles() {
        const std::size_t n = count(8);
        std::vector<double> v;
        v.reserve(n);  // not resized: zeroing first would touch every page twice
        for (std::size_t i = 0; i < n; ++i) {
            double x;
            std::memcpy(&x, b_.data() + at_ + 8 * i, 8);  // same machine: the bits as they were
            v.push_back(x);
        }
        at_ += 8 * n;
        return v;
    }
    void end() const {
        if (at_ != b_.size()) malformed();
    }

private:
    void need(std::size_t n) const {
        if (n > b_.size() - at_) malformed();
    }
    [[noreturn]] static void malformed() { throw InputError("the isolated reader's answer is malformed"); }
    const std::string& b_;
    std::size_t at_ = 0;
};

// ------------------------------------------------------------------------- the child

constexpr char kOk = 'o', kError = 'e';

void write_all(int fd, const char* p, std::size_t n) {
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) ::_exit(3);  // the parent went away
        p += w;
        n -= static_cast<std::size_t>(w);
    }
}

// Pages the process maps now (the first field of /proc/self/statm), in bytes; 0 if unknown.
std::uint64_t mapped_bytes() {
    const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buf[128];
    const ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    if (n <= 0) return 0;
    buf[n] = '\0';
    return std::strtoull(buf, nullptr, 10) * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

// The fault of set_isolated_child_fault_for_testing, read by run_isolated before it forks.
std::atomic<ChildFault> g_child_fault{ChildFault::None};

void misbehave(ChildFault how, const IsolatedLimits& limits) {
    if (how == ChildFault::Segv) ::raise(SIGSEGV);
    if (how == ChildFault::Abort) std::abort();
    if (how == ChildFault::Exit) ::_exit(7);
    if (how == ChildFault::Hang)
        for (;;) ::pause();
    if (how == ChildFault::Alloc) {  // more than the memory limit allows
        void* p = ::operator new(static_cast<std::size_t>(limits.memory_bytes + (std::uint64_t(64) << 20)));
        static_cast<volatile char*>(p)[0] = 1;
        ::operator delete(p);
    }
}

[[noreturn]] void child_main(int reply_fd, int err_fd, const std::function<std::string()>& work,
                             const IsolatedLimits& limits, const std::string& library, const std::string& what,
                             ChildFault fault) {
#ifdef RBM_SANITIZED
    __sanitizer_set_death_callback(nullptr);
#endif
    // Ctrl-C reaches the whole process group: the parent decides what it means; the child's
    // work is bounded anyway. A crash must end the child without a handler inherited from the
    // parent or libFuzzer (sanitizers keep theirs for SEGV, BUS and FPE: their report is the
    // message's detail).
    ::signal(SIGINT, SIG_IGN);
    for (int sig : {SIGTERM, SIGHUP, SIGPIPE, SIGABRT, SIGILL, SIGALRM}) ::signal(sig, SIG_DFL);
#ifndef RBM_SANITIZED
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE}) ::signal(sig, SIG_DFL);
#endif
    const int devnull = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (devnull >= 0) ::dup2(devnull, STDOUT_FILENO);
    ::dup2(err_fd, STDERR_FILENO);
    // No core file for a crash that is reported as a message.
    const struct rlimit no_core { 0, 0 };
    ::setrlimit(RLIMIT_CORE, &no_core);
    // The address space may grow by the budget over what the child inherited (its parent's
    // heap, thread stacks, a sanitizer's shadow): an allocation beyond fails in the child.
    if (const std::uint64_t now = mapped_bytes(); now > 0) {
        struct rlimit as;
        if (::getrlimit(RLIMIT_AS, &as) == 0) {
            const rlim_t want = static_cast<rlim_t>(now + limits.memory_bytes);
            if (as.rlim_cur == RLIM_INFINITY || want < as.rlim_cur) {
                as.rlim_cur = want;
                ::setrlimit(RLIMIT_AS, &as);
            }
        }
    }
    char status = kOk;
    std::string payload;
    try {
        if (fault != ChildFault::None) misbehave(fault, limits);
        payload = work();
    } catch (const InputError& e) {
        status = kError;
        payload = e.what();
    } catch (const std::bad_alloc&) {
        status = kError;
        payload = library + " needed more memory than the " + std::to_string(limits.memory_bytes >> 20) +
                  " MB it may use for this file; the file is damaged or not " + what;
    } catch (const std::exception& e) {
        status = kError;
        payload = std::string("reading this file failed: ") + e.what();
    }
    std::string head(1, status);
    put_u64(head, payload.size());
    write_all(reply_fd, head.data(), head.size());
    write_all(reply_fd, payload.data(), payload.size());
    ::_exit(0);
}

// ------------------------------------------------------------------------- the parent

class Fd {
public:
    Fd() = default;
    ~Fd() { reset(); }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    void reset(int fd = -1) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = fd;
    }
    int get() const { return fd_; }

private:
    int fd_ = -1;
};

// The child is killed and reaped on every way out of run_isolated (an exception included).
class ChildGuard {
public:
    explicit ChildGuard(pid_t pid) : pid_(pid) {}
    ~ChildGuard() {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            wait();
        }
    }
    ChildGuard(const ChildGuard&) = delete;
    ChildGuard& operator=(const ChildGuard&) = delete;
    void kill() const { ::kill(pid_, SIGKILL); }
    // The wait status, or -1 if none can be had (SIGCHLD ignored: the kernel reaped it).
    int wait() {
        int status = 0;
        pid_t r;
        do r = ::waitpid(pid_, &status, 0);
        while (r < 0 && errno == EINTR);
        pid_ = -1;
        return r < 0 ? -1 : status;
    }

private:
    pid_t pid_;
};

std::string signal_text(int sig) {
    switch (sig) {
        case SIGSEGV: return "signal 11, segmentation fault";
        case SIGBUS: return "signal 7, bus error";
        case SIGABRT: return "signal 6, abort";
        case SIGFPE: return "signal 8, arithmetic exception";
        case SIGILL: return "signal 4, illegal instruction";
        case SIGKILL: return "signal 9, killed";
        default: return "signal " + std::to_string(sig);
    }
}

// A sanitizer's SUMMARY line from what the child wrote to stderr, else its last non-empty line
// (ASan's own last line is "==pid==ABORTING"), printable characters only, at most 160 of them.
std::string last_line(const std::string& err) {
    std::size_t begin, end;
    if (const std::size_t summary = err.rfind("SUMMARY: "); summary != std::string::npos) {
        begin = summary;
        end = std::min(err.find('\n', summary), err.size());
    } else {
        end = err.size();
        while (end > 0 && (err[end - 1] == '\n' || err[end - 1] == '\r' || err[end - 1] == ' ')) --end;
        const std::size_t nl = end == 0 ? std::string::npos : err.find_last_of('\n', end - 1);
        begin = nl == std::string::npos ? 0 : nl + 1;
    }
    std::string out;
    for (std::size_t i = begin; i < end && out.size() < 160; ++i) {
        const unsigned char ch = static_cast<unsigned char>(err[i]);
        out += ch >= 32 && ch < 127 ? static_cast<char>(ch) : '?';
    }
    return out;
}

int seconds_from_environment(int fallback) {
    const char* s = std::getenv("RBMSCOPE_HDF5_SECONDS");
    if (!s || !*s) return fallback;
    char* end = nullptr;
    const long v = std::strtol(s, &end, 10);
    return (*end == '\0' && v > 0 && v < 1000000) ? static_cast<int>(v) : fallback;
}

}  // namespace

void set_isolated_child_fault_for_testing(ChildFault fault) { g_child_fault.store(fault); }

std::mutex& container_library_mutex() {
    static std::mutex m;
    return m;
}

// Memory: 512 MB, plus 64 bytes per byte of file (an uncompressed model's arrays are about the
// file's size; the reader holds them as doubles, and the reply copies them once). Time: 60 s
// plus 1 s per 10 MB. Measured on the 2-core development VM at load average 8: a 134 MB .h5
// (4096 x 4096 doubles) takes 10 s through the child (limit 73 s); at that rate the largest file
// the size checks let through, about 2 GB (2^28 doubles), would take about 160 s (limit 274 s).
// RBMSCOPE_HDF5_SECONDS replaces the time limit. Reply: the child builds its answer in memory
// before sending it, so a legitimate one is smaller than the memory it may use.
IsolatedLimits isolated_limits_for(std::uintmax_t file_bytes) {
    IsolatedLimits l;
    const double s = static_cast<double>(file_bytes);
    l.memory_bytes = (std::uint64_t(512) << 20) + 64 * static_cast<std::uint64_t>(file_bytes);
    l.seconds = seconds_from_environment(60 + static_cast<int>(std::min(s / 1e7, 1e5)));
    l.reply_bytes = l.memory_bytes;
    return l;
}

std::string run_isolated(const std::function<std::string()>& work, const IsolatedLimits& limits,
                         const std::string& library, const std::string& what) {
    const ChildFault fault = g_child_fault.load();
    Fd reply, err;
    pid_t pid;
    {
        std::lock_guard lock(container_library_mutex());
        // Created and forked under the lock, closed in the parent before it is released: another
        // isolated read's child never inherits this child's write ends (which would delay the
        // end of file the parent waits for). O_CLOEXEC keeps them out of programs the GUI runs.
        int r[2], e[2];
        if (::pipe2(r, O_CLOEXEC) != 0) throw InputError(std::string("cannot create a pipe: ") + std::strerror(errno));
        if (::pipe2(e, O_CLOEXEC) != 0) {
            const int saved = errno;
            ::close(r[0]);
            ::close(r[1]);
            throw InputError(std::string("cannot create a pipe: ") + std::strerror(saved));
        }
        pid = ::fork();
        if (pid == 0) {
            ::close(r[0]);
            ::close(e[0]);
            child_main(r[1], e[1], work, limits, library, what, fault);
        }
        const int saved = errno;
        ::close(r[1]);
        ::close(e[1]);
        reply.reset(r[0]);
        err.reset(e[0]);
        if (pid < 0) throw InputError(std::string("cannot start the reader process: ") + std::strerror(saved));
    }
    ChildGuard child(pid);

    std::string head, answer, err_tail;  // the answer's 9-byte head (status, length), its payload
    bool reply_open = true, err_open = true, timed_out = false, too_big = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limits.seconds);
    char buf[1 << 16];
    while ((reply_open || err_open) && !too_big) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            timed_out = true;
            break;
        }
        pollfd fds[2] = {{reply_open ? reply.get() : -1, POLLIN, 0}, {err_open ? err.get() : -1, POLLIN, 0}};
        const int n = ::poll(fds, 2, static_cast<int>(std::min<long long>(left.count(), 1000)));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw InputError(std::string("cannot watch the reader process: ") + std::strerror(errno));
        for (int k = 0; k < 2; ++k) {
            if (fds[k].fd < 0 || fds[k].revents == 0) continue;
            const ssize_t got = ::read(fds[k].fd, buf, sizeof buf);
            if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            if (got <= 0) {
                (k == 0 ? reply_open : err_open) = false;
                continue;
            }
            if (k == 0) {
                std::size_t used = 0;
                if (head.size() < 9) {
                    used = std::min<std::size_t>(9 - head.size(), static_cast<std::size_t>(got));
                    head.append(buf, used);
                    // Once the length is known, one allocation for the whole payload (within the cap).
                    if (head.size() == 9) {
                        std::uint64_t length = 0;
                        for (int b = 0; b < 8; ++b)
                            length |= static_cast<std::uint64_t>(static_cast<unsigned char>(head[1 + b])) << (8 * b);
                        if (length <= limits.reply_bytes) answer.reserve(static_cast<std::size_t>(length));
                    }
                }
                answer.append(buf + used, static_cast<std::size_t>(got) - used);
                too_big = answer.size() > limits.reply_bytes;
            } else {
                err_tail.append(buf, static_cast<std::size_t>(got));
                if (err_tail.size() > 8192) err_tail.erase(0, err_tail.size() - 4096);
            }
        }
    }
    if (timed_out || too_big) child.kill();
    const int status = child.wait();

    const std::string damaged = "; the file is damaged or not " + what;
    if (timed_out)
        throw InputError(library + " did not finish reading this file in " + std::to_string(limits.seconds) +
                         " s and was stopped" + damaged + " (RBMSCOPE_HDF5_SECONDS sets the limit)");
    if (too_big)
        throw InputError(library + " sent more than " + std::to_string(limits.reply_bytes) + " bytes for this file" +
                         damaged);
    const std::string detail = last_line(err_tail);
    const std::string tail = detail.empty() ? "" : ": " + detail;
    if (status != -1 && WIFSIGNALED(status))
        throw InputError(library + " crashed reading this file (" + signal_text(WTERMSIG(status)) + tail + ")" +
                         damaged);
    if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) != 0)
        throw InputError(library + " crashed reading this file (exit status " + std::to_string(WEXITSTATUS(status)) +
                         tail + ")" + damaged);
    // A complete answer: a status byte, a length, then exactly that many bytes.
    std::uint64_t length = 0;
    if (head.size() == 9)
        for (int k = 0; k < 8; ++k)
            length |= static_cast<std::uint64_t>(static_cast<unsigned char>(head[1 + k])) << (8 * k);
    if (head.size() < 9 || (head[0] != kOk && head[0] != kError) || length != answer.size())
        throw InputError(library + " crashed reading this file (it stopped before its answer was complete" + tail +
                         ")" + damaged);
    if (head[0] == kError) throw InputError(answer);
    return answer;
}

std::string encode_named_arrays(const NamedArrays& a) {
    std::size_t size = 24 + a.format.size();  // reserved once: page faults are most of the cost
    for (const auto& [key, arr] : a.arrays) {
        size += 40 + key.size() + 8 * arr.shape.size() + 8 * arr.data.size();
        for (const auto& s : arr.strings) size += 8 + s.size();
    }
    std::string out;
    out.reserve(size);
    put_text(out, a.format);
    put_u64(out, a.matlab_shapes ? 1 : 0);
    put_u64(out, a.arrays.size());
    for (const auto& [key, arr] : a.arrays) {
        put_text(out, key);
        put_u64(out, arr.is_string ? 1 : 0);
        put_shape(out, arr.shape);
        put_u64(out, arr.data.size());
        const std::size_t at = out.size();
        out.resize(at + 8 * arr.data.size());
        if (!arr.data.empty()) std::memcpy(out.data() + at, arr.data.data(), 8 * arr.data.size());
        put_u64(out, arr.strings.size());
        for (const auto& s : arr.strings) put_text(out, s);
    }
    return out;
}

NamedArrays decode_named_arrays(const std::string& bytes) {
    Reader r(bytes);
    NamedArrays a;
    a.format = r.text();
    a.matlab_shapes = r.u64() != 0;
    const std::size_t n = r.count(8 * 5);
    for (std::size_t i = 0; i < n; ++i) {
        const std::string key = r.text();
        NpyArray arr;
        arr.is_string = r.u64() != 0;
        arr.shape = r.shape();
        arr.data = r.doubles();
        arr.strings.resize(r.count(8));
        for (auto& s : arr.strings) s = r.text();
        a.arrays[key] = std::move(arr);
    }
    r.end();
    return a;
}

std::string encode_array_list(const std::vector<ArrayInfo>& list) {
    std::string out;
    put_u64(out, list.size());
    for (const auto& info : list) {
        put_text(out, info.name);
        put_shape(out, info.shape);
        put_text(out, info.type);
    }
    return out;
}

std::vector<ArrayInfo> decode_array_list(const std::string& bytes) {
    Reader r(bytes);
    std::vector<ArrayInfo> out(r.count(8 * 3));
    for (auto& info : out) {
        info.name = r.text();
        info.shape = r.shape();
        info.type = r.text();
    }
    r.end();
    return out;
}

}  // namespace rbm
