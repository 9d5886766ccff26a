// Schedules (docs/methods/schedules.md): every kind starts at exactly 0, ends at exactly 1, strictly increases,
// has K+1 entries and the kind's shape; every bad schedule is refused with its message.
#include "check.hpp"
#include "core/ais/schedules.hpp"

using namespace rbm;

namespace {

void check_valid(const Schedule& s, Index steps, const char* what) {
    CHECK_MSG(static_cast<Index>(s.size()) == steps + 1, what << ": size " << s.size());
    CHECK_MSG(s.front() == 0.0 && s.back() == 1.0, what);
    bool increasing = true;
    for (std::size_t k = 1; k < s.size(); ++k) increasing = increasing && s[k] > s[k - 1];
    CHECK_MSG(increasing, what);
}

Index count_in(const Schedule& s, double lo, double hi) {  // steps ending in (lo, hi]
    Index c = 0;
    for (std::size_t k = 1; k < s.size(); ++k) c += s[k] > lo && s[k] <= hi;
    return c;
}

// A path whose only use here is its knots.
class KnotPath final : public AnnealingPath {
public:
    explicit KnotPath(std::vector<Knot> k) : k_(std::move(k)) {}
    std::string name() const override { return "knots"; }
    Index dim() const override { return 1; }
    double log_z0() const override { return 0; }
    void sample_base(RowMat&, Index, Index, ChainRngs&) const override {}
    void log_f(double, const RowMat&, Index, Index, Vec&) const override {}
    void transition(double, RowMat&, Index, Index, ChainRngs&) const override {}
    std::vector<Knot> knots() const override { return k_; }

private:
    std::vector<Knot> k_;
};

ScheduleRequest req(const char* kind, Index steps) {
    ScheduleRequest r;
    r.kind = kind;
    r.steps = steps;
    return r;
}

AnnealingPath::Knot knot(double beta, double eta, double s) {
    AnnealingPath::Knot k;
    k.beta = beta;
    k.eta = Vec::Constant(1, eta);
    k.s = Vec::Constant(1, s);
    return k;
}

}  // namespace

TEST_CASE("linear, geometric and sigmoid schedules have the right shape") {
    for (Index K : {1, 2, 7, 100}) {
        const Schedule l = linear_schedule(K);
        check_valid(l, K, "linear");
        CHECK_NEAR(l[1], 1.0 / K, 1e-15);
        check_valid(geometric_schedule(K), K, "geometric");
        check_valid(sigmoid_schedule(K), K, "sigmoid");
    }
    const Schedule g = geometric_schedule(5, 1e-4);
    CHECK_CLOSE(g[1], 1e-4, 1e-12);
    for (std::size_t k = 2; k < g.size(); ++k) CHECK_CLOSE(g[k] / g[k - 1], 10.0, 1e-12);  // ratio (1e4)^(1/4)
    // Sigmoid: symmetric about the middle, steps smallest at the ends (delta = 4).
    const Schedule s = sigmoid_schedule(100);
    CHECK_NEAR(s[50], 0.5, 1e-12);
    CHECK_NEAR(s[30] + s[70], 1.0, 1e-12);
    CHECK(s[1] - s[0] < s[51] - s[50]);
    CHECK_THROWS_WITH(geometric_schedule(3, 1.5), InputError, "first beta must be in (0, 1)");
    CHECK_THROWS_WITH(linear_schedule(0), InputError, "at least 1 steps, got 0");
}

TEST_CASE("four-period puts K/4 steps in each of Kiwaki's periods") {
    const Schedule s = four_period_schedule(100);
    check_valid(s, 100, "four-period");
    CHECK(count_in(s, 0.0, 0.1) == 25);
    CHECK(count_in(s, 0.1, 0.25) == 25);
    CHECK(count_in(s, 0.25, 0.5) == 25);
    CHECK(count_in(s, 0.5, 1.0) == 25);
    CHECK_NEAR(s[25], 0.1, 1e-15);
    CHECK_NEAR(s[50], 0.25, 1e-15);
    CHECK_NEAR(s[75], 0.5, 1e-15);
    CHECK_NEAR(s[1], 0.1 / 25, 1e-15);
    const Schedule t = four_period_schedule(10);  // 3,3,2,2
    check_valid(t, 10, "four-period 10");
    CHECK(count_in(t, 0.0, 0.1) == 3 && count_in(t, 0.1, 0.25) == 3 && count_in(t, 0.25, 0.5) == 2);
    CHECK_THROWS_WITH(four_period_schedule(3), InputError, "four-period schedule needs at least 4 steps");
}

