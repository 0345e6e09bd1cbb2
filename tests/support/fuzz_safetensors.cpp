// tests/support/fuzz_safetensors.cpp — the fuzz target of the safetensors reader
// (model/safetensors.*, model/checkpoint.*): the bytes as a whole checkpoint file,
// header checks, layout, config from __metadata__, conversion into float parameters.
// Kept beside fuzz_targets.cpp so the model floor's target is one file of its own.
#include <stdexcept>

#include "model/checkpoint.hpp"
#include "support/fuzz_targets.hpp"

namespace attn::fuzz {

int safetensors(const std::uint8_t* data, std::size_t size) {
    // model::file_error: a refusal is the expected outcome.
    return refusals_are_fine([&] { (void)model::read_checkpoint_bytes<float>(data, size, "fuzz.safetensors", ""); });
}

}  // namespace attn::fuzz
