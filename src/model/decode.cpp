// model/decode.cpp — one decoding step through the KV cache (see decode.hpp), composed
// of the layer functions of model/train_layers and model/llama_layers.
#include "model/decode.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/error.hpp"
#include "core/prng.hpp"
#include "model/finite_check.hpp"
#include "model/train_layers.hpp"

namespace attn::model {

namespace {

template <class Tensor>
auto ptr(const Tensor& t) -> const typename Tensor::value_type* {
    return t.size() == 0 ? nullptr : t.data();
}

constexpr std::size_t task_bytes = std::size_t(64) << 10;  // weight bytes a task of a packed product reads, at least

// W is small enough for the calling thread alone (llama::decode_parallel_bytes).
template <class T>
bool small_weight(const row_packed_matrix<T>& w) {
    return w.groups() * w.k * w.group * sizeof(T) < llama::decode_parallel_bytes;
}

// Column groups a task of W's product takes (see packed_linear).
template <class T>
std::size_t groups_per_task(const row_packed_matrix<T>& w) {
    const std::size_t group_bytes = std::max<std::size_t>(1, w.k * w.group * sizeof(T));
    return small_weight(w) ? std::max<std::size_t>(1, w.groups()) : (task_bytes + group_bytes - 1) / group_bytes;
}

// Groups g0 … g1 − 1 of out = x · W + b (b may be null).
template <class T>
void packed_task(T* out, const T* x, const row_packed_matrix<T>& w, const T* b, std::size_t g0, std::size_t g1) {
    matmul_row_packed(w, g0, g1, T(1), x, T(0), out);
    if (b)
        for (std::size_t o = g0 * w.group; o < std::min(w.n, g1 * w.group); ++o) out[o] += b[o];
}

// out [OC] = x [IC] · W + b (b may be null): training::linear_forward's arithmetic on a
// weight packed once, its column groups over the threads — a group a task (each group
// is k · group values, 256-400 KiB at GPT-2 or Llama sizes, so the threads stay even),
// or all of them in one task on the calling thread when the weight is small
// (llama::decode_parallel_bytes).
template <class T>
void packed_linear(T* out, const T* x, const row_packed_matrix<T>& w, const T* b) {
    const std::size_t groups = w.groups(), per_task = groups_per_task(w);
    training::for_tasks((groups + per_task - 1) / per_task, [&](std::size_t i) {
        packed_task(out, x, w, b, i * per_task, std::min(groups, (i + 1) * per_task));
    });
}

// out1 = x · W1 and out2 = x · W2 (no biases) in one pass over the threads: SwiGLU's gate and
// up, one wait for the threads instead of two. Each group as packed_linear computes it.
template <class T>
void packed_linear_pair(T* out1, const row_packed_matrix<T>& w1, T* out2, const row_packed_matrix<T>& w2, const T* x) {
    const std::size_t groups1 = w1.groups(), per1 = groups_per_task(w1), tasks1 = (groups1 + per1 - 1) / per1;
    const std::size_t groups2 = w2.groups(), per2 = groups_per_task(w2), tasks2 = (groups2 + per2 - 1) / per2;
    if (small_weight(w1) && small_weight(w2)) {  // both on the calling thread, as packed_linear runs each
        packed_task(out1, x, w1, static_cast<const T*>(nullptr), 0, groups1);
        return packed_task(out2, x, w2, static_cast<const T*>(nullptr), 0, groups2);
    }
    training::for_tasks(tasks1 + tasks2, [&](std::size_t i) {
        if (i < tasks1) return packed_task(out1, x, w1, static_cast<const T*>(nullptr), i * per1, std::min(groups1, (i + 1) * per1));
        i -= tasks1;
        packed_task(out2, x, w2, static_cast<const T*>(nullptr), i * per2, std::min(groups2, (i + 1) * per2));
    });
}

// out [rows] = x · Wᵀ + b for a weight held in a GGUF's blocks (model/quant_matvec): its
// rows over the threads, 64 KiB of blocks a task at least (a multiple of four rows), or
// one task on the calling thread below llama::decode_parallel_bytes. Each row's sum is
// the same whichever task makes it.
void quant_linear(float* out, const float* x, const quant::weight& w, const float* b) {
    struct span {
        const quant::part* p;
        std::size_t r0, r1, at;  // rows r0 … r1 − 1 of *p into out[at …]
    };
    std::size_t total = 0;
    for (const quant::part& p : w.parts) total += p.rows * p.row_bytes;
    std::vector<span> spans;
    std::size_t at = 0;
    for (const quant::part& p : w.parts) {
        const std::size_t per = total < llama::decode_parallel_bytes ? p.rows
                                                                      : std::max<std::size_t>(4, (task_bytes / p.row_bytes + 3) / 4 * 4);
        for (std::size_t r = 0; r < p.rows; r += per) spans.push_back({&p, r, std::min(p.rows, r + per), at + r});
        at += p.rows;
    }
    const auto run = [&](std::size_t i) {
        const span& s = spans[i];
        quant::matvec_rows(*s.p, s.r0, s.r1, x, out + s.at);
        if (b)
            for (std::size_t o = s.at; o < s.at + (s.r1 - s.r0); ++o) out[o] += b[o];
    };
    if (total < llama::decode_parallel_bytes)
        for (std::size_t i = 0; i < spans.size(); ++i) run(i);
    else
        training::for_tasks(spans.size(), run);
}

// A weight's product: in blocks when the decoder holds it so, else packed.
template <class T>
void linear(T* out, const T* x, const row_packed_matrix<T>& w, const quant::weight& q, const T* b) {
    if constexpr (std::is_same_v<T, float>)
        if (!q.empty()) return quant_linear(out, x, q, b);
    packed_linear(out, x, w, b);
}

// Every weight of the model packed for matmul_row_packed into d.weights: W [in, out]
// as it is, the unembedding W_U [vocab, C] transposed.
template <class T>
void pack_weights(decoder<T>& d, const quant::weights* blocks) {
    const model_params<T>& p = *d.params;
    const architecture& a = p.config;
    const std::size_t C = a.n_embd, F = a.has_mlp() ? a.d_mlp() : 0, HD = a.n_head * a.d_head();
    struct job {
        row_packed_matrix<T>* into;
        const T* w;
        std::size_t in, out;
        bool transposed;
    };
    std::vector<job> jobs;  // [weights]
    // The weight `name` in blocks (into q, nothing packed), else packed.
    const auto add = [&](const std::string& name, quant::weight& q, const job& j) {
        if (const quant::weight* held = blocks ? blocks->find(name) : nullptr; held && std::is_same_v<T, float>) return void(q = *held);
        if (!j.w) throw attn::error("generation: the weight " + name + " is neither in memory nor in blocks");
        jobs.push_back(j);
    };
    d.packed.resize(a.n_layer);
    for (std::size_t l = 0; l < a.n_layer; ++l) {
        const block_params<T>& b = p.blocks[l];
        packed_block<T>& w = d.packed[l];
        const std::string h = "blocks." + std::to_string(l) + ".";
        add(h + "attn.W_qkv", w.qkv_q, {&w.qkv, ptr(b.w_qkv), C, a.qkv_width(), false});
        add(h + "attn.W_O", w.out_q, {&w.out, ptr(b.w_out), HD, C, false});
        if (a.mlp == mlp_kind::swiglu) add(h + "mlp.W_gate", w.gate_q, {&w.gate, ptr(b.w_gate), C, F, false});
        if (a.has_mlp()) add(h + "mlp.W_in", w.fc_q, {&w.fc, ptr(b.w_fc), C, F, false}), add(h + "mlp.W_out", w.proj_q, {&w.proj, ptr(b.w_proj), F, C, false});
    }
    if (const quant::weight* e = blocks && std::is_same_v<T, float> ? blocks->find("embed.W_E") : nullptr) d.embed_q = *e;
    if (a.tied && !d.embed_q.empty()) d.unembed_q = d.embed_q;
    else add(a.tied ? "embed.W_E" : "unembed.W_U", d.unembed_q, {&d.unembed, ptr(a.tied ? p.wte : p.lm_head), C, a.vocab_size, true});
    std::size_t total = 0;  // values, each weight's start rounded to 64 bytes
    const std::size_t align = 64 / sizeof(T);
    for (const job& j : jobs) total += (row_packed_size<T>(j.in, j.out) + align - 1) / align * align;
    d.weights = huge_block(total * sizeof(T));
    T* at = static_cast<T*>(d.weights.data());
    for (const job& j : jobs) {
        *j.into = pack_rows(at, j.transposed, j.in, j.out, j.w, j.transposed ? j.in : j.out);
        at += (row_packed_size<T>(j.in, j.out) + align - 1) / align * align;
    }
}

// out = norm(x) with the weight (and LayerNorm's bias) of one norm.
template <class T, class P1>
void norm(decoder<T>& d, T* out, const T* x, const P1& w, const P1& b) {
    const architecture& a = d.params->config;
    const std::size_t C = a.n_embd;
    if (a.norm == norm_kind::rms_norm) {
        llama::rms_norm_forward<T>(out, nullptr, d.rstd.data(), x, w.data(), 1, C, a.ln_eps);
        return;
    }
    training::layer_norm_forward(out, d.mean.data(), d.rstd.data(), x, w.data(), b.size() ? b.data() : d.zero_bias.data(), 1, C,
                                 a.ln_eps);
}

// x += attention of the token's row against layer l's cache.
template <class T>
void attention_step(decoder<T>& d, std::size_t l) {
    const architecture& a = d.params->config;
    const block_params<T>& b = d.params->blocks[l];
    const std::size_t C = a.n_embd, H = a.n_head, KV = a.kv_heads(), dh = a.d_head();
    norm(d, d.a.data(), d.x.data(), b.ln1_w, b.ln1_b);
    linear(d.qkv.data(), d.a.data(), d.packed[l].qkv, d.packed[l].qkv_q, ptr(b.b_qkv));
    const T* q = d.qkv.data();           // [H, dh]
    const T* k = q + H * dh;             // [KV, dh]
    const T* v = k + KV * dh;            // [KV, dh]
    T* pattern = l == d.trace_layer ? d.trace_pattern.data() : nullptr;  // [H, t + 1] when traced
    const std::size_t t = d.position();  // the token's position (the cache grows in the step)
    check_finite_step(d.qkv.data(), d.qkv.size(), l, "attn.hook_qkv", t);
    llama::gqa_decode_step<T>(d.z.data(), nullptr, pattern, d.rot_q.data(), d.caches[l], q, k, v, d.table, H);
    check_finite_step(d.z.data(), d.z.size(), l, "attn.hook_z", t);
    linear(d.o.data(), d.z.data(), d.packed[l].out, d.packed[l].out_q, ptr(b.b_out));
    training::residual_forward(d.x.data(), d.x.data(), d.o.data(), C);
    check_finite_step(d.x.data(), C, l, "hook_resid_mid", t);
}

// x += the MLP of norm2(x).
template <class T>
void mlp_step(decoder<T>& d, std::size_t l) {
    const architecture& a = d.params->config;
    const block_params<T>& b = d.params->blocks[l];
    const std::size_t C = a.n_embd, F = a.d_mlp();
    const packed_block<T>& w = d.packed[l];
    norm(d, d.a.data(), d.x.data(), b.ln2_w, b.ln2_b);
    const std::size_t t = d.position() - 1;  // the token's position (its keys are cached by now)
    const bool pair = a.mlp == mlp_kind::swiglu && w.fc_q.empty() && w.gate_q.empty() && !ptr(b.b_fc);
    if (pair)  // up and gate both packed: one pass
        packed_linear_pair(d.up.data(), w.fc, d.gate.data(), w.gate, d.a.data());
    else
        linear(d.up.data(), d.a.data(), w.fc, w.fc_q, ptr(b.b_fc));
    check_finite_step(d.up.data(), F, l, "mlp.hook_pre", t);
    if (a.mlp == mlp_kind::swiglu) {  // llama::swiglu_forward's steps, on packed weights
        if (!pair) linear(d.gate.data(), d.a.data(), w.gate, w.gate_q, static_cast<const T*>(nullptr));
        llama::silu_gate_forward(d.post.data(), d.gate.data(), d.up.data(), F);
    } else {  // GELU (make_decoder refused the rest)
        training::gelu_forward(d.post.data(), d.tanh_out.data(), d.up.data(), F);
    }
    check_finite_step(d.post.data(), F, l, "mlp.hook_post", t);
    linear(d.o.data(), d.post.data(), w.proj, w.proj_q, ptr(b.b_proj));
    training::residual_forward(d.x.data(), d.x.data(), d.o.data(), C);
    check_finite_step(d.x.data(), C, l, "hook_resid_post", t);
}

// The table a cache turns keys and queries with: rotary frequencies, or none at all.
llama::rotary_table position_table(const architecture& a, std::size_t capacity) {
    if (a.positions == position_kind::rotary) {
        llama::rotary_spec spec;
        spec.theta = a.rope_theta;
        spec.frequencies = a.rope_frequencies;  // rescaled (rope_scaling), or empty
        spec.dims = a.rotary_dims;
        spec.pairing = a.pairing == rotary_pairing::adjacent ? llama::rotary_pairing::adjacent : llama::rotary_pairing::half_split;
        return llama::make_rotary_table(spec, a.d_head(), capacity);
    }
    llama::rotary_table none;  // learned positions: no pair turns (dims 0), every column passes through
    none.d_head = a.d_head();
    none.positions = capacity;
    return none;
}

// The greedy choice: the first of the largest logits (std::max_element's; every logit is
// finite, decode_step refused the rest). The largest in 16 independent lanes, then the first
// index holding it: no chain of dependent compares through the 32,000–50,000 logits.
template <class T>
int greedy_choice(const std::vector<T>& logits) {
    constexpr std::size_t lanes = 16;
    const T* x = logits.data();
    const std::size_t n = logits.size();
    T top = x[0];
    std::size_t i = 0;
    if (n >= lanes) {
        T lane[lanes];
        std::copy_n(x, lanes, lane);
        for (i = lanes; i + lanes <= n; i += lanes)
            for (std::size_t j = 0; j < lanes; ++j) lane[j] = lane[j] < x[i + j] ? x[i + j] : lane[j];
        top = *std::max_element(lane, lane + lanes);
    }
    for (; i < n; ++i) top = top < x[i] ? x[i] : top;
    return static_cast<int>(std::find(x, x + n, top) - x);
}

// A draw from softmax(logits / temperature) over the top_k most likely ids.
template <class T>
int sampled_choice(const std::vector<T>& logits, const sampling& how, prng& rng) {
    std::vector<std::size_t> ids(logits.size());  // [V] ids, most likely first (ties: lower id)
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = i;
    const auto before = [&](std::size_t x, std::size_t y) { return logits[x] > logits[y] || (logits[x] == logits[y] && x < y); };
    if (how.top_k > 0 && how.top_k < ids.size()) {  // only the k most likely need an order
        std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(how.top_k), ids.end(), before);
        ids.resize(how.top_k);
    } else {
        std::sort(ids.begin(), ids.end(), before);
    }
    std::vector<double> w(ids.size());  // [kept] exp((logit − max) / temperature)
    double total = 0;
    for (std::size_t i = 0; i < ids.size(); ++i)
        total += w[i] = std::exp((static_cast<double>(logits[ids[i]]) - static_cast<double>(logits[ids[0]])) / how.temperature);
    double u = rng.uniform() * total;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (u < w[i]) return static_cast<int>(ids[i]);
        u -= w[i];
    }
    return static_cast<int>(ids.back());  // rounding left u at the very end
}

}  // namespace

