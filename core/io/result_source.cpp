#include "core/io/result_source.hpp"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <fstream>

#include "core/io/model_io.hpp"

namespace rbm {

std::string file_fnv1a64(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path.string() + ": cannot be opened to hash");
    std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a offset basis and prime (64 bit)
    char buf[1 << 16];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
        for (std::streamsize i = 0; i < in.gcount(); ++i) {
            h ^= static_cast<unsigned char>(buf[i]);
            h *= 0x100000001b3ULL;
        }
        if (!in) break;
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return hex;
}

std::string shell_command_line(const std::vector<std::string>& argv) {
    std::string out;
    for (const std::string& a : argv) {
        if (!out.empty()) out += ' ';
        bool plain = !a.empty();
        for (char ch : a)
            if (!(std::isalnum(static_cast<unsigned char>(ch)) ||
                  std::string("-_./=:,+@%").find(ch) != std::string::npos))
                plain = false;
        if (plain) {
            out += a;
            continue;
        }
        out += '\'';
        for (char ch : a) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
        out += '\'';
    }
    return out;
}

}  // namespace rbm
