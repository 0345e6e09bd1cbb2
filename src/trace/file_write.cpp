// trace/file_write.cpp — see file_write.hpp.
#include "trace/file_write.hpp"

#include <filesystem>
#include <fstream>
#include <system_error>

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

}  // namespace

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
