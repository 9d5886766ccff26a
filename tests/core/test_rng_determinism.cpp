// Random streams: Philox is the published generator, draws have the right distribution, and
// every kernel gives bitwise the same chains at 1 and 2 threads and whatever the chain count.
#include <cmath>

#include "check.hpp"
#include "core/kernels/gibbs.hpp"
#include "core/numerics/parallel.hpp"
#include "core/random/rng.hpp"
#include "philox_kats.hpp"
#include "test_random_models.hpp"
#include "test_support.hpp"

using namespace rbm;

TEST_CASE("Philox4x32-10 reproduces Random123's known-answer vectors") {
    using P = r123::Philox4x32;
    for (const auto& k : rbm::test::kPhiloxKats) {
        P::ctr_type c;
        P::key_type key;
        for (int i = 0; i < 4; ++i) c.v[i] = k.ctr[i];
        key.v[0] = k.key[0];
        key.v[1] = k.key[1];
        const auto out = P()(c, key);
        for (int i = 0; i < 4; ++i) CHECK(out.v[i] == k.out[i]);
    }
}

TEST_CASE("uniform and normal draws have the right moments (within 5 standard errors)") {
    Rng rng(42, 7);
    const int N = 400000;
    double su = 0, su2 = 0, sn = 0, sn2 = 0, sn4 = 0, umin = 1, umax = 0;
    for (int i = 0; i < N; ++i) {
        const double u = rng.uniform();
        umin = std::min(umin, u);
        umax = std::max(umax, u);
        su += u;
        su2 += u * u;
        const double z = rng.normal();
        sn += z;
        sn2 += z * z;
        sn4 += z * z * z * z;
    }
    CHECK(umin > 0 && umax < 1);
    CHECK_NEAR(su / N, 0.5, 5 * std::sqrt(1.0 / 12 / N));
    CHECK_NEAR(su2 / N, 1.0 / 3, 5 * std::sqrt(4.0 / 45 / N));
    CHECK_NEAR(sn / N, 0.0, 5 * std::sqrt(1.0 / N));
    CHECK_NEAR(sn2 / N, 1.0, 5 * std::sqrt(2.0 / N));
    CHECK_NEAR(sn4 / N, 3.0, 5 * std::sqrt(96.0 / N));
}

TEST_CASE("streams differ by seed and by stream index, and repeat exactly") {
    Rng a(1, 0), b(1, 1), c(2, 0), a2(1, 0);
    int same_ab = 0, same_ac = 0;
    for (int i = 0; i < 100; ++i) {
        const auto x = a.next_u32(), y = b.next_u32(), z = c.next_u32(), x2 = a2.next_u32();
        same_ab += x == y;
        same_ac += x == z;
        CHECK(x == x2);
    }
    CHECK(same_ab < 3 && same_ac < 3);
}

namespace {

template <class Run>
void check_thread_invariance(Run run) {
    RowMat one, two, four;
    {
        ThreadLimit t(1);
        one = run();
    }
    {
        ThreadLimit t(2);
        two = run();
    }
    {
        ThreadLimit t(4);
        four = run();
    }
    CHECK(one.rows() > kChainBlock);  // more than one block, so threads really split the work
    CHECK(one == two);
    CHECK(one == four);
}

Model wrap(auto m) { return test::as_model(std::move(m)); }

}  // namespace

TEST_CASE("Gibbs chains are bitwise identical at 1, 2 and 4 threads, for every model kind") {
    const Grbm g = test::random_grbm(3, 5, 4, {-1, 0, 1});
    const Brbm b = test::random_brbm(4, 6, 5);
    const Leaky l = test::random_leaky(5, 4, 3, 0.1);
    Gaussian ga;
    ga.mean = Vec::Ones(3);
    ga.cov = Mat::Identity(3, 3) * 2;
    ga.cov(0, 1) = ga.cov(1, 0) = 0.5;
    for (const Model& m : {wrap(g), wrap(b), wrap(l), wrap(ga)}) {
        check_thread_invariance([&] {
            ChainRngs rngs(99, 300);
            RowMat V = initial_states(m, 300, rngs);
            for (int t = 0; t < 20; ++t) gibbs_sweep(m, V, rngs);
            return V;
        });
    }
    // Tempered sweeps and the paper's leaky kernel too.
    DiagGaussianBase base{Vec::Zero(5), Vec::Constant(5, 2.0)};
    check_thread_invariance([&] {
        ChainRngs rngs(5, 200);
        RowMat V = RowMat::Zero(200, 5);
        for (int t = 0; t < 10; ++t) gibbs_sweep(g, V, rngs, 0.4, &base);
        return V;
    });
    check_thread_invariance([&] {
        ChainRngs rngs(6, 200);
        RowMat V = RowMat::Zero(200, 4);
        for (int t = 0; t < 10; ++t) leaky_sweep(l, V, rngs, LeakyKernel::PaperGibbs, 0.7, 0.3);
        return V;
    });
}

TEST_CASE("a chain's trajectory does not depend on how many other chains run") {
    const Brbm b = test::random_brbm(8, 6, 5);
    auto run = [&](Index chains) {
        ChainRngs rngs(123, chains);
        RowMat V = RowMat::Zero(chains, 6);
        for (int t = 0; t < 15; ++t) gibbs_sweep(b, V, rngs);
        return V;
    };
    const RowMat small = run(10), big = run(500);
    CHECK(small == big.topRows(10));
}

RBM_TEST_MAIN
