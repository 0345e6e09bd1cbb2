// io/output_staged.cpp — the streaming forms of the output writer (staged_file,
// staged_directory; see output_writer.hpp): what the trace exports stream through.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <set>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/output_writer.hpp"
#include "io/input_registry.hpp"
#include "io/output_checks.hpp"
#include "io/temp_registry.hpp"
#include "io/terminal_safe.hpp"

namespace attn::io {

namespace fs = std::filesystem;

namespace {
constexpr std::size_t buffer_bytes = std::size_t(1) << 20;
}

staged_file::staged_file(std::string target, std::string temp)
    : target_(std::move(target)), temp_(std::move(temp)), checked_(temp_.empty()) {
    if (checked_ && is_stdout(target_)) {  // standard output: no target to check, nothing to stage
        stdout_ = true;
        buffer_.reserve(buffer_bytes);
        return;
    }
    if (checked_) {
        detail::check_target(target_, true);  // never an input, a device, a FIFO or a symlink
        temp_ = detail::temp_name_beside(target_);
    }
    slot_ = track_temp(temp_);
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);  // the one mode (less the umask)
    if (fd_ < 0) {
        const int err = errno;
        untrack_temp(slot_);
        throw write_error("cannot write " + terminal_safe(target_) + " (cannot create a file in its directory: " +
                          std::strerror(err) + ")");
    }
    buffer_.reserve(buffer_bytes);
}

staged_file::~staged_file() {
    if (stdout_) return;
    if (fd_ >= 0) ::close(fd_);
    if (!done_) ::unlink(temp_.c_str());
    untrack_temp(slot_);
}

