// tests/support/fuzz_gguf.cpp — the fuzz target of the GGUF reader (model/gguf*.cpp):
// the bytes as a whole GGUF file — header, metadata and tensor table checks, the typed
// getters over every key (as the tokenizers and families read them), the architecture,
// every tensor of a readable type dequantized to float, and the whole model read into
// model_params (model/gguf_checkpoint: names_gguf's mapping, transposes, W_qkv side by side).
#include <vector>

#include "model/gguf.hpp"
#include "model/gguf_checkpoint.hpp"
#include "model/gguf_family.hpp"
#include "model/gguf_quant.hpp"
#include "support/fuzz_targets.hpp"

namespace attn::fuzz {

namespace {

// Every getter on every key: each either returns or refuses with a file_error.
void read_every_value(const model::gguf_header& h) {
    for (const auto& entry : h.metadata) {
        const std::string& key = entry.first;  // a plain reference: C++17 lambdas cannot capture structured bindings
        refusals_are_fine([&] { (void)h.get_uint(key); });
        refusals_are_fine([&] { (void)h.get_int(key); });
        refusals_are_fine([&] { (void)h.get_float(key); });
        refusals_are_fine([&] { (void)h.get_bool(key); });
        refusals_are_fine([&] { (void)h.get_string(key); });
        refusals_are_fine([&] { (void)h.get_strings(key); });
        refusals_are_fine([&] { (void)h.get_floats(key); });
        refusals_are_fine([&] { (void)h.get_ints(key); });
    }
}

}  // namespace

int gguf(const std::uint8_t* data, std::size_t size) {
    return refusals_are_fine([&] {
        const model::gguf_header h = model::parse_gguf(data, size, "fuzz.gguf");
        read_every_value(h);
        refusals_are_fine([&] { (void)model::read_gguf_architecture(h); });
        refusals_are_fine([&] { (void)model::read_gguf_params<float>(h); });
        for (const auto& t : h.tensors)
            refusals_are_fine([&] {
                std::vector<float> out(t.count);  // [count]
                model::dequantize(h, t, out.data());
            });
    });
}

}  // namespace attn::fuzz
