// model/safetensors_convert.cpp — a tensor's bytes to float or double (see
// read_elements in safetensors.hpp): F64, F32, F16 (IEEE half) and BF16 (the top
// 16 bits of a float), little-endian, at any alignment. One pass converts and notes
// whether any value is not finite; only then a second pass finds the first one for
// the message.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "model/file_error.hpp"
#include "model/finite_check.hpp"
#include "model/safetensors.hpp"

namespace attn::model {

namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors data is little-endian and copied as it is");

float half_to_float(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exp = (h >> 10) & 0x1Fu, man = h & 0x3FFu;
    std::uint32_t bits = 0;
    if (exp == 0) {  // zero or subnormal: man · 2^-24, exact in float
        const float f = static_cast<float>(man) * 5.9604644775390625e-08f;
        return sign ? -f : f;
    }
    if (exp == 31) bits = sign | 0x7F800000u | (man << 13);  // inf or NaN
    else bits = sign | ((exp + 112) << 23) | (man << 13);
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

// The element at index i of the source, as double (exact for every source dtype).
struct element_reader {
    const unsigned char* p;
    int kind;  // 0 F64, 1 F32, 2 F16, 3 BF16
    double operator()(std::size_t i) const {
        switch (kind) {
            case 0: {
                double d;
                std::memcpy(&d, p + 8 * i, 8);
                return d;
            }
            case 1: {
                float f;
                std::memcpy(&f, p + 4 * i, 4);
                return f;
            }
            case 2: {
                std::uint16_t h;
                std::memcpy(&h, p + 2 * i, 2);
                return half_to_float(h);
            }
            default: {
                std::uint16_t b;
                std::memcpy(&b, p + 2 * i, 2);
                const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
                float f;
                std::memcpy(&f, &bits, 4);
                return f;
            }
        }
    }
};

// out[i] (or out transposed) = T(src[i]); returns false when a value is not finite.
template <class T, class Read>
bool convert(const Read& read, std::size_t rows, std::size_t cols, bool transpose, T* out) {
    bool finite = true;
    if (!transpose) {
        const std::size_t n = rows * cols;
        for (std::size_t i = 0; i < n; ++i) {
            out[i] = static_cast<T>(read(i));
            finite &= std::isfinite(out[i]);
        }
        return finite;
    }
    constexpr std::size_t tile = 32;  // [tile, tile] blocks keep both sides in cache
    for (std::size_t r0 = 0; r0 < rows; r0 += tile)
        for (std::size_t c0 = 0; c0 < cols; c0 += tile)
            for (std::size_t r = r0; r < std::min(rows, r0 + tile); ++r)
                for (std::size_t c = c0; c < std::min(cols, c0 + tile); ++c) {
                    const T v = static_cast<T>(read(r * cols + c));
                    out[c * rows + r] = v;
                    finite &= std::isfinite(v);
                }
    return finite;
}

// The same type, not transposed: a plain copy, then the exponent bits checked as
// integers (all ones = NaN or infinity), a loop the compiler vectorises.
template <class T>
bool copy_same(const unsigned char* src, std::size_t n, T* out) {
    std::memcpy(out, src, n * sizeof(T));
    return first_nonfinite(out, n) == static_cast<std::size_t>(-1);
}

template <class T, class Read>
bool convert_as(const st_tensor& t, const Read& read, bool transpose, T* out) {
    const std::size_t rows = t.shape.size() == 2 ? t.shape[0] : 1;
    const std::size_t cols = t.shape.size() == 2 ? t.shape[1] : t.count;
    return convert<T>(read, rows, cols, transpose && t.shape.size() == 2, out);
}

std::string index_text(const st_tensor& t, std::uint64_t i) {
    std::vector<std::uint64_t> idx(t.shape.size());
    for (std::size_t k = t.shape.size(); k-- > 0;) idx[k] = i % t.shape[k], i /= t.shape[k];
    std::string s = "[";
    for (std::size_t k = 0; k < idx.size(); ++k) s += (k ? ", " : "") + std::to_string(idx[k]);
    return s + "]";
}

template <class T>
[[noreturn]] void fail_not_finite(const st_header& h, const st_tensor& t, const element_reader& read) {
    const std::size_t es = dtype_size(t.dtype);
    for (std::uint64_t i = 0; i < t.count; ++i) {
        const double v = read(i);
        if (std::isfinite(static_cast<T>(v)))
            continue;
        const std::string what = std::isnan(v) ? "not a number" : std::isinf(v) ? "infinite" : "too large for float32";
        throw file_error("invalid", tensor_file(h, t), t.begin + i * es, "element " + index_text(t, i) + " of tensor '" +
                                                                  shown(t.name) + "' is " + what);
    }
    throw file_error("invalid", tensor_file(h, t), t.begin, "tensor '" + shown(t.name) + "' holds a value that is not finite");
}

}  // namespace

template <class T>
void read_elements(const st_header& h, const st_tensor& t, const unsigned char* bytes, T* out, bool transpose) {
    const int kind = t.dtype == "F64" ? 0 : t.dtype == "F32" ? 1 : t.dtype == "F16" ? 2 : t.dtype == "BF16" ? 3 : -1;
    if (kind < 0)
        throw file_error("unsupported", tensor_file(h, t), t.entry_at, "tensor '" + shown(t.name) + "' has dtype " + t.dtype +
                                                                "; attn reads F64, F32, F16 and BF16");
    const unsigned char* p = (t.shard_bytes ? t.shard_bytes : bytes) + t.begin;
    bool finite = true;
    // One instantiation per source dtype, so the inner loop has no switch.
    if (!(transpose && t.shape.size() == 2) && ((kind == 0 && sizeof(T) == 8) || (kind == 1 && sizeof(T) == 4)))
        finite = copy_same(p, t.count, out);
    else if (kind == 0) finite = convert_as<T>(t, [p](std::size_t i) { double d; std::memcpy(&d, p + 8 * i, 8); return d; }, transpose, out);
    else if (kind == 1) finite = convert_as<T>(t, [p](std::size_t i) { float f; std::memcpy(&f, p + 4 * i, 4); return f; }, transpose, out);
    else finite = convert_as<T>(t, element_reader{p, kind}, transpose, out);
    if (!finite) fail_not_finite<T>(h, t, element_reader{p, kind});
}

template <class T>
const T* elements_in_place(const st_header& h, const st_tensor& t, const unsigned char* bytes, bool transpose) {
    if (t.dtype != (sizeof(T) == 8 ? "F64" : "F32") || (transpose && t.shape.size() == 2)) return nullptr;
    const unsigned char* p = (t.shard_bytes ? t.shard_bytes : bytes) + t.begin;
    if (reinterpret_cast<std::uintptr_t>(p) % alignof(T) != 0) return nullptr;
    const T* elements = reinterpret_cast<const T*>(p);  // [count] (aligned: checked above)
    if (first_nonfinite(elements, t.count) != static_cast<std::size_t>(-1))
        fail_not_finite<T>(h, t, element_reader{p, sizeof(T) == 8 ? 0 : 1});
    return elements;
}

template const float* elements_in_place<float>(const st_header&, const st_tensor&, const unsigned char*, bool);
template const double* elements_in_place<double>(const st_header&, const st_tensor&, const unsigned char*, bool);
template void read_elements<float>(const st_header&, const st_tensor&, const unsigned char*, float*, bool);
template void read_elements<double>(const st_header&, const st_tensor&, const unsigned char*, double*, bool);

}  // namespace attn::model
