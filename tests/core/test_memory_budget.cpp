// The memory budget's pieces the front ends use (core/numerics/memory_budget.hpp): --max-memory
// sizes, the advice a refusal ends with, the machine default's clamp, the per-thread cap the app
// puts on what it loads unasked, and the working sets of AIS, PT and training checked before
// anything is allocated.
#include <thread>

#include "check.hpp"
#include "core/ais/runner.hpp"
#include "core/data/datasets.hpp"
#include "core/io/presets.hpp"
#include "core/numerics/memory_budget.hpp"
#include "core/tempering/pt.hpp"
#include "core/training/training.hpp"

using namespace rbm;

namespace {
constexpr std::uint64_t kMiB = std::uint64_t(1) << 20, kGiB = std::uint64_t(1) << 30;
}

TEST_CASE("--max-memory sizes: units K, M, G, T with or without B / iB, fractions, bytes; nonsense is 0") {
    CHECK(parse_memory_size("2G") == 2 * kGiB);
    CHECK(parse_memory_size("2g") == 2 * kGiB);
    CHECK(parse_memory_size("2GiB") == 2 * kGiB);
    CHECK(parse_memory_size("2GB") == 2 * kGiB);
    CHECK(parse_memory_size("512M") == 512 * kMiB);
    CHECK(parse_memory_size("1.5G") == 3 * kGiB / 2);
    CHECK(parse_memory_size("1T") == 1024 * kGiB);
    CHECK(parse_memory_size("2097152") == 2 * kMiB);
    CHECK(parse_memory_size("1024K") == kMiB);
    for (const char* bad : {"", "G", "12x", "-1G", "0", "100", "1023K", "nan", "inf", "1e30G", "2 G", "2GG"})
        CHECK_MSG(parse_memory_size(bad) == 0, bad);
}

TEST_CASE("a refusal names the option and a size that allows it, once a front end names its option") {
    CHECK_THROWS_WITH(check_memory_budget(3.0 * kGiB, "it"), InputError, "more than the memory budget (1.0 GiB)");
    set_memory_budget_option("--max-memory");
    CHECK_THROWS_WITH(check_memory_budget(2.7 * kGiB, "it"), InputError,
                      "it needs 2.7 GiB, more than the memory budget (1.0 GiB); --max-memory 3G allows it");
    CHECK(memory_budget_advice(1.5 * kMiB) == "; --max-memory 2M allows it");
    CHECK(memory_budget_advice() == "; --max-memory SIZE raises it");
    set_memory_budget_option("");
    CHECK(memory_budget_advice(1.5 * kMiB).empty());
}

TEST_CASE("the machine default is a quarter of physical memory, from 1 GiB to 2 GiB") {
    const std::uint64_t d = default_memory_budget_for_machine();
    CHECK(d >= kGiB && d <= 2 * kGiB);
}

TEST_CASE("ScopedMemoryCap lowers the budget on its own thread only, and restores it") {
    CHECK(memory_budget() == kDefaultMemoryBudget);
    {
        const ScopedMemoryCap cap(kMiB);
        CHECK(memory_budget() == kMiB);
        CHECK_THROWS_WITH(load_dataset("bars:3:20000:1"), InputError, "more than the memory budget (1.0 MiB)");
        std::uint64_t other = 0;
        std::thread([&] { other = memory_budget(); }).join();
        CHECK(other == kDefaultMemoryBudget);
        {
            const ScopedMemoryCap looser(kGiB);  // a cap never raises the budget
            CHECK(memory_budget() == kMiB);
        }
    }
    CHECK(memory_budget() == kDefaultMemoryBudget);
    CHECK(load_dataset("bars:3:20000:1").size() == 20000);
}

TEST_CASE("runs are refused from their sizes before anything is allocated") {
    // AIS: 10^8 chains of 2 values, 8 (2 + 6) + sizeof(Rng) bytes each.
    CHECK(ais_run_bytes(100000000, 2) == 1e8 * (64.0 + sizeof(Rng)));
    CHECK_THROWS_WITH(check_ais_memory(100000000, 2), InputError, "AIS with 100000000 chains of 2 values needs");
    check_ais_memory(1000, 2);
    // PT: 10^6 chains x 100 rungs of four-mode's 2 + 2 units.
    PtOptions o;
    o.chains = 1000000;
    o.scans = 10;
    o.betas = geometric_ladder(100, 0.9);
    CHECK_THROWS_WITH(run_pt(load_preset("four-mode"), o), InputError,
                      "parallel tempering with 1000000 chains x 100 rungs of 2 + 2 units");
    // Training: 100 000 hidden units and chains on 9 visible ones.
    TrainOptions t;
    t.hidden = 100000;
    t.chains = 100000;
    t.batch = 2;
    t.updates = 1;
    CHECK_THROWS_WITH(validate(t, load_dataset("bars:2")), InputError,
                      "training 4 x 100000 units with 100000 chains needs");
}

RBM_TEST_MAIN
