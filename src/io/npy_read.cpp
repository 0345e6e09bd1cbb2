// io/npy_read.cpp — see npy_read.hpp. Three passes: the fixed prefix (magic, version,
// header length), the header dict (descr, fortran_order, shape), then the data, read
// in chunks straight into the destination.
#include "io/npy_read.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>

#include "io/input_read.hpp"
#include "io/size_budget.hpp"
#include "io/terminal_safe.hpp"

namespace attn::io {

namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the .npy reader copies little-endian bytes as they are");

// Where the bytes come from: a checked input file, or memory. `size` is the total
// byte count when known.
struct byte_source {
    std::function<std::size_t(char*, std::size_t)> read;
    std::optional<std::size_t> size;
};

constexpr std::size_t max_header_bytes = 1 << 20;  // numpy writes ~128; far beyond any real header

struct npy_header {
    std::string descr;
    bool fortran = false;
    std::vector<std::size_t> shape;
};

// A cursor over the header text, failing with what it expected and found.
class header_parser {
public:
    header_parser(std::string_view text, const source_pos& at) : s_(text), at_(at) {}

    npy_header parse() {
        npy_header h;
        bool has_descr = false, has_order = false, has_shape = false;
        expect('{');
        while (true) {
            skip_ws();
            if (peek() == '}') break;
            const std::string key = quoted();
            skip_ws();
            expect(':');
            skip_ws();
            if (key == "descr" && !has_descr) h.descr = quoted(), has_descr = true;
            else if (key == "fortran_order" && !has_order) h.fortran = boolean(), has_order = true;
            else if (key == "shape" && !has_shape) h.shape = tuple(), has_shape = true;
            else fail("a header key 'descr', 'fortran_order' or 'shape' (each once), found '" + terminal_safe(key) + "'");
            skip_ws();
            if (peek() == ',') ++i_;
            else if (peek() != '}') fail_found("',' or '}'");
        }
        ++i_;
        for (; i_ < s_.size(); ++i_)
            if (s_[i_] != ' ' && s_[i_] != '\n' && s_[i_] != '\t' && s_[i_] != '\0') fail_found("only padding after the header");
        if (!has_descr || !has_order || !has_shape) fail("a header with 'descr', 'fortran_order' and 'shape'");
        return h;
    }

private:
    std::string_view s_;
    source_pos at_;
    std::size_t i_ = 0;

    char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
    void skip_ws() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n')) ++i_;
    }
    [[noreturn]] void fail(const std::string& expected) const {
        throw input_error("invalid", at_, "not a valid .npy header: expected " + expected);
    }
    [[noreturn]] void fail_found(const std::string& expected) const {
        const std::string found = i_ < s_.size() ? "'" + terminal_safe(s_.substr(i_, 1)) + "'" : "the end of the header";
        fail(expected + ", found " + found + " at header byte " + std::to_string(i_));
    }
    void expect(char c) {
        skip_ws();
        if (peek() != c) fail_found(std::string("'") + c + "'");
        ++i_;
    }
    std::string quoted() {
        const char q = peek();
        if (q != '\'' && q != '"') fail_found("a quoted string");
        const std::size_t start = ++i_;
        while (i_ < s_.size() && s_[i_] != q) ++i_;
        if (i_ >= s_.size()) fail("a closing quote");
        return std::string(s_.substr(start, i_++ - start));
    }
    bool boolean() {
        if (s_.substr(i_, 4) == "True") return i_ += 4, true;
        if (s_.substr(i_, 5) == "False") return i_ += 5, false;
        fail_found("True or False for 'fortran_order'");
    }
    std::vector<std::size_t> tuple() {
        std::vector<std::size_t> dims;
        expect('(');
        while (true) {
            skip_ws();
            if (peek() == ')') break;
            dims.push_back(dimension(dims.size()));
            skip_ws();
            if (peek() == ',') ++i_;
            else if (peek() != ')') fail_found("',' or ')' in 'shape'");
            if (dims.size() > 3) throw input_error("invalid", at_, "expected an array of rank 1 to 3, found rank 4 or more");
        }
        ++i_;
        return dims;
    }
    std::size_t dimension(std::size_t axis) {
        if (peek() == '-')
            throw input_error("invalid", at_, "the header's shape has a negative length on axis " + std::to_string(axis));
        if (peek() < '0' || peek() > '9') fail_found("a non-negative integer in 'shape'");
        std::size_t v = 0;
        while (peek() >= '0' && peek() <= '9') {
            const std::size_t digit = static_cast<std::size_t>(peek() - '0');
            if (v > (std::numeric_limits<std::size_t>::max() - digit) / 10)
                throw input_error("too-large", at_, "the header's shape has an axis longer than 2^64 (axis " + std::to_string(axis) + ")");
            v = v * 10 + digit;
            ++i_;
        }
        if (peek() == 'L') ++i_;  // Python 2's long suffix
        return v;
    }
};

