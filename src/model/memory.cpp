// model/memory.cpp — the numbers a model verb's buffers hold (see memory.hpp). The
// forward's count follows make_train_acts (model/train_step.cpp) buffer by buffer.
#include "model/memory.hpp"

#include <limits>

#include "model/params.hpp"
#include "model/traced_forward.hpp"
#include "model/train_parts.hpp"

namespace attn::model {

namespace {

// A sum of products that remembers an overflow instead of wrapping.
class tally {
public:
    // Adds a · b · c · d.
    void add(std::size_t a, std::size_t b = 1, std::size_t c = 1, std::size_t d = 1) {
        std::size_t p = 1;
        for (std::size_t f : {a, b, c, d}) {
            if (f != 0 && p > max / f) return void(over_ = true);
            p *= f;
        }
        if (total_ > max - p) over_ = true;
        total_ += p;
    }
    void add(const std::optional<std::size_t>& n) { n ? add(*n) : void(over_ = true); }
    std::optional<std::size_t> times(std::size_t k) const {
        if (over_ || (k != 0 && total_ > max / k)) return std::nullopt;
        return total_ * k;
    }
    std::optional<std::size_t> total() const { return times(1); }

private:
    static constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
    std::size_t total_ = 0;
    bool over_ = false;
};

// One block's buffers (make_train_acts and make_llama_block), N = B · Tn rows; its score
// grids only `with_grids`.
void add_block(tally& t, const architecture& c, std::size_t B, std::size_t Tn, std::size_t N, bool with_grids = true) {
    const std::size_t C = c.n_embd, F = c.d_mlp();
    t.add(6, N, C);                       // ln1, z, attn_out, resid_mid, resid_post, ln1_normalized
    t.add(2, N);                          // ln1_mean, ln1_rstd
    t.add(N, c.qkv_width());              // qkv
    if (with_grids) t.add(2 * B, c.n_head, Tn, Tn);  // scores, pattern
    if (c.norm == norm_kind::rms_norm) t.add(c.has_mlp() ? 2 : 1, N);  // ln1_scale, ln2_scale
    if (parts::split_attention(c)) {
        const std::size_t Hd = c.n_head * c.d_head(), KVd = c.kv_heads() * c.d_head();
        t.add(N, Hd + 2 * KVd);           // q, k, v
        if (c.positions == position_kind::rotary) t.add(N, Hd + KVd);  // rot_q, rot_k
    }
    if (!c.has_mlp()) return;
    t.add(3, N, C);                       // ln2, mlp_out, ln2_normalized
    t.add(2, N);                          // ln2_mean, ln2_rstd
    t.add(2, N, F);                       // mlp_pre, mlp_post
    if (c.mlp == mlp_kind::gelu_tanh) t.add(N, F);   // mlp_tanh
    if (c.mlp == mlp_kind::swiglu) t.add(N, F);      // mlp_pre_linear
}

}  // namespace

std::optional<std::size_t> forward_numbers(const architecture& c, std::size_t B, std::size_t Tn) {
    tally t;
    if (B != 0 && Tn > std::numeric_limits<std::size_t>::max() / B) return std::nullopt;
    const std::size_t N = B * Tn, C = c.n_embd;
    t.add(N, C);  // embed
    tally block;
    add_block(block, c, B, Tn, N);
    const auto per_block = block.total();
    if (!per_block) return std::nullopt;
    t.add(c.n_layer, *per_block);
    t.add(2, N, C);              // lnf, lnf_normalized
    t.add(3, N);                 // lnf_mean, lnf_rstd, losses
    if (c.norm == norm_kind::rms_norm) t.add(N);  // lnf_scale
    t.add(2, N, c.vocab_size);   // logits, probs
    if (c.positions == position_kind::rotary) t.add(Tn, c.rotated_dims());  // cos, sin [Tn, dims/2]
    return t.total();
}

namespace {

// One layer norm's kept copy (norm_acts): normalized and out [N, C], mean and rstd [N],
// scale [N] with RMSNorm.
void add_norm_copy(tally& t, const architecture& c, std::size_t N) {
    t.add(2, N, c.n_embd);
    t.add(c.norm == norm_kind::rms_norm ? 3 : 2, N);
}

// Every stage of one block as block_acts keeps it (traced_forward's block_view).
void add_block_copy(tally& t, const architecture& c, std::size_t B, std::size_t Tn, std::size_t N) {
    const std::size_t C = c.n_embd, dh = c.d_head(), H = c.n_head, KV = c.kv_heads();
    t.add(3, N, C);                       // resid_pre, attn_out, resid_post
    add_norm_copy(t, c, N);               // ln1
    t.add(N, (H + 2 * KV) * dh);          // q, k, v
    if (parts::split_attention(c) && c.positions == position_kind::rotary) t.add(N, (H + KV) * dh);  // rot_q, rot_k
    t.add(2 * B, H, Tn, Tn);              // scores, pattern
    t.add(N, H * dh);                     // z
    if (!c.has_mlp()) return;
    t.add(2, N, C);                       // resid_mid, mlp_out
    add_norm_copy(t, c, N);               // ln2
    t.add(c.mlp == mlp_kind::swiglu ? 3 : 2, N, c.d_mlp());  // mlp_pre, mlp_post (+ mlp_pre_linear)
}

}  // namespace

std::optional<std::size_t> traced_numbers(const architecture& c, std::size_t B, std::size_t Tn,
                                          const stage_request& r) {
    if (B != 0 && Tn > std::numeric_limits<std::size_t>::max() / B) return std::nullopt;
    const std::size_t N = B * Tn, C = c.n_embd;
    tally t;
    // make_train_acts(c, B, Tn, 1, false, grids): the stream, one block (its grids when some
    // block keeps them), the final norm, the losses.
    t.add(N, C);
    add_block(t, c, B, Tn, N, r.keeps_grids(c.n_layer));
    t.add(2, N, C);                                   // lnf, lnf_normalized
    t.add(c.norm == norm_kind::rms_norm ? 4 : 3, N);  // lnf_mean, lnf_rstd, losses (+ lnf_scale)
    if (c.positions == position_kind::rotary) t.add(Tn, c.rotated_dims());  // cos, sin [Tn, dims/2]
    // forward_acts' model-wide stages.
    t.add(c.positions == position_kind::learned ? 2 : 1, N, C);  // hook_embed (+ hook_pos_embed)
    t.add(2, N, c.vocab_size);                                  // logits, probs
    add_norm_copy(t, c, N);                                     // ln_final
    for (std::size_t l = 0; l < c.n_layer; ++l) {
        if (r.keeps_block(l)) add_block_copy(t, c, B, Tn, N);
        else if (r.every_pattern) t.add(B, c.n_head, Tn, Tn);
    }
    return t.total();
}

std::optional<std::size_t> traced_numbers(const architecture& c, std::size_t B, std::size_t Tn) {
    return traced_numbers(c, B, Tn, stage_request::all());
}

std::optional<std::size_t> training_numbers(const architecture& c, std::size_t B, std::size_t Tn) {
    tally t;
    t.add(4, parameter_count(c));      // parameters, gradients, AdamW's m and v
    t.add(forward_numbers(c, B, Tn));  // the forward's stages
    t.add(forward_numbers(c, B, Tn));  // the backward's gradient of each stage
    t.add(forward_numbers(c, 1, Tn));  // --watch's probe row
    t.add(2, B, Tn);                   // tokens, targets
    return t.total();
}

std::optional<std::size_t> gradient_numbers(const architecture& c, std::size_t B, std::size_t Tn) {
    tally t;
    t.add(parameter_count(c));
    t.add(forward_numbers(c, B, Tn));
    t.add(forward_numbers(c, B, Tn));
    return t.total();
}

std::optional<std::size_t> decode_numbers(const architecture& c, std::size_t capacity, std::size_t logit_rows) {
    tally t;
    t.add(parameter_count(c));                               // the packed weights
    t.add(2 * c.n_layer, capacity, c.kv_heads(), c.d_head());  // keys and values
    t.add(c.n_head, capacity);                               // the traced head's weights
    t.add(logit_rows + 1, c.vocab_size);                     // --logits, and the step's own
    return t.total();
}

std::optional<std::size_t> encode_numbers(std::size_t bytes) {
    tally t;
    t.add(8, bytes);
    return t.total();
}

std::string largest_parameter(const architecture& c) {
    model_params<float> shell;  // the names and the layers; no tensor allocated
    shell.config = c;
    shell.blocks.resize(c.n_layer);
    std::string name;
    std::vector<std::size_t> shape;
    std::size_t most = 0;
    for_each_param(shell, [&](const std::string& n, param_kind, const auto&) {
        const auto s = param_shape(n, c);
        std::size_t k = 1;
        for (std::size_t d : s) k *= d;
        if (name.empty() || k > most) name = n, shape = s, most = k;
    });
    std::string text = name + " [";
    for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? " × " : "") + std::to_string(shape[i]);
    return text + "]";
}

}  // namespace attn::model
