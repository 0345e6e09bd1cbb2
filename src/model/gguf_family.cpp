// model/gguf_family.cpp — a GGUF file's architecture (see gguf_family.hpp): the keys
// read into gguf_architecture, then the tensor table checked against what the
// architecture's blocks need (every expected tensor present with its shape, nothing
// else, every type one attn dequantizes).
#include "model/gguf_family.hpp"

#include <cmath>
#include <cstdio>
#include <set>

#include "model/file_error.hpp"
#include "model/gguf.hpp"
#include "model/gguf_quant.hpp"
#include "model/rope_scaling.hpp"

namespace attn::model {

namespace {

std::string num(std::uint64_t n) { return std::to_string(n); }

// 8 → "8", 2.5 → "2.5".
std::string gguf_factor_text(double f) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", f);
    return buf;
}

std::string dims_text(const std::vector<std::uint64_t>& d) {
    std::string s = "[";
    for (std::size_t k = 0; k < d.size(); ++k) s += (k ? ", " : "") + num(d[k]);
    return s + "]";
}

// A count key: present, 1 or more, at most `most` (a bound that keeps products of
// counts far from overflow and any allocation from them refusable).
std::uint64_t count_key(const gguf_header& h, const std::string& key, std::uint64_t most, const std::string& why) {
    const std::uint64_t v = h.require_uint(key, why);
    if (v == 0 || v > most)
        throw file_error("invalid", h.file, h.find(key)->at, "expected '" + key + "' between 1 and " + num(most) + ", found " + num(v));
    return v;
}

void read_keys(const gguf_header& h, gguf_architecture& a) {
    const std::string p = a.name + ".", why = "a " + a.name + " model needs it";
    a.model_name = h.get_string("general.name").value_or("");
    a.n_layer = count_key(h, p + "block_count", 1u << 16, why);
    a.d_model = count_key(h, p + "embedding_length", 1u << 20, why);
    a.d_mlp = count_key(h, p + "feed_forward_length", 1u << 22, why);
    a.n_head = count_key(h, p + "attention.head_count", 1u << 16, why);
    a.n_head_kv = h.find(p + "attention.head_count_kv") ? count_key(h, p + "attention.head_count_kv", 1u << 16, why) : a.n_head;
    a.context = count_key(h, p + "context_length", 1ull << 32, why);
    if (a.n_head_kv > a.n_head || a.n_head % a.n_head_kv != 0)
        throw file_error("invalid", h.file, h.find(p + "attention.head_count_kv")->at,
                         "expected the key/value heads (" + num(a.n_head_kv) + ") to divide the query heads (" + num(a.n_head) + ")");
    if (h.find(p + "attention.key_length")) a.d_head = count_key(h, p + "attention.key_length", 1u << 16, why);
    else if (a.d_model % a.n_head != 0)
        throw file_error("invalid", h.file, h.find(p + "attention.head_count")->at,
                         "expected the heads (" + num(a.n_head) + ") to divide embedding_length (" + num(a.d_model) + ")");
    else a.d_head = a.d_model / a.n_head;
}

void read_norm_and_rope(const gguf_header& h, gguf_architecture& a) {
    const std::string p = a.name + ".";
    if (a.rms_norm) a.eps = h.require_float(p + "attention.layer_norm_rms_epsilon", "a " + a.name + " model needs it");
    else a.eps = h.require_float(p + "attention.layer_norm_epsilon", "a gpt2 model needs it");
    if (!(a.eps > 0)) throw file_error("invalid", h.file, h.metadata_at, "expected a positive normalisation epsilon, found " + std::to_string(a.eps));
    if (!a.rotary) return;
    a.rope_theta = h.get_float(p + "rope.freq_base").value_or(10000.0);
    if (!(a.rope_theta > 1)) throw file_error("invalid", h.file, h.find(p + "rope.freq_base")->at, "expected rope.freq_base above 1");
    a.rope_dims = h.find(p + "rope.dimension_count") ? count_key(h, p + "rope.dimension_count", a.d_head, "") : a.d_head;
    if (a.rope_dims % 2 != 0)
        throw file_error("invalid", h.file, h.find(p + "rope.dimension_count")->at, "expected an even rope.dimension_count, found " + num(a.rope_dims));
    const auto s = h.get_string(p + "rope.scaling.type");
    if (s && *s != "none" && *s != "linear")
        throw file_error("unsupported", h.file, h.find(p + "rope.scaling.type")->at,
                         "RoPE scaling '" + shown(*s) + "' is not supported; supported: linear (and none)");
    const std::string factor_key = s ? p + "rope.scaling.factor" : p + "rope.scale_linear";
    if ((s && *s == "linear") || (!s && h.find(factor_key))) {
        a.rope_linear_factor = h.require_float(factor_key, "linear RoPE scaling divides the positions by it");
        if (!(a.rope_linear_factor > 0 && a.rope_linear_factor <= 1e12))
            throw file_error("invalid", h.file, h.find(factor_key)->at, "expected " + factor_key + " above 0");
        if (a.rope_linear_factor == 1) a.rope_linear_factor = 0;  // dividing by 1: unscaled
    }
}

// The tensors a block of this architecture has: name → dims (innermost first).
std::map<std::string, std::vector<std::uint64_t>> expected_tensors(const gguf_architecture& a) {
    const std::uint64_t d = a.d_model, q = a.n_head * a.d_head, kv = a.n_head_kv * a.d_head, f = a.d_mlp;
    std::map<std::string, std::vector<std::uint64_t>> e;
    e["token_embd.weight"] = {d, a.vocab_size};
    e["output_norm.weight"] = {d};
    if (!a.rms_norm) e["output_norm.bias"] = {d}, e["position_embd.weight"] = {d, a.context};
    for (std::uint64_t l = 0; l < a.n_layer; ++l) {
        const auto b = [&](const char* part) { return gguf_block_tensor(l, part); };
        e[b("attn_norm.weight")] = {d};
        e[b("ffn_norm.weight")] = {d};
        e[b("attn_output.weight")] = {q, d};
        e[b("ffn_up.weight")] = {d, f};
        e[b("ffn_down.weight")] = {f, d};
        if (a.gated_mlp) e[b("ffn_gate.weight")] = {d, f};
        if (a.rms_norm) {
            e[b("attn_q.weight")] = {d, q}, e[b("attn_k.weight")] = {d, kv}, e[b("attn_v.weight")] = {d, kv};
            if (a.qkv_bias) e[b("attn_q.bias")] = {q}, e[b("attn_k.bias")] = {kv}, e[b("attn_v.bias")] = {kv};
        } else {  // gpt2: fused q, k, v; every linear and norm with a bias
            e[b("attn_qkv.weight")] = {d, 3 * d}, e[b("attn_qkv.bias")] = {3 * d};
            e[b("attn_output.bias")] = {d}, e[b("ffn_up.bias")] = {f}, e[b("ffn_down.bias")] = {d};
            e[b("attn_norm.bias")] = {d}, e[b("ffn_norm.bias")] = {d};
        }
    }
    return e;
}

// How many tensors expected_tensors names (output.weight aside), counted without building
// the list: a block_count the file's tensors cannot back is refused before any work
// proportional to it (a 65,536-layer claim in a 200-byte file took seconds).
std::uint64_t expected_count(const gguf_architecture& a) {
    const std::uint64_t per_layer = 5 + (a.gated_mlp ? 1 : 0) + (a.rms_norm ? 3 + (a.qkv_bias ? 3 : 0) : 7);
    return 2 + (a.rms_norm ? 0 : 2) + per_layer * a.n_layer;
}

void check_tensors(const gguf_header& h, gguf_architecture& a) {
    if (const std::uint64_t need = expected_count(a); h.tensors.size() < need) {
        const auto* key = h.find(a.name + ".block_count");
        throw file_error("invalid", h.file, key ? key->at : h.data_start,
                         "a " + a.name + " model of " + num(a.n_layer) + " layers has " + num(need) + " tensors; the file has " +
                             num(h.tensors.size()));
    }
    auto expected = expected_tensors(a);
    if (a.rotary && h.tensor("rope_freqs.weight")) expected["rope_freqs.weight"] = {a.rope_dims / 2}, a.rope_freq_factors = true;
    const gguf_tensor* out = h.tensor("output.weight");
    a.tied = out == nullptr;
    if (out) expected["output.weight"] = {a.d_model, a.vocab_size};
    for (const auto& t : h.tensors) {
        const auto it = expected.find(t.name);
        if (it == expected.end())
            throw file_error("unsupported", h.file, t.entry_at,
                             "tensor '" + shown(t.name) + "' is not one a " + a.name + " model of " + num(a.n_layer) + " layers has; attn does not guess what it is for");
        if (t.dims != it->second)
            throw file_error("invalid", h.file, t.entry_at, "tensor '" + shown(t.name) + "': expected dims " + dims_text(it->second) +
                                                                " (innermost first) from the metadata, found " + dims_text(t.dims));
        check_readable(h, t);
        ++a.type_counts[ggml_type_name(t.type)];
        a.parameters += t.count;
        expected.erase(it);
    }
    if (!expected.empty())
        throw file_error("invalid", h.file, h.data_start, "the file has no tensor '" + expected.begin()->first + "' (a " + a.name +
                                                               " model needs it; " + num(expected.size()) + " expected tensors missing)");
}

// The vocabulary's size: tokenizer.ggml.tokens' length, else token_embd's outer dim.
void read_vocab_size(const gguf_header& h, gguf_architecture& a) {
    if (const gguf_value* v = h.find("tokenizer.ggml.tokens"); v && v->type == gguf_type::array) a.vocab_size = v->count;
    else if (const gguf_tensor* t = h.tensor("token_embd.weight"); t && t->dims.size() == 2) a.vocab_size = t->dims[1];
    if (a.vocab_size == 0) throw file_error("invalid", h.file, h.metadata_at, "the file has neither tokenizer.ggml.tokens nor token_embd.weight: no vocabulary size");
}

// rope_freqs.weight: each pair's frequency divided by its factor (llama.cpp writes Llama 3's
// rope_scaling so), after any linear scaling; a factor must be a finite number above 0.
void gguf_divide_by_freq_factors(const gguf_header& h, architecture& a) {
    const gguf_tensor& t = *h.tensor("rope_freqs.weight");
    const std::size_t pairs = a.rotated_dims() / 2;
    std::vector<double> factors(pairs);  // [rotated_dims/2]
    dequantize(h, t, factors.data());
    if (a.rope_frequencies.empty()) a.rope_frequencies = linear_rope_frequencies(a.rope_theta, a.rotated_dims(), 1.0);
    for (std::size_t i = 0; i < pairs; ++i) {
        if (!(std::isfinite(factors[i]) && factors[i] > 0))
            throw file_error("invalid", h.file, t.begin, "expected rope_freqs.weight's factors above 0, found element " + num(i) +
                                                             (std::isfinite(factors[i]) ? " = " + gguf_factor_text(factors[i])
                                                                                        : std::string(" not a finite number")));
        a.rope_frequencies[i] /= factors[i];
    }
    a.rope_scaling += std::string(a.rope_scaling.empty() ? "" : "; ") + "each pair's frequency divided by rope_freqs.weight";
}

}  // namespace

