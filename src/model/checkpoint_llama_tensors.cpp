// model/checkpoint_llama_tensors.cpp — a Llama-family checkpoint's tensors (see
// checkpoint_llama.hpp): each parameter's tensors checked, converted into model_params
// (nn.Linear's [out, in] transposed; q_proj | k_proj | v_proj side by side into the fused
// W_qkv), and written back the same way.
#include <algorithm>
#include <cstdio>
#include <deque>
#include <set>
#include <type_traits>

#include "core/error.hpp"
#include "model/checkpoint_llama.hpp"
#include "model/checkpoint_names.hpp"
#include "model/file_error.hpp"

namespace attn::model {

std::set<std::string> check_llama_tensors(const st_header& h, const architecture& c);

namespace {

std::string shape_text(const std::vector<std::uint64_t>& shape) {
    std::string s = "[";
    for (std::size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
    return s + "]";
}

bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The widths of the fused q | k | v parts: H·dh, KV·dh, KV·dh.
std::vector<std::size_t> qkv_parts(const architecture& c) {
    return {c.n_head * c.d_head(), c.kv_heads() * c.d_head(), c.kv_heads() * c.d_head()};
}

// The file's shape of each of a parameter's tensors (llama_keys' order).
std::vector<std::vector<std::uint64_t>> file_shapes(const std::string& name, const architecture& c) {
    if (ends_with(name, ".W_qkv") || ends_with(name, ".b_qkv")) {
        std::vector<std::vector<std::uint64_t>> out;
        for (const std::size_t w : qkv_parts(c))
            out.push_back(ends_with(name, ".W_qkv") ? std::vector<std::uint64_t>{w, c.n_embd} : std::vector<std::uint64_t>{w});
        return out;
    }
    const auto s = param_shape(name, c);
    std::vector<std::uint64_t> f(s.begin(), s.end());
    if (llama_transposed(name)) std::swap(f[0], f[1]);
    return {f};
}

// A parameter with no tensors of its own in model_params' shell (the config, no data).
model_params<float> shell_of(const architecture& c) {
    model_params<float> shell;
    shell.config = c;
    shell.blocks.resize(c.n_layer);
    return shell;
}

}  // namespace

std::set<std::string> check_llama_tensors(const st_header& h, const architecture& c) {
    std::set<std::string> dtypes;
    const model_params<float> shell = shell_of(c);
    for_each_param(shell, [&](const std::string& name, param_kind, const auto&) {
        const auto keys = llama_keys(name);
        const auto shapes = file_shapes(name, c);
        for (std::size_t i = 0; i < keys.size(); ++i) {
            const st_tensor* t = h.find(keys[i]);
            if (t == nullptr) throw file_error("missing", h.file, 8, "no tensor '" + keys[i] + "' in the checkpoint");
            if (t->shape != shapes[i])
                throw file_error("invalid", tensor_file(h, *t), t->shape_at, "tensor '" + shown(t->name) + "' has the shape " +
                                                                     shape_text(t->shape) + ", expected " +
                                                                     shape_text(shapes[i]) + " (" + layout_llama + ")");
            if (!dtype_readable(t->dtype))
                throw file_error("unsupported", tensor_file(h, *t), t->entry_at, "tensor '" + shown(t->name) + "' has dtype " + t->dtype +
                                                                         "; attn reads F64, F32, F16 and BF16");
            dtypes.insert(t->dtype);
        }
    });
    return dtypes;
}

template <class T>
model_params<T> fill_llama(const st_header& h, const architecture& c, const unsigned char* bytes,
                           const std::function<void(std::uint64_t, std::uint64_t)>& done, const std::shared_ptr<const void>& owner) {
    model_params<T> p = unfilled_params<T>(c);
    for_each_param(p, [&](const std::string& name, param_kind, auto& tensor) {
        using tensor_t = std::decay_t<decltype(tensor)>;
        const auto keys = llama_keys(name);
        if (keys.size() == 1) {
            const st_tensor& t = *h.find(keys[0]);
            if (owner)  // the embedding, the norms, lm_head: in the forward's layout already
                if (const T* in_place = elements_in_place<T>(h, t, bytes, llama_transposed(name)))
                    return void(tensor = mapped_tensor<tensor_t>(owner, in_place, tensor.shape()));
            read_elements<T>(h, t, bytes, tensor.data(), llama_transposed(name));
            if (done) done(t.begin, t.end);
            return;
        }
        // q | k | v: each part read ([in, w] when transposed), then put in its columns
        const std::size_t W = c.qkv_width(), rows = tensor.dimension() == 2 ? c.n_embd : 1;
        std::size_t col0 = 0;
        for (std::size_t i = 0; i < keys.size(); ++i) {
            const st_tensor& t = *h.find(keys[i]);
            const std::size_t w = qkv_parts(c)[i];
            std::vector<T> part(rows * w);  // [rows, w]
            read_elements<T>(h, t, bytes, part.data(), rows > 1);
            for (std::size_t r = 0; r < rows; ++r)
                std::copy(part.begin() + r * w, part.begin() + (r + 1) * w, tensor.data() + r * W + col0);
            col0 += w;
            if (done) done(t.begin, t.end);
        }
    });
    return p;
}

namespace {

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);  // round-trips exactly
    return buf;
}

std::map<std::string, std::string> llama_metadata(const architecture& c, const std::map<std::string, std::string>& extra) {
    std::map<std::string, std::string> m = extra;
    m["format"] = "pt";
    m["model_type"] = c.family == "qwen2" ? "qwen2" : "llama";
    m["hidden_size"] = std::to_string(c.n_embd);
    m["num_hidden_layers"] = std::to_string(c.n_layer);
    m["num_attention_heads"] = std::to_string(c.n_head);
    m["num_key_value_heads"] = std::to_string(c.kv_heads());
    m["intermediate_size"] = std::to_string(c.d_mlp());
    m["vocab_size"] = std::to_string(c.vocab_size);
    m["max_position_embeddings"] = std::to_string(c.n_positions);
    m["rms_norm_eps"] = num(c.ln_eps);
    m["rope_theta"] = num(c.rope_theta);
    m["tie_word_embeddings"] = c.tied ? "true" : "false";
    m["rope_pairing"] = c.pairing == rotary_pairing::adjacent ? "adjacent" : "half_split";
    if (c.rotary_dims != 0) m["partial_rotary_factor"] = num(static_cast<double>(c.rotary_dims) / static_cast<double>(c.d_head()));
    return m;
}

// Columns [col0, col0 + w) of src [rows, cols], transposed: [w, rows].
template <class T>
std::vector<T> columns_transposed(const T* src, std::size_t rows, std::size_t cols, std::size_t col0, std::size_t w) {
    std::vector<T> out(w * rows);  // [w, rows]
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t k = 0; k < w; ++k) out[k * rows + r] = src[r * cols + col0 + k];
    return out;
}

}  // namespace

