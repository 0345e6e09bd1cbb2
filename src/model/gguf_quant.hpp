// model/gguf_quant.hpp — ggml's tensor types as GGUF stores them: each type's name,
// elements per block and bytes per block (every type of ggml's enum, so any file can
// be sized and checked), and the conversion of the seven attn reads to float or
// double, block by block, with the layouts of ggml's ggml-common.h / ggml-quants.c:
//
//   F32, F16, BF16   one element each (4, 2, 2 bytes)
//   Q8_0   32 elements in 34 bytes: f16 d, 32 × int8 q;          x = d·q
//   Q4_0   32 elements in 18 bytes: f16 d, 16 bytes of nibbles;  x = d·(q − 8), the low
//          nibbles are elements 0–15, the high nibbles 16–31
//   Q4_K   256 elements in 144 bytes: f16 d, f16 dmin, 12 bytes of eight 6-bit scales
//          and eight 6-bit mins (get_scale_min_k4), 128 bytes of nibbles; per 64
//          elements two sub-blocks of 32 (low nibbles, then high nibbles of the same 32
//          bytes), x = d·sc·q − dmin·m
//   Q6_K   256 elements in 210 bytes: ql[128] (low 4 bits), qh[64] (high 2 bits),
//          int8 scales[16], f16 d; per 128 elements four rows of 32 from ql[0..63],
//          qh[0..31] and scales[8]; x = d·scale·(q − 32)
//
// Any other type is refused by name: "GGUF type Q5_K is not supported; supported: F32,
// F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K". The arithmetic is ggml's, in float for a float
// result (the same bits as ggml's dequantize_row_*) and in double for a double one.
// A value that comes out NaN or infinite is refused, naming the element and its block's
// byte offset (what safetensors' reader does for its weights).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace attn::model {

struct gguf_tensor;
class gguf_header;

struct ggml_type_info {
    std::uint32_t id;
    const char* name;       // "Q4_K"
    std::uint32_t block;    // elements per block
    std::uint32_t bytes;    // bytes per block
    bool readable;          // one of the seven attn converts
};

// The type of this id, or nullptr when ggml defines none (removed ids included).
const ggml_type_info* ggml_type_of(std::uint32_t id);
// "Q4_K", or "type N" for an id ggml does not define.
std::string ggml_type_name(std::uint32_t id);
// "F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K"
const char* ggml_readable_types();

// Q4_K's j-th (0..7) 6-bit scale and min from its 12 packed bytes (ggml's get_scale_min_k4):
// bytes 0–3 hold scales 0–3 (low 6 bits), 4–7 mins 0–3; scales and mins 4–7 have their
// low 4 bits in bytes 8–11 and their top 2 bits in the top bits of bytes 0–3 / 4–7.
inline void scale_min_k4(int j, const unsigned char* q, int& sc, int& m) {
    if (j < 4) {
        sc = q[j] & 63, m = q[j + 4] & 63;
    } else {
        sc = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
        m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
    }
}

// Refuses (file_error at the tensor's entry) a tensor whose type attn does not convert:
// "tensor 'blk.0.ffn_down.weight': GGUF type Q5_K is not supported; supported: …".
void check_readable(const gguf_header& h, const gguf_tensor& t);

// Tensor t's elements (t.count of them, in the file's order: innermost dim fastest) as
// T into out. Refuses an unsupported type and non-finite values.
template <class T>
void dequantize(const gguf_header& h, const gguf_tensor& t, T* out);

// `blocks` whole blocks of a readable type at p (no check of their values) into out
// [blocks · block elements], the same numbers dequantize gives (model/quant_matvec).
void dequantize_blocks(std::uint32_t type, const unsigned char* p, std::size_t blocks, float* out);

// IEEE half and bfloat16 to float (exact).
float half_to_float(std::uint16_t h);
float bf16_to_float(std::uint16_t b);

}  // namespace attn::model
