#include "pt_exchange.hpp"

#include "world.hpp"

namespace rbm::cli::mpi {

Index WorldPtExchange::parts() const { return world().size(); }
Index WorldPtExchange::part() const { return world().rank(); }

// The stop request travels as one more value after this rank's potentials (1 = stop).
std::vector<double> WorldPtExchange::all_gather(const std::vector<double>& mine, bool& stop) {
    std::vector<double> send(mine);
    send.push_back(stop ? 1.0 : 0.0);
    const std::uint64_t before = world().bytes_sent();
    std::vector<std::size_t> counts;
    const std::vector<double> all = world().all_gather(send.data(), send.size(), &counts);
    bytes_ += world().bytes_sent() - before;
    std::vector<double> out;
    out.reserve(all.size());
    std::size_t at = 0;
    stop = false;
    for (std::size_t len : counts) {  // each rank's potentials, then its flag
        out.insert(out.end(), all.begin() + static_cast<std::ptrdiff_t>(at),
                   all.begin() + static_cast<std::ptrdiff_t>(at + len - 1));
        stop = stop || all[at + len - 1] != 0.0;
        at += len;
    }
    return out;
}

}  // namespace rbm::cli::mpi
