// model/checkpoint_llama.cpp — a Llama-family checkpoint's config (see
// checkpoint_llama.hpp): what __metadata__ or config.json states, checked against what
// the tensor shapes say.
#include "model/checkpoint_llama.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>

#include "io/input_read.hpp"
#include "io/json_scan.hpp"
#include "model/checkpoint_names.hpp"
#include "model/file_error.hpp"
#include "model/rope_scaling.hpp"

namespace attn::model {

// Every parameter's tensor present, of the right shape and a readable dtype
// (checkpoint_llama_tensors.cpp); returns the dtypes seen.
std::set<std::string> check_llama_tensors(const st_header& h, const architecture& c);

namespace {

// One stated value, as text, and where it was stated.
struct stated {
    std::string text;
    std::string file;
    std::uint64_t at = 0;
};
using stated_config = std::map<std::string, stated>;

const std::set<std::string>& config_keys() {
    static const std::set<std::string> k = {
        "hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "intermediate_size",
        "rms_norm_eps", "rope_theta", "max_position_embeddings", "vocab_size", "tie_word_embeddings", "model_type",
        "partial_rotary_factor", "head_dim", "rope_pairing",
        // config.json's rope_scaling object, its members as rope_scaling.KEY (set_rope_scaling)
        "rope_scaling.rope_type", "rope_scaling.type", "rope_scaling.factor", "rope_scaling.low_freq_factor",
        "rope_scaling.high_freq_factor", "rope_scaling.original_max_position_embeddings"};
    return k;
}

// One scalar JSON value as the text a stated value holds.
std::string llama_config_scalar(io::json_scan& js) {
    if (js.peek() == '"') return js.string_value();
    if (js.peek() == 't' || js.peek() == 'f') return js.bool_value() ? "true" : "false";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", js.number_value());
    return buf;
}

stated_config from_metadata(const st_header& h) {
    stated_config c;
    for (const auto& [k, v] : h.metadata)
        if (config_keys().count(k)) c[k] = stated{v, h.file, h.metadata_at.at(k)};
    return c;
}

stated_config from_config_json(const std::string& path) {
    stated_config c;
    io::input_limits limits;
    limits.max_bytes = std::size_t{1} << 20;
    limits.what = "config.json";
    const std::string text = io::read_input_file(path, limits);
    io::json_scan js(
        text, [&](std::size_t at, const std::string& m) { throw file_error("invalid", path, at, m); },
        [](std::size_t at) { return "byte " + std::to_string(at); });
    js.object([&](const std::string& key, std::size_t at) {
        if (key == "rope_scaling" && js.peek() == '{')  // its members, as rope_scaling.KEY
            return js.object([&](const std::string& member, std::size_t member_at) {
                const std::string k = "rope_scaling." + member;
                if (!config_keys().count(k) || js.peek() == 'n') return js.skip_value();
                c[k] = stated{llama_config_scalar(js), path, member_at};
            });
        if (!config_keys().count(key) || js.peek() == 'n') return js.skip_value();  // other keys, and null
        c[key] = stated{llama_config_scalar(js), path, at};
    });
    js.finish();
    return c;
}

double number(const stated& s, const std::string& key) {
    double d = 0;
    const auto r = std::from_chars(s.text.data(), s.text.data() + s.text.size(), d);
    if (s.text.empty() || r.ec != std::errc() || r.ptr != s.text.data() + s.text.size() || !std::isfinite(d))
        throw file_error("invalid", s.file, s.at, key + " should be a number, found \"" + shown(s.text) + "\"");
    return d;
}

// A stated count must be a positive whole number, and equal the shapes' when they tell it.
std::size_t count_of(const stated_config& c, const std::string& key, std::uint64_t from_shapes, const std::string& shape_word) {
    const auto it = c.find(key);
    if (it == c.end()) return from_shapes;
    const double v = number(it->second, key);
    if (!(v >= 1 && v <= 1e12 && v == std::floor(v)))
        throw file_error("invalid", it->second.file, it->second.at, key + " should be a positive whole number");
    const auto n = static_cast<std::uint64_t>(v);
    if (from_shapes != 0 && n != from_shapes)
        throw file_error("invalid", it->second.file, it->second.at,
                         key + " is " + std::to_string(n) + " but " + shape_word + " " + std::to_string(from_shapes));
    return n;
}

// A stated real number in (low, high), or the fallback (noted).
double real_of(const stated_config& c, const std::string& key, double low, double high, double fallback,
               checkpoint_info& info, const std::string& what) {
    const auto it = c.find(key);
    if (it == c.end()) {
        char buf[48];
        std::snprintf(buf, sizeof buf, "%g", fallback);
        info.notes.push_back(what + " (" + key + ") is not stated: " + buf);
        return fallback;
    }
    const double v = number(it->second, key);
    if (!(v > low && v < high))
        throw file_error("invalid", it->second.file, it->second.at, key + " should be between " + std::to_string(low) +
                                                                        " and " + std::to_string(high));
    return v;
}

// What the tensor names and shapes say: layers, vocabulary, width, key/value rows, MLP width.
struct llama_shapes {
    std::size_t n_layer = 0, vocab = 0, width = 0, k_rows = 0, d_mlp = 0;
    bool qkv_bias = false, lm_head = false;
};

llama_shapes scan_shapes(const st_header& h) {
    llama_shapes s;
    for (const auto& t : h.tensors) {
        const std::string skip = "rotary_emb.inv_freq";  // older files keep the frequencies: attn computes them
        if (t.name.size() > skip.size() && t.name.compare(t.name.size() - skip.size(), skip.size(), skip) == 0) continue;
        if (!llama_name(t.name) && t.name != "lm_head.weight")
            throw file_error("invalid", tensor_file(h, t), t.entry_at, "tensor '" + shown(t.name) +
                                                                "' is not one of the Llama family's: expected " +
                                                                llama_names_expected());
        if (t.name.compare(0, 13, "model.layers.") == 0) {
            std::size_t layer = 0;
            const auto r = std::from_chars(t.name.data() + 13, t.name.data() + t.name.size(), layer);
            if (r.ec != std::errc() || *r.ptr != '.' || layer > 100000)
                throw file_error("invalid", tensor_file(h, t), t.entry_at, "tensor '" + shown(t.name) + "' has no layer number");
            s.n_layer = std::max(s.n_layer, layer + 1);
        }
    }
    const st_tensor* e = h.find("model.embed_tokens.weight");
    if (e == nullptr) throw file_error("missing", h.file, 8, "no tensor 'model.embed_tokens.weight' in the checkpoint");
    if (e->shape.size() != 2 || e->shape[0] == 0 || e->shape[1] == 0)
        throw file_error("invalid", tensor_file(h, *e), e->shape_at, "tensor 'model.embed_tokens.weight' should be [vocabulary, width]");
    s.vocab = e->shape[0], s.width = e->shape[1];
    if (s.n_layer == 0) throw file_error("missing", h.file, 8, "no layers in the checkpoint (no tensor model.layers.0.*)");
    // layer 0's key projection, gate and query bias (names_llama.cpp's names)
    if (const st_tensor* k = h.find(llama_keys("blocks.0.attn.W_qkv")[1]); k && !k->shape.empty()) s.k_rows = k->shape[0];
    if (const st_tensor* g = h.find(llama_keys("blocks.0.mlp.W_gate")[0]); g && !g->shape.empty()) s.d_mlp = g->shape[0];
    s.qkv_bias = h.find(llama_keys("blocks.0.attn.b_qkv")[0]) != nullptr;
    s.lm_head = h.find("lm_head.weight") != nullptr;
    return s;
}

stated_config stated_of(const st_header& h, const std::string& config_json, checkpoint_info& info) {
    stated_config c = from_metadata(h);
    info.config_source = "__metadata__";
    if (!c.count("num_attention_heads") && !config_json.empty() && std::filesystem::exists(config_json)) {
        stated_config j = from_config_json(config_json);  // fills in what __metadata__ left out,
        for (const auto& [k, v] : c) j[k] = v;            // and __metadata__'s own values win
        c = j;
        info.config_source = "config.json";
    }
    if (!c.count("num_attention_heads"))
        throw file_error("missing", h.file, 8, "the number of heads (num_attention_heads) is not in the file's __metadata__" +
                                                   (config_json.empty() ? std::string() : " nor in a config.json beside it") +
                                                   "; no tensor shape tells it: write a config.json with "
                                                   "{\"num_attention_heads\": H} beside the checkpoint");
    return c;
}

void set_rotary(architecture& a, const stated_config& c) {
    if (const auto it = c.find("rope_pairing"); it != c.end()) {
        if (it->second.text != "adjacent" && it->second.text != "half_split")
            throw file_error("invalid", it->second.file, it->second.at,
                             "rope_pairing should be \"half_split\" or \"adjacent\", found \"" + shown(it->second.text) + "\"");
        a.pairing = it->second.text == "adjacent" ? rotary_pairing::adjacent : rotary_pairing::half_split;
    }
    if (const auto it = c.find("partial_rotary_factor"); it != c.end()) {
        const double f = number(it->second, "partial_rotary_factor");
        const double dims = f * static_cast<double>(a.d_head());
        if (!(f > 0 && f <= 1) || dims != std::floor(dims) || static_cast<std::size_t>(dims) % 2 != 0)
            throw file_error("invalid", it->second.file, it->second.at,
                             "partial_rotary_factor should turn an even number of each head's " +
                                 std::to_string(a.d_head()) + " columns");
        a.rotary_dims = static_cast<std::size_t>(dims) == a.d_head() ? 0 : static_cast<std::size_t>(dims);
    }
}

// A rope_scaling member `type` needs, above `low`.
double rope_scaling_value(const stated_config& c, const stated& type, const std::string& key, double low) {
    const auto it = c.find("rope_scaling." + key);
    if (it == c.end())
        throw file_error("missing", type.file, type.at, "rope_scaling \"" + shown(type.text) + "\" needs " + key + ", found none");
    const double v = number(it->second, "rope_scaling's " + key);
    if (!(v > low && v <= 1e12)) {
        char bound[32];
        std::snprintf(bound, sizeof bound, "%g", low);
        throw file_error("invalid", it->second.file, it->second.at, "rope_scaling's " + key + " should be above " + bound);
    }
    return v;
}

// rope_scaling (rope_type, or the older type): "linear" and Llama 3's "llama3" rescale the
// frequencies (model/rope_scaling.hpp); "default" and none leave them; any other is refused.
void set_rope_scaling(architecture& a, const stated_config& c, checkpoint_info& info) {
    auto it = c.find("rope_scaling.rope_type");
    if (it == c.end()) it = c.find("rope_scaling.type");
    if (it == c.end()) {
        if (const auto f = c.find("rope_scaling.factor"); f != c.end())
            throw file_error("missing", f->second.file, f->second.at, "rope_scaling has a factor but no rope_type");
        return;
    }
    const stated& type = it->second;
    const std::size_t dims = a.rotated_dims();
    char words[160];
    if (type.text == "default") return;
    if (type.text == "linear") {
        const double factor = rope_scaling_value(c, type, "factor", 0);
        a.rope_frequencies = linear_rope_frequencies(a.rope_theta, dims, factor);
        std::snprintf(words, sizeof words, "linear, positions divided by %g", factor);
    } else if (type.text == "llama3") {
        llama3_rope s;
        s.factor = rope_scaling_value(c, type, "factor", 0);
        s.low_freq_factor = rope_scaling_value(c, type, "low_freq_factor", 0);
        s.high_freq_factor = rope_scaling_value(c, type, "high_freq_factor", s.low_freq_factor);
        s.original_context = rope_scaling_value(c, type, "original_max_position_embeddings", 0);
        a.rope_frequencies = llama3_rope_frequencies(a.rope_theta, dims, s);
        std::snprintf(words, sizeof words, "llama3, factor %g, low_freq_factor %g, high_freq_factor %g, original context %g",
                      s.factor, s.low_freq_factor, s.high_freq_factor, s.original_context);
    } else {
        throw file_error("unsupported", type.file, type.at, "rope_scaling type \"" + shown(type.text) +
                                                                "\" is not supported; supported: llama3, linear (and default)");
    }
    a.rope_scaling = words;
    info.notes.push_back(std::string("rotary frequencies rescaled (rope_scaling): ") + words);
}

}  // namespace

bool is_llama_file(const st_header& h) {
    for (const auto& t : h.tensors)
        if (llama_name(t.name)) return true;
    return false;
}

architecture check_llama_file(const st_header& h, const std::string& config_json, checkpoint_info& info) {
    const llama_shapes s = scan_shapes(h);
    const stated_config c = stated_of(h, config_json, info);
    const auto type = c.find("model_type");
    architecture a = find_architecture(type != c.end() && type->second.text == "qwen2" ? "qwen2" : "llama")->defaults;
    a.n_layer = count_of(c, "num_hidden_layers", s.n_layer, "the layers (model.layers.N.*) in the checkpoint are");
    a.n_embd = count_of(c, "hidden_size", s.width, "model.embed_tokens.weight has a width of");
    a.vocab_size = count_of(c, "vocab_size", s.vocab, "model.embed_tokens.weight has a vocabulary of");
    a.n_head = count_of(c, "num_attention_heads", 0, "");
    const auto& heads_at = c.at("num_attention_heads");
    if (a.n_embd % a.n_head != 0)
        throw file_error("invalid", heads_at.file, heads_at.at, "num_attention_heads is " + std::to_string(a.n_head) +
                                                                    ", which does not divide hidden_size = " + std::to_string(a.n_embd));
    count_of(c, "head_dim", a.d_head(), "hidden_size / num_attention_heads is");
    const std::size_t kv_from_shape = s.k_rows % a.d_head() == 0 ? s.k_rows / a.d_head() : 0;
    a.n_kv_head = count_of(c, "num_key_value_heads", kv_from_shape, "the key projection's rows / head_dim give");
    if (a.n_kv_head == 0 || a.n_head % a.n_kv_head != 0)
        throw file_error("invalid", heads_at.file, heads_at.at, std::to_string(a.n_head) + " query heads do not split into groups of " +
                                                                    std::to_string(a.n_kv_head) + " key/value heads");
    a.mlp_width = count_of(c, "intermediate_size", s.d_mlp, "the MLP's gate projection has rows:");
    a.n_positions = count_of(c, "max_position_embeddings", 0, "");
    if (a.n_positions == 0) a.n_positions = 2048, info.notes.push_back("max_position_embeddings is not stated: 2048");
    a.ln_eps = real_of(c, "rms_norm_eps", 0, 1, 1e-6, info, "the RMSNorm epsilon");
    a.rope_theta = real_of(c, "rope_theta", 1, 1e12, 10000.0, info, "the rotary base");
    a.qkv_bias = s.qkv_bias;
    a.tied = !s.lm_head;
    set_rotary(a, c);
    set_rope_scaling(a, c, info);
    const std::set<std::string> dtypes = check_llama_tensors(h, a);
    info.layout = a.family == "qwen2" ? "Qwen2, Llama family (Hugging Face)" : layout_llama;  // info names the family
    info.dtype.clear();
    for (const auto& d : dtypes) info.dtype += (info.dtype.empty() ? "" : ", ") + d;
    info.metadata = h.metadata;
    return a;
}

}  // namespace attn::model