template <class T>
decoder<T> make_decoder(const model_params<T>& p, std::size_t capacity, const quant::weights* blocks) {
    const architecture& a = p.config;
    if (capacity == 0 || capacity > a.n_positions)
        throw attn::error("the model's context is " + std::to_string(a.n_positions) + " positions; " + std::to_string(capacity) +
                          " asked for");
    if (a.mlp != mlp_kind::none && a.mlp != mlp_kind::swiglu && a.mlp != mlp_kind::gelu_tanh)
        throw attn::error("generation runs GELU and SwiGLU MLPs; the model is " + describe(a));
    decoder<T> d;
    d.params = &p;
    d.capacity = capacity;
    const std::size_t C = a.n_embd, F = a.has_mlp() ? a.d_mlp() : 0, HD = a.n_head * a.d_head();
    for (std::size_t l = 0; l < a.n_layer; ++l) d.caches.push_back(llama::make_kv_cache<T>(1, capacity, a.kv_heads(), a.d_head()));
    d.table = position_table(a, capacity);
    pack_weights(d, blocks);
    if (blocks) d.blocks_owner = blocks->owner;
    d.x.resize(C), d.a.resize(C), d.o.resize(C), d.zero_bias.assign(C, T(0));
    d.qkv.resize(a.qkv_width()), d.rot_q.resize(HD), d.z.resize(HD);
    d.gate.resize(F), d.up.resize(F), d.post.resize(F), d.tanh_out.resize(F);
    d.mean.resize(1), d.rstd.resize(1);
    d.logits.resize(a.vocab_size);
    if (!d.embed_q.empty()) d.embed_row.resize(C);
    d.trace_pattern.resize(a.n_head * capacity);
    return d;
}

