// MNIST IDX data files (images, optionally labels) through parse_idx, the parser load_idx uses.
// The input is the images file, optionally followed by the marker "#labels#" and a labels file.
#include <cmath>

#include "core/data/datasets.hpp"
#include "fuzz_target.hpp"

RBM_FUZZ_TARGET(bytes) {
    static const std::string marker = "#labels#";
    const std::size_t at = bytes.find(marker);
    const std::string images = bytes.substr(0, at);
    const std::string labels = at == std::string::npos ? std::string() : bytes.substr(at + marker.size());
    const rbm::Dataset d = rbm::parse_idx(images, labels, "fuzz-images-idx3-ubyte");
    // The parser's promises: one row per image of rows x cols bytes, every value a byte, and
    // either no labels or one (a byte) per image.
    if (d.size() < 1 || d.dim() != d.image_rows * d.image_cols || d.max_value != 255.0) __builtin_trap();
    if (static_cast<std::size_t>(16 + d.size() * d.dim()) != images.size()) __builtin_trap();
    for (rbm::Index i = 0; i < d.X.size(); ++i)
        if (!(d.X.data()[i] >= 0 && d.X.data()[i] <= 255)) __builtin_trap();
    if (!d.labels.empty() && d.labels.size() != static_cast<std::size_t>(d.size())) __builtin_trap();
    if (labels.empty() != d.labels.empty()) __builtin_trap();
}
