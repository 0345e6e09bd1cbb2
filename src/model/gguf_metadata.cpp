// model/gguf_metadata.cpp — the typed getters of a GGUF header's metadata (see
// gguf.hpp): each reads its value from the file's bytes at the place the parser kept,
// and refuses a value of another type at that value's byte. Also gguf_file, the
// mapping and its header together.
#include <cmath>
#include <cstring>
#include <limits>

#include "io/mapped_file.hpp"
#include "model/file_error.hpp"
#include "model/gguf.hpp"

namespace attn::model {

namespace {

bool is_unsigned(gguf_type t) {
    return t == gguf_type::u8 || t == gguf_type::u16 || t == gguf_type::u32 || t == gguf_type::u64;
}
bool is_signed(gguf_type t) { return t == gguf_type::i8 || t == gguf_type::i16 || t == gguf_type::i32 || t == gguf_type::i64; }
bool is_float(gguf_type t) { return t == gguf_type::f32 || t == gguf_type::f64; }

std::string type_text(const gguf_value& v) {
    return v.type == gguf_type::array ? "an array of " + gguf_type_name(v.element) : "a " + gguf_type_name(v.type);
}

[[noreturn]] void wrong_type(const gguf_header& h, const std::string& key, const gguf_value& v, const std::string& expected) {
    throw file_error("invalid", h.file, v.at, "expected the metadata value of '" + shown(key) + "' to be " + expected + ", found " + type_text(v));
}

// Any integer value as a signed 128-bit number (every GGUF integer fits).
__int128 integer_value(const gguf_header& h, std::uint64_t at, gguf_type t) {
    return is_unsigned(t) ? static_cast<__int128>(h.uint_at(at, t)) : static_cast<__int128>(h.int_at(at, t));
}

template <class T>
T load(const unsigned char* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}

}  // namespace

std::uint64_t gguf_header::uint_at(std::uint64_t at, gguf_type t) const {
    const unsigned char* p = bytes_ + at;
    switch (t) {
        case gguf_type::u8: case gguf_type::boolean: return *p;
        case gguf_type::u16: return load<std::uint16_t>(p);
        case gguf_type::u32: return load<std::uint32_t>(p);
        default: return load<std::uint64_t>(p);
    }
}

std::int64_t gguf_header::int_at(std::uint64_t at, gguf_type t) const {
    const unsigned char* p = bytes_ + at;
    switch (t) {
        case gguf_type::i8: return load<std::int8_t>(p);
        case gguf_type::i16: return load<std::int16_t>(p);
        case gguf_type::i32: return load<std::int32_t>(p);
        default: return load<std::int64_t>(p);
    }
}

double gguf_header::float_at(std::uint64_t at, gguf_type t) const {
    return t == gguf_type::f32 ? static_cast<double>(load<float>(bytes_ + at)) : load<double>(bytes_ + at);
}

std::string_view gguf_header::string_at(std::uint64_t at) const {
    const auto n = load<std::uint64_t>(bytes_ + at);
    return {reinterpret_cast<const char*>(bytes_ + at + 8), static_cast<std::size_t>(n)};
}

std::optional<std::uint64_t> gguf_header::get_uint(const std::string& key) const {
    const gguf_value* v = find(key);
    if (!v) return std::nullopt;
    if (!is_unsigned(v->type) && !is_signed(v->type)) wrong_type(*this, key, *v, "an integer");
    const __int128 x = integer_value(*this, v->at, v->type);
    if (x < 0) throw file_error("invalid", file, v->at, "expected '" + shown(key) + "' to be 0 or more, found " + std::to_string(static_cast<long long>(x)));
    return static_cast<std::uint64_t>(x);
}

std::optional<std::int64_t> gguf_header::get_int(const std::string& key) const {
    const gguf_value* v = find(key);
    if (!v) return std::nullopt;
    if (!is_unsigned(v->type) && !is_signed(v->type)) wrong_type(*this, key, *v, "an integer");
    const __int128 x = integer_value(*this, v->at, v->type);
    if (x > std::numeric_limits<std::int64_t>::max())
        throw file_error("invalid", file, v->at, "expected '" + shown(key) + "' to be at most 2^63 - 1, found " + std::to_string(uint_at(v->at, v->type)));
    return static_cast<std::int64_t>(x);
}

std::optional<double> gguf_header::get_float(const std::string& key) const {
    const gguf_value* v = find(key);
    if (!v) return std::nullopt;
    if (!is_float(v->type)) wrong_type(*this, key, *v, "an f32 or f64");
    const double x = float_at(v->at, v->type);
    if (!std::isfinite(x)) throw file_error("invalid", file, v->at, "expected '" + shown(key) + "' to be a finite number, found a value that is not a number or is infinite");
    return x;
}

std::optional<bool> gguf_header::get_bool(const std::string& key) const {
    const gguf_value* v = find(key);
    if (!v) return std::nullopt;
    if (v->type != gguf_type::boolean) wrong_type(*this, key, *v, "a bool");
    return uint_at(v->at, v->type) != 0;
}

std::optional<std::string> gguf_header::get_string(const std::string& key) const {
    const gguf_value* v = find(key);
    if (!v) return std::nullopt;
    if (v->type != gguf_type::string) wrong_type(*this, key, *v, "a string");
    return std::string(string_at(v->at));
}

std::optional<std::vector<std::string>> gguf_header::get_strings(const std::string& key) const {
    const gguf_value* v = find(key);
    if (!v) return std::nullopt;
    if (v->type != gguf_type::array || v->element != gguf_type::string) wrong_type(*this, key, *v, "an array of strings");
    std::vector<std::string> out;  // [count]
    out.reserve(v->count);
    std::uint64_t at = v->at + 12;  // element type (4) + count (8)
    for (std::uint64_t i = 0; i < v->count; ++i) {
        const std::string_view s = string_at(at);
        out.emplace_back(s);
        at += 8 + s.size();
    }
    return out;
}

std::optional<std::vector<float>> gguf_header::get_floats(const std::string& key) const {
    const gguf_value* v = find(key);
    if (!v) return std::nullopt;
    if (v->type != gguf_type::array || !is_float(v->element)) wrong_type(*this, key, *v, "an array of f32 or f64");
    const std::size_t es = gguf_scalar_size(v->element);
    std::vector<float> out(v->count);  // [count]
    for (std::uint64_t i = 0; i < v->count; ++i) {
        const std::uint64_t at = v->at + 12 + i * es;
        const double x = float_at(at, v->element);
        if (std::isnan(x)) throw file_error("invalid", file, at, "element " + std::to_string(i) + " of '" + shown(key) + "' is not a number");
        out[i] = static_cast<float>(x);
    }
    return out;
}

std::optional<std::vector<std::int64_t>> gguf_header::get_ints(const std::string& key) const {
    const gguf_value* v = find(key);
    if (!v) return std::nullopt;
    if (v->type != gguf_type::array || !(is_unsigned(v->element) || is_signed(v->element))) wrong_type(*this, key, *v, "an array of integers");
    const std::size_t es = gguf_scalar_size(v->element);
    std::vector<std::int64_t> out(v->count);  // [count]
    for (std::uint64_t i = 0; i < v->count; ++i) {
        const std::uint64_t at = v->at + 12 + i * es;
        const __int128 x = integer_value(*this, at, v->element);
        if (x > std::numeric_limits<std::int64_t>::max())
            throw file_error("invalid", file, at, "element " + std::to_string(i) + " of '" + shown(key) + "' is more than 2^63 - 1");
        out[i] = static_cast<std::int64_t>(x);
    }
    return out;
}

namespace {

[[noreturn]] void absent(const gguf_header& h, const std::string& key, const std::string& why) {
    throw file_error("invalid", h.file, h.metadata_at, "the metadata has no '" + shown(key) + "'" + (why.empty() ? "" : " (" + why + ")"));
}

}  // namespace

std::uint64_t gguf_header::require_uint(const std::string& key, const std::string& why) const {
    const auto v = get_uint(key);
    if (!v) absent(*this, key, why);
    return *v;
}

double gguf_header::require_float(const std::string& key, const std::string& why) const {
    const auto v = get_float(key);
    if (!v) absent(*this, key, why);
    return *v;
}

std::string gguf_header::require_string(const std::string& key, const std::string& why) const {
    const auto v = get_string(key);
    if (!v) absent(*this, key, why);
    return *v;
}

gguf_file::gguf_file(const std::string& path) : map_(std::make_unique<io::mapped_file>(path, "GGUF file")) {
    header_ = parse_gguf(map_->data(), map_->size(), path);
}

gguf_file::~gguf_file() = default;

bool is_gguf_file(const std::string& path) {
    if (path == "-") return false;
    const io::mapped_file m(path, "checkpoint");
    return is_gguf_bytes(m.data(), m.size());
}

}  // namespace attn::model
