#pragma once
// NumPy .npy arrays (format versions 1.0-3.0), read strictly: little- or big-endian float64,
// float32, int64/int32/int8/uint8, bool; C or Fortran order; 0-, 1- or 2-D; unicode string
// arrays ('<U..') for `kind`. Header problems are InputErrors naming the array.
#include <cstdint>
#include <string>
#include <vector>

#include "core/numerics/types.hpp"

namespace rbm {

struct NpyArray {
    std::vector<std::int64_t> shape;   // empty for a scalar
    std::vector<double> data;          // numeric arrays, row-major (C order)
    std::vector<std::string> strings;  // string arrays ('<U' dtypes)
    bool is_string = false;
    std::int64_t size() const;
};

NpyArray parse_npy(const std::string& bytes, const std::string& name);
// The size in bytes (header and data) that the header at the start of `prefix` declares, so an
// archive member can be checked before it is inflated. A header is at most
// kNpyMaxHeaderPrefix bytes long; InputError when it is malformed or `prefix` ends inside it.
inline constexpr std::size_t kNpyMaxHeaderPrefix = (std::size_t{1} << 20) + 12;
std::uint64_t npy_declared_size(const std::string& prefix, const std::string& name);
std::string write_npy(const Mat& m);                               // 2-D float64, C order
std::string write_npy(const Vec& v);                               // 1-D float64
std::string write_npy_scalar(double x);                            // 0-D float64
std::string write_npy_strings(const std::vector<std::string>& s);  // 1-D '<U'

}  // namespace rbm
