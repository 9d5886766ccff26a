#include "core/io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <random>

#include "core/numerics/memory_budget.hpp"
#include "core/numerics/types.hpp"

namespace rbm {

namespace {

namespace fs = std::filesystem;

std::string errno_text(int e) { return std::strerror(e); }

std::string random_suffix() {
    std::random_device rd;
    const std::uint64_t x = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(x));
    return buf;
}

// When this process started (the library's static initialisation), for stale temporaries.
const fs::file_time_type kProcessStart = fs::file_time_type::clock::now();

// Removes "<target>.tmp-<16 hex digits>" files left by writers that died (SIGKILL, power loss)
// before renaming them. Only our own name pattern for this very target, only files last modified
// before this process started, and only when no live writer holds them: every writer keeps an
// exclusive flock on its temporary until the rename, and the kernel drops it when the writer
// dies, so a temporary we can lock is an orphan. A live writer's file is left alone.
void remove_stale_temporaries(const fs::path& target) {
    const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    const std::string prefix = target.filename().string() + ".tmp-";
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) return;
    for (; it != fs::directory_iterator(); it.increment(ec)) {
        if (ec) return;
        const std::string name = it->path().filename().string();
        if (name.size() != prefix.size() + 16 || name.compare(0, prefix.size(), prefix) != 0 ||
            name.find_first_not_of("0123456789abcdef", prefix.size()) != std::string::npos)
            continue;
        std::error_code e2;
        if (!it->is_regular_file(e2) || it->is_symlink(e2) || fs::last_write_time(it->path(), e2) >= kProcessStart ||
            e2)
            continue;
        const int fd = ::open(it->path().c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) continue;
        if (::flock(fd, LOCK_EX | LOCK_NB) == 0) ::unlink(it->path().c_str());
        ::close(fd);
    }
}

// The hooks of set_atomic_write_hooks_for_testing; each write copies them once, under the lock.
std::mutex& hooks_mutex() {
    static std::mutex m;
    return m;
}
AtomicWriteHooks& installed_hooks() {
    static AtomicWriteHooks h;
    return h;
}
AtomicWriteHooks current_hooks() {
    std::lock_guard lock(hooks_mutex());
    return installed_hooks();
}

// The bytes that go into the temporary before after_first_chunk is called.
constexpr std::size_t kFirstChunk = std::size_t{1} << 16;

}  // namespace

void set_atomic_write_hooks_for_testing(AtomicWriteHooks hooks) {
    std::lock_guard lock(hooks_mutex());
    installed_hooks() = std::move(hooks);
}

void write_file_atomically(const fs::path& path, const std::string& bytes) {
    const std::string target = path.string();
    std::error_code ec;
    if (fs::is_directory(path, ec)) throw InputError("cannot write '" + target + "': it is a directory");
    remove_stale_temporaries(path);
    const AtomicWriteHooks hooks = current_hooks();
    std::string tmp;
    int fd = -1;
    for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
        tmp = target + ".tmp-" + random_suffix();
        fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) throw InputError("cannot write '" + target + "': " + errno_text(errno));
    (void)::flock(fd, LOCK_EX | LOCK_NB);  // held until close: marks the temporary as alive
    auto discard = [&] {
        if (fd >= 0) ::close(fd);
        fd = -1;
        ::unlink(tmp.c_str());
    };
    auto fail = [&](const std::string& step, int e) {
        discard();
        throw InputError("cannot write '" + target + "': " + step + ": " + errno_text(e) +
                         " (the previous file, if any, is unchanged)");
    };
    // Keep the permissions of the file being replaced.
    struct stat st {};
    if (::stat(target.c_str(), &st) == 0 && S_ISREG(st.st_mode)) (void)::fchmod(fd, st.st_mode & 07777);
    // With an after_first_chunk hook the first 64 KiB go in alone, so the hook sees a temporary
    // that is neither empty nor complete; otherwise everything goes in one write.
    std::size_t done = 0;
    bool first_chunk_pending = static_cast<bool>(hooks.after_first_chunk);
    while (done < bytes.size()) {
        const std::size_t chunk =
            first_chunk_pending ? std::min(bytes.size() - done, kFirstChunk) : bytes.size() - done;
        const ssize_t w = ::write(fd, bytes.data() + done, chunk);
        if (w < 0) {
            if (errno == EINTR) continue;
            fail("writing", errno);
        }
        done += static_cast<std::size_t>(w);
        if (first_chunk_pending && done < bytes.size()) {
            first_chunk_pending = false;
            try {
                hooks.after_first_chunk(tmp);
            } catch (...) {
                discard();
                throw;
            }
        }
    }
    if (::fsync(fd) != 0) fail("flushing to disk", errno);
    const int rc = ::close(fd);
    fd = -1;
    if (rc != 0) fail("closing", errno);
    if (::rename(tmp.c_str(), target.c_str()) != 0) fail("renaming the temporary file over it", errno);
    if (hooks.after_rename) hooks.after_rename(target);
    // Make the rename itself durable.
    const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)::fsync(dfd);
        ::close(dfd);
    }
}

void check_writable(const fs::path& path, const std::string& what) {
    const std::string target = path.string();
    const auto refuse = [&](const std::string& why) {
        throw InputError(what + " '" + target + "': cannot write there: " + why + "; nothing was run");
    };
    if (target.empty()) refuse("the name is empty");
    std::error_code ec;
    if (fs::is_directory(path, ec)) refuse("it is a directory");
    const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    if (!fs::exists(dir, ec)) refuse("the directory '" + dir.string() + "' does not exist");
    if (!fs::is_directory(dir, ec)) refuse("'" + dir.string() + "' is not a directory");
    std::string tmp;
    int fd = -1;
    for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
        tmp = target + ".tmp-" + random_suffix();  // the pattern remove_stale_temporaries knows
        fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) refuse(errno_text(errno));
    ::close(fd);
    ::unlink(tmp.c_str());
}

std::string read_file(const fs::path& path) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) throw InputError("cannot read '" + path.string() + "': it is a directory");
    // A FIFO, socket or device would block or never end: only regular files are read. The
    // check is on the opened descriptor (O_NONBLOCK so opening a FIFO does not wait for a writer).
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw InputError("cannot read '" + path.string() + "': " + errno_text(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        const char* what = S_ISFIFO(st.st_mode)                         ? "a FIFO (named pipe)"
                           : S_ISSOCK(st.st_mode)                       ? "a socket"
                           : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                                        : "not a regular file";
        throw InputError("cannot read '" + path.string() + "': it is " + std::string(what) +
                         ", not a regular file; give the path of a file");
    }
    // The whole file is held in memory: a sparse 8 GB file is refused here, not after it is read.
    try {
        check_memory_budget(static_cast<double>(st.st_size),
                            "reading '" + path.string() + "' (" + std::to_string(st.st_size) + " bytes)");
    } catch (...) {
        ::close(fd);
        throw;
    }
    (void)::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    std::FILE* f = ::fdopen(fd, "rb");
    if (!f) {
        const int e = errno;
        ::close(fd);
        throw InputError("cannot read '" + path.string() + "': " + errno_text(e));
    }
    std::string out;
    char buf[1 << 16];
    std::size_t got = 0;
    while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, got);
    const bool bad = std::ferror(f) != 0;
    const int e = errno;
    std::fclose(f);
    if (bad) throw InputError("cannot read '" + path.string() + "': " + errno_text(e));
    return out;
}

}  // namespace rbm
