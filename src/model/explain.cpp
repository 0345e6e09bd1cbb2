// model/explain.cpp — a forward kept for explaining (record_run), the one accessor of
// its stages by TransformerLens name, the residual stream split into components, a
// score split into (query side × key side) terms, and direct logit attribution.
#include "model/explain.hpp"
#include "model/finite_check.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/internal_error.hpp"
#include "model/llama_layers.hpp"
#include "model/train_parts.hpp"

namespace attn::model {

template <class T>
forward_record<T> record_run(const model_params<T>& p, const std::vector<int>& tokens, const stage_patch<T>* patch) {
    const architecture& c = p.config;
    if (tokens.empty()) throw attn::error("the input holds no tokens");
    if (tokens.size() > c.n_positions)
        throw attn::error(fmt::format("{} tokens do not fit the model's {} positions", tokens.size(), c.n_positions));
    forward_record<T> r;
    const std::size_t P = tokens.size();
    r.tokens.resize(P);   // [P]
    r.targets.resize(P);  // [P]
    for (std::size_t i = 0; i < P; ++i) {
        if (tokens[i] < 0 || static_cast<std::size_t>(tokens[i]) >= c.vocab_size)
            throw attn::error(fmt::format("token id {} at position {} is not in the vocabulary (ids 0..{})", tokens[i], i,
                                          c.vocab_size - 1));
        r.tokens[i] = static_cast<std::int32_t>(tokens[i]);
        r.targets[i] = i + 1 < P ? static_cast<std::int32_t>(tokens[i + 1]) : -1;
    }
    r.acts = make_train_acts<T>(c, 1, P);
    r.loss = train_forward(p, r.acts, r.tokens.data(), r.targets.data(), patch);
    check_finite_forward(c, r.acts);  // finite or refused, naming the stage (model/finite_check)
    return r;
}

// ---- the accessor ----------------------------------------------------------------

template <class T>
train_stage<T> stage_of(const architecture& c, const train_acts<T>& a, const std::string& name) {
    // list_stages names the stream between blocks once, as blocks.L−1.hook_resid_post
    std::string kept = name;
    const std::size_t end = name.size() - std::string(".hook_resid_pre").size();
    if (name.rfind("blocks.", 0) == 0 && name.size() > 22 && name.compare(end, std::string::npos, ".hook_resid_pre") == 0 &&
        name.substr(7, end - 7) != "0")
        kept = "blocks." + std::to_string(std::stoul(name.substr(7, end - 7)) - 1) + ".hook_resid_post";
    for (auto& s : list_stages(c, a))
        if (s.name == kept) return s;
    throw attn::internal_error("the forward keeps no stage " + name);
}

template <class T>
const T* norm_rstd(const train_acts<T>& a, const std::string& norm) {
    if (norm == "ln_final") return a.lnf_rstd.data();
    const std::size_t dot = norm.find('.', 7);  // "blocks.L.ln1"
    if (norm.rfind("blocks.", 0) == 0 && dot != std::string::npos) {
        const std::size_t l = std::stoul(norm.substr(7, dot - 7));
        const std::string which = norm.substr(dot + 1);
        if (l < a.blocks.size() && which == "ln1") return a.blocks[l].ln1_rstd.data();
        if (l < a.blocks.size() && which == "ln2") return a.blocks[l].ln2_rstd.data();
    }
    throw attn::internal_error("the forward keeps no norm " + norm);
}

// ---- the residual stream as components --------------------------------------------

namespace {

std::string layer_name(std::size_t l) { return "blocks." + std::to_string(l) + "."; }

template <class T>
std::vector<double> row_of(const T* data, std::size_t row, std::size_t width) {
    return std::vector<double>(data + row * width, data + (row + 1) * width);
}

// Head h's output at pos: hook_z[pos, h, :] · W_O[h·hs … (h+1)·hs − 1, :] (hook_result).
template <class T>
std::vector<double> head_output(const block_params<T>& b, const T* z, std::size_t pos, std::size_t h, std::size_t C,
                                std::size_t hs) {
    std::vector<double> out(C, 0.0);  // [C]
    const T* zr = z + pos * C + h * hs;
    for (std::size_t d = 0; d < hs; ++d) {
        const T* w = b.w_out.data() + (h * hs + d) * C;
        for (std::size_t i = 0; i < C; ++i) out[i] += static_cast<double>(zr[d]) * static_cast<double>(w[i]);
    }
    return out;
}

}  // namespace

template <class T>
std::vector<residual_component> residual_components(const model_params<T>& p, const forward_record<T>& r,
                                                     std::size_t layer, std::size_t pos) {
    const architecture& c = p.config;
    const std::size_t C = c.n_embd, hs = c.d_head();
    std::vector<residual_component> out;
    out.push_back({"embed", row_of(p.wte.data(), static_cast<std::size_t>(r.tokens[pos]), C)});
    if (c.positions == position_kind::learned) out.push_back({"pos_embed", row_of(p.wpe.data(), pos, C)});
    std::vector<double> bias(C, 0.0);  // [C] Σ b_O of the earlier layers
    for (std::size_t l = 0; l < layer; ++l) {
        const T* z = stage_of(c, r.acts, layer_name(l) + "attn.hook_z").data;
        for (std::size_t h = 0; h < c.n_head; ++h)
            out.push_back({layer_name(l) + "attn.head." + std::to_string(h), head_output(p.blocks[l], z, pos, h, C, hs)});
        if (c.has_mlp()) out.push_back({layer_name(l) + "mlp", row_of(stage_of(c, r.acts, layer_name(l) + "hook_mlp_out").data, pos, C)});
        if (!p.blocks[l].b_out.size()) continue;
        for (std::size_t i = 0; i < C; ++i) bias[i] += static_cast<double>(p.blocks[l].b_out(i));
    }
    out.push_back({"bias", bias});
    return out;
}

// ---- a score as terms ------------------------------------------------------------

namespace {

// Each component through a norm with its scale frozen: (v − mean v) · rstd · w for a
// LayerNorm (center), v · rstd · w for an RMSNorm, the norm's bias added to the bias
// component (the last). [n][C]
template <class T>
std::vector<std::vector<double>> explain_normalized(const std::vector<residual_component>& comps, double rstd,
                                            const param1<T>& w, const param1<T>& b, bool center) {
    std::vector<std::vector<double>> out;
    for (std::size_t i = 0; i < comps.size(); ++i) {
        const auto& v = comps[i].value;
        const double mean = center ? std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size()) : 0.0;
        std::vector<double> y(v.size());  // [C]
        for (std::size_t d = 0; d < v.size(); ++d) {
            y[d] = (v[d] - mean) * rstd * static_cast<double>(w(d));
            if (i + 1 == comps.size() && b.size()) y[d] += static_cast<double>(b(d));
        }
        out.push_back(std::move(y));
    }
    return out;
}

// Normalized components through columns col0 … col0 + hs − 1 of the fused projection,
// its bias added to the bias component's. [n][hs]
template <class T>
std::vector<std::vector<double>> projected(const std::vector<std::vector<double>>& ys, const block_params<T>& b,
                                           std::size_t col0, std::size_t hs) {
    const std::size_t C = b.w_qkv.shape(0), W = b.w_qkv.shape(1);
    std::vector<std::vector<double>> out;
    for (std::size_t i = 0; i < ys.size(); ++i) {
        std::vector<double> q(hs, 0.0);  // [hs]
        for (std::size_t d = 0; d < C; ++d)
            for (std::size_t e = 0; e < hs; ++e) q[e] += ys[i][d] * static_cast<double>(b.w_qkv.data()[d * W + col0 + e]);
        if (i + 1 == ys.size() && b.b_qkv.size())
            for (std::size_t e = 0; e < hs; ++e) q[e] += static_cast<double>(b.b_qkv(col0 + e));
        out.push_back(std::move(q));
    }
    return out;
}

// Rotary positions: each projected q or k component turned by the angle of its position
// (the rotation is linear, so the sum of the turned parts is the turned whole, hook_rot_q/k).
void rotate_each(std::vector<std::vector<double>>& parts, const llama::rotary_table& table, std::size_t pos) {
    for (auto& v : parts) llama::rotary_forward<double>(v.data(), v.data(), table, 1, 1, 1, pos);
}

// The first column of query head `head`'s key head in the fused projection q | k | v:
// query head h reads key/value head h / (H / KV) (grouped-query attention).
std::size_t key_column(const architecture& c, std::size_t head) {
    return c.n_head * c.d_head() + head / (c.n_head / c.kv_heads()) * c.d_head();
}

void explain_check_head(const architecture& c, std::size_t layer, std::size_t head) {
    if (layer >= c.n_layer) throw attn::error(fmt::format("layer {} does not exist: the model has {} layers (0..{})", layer, c.n_layer, c.n_layer - 1));
    if (head >= c.n_head) throw attn::error(fmt::format("head {} does not exist: the model has {} head{} (0..{})", head, c.n_head, c.n_head == 1 ? "" : "s", c.n_head - 1));
}

}  // namespace

