// model/gguf.cpp — reading and checking a GGUF header (see gguf.hpp). A cursor walks
// the bytes once: the fixed header, the metadata (each value's place kept, arrays
// walked element by element only when their elements have variable size), the tensor
// table; then the data's start, and each tensor's size, place and overlap.
#include "model/gguf.hpp"

#include <algorithm>
#include <cstring>

#include "io/mapped_file.hpp"
#include "model/file_error.hpp"
#include "model/gguf_quant.hpp"

namespace attn::model {

namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "GGUF data is little-endian and read as it is");

std::string quoted(std::string_view s) { return "'" + shown(s) + "'"; }
std::string num(std::uint64_t n) { return std::to_string(n); }
// "1 byte", "7 bytes"
std::string bytes_text(std::uint64_t n) { return num(n) + (n == 1 ? " byte" : " bytes"); }

// Reads the bytes front to back; every read checks what is left first.
class cursor {
public:
    cursor(const unsigned char* bytes, std::size_t size, const std::string& file) : p_(bytes), size_(size), file_(file) {}

    std::uint64_t pos() const { return pos_; }
    std::uint64_t left() const { return size_ - pos_; }

    [[noreturn]] void fail(std::uint64_t at, const std::string& message) const { throw file_error("invalid", file_, at, message); }

    // n more bytes, or "truncated" naming what was being read.
    void need(std::uint64_t n, const char* what) const {
        if (n > left())
            throw file_error("truncated", file_, pos_, "expected " + std::string(what) + " (" + num(n) + " bytes) but the file ends after " +
                                                          bytes_text(left()) + " (the file is truncated)");
    }
    template <class U>
    U read(const char* what) {
        need(sizeof(U), what);
        U v;
        std::memcpy(&v, p_ + pos_, sizeof(U));
        pos_ += sizeof(U);
        return v;
    }
    void skip(std::uint64_t n, const char* what) {
        need(n, what);
        pos_ += n;
    }
    // A GGUF string: u64 length, then its bytes.
    std::string_view string(const char* what) {
        const std::uint64_t at = pos_;
        const auto n = read<std::uint64_t>(what);
        if (n > left())
            throw file_error("truncated", file_, at, std::string(what) + " says it is " + num(n) + " bytes long but only " + bytes_text(left()) +
                                                         " follow (a lying length, or the file is truncated)");
        const std::string_view s(reinterpret_cast<const char*>(p_ + pos_), n);
        pos_ += n;
        return s;
    }

private:
    const unsigned char* p_;
    std::size_t size_;
    const std::string& file_;
    std::uint64_t pos_ = 0;
};

bool known_type(std::uint32_t t) { return t <= 12; }

gguf_type value_type(cursor& c, const char* what) {
    const std::uint64_t at = c.pos();
    const auto t = c.read<std::uint32_t>(what);
    if (!known_type(t))
        c.fail(at, "expected " + std::string(what) + " (0 to 12: u8, i8, u16, i16, u32, i32, f32, bool, string, array, u64, i64, f64), found " +
                       num(t));
    return static_cast<gguf_type>(t);
}

void check_array_fits(cursor& c, std::uint64_t count_at, std::uint64_t n, gguf_type e);

// One value of type t at the cursor, walked to its end (arrays element by element
// unless their elements are fixed-size numbers); `out`, when given, gets the array's
// element type and count or the string's length.
void walk_value(cursor& c, gguf_type t, int depth, gguf_value* out) {
    const std::uint64_t at = c.pos();
    if (t == gguf_type::string) {
        const std::string_view s = c.string("a string value");
        if (out) out->count = s.size();
        return;
    }
    if (t == gguf_type::boolean) {
        const auto b = c.read<std::uint8_t>("a bool");
        if (b > 1) c.fail(at, "expected a bool (0 or 1), found " + num(b));
        return;
    }
    if (t != gguf_type::array) return c.skip(gguf_scalar_size(t), "a number");
    if (depth >= gguf_max_nesting) c.fail(at, "expected arrays nested at most " + num(gguf_max_nesting) + " deep, found deeper");
    const gguf_type e = value_type(c, "an array's element type");
    const std::uint64_t count_at = c.pos();
    const auto n = c.read<std::uint64_t>("an array's length");
    check_array_fits(c, count_at, n, e);
    if (out) out->element = e, out->count = n;
    const std::size_t es = gguf_scalar_size(e);
    if (es && e != gguf_type::boolean) return c.skip(n * es, "the array's elements");
    for (std::uint64_t i = 0; i < n; ++i) walk_value(c, e, depth + 1, nullptr);
}

