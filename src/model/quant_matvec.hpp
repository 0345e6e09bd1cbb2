// model/quant_matvec.hpp — decoding's matrix-vector products read straight from a GGUF
// file's quantized blocks (ggml's Q8_0 and Q4_K, model/gguf_quant's layouts): each
// weight is dequantized in registers to exactly the float model/gguf_quant's dequantize
// gives (Q8_0: q·d; Q4_K: (d·sc)·q − dmin·m, rounded once as there) and multiplied by the
// activation in float, so a step reads 34/32 (Q8_0) or 144/256 (Q4_K) bytes a weight
// instead of 4.
//
// The summation order (the same on every path — AVX-512, AVX2, the scalar reference —
// and on any thread count, which splits the rows only): a row's element k (its blocks
// in the file's order) goes to lane k mod 16, each lane adding its products w_k·x_k in
// increasing k from 0; then lanes i and i + 8 are added (i < 8), i and i + 4 (i < 4),
// i and i + 2 (i < 2), and lane 0 and lane 1. Without a fused multiply-add.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attn::model::quant {

// True for the ggml types multiplied in blocks here: Q8_0 (8) and Q4_K (12).
bool has_kernel(std::uint32_t ggml_type);

// One stretch of rows of a quantized matrix: `rows` rows of `k` elements each (k a
// multiple of the type's block), row r at data + r · row_bytes.
struct part {
    std::uint32_t type = 0;
    const unsigned char* data = nullptr;
    std::size_t rows = 0, k = 0, row_bytes = 0;
};

// A weight as decoding reads it: its parts stacked along the output (W_qkv: attn_q,
// attn_k, attn_v), every part the same k. Empty: the weight is not held in blocks.
struct weight {
    std::vector<part> parts;
    std::size_t rows() const;
    bool empty() const { return parts.empty(); }
};

// out[r − r0] = Σ_k w[r][k] · x[k] for rows r0 … r1 − 1 of one part, in the order above,
// on the kernel set core/kernels chose (kernels::force picks another in tests).
void matvec_rows(const part& p, std::size_t r0, std::size_t r1, const float* x, float* out);

// The same by the definition: each block dequantized (model/gguf_quant), then the lanes.
void matvec_rows_reference(const part& p, std::size_t r0, std::size_t r1, const float* x, float* out);

// Row r of the part dequantized into out [k] (an embedding's row).
void dequantize_row(const part& p, std::size_t r, float* out);

// The index of the first block whose f16 scale (d, or Q4_K's dmin) is not finite, or
// rows · blocks-per-row when every one is (a weight's values are then all finite).
std::size_t first_nonfinite_block(const part& p);

// The quantized weights of a model read for decoding (model/gguf_checkpoint's
// read_gguf_for_decoding), by parameter name ("blocks.0.attn.W_qkv", "unembed.W_U",
// "embed.W_E"); `owner` keeps the mapped file alive.
struct weights {
    std::shared_ptr<const void> owner;
    std::vector<std::pair<std::string, weight>> by_name;
    const weight* find(const std::string& name) const;
    std::size_t bytes() const;  // the blocks' bytes
};

}  // namespace attn::model::quant
