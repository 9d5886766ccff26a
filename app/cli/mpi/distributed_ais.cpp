#include "distributed_ais.hpp"

#include <chrono>
#include <stdexcept>
#include <string>

#include "world.hpp"

namespace rbm::cli::mpi {

AisResult run_ais_on_world(const AnnealingPath& path, const Schedule& schedule, const AisOptions& options,
                           const AisControl& control) {
    World& w = world();
    if (!w.distributed()) return run_ais(path, schedule, options, control);
    const auto t0 = std::chrono::steady_clock::now();
    const Index ranks = w.size(), n = options.chains;
    const Index block = options.block > 0 ? options.block : ais_block_size(path.dim());
    const Index blocks = (n + block - 1) / block;
    if (ranks > n)
        throw InputError("mpirun -np " + std::to_string(ranks) + ": more ranks than the " + std::to_string(n) +
                         " AIS chains; use at most " + std::to_string(blocks) + " ranks or more --chains");
    if (ranks > blocks)
        throw InputError(
            "mpirun -np " + std::to_string(ranks) + ": " + std::to_string(n) + " chains make " +
            std::to_string(blocks) + " block(s) of " + std::to_string(block) +
            " (ranks share whole blocks, so that every chain's numbers are those of one process); use at most " +
            std::to_string(blocks) + " ranks or at least " + std::to_string((ranks - 1) * block + 1) + " chains");
    w.agree(0, /*start_work=*/true);

    const Index r = w.rank();
    AisOptions share = options;
    share.chain_begin = std::min(n, r * blocks / ranks * block);
    share.chain_end = std::min(n, (r + 1) * blocks / ranks * block);
    AisControl ctl = control;
    if (!w.root()) ctl.on_progress = nullptr;
    // SIGINT reaches the ranks at different moments: they stop after the same step (one 4-byte
    // status per rank and step), so the gathered weights below are of one common step.
    ctl.agree_stop = [&w](bool stop) {
        for (int s : w.agree(stop ? 1 : 0))
            if (s != 0) return true;
        return false;
    };
    AisResult res = run_ais(path, schedule, share, ctl);

    // One message: [final forward | running points | reverse], each this rank's chains in order.
    const Index local = share.chain_end - share.chain_begin;
    std::vector<const Vec*> parts{&res.log_weights};
    for (const Vec& v : res.running_log_weights) parts.push_back(&v);
    if (res.reverse) parts.push_back(&res.reverse->log_weights);
    // Every rank must send the same vectors (agree_stop makes cancelled ranks stop together).
    for (int shape : w.agree(static_cast<int>(parts.size()) * 2 + (res.complete ? 1 : 0)))
        if (shape != static_cast<int>(parts.size()) * 2 + (res.complete ? 1 : 0))
            throw std::runtime_error(
                "the ranks stopped at different steps; a distributed run needs them to stop together");
    std::vector<double> buf;
    buf.reserve(static_cast<std::size_t>(local) * parts.size());
    for (const Vec* v : parts) buf.insert(buf.end(), v->data(), v->data() + v->size());
    std::vector<std::size_t> counts;
    const std::vector<double> all = w.gather(buf.data(), buf.size(), &counts);
    w.end_work();
    if (!w.root()) return res;

    // Rank q's segment holds parts.size() vectors of counts[q] / parts.size() chains each.
    const std::size_t m = parts.size();
    std::vector<Vec> full(m, Vec(n));
    std::size_t at = 0;
    Index chain = 0;
    for (std::size_t c : counts) {
        const auto nq = static_cast<Index>(c / m);
        for (std::size_t p = 0; p < m; ++p, at += static_cast<std::size_t>(nq))
            full[p].segment(chain, nq) = Eigen::Map<const Vec>(all.data() + at, nq);
        chain += nq;
    }
    res.log_weights = std::move(full[0]);
    for (std::size_t i = 0; i < res.running_log_weights.size(); ++i)
        res.running_log_weights[i] = std::move(full[1 + i]);
    if (res.reverse) res.reverse->log_weights = std::move(full[m - 1]);
    summarize_ais(res, options);
    res.running_log_weights.clear();
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double sweeps =
        static_cast<double>(n) * static_cast<double>(res.steps_done + (res.reverse ? res.reverse->steps_done : 0));
    res.chain_sweeps_per_s = res.seconds > 0 ? sweeps / res.seconds : 0.0;
    return res;
}

}  // namespace rbm::cli::mpi
