// CSV data: numbers separated by a delimiter, an optional header row, an optional label column.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>

#include "core/data/datasets.hpp"
#include "core/io/model_io.hpp"
#include "core/numerics/memory_budget.hpp"

namespace rbm {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

bool parse_number(std::string_view s, double& x) {
    s = trim(s);
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    if (s.empty()) return false;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
    return ec == std::errc() && p == s.data() + s.size() && std::isfinite(x);
}

// The cells of a line; a line of more than kMaxFileElements cells is refused before they are
// stored (each takes 16 bytes, its text as little as 1).
std::vector<std::string_view> split(std::string_view line, char delim, const std::string& origin) {
    const auto n = static_cast<std::int64_t>(std::count(line.begin(), line.end(), delim)) + 1;
    if (n > kMaxFileElements)
        throw InputError(origin + ": a row of more than " + std::to_string(kMaxFileElements) + " values; refusing");
    std::vector<std::string_view> out;
    out.reserve(static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (;;) {
        const std::size_t p = line.find(delim, start);
        out.push_back(line.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
        if (p == std::string_view::npos) return out;
        start = p + 1;
    }
}

// Calls f(line number, trimmed line) for every non-empty line, in order, until f returns false.
template <class F>
void for_each_row(std::string_view text, F f) {
    std::size_t start = 0, line_no = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        ++line_no;
        const std::string_view line = trim(text.substr(start, end - start));
        start = end + 1;
        if (!line.empty() && !f(line_no, line)) return;
    }
}

}  // namespace

// Two passes over the text: the first counts rows (so that the size guard comes before any
// allocation that grows with the file), the second fills the matrix.
Dataset parse_csv(const std::string& file_text, const std::string& origin, const CsvOptions& o) {
    // A UTF-8 byte-order mark (spreadsheets write one) is not part of the first cell: left in,
    // it made the first row non-numeric, so it was taken for a header and lost.
    std::string_view text = file_text;
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    std::vector<std::string_view> head;  // the first non-empty row
    std::size_t n_rows = 0;
    for_each_row(text, [&](std::size_t, std::string_view line) {
        if (n_rows++ == 0) head = split(line, o.delimiter, origin);
        return true;
    });
    if (n_rows == 0) throw InputError(origin + ": no data rows (empty file)");
    bool header = o.header == CsvOptions::Header::Yes;
    if (o.header == CsvOptions::Header::Auto) {
        double x;
        for (const auto& cell : head)
            if (!parse_number(cell, x)) header = true;
    }
    const std::size_t first = header ? 1 : 0;
    if (n_rows <= first) throw InputError(origin + ": a header row but no data rows");
    std::size_t first_line = 0;  // line number of the first data row, whose width every row must have
    std::vector<std::string_view> cells;
    for_each_row(text, [&, k = std::size_t(0)](std::size_t line_no, std::string_view line) mutable {
        if (k++ < first) return true;
        first_line = line_no;
        cells = split(line, o.delimiter, origin);
        return false;
    });
    const std::size_t cols = cells.size();
    const int label = o.label_column == -2 ? static_cast<int>(cols) - 1 : o.label_column;
    if (label >= static_cast<int>(cols) || label < -1)
        throw InputError(origin + ": label column " + std::to_string(label + 1) + " does not exist (rows have " +
                         std::to_string(cols) + " columns)");
    const Index dim = static_cast<Index>(cols) - (label >= 0 ? 1 : 0);
    if (dim < 1) throw InputError(origin + ": rows need at least one value besides the label");
    if (static_cast<double>(n_rows - first) * static_cast<double>(cols) > static_cast<double>(kMaxFileElements))
        throw InputError(origin + ": more than " + std::to_string(kMaxFileElements) + " values; refusing");
    check_memory_budget(static_cast<double>(n_rows - first) * static_cast<double>(dim) * sizeof(double),
                        origin + ": " + std::to_string(n_rows - first) + " rows of " + std::to_string(dim) + " values");

    Dataset d;
    d.X.resize(static_cast<Index>(n_rows - first), dim);
    if (label >= 0) d.labels.resize(n_rows - first);
    d.max_value = 0.0;
    std::size_t r = 0;
    for_each_row(text, [&](std::size_t line_no, std::string_view line) {
        if (r++ < first) return true;
        cells = split(line, o.delimiter, origin);
        const std::string where = origin + ": line " + std::to_string(line_no);
        if (cells.size() != cols)
            throw InputError(where + ": expected " + std::to_string(cols) + " columns (as in line " +
                             std::to_string(first_line) + "), got " + std::to_string(cells.size()));
        const Index out_row = static_cast<Index>(r - 1 - first);
        Index out_col = 0;
        for (std::size_t c = 0; c < cols; ++c) {
            double x;
            if (!parse_number(cells[c], x))
                throw InputError(where + ", column " + std::to_string(c + 1) + ": expected a finite number, got '" +
                                 std::string(trim(cells[c])) + "'");
            if (static_cast<int>(c) == label) {
                if (x != std::floor(x) || std::fabs(x) > 1e9)
                    throw InputError(where + ", column " + std::to_string(c + 1) +
                                     ": a label must be an integer, got '" + std::string(trim(cells[c])) + "'");
                d.labels[static_cast<std::size_t>(out_row)] = static_cast<int>(x);
                continue;
            }
            d.X(out_row, out_col++) = x;
            d.max_value = std::max(d.max_value, std::fabs(x));
        }
        return true;
    });
    if (d.max_value == 0.0) d.max_value = 1.0;
    const Index side = static_cast<Index>(std::lround(std::sqrt(static_cast<double>(dim))));
    if (side * side == dim && side > 1) d.image_rows = d.image_cols = side;  // square: assume an image
    d.name = origin + " (" + std::to_string(d.size()) + " x " + std::to_string(dim) + ")";
    return d;
}

Dataset load_csv(const std::filesystem::path& path, const CsvOptions& o) {
    return parse_csv(read_file(path), path.string(), o);
}

}  // namespace rbm
