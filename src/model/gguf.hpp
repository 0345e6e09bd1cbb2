// model/gguf.hpp — the GGUF file format (llama.cpp's and Ollama's models), versions 2
// and 3, little-endian: "GGUF", the version (u32), the tensor count and the metadata
// count (u64), the metadata (key: a string; value: a u32 type, then the value — u8 …
// i64, f32, f64, bool, a string as a u64 length and its bytes, or an array as its
// element type, a u64 count and the elements, arrays of arrays included), the tensor
// table (name, n_dims ≤ 4, the dims innermost first as u64, the ggml type as u32, the
// offset in the data as u64), then the data, which starts at the header's end rounded
// up to `general.alignment` (default 32); every tensor's offset is a multiple of it.
//
// The file is untrusted input (the safetensors rules): every length and count is
// checked against the bytes that are left before anything is allocated from it (a
// string is at least 8 bytes, an array element at least 1), nesting ≤ 8 arrays deep,
// n_dims ≤ 4, a known ggml type (model/gguf_quant.hpp sizes every one of ggml's, so a
// file of any type parses; converting refuses what attn does not dequantize), dims ×
// type size = bytes without overflow (and the innermost dim a whole number of blocks),
// every tensor inside the file, aligned, and no two tensors overlapping. Keys and
// tensor names are unique. Every error is a model::file_error: `file: byte N: …`, what
// was expected and what was found; the CLI exits 2.
//
// Metadata values are not copied out: the header keeps where each one is, and the
// typed getters read it from the bytes (which must outlive the header: gguf_file owns
// the mapping and the header together). So reading a header costs one pass over the
// metadata without allocating for its arrays — a 128k-token vocabulary included.
//
// API for the other readers (tokenizers, the model families):
//   gguf_file f(path);                        // maps and parses; f.header()
//   h.find(key)                               // the value or nullptr (type, element type, count)
//   h.get_uint / get_int / get_float / get_bool / get_string (key)   → std::optional
//   h.get_strings / get_floats / get_ints (key)                      → std::optional<vector>
//   h.require_uint(key, why) …                // the same, refusing an absent key by name
// Each getter refuses a value of another type with a file_error at the value's byte
// (get_uint/get_int take any integer type in range; get_float takes f32 or f64;
// get_floats takes f32 or f64 elements, get_ints any integer elements).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attn::io {
class mapped_file;
}

namespace attn::model {

// The metadata value types, as GGUF numbers them.
enum class gguf_type : std::uint32_t {
    u8 = 0, i8 = 1, u16 = 2, i16 = 3, u32 = 4, i32 = 5, f32 = 6, boolean = 7,
    string = 8, array = 9, u64 = 10, i64 = 11, f64 = 12,
};
// "u32", "string", "array" …; "type N" for a number GGUF does not define.
std::string gguf_type_name(gguf_type t);

// Limits of the reader (far above any real model's; they bound the work and memory).
constexpr std::uint32_t gguf_max_dims = 4;          // ggml's GGML_MAX_DIMS
constexpr int gguf_max_nesting = 8;                 // arrays of arrays of …
constexpr std::uint64_t gguf_max_alignment = 1u << 16;

// One metadata value, read from the bytes when asked for.
struct gguf_value {
    gguf_type type = gguf_type::u8;
    gguf_type element = gguf_type::u8;  // arrays: the elements' type
    std::uint64_t count = 0;            // arrays: how many elements; strings: bytes
    std::uint64_t at = 0;               // file offset of the value (after its type tag)
    std::uint64_t key_at = 0;           // file offset of its key
    std::uint64_t end = 0;              // file offset just past the value
};

struct gguf_tensor {
    std::string name;
    std::vector<std::uint64_t> dims;  // as GGUF stores them: innermost (contiguous) first
    std::uint32_t type = 0;           // ggml's type id (model/gguf_quant.hpp names it)
    std::uint64_t offset = 0;         // as written: relative to the data
    std::uint64_t count = 0;          // elements (product of dims)
    std::uint64_t begin = 0, end = 0; // file offsets of its bytes, [begin, end)
    std::uint64_t entry_at = 0;       // file offset of its name in the table (errors)
    // Outermost first, as NumPy and PyTorch write it: dims reversed.
    std::vector<std::uint64_t> shape() const { return {dims.rbegin(), dims.rend()}; }
};

class gguf_header {
public:
    std::string file;
    std::uint32_t version = 0;
    std::uint64_t alignment = 32;
    std::uint64_t metadata_at = 24;  // file offset of the first key
    std::uint64_t data_start = 0;    // file offset of the data
    std::vector<std::pair<std::string, gguf_value>> metadata;  // in the file's order
    std::vector<gguf_tensor> tensors;                          // in the file's order

    const gguf_value* find(const std::string& key) const;
    const gguf_tensor* tensor(const std::string& name) const;

    std::optional<std::uint64_t> get_uint(const std::string& key) const;
    std::optional<std::int64_t> get_int(const std::string& key) const;
    std::optional<double> get_float(const std::string& key) const;
    std::optional<bool> get_bool(const std::string& key) const;
    std::optional<std::string> get_string(const std::string& key) const;
    std::optional<std::vector<std::string>> get_strings(const std::string& key) const;
    std::optional<std::vector<float>> get_floats(const std::string& key) const;
    std::optional<std::vector<std::int64_t>> get_ints(const std::string& key) const;

    // The same, refusing an absent key: "the metadata has no 'llama.block_count' (why)".
    std::uint64_t require_uint(const std::string& key, const std::string& why) const;
    double require_float(const std::string& key, const std::string& why) const;
    std::string require_string(const std::string& key, const std::string& why) const;

    // A string at file offset `at` (its u64 length first), as its bytes.
    std::string_view string_at(std::uint64_t at) const;
    // The scalar at `at` of type t, as the widest type of its kind.
    std::uint64_t uint_at(std::uint64_t at, gguf_type t) const;  // u8 … u64, bool
    std::int64_t int_at(std::uint64_t at, gguf_type t) const;    // i8 … i64
    double float_at(std::uint64_t at, gguf_type t) const;        // f32, f64
    const unsigned char* bytes() const { return bytes_; }
    std::size_t size() const { return size_; }

    // Set by parse_gguf.
    void attach(const unsigned char* bytes, std::size_t size);
    void index();

private:
    const unsigned char* bytes_ = nullptr;
    std::size_t size_ = 0;
    std::map<std::string, std::size_t> meta_index_, tensor_index_;
};

// Bytes of one scalar of type t (0 for string and array).
std::size_t gguf_scalar_size(gguf_type t);

// Parses and checks the file's bytes [bytes, bytes + size); the header reads its
// values from them afterwards.
gguf_header parse_gguf(const unsigned char* bytes, std::size_t size, const std::string& file);

// True when the bytes start with GGUF's magic (how `attn model` tells a GGUF from a
// safetensors file).
bool is_gguf_bytes(const unsigned char* bytes, std::size_t size);

// A GGUF file, memory-mapped (io/mapped_file: regular files only, registered as an
// input), parsed and checked; the header's values are read from the mapping.
class gguf_file {
public:
    explicit gguf_file(const std::string& path);
    ~gguf_file();
    gguf_file(const gguf_file&) = delete;
    gguf_file& operator=(const gguf_file&) = delete;
    const gguf_header& header() const { return header_; }
    const io::mapped_file& mapping() const { return *map_; }

private:
    std::unique_ptr<io::mapped_file> map_;
    gguf_header header_;
};

// True when `path` is a regular file that starts with GGUF's magic.
bool is_gguf_file(const std::string& path);

}  // namespace attn::model
