#pragma once
// The MPI world the CLI runs in: this process's rank, the number of ranks and the few
// collectives the distributed commands need, over the plain MPI C API. Built without MPI
// (-DRBMSCOPE_MPI=OFF), or started without a launcher, it is one rank and every collective is
// the identity, so the commands have a single code path.
//
// MPI is initialised only when a launcher started the process (mpirun/mpiexec set
// OMPI_COMM_WORLD_SIZE or PMIX_RANK, MPICH and srun set PMI_RANK/PMI_SIZE) or RBMSCOPE_MPI=1:
// a singleton MPI_Init costs Open MPI ~1.3 s here, which every plain CLI call would pay.
//
// Failures without hangs: ranks keep in step through agree(), the first collective of every
// distributed piece of work and the last call before exit. A rank that fails between such pieces
// calls agree() with its exit code from main's handler, so the others learn it at their next
// agree() and stop (PeerFailed) instead of waiting for it in a collective. A rank that fails
// inside a piece of work (between agree() and the gather that ends it) cannot be waited for and
// aborts the job (MPI_Abort); a rank that dies (killed, crashed) is noticed by mpirun, which ends
// the job (Open MPI: "mpirun noticed that process rank R ... exited on signal 9").
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace rbm::cli::mpi {

// Thrown on the ranks that did not fail when agree() learns that another rank did; main exits
// with `code` without a message (the failing rank printed it).
struct PeerFailed : std::runtime_error {
    int code;
    explicit PeerFailed(int c) : std::runtime_error("another rank failed"), code(c) {}
};

class World {
public:
    static World& instance();

    // From main, before the command: MPI_Init when launched as above (no-op otherwise). Ranks
    // other than 0 get stdout redirected to /dev/null, so only rank 0 prints results.
    void init(int* argc, char*** argv);
    void finalize();

    int rank() const { return rank_; }
    int size() const { return size_; }
    bool root() const { return rank_ == 0; }
    bool distributed() const { return size_ > 1; }

    // True between agree() and the end of the piece of work it started (see above).
    bool in_work() const { return in_work_; }
    void end_work() { in_work_ = false; }

    // Collective: every rank passes its status (0 = fine); returns every rank's status, by rank.
    // With `start_work`, begins a piece of work (in_work() true) when all statuses are 0, and
    // throws PeerFailed with the first nonzero status otherwise.
    std::vector<int> agree(int status, bool start_work = false);

    // Collective: the ranks' `count` doubles concatenated in rank order, on rank 0 (others get an
    // empty vector); `counts` receives every rank's count on rank 0.
    std::vector<double> gather(const double* data, std::size_t count, std::vector<std::size_t>* counts = nullptr);

    // Collective: every rank's `count` doubles concatenated in rank order, on every rank;
    // `counts` receives every rank's count.
    std::vector<double> all_gather(const double* data, std::size_t count, std::vector<std::size_t>* counts = nullptr);

    // Ends every rank of the job with `code` (MPI_Abort); exits when MPI is not running.
    [[noreturn]] void abort(int code);

    // Payload bytes this rank has handed to MPI (sent to other ranks or to itself at the root);
    // printed on stderr at finalize when RBMSCOPE_MPI_STATS=1.
    std::uint64_t bytes_sent() const { return bytes_sent_; }

private:
    World() = default;
    int rank_ = 0, size_ = 1;
    bool initialized_ = false, in_work_ = false;
    std::uint64_t bytes_sent_ = 0;
};

inline World& world() { return World::instance(); }

// Test hook (the rank-kill test of tests/cli/test_cli_mpi.cpp): after
// set_checkpoint_pause_for_testing(S) with S > 0 (test_hooks.cpp, from
// RBMSCOPE_TEST_PAUSE_AFTER_CHECKPOINT), rank 0 sleeps S seconds after writing a checkpoint, so a
// test can kill a rank while the run is known to be in progress. Otherwise it returns at once.
void set_checkpoint_pause_for_testing(int seconds);
void test_pause_after_checkpoint();

}  // namespace rbm::cli::mpi