template <class T>
const std::vector<T>& decode_step(decoder<T>& d, int token) {
    const model_params<T>& p = *d.params;
    const architecture& a = p.config;
    const std::size_t C = a.n_embd, t = d.position();
    if (token < 0 || static_cast<std::size_t>(token) >= a.vocab_size)
        throw attn::error("token id " + std::to_string(token) + " is outside the vocabulary (0 … " + std::to_string(a.vocab_size - 1) + ")");
    if (t >= d.capacity) throw attn::error("the KV cache is full at " + std::to_string(d.capacity) + " positions");
    std::int32_t id = token;
    const T* wte = ptr(p.wte);  // [vocab, C], or W_E[token] alone (row 0) when the embedding is in blocks
    if constexpr (std::is_same_v<T, float>)
        if (!d.embed_q.empty()) {
            quant::dequantize_row(d.embed_q.parts.front(), static_cast<std::size_t>(token), d.embed_row.data());
            wte = d.embed_row.data(), id = 0;
        }
    if (a.positions == position_kind::learned)
        training::embed_forward(d.x.data(), &id, wte, p.wpe.data() + t * C, 1, 1, C);  // W_E[token] + W_pos[t]
    else
        std::copy_n(wte + static_cast<std::size_t>(id) * C, C, d.x.data());  // W_E[token]
    for (std::size_t l = 0; l < a.n_layer; ++l) {
        attention_step(d, l);
        if (a.has_mlp()) mlp_step(d, l);
    }
    const T* f = d.x.data();
    if (a.final_norm) norm(d, d.a.data(), d.x.data(), p.lnf_w, p.lnf_b), f = d.a.data();
    linear(d.logits.data(), f, d.unembed, d.unembed_q, static_cast<const T*>(nullptr));  // training::unembed_forward's x · W_Uᵀ
    check_finite_step(d.logits.data(), d.logits.size(), finite_model_wide, "logits", t);  // never a token from nan
    return d.logits;
}

