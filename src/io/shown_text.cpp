// io/shown_text.cpp — see shown_text.hpp.
#include "io/shown_text.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "io/utf8.hpp"

namespace attn::io {

namespace fs = std::filesystem;

namespace {

// A path dir/a/b with no empty, "." or ".." step and no symbolic link at its end is
// a/b: what fs::relative would say, without its system call per step (100,000 files).
std::optional<std::string> plainly_inside(const std::string& path, const std::string& dir) {
    std::string base = dir;
    while (base.size() > 1 && base.back() == '/') base.pop_back();
    if (path.size() <= base.size() + 1 || path.compare(0, base.size(), base) != 0 || path[base.size()] != '/')
        return std::nullopt;
    const std::string rest = path.substr(base.size() + 1);
    for (std::size_t at = 0; at <= rest.size();) {
        const std::size_t end = std::min(rest.find('/', at), rest.size());
        const std::string step = rest.substr(at, end - at);
        if (step.empty() || step == "." || step == "..") return std::nullopt;
        at = end + 1;
    }
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(path, ec)) || ec) return std::nullopt;
    return rest;
}

}  // namespace

std::string capped_text(const std::string& text, std::size_t max_bytes) {
    if (text.size() <= max_bytes) return text;
    const std::size_t cut = utf8_boundary(text, max_bytes);
    return text.substr(0, cut) + " … [" + std::to_string(text.size() - cut) + " more bytes cut]";
}

std::string first_line(const std::string& text, std::size_t max_bytes) {
    const std::string line = text.substr(0, text.find('\n'));
    return line.size() > max_bytes ? line.substr(0, utf8_boundary(line, max_bytes)) + "…" : line;
}

void cap_lines(std::vector<std::string>& lines, std::size_t max_lines, std::size_t max_bytes, const std::string& what) {
    const std::size_t more = lines.size() > max_lines ? lines.size() - max_lines : 0;
    if (more) lines.resize(max_lines);
    for (auto& l : lines) l = capped_text(l, max_bytes);
    if (more) lines.push_back("… and " + std::to_string(more) + " more " + what + " (cut)");
}

std::string printable_name(const std::string& s) {
    if (valid_utf8(s)) return s;
    std::string out;
    char escaped[8];
    for (unsigned char c : s) {
        if (c < 0x80) {
            out += static_cast<char>(c);
        } else {
            std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
            out += escaped;
        }
    }
    return out;
}

std::string shown_relative(const std::string& path, const std::string& dir) {
    if (const auto rest = plainly_inside(path, dir)) return printable_name(*rest);
    std::error_code ec;
    const auto rel = fs::relative(path, dir, ec);
    return printable_name(ec || rel.empty() ? path : rel.string());
}

void strip_folder(std::string& text, const std::string& dir, bool leading_only) {
    std::string prefix = dir;
    while (prefix.size() > 1 && prefix.back() == '/') prefix.pop_back();
    prefix += "/";
    if (leading_only) {
        if (text.rfind(prefix, 0) == 0) text.erase(0, prefix.size());
        return;
    }
    for (std::size_t at; (at = text.find(prefix)) != std::string::npos;) text.erase(at, prefix.size());
}

std::string spreadsheet_text(const std::string& s) {
    if (s.size() >= 2 && s[0] == '\'' && std::string("=+-@\t\r").find(s[1]) != std::string::npos) return s.substr(1);
    return s;
}

}  // namespace attn::io
