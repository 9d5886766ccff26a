#pragma once
// The PT rungs shared by the ranks of the MPI world (issue #17, SPEC §9): core's PtExchange over
// World. Rank r owns rungs [r K / R, (r+1) K / R) of every chain (the numbers are those of one
// process, see PtExchange). Per scan each rank sends its 8 C K_r bytes of potentials (plus a
// 4-byte count) to every other rank, and each accepted swap across a rank boundary moves two
// states of 8 (n + m) bytes. `bytes_sent()` counts this rank's payload for the JSON's "mpi".
#include <atomic>
#include <cstdint>

#include "core/tempering/pt.hpp"

namespace rbm::cli::mpi {

class WorldPtExchange final : public PtExchange {
public:
    Index parts() const override;
    Index part() const override;
    std::vector<double> all_gather(const std::vector<double>& mine, bool& stop) override;
    void exchange(Index peer, std::vector<double>& buffer) override;
    std::uint64_t bytes_sent() const { return bytes_; }
    std::uint64_t potential_bytes() const { return potential_bytes_; }

private:
    std::uint64_t bytes_ = 0, potential_bytes_ = 0;
};

}  // namespace rbm::cli::mpi
