// model/gguf_tokenizer_read.cpp — reads the tokenizer.ggml.* keys of a GGUF file (v2
// and v3) for model/gguf_tokenizer: the header, then every metadata key/value walked
// with bounds checks (lengths and counts against the bytes left, before any
// allocation), the tokenizer's keys kept and typed, the rest skipped. The tensor table
// is not read. Every error is "file: byte N: …".
#include <cstring>
#include <utility>

#include "io/mapped_file.hpp"
#include "model/file_error.hpp"
#include "model/gguf_tokenizer.hpp"

namespace attn::model {

namespace {

enum gguf_type : std::uint32_t { u8 = 0, i8, u16, i16, u32, i32, f32, boolean, string, array, u64, i64, f64 };

const char* type_word(std::uint32_t t) {
    static const char* const words[] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64"};
    return t <= f64 ? words[t] : "an unknown type";
}

std::size_t scalar_size(std::uint32_t t) {
    switch (t) {
        case u8: case i8: case boolean: return 1;
        case u16: case i16: return 2;
        case u32: case i32: case f32: return 4;
        case u64: case i64: case f64: return 8;
        default: return 0;
    }
}

class gguf_walker {
public:
    gguf_walker(std::string name, const unsigned char* data, std::size_t size) : name_(std::move(name)), p_(data), n_(size) {}

    gguf_tokenizer_fields read();

private:
    [[noreturn]] void fail(std::size_t at, const std::string& m) const { throw file_error("invalid", name_, at, m); }
    void need(std::size_t bytes, const char* what) const {
        if (bytes > n_ - i_) fail(i_, std::string("expected ") + what + " (" + std::to_string(bytes) + " bytes), found the file ending after " + std::to_string(n_ - i_));
    }
    template <class T>
    T get(const char* what) {
        need(sizeof(T), what);
        T v;
        std::memcpy(&v, p_ + i_, sizeof(T));
        i_ += sizeof(T);
        return v;
    }
    std::string str(const char* what);
    void skip_value(std::uint32_t type, int depth);
    std::uint64_t integer(std::uint32_t type, std::size_t at, const std::string& key);
    std::uint64_t array_header(std::uint32_t want, const std::string& key, std::size_t at);
    void keep(const std::string& key, std::uint32_t type, std::size_t at, gguf_tokenizer_fields& out);

