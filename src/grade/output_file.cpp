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

}  // namespace attn::grade
