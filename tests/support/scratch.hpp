// tests/support/scratch.hpp — folders and files a test makes for itself in the temp
// folder: a fresh folder under the process's scratch path, a folder removed when the test
// ends, and writing a file's bytes.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include <unistd.h>

#include "support/golden.hpp"

namespace attn::testing {

// scratch_path(name) (support/golden.hpp), emptied and made: a folder for one test case.
inline std::filesystem::path fresh_scratch_dir(const std::string& name) {
    const std::filesystem::path p = scratch_path(name);
    std::filesystem::remove_all(p);
    std::filesystem::create_directories(p);
    return p;
}

// Writes `text` as the whole file, byte for byte.
inline void write_file(const std::filesystem::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary) << text;
}

// The folder attn-LABEL-PID in the temp folder, emptied when made and removed at the end.
struct scratch_folder {
    std::filesystem::path dir;
    explicit scratch_folder(const std::string& label)
        : dir(std::filesystem::temp_directory_path() / ("attn-" + label + "-" + std::to_string(::getpid()))) {
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
    }
    ~scratch_folder() {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
    scratch_folder(const scratch_folder&) = delete;
    scratch_folder& operator=(const scratch_folder&) = delete;
    std::string path(const std::string& name) const { return (dir / name).string(); }
    // Writes `text` to NAME (its folders made first); returns the file's path.
    std::string write(const std::string& name, const std::string& text) const {
        std::filesystem::create_directories((dir / name).parent_path());
        std::ofstream(dir / name, std::ios::binary) << text;
        return path(name);
    }
};

}  // namespace attn::testing
