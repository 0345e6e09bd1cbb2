// io/output_writer.cpp — see output_writer.hpp. Check the target (lstat: never follow
// a link at the target itself), write a temporary beside it, re-check, rename.
#include "io/output_writer.hpp"
#include "io/state_dir.hpp"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <set>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/input_registry.hpp"
#include "io/output_checks.hpp"
#include "io/temp_registry.hpp"
#include "io/terminal_safe.hpp"

namespace attn::io {

namespace fs = std::filesystem;

namespace {

std::string shown(const std::string& path) { return terminal_safe(path); }

// The refusal for a file in an export folder that the manifest names but cannot vouch for.
std::string unvouched(const std::string& path, const char* verb) {
    return std::string("refusing to ") + verb + " " + terminal_safe(path) + ": " + manifest_name +
           " lists it, but it is not the file attn wrote there (changed since, or the manifest is not attn's); "
           "move it away or choose another directory";
}

std::string kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISLNK(mode)) return "a symbolic link";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

// The checks every file target gets; `existing_ok` false refuses any existing file.
void check_target(const std::string& path, bool existing_ok) {
    if (path.empty()) throw write_error("no output file name given");
    if (auto in = input_matching(path))
        throw write_error("refusing to write " + shown(path) + ": it is one of this run's inputs (" + shown(*in) +
                          "); choose another output name");
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return;  // does not exist yet: fine
    if (!S_ISREG(st.st_mode))
        throw write_error("refusing to write " + shown(path) + ": it is " + kind_of(st.st_mode) +
                          ", and attn only replaces regular files" +
                          (S_ISDIR(st.st_mode) ? "" : " (use '-' to write to standard output)"));
    if (!existing_ok)
        throw write_error("refusing to overwrite " + shown(path) + ": the file exists (pass --force to replace it)");
}

std::atomic<unsigned> temp_counter{0};

std::string temp_name_beside(const fs::path& target) {
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    return (dir / ("." + target.filename().string() + ".attn-tmp-" + std::to_string(::getpid()) + "-" +
                   std::to_string(temp_counter++)))
        .string();
}

void make_parent_dirs(const std::string& path) {
    const fs::path p(path);
    if (!p.has_parent_path()) return;
    std::error_code ec;
    fs::create_directories(p.parent_path(), ec);  // a failure shows up when the file is created
}

// --- export directories -------------------------------------------------------------

bool plain_name(const std::string& name) {
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
           name.find('\0') == std::string::npos && name.compare(0, 5, ".attn") != 0;
}

// One manifest line: "SIZE HASH NAME" (a file attn wrote: its size in bytes, its keyed
// content_hash in 32 hex digits), or anything else naming a file — a bare NAME, an older
// attn's unkeyed 16-digit hash — which vouches for nothing.
void parse_manifest_line(const std::string& line, detail::manifest& m) {
    if (line.empty() || line[0] == '#') return;
    const std::size_t a = line.find(' ');
    const std::size_t b = a == std::string::npos ? a : line.find(' ', a + 1);
    if (b != std::string::npos) {
        const std::string size = line.substr(0, a), hash = line.substr(a + 1, b - a - 1), name = line.substr(b + 1);
        const bool digits = !size.empty() && size.size() <= 18 && size.find_first_not_of("0123456789") == std::string::npos;
        const bool hex = hash.size() == 32 && hash.find_first_not_of("0123456789abcdef") == std::string::npos;
        if (digits && hex && plain_name(name)) {
            m[name] = detail::manifest_entry{std::stoull(size), hash, true};
            return;
        }
        if (digits && plain_name(name)) {
            m[name] = detail::manifest_entry{};
            return;
        }
    }
    if (plain_name(line)) m[line] = detail::manifest_entry{};
}

// The entries of dir's manifest; `found` says whether there is one.
detail::manifest read_manifest(const fs::path& dir, bool* found) {
    detail::manifest entries;
    *found = false;
    const fs::path m = dir / manifest_name;
    struct stat st {};
    if (::lstat(m.c_str(), &st) != 0) return entries;
    if (!S_ISREG(st.st_mode) || st.st_size > (1 << 20))
        throw write_error("refusing to write into " + shown(dir.string()) + ": its " + manifest_name +
                          " is not a regular file of attn's");
    *found = true;
    const int fd = ::open(m.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) throw write_error("cannot read " + shown(m.string()) + ": " + std::strerror(errno));
    std::string text(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t got = 0;
    while (got < text.size()) {
        const ssize_t r = ::read(fd, &text[got], text.size() - got);
        if (r <= 0) break;
        got += static_cast<std::size_t>(r);
    }
    ::close(fd);
    text.resize(got);
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        parse_manifest_line(text.substr(start, end - start), entries);
        start = end + 1;
    }
    return entries;
}

std::string manifest_lines(const detail::manifest& entries) {
    std::string out =
        "# attn export manifest: size, content hash and name of each file attn wrote here; the next export "
        "replaces or removes a file only while it still matches\n";
    for (const auto& [name, e] : entries)
        if (e.recorded) out += std::to_string(e.size) + " " + e.hash + " " + name + "\n";
    return out;
}

bool matches_record(const std::string& path, const detail::manifest_entry& e) {
    if (!e.recorded) return false;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || static_cast<std::uint64_t>(st.st_size) != e.size)
        return false;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return false;
    detail::content_hash h;
    std::vector<char> buf(std::size_t(1) << 20);  // [1 MiB] read in chunks: never the whole file
    ssize_t r = 0;
    while ((r = ::read(fd, buf.data(), buf.size())) > 0) h.add(buf.data(), static_cast<std::size_t>(r));
    ::close(fd);
    return r == 0 && h.value() == e.hash;
}

