#pragma once
// Private to core/io: a temporary file beside a target that libraries (libmatio, libhdf5) write
// by path; commit() flushes it and renames it over the target, so a failed write never leaves
// a half-written model. Not committed: removed.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include "core/numerics/types.hpp"

namespace rbm {

class ScratchFile {
public:
    explicit ScratchFile(const std::filesystem::path& target) : target_(target) {
        std::error_code ec;
        if (std::filesystem::is_directory(target, ec)) throw InputError("it is a directory");
        std::random_device rd;
        path_ = target.string() + ".tmp-" + std::to_string((static_cast<unsigned long long>(rd()) << 32) ^ rd());
    }
    ~ScratchFile() {
        if (!committed_) ::unlink(path_.c_str());
    }
    ScratchFile(const ScratchFile&) = delete;
    ScratchFile& operator=(const ScratchFile&) = delete;
    const std::string& path() const { return path_; }
    void commit() {
        const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0 || ::fsync(fd) != 0) {
            const int e = errno;
            if (fd >= 0) ::close(fd);
            throw InputError(std::string("flushing to disk: ") + std::strerror(e) +
                             " (the previous file, if any, is unchanged)");
        }
        ::close(fd);
        if (::rename(path_.c_str(), target_.c_str()) != 0)
            throw InputError(std::string("renaming the temporary file over it: ") + std::strerror(errno) +
                             " (the previous file, if any, is unchanged)");
        committed_ = true;
    }

private:
    std::filesystem::path target_;
    std::string path_;
    bool committed_ = false;
};

}  // namespace rbm
