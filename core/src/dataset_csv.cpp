// CSV data: numbers separated by a delimiter, an optional header row, an optional label column.
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>

#include "rbmscope/datasets.hpp"
#include "rbmscope/model_io.hpp"

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

std::vector<std::string_view> split(std::string_view line, char delim) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t p = line.find(delim, start);
        out.push_back(line.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
        if (p == std::string_view::npos) return out;
        start = p + 1;
    }
}

}  // namespace

Dataset parse_csv(const std::string& text, const std::string& origin, const CsvOptions& o) {
    std::vector<std::vector<std::string_view>> rows;
    std::vector<std::size_t> line_numbers;
    std::size_t start = 0, line_no = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        ++line_no;
        const std::string_view line = trim(std::string_view(text).substr(start, end - start));
        start = end + 1;
        if (line.empty()) continue;
        rows.push_back(split(line, o.delimiter));
        line_numbers.push_back(line_no);
    }
    if (rows.empty()) throw InputError(origin + ": no data rows (empty file)");
    bool header = o.header == CsvOptions::Header::Yes;
    if (o.header == CsvOptions::Header::Auto) {
        double x;
        for (const auto& cell : rows.front())
            if (!parse_number(cell, x)) header = true;
    }
    const std::size_t first = header ? 1 : 0;
    if (rows.size() <= first) throw InputError(origin + ": a header row but no data rows");
    const std::size_t cols = rows[first].size();
    const int label = o.label_column == -2 ? static_cast<int>(cols) - 1 : o.label_column;
    if (label >= static_cast<int>(cols) || label < -1)
        throw InputError(origin + ": label column " + std::to_string(label + 1) + " does not exist (rows have " +
                         std::to_string(cols) + " columns)");
    const Index dim = static_cast<Index>(cols) - (label >= 0 ? 1 : 0);
    if (dim < 1) throw InputError(origin + ": rows need at least one value besides the label");
    if (static_cast<double>(rows.size() - first) * static_cast<double>(cols) > static_cast<double>(kMaxFileElements))
        throw InputError(origin + ": more than " + std::to_string(kMaxFileElements) + " values; refusing");

    Dataset d;
    d.X.resize(static_cast<Index>(rows.size() - first), dim);
    if (label >= 0) d.labels.resize(rows.size() - first);
    d.max_value = 0.0;
    for (std::size_t r = first; r < rows.size(); ++r) {
        const auto& cells = rows[r];
        const std::string where = origin + ": line " + std::to_string(line_numbers[r]);
        if (cells.size() != cols)
            throw InputError(where + ": expected " + std::to_string(cols) + " columns (as in line " +
                             std::to_string(line_numbers[first]) + "), got " + std::to_string(cells.size()));
        const Index out_row = static_cast<Index>(r - first);
        Index out_col = 0;
        for (std::size_t c = 0; c < cols; ++c) {
            double x;
            if (!parse_number(cells[c], x))
                throw InputError(where + ", column " + std::to_string(c + 1) + ": expected a finite number, got '" +
                                 std::string(trim(cells[c])) + "'");
            if (static_cast<int>(c) == label) {
                if (x != std::floor(x) || std::fabs(x) > 1e9)
                    throw InputError(where + ", column " + std::to_string(c + 1) + ": a label must be an integer, got '" +
                                     std::string(trim(cells[c])) + "'");
                d.labels[static_cast<std::size_t>(out_row)] = static_cast<int>(x);
                continue;
            }
            d.X(out_row, out_col++) = x;
            d.max_value = std::max(d.max_value, std::fabs(x));
        }
    }
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
