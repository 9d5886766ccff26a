#pragma once
// Training data (docs/methods/training.md): bars-and-stripes, the shipped 8x8 digits, MNIST-format IDX files
// and CSV. Every malformed file is an InputError naming the file, the row / column or header
// field, and what was expected.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/models/training_data.hpp"
#include "core/numerics/types.hpp"

namespace rbm {

struct Dataset {
    RowMat X;                              // one example per row
    std::vector<int> labels;               // empty, or one per row
    Index image_rows = 0, image_cols = 0;  // 0 when the examples are not images
    double max_value = 1.0;                // largest value the format allows (digits 16, IDX 255)
    std::string name;                      // what it is, for logs ("digits (1797 x 64)")

    Index size() const { return X.rows(); }
    Index dim() const { return X.cols(); }
    bool has_image_shape() const { return image_rows > 0 && image_cols > 0; }
};

// ---- bars and stripes on a d x d grid (d >= 1) ----
// Every distinct pattern once: the 2^d subsets of rows switched on (bars) and of columns
// (stripes), the empty and the full grid counted once: 2^(d+1) - 2 patterns (2 for d = 1).
Dataset bars_and_stripes(int d);
// `count` patterns drawn with a seed: orientation with probability 1/2, then each line on
// with probability 1/2 (the classic generator, so empty / full grids are twice as likely).
Dataset bars_and_stripes_sampled(int d, Index count, std::uint64_t seed);
// True when the 0/1 row x of length d*d is a bars-and-stripes pattern.
bool is_bars_and_stripes(const double* x, int d);

// ---- the 8x8 digits (UCI optical digits test set, CC BY 4.0; resources/data/digits) ----
// Raw pixel values 0..16, labels 0..9, image shape 8 x 8. Embedded in the library.
Dataset load_digits();
// The same from the bytes of a digits-format .csv.gz (64 pixels + label per line, no header).
Dataset parse_digits_csv_gz(const std::string& gz_bytes, const std::string& origin);
// Inflates gzip (or zlib) bytes; InputError naming `origin` when they are not valid.
std::string gunzip(const std::string& bytes, const std::string& origin);

// ---- MNIST IDX ----
// images: magic 0x00000803 (unsigned bytes, 3 dimensions, big-endian sizes); labels: magic
// 0x00000801. Absurd dimensions (more than 2^16 per side, more than kMaxIdxElements values,
// or more than the file holds) are refused before allocating. labels_path may be empty.
// load_idx reads either file plain or gzip-compressed ("...-idx3-ubyte.gz", as distributed).
inline constexpr std::int64_t kMaxIdxElements = std::int64_t(1) << 28;
Dataset load_idx(const std::filesystem::path& images_path, const std::filesystem::path& labels_path = {});
Dataset parse_idx(const std::string& image_bytes, const std::string& label_bytes, const std::string& origin);
// The bytes of a gzip-compressed IDX file of `ndim` dimensions (3 images, 1 labels), inflated: the
// header first, then its declared size checked against the memory budget before allocating, and
// inflation stops there (a gzip bomb costs nothing). InputError naming `origin` for a truncated or
// corrupt stream, or a payload shorter or longer than the header declares.
std::string inflate_idx(const std::string& gz_bytes, int ndim, const std::string& origin);
// The labels file next to an images file when it follows MNIST naming
// ("...-images-idx3-ubyte" -> "...-labels-idx1-ubyte"; also ".../images.idx3-ubyte"), else empty.
std::filesystem::path idx_labels_beside(const std::filesystem::path& images_path);

// ---- data sets installed by Debian packages (dataset-*: /usr/share/datasets/<name>/) ----
// The directory searched; the front ends may point it elsewhere (tests do) before loading.
inline constexpr const char* kSystemDatasetsDir = "/usr/share/datasets";
std::filesystem::path system_datasets_dir();
void set_system_datasets_dir(const std::filesystem::path& dir);  // empty: the default again
// "fashion-mnist" (the 60000 training images), "fashion-mnist:train", "fashion-mnist:test"
// (10000): Zalando's 28x28 grey images with labels, from <dir>/fashion-mnist/*-idx3-ubyte.gz. When
// absent, an InputError saying "apt-get install dataset-fashion-mnist".
bool is_fashion_mnist_spec(const std::string& spec);
Dataset load_fashion_mnist(const std::string& spec);

// ---- CSV ----
struct CsvOptions {
    enum class Header { Auto, Yes, No } header = Header::Auto;  // Auto: a first row that is not all numbers
    int label_column = -1;  // column index holding an integer label (-1: none; -2: the last column)
    char delimiter = ',';
};
Dataset load_csv(const std::filesystem::path& path, const CsvOptions& options = {});
Dataset parse_csv(const std::string& text, const std::string& origin, const CsvOptions& options = {});

// ---- transforms ----
// The tempering paper's augmentation: each image followed by its copies shifted one pixel up,
// down, left and right (vacated pixels 0), so the set grows five-fold. Needs an image shape.
Dataset with_shifts(const Dataset& data);
// x -> 1 if x >= threshold * max_value else 0 (threshold in (0, 1]); max_value becomes 1.
void binarize(Dataset& data, double threshold = 0.5);
// x -> x / max_value, so values lie in [0, 1]; max_value becomes 1.
void scale_to_unit(Dataset& data);

// x_ij -> (x_ij - mean_j) / sd_j per column (the leaky-RBM paper's preprocessing); columns with
// sd_j = 0 are only centred. The Gaussian-visible models have unit noise, so data with pixel
// variances far below 1 (scaled images) give them nothing to learn.
void standardize(Dataset& data);
// The same with given per-column mean and divisor sd (sd > 0): how a model's recorded
// standardization is applied to its data again. Mean and sd must have dim() entries.
void standardize_with(Dataset& data, const Vec& mean, const Vec& sd);

// ---- one string for the CLI and the GUI ----
// "bars:D" (all patterns), "bars:D:COUNT[:SEED]" (sampled), "digits", "fashion-mnist[:train|:test]",
// or a path: *.csv, *.csv.gz (digits format when gzip), *idx3-ubyte or *idx3-ubyte.gz (labels read
// from the companion file when present). InputError naming the spec otherwise.
Dataset load_dataset(const std::string& spec, const CsvOptions& csv = {});

// ---- the data a model was trained on (TrainingData, core/models/training_data.hpp) ----
// Loads t.data and applies t's preprocessing in train's order (limit, shifts, then binarize /
// scale / standardize). A recorded standardization is applied with its own mean and sd; when t
// asks for one without values (train, or data being attached), they are computed from the data
// and stored in t. A relative file path not found as given is looked up in `model_dir` (the
// directory of the model file that recorded it). InputError naming the spec otherwise.
Dataset load_training_data(TrainingData& t, const std::filesystem::path& model_dir = {});

}  // namespace rbm