    std::string name_;  // the file as errors name it
    const unsigned char* p_;
    std::size_t n_, i_ = 0;
};

std::string gguf_walker::str(const char* what) {
    const std::uint64_t len = get<std::uint64_t>(what);
    if (len > n_ - i_) fail(i_ - 8, std::string("expected ") + what + " of " + std::to_string(len) + " bytes, found only " + std::to_string(n_ - i_) + " left in the file");
    std::string s(reinterpret_cast<const char*>(p_ + i_), static_cast<std::size_t>(len));
    i_ += static_cast<std::size_t>(len);
    return s;
}

void gguf_walker::skip_value(std::uint32_t type, int depth) {
    if (const std::size_t s = scalar_size(type)) return need(s, "a value"), void(i_ += s);
    if (type == string) {
        const std::uint64_t len = get<std::uint64_t>("a string length");
        need(len > n_ ? n_ + 1 : static_cast<std::size_t>(len), "a string");
        i_ += static_cast<std::size_t>(len);
        return;
    }
    if (type != array) fail(i_ - 4, std::string("expected a metadata value type 0 … 12, found ") + std::to_string(type));
    if (depth > 2) fail(i_, "expected arrays nested at most 2 deep, found deeper ones");
    const std::uint32_t et = get<std::uint32_t>("an array element type");
    const std::uint64_t count = get<std::uint64_t>("an array length");
    const std::size_t min = et == string ? 8 : scalar_size(et) ? scalar_size(et) : 12;
    if (count > (n_ - i_) / min) fail(i_ - 8, "expected an array of " + std::to_string(count) + " elements to fit in the file, found too few bytes");
    if (scalar_size(et)) return void(i_ += static_cast<std::size_t>(count) * scalar_size(et));
    for (std::uint64_t k = 0; k < count; ++k) skip_value(et, depth + 1);
}

std::uint64_t gguf_walker::integer(std::uint32_t type, std::size_t at, const std::string& key) {
    switch (type) {
        case u8: return get<std::uint8_t>("a value");
        case u16: return get<std::uint16_t>("a value");
        case u32: return get<std::uint32_t>("a value");
        case u64: return get<std::uint64_t>("a value");
        case i8: case i16: case i32: case i64: {
            const std::int64_t v = type == i8 ? get<std::int8_t>("a value") : type == i16 ? get<std::int16_t>("a value")
                                 : type == i32 ? get<std::int32_t>("a value") : get<std::int64_t>("a value");
            if (v < 0) fail(at, "expected " + key + " ≥ 0, found " + std::to_string(v));
            return static_cast<std::uint64_t>(v);
        }
        default: fail(at, "expected " + key + " to be an integer, found " + type_word(type));
    }
}

std::uint64_t gguf_walker::array_header(std::uint32_t want, const std::string& key, std::size_t at) {
    const std::uint32_t et = get<std::uint32_t>("an array element type");
    if (et != want) fail(at, "expected " + key + " to be an array of " + type_word(want) + ", found an array of " + type_word(et));
    const std::uint64_t count = get<std::uint64_t>("an array length");
    const std::size_t min = want == string ? 8 : scalar_size(want);
    if (count > (n_ - i_) / min) fail(i_ - 8, "expected " + key + "'s " + std::to_string(count) + " elements to fit in the file, found too few bytes");
    return count;
}

void gguf_walker::keep(const std::string& key, std::uint32_t type, std::size_t at, gguf_tokenizer_fields& out) {
    auto want = [&](std::uint32_t t) {
        if (type != t) fail(at, "expected " + key + " to be " + (t == array ? "an array" : std::string("a ") + type_word(t)) + ", found " + type_word(type));
    };
    auto strings = [&]() {
        want(array);
        gguf_field<std::vector<std::string>> f{{}, at};
        const std::uint64_t count = array_header(string, key, at);
        f.value.reserve(static_cast<std::size_t>(count));
        for (std::uint64_t k = 0; k < count; ++k) f.value.push_back(str("a string"));
        return f;
    };
    if (key == "tokenizer.ggml.model") want(string), out.model = gguf_field<std::string>{str("a string"), at};
    else if (key == "tokenizer.ggml.pre") want(string), out.pre = gguf_field<std::string>{str("a string"), at};
    else if (key == "tokenizer.ggml.tokens") out.tokens = strings();
    else if (key == "tokenizer.ggml.merges") out.merges = strings();
    else if (key == "tokenizer.ggml.scores") {
        want(array);
        gguf_field<std::vector<float>> f{{}, at};
        f.value.resize(static_cast<std::size_t>(array_header(f32, key, at)));
        for (float& v : f.value) v = get<float>("a score");
        out.scores = std::move(f);
    } else if (key == "tokenizer.ggml.token_type") {
        want(array);
        gguf_field<std::vector<std::int32_t>> f{{}, at};
        f.value.resize(static_cast<std::size_t>(array_header(i32, key, at)));
        for (std::int32_t& v : f.value) v = get<std::int32_t>("a token type");
        out.types = std::move(f);
    } else if (key == "tokenizer.ggml.bos_token_id") out.bos = gguf_field<std::uint64_t>{integer(type, at, key), at};
    else if (key == "tokenizer.ggml.eos_token_id") out.eos = gguf_field<std::uint64_t>{integer(type, at, key), at};
    else if (key == "tokenizer.ggml.add_bos_token") want(boolean), out.add_bos = gguf_field<bool>{get<std::uint8_t>("a bool") != 0, at};
    else if (key == "tokenizer.ggml.add_space_prefix") want(boolean), out.add_space_prefix = gguf_field<bool>{get<std::uint8_t>("a bool") != 0, at};
    else skip_value(type, 0);
}

gguf_tokenizer_fields gguf_walker::read() {
    gguf_tokenizer_fields out;
    out.file = name_;
    need(4, "the magic GGUF");
    if (std::memcmp(p_, "GGUF", 4) != 0) fail(0, "expected the magic \"GGUF\", found other bytes: not a GGUF file");
    i_ = 4;
    const std::uint32_t version = get<std::uint32_t>("the version");
    if (version != 2 && version != 3) fail(4, "expected GGUF version 2 or 3, found " + std::to_string(version));
    (void)get<std::uint64_t>("the tensor count");
    const std::uint64_t kv = get<std::uint64_t>("the metadata count");
    if (kv > (n_ - i_) / 13) fail(16, "expected " + std::to_string(kv) + " metadata entries to fit in the file, found too few bytes");
    out.metadata_at = i_;
    for (std::uint64_t k = 0; k < kv; ++k) {
        const std::size_t at = i_;
        const std::string key = str("a metadata key");
        const std::uint32_t type = get<std::uint32_t>("a value type");
        if (type > f64) fail(i_ - 4, "expected a metadata value type 0 … 12 for " + shown(key) + ", found " + std::to_string(type));
        keep(key, type, at, out);
    }
    return out;
}

}  // namespace

gguf_tokenizer_fields read_gguf_tokenizer_fields(const std::string& path) {
    const io::mapped_file f(path, "GGUF file");
    return gguf_walker(f.name(), f.data(), f.size()).read();
}

gguf_tokenizer_fields read_gguf_tokenizer_fields(const std::string& name, const unsigned char* data, std::size_t size) {
    return gguf_walker(name, data, size).read();
}

}  // namespace attn::model