const char* gguf_supported_architectures() { return "llama, qwen2, gpt2"; }

architecture gguf_model_architecture(const gguf_header& h, const gguf_architecture& g) {
    const architecture_row* row = find_architecture(g.name);
    if (!row) throw file_error("unsupported", h.file, h.metadata_at, "GGUF architecture '" + shown(g.name) + "' has no row in attn's architectures");
    if (g.d_head * g.n_head != g.d_model)
        throw file_error("unsupported", h.file, h.find(g.name + ".attention.key_length")->at,
                         "attention.key_length " + num(g.d_head) + " is not embedding_length / head_count (" + num(g.d_model) + " / " +
                             num(g.n_head) + "); attn's models have d_head = d_model / heads");
    architecture a = row->defaults;
    a.n_layer = g.n_layer, a.n_head = g.n_head, a.n_kv_head = g.n_head_kv, a.n_embd = g.d_model;
    a.vocab_size = g.vocab_size, a.n_positions = g.context, a.ln_eps = g.eps, a.tied = g.tied;
    a.qkv_bias = g.qkv_bias;
    if (g.rotary) a.rope_theta = g.rope_theta, a.rotary_dims = g.rope_dims == g.d_head ? 0 : g.rope_dims, a.pairing = g.pairing;
    if (g.rotary && g.rope_linear_factor > 0) {  // rope.scaling.type linear (model/rope_scaling.hpp)
        a.rope_frequencies = linear_rope_frequencies(a.rope_theta, a.rotated_dims(), g.rope_linear_factor);
        a.rope_scaling = "linear, positions divided by " + gguf_factor_text(g.rope_linear_factor);
    }
    if (g.rotary && g.rope_freq_factors) gguf_divide_by_freq_factors(h, a);
    a.mlp_width = 0;
    if (a.d_mlp() != g.d_mlp) a.mlp_width = g.d_mlp;
    return a;
}

std::string gguf_block_tensor(std::uint64_t layer, const std::string& part) { return "blk." + num(layer) + "." + part; }

gguf_architecture read_gguf_architecture(const gguf_header& h) {
    gguf_architecture a;
    a.name = h.require_string("general.architecture", "it names the model's architecture");
    if (a.name == "qwen2") a.qkv_bias = true, a.pairing = rotary_pairing::half_split;
    else if (a.name == "gpt2") a.rms_norm = false, a.qkv_bias = true, a.gated_mlp = false, a.rotary = false;
    else if (a.name != "llama")
        throw file_error("unsupported", h.file, h.find("general.architecture")->at,
                         "GGUF architecture '" + shown(a.name) + "' is not supported; supported: " + gguf_supported_architectures());
    read_keys(h, a);
    read_norm_and_rope(h, a);
    read_vocab_size(h, a);
    check_tensors(h, a);
    return a;
}

}  // namespace attn::model
