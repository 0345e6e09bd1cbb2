// model/safetensors.cpp — reading and checking a safetensors header (see
// safetensors.hpp). Three passes: the 8-byte length, the JSON entries (json_scan),
// then the checks of each entry and of the ranges together.
#include "model/safetensors.hpp"

#include <algorithm>
#include <cstring>

#include "model/file_error.hpp"
#include "io/json_scan.hpp"

namespace attn::model {

namespace {

// The JSON header starts after the 8-byte length: index k of it is file offset 8 + k.
std::uint64_t header_offset(std::size_t k) { return 8 + static_cast<std::uint64_t>(k); }

std::string quoted(const std::string& name) { return "'" + shown(name) + "'"; }

std::string shape_text(const std::vector<std::uint64_t>& shape) {
    std::string s = "[";
    for (std::size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
    return s + "]";
}

// The length prefix: 8 bytes, little-endian, within the limit and the file.
std::uint64_t header_length(const unsigned char* bytes, std::size_t size, const std::string& file) {
    if (size < 8)
        throw file_error("truncated", file, 0, "the file has " + std::to_string(size) +
                                                   " bytes; a safetensors file starts with an 8-byte header length");
    std::uint64_t n = 0;
    for (int k = 7; k >= 0; --k) n = (n << 8) | bytes[k];
    if (n > max_header_bytes)
        throw file_error("too-large", file, 0, "the header length is " + std::to_string(n) + " bytes, more than the limit of " +
                                                   std::to_string(max_header_bytes) + " (not a safetensors file?)");
    if (n > size - 8)
        throw file_error("truncated", file, 0, "the header length says " + std::to_string(n) + " bytes but only " +
                                                   std::to_string(size - 8) + " follow (the file is truncated)");
    if (n == 0 || bytes[8] != '{')
        throw file_error("invalid", file, 8, "expected the JSON header to start with '{' (not a safetensors file?)");
    return n;
}

void read_metadata(io::json_scan& js, st_header& h) {
    if (js.peek() != '{') js.fail_at(js.pos(), "expected __metadata__ to be an object of strings, found " + js.found_here());
    js.object([&](const std::string& key, std::size_t) {
        if (js.peek() != '"')
            js.fail_at(js.pos(), "expected the __metadata__ value of " + quoted(key) + " to be a string, found " + js.found_here());
        h.metadata_at[key] = header_offset(js.pos());
        h.metadata[key] = js.string_value();
    });
}

std::vector<std::uint64_t> uint_array(io::json_scan& js, const std::string& what) {
    if (js.peek() != '[') js.fail_at(js.pos(), "expected " + what + " to be an array of integers, found " + js.found_here());
    std::vector<std::uint64_t> v;
    js.array([&](std::size_t) {
        if (v.size() >= 64) js.fail_at(js.pos(), "expected " + what + " with at most 64 numbers");
        v.push_back(js.uint_value());
    });
    return v;
}

// One tensor's entry: {"dtype": str, "shape": [..], "data_offsets": [b, e]}, nothing else.
st_tensor read_entry(io::json_scan& js, const std::string& name, std::size_t at) {
    st_tensor t;
    t.name = name;
    t.entry_at = header_offset(at);
    bool has_dtype = false, has_shape = false, has_offsets = false;
    if (js.peek() != '{') js.fail_at(js.pos(), "expected the entry of tensor " + quoted(name) + " to be an object, found " + js.found_here());
    js.object([&](const std::string& key, std::size_t key_at) {
        if (key == "dtype") {
            if (js.peek() != '"') js.fail_at(js.pos(), "expected dtype to be a string, found " + js.found_here());
            t.dtype = js.string_value(), has_dtype = true;
        } else if (key == "shape") {
            t.shape_at = header_offset(js.pos());
            t.shape = uint_array(js, "shape"), has_shape = true;
        } else if (key == "data_offsets") {
            t.offsets_at = header_offset(js.pos());
            const auto o = uint_array(js, "data_offsets");
            if (o.size() != 2) js.fail_at(js.pos() - 1, "expected data_offsets to be [begin, end], found " + std::to_string(o.size()) + " numbers");
            t.begin = o[0], t.end = o[1], has_offsets = true;
        } else {
            js.fail_at(key_at, "unknown key " + quoted(key) + " in the entry of tensor " + quoted(name) +
                                   " (expected dtype, shape, data_offsets)");
        }
    });
    const char* missing = !has_dtype ? "dtype" : !has_shape ? "shape" : !has_offsets ? "data_offsets" : nullptr;
    if (missing) js.fail_at(at, "the entry of tensor " + quoted(name) + " has no " + missing);
    return t;
}

// dtype known, shape × dtype size = the byte range, without overflow; range in the file.
void check_entry(st_tensor& t, std::uint64_t data_size, const std::string& file) {
    const std::size_t es = dtype_size(t.dtype);
    if (es == 0)
        throw file_error("invalid", file, t.entry_at, "tensor " + quoted(t.name) + " has the unknown dtype " + quoted(t.dtype));
    std::uint64_t count = 1, bytes = 0;
    for (const std::uint64_t d : t.shape)
        if (__builtin_mul_overflow(count, d, &count))
            throw file_error("invalid", file, t.shape_at, "tensor " + quoted(t.name) + " has the shape " + shape_text(t.shape) +
                                                              ", more elements than 2^64 - 1");
    if (__builtin_mul_overflow(count, std::uint64_t{es}, &bytes))
        throw file_error("invalid", file, t.shape_at, "tensor " + quoted(t.name) + " of shape " + shape_text(t.shape) + " and dtype " +
                                                          t.dtype + " needs more than 2^64 - 1 bytes");
    if (t.begin > t.end || t.end > data_size)
        throw file_error("invalid", file, t.offsets_at, "tensor " + quoted(t.name) + " has data_offsets [" + std::to_string(t.begin) + ", " +
                                                            std::to_string(t.end) + "] outside the data (0 to " + std::to_string(data_size) + ")");
    if (t.end - t.begin != bytes)
        throw file_error("invalid", file, t.offsets_at, "tensor " + quoted(t.name) + " of shape " + shape_text(t.shape) + " and dtype " +
                                                            t.dtype + " needs " + std::to_string(bytes) + " bytes, its data_offsets hold " +
                                                            std::to_string(t.end - t.begin));
    t.count = count;
}

// The ranges, in order, cover the data exactly: no overlap, no gap, nothing after.
void check_ranges(const st_header& h, std::uint64_t data_size) {
    std::vector<const st_tensor*> order;
    for (const auto& t : h.tensors) order.push_back(&t);
    std::stable_sort(order.begin(), order.end(), [](const st_tensor* a, const st_tensor* b) {
        return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
    });
    std::uint64_t covered = 0;
    const st_tensor* prev = nullptr;
    for (const st_tensor* t : order) {
        if (t->begin < covered)
            throw file_error("invalid", h.file, t->offsets_at, "the bytes of tensor " + quoted(t->name) + " overlap those of " + quoted(prev->name) +
                                                                   " (data_offsets " + std::to_string(t->begin) + " < " + std::to_string(covered) + ")");
        if (t->begin > covered)
            throw file_error("invalid", h.file, h.data_start + covered, "the data bytes " + std::to_string(covered) + " to " +
                                                                            std::to_string(t->begin) + " belong to no tensor");
        covered = t->end, prev = t;
    }
    if (covered != data_size)
        throw file_error("invalid", h.file, h.data_start + covered, "the data bytes " + std::to_string(covered) + " to " +
                                                                        std::to_string(data_size) + " (the end of the file) belong to no tensor");
}

}  // namespace

std::size_t dtype_size(const std::string& d) {
    if (d == "F64" || d == "I64" || d == "U64") return 8;
    if (d == "F32" || d == "I32" || d == "U32") return 4;
    if (d == "F16" || d == "BF16" || d == "I16" || d == "U16") return 2;
    if (d == "I8" || d == "U8" || d == "BOOL" || d == "F8_E4M3" || d == "F8_E5M2") return 1;
    return 0;
}

bool dtype_readable(const std::string& d) { return d == "F64" || d == "F32" || d == "F16" || d == "BF16"; }

const st_tensor* st_header::find(const std::string& name) const {
    const auto it = index.find(name);
    return it == index.end() ? nullptr : &tensors[it->second];
}

st_header parse_safetensors(const unsigned char* bytes, std::size_t size, const std::string& file) {
    st_header h;
    h.file = file;
    const std::uint64_t n = header_length(bytes, size, file);
    h.data_start = 8 + n;
    io::json_scan js(
        std::string_view(reinterpret_cast<const char*>(bytes) + 8, n),
        [&](std::size_t at, const std::string& m) { throw file_error("invalid", file, header_offset(at), m); },
        [](std::size_t at) { return "byte " + std::to_string(header_offset(at)); });
    js.object([&](const std::string& key, std::size_t at) {
        if (key == "__metadata__") return read_metadata(js, h);
        h.index[key] = h.tensors.size();
        h.tensors.push_back(read_entry(js, key, at));
    });
    js.finish();
    const std::uint64_t data_size = size - h.data_start;
    for (auto& t : h.tensors) check_entry(t, data_size, file);
    check_ranges(h, data_size);
    for (auto& t : h.tensors) t.begin += h.data_start, t.end += h.data_start;
    return h;
}

}  // namespace attn::model