void check_array_fits(cursor& c, std::uint64_t count_at, std::uint64_t n, gguf_type e) {
    const std::size_t es = gguf_scalar_size(e);
    const std::uint64_t least = es ? es : (e == gguf_type::string ? 8 : 12);  // a string: its length; an array: type + length
    if (n > c.left() / least)
        c.fail(count_at, "the array's length says " + num(n) + " elements of " + gguf_type_name(e) + " but only " + bytes_text(c.left()) +
                             " follow (at least " + num(least) + " each)");
}

}  // namespace

std::size_t gguf_scalar_size(gguf_type t) {
    switch (t) {
        case gguf_type::u8: case gguf_type::i8: case gguf_type::boolean: return 1;
        case gguf_type::u16: case gguf_type::i16: return 2;
        case gguf_type::u32: case gguf_type::i32: case gguf_type::f32: return 4;
        case gguf_type::u64: case gguf_type::i64: case gguf_type::f64: return 8;
        default: return 0;
    }
}

std::string gguf_type_name(gguf_type t) {
    static const char* const names[] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64"};
    const auto i = static_cast<std::uint32_t>(t);
    return i <= 12 ? names[i] : "type " + num(i);
}

bool is_gguf_bytes(const unsigned char* bytes, std::size_t size) { return size >= 4 && std::memcmp(bytes, "GGUF", 4) == 0; }

