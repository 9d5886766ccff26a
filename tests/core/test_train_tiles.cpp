// Gradient tiles: the mean score is the tile sums added in tile order, it matches a
// per-row reference, any split of the tiles between processes gives it bitwise, and a Trainer
// whose updates are shared between parts (threads standing in for MPI ranks) trains bitwise the
// model of one process, cancels after the same update on every part and checkpoints the file of
// one process.
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "check.hpp"
#include "core/data/datasets.hpp"
#include "core/tempering/pt.hpp"
#include "core/training/training.hpp"

using namespace rbm;

namespace {

Model brbm(Index n, Index m, std::uint64_t seed) {
    Rng rng(seed, 0);
    Mat W(n, m);
    for (Index j = 0; j < m; ++j)
        for (Index i = 0; i < n; ++i) W(i, j) = 0.3 * rng.normal();
    Vec b(n), c(m);
    for (Index i = 0; i < n; ++i) b(i) = 0.2 * rng.normal();
    for (Index j = 0; j < m; ++j) c(j) = 0.2 * rng.normal();
    Model model;
    model.params = Brbm{W, b, c};
    return model;
}

Model grbm(Index n, Index m, std::uint64_t seed) {
    const Model b = brbm(n, m, seed);
    const Brbm& p = *b.as<Brbm>();
    Model model;
    model.params = Grbm{p.W, p.b, p.c, Vec::Constant(n, 0.8), {0.0, 1.0}};
    return model;
}

RowMat rows_of(Index rows, Index cols, bool binary, std::uint64_t seed) {
    Rng rng(seed, 1);
    RowMat V(rows, cols);
    for (Index r = 0; r < rows; ++r)
        for (Index c = 0; c < cols; ++c) V(r, c) = binary ? (rng.uniform() < 0.4 ? 1.0 : 0.0) : rng.normal();
    return V;
}

bool same_bits(const Vec& a, const Vec& b) {
    return a.size() == b.size() &&
           std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

}  // namespace

TEST_CASE("tiled mean score equals the mean of the per-row scores (brbm, grbm with sigma)") {
    // 200 rows: tiles of 64, 64, 64 and 8 rows.
    for (const bool gaussian : {false, true}) {
        const Model model = gaussian ? grbm(7, 5, 3) : brbm(7, 5, 3);
        const RowMat V = rows_of(200, 7, !gaussian, 4);
        const Vec tiled = mean_score(model, V, gaussian).flat();
        const Mat per_row = score_rows(model, V, gaussian);
        Vec reference = Vec::Zero(per_row.cols());
        for (Index c = 0; c < per_row.cols(); ++c) {
            long double s = 0;  // a more accurate sum than any tiling
            for (Index r = 0; r < per_row.rows(); ++r) s += per_row(r, c);
            reference(c) = static_cast<double>(s / 200.0L);
        }
        CHECK_MSG((tiled - reference).cwiseAbs().maxCoeff() < 1e-13 * std::max(1.0, reference.cwiseAbs().maxCoeff()),
                  "max difference " << (tiled - reference).cwiseAbs().maxCoeff());
        CHECK(gradient_tiles(200) == 4);
        CHECK(score_tile_values(model, gaussian) == 7 * 5 + 7 + 5 + (gaussian ? 7 : 0));
    }
}

TEST_CASE("any split of the tiles, summed apart and added in tile order, gives the mean bitwise") {
    const Model model = grbm(9, 6, 5);
    const RowMat V = rows_of(330, 9, false, 6);  // 6 tiles, the last of 10 rows
    const Index tiles = gradient_tiles(V.rows());
    std::vector<double> whole;
    score_tile_sums(model, V, 0, tiles, true, whole);
    const Vec one = mean_score(model, V, true).flat();
    CHECK(same_bits(mean_from_tile_sums(model, whole.data(), V.rows(), true).flat(), one));
    // Every split into contiguous parts (each cut point in or out), one part at a time.
    for (unsigned cuts = 0; cuts < (1u << (tiles - 1)); ++cuts) {
        std::vector<double> joined;
        Index begin = 0;
        for (Index t = 1; t <= tiles; ++t)
            if (t == tiles || (cuts >> (t - 1)) & 1u) {
                std::vector<double> part;
                score_tile_sums(model, V, begin, t, true, part);
                joined.insert(joined.end(), part.begin(), part.end());
                begin = t;
            }
        CHECK_MSG(joined == whole, "split " << cuts << " gives other tile sums");
        CHECK_MSG(same_bits(mean_from_tile_sums(model, joined.data(), V.rows(), true).flat(), one), "split " << cuts);
    }
}

namespace {

// P threads as the parts of one exchange: all_gather waits for every part and hands each the
// concatenation in part order; the stop flags are or-ed.
struct ThreadWorld {
    explicit ThreadWorld(Index parts)
        : slots(static_cast<std::size_t>(parts)), stops(static_cast<std::size_t>(parts)) {}
    std::mutex m;
    std::condition_variable cv;
    std::vector<std::vector<double>> slots;
    std::vector<bool> stops;
    std::vector<double> result;
    bool stop = false;
    Index arrived = 0, generation = 0, rounds = 0;
};

class ThreadExchange final : public PtExchange {
public:
    ThreadExchange(ThreadWorld& w, Index part) : w_(w), part_(part) {}
    Index parts() const override { return static_cast<Index>(w_.slots.size()); }
    Index part() const override { return part_; }
    std::vector<double> all_gather(const std::vector<double>& mine, bool& stop) override {
        std::unique_lock<std::mutex> lock(w_.m);
        w_.slots[static_cast<std::size_t>(part_)] = mine;
        w_.stops[static_cast<std::size_t>(part_)] = stop;
        const Index gen = w_.generation;
        if (++w_.arrived == parts()) {
            w_.result.clear();
            w_.stop = false;
            for (std::size_t q = 0; q < w_.slots.size(); ++q) {
                w_.result.insert(w_.result.end(), w_.slots[q].begin(), w_.slots[q].end());
                w_.stop = w_.stop || w_.stops[q];
            }
            w_.arrived = 0;
            ++w_.generation;
            ++w_.rounds;
            w_.cv.notify_all();
        } else {
            w_.cv.wait(lock, [&] { return w_.generation != gen; });
        }
        stop = w_.stop;
        return w_.result;  // overwritten only once every part has arrived again, after this copy
    }

private:
    ThreadWorld& w_;
    Index part_;
};

Vec flat_params(const Trainer& t) {
    const Model m = t.model();
    if (const Brbm* b = m.as<Brbm>()) return ParamGrad{b->W, b->b, b->c, Vec()}.flat();
    const Grbm* g = m.as<Grbm>();
    return ParamGrad{g->W, g->b, g->c, g->sigma}.flat();
}

Dataset digits_binary() {
    Dataset d = load_digits();
    d.X = (d.X.array() > 0.5).cast<double>().matrix();
    return d;
}

// Runs `o` on P parts (threads); part 0's trainer is returned. `cancel_at`: part P-1 raises its
// cancel flag before that update (0: never).
Trainer run_parts(const TrainOptions& o, const Dataset& d, Index parts, Index cancel_at = 0, bool allow_idle = false) {
    ThreadWorld w(parts);
    std::vector<std::optional<Trainer>> trainers(static_cast<std::size_t>(parts));
    std::vector<std::unique_ptr<ThreadExchange>> ex;
    for (Index q = 0; q < parts; ++q) {
        ex.push_back(std::make_unique<ThreadExchange>(w, q));
        trainers[static_cast<std::size_t>(q)].emplace(o, d);
        trainers[static_cast<std::size_t>(q)]->set_exchange(ex.back().get(), allow_idle);
    }
    std::vector<std::thread> threads;
    for (Index q = 0; q < parts; ++q)
        threads.emplace_back([&, q] {
            Trainer& t = *trainers[static_cast<std::size_t>(q)];
            std::atomic<bool> cancel{false};
            while (t.status() == TrainStatus::Running) {
                if (cancel_at > 0 && q == parts - 1 && t.updates_done() + 1 == cancel_at) cancel = true;
                t.step(1, &cancel);
            }
            t.share_states();
        });
    for (auto& th : threads) th.join();
    for (Index q = 1; q < parts; ++q) {
        const Trainer& t = *trainers[static_cast<std::size_t>(q)];
        CHECK(t.updates_done() == trainers[0]->updates_done());
        CHECK_MSG(same_bits(flat_params(t), flat_params(*trainers[0])),
                  "part " << q << " holds other parameters than part 0");
    }
    return std::move(*trainers[0]);
}

std::string without_seconds(std::string ck) {
    // The checkpoint's measured "seconds" (top level and per record) differ between runs.
    auto j = nlohmann::json::parse(ck);
    j.erase("seconds");
    for (auto& r : j["log"]) r.erase("seconds");
    return j.dump();
}

}  // namespace

TEST_CASE(
    "a Trainer shared by 2 and 3 parts trains bitwise the model and checkpoint of one process (pcd, cd, pt, grbm)") {
    const Dataset d = digits_binary();
    TrainOptions o;
    o.hidden = 12;
    o.updates = 6;
    o.batch = 150;   // 3 tiles (64, 64, 22)
    o.chains = 200;  // 4 tiles
    o.monitor_every = 3;
    o.learning_rate = 0.05;
    o.exact_limit = 0;
    o.ais_chains = 8;
    o.ais_steps = 20;
    for (const TrainMethod method : {TrainMethod::Pcd, TrainMethod::Cd, TrainMethod::Pt}) {
        o.method = method;
        o.temperatures = 2;
        Trainer one(o, d);
        one.run();
        for (const Index parts : {Index(2), Index(3)}) {
            Trainer shared = run_parts(o, d, parts);
            CHECK_MSG(shared.status() == TrainStatus::Finished, train_method_name(method));
            CHECK_MSG(without_seconds(shared.checkpoint_json()) == without_seconds(one.checkpoint_json()),
                      train_method_name(method) << " at " << parts << " parts differs from one process");
        }
    }
    TrainOptions g = o;
    g.kind = ModelKind::Grbm;
    g.method = TrainMethod::Pcd;
    g.learn_sigma = true;
    g.learning_rate = 0.005;
    Dataset s = load_digits();
    s.X = (s.X.rowwise() - s.X.colwise().mean()) / 4.0;
    Trainer one(g, s);
    one.run();
    CHECK(without_seconds(run_parts(g, s, 4).checkpoint_json()) == without_seconds(one.checkpoint_json()));
}

TEST_CASE("shared Trainer: one part's cancel stops every part after the same update; too many parts is refused") {
    const Dataset d = digits_binary();
    TrainOptions o;
    o.hidden = 8;
    o.updates = 10;
    o.batch = 100;
    o.chains = 128;
    o.monitor_every = 0;
    o.exact_limit = 0;
    o.ais_chains = 4;
    o.ais_steps = 10;
    Trainer t = run_parts(o, d, 2, 4);  // part 1 raises it before update 4: all stop after it
    CHECK(t.status() == TrainStatus::Cancelled);
    CHECK(t.updates_done() == 4);
    // Resumed alone from the cancelled part's checkpoint: the uninterrupted run.
    Trainer resumed = Trainer::from_checkpoint_json(t.checkpoint_json(), d);
    resumed.run();
    Trainer whole(o, d);
    whole.run();
    CHECK(without_seconds(resumed.checkpoint_json()) == without_seconds(whole.checkpoint_json()));

    ThreadWorld w(3);
    ThreadExchange ex(w, 0);
    Trainer few(o, d);
    CHECK_THROWS_WITH(few.set_exchange(&ex), InputError, "more ranks than the 2 tile(s) of 64 rows the 128 chains");
}

TEST_CASE("parts beyond the tiles idle when allowed: the model and checkpoint of one process (pcd, cd)") {
    const Dataset d = digits_binary();
    TrainOptions o;
    o.hidden = 8;
    o.updates = 5;
    o.batch = 64;    // 1 tile
    o.chains = 100;  // 2 tiles
    o.monitor_every = 0;
    o.exact_limit = 0;
    o.ais_chains = 4;
    o.ais_steps = 10;
    o.learning_rate = 0.05;
    for (const TrainMethod method : {TrainMethod::Pcd, TrainMethod::Cd}) {
        o.method = method;
        Trainer one(o, d);
        one.run();
        const std::vector<Index> idle = one.idle_parts(4);
        CHECK_MSG(idle.size() == (method == TrainMethod::Cd ? 3u : 2u), train_method_name(method)
                                                                            << ": " << idle.size() << " idle");
        Trainer shared = run_parts(o, d, 4, 0, true);
        CHECK(shared.status() == TrainStatus::Finished);
        CHECK_MSG(without_seconds(shared.checkpoint_json()) == without_seconds(one.checkpoint_json()),
                  train_method_name(method) << " at 4 parts (some idle) differs from one process");
    }
}

namespace {

// The score of one row by its definition, in long double with plain loops: s_W = v h', s_b = v,
// s_c = h with h = E[h | v] = sigmoid(W' v + c) (BRBM) or max(e, c_L e), e = W' v + c (leaky).
void add_reference_score(const Model& model, const double* v, std::vector<long double>& acc) {
    const Mat& W = model.as<Brbm>() ? model.as<Brbm>()->W : model.as<Leaky>()->W;
    const Vec& c = model.as<Brbm>() ? model.as<Brbm>()->c : model.as<Leaky>()->c;
    const Index n = W.rows(), m = W.cols();
    std::vector<long double> h(static_cast<std::size_t>(m));
    for (Index j = 0; j < m; ++j) {
        long double e = c(j);
        for (Index i = 0; i < n; ++i) e += static_cast<long double>(W(i, j)) * v[i];
        h[static_cast<std::size_t>(j)] =
            model.as<Brbm>() ? 1.0L / (1.0L + std::exp(-e)) : (e > 0 ? e : model.as<Leaky>()->leakiness * e);
    }
    for (Index j = 0; j < m; ++j)
        for (Index i = 0; i < n; ++i) acc[static_cast<std::size_t>(j * n + i)] += v[i] * h[static_cast<std::size_t>(j)];
    for (Index i = 0; i < n; ++i) acc[static_cast<std::size_t>(n * m + i)] += v[i];
    for (Index j = 0; j < m; ++j) acc[static_cast<std::size_t>(n * m + n + j)] += h[static_cast<std::size_t>(j)];
}

}  // namespace

TEST_CASE("one update's gradient equals a plain per-row computation: mean data score minus mean negative score") {
    // The full data set as the batch (so the gradient does not depend on the epoch's order), 150
    // rows (3 tiles) and 100 persistent chains (2 tiles): the gradient the trainer used must be the
    // mean score over the data minus that over the negative samples it returns, computed here row by
    // row in long double -- to rounding in double, to float rounding with float32 products.
    Dataset d = bars_and_stripes_sampled(4, 150, 9);
    for (const bool leaky : {false, true})
        for (const bool f32 : {false, true}) {
            TrainOptions o;
            o.kind = leaky ? ModelKind::Leaky : ModelKind::Brbm;
            o.hidden = 7;
            o.method = TrainMethod::Pcd;
            o.batch = d.size();
            o.chains = 100;
            o.updates = 3;
            o.init_scale = 0.5;
            o.monitor_every = 0;
            o.exact_limit = 1e9;
            o.float32 = f32;
            Trainer t(o, d);
            t.step(1);  // moves the initial model and the chains on; the second update is checked
            const Model before = t.model();
            t.step(1);
            const RowMat neg = t.negative_samples();
            const Index n = d.dim(), m = o.hidden, S = n * m + n + m;
            std::vector<long double> pos(static_cast<std::size_t>(S), 0.0L), negs(static_cast<std::size_t>(S), 0.0L);
            for (Index r = 0; r < d.size(); ++r) add_reference_score(before, d.X.row(r).data(), pos);
            for (Index r = 0; r < neg.rows(); ++r) add_reference_score(before, neg.row(r).data(), negs);
            Vec expected(S);
            for (Index k = 0; k < S; ++k)
                expected(k) = static_cast<double>(pos[static_cast<std::size_t>(k)] / d.size() -
                                                  negs[static_cast<std::size_t>(k)] / neg.rows());
            const Vec got = t.last_gradient().flat();
            const double scale = std::max(1.0, expected.cwiseAbs().maxCoeff()),
                         err = (got - expected).cwiseAbs().maxCoeff();
            const double tol = f32 ? 1e-5 : 1e-13;
            CHECK_MSG(err < tol * scale, (leaky ? "leaky" : "brbm") << (f32 ? " float32" : " float64")
                                                                    << ": max |gradient - reference| = " << err);
            if (f32) CHECK_MSG(err > 0, "float32 products gave the double gradient exactly: not in single precision?");
        }
}

TEST_CASE("float32 gradient products: the same bits at 1 and 2 threads and at 2 and 3 parts") {
    const Dataset d = digits_binary();
    TrainOptions o;
    o.hidden = 12;
    o.updates = 4;
    o.batch = 150;
    o.chains = 200;
    o.monitor_every = 0;
    o.exact_limit = 0;
    o.ais_chains = 4;
    o.ais_steps = 10;
    o.learning_rate = 0.05;
    o.float32 = true;
    std::string ck[2];
    for (int threads : {1, 2}) {
        ThreadLimit limit(threads);
        Trainer t(o, d);
        t.run();
        ck[threads - 1] = without_seconds(t.checkpoint_json());
    }
    CHECK(ck[0] == ck[1]);
    for (const Index parts : {Index(2), Index(3)})
        CHECK(without_seconds(run_parts(o, d, parts).checkpoint_json()) == ck[0]);
}

RBM_TEST_MAIN
