// io/mapped_file.hpp — a large input read by mapping it into memory (model checkpoints:
// a GPT-2-small safetensors file is 500 MB; mapping it costs no copy and no time until
// a page is touched). The same checks as io/input_read: regular files only (a FIFO,
// device or directory is refused without blocking), the file registered as an input of
// this run so no output is ever written over it. Standard input cannot be mapped and is
// refused. The mapping is read-only and private; a file cut short by another process
// while mapped is named in a message and attn exits 2 (SIGBUS, caught for mapped files).
#pragma once

#include <cstddef>
#include <string>

#include "io/input_error.hpp"

namespace attn::io {

class mapped_file {
public:
    // Opens, checks and maps `path`; `what` names it in messages ("checkpoint").
    explicit mapped_file(const std::string& path, const std::string& what = "file");
    ~mapped_file();
    mapped_file(const mapped_file&) = delete;
    mapped_file& operator=(const mapped_file&) = delete;

    const std::string& name() const { return name_; }
    const unsigned char* data() const { return data_; }  // nullptr when empty
    std::size_t size() const { return size_; }
    // Done with bytes [begin, end): their pages leave this process's memory (the file
    // stays in the page cache; touching them again reads them back). Keeps the peak RSS
    // of a reader that copies a file out to the copy, not the copy plus the file.
    void release(std::size_t begin, std::size_t end) const;

private:
    std::string name_;
    const unsigned char* data_ = nullptr;
    std::size_t size_ = 0;
    int slot_ = -1;  // the SIGBUS handler's record of this mapping
};

}  // namespace attn::io