namespace {

// The fixed start: magic, version (2 or 3, little-endian), the two counts.
void read_start(cursor& c, gguf_header& h, std::uint64_t& n_tensors, std::uint64_t& n_kv) {
    c.need(4, "the magic \"GGUF\"");
    if (!is_gguf_bytes(h.bytes(), h.size())) c.fail(0, "expected the magic \"GGUF\" (not a GGUF file?)");
    c.skip(4, "the magic");
    const auto v = c.read<std::uint32_t>("the version (u32)");
    if (v == 1) c.fail(4, "GGUF version 1 is not supported (its lengths are 32-bit); supported: 2 and 3 — convert it again with llama.cpp");
    if (v != 2 && v != 3) {
        const bool swapped = v == 0x02000000u || v == 0x03000000u;
        c.fail(4, swapped ? std::string("this GGUF file is big-endian; attn reads little-endian GGUF only")
                          : "expected GGUF version 2 or 3, found " + num(v));
    }
    h.version = v;
    n_tensors = c.read<std::uint64_t>("the tensor count (u64)");
    n_kv = c.read<std::uint64_t>("the metadata count (u64)");
    // A key-value pair takes at least 8 + 4 + 1 bytes, a tensor entry 8 + 4 + 4 + 8.
    if (n_kv > c.left() / 13)
        c.fail(16, "the metadata count says " + num(n_kv) + " entries but only " + bytes_text(c.left()) + " follow (at least 13 each)");
    if (n_tensors > c.left() / 24)
        c.fail(8, "the tensor count says " + num(n_tensors) + " tensors but only " + bytes_text(c.left()) + " follow (at least 24 each)");
}

// One metadata value of type t at the cursor: its place recorded, then walked.
gguf_value read_value(cursor& c, gguf_type t, std::uint64_t key_at) {
    gguf_value v;
    v.type = t, v.at = c.pos(), v.key_at = key_at;
    walk_value(c, t, 0, &v);
    v.end = c.pos();
    return v;
}

void read_metadata(cursor& c, gguf_header& h, std::uint64_t n_kv) {
    h.metadata_at = c.pos();
    std::map<std::string, std::uint64_t> seen;
    for (std::uint64_t i = 0; i < n_kv; ++i) {
        const std::uint64_t key_at = c.pos();
        const std::string key(c.string("a metadata key"));
        if (key.empty()) c.fail(key_at, "expected a metadata key, found an empty string");
        const auto [it, fresh] = seen.emplace(key, key_at);
        if (!fresh) c.fail(key_at, "the metadata key " + quoted(key) + " appears twice (first at byte " + num(it->second) + ")");
        const gguf_type t = value_type(c, "a metadata value type");
        h.metadata.emplace_back(key, read_value(c, t, key_at));
    }
}

// general.alignment: a u32 power of two (ggml's rule), default 32.
void read_alignment(gguf_header& h) {
    const gguf_value* v = h.find("general.alignment");
    if (!v) return;
    if (v->type != gguf_type::u32)
        throw file_error("invalid", h.file, v->at, "expected general.alignment to be a u32, found " + gguf_type_name(v->type));
    const std::uint64_t a = h.uint_at(v->at, v->type);
    if (a == 0 || (a & (a - 1)) != 0 || a > gguf_max_alignment)
        throw file_error("invalid", h.file, v->at, "expected general.alignment to be a power of two up to " + num(gguf_max_alignment) +
                                                       ", found " + num(a));
    h.alignment = a;
}

gguf_tensor read_tensor_entry(cursor& c) {
    gguf_tensor t;
    t.entry_at = c.pos();
    t.name = std::string(c.string("a tensor name"));
    if (t.name.empty()) c.fail(t.entry_at, "expected a tensor name, found an empty string");
    const std::uint64_t dims_at = c.pos();
    const auto n = c.read<std::uint32_t>("the tensor's n_dims (u32)");
    if (n > gguf_max_dims) c.fail(dims_at, "tensor " + quoted(t.name) + ": expected at most " + num(gguf_max_dims) + " dims, found " + num(n));
    for (std::uint32_t k = 0; k < n; ++k) t.dims.push_back(c.read<std::uint64_t>("a tensor dim (u64)"));
    const std::uint64_t type_at = c.pos();
    t.type = c.read<std::uint32_t>("the tensor's type (u32)");
    if (!ggml_type_of(t.type)) c.fail(type_at, "tensor " + quoted(t.name) + " has the unknown GGUF tensor type " + num(t.type));
    t.offset = c.read<std::uint64_t>("the tensor's offset (u64)");
    return t;
}

std::string dims_text(const std::vector<std::uint64_t>& d) {
    std::string s = "[";
    for (std::size_t k = 0; k < d.size(); ++k) s += (k ? ", " : "") + num(d[k]);
    return s + "]";
}

// dims × the type's block size = bytes, without overflow; aligned and inside the file.
void size_tensor(gguf_tensor& t, const gguf_header& h) {
    const ggml_type_info& ty = *ggml_type_of(t.type);
    const auto fail = [&](const std::string& m) { throw file_error("invalid", h.file, t.entry_at, "tensor " + quoted(t.name) + " " + m); };
    std::uint64_t count = 1;
    for (const std::uint64_t d : t.dims)
        if (__builtin_mul_overflow(count, d, &count)) fail("has the dims " + dims_text(t.dims) + ", more elements than 2^64 - 1");
    const std::uint64_t inner = t.dims.empty() ? 1 : t.dims[0];
    if (inner % ty.block != 0)
        fail("of type " + std::string(ty.name) + " has " + num(inner) + " elements in its innermost dim, not a multiple of the block size " +
             num(ty.block));
    std::uint64_t bytes = 0;
    if (__builtin_mul_overflow(count / ty.block, std::uint64_t{ty.bytes}, &bytes))
        fail("of dims " + dims_text(t.dims) + " and type " + ty.name + " needs more than 2^64 - 1 bytes");
    if (t.offset % h.alignment != 0)
        fail("has the offset " + num(t.offset) + ", not a multiple of the alignment " + num(h.alignment));
    const std::uint64_t data_size = h.size() - h.data_start;
    if (t.offset > data_size || bytes > data_size - t.offset)
        fail("of dims " + dims_text(t.dims) + " and type " + ty.name + " needs bytes " + num(t.offset) + " to " +
             (bytes > data_size ? std::string("past 2^64") : num(t.offset + bytes)) + " of the data, which has " + num(data_size) +
             " (the file is truncated, or the offset lies)");
    t.count = count;
    t.begin = h.data_start + t.offset, t.end = t.begin + bytes;
}

// No two tensors share a byte.
void check_overlap(const gguf_header& h) {
    std::vector<const gguf_tensor*> order;
    for (const auto& t : h.tensors) order.push_back(&t);
    std::stable_sort(order.begin(), order.end(), [](const gguf_tensor* a, const gguf_tensor* b) { return a->begin < b->begin; });
    for (std::size_t i = 1; i < order.size(); ++i)
        if (order[i]->begin < order[i - 1]->end)
            throw file_error("invalid", h.file, order[i]->entry_at,
                             "the bytes of tensor " + quoted(order[i]->name) + " (offset " + num(order[i]->offset) + ") overlap those of " +
                                 quoted(order[i - 1]->name) + " (offset " + num(order[i - 1]->offset) + " to " +
                                 num(order[i - 1]->end - h.data_start) + ")");
}

}  // namespace

