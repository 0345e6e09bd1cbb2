// core/rope.hpp — rotary position embeddings (Su et al., RoFormer, 2021; lesson 17).
//
// Each row x (a query or key at position p) is cut into pairs (x_2i, x_2i+1), the
// RoFormer convention (rope_pairing::adjacent; llama2.c and GGUF's llama tensors), or
// (x_i, x_{i+d/2}) as GPT-NeoX and Hugging Face's rotate_half do
// (rope_pairing::half_split): the same idea, a different order of the columns. Pair i
// turns by the angle
//   θ_{p,i} = p · base^(−2i/d)                        (base 10000 by default)
//   x'_2i   = x_2i cos θ − x_2i+1 sin θ
//   x'_2i+1 = x_2i sin θ + x_2i+1 cos θ
// Rotating q at position m and k at position n makes q'_m·k'_n a function of
// m − n only: a relative position seen through an absolute rotation.
#pragma once

#include <vector>

#include "core/types.hpp"

namespace attn {

// Which columns form pair i: (2i, 2i+1) or (i, i + d/2).
enum class rope_pairing { adjacent, half_split };

struct rope_steps {
    double base = 10000.0;
    rope_pairing pairing = rope_pairing::adjacent;
    std::vector<double> positions;  // [n] the position p of each row
    vector frequencies;             // [d/2] base^(−2i/d)
    matrix angles;                  // [n, d/2] θ = p · frequency
    matrix cos, sin;                // [n, d/2]
    matrix input;                   // [n, d]
    matrix rotated;                 // [n, d]
};

// Throws shape_error when d is odd or positions has the wrong length. Positions
// default to 0, 1, …, n − 1; `offset` shifts them all (a key cache at position t).
rope_steps rotary_embed(const matrix& x, double base = 10000.0, double offset = 0.0,
                        rope_pairing pairing = rope_pairing::adjacent);
rope_steps rotary_embed_at(const matrix& x, const std::vector<double>& positions, double base = 10000.0,
                           rope_pairing pairing = rope_pairing::adjacent);

// The angle multiplier of pair i: base^(−2i/d).
double rope_frequency(std::size_t pair, std::size_t d, double base);

}  // namespace attn