bool dir_is_empty(const fs::path& dir) {
    std::error_code ec;
    return fs::directory_iterator(dir, ec) == fs::directory_iterator();
}

}  // namespace

namespace detail {
void check_target(const std::string& path, bool existing_ok) { attn::io::check_target(path, existing_ok); }
std::string temp_name_beside(const std::string& target) { return attn::io::temp_name_beside(target); }
manifest read_manifest(const std::string& dir, bool* found) { return attn::io::read_manifest(dir, found); }
std::string manifest_text(const manifest& entries) { return manifest_lines(entries); }
bool vouched(const std::string& path, const manifest_entry& entry) { return matches_record(path, entry); }

content_hash::content_hash() : stream_(export_key()) {}
void content_hash::add(const void* data, std::size_t bytes) { stream_.add(data, bytes); }
std::string content_hash::value() const { return stream_.hex(); }
bool plain_name(const std::string& name) { return attn::io::plain_name(name); }
bool dir_is_empty(const std::string& dir) { return attn::io::dir_is_empty(dir); }

// The one rename-into-place of attn: the target is checked again first (it may have
// changed while the temporary was written), then rename(2) replaces it atomically.
void move_into_place(const std::string& temp, const std::string& target, bool existing_ok) {
    attn::io::check_target(target, existing_ok);
    if (::rename(temp.c_str(), target.c_str()) != 0)
        throw write_error("cannot move the finished file into " + shown(target) + ": " + std::strerror(errno));
}
}  // namespace detail

void output_writer::check_file(const std::string& path, existing e) const {
    if (is_stdout(path)) return;
    check_target(path, e == existing::replace || force_);
}

void output_writer::write_file(const std::string& path, std::string_view content, existing e) const {
    const bool existing_ok = e == existing::replace || force_;
    if (!is_stdout(path)) {
        check_target(path, existing_ok);
        if (make_parents_) make_parent_dirs(path);
    }
    staged_file f(path);  // the one temp-and-rename writer, and "-" (output_staged.cpp)
    f.write(content.data(), content.size());
    f.commit(existing_ok);
}

void output_writer::check_dir(const std::string& dir, const std::map<std::string, std::string>& files) const {
    if (dir.empty()) throw write_error("no output directory given");
    if (is_stdout(dir)) throw write_error("an export directory cannot be standard output ('-')");
    for (const auto& kv : files)
        if (!plain_name(kv.first)) throw write_error("internal: bad export file name '" + shown(kv.first) + "'");
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0) return;  // created on write
    if (!S_ISDIR(st.st_mode))
        throw write_error("refusing to write into " + shown(dir) + ": it is " + kind_of(st.st_mode) +
                          ", expected a directory (attn creates it when missing)");
    bool has_manifest = false;
    const detail::manifest ours = read_manifest(dir, &has_manifest);
    if (!has_manifest && !dir_is_empty(dir))
        throw write_error("refusing to write into " + shown(dir) + ": the directory is not empty and holds no " +
                          manifest_name + " from an earlier attn export; choose a new or empty directory");
    for (const auto& kv : files) {
        const fs::path p = fs::path(dir) / kv.first;
        struct stat f {};
        if (::lstat(p.c_str(), &f) != 0) continue;
        const auto it = ours.find(kv.first);
        if (it == ours.end())
            throw write_error("refusing to write " + shown(p.string()) + ": the file exists and attn did not write it");
        check_target(p.string(), true);  // never one of this run's inputs
        if (!matches_record(p.string(), it->second)) throw write_error(unvouched(p.string(), "replace"));
    }
}

}  // namespace attn::io