template <class T>
void write_llama_checkpoint(const std::string& path, const model_params<T>& params,
                            const std::map<std::string, std::string>& extra_metadata) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "F32 or F64");
    const architecture& c = params.config;
    if (c.norm != norm_kind::rms_norm || c.positions != position_kind::rotary || c.mlp != mlp_kind::swiglu)
        throw attn::error("a Llama-family checkpoint holds RMSNorm, rotary positions and a SwiGLU MLP; this model has " +
                          describe(c));
    if (!c.rope_frequencies.empty())  // its __metadata__ has no words for them yet: never written unscaled
        throw attn::error("this model's rotary frequencies are rescaled (" + c.rope_scaling +
                          "); attn does not write rescaled frequencies into a checkpoint yet");
    std::vector<st_out> tensors;
    std::deque<std::vector<T>> copies;  // transposed weights and the parts of q | k | v, alive until written
    for_each_param(params, [&](const std::string& name, param_kind, const auto& t) {
        const auto keys = llama_keys(name);
        const bool matrix = t.dimension() == 2;
        const std::size_t rows = matrix ? t.shape()[0] : 1, cols = matrix ? t.shape()[1] : t.size();
        std::size_t col0 = 0;
        for (std::size_t i = 0; i < keys.size(); ++i) {
            const std::size_t w = keys.size() == 1 ? cols : qkv_parts(c)[i];
            st_out o;
            o.name = keys[i];
            if (matrix && (keys.size() > 1 || llama_transposed(name))) {
                copies.push_back(columns_transposed(t.data(), rows, cols, col0, w));
                o.shape = {w, rows};
            } else {
                copies.emplace_back(t.data() + col0, t.data() + col0 + (matrix ? rows * cols : w));
                o.shape = matrix ? std::vector<std::uint64_t>{rows, cols} : std::vector<std::uint64_t>{w};
            }
            o.data = copies.back().data();
            tensors.push_back(std::move(o));
            col0 += w;
        }
    });
    write_safetensors(path, std::is_same_v<T, float> ? "F32" : "F64", tensors, llama_metadata(c, extra_metadata));
}

template model_params<float> fill_llama<float>(const st_header&, const architecture&, const unsigned char*,
                                               const std::function<void(std::uint64_t, std::uint64_t)>&,
                                               const std::shared_ptr<const void>&);
template model_params<double> fill_llama<double>(const st_header&, const architecture&, const unsigned char*,
                                                 const std::function<void(std::uint64_t, std::uint64_t)>&,
                                                 const std::shared_ptr<const void>&);
template void write_llama_checkpoint<float>(const std::string&, const model_params<float>&,
                                            const std::map<std::string, std::string>&);
template void write_llama_checkpoint<double>(const std::string&, const model_params<double>&,
                                             const std::map<std::string, std::string>&);

}  // namespace attn::model
