// The shipped 8x8 digits (embedded .csv.gz, resources/data/digits) and gzip inflation.
#include <zlib.h>

#include <cstring>
#include <string>

#include "core/data/datasets.hpp"
#include "core/numerics/memory_budget.hpp"

namespace rbm {

namespace detail {
// Generated at build time by cmake/EmbedData.cmake from resources/data/digits/digits.csv.gz.
extern const unsigned char kDigitsCsvGz[];
extern const std::size_t kDigitsCsvGzSize;
}  // namespace detail

std::string gunzip(const std::string& bytes, const std::string& origin) {
    z_stream zs;
    std::memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 15 + 32) != Z_OK)  // 15 + 32: gzip or zlib header, detected
        throw InputError(origin + ": cannot start zlib");
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    zs.avail_in = static_cast<uInt>(bytes.size());
    std::string out;
    char buf[1 << 15];
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
        zs.next_out = reinterpret_cast<Bytef*>(buf);
        zs.avail_out = sizeof buf;
        rc = inflate(&zs, Z_NO_FLUSH);
        if (rc != Z_OK && rc != Z_STREAM_END) {
            inflateEnd(&zs);
            throw InputError(origin + ": not valid gzip data (" + (zs.msg ? zs.msg : "truncated") + ")");
        }
        out.append(buf, sizeof buf - zs.avail_out);
        if (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0) {
            inflateEnd(&zs);
            throw InputError(origin + ": gzip data ends early (truncated file?)");
        }
        // Capped while streaming: a 2 MB .csv.gz inflated to gigabytes (#35).
        if (out.size() > memory_budget()) {
            inflateEnd(&zs);
            throw InputError(origin + ": inflates to more than " + bytes_text(static_cast<double>(memory_budget())) +
                             ", the memory budget; refusing" + memory_budget_advice());
        }
    }
    inflateEnd(&zs);
    return out;
}

Dataset parse_digits_csv_gz(const std::string& gz_bytes, const std::string& origin) {
    CsvOptions o;
    o.header = CsvOptions::Header::No;
    o.label_column = 64;
    Dataset d = parse_csv(gunzip(gz_bytes, origin), origin, o);
    if (d.dim() != 64)
        throw InputError(origin + ": digits rows need 64 pixels and a label (65 columns), got " +
                         std::to_string(d.dim() + 1) + " columns");
    for (Index r = 0; r < d.size(); ++r)
        for (Index c = 0; c < 64; ++c)
            if (d.X(r, c) < 0 || d.X(r, c) > 16)
                throw InputError(origin + ": row " + std::to_string(r + 1) + ", column " + std::to_string(c + 1) +
                                 ": pixel values must lie in 0..16, got " + std::to_string(d.X(r, c)));
    d.image_rows = d.image_cols = 8;
    d.max_value = 16.0;
    d.name = "digits (" + std::to_string(d.size()) + " x 64)";
    return d;
}

Dataset load_digits() {
    const std::string bytes(reinterpret_cast<const char*>(detail::kDigitsCsvGz), detail::kDigitsCsvGzSize);
    return parse_digits_csv_gz(bytes, "embedded digits.csv.gz");
}

}  // namespace rbm
