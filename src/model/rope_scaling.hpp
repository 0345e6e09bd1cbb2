// model/rope_scaling.hpp — rotary frequencies rescaled for a longer context, as
// checkpoints state it (config.json's rope_scaling, GGUF's rope.scaling.*). The
// unscaled pair i of `dims` turning columns has f_i = theta^(−2i/dims) (core/rope);
//   linear  (Hugging Face "linear", GGUF rope.scaling.type "linear"): f_i / factor;
//   llama3  (Llama 3.1/3.2's "llama3"): with wavelength λ_i = 2π / f_i, L the original
//           context, low = L / low_freq_factor, high = L / high_freq_factor:
//             λ_i < high → f_i;  λ_i > low → f_i / factor;  between: the blend
//             (1 − s)·f_i / factor + s·f_i,  s = (L / λ_i − low_freq_factor) /
//                                                (high_freq_factor − low_freq_factor)
//           (transformers' _compute_llama3_parameters).
// GGUF states Llama 3's as llama.cpp's converter writes it, a tensor rope_freqs.weight of
// per-pair divisors (model/gguf_family.cpp applies them).
// The result goes into architecture::rope_frequencies (one angle per position per pair),
// which model/train_step and model/decode hand to the rotary table.
#pragma once

#include <cstddef>
#include <vector>

namespace attn::model {

// [dims/2] f_i / factor. factor must be finite and > 0 (the readers check).
std::vector<double> linear_rope_frequencies(double theta, std::size_t dims, double factor);

struct llama3_rope {
    double factor = 8, low_freq_factor = 1, high_freq_factor = 4, original_context = 8192;
};
// [dims/2] Llama 3's rescaled frequencies (above). Needs high_freq_factor > low_freq_factor.
std::vector<double> llama3_rope_frequencies(double theta, std::size_t dims, const llama3_rope& s);

}  // namespace attn::model