std::uint32_t little_endian(const unsigned char* p, int bytes) {
    std::uint32_t v = 0;
    for (int k = bytes - 1; k >= 0; --k) v = (v << 8) | p[k];
    return v;
}

struct dtype_info {
    std::size_t itemsize;
    char kind;  // 'f' float, 'b' bool
};

dtype_info check_dtype(const npy_header& h, const npy_options& options, const source_pos& at) {
    if (h.descr == "<f8") return {8, 'f'};
    if (h.descr == "<f4") return {4, 'f'};
    if (h.descr == "|b1" && options.allow_bool) return {1, 'b'};
    throw input_error("invalid", at,
                      "expected dtype float64 ('<f8') or float32 ('<f4')" +
                          std::string(options.allow_bool ? " or bool ('|b1')" : "") + ", found '" +
                          terminal_safe(h.descr) + "' (convert with a.astype(numpy.float64))");
}

void check_shape(const npy_header& h, const source_pos& at) {
    if (h.fortran)
        throw input_error("invalid", at, "the array is stored in Fortran order; expected C order "
                                         "(save numpy.ascontiguousarray(a) instead)");
    if (h.shape.empty() || h.shape.size() > 3)
        throw input_error("invalid", at, "expected an array of rank 1 to 3, found rank " + std::to_string(h.shape.size()));
    for (std::size_t k = 0; k < h.shape.size(); ++k)
        if (h.shape[k] == 0)
            throw input_error("invalid", at, "axis " + std::to_string(k) + " has length 0; every axis needs at least one entry");
}

// Copies `count` items of the file's dtype from raw bytes into out[at..].
void convert(const char* raw, std::size_t count, const dtype_info& t, double* out, std::size_t first,
             const std::vector<std::size_t>& shape, const source_pos& at) {
    for (std::size_t k = 0; k < count; ++k) {
        if (t.kind == 'b') {
            const auto b = static_cast<unsigned char>(raw[k]);
            if (b > 1)
                throw input_error("invalid", at, "bool element " + index_text(shape, first + k) + " is the byte " +
                                                     std::to_string(b) + "; a numpy bool is 0 or 1");
            out[k] = b;
        } else if (t.itemsize == 8) {
            std::memcpy(&out[k], raw + 8 * k, 8);
        } else {
            float f;
            std::memcpy(&f, raw + 4 * k, 4);
            out[k] = static_cast<double>(f);
        }
    }
}

// What the prefix and header promise: the dtype, the shape and the element count
// (nothing when the product overflows), all checked; the source is left at the data.
struct npy_layout {
    npy_header h;
    dtype_info t;
    std::optional<std::size_t> count;
    std::size_t prefix_len = 0, header_len = 0;
};

