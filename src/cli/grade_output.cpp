// cli/grade_output.cpp — see grade_output.hpp.
#include "cli/grade_output.hpp"

#include <filesystem>
#include <iostream>

#include "io/output_writer.hpp"

namespace attn::cli {

namespace fs = std::filesystem;

void write_file_atomic(const std::string& path, const std::string& text) {
    io::output_writer(false, /*make_parents=*/true).write_file(path, text);
}

streamed_file::streamed_file(const std::string& path) : path_(path) {
    if (io::is_stdout(path)) {  // standard output through the one writer (io/output_staged)
        staged_ = std::make_unique<io::staged_file>(path);
        return;
    }
    if (path == "/dev/stderr") return;
    const fs::path target(path);
    std::error_code ec;
    if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
    staged_ = std::make_unique<io::staged_file>(path);  // checks the target now and at commit
}

streamed_file::~streamed_file() = default;  // an uncommitted temporary is removed

void streamed_file::write(const std::string& text) {
    if (staged_) return staged_->write(text);
    std::cerr << text;
    if (!std::cerr) throw io::write_error("cannot write to standard error");
}

void streamed_file::commit() {
    if (staged_) return staged_->commit();
    std::cerr.flush();
}

}  // namespace attn::cli
