// io/output_writer.cpp — see output_writer.hpp. Check the target (lstat: never follow
// a link at the target itself), write a temporary beside it, re-check, rename.
#include "io/output_writer.hpp"

#include <atomic>
#include <cerrno>
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

void write_all(int fd, std::string_view content, const std::string& what) {
    std::size_t done = 0;
    while (done < content.size()) {
        const ssize_t w = ::write(fd, content.data() + done, content.size() - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            const int err = w < 0 ? errno : EIO;
            throw write_error("writing " + shown(what) + " failed: " +
                              (err == ENOSPC ? std::string("the disk is full") : std::strerror(err)));
        }
        done += static_cast<std::size_t>(w);
    }
}

// A tracked temporary file holding `content`; removed (and untracked) if anything fails.
struct temp_file {
    std::string path;
    int slot = -1;
    temp_file(const std::string& p, std::string_view content, const std::string& target) : path(p) {
        slot = track_temp(path);
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
        if (fd < 0) {
            const int err = errno;
            untrack_temp(slot);
            throw write_error("cannot write " + shown(target) + " (cannot create a file in its directory: " +
                              std::strerror(err) + ")");
        }
        try {
            write_all(fd, content, target);
        } catch (...) {
            ::close(fd);
            discard();
            throw;
        }
        if (::close(fd) != 0) {
            const int err = errno;
            discard();
            throw write_error("writing " + shown(target) + " failed: " + std::strerror(err));
        }
    }
    void discard() {
        ::unlink(path.c_str());
        untrack_temp(slot);
        slot = -1;
    }
    // rename() into place; the target is re-checked first (it may have changed since).
    void move_to(const std::string& target, bool existing_ok) {
        try {
            check_target(target, existing_ok);
        } catch (...) {
            discard();
            throw;
        }
        if (::rename(path.c_str(), target.c_str()) != 0) {
            const int err = errno;
            discard();
            throw write_error("cannot move the finished file into " + shown(target) + ": " + std::strerror(err));
        }
        untrack_temp(slot);
        slot = -1;
    }
};

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

// The names listed in dir's manifest; `found` says whether there is one.
std::set<std::string> read_manifest(const fs::path& dir, bool* found) {
    std::set<std::string> names;
    *found = false;
    const fs::path m = dir / manifest_name;
    struct stat st {};
    if (::lstat(m.c_str(), &st) != 0) return names;
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
        const std::string line = text.substr(start, end - start);
        if (!line.empty() && line[0] != '#' && plain_name(line)) names.insert(line);
        start = end + 1;
    }
    return names;
}

std::string manifest_text(const std::set<std::string>& names) {
    std::string out = "# attn export manifest: the files attn wrote here last; the next export removes them\n";
    for (const auto& n : names) out += n + "\n";
    return out;
}

bool dir_is_empty(const fs::path& dir) {
    std::error_code ec;
    return fs::directory_iterator(dir, ec) == fs::directory_iterator();
}

}  // namespace

namespace detail {
void check_target(const std::string& path, bool existing_ok) { attn::io::check_target(path, existing_ok); }
std::string temp_name_beside(const std::string& target) { return attn::io::temp_name_beside(target); }
std::set<std::string> read_manifest(const std::string& dir, bool* found) { return attn::io::read_manifest(dir, found); }
std::string manifest_text(const std::set<std::string>& names) { return attn::io::manifest_text(names); }
bool plain_name(const std::string& name) { return attn::io::plain_name(name); }
bool dir_is_empty(const std::string& dir) { return attn::io::dir_is_empty(dir); }
}  // namespace detail

void output_writer::check_file(const std::string& path, existing e) const {
    if (path == "-") return;
    check_target(path, e == existing::replace || force_);
}