npy_layout read_layout(byte_source& src, const source_pos& at, const npy_options& options) {
    // 1. The prefix: magic, version, header length.
    unsigned char prefix[12];
    if (src.read(reinterpret_cast<char*>(prefix), 10) != 10 || std::memcmp(prefix, "\x93NUMPY", 6) != 0)
        throw input_error("invalid", at, "not a .npy file (it does not start with the \\x93NUMPY magic)");
    const int major = prefix[6];
    if (major < 1 || major > 3)
        throw input_error("invalid", at, "unsupported .npy format version " + std::to_string(major) + " (expected 1, 2 or 3)");
    std::size_t prefix_len = 10, header_len = little_endian(prefix + 8, 2);
    if (major >= 2) {
        if (src.read(reinterpret_cast<char*>(prefix + 10), 2) != 2) throw input_error("invalid", at, "the .npy file is truncated in its prefix");
        prefix_len = 12;
        header_len = little_endian(prefix + 8, 4);
    }
    if (header_len > max_header_bytes || (src.size && (*src.size < prefix_len || header_len > *src.size - prefix_len)))
        throw input_error("invalid", at, "the .npy header claims " + std::to_string(header_len) + " bytes, but the file " +
                                             (src.size ? "has " + std::to_string(*src.size - prefix_len) + " after its prefix"
                                                       : "cannot hold that much"));
    // 2. The header dict.
    std::string header(header_len, '\0');
    if (src.read(header.data(), header_len) != header_len) throw input_error("invalid", at, "the .npy file is truncated in its header");
    npy_layout l{header_parser(header, at).parse(), {}, std::nullopt, prefix_len, header_len};
    l.t = check_dtype(l.h, options, at);
    check_shape(l.h, at);
    l.count = checked_product(l.h.shape);
    return l;
}

nd_array read_npy_from(byte_source& src, const std::string& path, const npy_options& options) {
    const source_pos at{path, 0, 0};
    const npy_layout l = read_layout(src, at, options);
    const npy_header& h = l.h;
    const dtype_info& t = l.t;
    const std::size_t prefix_len = l.prefix_len, header_len = l.header_len;
    nd_array out;
    out.origin = path;
    out.shape = h.shape;
    const auto count = l.count;
    charge_budget(count, "the array " + out.shape_text(), at);  // from the header, before reading
    const std::size_t bytes = *count * t.itemsize;  // count ≤ budget: no overflow
    if (src.size && *src.size - prefix_len - header_len != bytes)
        throw input_error("invalid", at, "the .npy header declares " + out.shape_text() + " of '" + h.descr + "' = " +
                                             std::to_string(bytes) + " bytes of data, but the file holds " +
                                             std::to_string(*src.size - prefix_len - header_len));
    // 3. The data, in chunks, straight into the array.
    out.data.resize(*count);  // [prod(shape)]
    constexpr std::size_t chunk_items = 1 << 16;
    std::vector<char> raw(chunk_items * t.itemsize);
    for (std::size_t done = 0; done < *count;) {
        const std::size_t n = std::min(chunk_items, *count - done);
        if (src.read(raw.data(), n * t.itemsize) != n * t.itemsize)
            throw input_error("invalid", at, "the .npy file is truncated: its header promises " + out.shape_text() +
                                                 " of " + h.descr + " but the data ends early");
        convert(raw.data(), n, t, out.data.data() + done, done, out.shape, at);
        done += n;
    }
    char extra;
    if (src.read(&extra, 1) != 0) throw input_error("invalid", at, "the .npy file has bytes after the data its header declares");
    return out;
}

}  // namespace

nd_array read_npy(const std::string& path, const npy_options& options) {
    input_file in(path, ".npy file");
    byte_source src{[&](char* b, std::size_t n) { return in.read(b, n); },
                    in.sized() ? std::optional<std::size_t>(in.size()) : std::nullopt};
    return read_npy_from(src, path, options);
}

std::optional<std::size_t> npy_element_count(const std::string& path, const npy_options& options) {
    try {
        input_file in(path, ".npy file");
        byte_source src{[&](char* b, std::size_t n) { return in.read(b, n); },
                        in.sized() ? std::optional<std::size_t>(in.size()) : std::nullopt};
        return read_layout(src, source_pos{path, 0, 0}, options).count;
    } catch (const input_error&) {
        return std::nullopt;  // read_npy says what is wrong, in the order the spec gives its files
    }
}

nd_array parse_npy(const std::string& bytes, const std::string& display_path, const npy_options& options) {
    std::size_t pos = 0;
    byte_source src{[&](char* b, std::size_t n) {
                        const std::size_t k = std::min(n, bytes.size() - pos);
                        std::memcpy(b, bytes.data() + pos, k);
                        pos += k;
                        return k;
                    },
                    bytes.size()};
    return read_npy_from(src, display_path, options);
}

}  // namespace attn::io
