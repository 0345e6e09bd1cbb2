// model/gguf_quant.cpp — ggml's type table and the dequantization of the seven types
// attn reads (see gguf_quant.hpp): one function per block layout, each turning one
// block into its elements, and one loop over a tensor's blocks.
#include "model/gguf_quant.hpp"

#include <cmath>
#include <cstring>

#include "core/internal_error.hpp"
#include "model/file_error.hpp"
#include "model/gguf.hpp"

namespace attn::model {

namespace {

// Every type of ggml's enum (ggml.h), with its block: elements and bytes (ggml-common.h).
const ggml_type_info types[] = {
    {0, "F32", 1, 4, true},         {1, "F16", 1, 2, true},          {2, "Q4_0", 32, 18, true},
    {3, "Q4_1", 32, 20, false},     {6, "Q5_0", 32, 22, false},      {7, "Q5_1", 32, 24, false},
    {8, "Q8_0", 32, 34, true},      {9, "Q8_1", 32, 36, false},      {10, "Q2_K", 256, 84, false},
    {11, "Q3_K", 256, 110, false},  {12, "Q4_K", 256, 144, true},    {13, "Q5_K", 256, 176, false},
    {14, "Q6_K", 256, 210, true},   {15, "Q8_K", 256, 292, false},   {16, "IQ2_XXS", 256, 66, false},
    {17, "IQ2_XS", 256, 74, false}, {18, "IQ3_XXS", 256, 98, false}, {19, "IQ1_S", 256, 50, false},
    {20, "IQ4_NL", 32, 18, false},  {21, "IQ3_S", 256, 110, false},  {22, "IQ2_S", 256, 82, false},
    {23, "IQ4_XS", 256, 136, false}, {24, "I8", 1, 1, false},        {25, "I16", 1, 2, false},
    {26, "I32", 1, 4, false},       {27, "I64", 1, 8, false},        {28, "F64", 1, 8, false},
    {29, "IQ1_M", 256, 56, false},  {30, "BF16", 1, 2, true},        {34, "TQ1_0", 256, 54, false},
    {35, "TQ2_0", 256, 66, false},  {39, "MXFP4", 32, 17, false},    {40, "NVFP4", 64, 36, false},
    {41, "Q1_0", 128, 18, false},   {42, "Q2_0", 64, 18, false},
};

std::uint16_t u16_at(const unsigned char* p) {
    std::uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
}


// out: [32]
template <class T>
void block_q8_0(const unsigned char* b, T* out) {
    const T d = static_cast<T>(half_to_float(u16_at(b)));
    for (int j = 0; j < 32; ++j) out[j] = static_cast<T>(static_cast<std::int8_t>(b[2 + j])) * d;
}

// out: [32]
template <class T>
void block_q4_0(const unsigned char* b, T* out) {
    const T d = static_cast<T>(half_to_float(u16_at(b)));
    for (int j = 0; j < 16; ++j) {
        out[j] = static_cast<T>((b[2 + j] & 0xF) - 8) * d;
        out[j + 16] = static_cast<T>((b[2 + j] >> 4) - 8) * d;
    }
}

// out: [256]
template <class T>
void block_q4_k(const unsigned char* b, T* out) {
    const T d = static_cast<T>(half_to_float(u16_at(b))), dmin = static_cast<T>(half_to_float(u16_at(b + 2)));
    const unsigned char* scales = b + 4;
    const unsigned char* q = b + 16;
    for (int k = 0; k < 4; ++k, q += 32, out += 64) {  // 64 elements: two sub-blocks of 32
        int sc1, m1, sc2, m2;
        scale_min_k4(2 * k, scales, sc1, m1);
        scale_min_k4(2 * k + 1, scales, sc2, m2);
        const T d1 = d * static_cast<T>(sc1), mm1 = dmin * static_cast<T>(m1);
        const T d2 = d * static_cast<T>(sc2), mm2 = dmin * static_cast<T>(m2);
        for (int l = 0; l < 32; ++l) out[l] = d1 * static_cast<T>(q[l] & 0xF) - mm1;
        for (int l = 0; l < 32; ++l) out[32 + l] = d2 * static_cast<T>(q[l] >> 4) - mm2;
    }
}

// out: [256]
template <class T>
void block_q6_k(const unsigned char* b, T* out) {
    const unsigned char* ql = b;
    const unsigned char* qh = b + 128;
    const auto* sc = reinterpret_cast<const std::int8_t*>(b + 192);
    const T d = static_cast<T>(half_to_float(u16_at(b + 208)));
    for (int n = 0; n < 2; ++n, ql += 64, qh += 32, sc += 8, out += 128) {
        for (int l = 0; l < 32; ++l) {
            const int is = l / 16;
            const int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
            const int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
            const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
            const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
            out[l] = d * static_cast<T>(sc[is]) * static_cast<T>(q1);
            out[l + 32] = d * static_cast<T>(sc[is + 2]) * static_cast<T>(q2);
            out[l + 64] = d * static_cast<T>(sc[is + 4]) * static_cast<T>(q3);
            out[l + 96] = d * static_cast<T>(sc[is + 6]) * static_cast<T>(q4);
        }
    }
}

// out: [1]
template <class T>
void block_f32(const unsigned char* b, T* out) {
    float f;
    std::memcpy(&f, b, 4);
    *out = static_cast<T>(f);
}
template <class T>
void block_f16(const unsigned char* b, T* out) { *out = static_cast<T>(half_to_float(u16_at(b))); }
template <class T>
void block_bf16(const unsigned char* b, T* out) { *out = static_cast<T>(bf16_to_float(u16_at(b))); }

template <class T>
using block_fn = void (*)(const unsigned char*, T*);

template <class T>
block_fn<T> block_reader(std::uint32_t id) {
    switch (id) {
        case 0: return block_f32<T>;
        case 1: return block_f16<T>;
        case 30: return block_bf16<T>;
        case 8: return block_q8_0<T>;
        case 2: return block_q4_0<T>;
        case 12: return block_q4_k<T>;
        case 14: return block_q6_k<T>;
        default: return nullptr;
    }
}

}  // namespace

float half_to_float(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exp = (h >> 10) & 0x1Fu, man = h & 0x3FFu;
    if (exp == 0) {  // zero or subnormal: man · 2^-24, exact in float
        const float f = static_cast<float>(man) * 5.9604644775390625e-08f;
        return sign ? -f : f;
    }
    const std::uint32_t bits = exp == 31 ? (sign | 0x7F800000u | (man << 13)) : (sign | ((exp + 112) << 23) | (man << 13));
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

float bf16_to_float(std::uint16_t b) {
    const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

const ggml_type_info* ggml_type_of(std::uint32_t id) {
    for (const auto& t : types)
        if (t.id == id) return &t;
    return nullptr;
}

std::string ggml_type_name(std::uint32_t id) {
    const ggml_type_info* t = ggml_type_of(id);
    return t ? t->name : "type " + std::to_string(id);
}

const char* ggml_readable_types() { return "F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K"; }

void check_readable(const gguf_header& h, const gguf_tensor& t) {
    const ggml_type_info* ty = ggml_type_of(t.type);
    if (!ty || !ty->readable)
        throw file_error("unsupported", h.file, t.entry_at,
                         "tensor '" + shown(t.name) + "': GGUF type " + ggml_type_name(t.type) + " is not supported; supported: " + ggml_readable_types());
}

template <class T>
void dequantize(const gguf_header& h, const gguf_tensor& t, T* out) {
    check_readable(h, t);
    const ggml_type_info& ty = *ggml_type_of(t.type);
    const block_fn<T> read = block_reader<T>(t.type);
    const std::uint64_t blocks = t.count / ty.block;
    const unsigned char* p = h.bytes() + t.begin;
    for (std::uint64_t i = 0; i < blocks; ++i) {
        T* o = out + i * ty.block;
        read(p + i * ty.bytes, o);
        bool finite = true;
        for (std::uint32_t j = 0; j < ty.block; ++j) finite &= std::isfinite(o[j]);
        if (finite) continue;
        std::uint32_t j = 0;
        while (std::isfinite(o[j])) ++j;
        throw file_error("invalid", h.file, t.begin + i * ty.bytes,
                         "tensor '" + shown(t.name) + "' element " + std::to_string(i * ty.block + j) + " (" + ty.name + " block " +
                             std::to_string(i) + ") is " + (std::isnan(o[j]) ? "not a number" : "infinite") + "; expected finite weights");
    }
}

void dequantize_blocks(std::uint32_t type, const unsigned char* p, std::size_t blocks, float* out) {
    const ggml_type_info* ty = ggml_type_of(type);
    const block_fn<float> read = block_reader<float>(type);
    if (!ty || !read) throw internal_error("dequantize_blocks: GGUF type " + ggml_type_name(type) + " is not read");
    for (std::size_t i = 0; i < blocks; ++i) read(p + i * ty->bytes, out + i * ty->block);
}

template void dequantize<float>(const gguf_header&, const gguf_tensor&, float*);
template void dequantize<double>(const gguf_header&, const gguf_tensor&, double*);

}  // namespace attn::model
