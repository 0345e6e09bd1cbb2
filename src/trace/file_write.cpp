// trace/file_write.cpp — see file_write.hpp.
#include "trace/file_write.hpp"

#include <filesystem>
#include <fstream>
#include <system_error>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

namespace attn::trace {

namespace fs = std::filesystem;

namespace {

void write_plain(const fs::path& p, const std::string& content) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    if (!out) throw write_error("cannot write " + p.string() + " (does its directory exist, is it writable?)");
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.close();
    if (!out) throw write_error("writing " + p.string() + " failed (disk full?)");
}

constexpr std::size_t buffer_bytes = std::size_t(1) << 20;

fs::path temp_dir_beside(const fs::path& target) {
    const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
    const fs::path stem = target.has_filename() ? target.filename() : target.parent_path().filename();
    return parent / (stem.string() + ".tmp-" + std::to_string(::getpid()));
}

}  // namespace

staged_file::staged_file(std::string target, std::string temp) : target_(std::move(target)), temp_(std::move(temp)) {
    if (fs::is_directory(target_)) throw write_error("cannot write " + target_ + ": it is a directory");
    if (temp_.empty()) temp_ = target_ + ".tmp-" + std::to_string(::getpid());
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) throw write_error("cannot write " + target_ + " (does its directory exist, is it writable?)");
    buffer_.reserve(buffer_bytes);
}

staged_file::~staged_file() {
    if (fd_ >= 0) ::close(fd_);
    if (!done_) ::unlink(temp_.c_str());
}

void staged_file::flush() {
    const char* p = buffer_.data();
    std::size_t left = buffer_.size();
    while (left > 0) {
        const ssize_t n = ::write(fd_, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw write_error("writing " + target_ + " failed: " + std::strerror(errno) + " (disk full?)");
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
    if (::close(fd) != 0) throw write_error("writing " + target_ + " failed: " + std::strerror(errno));
}

void staged_file::commit() {
    finish();
    std::error_code ec;
    fs::rename(temp_, target_, ec);
    if (ec) throw write_error("cannot move the finished file into " + target_ + ": " + ec.message());
    done_ = true;
}

staged_directory::staged_directory(const std::string& dir) : dir_(dir) {
    const fs::path target(dir);
    if (fs::exists(target) && !fs::is_directory(target)) throw write_error("cannot write into " + dir + ": it is a file");
    temp_ = temp_dir_beside(target).string();
    std::error_code ec;
    fs::remove_all(temp_, ec);
    if (!fs::create_directories(temp_, ec) || ec)
        throw write_error("cannot create a temporary directory beside " + dir + ": " + ec.message());
}

staged_directory::~staged_directory() {
    open_.clear();  // unlinks unfinished files first
    std::error_code ec;
    fs::remove_all(temp_, ec);
}

void staged_directory::add(const std::string& name, const std::function<void(staged_file&)>& fill) {
    const std::string path = (fs::path(temp_) / name).string();
    staged_file f(path, path + ".part");
    fill(f);
    f.commit();  // complete under its name in the temporary directory
    names_.push_back(name);
}

staged_file& staged_directory::open(const std::string& name) {
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
    const fs::path target(dir_);
    std::error_code ec;
    fs::create_directories(target, ec);
    if (ec) throw write_error("cannot create directory " + dir_ + ": " + ec.message());
    for (const auto& name : names_) {
        fs::rename(fs::path(temp_) / name, target / name, ec);
        if (ec) throw write_error("cannot move " + name + " into " + dir_ + ": " + ec.message());
    }
    done_ = true;
}

void write_file_atomically(const std::string& path, const std::string& content) {
    const fs::path target(path);
    if (fs::is_directory(target)) throw write_error("cannot write " + path + ": it is a directory");
    const fs::path tmp = target.string() + ".tmp-" + std::to_string(::getpid());
    try {
        write_plain(tmp, content);
    } catch (...) {
        std::error_code ec;
        fs::remove(tmp, ec);
        throw;
    }
    std::error_code ec;
    fs::rename(tmp, target, ec);
    if (ec) {
        fs::remove(tmp, ec);
        throw write_error("cannot move the finished file into " + path + ": " + ec.message());
    }
}

void write_directory_atomically(const std::string& dir, const std::map<std::string, std::string>& files) {
    const fs::path target(dir);
    std::error_code ec;
    if (fs::exists(target) && !fs::is_directory(target)) throw write_error("cannot write into " + dir + ": it is a file");
    const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
    const fs::path stem = target.has_filename() ? target.filename() : target.parent_path().filename();
    const fs::path tmp = parent / (stem.string() + ".tmp-" + std::to_string(::getpid()));
    fs::remove_all(tmp, ec);
    if (!fs::create_directories(tmp, ec) || ec)
        throw write_error("cannot create a temporary directory beside " + dir + ": " + ec.message());
    try {
        for (const auto& [name, bytes] : files) write_plain(tmp / name, bytes);
        fs::create_directories(target, ec);
        if (ec) throw write_error("cannot create directory " + dir + ": " + ec.message());
        for (const auto& [name, bytes] : files) {
            fs::rename(tmp / name, target / name, ec);
            if (ec) throw write_error("cannot move " + name + " into " + dir + ": " + ec.message());
        }
    } catch (...) {
        fs::remove_all(tmp, ec);
        throw;
    }
    fs::remove_all(tmp, ec);
}

}  // namespace attn::trace
