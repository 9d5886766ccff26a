#include "test_hooks.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "core/io/atomic_file.hpp"
#include "core/numerics/types.hpp"
#include "mpi/world.hpp"

namespace rbm::cli {

namespace {

constexpr const char* kWritePause = "RBMSCOPE_TEST_WRITE_PAUSE";
constexpr const char* kCheckpointPause = "RBMSCOPE_TEST_PAUSE_AFTER_CHECKPOINT";

// One line on stderr with write(2), unbuffered: the test reads it while this process sleeps.
void announce(const std::string& what) {
    const std::string line = "rbmscope: test write pause: " + what + "\n";
    (void)!::write(STDERR_FILENO, line.data(), line.size());
}

}  // namespace

void install_test_hooks_from_environment() {
    if (const char* seconds = std::getenv(kCheckpointPause); seconds && *seconds) {
        char* end = nullptr;
        const long s = std::strtol(seconds, &end, 10);
        if (*end != '\0' || s < 0 || s > 3600)
            throw InputError(std::string(kCheckpointPause) + "='" + seconds + "': expected whole seconds, 0 to 3600");
        mpi::set_checkpoint_pause_for_testing(static_cast<int>(s));
    }
    const char* value = std::getenv(kWritePause);
    if (!value || !*value) return;
    const std::string text = value;
    const auto colon = text.find(':');
    const std::string moment = text.substr(0, colon);
    char* end = nullptr;
    const long ms = colon == std::string::npos ? -1 : std::strtol(text.c_str() + colon + 1, &end, 10);
    if ((moment != "during-write" && moment != "after-rename") || ms < 0 || *end != '\0' ||
        end == text.c_str() + colon + 1)
        throw InputError(std::string(kWritePause) + "='" + text + "': expected during-write:MS or after-rename:MS");
    const auto pause = [ms](const std::string& what) {
        announce(what);
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    };
    AtomicWriteHooks hooks;
    if (moment == "during-write")
        hooks.after_first_chunk = [pause](const std::string& tmp) { pause("writing " + tmp); };
    else hooks.after_rename = [pause](const std::string& target) { pause("renamed " + target); };
    set_atomic_write_hooks_for_testing(std::move(hooks));
}

}  // namespace rbm::cli