void output_writer::write_file(const std::string& path, std::string_view content, existing e) const {
    if (path == "-") {
        std::cout.write(content.data(), static_cast<std::streamsize>(content.size()));
        std::cout.flush();
        if (!std::cout) throw write_error("cannot write to standard output");
        return;
    }
    const bool existing_ok = e == existing::replace || force_;
    check_target(path, existing_ok);
    if (make_parents_) make_parent_dirs(path);
    temp_file tmp(temp_name_beside(path), content, path);
    tmp.move_to(path, existing_ok);
}

void output_writer::check_dir(const std::string& dir, const std::map<std::string, std::string>& files) const {
    if (dir.empty()) throw write_error("no output directory given");
    if (dir == "-") throw write_error("an export directory cannot be standard output ('-')");
    for (const auto& kv : files)
        if (!plain_name(kv.first)) throw write_error("internal: bad export file name '" + shown(kv.first) + "'");
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0) return;  // created on write
    if (!S_ISDIR(st.st_mode))
        throw write_error("refusing to write into " + shown(dir) + ": it is " + kind_of(st.st_mode) +
                          ", expected a directory (attn creates it when missing)");
    bool has_manifest = false;
    const std::set<std::string> ours = read_manifest(dir, &has_manifest);
    if (!has_manifest && !dir_is_empty(dir))
        throw write_error("refusing to write into " + shown(dir) + ": the directory is not empty and holds no " +
                          manifest_name + " from an earlier attn export; choose a new or empty directory");
    for (const auto& kv : files) {
        const fs::path p = fs::path(dir) / kv.first;
        struct stat f {};
        if (::lstat(p.c_str(), &f) != 0) continue;
        if (!ours.count(kv.first))
            throw write_error("refusing to write " + shown(p.string()) + ": the file exists and attn did not write it");
        check_target(p.string(), true);
    }
}

void output_writer::write_dir(const std::string& dir, const std::map<std::string, std::string>& files) const {
    check_dir(dir, files);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw write_error("cannot create directory " + shown(dir) + ": " + ec.message());
    bool has_manifest = false;
    const std::set<std::string> old = read_manifest(dir, &has_manifest);
    std::set<std::string> now;
    for (const auto& kv : files) now.insert(kv.first);

    // Every file complete in a temporary directory inside `dir` before the first moves.
    const fs::path tmp_dir = fs::path(dir) / (".attn-tmp-" + std::to_string(::getpid()) + "-" + std::to_string(temp_counter++));
    const int dir_slot = track_temp(tmp_dir.string(), true);
    if (::mkdir(tmp_dir.c_str(), 0777) != 0) {
        untrack_temp(dir_slot);
        throw write_error("cannot create a temporary directory in " + shown(dir) + ": " + std::strerror(errno));
    }
    std::vector<temp_file> temps;
    temps.reserve(files.size());
    const output_writer plain;
    try {
        for (const auto& [name, bytes] : files)
            temps.emplace_back((tmp_dir / name).string(), bytes, (fs::path(dir) / name).string());
        // The manifest first lists old and new names, so a run stopped midway still owns both.
        std::set<std::string> both = old;
        both.insert(now.begin(), now.end());
        plain.write_file((fs::path(dir) / manifest_name).string(), manifest_text(both));
        for (auto& t : temps) t.move_to((fs::path(dir) / fs::path(t.path).filename()).string(), true);
    } catch (...) {
        for (auto& t : temps)
            if (t.slot >= 0) t.discard();
        ::rmdir(tmp_dir.c_str());
        untrack_temp(dir_slot);
        throw;
    }
    ::rmdir(tmp_dir.c_str());
    untrack_temp(dir_slot);
    // Stale files of the previous run: only regular files the manifest names.
    for (const auto& name : old) {
        if (now.count(name)) continue;
        const fs::path p = fs::path(dir) / name;
        struct stat st {};
        if (::lstat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode)) ::unlink(p.c_str());
    }
    plain.write_file((fs::path(dir) / manifest_name).string(), manifest_text(now));
}

}  // namespace attn::io