template <class T>
score_decomposition explain_score(const model_params<T>& p, const forward_record<T>& r, std::size_t layer,
                                  std::size_t head, std::size_t query, std::size_t key) {
    const architecture& c = p.config;
    const std::size_t P = r.tokens.size(), hs = c.d_head();
    explain_check_head(c, layer, head);
    if (query >= P) throw attn::error(fmt::format("query {} does not exist: the input has {} positions (0..{})", query, P, P - 1));
    if (key > query)
        throw attn::error(fmt::format("key {} comes after query {}: a causal model masks it (its score is -inf)", key, query));
    const auto& b = p.blocks[layer];
    const T* rstd = norm_rstd(r.acts, layer_name(layer) + "ln1");
    const auto qc = residual_components(p, r, layer, query), kc = residual_components(p, r, layer, key);
    const bool center = c.norm == norm_kind::layer_norm;
    auto qs = projected(explain_normalized(qc, static_cast<double>(rstd[query]), b.ln1_w, b.ln1_b, center), b, head * hs, hs);
    auto ks = projected(explain_normalized(kc, static_cast<double>(rstd[key]), b.ln1_w, b.ln1_b, center), b, key_column(c, head), hs);
    if (c.positions == position_kind::rotary) {
        rotate_each(qs, r.acts.rotary, query);
        rotate_each(ks, r.acts.rotary, key);
    }
    const double scale = 1.0 / std::sqrt(static_cast<double>(hs));
    score_decomposition s;
    s.layer = layer, s.head = head, s.query = query, s.key = key;
    for (const auto& comp : qc) s.components.push_back(comp.name);
    s.terms.assign(qs.size(), std::vector<double>(ks.size(), 0.0));
    for (std::size_t i = 0; i < qs.size(); ++i)
        for (std::size_t j = 0; j < ks.size(); ++j) {
            double dot = 0;
            for (std::size_t e = 0; e < hs; ++e) dot += qs[i][e] * ks[j][e];
            s.terms[i][j] = dot * scale;
            s.sum += s.terms[i][j];
        }
    const std::size_t cell = (head * P + query) * P + key;  // [1, H, P, P]
    s.model_score = static_cast<double>(stage_of(c, r.acts, layer_name(layer) + "attn.hook_attn_scores").data[cell]);
    s.weight = static_cast<double>(stage_of(c, r.acts, layer_name(layer) + "attn.hook_pattern").data[cell]);
    return s;
}

