#include "world.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <thread>

#ifdef RBMSCOPE_HAVE_MPI
// The C API only: Open MPI's and MPICH's mpi.h would otherwise pull in the deprecated C++ bindings.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace rbm::cli::mpi {

namespace {

#ifdef RBMSCOPE_HAVE_MPI
bool launched_by_mpi() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
        if (std::getenv(v)) return true;
    const char* force = std::getenv("RBMSCOPE_MPI");
    return force && std::string(force) == "1";
}

int to_int_count(std::size_t n) {
    if (n > static_cast<std::size_t>(std::numeric_limits<int>::max()))
        throw std::runtime_error("MPI message of " + std::to_string(n) + " values is more than one call can send");
    return static_cast<int>(n);
}
#endif

}  // namespace

World& World::instance() {
    static World w;
    return w;
}

void World::init([[maybe_unused]] int* argc, [[maybe_unused]] char*** argv) {
#ifndef RBMSCOPE_HAVE_MPI
    // Without MPI every process of `mpirun -np N` would run the whole command and print it.
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
        if (const char* n = std::getenv(v); n && std::atoi(n) > 1) {
            std::fprintf(stderr,
                         "rbmscope-cli: built without MPI (-DRBMSCOPE_MPI=OFF), so it cannot share a run "
                         "between the %s processes mpirun started; rebuild with MPI or run it without mpirun\n",
                         n);
            std::exit(2);
        }
#else
    if (initialized_ || !launched_by_mpi()) return;
    MPI_Init(argc, argv);
    initialized_ = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    if (rank_ != 0) std::freopen("/dev/null", "w", stdout);
#endif
}

void World::finalize() {
#ifdef RBMSCOPE_HAVE_MPI
    if (!initialized_) return;
    std::fflush(stdout);
    if (const char* stats = std::getenv("RBMSCOPE_MPI_STATS"); stats && std::string(stats) == "1")
        std::fprintf(stderr, "rbmscope-cli: rank %d of %d sent %llu bytes\n", rank_, size_,
                     static_cast<unsigned long long>(bytes_sent_));
    MPI_Finalize();
    initialized_ = false;
#endif
}

std::vector<int> World::agree(int status, bool start_work) {
    std::vector<int> all(static_cast<std::size_t>(size_), status);
#ifdef RBMSCOPE_HAVE_MPI
    if (initialized_ && size_ > 1) {
        MPI_Allgather(&status, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD);
        bytes_sent_ += sizeof(int) * static_cast<std::uint64_t>(size_ - 1);
    }
#endif
    if (start_work) {
        for (int s : all)
            if (s != 0) throw PeerFailed(s);
        in_work_ = size_ > 1;
    }
    return all;
}

std::vector<double> World::gather(const double* data, std::size_t count, std::vector<std::size_t>* counts) {
#ifdef RBMSCOPE_HAVE_MPI
    if (initialized_ && size_ > 1) {
        const int n = to_int_count(count);
        std::vector<int> ns(static_cast<std::size_t>(size_)), displs(static_cast<std::size_t>(size_));
        MPI_Gather(&n, 1, MPI_INT, ns.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
        std::vector<double> out;
        if (rank_ == 0) {
            std::size_t total = 0;
            for (int r = 0; r < size_; ++r) {
                displs[static_cast<std::size_t>(r)] = to_int_count(total);
                total += static_cast<std::size_t>(ns[static_cast<std::size_t>(r)]);
            }
            to_int_count(total);
            out.resize(total);
            if (counts) counts->assign(ns.begin(), ns.end());
        }
        MPI_Gatherv(data, n, MPI_DOUBLE, out.data(), ns.data(), displs.data(), MPI_DOUBLE, 0, MPI_COMM_WORLD);
        bytes_sent_ += sizeof(int) + sizeof(double) * static_cast<std::uint64_t>(count);
        return out;
    }
#endif
    if (counts) counts->assign(1, count);
    return std::vector<double>(data, data + count);
}

std::vector<double> World::all_gather(const double* data, std::size_t count, std::vector<std::size_t>* counts) {
#ifdef RBMSCOPE_HAVE_MPI
    if (initialized_ && size_ > 1) {
        const int n = to_int_count(count);
        std::vector<int> ns(static_cast<std::size_t>(size_)), displs(static_cast<std::size_t>(size_));
        MPI_Allgather(&n, 1, MPI_INT, ns.data(), 1, MPI_INT, MPI_COMM_WORLD);
        std::size_t total = 0;
        for (int r = 0; r < size_; ++r) {
            displs[static_cast<std::size_t>(r)] = to_int_count(total);
            total += static_cast<std::size_t>(ns[static_cast<std::size_t>(r)]);
        }
        to_int_count(total);
        std::vector<double> out(total);
        if (counts) counts->assign(ns.begin(), ns.end());
        MPI_Allgatherv(data, n, MPI_DOUBLE, out.data(), ns.data(), displs.data(), MPI_DOUBLE, MPI_COMM_WORLD);
        bytes_sent_ +=
            (sizeof(int) + sizeof(double) * static_cast<std::uint64_t>(count)) * static_cast<std::uint64_t>(size_ - 1);
        return out;
    }
#endif
    if (counts) counts->assign(1, count);
    return std::vector<double>(data, data + count);
}

void World::abort(int code) {
#ifdef RBMSCOPE_HAVE_MPI
    if (initialized_) {
        std::fflush(stdout);
        std::fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, code);
    }
#endif
    std::exit(code);
}

namespace {
int checkpoint_pause_seconds = 0;
}  // namespace

void set_checkpoint_pause_for_testing(int seconds) { checkpoint_pause_seconds = seconds; }

void test_pause_after_checkpoint() {
    if (checkpoint_pause_seconds <= 0 || !world().root()) return;
    std::this_thread::sleep_for(std::chrono::seconds(checkpoint_pause_seconds));
}

}  // namespace rbm::cli::mpi
