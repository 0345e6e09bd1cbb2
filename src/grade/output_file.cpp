// grade/output_file.cpp — see output_file.hpp.
#include "grade/output_file.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <unistd.h>

namespace attn::grade {

namespace fs = std::filesystem;

void write_file_atomic(const std::string& path, const std::string& text) {
    const fs::path target(path);
    std::error_code ec;
    if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
    const fs::path tmp = target.parent_path() / (".tmp-" + target.filename().string() + "-" + std::to_string(::getpid()));
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw std::runtime_error("cannot write " + path + " (cannot create " + tmp.string() + ")");
        out << text;
        out.flush();
        if (!out) {
            out.close();
            fs::remove(tmp, ec);
            throw std::runtime_error("cannot write " + path + " (disk full?)");
        }
    }
    fs::rename(tmp, target, ec);
    if (ec) {
        const std::string why = ec.message();
        fs::remove(tmp, ec);
        throw std::runtime_error("cannot write " + path + " (" + why + ")");
    }
}

streamed_file::streamed_file(const std::string& path) : path_(path) {
    if (path == "-") {
        f_ = stdout;
        return;
    }
    const fs::path target(path);
    std::error_code ec;
    if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
    tmp_ = (target.parent_path() / (".tmp-" + target.filename().string() + "-" + std::to_string(::getpid()))).string();
    f_ = std::fopen(tmp_.c_str(), "wb");
    if (!f_) throw std::runtime_error("cannot write " + path + " (cannot create " + tmp_ + ")");
}

streamed_file::~streamed_file() {
    if (tmp_.empty() || done_) return;
    if (f_) std::fclose(f_);
    std::error_code ec;
    fs::remove(tmp_, ec);
}

void streamed_file::write(const std::string& text) {
    if (std::fwrite(text.data(), 1, text.size(), f_) != text.size()) throw std::runtime_error("cannot write " + path_ + " (disk full?)");
}

void streamed_file::commit() {
    if (tmp_.empty()) {
        std::fflush(f_);
        done_ = true;
        return;
    }
    const bool ok = std::fflush(f_) == 0 && std::fclose(f_) == 0;
    f_ = nullptr;
    std::error_code ec;
    if (ok) fs::rename(tmp_, path_, ec);
    if (!ok || ec) {
        fs::remove(tmp_, ec);
        throw std::runtime_error("cannot write " + path_ + (ok ? " (rename failed)" : " (disk full?)"));
    }
    done_ = true;
}

}  // namespace attn::grade
