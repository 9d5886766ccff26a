// CSV data (parse_csv, the parser load_csv uses) and digits-format .csv.gz (parse_digits_csv_gz,
// gunzip then parse_csv). The first byte picks the options; the rest is the file:
//   bits 0-1 header (auto, yes, no), bits 2-3 label column (none, last, first, second),
//   bits 4-5 delimiter (, ; tab space), bit 6 set: the rest is a .csv.gz in the digits format.
#include <array>
#include <cmath>

#include "core/data/datasets.hpp"
#include "fuzz_target.hpp"

RBM_FUZZ_TARGET(bytes) {
    if (bytes.empty()) return;
    const auto mode = static_cast<unsigned char>(bytes[0]);
    const std::string file = bytes.substr(1);
    rbm::CsvOptions o;
    o.header = (mode & 3) == 1   ? rbm::CsvOptions::Header::Yes
               : (mode & 3) == 2 ? rbm::CsvOptions::Header::No
                                 : rbm::CsvOptions::Header::Auto;
    o.label_column = std::array<int, 4>{-1, -2, 0, 1}[(mode >> 2) & 3];
    o.delimiter = std::array<char, 4>{',', ';', '\t', ' '}[(mode >> 4) & 3];
    const bool gz = (mode & 64) != 0;
    const rbm::Dataset d = gz ? rbm::parse_digits_csv_gz(file, "fuzz.csv.gz") : rbm::parse_csv(file, "fuzz.csv", o);
    // The parser's promises: at least one row of at least one finite value, labels absent or one
    // per row, a positive scale no smaller than any |value|, an image shape only when it fits.
    if (d.size() < 1 || d.dim() < 1 || !(d.max_value > 0)) __builtin_trap();
    for (rbm::Index i = 0; i < d.X.size(); ++i)
        if (!std::isfinite(d.X.data()[i]) || std::fabs(d.X.data()[i]) > d.max_value) __builtin_trap();
    const bool want_labels = gz || o.label_column != -1;
    if (want_labels ? d.labels.size() != static_cast<std::size_t>(d.size()) : !d.labels.empty()) __builtin_trap();
    if (d.has_image_shape() && d.image_rows * d.image_cols != d.dim()) __builtin_trap();
    if (gz && d.dim() != 64) __builtin_trap();
}
