// io/output_staged.cpp — the streaming forms of the output writer (staged_file,
// staged_directory; see output_writer.hpp): what the trace exports stream through.
#include <cerrno>
#include <cstring>
#include <filesystem>
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
    if (checked_) {
        detail::check_target(target_, true);  // never an input, a device, a FIFO or a symlink
        temp_ = detail::temp_name_beside(target_);
    }
    slot_ = track_temp(temp_);
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd_ < 0) {
        const int err = errno;
        untrack_temp(slot_);
        throw write_error("cannot write " + terminal_safe(target_) + " (cannot create a file in its directory: " +
                          std::strerror(err) + ")");
    }
    buffer_.reserve(buffer_bytes);
}

staged_file::~staged_file() {
    if (fd_ >= 0) ::close(fd_);
    if (!done_) ::unlink(temp_.c_str());
    untrack_temp(slot_);
}

void staged_file::flush() {
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
    if (fd_ < 0) return;
    flush();
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw write_error("writing " + terminal_safe(target_) + " failed: " + std::strerror(errno));
}

void staged_file::commit() {
    finish();
    if (checked_) detail::check_target(target_, true);  // it may have changed while we wrote
    if (::rename(temp_.c_str(), target_.c_str()) != 0)
        throw write_error("cannot move the finished file into " + terminal_safe(target_) + ": " + std::strerror(errno));
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
    untrack_temp(slot_);
}

void staged_directory::add(const std::string& name, const std::function<void(staged_file&)>& fill) {
    if (!detail::plain_name(name)) throw write_error("internal: bad export file name '" + terminal_safe(name) + "'");
    const std::string path = (fs::path(temp_) / name).string();
    staged_file f(path, path + ".part");
    fill(f);
    f.commit();  // complete under its name in the temporary directory
    names_.push_back(name);
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
    open_.erase(it);
    names_.push_back(name);
}

void staged_directory::commit() {
    if (!open_.empty()) throw write_error("internal: " + open_.begin()->first + " was never finished");
    std::map<std::string, std::string> names_only;
    for (const auto& n : names_) names_only[n];
    const output_writer plain;
    plain.check_dir(dir_, names_only);  // every name: ours (in the manifest) or new
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec) throw write_error("cannot create directory " + terminal_safe(dir_) + ": " + ec.message());
    bool has_manifest = false;
    const std::set<std::string> old = detail::read_manifest(dir_, &has_manifest);
    std::set<std::string> now(names_.begin(), names_.end());
    std::set<std::string> both = old;
    both.insert(now.begin(), now.end());
    // The manifest first lists old and new names, so a run stopped midway still owns both.
    plain.write_file((fs::path(dir_) / manifest_name).string(), detail::manifest_text(both));
    for (const auto& name : names_) {
        const fs::path to = fs::path(dir_) / name;
        detail::check_target(to.string(), true);
        if (::rename((fs::path(temp_) / name).c_str(), to.c_str()) != 0)
            throw write_error("cannot move " + terminal_safe(name) + " into " + terminal_safe(dir_) + ": " + std::strerror(errno));
    }
    done_ = true;
    for (const auto& name : old) {  // the previous export's files this one did not write
        if (now.count(name)) continue;
        const fs::path p = fs::path(dir_) / name;
        struct stat st {};
        if (::lstat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode)) ::unlink(p.c_str());
    }
    plain.write_file((fs::path(dir_) / manifest_name).string(), detail::manifest_text(now));
}

}  // namespace attn::io