TEST_CASE("piecewise: Salakhutdinov-Murray step sizes, proportions kept for other K") {
    const Schedule s = piecewise_schedule();
    check_valid(s, kPiecewiseDefaultSteps, "piecewise");
    CHECK(count_in(s, 0.0, 0.5) == 500);
    CHECK(count_in(s, 0.5, 0.9) == 4000);
    CHECK(count_in(s, 0.9, 1.0) == 10000);
    CHECK_NEAR(s[1], 1e-3, 1e-15);
    CHECK_NEAR(s[501] - s[500], 1e-4, 1e-12);
    CHECK_NEAR(s[14500] - s[14499], 1e-5, 1e-12);
    const Schedule t = piecewise_schedule(145);
    check_valid(t, 145, "piecewise 145");
    CHECK(count_in(t, 0.0, 0.5) == 5 && count_in(t, 0.5, 0.9) == 40 && count_in(t, 0.9, 1.0) == 100);
    const Schedule u = piecewise_schedule(3);  // at least one step per piece
    CHECK(u == Schedule({0.0, 0.5, 0.9, 1.0}));
    CHECK(make_schedule(req("piecewise", 0)).size() == 14501);
}

TEST_CASE("binned: segments get steps in proportion to sqrt(d_eta' d_s)") {
    // Segment costs d_eta*d_s: 1, 4, 16 -> weights 1 : 2 : 4 of 70 steps -> 10, 20, 40.
    KnotPath p({knot(0, 0, 0), knot(0.2, 1, 1), knot(0.5, 3, 3), knot(1, 7, 7)});
    const Schedule s = make_schedule(req("binned", 70), &p);
    check_valid(s, 70, "binned");
    CHECK(count_in(s, 0.0, 0.2) == 10);
    CHECK(count_in(s, 0.2, 0.5) == 20);
    CHECK(count_in(s, 0.5, 1.0) == 40);
    CHECK_NEAR(s[10], 0.2, 1e-15);
    CHECK_NEAR(s[11] - s[10], 0.3 / 20, 1e-15);  // linear inside a segment
    // A segment with no cost still gets one step.
    KnotPath z({knot(0, 0, 0), knot(0.5, 0, 0), knot(1, 1, 1)});
    const Schedule zs = binned_schedule(z.knots(), 10);
    CHECK(count_in(zs, 0.0, 0.5) == 1 && count_in(zs, 0.5, 1.0) == 9);
    KnotPath none({});
    CHECK_THROWS_WITH(make_schedule(req("binned", 10), &none), InputError, "needs a path with knots");
    CHECK_THROWS_WITH(binned_schedule(p.knots(), 2), InputError, "3 segments, but 2 steps");
    KnotPath partial({knot(0.1, 0, 0), knot(1, 1, 1)});
    CHECK_THROWS_WITH(binned_schedule(partial.knots(), 5), InputError, "knots from beta = 0 to beta = 1");
}

TEST_CASE("user lists and every bad schedule are refused with the problem named") {
    ScheduleRequest r = req("list", 0);
    r.list = {0, 0.25, 0.5, 1};
    CHECK(make_schedule(r) == r.list);
    r.steps = 3;
    CHECK(make_schedule(r).size() == 4);
    r.steps = 5;
    CHECK_THROWS_WITH(make_schedule(r), InputError, "has 4 betas (3 steps), but 5 steps");
    CHECK_THROWS_WITH(validate_schedule({0, 0.2, 0.4, 0.4, 0.5, 0.6, 0.7, 0.4, 0.35, 1}), InputError,
                      "not increasing at step 3: 0.4 then 0.4");
    CHECK_THROWS_WITH(validate_schedule({0, 0.1, 0.2, 0.3, 0.35, 0.38, 0.4, 0.35, 1}), InputError,
                      "schedule is not increasing at step 7: 0.4 then 0.35");
    CHECK_THROWS_WITH(validate_schedule({0.1, 0.5, 1}), InputError, "must start at beta = 0, but starts at 0.1");
    CHECK_THROWS_WITH(validate_schedule({0, 0.5, 0.9}), InputError, "must end at beta = 1, but ends at 0.9");
    CHECK_THROWS_WITH(validate_schedule({0, 1.5, 1}), InputError, "schedule leaves [0, 1] at step 1: 1.5");
    CHECK_THROWS_WITH(validate_schedule({0, -0.1, 1}), InputError, "not increasing at step 1: 0 then -0.1");
    CHECK_THROWS_WITH(validate_schedule({0}), InputError, "at least two betas");
    CHECK_THROWS_WITH(validate_schedule({0, std::nan(""), 1}), InputError, "non-finite beta at step 1");
    CHECK_THROWS_WITH(make_schedule(req("cubic", 10)), InputError, "unknown schedule 'cubic'");
}

RBM_TEST_MAIN