template <class T>
generation generate(decoder<T>& d, const std::vector<int>& prompt, std::size_t max_new, const sampling& how,
                    std::optional<int> eos, bool keep_logits, const std::function<void(int)>& on_token) {
    if (prompt.empty()) throw attn::error("generation needs a prompt of at least one token");
    if (!(how.temperature >= 0) || !std::isfinite(how.temperature)) throw attn::error("the temperature must be a number ≥ 0");
    generation g;
    prng rng(how.seed);
    const auto keep = [&](const std::vector<T>& logits) {
        if (keep_logits) g.logits.emplace_back(logits.begin(), logits.end());
        if (d.trace_layer < d.params->config.n_layer) {  // row trace_head of [H, t + 1]
            const std::size_t n = d.position();
            const T* row = d.trace_pattern.data() + d.trace_head * n;
            g.trace.emplace_back(row, row + n);
        }
    };
    for (const int id : prompt) keep(decode_step(d, id));
    while (g.ids.size() < max_new) {
        const int next = how.temperature == 0 ? greedy_choice(d.logits) : sampled_choice(d.logits, how, rng);
        g.ids.push_back(next);
        if (on_token) on_token(next);
        if (eos && next == *eos) {
            g.stopped_at_eos = true;
            break;
        }
        if (g.ids.size() < max_new) keep(decode_step(d, next));  // the last token needs no step: nothing follows it
    }
    return g;
}

template decoder<float> make_decoder<float>(const model_params<float>&, std::size_t, const quant::weights*);
template decoder<double> make_decoder<double>(const model_params<double>&, std::size_t, const quant::weights*);
template const std::vector<float>& decode_step<float>(decoder<float>&, int);
template const std::vector<double>& decode_step<double>(decoder<double>&, int);
template generation generate<float>(decoder<float>&, const std::vector<int>&, std::size_t, const sampling&, std::optional<int>, bool,
                                    const std::function<void(int)>&);
template generation generate<double>(decoder<double>&, const std::vector<int>&, std::size_t, const sampling&, std::optional<int>,
                                     bool, const std::function<void(int)>&);

}  // namespace attn::model
