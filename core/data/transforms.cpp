// Shifts, binarization, scaling, and the data-set spec string shared by the CLI and the GUI.
#include <cmath>
#include <string>

#include "core/data/datasets.hpp"
#include "core/io/model_io.hpp"

namespace rbm {

Dataset with_shifts(const Dataset& data) {
    if (!data.has_image_shape())
        throw InputError("one-pixel shifts need images; " + data.name + " has no image shape");
    const Index R = data.image_rows, C = data.image_cols, N = data.size();
    Dataset out = data;
    out.X = RowMat::Zero(5 * N, data.dim());
    if (!data.labels.empty()) out.labels.resize(static_cast<std::size_t>(5 * N));
    // Copy k moves pixel (i, j) to (i + di, j + dj): original, up, down, left, right.
    const int di[5] = {0, -1, 1, 0, 0}, dj[5] = {0, 0, 0, -1, 1};
    for (Index n = 0; n < N; ++n)
        for (int k = 0; k < 5; ++k) {
            const Index row = 5 * n + k;
            for (Index i = 0; i < R; ++i)
                for (Index j = 0; j < C; ++j) {
                    const Index ti = i + di[k], tj = j + dj[k];
                    if (ti < 0 || ti >= R || tj < 0 || tj >= C) continue;
                    out.X(row, ti * C + tj) = data.X(n, i * C + j);
                }
            if (!data.labels.empty()) out.labels[static_cast<std::size_t>(row)] = data.labels[static_cast<std::size_t>(n)];
        }
    out.name = data.name + " + one-pixel shifts (x5)";
    return out;
}

void binarize(Dataset& data, double threshold) {
    if (!(threshold > 0.0 && threshold <= 1.0))
        throw InputError("binarize threshold must lie in (0, 1] (a fraction of the largest value " +
                         std::to_string(data.max_value) + "), got " + std::to_string(threshold));
    const double cut = threshold * data.max_value;
    data.X = (data.X.array() >= cut).cast<double>().matrix();
    data.max_value = 1.0;
    data.name += ", binarized at " + std::to_string(cut);
}

void scale_to_unit(Dataset& data) {
    if (data.X.size() > 0 && data.X.minCoeff() < 0)
        throw InputError("scaling to [0,1] divides by the largest value; " + data.name + " has negative values");
    data.X /= data.max_value;
    data.name += ", scaled by 1/" + std::to_string(data.max_value);
    data.max_value = 1.0;
}

void standardize(Dataset& data) {
    if (data.size() < 2) throw InputError("standardizing needs at least 2 examples; " + data.name + " has " + std::to_string(data.size()));
    const Vec mean = data.X.colwise().mean().transpose();
    data.X.rowwise() -= mean.transpose();
    const Vec sd = (data.X.array().square().colwise().sum() / static_cast<double>(data.size() - 1)).sqrt().transpose();
    for (Index j = 0; j < data.dim(); ++j)
        if (sd(j) > 0) data.X.col(j) /= sd(j);
    data.max_value = data.X.size() > 0 ? std::max(1.0, data.X.cwiseAbs().maxCoeff()) : 1.0;
    data.name += ", standardized";
}

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

long long parse_int(const std::string& text, const std::string& what, const std::string& spec) {
    std::size_t used = 0;
    long long v = 0;
    try {
        v = std::stoll(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size())
        throw InputError("data '" + spec + "': " + what + " must be an integer, got '" + text + "'");
    return v;
}

}  // namespace

Dataset load_dataset(const std::string& spec, const CsvOptions& csv) {
    if (spec.empty()) throw InputError("no data given: use bars:D, digits, a .csv file or an idx3-ubyte file");
    if (spec == "digits") return load_digits();
    if (spec.rfind("bars:", 0) == 0) {
        std::vector<std::string> parts;
        std::size_t start = 5;
        for (;;) {
            const std::size_t p = spec.find(':', start);
            parts.push_back(spec.substr(start, p == std::string::npos ? std::string::npos : p - start));
            if (p == std::string::npos) break;
            start = p + 1;
        }
        if (parts.size() > 3) throw InputError("data '" + spec + "': expected bars:D or bars:D:COUNT[:SEED]");
        const int d = static_cast<int>(parse_int(parts[0], "the grid size D", spec));
        if (parts.size() == 1) return bars_and_stripes(d);
        const long long count = parse_int(parts[1], "COUNT", spec);
        const long long seed = parts.size() == 3 ? parse_int(parts[2], "SEED", spec) : 1;
        if (seed < 0) throw InputError("data '" + spec + "': SEED must be >= 0");
        return bars_and_stripes_sampled(d, static_cast<Index>(count), static_cast<std::uint64_t>(seed));
    }
    const std::filesystem::path path(spec);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw InputError("data '" + spec + "': no such file (and not bars:D or digits)");
    if (ends_with(spec, ".csv.gz")) return parse_digits_csv_gz(read_file(path), spec);
    if (ends_with(spec, ".csv")) return load_csv(path, csv);
    if (ends_with(spec, "idx3-ubyte")) return load_idx(path, idx_labels_beside(path));
    throw InputError("data '" + spec + "': unknown format (expected .csv, .csv.gz (digits format) or *idx3-ubyte)");
}

}  // namespace rbm