gguf_header parse_gguf(const unsigned char* bytes, std::size_t size, const std::string& file) {
    gguf_header h;
    h.file = file;
    h.attach(bytes, size);
    cursor c(bytes, size, file);
    std::uint64_t n_tensors = 0, n_kv = 0;
    read_start(c, h, n_tensors, n_kv);
    read_metadata(c, h, n_kv);
    h.index();
    read_alignment(h);
    std::map<std::string, std::uint64_t> seen;
    for (std::uint64_t i = 0; i < n_tensors; ++i) {
        gguf_tensor t = read_tensor_entry(c);
        const auto [it, fresh] = seen.emplace(t.name, t.entry_at);
        if (!fresh) c.fail(t.entry_at, "the tensor name " + quoted(t.name) + " appears twice (first at byte " + num(it->second) + ")");
        h.tensors.push_back(std::move(t));
    }
    const std::uint64_t end = c.pos();
    h.data_start = (end + h.alignment - 1) / h.alignment * h.alignment;
    if (h.data_start > size) {
        if (!h.tensors.empty())
            throw file_error("truncated", file, end, "expected the tensor data from byte " + num(h.data_start) + " but the file ends at byte " + num(size));
        h.data_start = size;  // no tensors: nothing need follow
    }
    for (auto& t : h.tensors) size_tensor(t, h);
    check_overlap(h);
    h.index();
    return h;
}

void gguf_header::attach(const unsigned char* bytes, std::size_t size) { bytes_ = bytes, size_ = size; }

void gguf_header::index() {
    meta_index_.clear(), tensor_index_.clear();
    for (std::size_t i = 0; i < metadata.size(); ++i) meta_index_[metadata[i].first] = i;
    for (std::size_t i = 0; i < tensors.size(); ++i) tensor_index_[tensors[i].name] = i;
}

const gguf_value* gguf_header::find(const std::string& key) const {
    const auto it = meta_index_.find(key);
    return it == meta_index_.end() ? nullptr : &metadata[it->second].second;
}

const gguf_tensor* gguf_header::tensor(const std::string& name) const {
    const auto it = tensor_index_.find(name);
    return it == tensor_index_.end() ? nullptr : &tensors[it->second];
}

}  // namespace attn::model
