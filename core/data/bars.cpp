// Bars-and-stripes patterns on a d x d grid (MacKay's toy data for RBM training).
#include <string>

#include "core/data/datasets.hpp"
#include "core/numerics/memory_budget.hpp"
#include "core/random/rng.hpp"

namespace rbm {

namespace {

void check_size(int d) {
    if (d < 1 || d > 16)
        throw InputError("bars-and-stripes size must be an integer from 1 to 16, got " + std::to_string(d));
}

Dataset empty_grid(int d, Index rows) {
    Dataset data;
    data.X = RowMat::Zero(rows, static_cast<Index>(d) * d);
    data.image_rows = data.image_cols = d;
    data.max_value = 1.0;
    return data;
}

// Row `r` of X: lines selected by the bits of `mask`, horizontal bars or vertical stripes.
void draw(RowMat& X, Index r, int d, std::uint32_t mask, bool bars) {
    for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j) X(r, i * d + j) = (mask >> (bars ? i : j)) & 1u ? 1.0 : 0.0;
}

}  // namespace

Dataset bars_and_stripes(int d) {
    check_size(d);
    const std::uint32_t lines = std::uint32_t(1) << d;
    // Bars: every mask. Stripes: every mask except empty and full, which the bars already gave.
    Dataset data = empty_grid(d, static_cast<Index>(2 * lines - 2));
    Index r = 0;
    for (std::uint32_t mask = 0; mask < lines; ++mask) draw(data.X, r++, d, mask, true);
    for (std::uint32_t mask = 1; mask + 1 < lines; ++mask) draw(data.X, r++, d, mask, false);
    data.name =
        "bars-and-stripes " + std::to_string(d) + "x" + std::to_string(d) + " (all " + std::to_string(r) + " patterns)";
    return data;
}

Dataset bars_and_stripes_sampled(int d, Index count, std::uint64_t seed) {
    check_size(d);
    if (count < 1) throw InputError("bars-and-stripes sample count must be >= 1, got " + std::to_string(count));
    // COUNT is a number in a spec a model file may record and the app loads by itself (#35):
    // bars:3:40000000 asked for 2.7 GiB.
    check_memory_budget(
        static_cast<double>(count) * d * d * sizeof(double),
        "bars-and-stripes data of " + std::to_string(count) + " patterns of " + std::to_string(d * d) + " values");
    Dataset data = empty_grid(d, count);
    Rng rng(seed, static_cast<std::uint64_t>(StreamPurpose::Misc) << 48);
    for (Index r = 0; r < count; ++r) {
        const bool bars = rng.uniform() < 0.5;
        std::uint32_t mask = 0;
        for (int i = 0; i < d; ++i)
            if (rng.uniform() < 0.5) mask |= std::uint32_t(1) << i;
        draw(data.X, r, d, mask, bars);
    }
    data.name = "bars-and-stripes " + std::to_string(d) + "x" + std::to_string(d) + " (" + std::to_string(count) +
                " sampled, seed " + std::to_string(seed) + ")";
    return data;
}

bool is_bars_and_stripes(const double* x, int d) {
    bool rows_constant = true, cols_constant = true;
    for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j) {
            const double v = x[i * d + j];
            if (v != 0.0 && v != 1.0) return false;
            if (v != x[i * d]) rows_constant = false;  // bars: every row uniform
            if (v != x[j]) cols_constant = false;      // stripes: every column uniform
        }
    return rows_constant || cols_constant;
}

}  // namespace rbm
