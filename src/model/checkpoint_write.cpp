// model/checkpoint_write.cpp — model_params to a safetensors file (see write_checkpoint
// in checkpoint.hpp): minGPT/nanoGPT names and nn.Linear's [out, in] for the linear
// weights (transposed copies), the config in __metadata__.
#include <cstdio>
#include <deque>
#include <type_traits>

#include "model/checkpoint.hpp"
#include "model/checkpoint_llama.hpp"
#include "model/checkpoint_names.hpp"
#include "model/safetensors.hpp"

namespace attn::model {

namespace {

std::map<std::string, std::string> config_metadata(const architecture& c, const std::map<std::string, std::string>& extra) {
    std::map<std::string, std::string> m = extra;
    char eps[32];
    std::snprintf(eps, sizeof eps, "%.17g", c.ln_eps);  // round-trips exactly
    m["format"] = "pt";
    m["n_layer"] = std::to_string(c.n_layer);
    m["n_head"] = std::to_string(c.n_head);
    m["n_embd"] = std::to_string(c.n_embd);
    m["vocab_size"] = std::to_string(c.vocab_size);
    m["n_positions"] = std::to_string(c.n_positions);
    m["layer_norm_epsilon"] = eps;
    return m;
}

// [rows, cols] → [cols, rows]
template <class T>
std::vector<T> transposed(const T* src, std::size_t rows, std::size_t cols) {
    std::vector<T> out(rows * cols);  // [cols, rows]
    constexpr std::size_t tile = 32;
    for (std::size_t r0 = 0; r0 < rows; r0 += tile)
        for (std::size_t c0 = 0; c0 < cols; c0 += tile)
            for (std::size_t r = r0; r < std::min(rows, r0 + tile); ++r)
                for (std::size_t c = c0; c < std::min(cols, c0 + tile); ++c) out[c * rows + r] = src[r * cols + c];
    return out;
}

}  // namespace

template <class T>
void write_checkpoint(const std::string& path, const model_params<T>& params, const std::map<std::string, std::string>& extra_metadata) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "F32 or F64");
    if (!params.config.is_gpt2_family()) return write_llama_checkpoint(path, params, extra_metadata);
    std::vector<st_out> tensors;
    std::deque<std::vector<T>> copies;  // the transposed linear weights, alive until written
    for_each_param(params, [&](const std::string& name, param_kind kind, const auto& t) {
        st_out o;
        o.name = mingpt_name(name);
        for (const auto d : t.shape()) o.shape.push_back(d);
        o.data = t.data();
        if (kind == param_kind::linear && name != "unembed.W_U") {
            copies.push_back(transposed(t.data(), t.shape()[0], t.shape()[1]));
            o.shape = {t.shape()[1], t.shape()[0]};
            o.data = copies.back().data();
        }
        tensors.push_back(std::move(o));
    });
    write_safetensors(path, std::is_same_v<T, float> ? "F32" : "F64", tensors, config_metadata(params.config, extra_metadata));
}

template void write_checkpoint<float>(const std::string&, const model_params<float>&, const std::map<std::string, std::string>&);
template void write_checkpoint<double>(const std::string&, const model_params<double>&, const std::map<std::string, std::string>&);

}  // namespace attn::model