template <class T>
score_decomposition explain_difference(const model_params<T>& p, const forward_record<T>& r, std::size_t layer,
                                       std::size_t head, std::size_t query, std::size_t key, std::size_t other) {
    score_decomposition d = explain_score(p, r, layer, head, query, key);
    const score_decomposition o = explain_score(p, r, layer, head, query, other);
    d.sum = 0;
    for (std::size_t i = 0; i < d.terms.size(); ++i)
        for (std::size_t j = 0; j < d.terms[i].size(); ++j) {
            d.terms[i][j] -= o.terms[i][j];
            d.sum += d.terms[i][j];
        }
    d.model_score -= o.model_score;
    return d;
}

template <class T>
std::vector<std::size_t> top_keys(const forward_record<T>& r, const architecture& c, std::size_t layer, std::size_t head,
                                  std::size_t query, std::size_t count) {
    const std::size_t P = r.tokens.size();
    const T* row = stage_of(c, r.acts, layer_name(layer) + "attn.hook_pattern").data + (head * P + query) * P;  // [P]
    std::vector<std::size_t> keys(query + 1);
    std::iota(keys.begin(), keys.end(), std::size_t(0));
    std::stable_sort(keys.begin(), keys.end(), [&](std::size_t x, std::size_t y) { return row[x] > row[y]; });
    keys.resize(std::min(count, keys.size()));
    return keys;
}

// ---- direct logit attribution ------------------------------------------------------

namespace {

// A write through ln_final with the forward's scale at pos: (v − mean) · rstd · w (+ b),
// no mean taken for an RMSNorm.
template <class T>
std::vector<double> final_normalized(const model_params<T>& p, const forward_record<T>& r, std::size_t pos,
                                     const std::vector<double>& v, bool with_bias) {
    const double rstd = static_cast<double>(norm_rstd(r.acts, "ln_final")[pos]);
    const double mean = p.config.norm == norm_kind::layer_norm
                            ? std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size()) : 0.0;
    std::vector<double> y(v.size());  // [C]
    for (std::size_t d = 0; d < v.size(); ++d) {
        y[d] = (v[d] - mean) * rstd * static_cast<double>(p.lnf_w(d));
        if (with_bias && p.lnf_b.size()) y[d] += static_cast<double>(p.lnf_b(d));
    }
    return y;
}

template <class T>
double unembed_one(const model_params<T>& p, const std::vector<double>& y, std::size_t token) {
    const T* u = (p.config.tied ? p.wte.data() : p.lm_head.data()) + token * y.size();  // W_U column = row of [V, C]
    double s = 0;
    for (std::size_t d = 0; d < y.size(); ++d) s += y[d] * static_cast<double>(u[d]);
    return s;
}

}  // namespace

