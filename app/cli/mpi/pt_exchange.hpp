#pragma once
// The PT slots shared by the ranks of the MPI world (docs/user/cli.md): core's PtExchange over
// World. Rank r owns slots [r K / R, (r+1) K / R) of every chain (the numbers are those of one
// process, see PtExchange). Per scan each rank sends its 8 C K_r bytes of potentials, 8 bytes of
// stop flag and a 4-byte count to every other rank; swaps move rungs, never states.
// `bytes_sent()` counts this rank's payload for the JSON's "mpi".
#include <atomic>
#include <cstdint>

#include "core/tempering/pt.hpp"

namespace rbm::cli::mpi {

class WorldPtExchange final : public PtExchange {
public:
    Index parts() const override;
    Index part() const override;
    std::vector<double> all_gather(const std::vector<double>& mine, bool& stop) override;
    std::uint64_t bytes_sent() const { return bytes_; }

private:
    std::uint64_t bytes_ = 0;
};

}  // namespace rbm::cli::mpi