void staged_file::flush() {
    if (stdout_) {
        std::cout.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
        buffer_.clear();
        std::cout.flush();
        // A closed standard output is not a full disk (io/stdout_check says which).
        if (!std::cout) throw write_error("cannot write to standard output");
        return;
    }
    const char* p = buffer_.data();
    std::size_t left = buffer_.size();
    while (left > 0) {
        const ssize_t n = ::write(fd_, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            throw write_error("writing " + terminal_safe(target_) + " failed: " +
                              (errno == ENOSPC ? std::string("the disk is full") : std::strerror(errno)));
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    buffer_.clear();
}

void staged_file::write(const void* data, std::size_t bytes) {
    written_ += bytes;
    hash_.add(data, bytes);
    if (buffer_.size() + bytes <= buffer_bytes) {
        buffer_.append(static_cast<const char*>(data), bytes);
        return;
    }
    flush();
    if (bytes < buffer_bytes) {
        buffer_.append(static_cast<const char*>(data), bytes);
        return;
    }
    buffer_.assign(static_cast<const char*>(data), bytes);  // one large write, straight through
    flush();
    buffer_.shrink_to_fit();
    buffer_.reserve(buffer_bytes);
}

void staged_file::finish() {
    if (stdout_) return flush();
    if (fd_ < 0) return;
    flush();
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw write_error("writing " + terminal_safe(target_) + " failed: " + std::strerror(errno));
}

void staged_file::commit(bool existing_ok) {
    finish();
    if (stdout_) {
        done_ = true;
        return;
    }
    detail::move_into_place(temp_, target_, existing_ok);  // checked again: it may have changed while we wrote
    done_ = true;
}

// --- staged_directory ----------------------------------------------------------------

staged_directory::staged_directory(const std::string& dir) : dir_(dir) {
    output_writer().check_dir(dir, {});  // a file, a symlink, a foreign non-empty folder: refused now
    temp_ = detail::temp_name_beside(fs::path(dir).lexically_normal().string());
    slot_ = track_temp(temp_, true);
    if (::mkdir(temp_.c_str(), 0777) != 0) {
        const int err = errno;
        untrack_temp(slot_);
        throw write_error("cannot create a temporary directory beside " + terminal_safe(dir) + ": " + std::strerror(err));
    }
}

staged_directory::~staged_directory() {
    open_.clear();  // unlinks unfinished files first
    std::error_code ec;
    if (!done_) fs::remove_all(temp_, ec);
    else ::rmdir(temp_.c_str());
    for (int s : finished_slots_) untrack_temp(s);
    untrack_temp(slot_);
}

// A file complete under its name in the temporary directory: recorded for the
// manifest, and tracked so that a signal removes it with the directory.
void staged_directory::finished(const std::string& name, const staged_file& f) {
    names_.push_back(name);
    written_[name] = detail::manifest_entry{f.bytes_written(), f.content_hash(), true};
    finished_slots_.push_back(track_temp((fs::path(temp_) / name).string()));
}

void staged_directory::add(const std::string& name, const std::function<void(staged_file&)>& fill) {
    if (!detail::plain_name(name)) throw write_error("internal: bad export file name '" + terminal_safe(name) + "'");
    const std::string path = (fs::path(temp_) / name).string();
    staged_file f(path, path + ".part");
    fill(f);
    f.commit();  // complete under its name in the temporary directory
    finished(name, f);
}

staged_file& staged_directory::open(const std::string& name) {
    if (!detail::plain_name(name)) throw write_error("internal: bad export file name '" + terminal_safe(name) + "'");
    const std::string path = (fs::path(temp_) / name).string();
    auto& slot = open_[name];
    slot = std::make_unique<staged_file>(path, path + ".part");
    return *slot;
}

staged_file& staged_directory::file(const std::string& name) {
    auto it = open_.find(name);
    if (it == open_.end()) throw write_error("internal: " + name + " is not open");
    return *it->second;
}

void staged_directory::close(const std::string& name) {
    auto it = open_.find(name);
    if (it == open_.end()) throw write_error("internal: " + name + " is not open");
    it->second->commit();
    finished(name, *it->second);
    open_.erase(it);
}

namespace {

// The previous export's files that this one does not write, to remove: each must be
// the file attn wrote (size and hash as the manifest records), else the export is
// refused before anything moves. One of this run's inputs is kept (and forgotten).
std::vector<std::string> stale_files(const std::string& dir, detail::manifest& old, const detail::manifest& now) {
    std::vector<std::string> stale;
    for (auto it = old.begin(); it != old.end();) {
        const fs::path p = fs::path(dir) / it->first;
        struct stat st {};
        const bool here = ::lstat(p.c_str(), &st) == 0;
        if (now.count(it->first) || !here || input_matching(p.string())) {  // replaced, gone, or in use
            it = now.count(it->first) ? std::next(it) : old.erase(it);
            continue;
        }
        if (!detail::vouched(p.string(), it->second))
            throw write_error("refusing to remove " + terminal_safe(p.string()) + " (a file of the previous export " +
                              "that this one does not write): " + manifest_name +
                              " lists it, but it is not the file attn wrote there (changed since, or the manifest is "
                              "not attn's); move it away or choose another directory");
        stale.push_back(it->first);
        ++it;
    }
    return stale;
}

}  // namespace

void staged_directory::commit() {
    if (!open_.empty()) throw write_error("internal: " + open_.begin()->first + " was never finished");
    std::map<std::string, std::string> names_only;
    for (const auto& n : names_) names_only[n];
    const output_writer plain;
    plain.check_dir(dir_, names_only);  // every name: new, or the file attn wrote (vouched)
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec) throw write_error("cannot create directory " + terminal_safe(dir_) + ": " + ec.message());
    bool has_manifest = false;
    detail::manifest old = detail::read_manifest(dir_, &has_manifest);
    const std::vector<std::string> stale = stale_files(dir_, old, written_);
    detail::manifest both = old;
    for (const auto& [name, e] : written_) both[name] = e;
    // The manifest first lists old and new files, so a run stopped midway still owns both.
    plain.write_file((fs::path(dir_) / manifest_name).string(), detail::manifest_text(both));
    for (const auto& name : names_) {
        detail::move_into_place((fs::path(temp_) / name).string(), (fs::path(dir_) / name).string(), true);
    }
    done_ = true;
    for (const auto& name : stale) ::unlink((fs::path(dir_) / name).c_str());  // vouched for above
    plain.write_file((fs::path(dir_) / manifest_name).string(), detail::manifest_text(written_));
}

}  // namespace attn::io