template <class T>
std::vector<double> direct_logits(const model_params<T>& p, const forward_record<T>& r, std::size_t pos,
                                  const std::vector<double>& write, bool with_bias) {
    const std::vector<double> y = final_normalized(p, r, pos, write, with_bias);
    std::vector<double> out(p.config.vocab_size);  // [V]
    for (std::size_t t = 0; t < out.size(); ++t) out[t] = unembed_one(p, y, t);
    return out;
}

template <class T>
std::vector<head_write> head_writes(const model_params<T>& p, const forward_record<T>& r, std::size_t layer,
                                    std::size_t head, std::size_t query) {
    const architecture& c = p.config;
    explain_check_head(c, layer, head);
    const std::size_t P = r.tokens.size(), C = c.n_embd, hs = c.d_head();
    if (query >= P) throw attn::error(fmt::format("query {} does not exist: the input has {} positions (0..{})", query, P, P - 1));
    // v of the head's key/value head at key k: hook_v [P, KV, hs] when the block splits q, k,
    // v, else the v columns of hook_qkv [P, qkv_width]
    const bool split = parts::split_attention(c);
    const T* vs = stage_of(c, r.acts, layer_name(layer) + (split ? "attn.hook_v" : "attn.hook_qkv")).data;
    const std::size_t row = split ? c.kv_heads() * hs : c.qkv_width();
    const std::size_t col0 = (split ? 0 : c.n_head * hs + c.kv_heads() * hs) + head / (c.n_head / c.kv_heads()) * hs;
    const T* pattern = stage_of(c, r.acts, layer_name(layer) + "attn.hook_pattern").data;    // [H, P, P]
    std::vector<head_write> out;
    for (std::size_t k = 0; k <= query; ++k) {
        head_write w;
        w.key = k;
        w.weight = static_cast<double>(pattern[(head * P + query) * P + k]);
        w.value.assign(C, 0.0);  // [C] weight · v_k through the head's rows of W_O
        for (std::size_t e = 0; e < hs; ++e) {
            const double ve = w.weight * static_cast<double>(vs[k * row + col0 + e]);
            const T* wo = p.blocks[layer].w_out.data() + (head * hs + e) * C;
            for (std::size_t i = 0; i < C; ++i) w.value[i] += ve * static_cast<double>(wo[i]);
        }
        out.push_back(std::move(w));
    }
    return out;
}

template <class T>
logit_attribution attribute_logit(const model_params<T>& p, const forward_record<T>& r, std::size_t pos,
                                  std::size_t target) {
    const architecture& c = p.config;
    const std::size_t P = r.tokens.size();
    if (pos >= P) throw attn::error(fmt::format("position {} does not exist: the input has {} positions (0..{})", pos, P, P - 1));
    if (target >= c.vocab_size) throw attn::error(fmt::format("token id {} is not in the vocabulary (ids 0..{})", target, c.vocab_size - 1));
    logit_attribution out;
    for (const auto& comp : residual_components(p, r, c.n_layer, pos)) {
        out.components.push_back(comp.name);
        out.values.push_back(unembed_one(p, final_normalized(p, r, pos, comp.value, comp.name == "bias"), target));
    }
    out.model_logit = static_cast<double>(stage_of(c, r.acts, "logits").data[pos * c.vocab_size + target]);
    return out;
}

#define ATTN_EXPLAIN(T)                                                                                                \
    template forward_record<T> record_run<T>(const model_params<T>&, const std::vector<int>&, const stage_patch<T>*); \
    template train_stage<T> stage_of<T>(const architecture&, const train_acts<T>&, const std::string&);                   \
    template const T* norm_rstd<T>(const train_acts<T>&, const std::string&);                                            \
    template std::vector<residual_component> residual_components<T>(const model_params<T>&, const forward_record<T>&,     \
                                                                    std::size_t, std::size_t);                           \
    template score_decomposition explain_score<T>(const model_params<T>&, const forward_record<T>&, std::size_t,          \
                                                  std::size_t, std::size_t, std::size_t);                                \
    template score_decomposition explain_difference<T>(const model_params<T>&, const forward_record<T>&, std::size_t,     \
                                                       std::size_t, std::size_t, std::size_t, std::size_t);             \
    template std::vector<std::size_t> top_keys<T>(const forward_record<T>&, const architecture&, std::size_t,            \
                                                  std::size_t, std::size_t, std::size_t);                                \
    template std::vector<double> direct_logits<T>(const model_params<T>&, const forward_record<T>&, std::size_t,         \
                                                  const std::vector<double>&, bool);                                     \
    template std::vector<head_write> head_writes<T>(const model_params<T>&, const forward_record<T>&, std::size_t,       \
                                                    std::size_t, std::size_t);                                           \
    template logit_attribution attribute_logit<T>(const model_params<T>&, const forward_record<T>&, std::size_t,         \
                                                  std::size_t);

ATTN_EXPLAIN(float)
ATTN_EXPLAIN(double)

}  // namespace attn::model
