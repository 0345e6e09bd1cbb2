// model/safetensors.hpp — the safetensors file format (Hugging Face's): an 8-byte
// little-endian header length N, N bytes of JSON — {"__metadata__": {str: str},
// "name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, …} with
// offsets relative to the end of the header — then the tensors' bytes.
//
// The header is untrusted input. parse_safetensors checks, before anything is
// allocated from it: the length (≤ 100 MB, inside the file), strict JSON (no
// duplicate keys, valid UTF-8, depth ≤ 64), each entry's fields and types, a known
// dtype, shape × dtype size = the entry's byte count without overflow (2^63-sized
// shapes are refused, not wrapped), every range inside the file, and the ranges
// together covering the data exactly: no overlap, no gap, nothing after the last.
// Every error is a model::file_error naming the file and the byte offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace attn::model {

// The safetensors crate's own limit on the header.
constexpr std::uint64_t max_header_bytes = 100'000'000;

struct st_tensor {
    std::string name;
    std::string dtype;                  // as written: "F32", "BF16", "I64" …
    std::vector<std::uint64_t> shape;   // [] for a scalar
    std::uint64_t count = 0;            // elements (product of shape)
    std::uint64_t begin = 0, end = 0;   // file offsets of its bytes, [begin, end)
    std::uint64_t entry_at = 0;         // file offset of its name in the header (for errors)
    std::uint64_t shape_at = 0, offsets_at = 0;
    // A tensor of a sharded checkpoint (model/checkpoint_shards.hpp): the mapped bytes of
    // its shard and the shard's path (its offsets are the shard's). nullptr and "": the
    // header's own file.
    const unsigned char* shard_bytes = nullptr;
    std::string shard_file;
};

struct st_header {
    std::string file;
    std::uint64_t data_start = 0;  // 8 + N: where the tensors' bytes begin
    std::map<std::string, std::string> metadata;
    std::map<std::string, std::uint64_t> metadata_at;  // file offset of each value
    std::vector<st_tensor> tensors;                    // in the header's order
    std::map<std::string, std::size_t> index;          // name → position in tensors

    const st_tensor* find(const std::string& name) const;
};

// The file tensor t's offsets are in: its shard's, or the header's.
inline const std::string& tensor_file(const st_header& h, const st_tensor& t) {
    return t.shard_file.empty() ? h.file : t.shard_file;
}

// Bytes per element of a safetensors dtype; 0 when the dtype is not one of the format's.
std::size_t dtype_size(const std::string& dtype);
// F64, F32, F16, BF16: the dtypes attn converts to float and double.
bool dtype_readable(const std::string& dtype);

// Parses and checks the header of the file's bytes [bytes, bytes + size).
st_header parse_safetensors(const unsigned char* bytes, std::size_t size, const std::string& file);

// Converts tensor t's elements (of a file that parse_safetensors checked, `bytes` its
// start) to T into out (t.count elements). transpose: t is [rows, cols] and out gets
// [cols, rows]. Refuses an unreadable dtype and non-finite values (NaN, ±inf, or out of
// T's range), naming the element and its byte offset.
template <class T>
void read_elements(const st_header& h, const st_tensor& t, const unsigned char* bytes, T* out, bool transpose = false);

// Tensor t's elements where they lie, when the file holds them as T (F32 for float, F64
// for double), not to be transposed, and aligned for T in memory: checked finite (refused
// as read_elements refuses), then returned in place. Otherwise nullptr: read_elements copies.
template <class T>
const T* elements_in_place(const st_header& h, const st_tensor& t, const unsigned char* bytes, bool transpose = false);

// One tensor to write: its shape and its elements, contiguous, of the writer's dtype.
struct st_out {
    std::string name;
    std::vector<std::uint64_t> shape;
    const void* data = nullptr;
};

// Writes a safetensors file of dtype "F32" or "F64" through io::staged_file
// (temporary file + rename; never over an input, a symlink or a special file). The
// header lists __metadata__ first, then the tensors in the given order, padded with
// spaces to a multiple of 8 bytes so the data is aligned.
void write_safetensors(const std::string& path, const std::string& dtype, const std::vector<st_out>& tensors,
                       const std::map<std::string, std::string>& metadata);

}  // namespace attn::model
