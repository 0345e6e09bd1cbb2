// model/traced_forward.cpp — the traced forward as a view (see traced_forward.hpp): runs
// model/train_step's forward_block layer by layer in one block's buffers and copies each
// stage asked for into its hook's buffer. No arithmetic here: every number is the
// training forward's (the same calls in the same order).
#include "model/traced_forward.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "core/heap_tuning.hpp"
#include "core/huge_block.hpp"
#include "model/finite_check.hpp"
#include "model/hooks.hpp"
#include "model/stop_request.hpp"
#include "model/train_parts.hpp"
#include "model/train_step.hpp"

namespace attn::model {

void check_tokens(const architecture& c, const std::vector<std::vector<int>>& tokens) {
    parts::check_trainable(c);
    if (tokens.empty()) throw attn::error("no tokens: give at least one sequence");
    const std::size_t n = tokens[0].size();
    for (std::size_t b = 0; b < tokens.size(); ++b) {
        const auto& row = tokens[b];
        const std::string which = tokens.size() > 1 ? "sequence " + std::to_string(b + 1) + ": " : "";
        if (row.empty()) throw attn::error(which + "no tokens");
        if (row.size() != n)
            throw attn::error(which + std::to_string(row.size()) + " tokens, but sequence 1 has " +
                                        std::to_string(n) + " (every sequence of a batch has the same length)");
        if (row.size() > c.n_positions)
            throw attn::error(which + std::to_string(row.size()) + " tokens, but the model has " +
                                        std::to_string(c.n_positions) + " positions");
        for (std::size_t i = 0; i < row.size(); ++i)
            if (row[i] < 0 || static_cast<std::size_t>(row[i]) >= c.vocab_size)
                throw attn::error(which + "token " + std::to_string(i + 1) + " is " + std::to_string(row[i]) +
                                            ", outside the vocabulary 0 … " + std::to_string(c.vocab_size - 1));
    }
}

namespace {

// A buffer of train_acts → a new container of `shape` (the same elements, in order).
template <class Tensor, class T>
Tensor copy_of(const std::vector<T>& v, const typename Tensor::shape_type& shape) {
    Tensor t = Tensor::from_shape(shape);
    std::copy(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(t.size()), t.begin());
    return t;
}

// Columns [col0, col0 + w) of rows of width ld → [B, P, w / dh, dh].
template <class T>
act4<T> columns_of(const std::vector<T>& v, std::size_t B, std::size_t P, std::size_t ld, std::size_t col0,
                   std::size_t w, std::size_t dh) {
    act4<T> t = act4<T>::from_shape({B, P, w / dh, dh});
    for (std::size_t r = 0; r < B * P; ++r)
        std::copy(v.begin() + static_cast<std::ptrdiff_t>(r * ld + col0),
                  v.begin() + static_cast<std::ptrdiff_t>(r * ld + col0 + w), t.begin() + static_cast<std::ptrdiff_t>(r * w));
    return t;
}

template <class T>
norm_acts<T> norm_view(const architecture& c, const std::vector<T>& out, const std::vector<T>& normalized,
                       const std::vector<T>& mean, const std::vector<T>& rstd, const std::vector<T>& scale,
                       std::size_t B, std::size_t P) {
    const std::size_t d = c.n_embd;
    norm_acts<T> n;
    if (c.norm == norm_kind::rms_norm) n.scale = copy_of<act3<T>>(scale, {B, P, 1});
    n.normalized = copy_of<act3<T>>(normalized, {B, P, d});
    n.mean = copy_of<act2<T>>(mean, {B, P});
    n.rstd = copy_of<act2<T>>(rstd, {B, P});
    n.out = copy_of<act3<T>>(out, {B, P, d});
    return n;
}

template <class T>
void attention_view(const architecture& c, block_acts<T>& a, const train_block_acts<T>& k, std::size_t B,
                    std::size_t P) {
    const std::size_t H = c.n_head, KV = c.kv_heads(), dh = c.d_head();
    if (!parts::split_attention(c)) {  // GPT-2: q | k | v side by side in one buffer
        const std::size_t d = c.n_embd;
        a.q = columns_of(k.qkv, B, P, 3 * d, 0, d, dh);
        a.k = columns_of(k.qkv, B, P, 3 * d, d, d, dh);
        a.v = columns_of(k.qkv, B, P, 3 * d, 2 * d, d, dh);
    } else {
        a.q = copy_of<act4<T>>(k.q, {B, P, H, dh});
        a.k = copy_of<act4<T>>(k.k, {B, P, KV, dh});
        a.v = copy_of<act4<T>>(k.v, {B, P, KV, dh});
        if (c.positions == position_kind::rotary) {
            a.rot_q = copy_of<act4<T>>(k.rot_q, {B, P, H, dh});
            a.rot_k = copy_of<act4<T>>(k.rot_k, {B, P, KV, dh});
        }
    }
    a.scores = copy_of<act4<T>>(k.scores, {B, H, P, P});
    a.pattern = copy_of<act4<T>>(k.pattern, {B, H, P, P});
    a.z = copy_of<act4<T>>(k.z, {B, P, H, dh});
}

template <class T>
block_acts<T> block_view(const architecture& c, const train_block_acts<T>& k, const std::vector<T>& x, std::size_t B,
                         std::size_t P) {
    const std::size_t d = c.n_embd, m = c.d_mlp();
    block_acts<T> a;
    a.resid_pre = copy_of<act3<T>>(x, {B, P, d});
    a.ln1 = norm_view(c, k.ln1, k.ln1_normalized, k.ln1_mean, k.ln1_rstd, k.ln1_scale, B, P);
    attention_view(c, a, k, B, P);
    a.attn_out = copy_of<act3<T>>(k.attn_out, {B, P, d});
    a.resid_post = copy_of<act3<T>>(k.resid_post, {B, P, d});
    if (!c.has_mlp()) return a;
    a.resid_mid = copy_of<act3<T>>(k.resid_mid, {B, P, d});
    a.ln2 = norm_view(c, k.ln2, k.ln2_normalized, k.ln2_mean, k.ln2_rstd, k.ln2_scale, B, P);
    a.mlp_pre = copy_of<act3<T>>(k.mlp_pre, {B, P, m});
    if (c.mlp == mlp_kind::swiglu) a.mlp_pre_linear = copy_of<act3<T>>(k.mlp_pre_linear, {B, P, m});
    a.mlp_post = copy_of<act3<T>>(k.mlp_post, {B, P, m});
    a.mlp_out = copy_of<act3<T>>(k.mlp_out, {B, P, d});
    return a;
}

// hook_embed and hook_pos_embed: rows of wte and wpe, gathered (the stream entering block
// 0 is their sum, train_acts::embed).
template <class T>
void embed_view(const model_params<T>& p, forward_acts<T>& a, const std::vector<std::int32_t>& flat) {
    const std::size_t B = a.batch, P = a.n_pos, d = p.config.n_embd;
    a.embed = act3<T>::from_shape({B, P, d});
    for (std::size_t r = 0; r < B * P; ++r)
        std::copy(p.wte.data() + static_cast<std::size_t>(flat[r]) * d, p.wte.data() + (static_cast<std::size_t>(flat[r]) + 1) * d,
                  a.embed.data() + r * d);
    if (p.config.positions != position_kind::learned) return;
    a.pos_embed = act3<T>::from_shape({B, P, d});
    for (std::size_t r = 0; r < B * P; ++r)
        std::copy(p.wpe.data() + (r % P) * d, p.wpe.data() + (r % P + 1) * d, a.pos_embed.data() + r * d);
}

}  // namespace

bool stage_request::keeps_block(std::size_t l) const {
    return every_block || std::find(blocks.begin(), blocks.end(), l) != blocks.end();
}

bool stage_request::keeps_grids(std::size_t n_layer) const {
    return every_block || every_pattern || std::any_of(blocks.begin(), blocks.end(), [&](std::size_t l) { return l < n_layer; });
}

namespace {

// Block l's stages checked finite (in the model's order), then copied as `r` asks.
template <class T>
void keep_block(const architecture& c, forward_acts<T>& a, const train_block_acts<T>& k, const std::vector<T>& x,
                std::size_t l, const stage_request& r) {
    const std::size_t B = a.batch, P = a.n_pos;
    std::vector<train_stage<T>> stages;
    list_block_stages(c, k, l, B, P, stages);
    check_finite_stages(stages);
    if (r.keeps_block(l)) a.blocks[l] = block_view(c, k, x, B, P);
    else if (r.every_pattern) a.blocks[l].pattern = copy_of<act4<T>>(k.pattern, {B, c.n_head, P, P});
}

// The working block's scores and pattern [B, H, P, P] for block l: held when the request
// keeps them, else freed (attention then computes them a few rows at a time).
template <class T>
void grids_for(const architecture& c, train_block_acts<T>& k, std::size_t l, const stage_request& r, std::size_t B,
               std::size_t P) {
    if (r.keeps_block(l) || r.every_pattern) {
        if (k.scores.empty()) k.scores.assign(B * c.n_head * P * P, T(0)), k.pattern.assign(B * c.n_head * P * P, T(0));
        return;
    }
    std::vector<T>().swap(k.scores);
    std::vector<T>().swap(k.pattern);
}

}  // namespace

template <class T>
forward_acts<T> trace_stages(const model_params<T>& p, const std::vector<std::vector<int>>& tokens,
                         const stage_request& request) {
    const architecture& c = p.config;
    check_tokens(c, tokens);
    const std::size_t B = tokens.size(), P = tokens[0].size(), d = c.n_embd, V = c.vocab_size;
    std::vector<std::int32_t> flat, targets(B * P, -1);  // [B, P]; no targets: the loss is not asked for
    for (const auto& row : tokens) flat.insert(flat.end(), row.begin(), row.end());
    // One block's buffers, reused by every layer; t.embed [B·P, d] carries the stream.
    train_acts<T> t = make_train_acts<T>(c, B, P, 1, false, false);
    forward_acts<T> a;
    a.batch = B;
    a.n_pos = P;
    a.tokens = tokens;
    a.blocks.resize(c.n_layer);
    forward_embed(p, t, flat.data());
    check_finite_stages(std::vector<train_stage<T>>{{"blocks.0.hook_resid_pre", {B, P, d}, t.embed.data()}});
    embed_view(p, a, flat);
    for (std::size_t l = 0; l < c.n_layer; ++l) {
        check_stop();  // Ctrl-C within a layer's time (model/stop_request)
        grids_for(c, t.blocks[0], l, request, B, P);
        forward_block(p, l, t.blocks[0], t.embed.data(), t.rotary, B, P);
        keep_block(c, a, t.blocks[0], t.embed, l, request);
        if (l == request.through_block) return a;  // no later stage asked for
        std::copy(t.blocks[0].resid_post.begin(), t.blocks[0].resid_post.end(), t.embed.begin());
    }
    // The block's buffers go before the head's logits and probs take their place; a block of
    // tens of MiB is given back to the system (a small one, as a grader's per-student forward,
    // stays in the heap for the next call).
    const bool big_block = B * P * (8 * d + 3 * c.d_mlp()) * sizeof(T) >= (std::size_t{32} << 20);
    t.blocks.clear();
    if (big_block) release_freed_heap();
    check_stop();
    a.logits = act3<T>::from_shape({B, P, V});  // not touched before forward_head writes them
    a.probs = act3<T>::from_shape({B, P, V});
    advise_huge_pages(a.logits.data(), a.logits.size() * sizeof(T));
    advise_huge_pages(a.probs.data(), a.probs.size() * sizeof(T));
    forward_head(p, t, t.embed.data(), a.logits.data(), a.probs.data(), targets.data());
    std::vector<train_stage<T>> head;
    list_head_stages(c, t, a.logits.data(), a.probs.data(), head);
    check_finite_stages(head);
    a.ln_final = norm_view(c, t.lnf, t.lnf_normalized, t.lnf_mean, t.lnf_rstd, t.lnf_scale, B, P);
    return a;
}

template <class T>
const T* hook_data(const forward_acts<T>& a, const hook_name& h, std::vector<std::size_t>* shape) {
    if (!h.info) return nullptr;
    const std::string n = h.info->name;
    const auto give = [&](const auto& t) -> const T* {
        if (t.size() == 0) return nullptr;
        if (shape) shape->assign(t.shape().begin(), t.shape().end());
        return t.data();
    };
    if (h.info->scope == hook_scope::model) {
        if (n == "hook_embed") return give(a.embed);
        if (n == "hook_pos_embed") return give(a.pos_embed);
        if (n == "ln_final.hook_scale") return give(a.ln_final.scale);
        if (n == "ln_final.hook_normalized") return give(a.ln_final.normalized);
        if (n == "logits") return give(a.logits);
        if (n == "probs") return give(a.probs);
        return nullptr;
    }
    if (h.layer >= a.blocks.size()) return nullptr;
    const block_acts<T>& b = a.blocks[h.layer];
    if (n == "hook_resid_pre") return give(b.resid_pre);
    if (n == "ln1.hook_scale") return give(b.ln1.scale);
    if (n == "ln1.hook_normalized") return give(b.ln1.normalized);
    if (n == "attn.hook_q") return give(b.q);
    if (n == "attn.hook_k") return give(b.k);
    if (n == "attn.hook_v") return give(b.v);
    if (n == "attn.hook_rot_q") return give(b.rot_q);
    if (n == "attn.hook_rot_k") return give(b.rot_k);
    if (n == "attn.hook_attn_scores") return give(b.scores);
    if (n == "attn.hook_pattern") return give(b.pattern);
    if (n == "attn.hook_z") return give(b.z);
    if (n == "hook_attn_out") return give(b.attn_out);
    if (n == "hook_resid_mid") return give(b.resid_mid);
    if (n == "ln2.hook_scale") return give(b.ln2.scale);
    if (n == "ln2.hook_normalized") return give(b.ln2.normalized);
    if (n == "mlp.hook_pre") return give(b.mlp_pre);
    if (n == "mlp.hook_pre_linear") return give(b.mlp_pre_linear);
    if (n == "mlp.hook_post") return give(b.mlp_post);
    if (n == "hook_mlp_out") return give(b.mlp_out);
    if (n == "hook_resid_post") return give(b.resid_post);
    return nullptr;
}

template forward_acts<float> trace_stages<float>(const model_params<float>&, const std::vector<std::vector<int>>&,
                                             const stage_request&);
template forward_acts<double> trace_stages<double>(const model_params<double>&, const std::vector<std::vector<int>>&,
                                               const stage_request&);
template const float* hook_data<float>(const forward_acts<float>&, const hook_name&, std::vector<std::size_t>*);
template const double* hook_data<double>(const forward_acts<double>&, const hook_name&, std::vector<std::size_t>*);

}  // namespace attn::model
