// lessons/model_head_inputs.cpp — see model_head_inputs.hpp: the float64 forward of
// the built-in checkpoint (trained_models.hpp), its hook_q/k/v cut to one head.
#include "lessons/model_head_inputs.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "core/error.hpp"
#include "core/mask.hpp"
#include "core/prng.hpp"
#include "model/finite_check.hpp"
#include "model/train_step.hpp"
#include "lessons/counting.hpp"
#include "lessons/trained_models.hpp"

namespace attn::lessons {

namespace {

struct qkv {
    matrix q, k, v;  // [P, d_head] each
};

// Whether the model's rotation is the one the grader applies (core/rope's adjacent pairs,
// every coordinate of a head): then an exercise hands out q and k before it.
bool student_rotates(const model::architecture& c) {
    return c.positions == model::position_kind::rotary && c.pairing == model::rotary_pairing::adjacent &&
           c.rotated_dims() == c.d_head();
}

// Per-thread working buffers of one built-in model for sequences of P tokens (one block's,
// reused layer after layer and call after call, as model::trace_stages uses them): with
// the attention grids when the forward reads heads (as trace_stages' stage_request::through
// holds them), without them for a greedy step (as stage_request::outputs); the same bits.
model::train_acts<double>& buffers_for(const model::model_params<double>& p, std::size_t P, bool grids) {
    struct kept {
        const model::model_params<double>* p;
        std::size_t P;
        bool grids;
        model::train_acts<double> t;
    };
    thread_local std::vector<std::unique_ptr<kept>> all;
    for (auto& k : all)
        if (k->p == &p && k->P == P && k->grids == grids) return k->t;
    if (all.size() >= 32) all.clear();  // bounded: a few models, a few lengths (greedy grows one token at a time)
    all.push_back(std::make_unique<kept>(kept{&p, P, grids, model::make_train_acts<double>(p.config, 1, P, 1, false, grids)}));
    return all.back()->t;
}

// Whether n numbers are finite; a forward that makes one that is not is run again the
// traced way (model::trace_stages), which refuses it by stage, layer and place.
bool finite(const std::vector<double>& v, std::size_t n) { return model::first_nonfinite(v.data(), n) == static_cast<std::size_t>(-1); }
[[noreturn]] void refuse_nonfinite(const model::model_params<double>& p, const std::vector<int>& ids, const model::stage_request& r) {
    model::trace_stages(p, std::vector<std::vector<int>>{ids}, r);
    throw attn::error("the forward of the built-in model on this input is not finite");
}

// What an exercise reads of one block: every head's q, k (rotated when the student does not
// rotate them, as handed out) and v, [P, H·d_head] and [P, KV·d_head].
struct block_heads {
    std::vector<double> q, k, v;
};

// One forward of a built-in model on ids, as far as the heads read so far: block `full`'s
// q, k, v (its ln1 and q|k|v product, model::forward_block_qkv), every block before it whole.
// Kept per thread for the next calls on the same model and ids: the heads an exercise and
// its catalogue read (its own, the one counted from 0, the wrong key/value group, a wrong
// answer's other layers and heads) and a same_input_as partner's all come from it, a later
// layer continuing from the stream kept. The same bits as model::trace_stages's hook_q/k/v.
struct head_forward {
    const trained_model* model = nullptr;
    std::vector<int> ids;               // [P]
    std::size_t full = 0;               // blocks computed whole; `stream` enters block `full`
    std::vector<double> stream;         // [P, d_model]
    std::vector<block_heads> blocks;    // [full + 1]
};

block_heads heads_of(const model::architecture& c, const model::train_block_acts<double>& b, std::size_t P) {
    const std::size_t H = c.n_head, KV = c.kv_heads(), dh = c.d_head(), W = c.qkv_width();
    block_heads h;
    if (b.q.empty()) {  // GPT-2: the fused q | k | v, H = KV
        h.q.resize(P * H * dh), h.k.resize(P * H * dh), h.v.resize(P * H * dh);
        for (std::size_t i = 0; i < P; ++i)
            for (std::size_t j = 0; j < 3; ++j)
                std::copy(b.qkv.begin() + static_cast<std::ptrdiff_t>(i * W + j * H * dh),
                          b.qkv.begin() + static_cast<std::ptrdiff_t>(i * W + (j + 1) * H * dh),
                          (j == 0 ? h.q : j == 1 ? h.k : h.v).begin() + static_cast<std::ptrdiff_t>(i * H * dh));
        return h;
    }
    const bool rotated = c.positions == model::position_kind::rotary && !student_rotates(c);
    h.q.assign((rotated ? b.rot_q : b.q).begin(), (rotated ? b.rot_q : b.q).begin() + static_cast<std::ptrdiff_t>(P * H * dh));
    h.k.assign((rotated ? b.rot_k : b.k).begin(), (rotated ? b.rot_k : b.k).begin() + static_cast<std::ptrdiff_t>(P * KV * dh));
    h.v.assign(b.v.begin(), b.v.begin() + static_cast<std::ptrdiff_t>(P * KV * dh));
    return h;
}

// The heads of block `layer` of m on ids (from the thread's last forwards: up to 8 inputs,
// the few an exercise, its partner and their catalogue read at once).
const block_heads& forward_of(const trained_model& m, const std::vector<int>& ids, std::size_t layer) {
    thread_local std::vector<std::unique_ptr<head_forward>> recent;  // most recent first
    const auto& p = m.params;
    const auto& c = p.config;
    auto it = std::find_if(recent.begin(), recent.end(), [&](const auto& f) { return f->model == &m && f->ids == ids; });
    if (it == recent.end()) {
        model::check_tokens(c, std::vector<std::vector<int>>{ids});
        if (recent.size() >= 8) recent.pop_back();
        recent.insert(recent.begin(), std::make_unique<head_forward>());
        it = recent.begin();
    } else {
        std::rotate(recent.begin(), it, it + 1);
        it = recent.begin();
    }
    head_forward& f = **it;
    const std::size_t P = ids.size(), N = P * c.n_embd;
    auto& t = buffers_for(p, P, true);
    auto& b = t.blocks[0];
    if (!f.model) {  // new: the embeddings, then block 0's heads
        const std::vector<std::int32_t> flat(ids.begin(), ids.end());
        model::forward_embed(p, t, flat.data());
        if (!finite(t.embed, N)) refuse_nonfinite(p, ids, model::stage_request::through(0));
        f.stream.assign(t.embed.begin(), t.embed.begin() + static_cast<std::ptrdiff_t>(N));
        model::forward_block_qkv(p, 0, b, f.stream.data(), t.rotary, 1, P);
        f.blocks.push_back(heads_of(c, b, P));
        f.model = &m;
        f.ids = ids;
    }
    while (f.full < layer) {  // block `full` whole, then the next one's heads
        model::forward_block(p, f.full, b, f.stream.data(), t.rotary, 1, P);
        if (!finite(b.resid_post, N)) refuse_nonfinite(p, ids, model::stage_request::through(f.full));
        std::copy(b.resid_post.begin(), b.resid_post.begin() + static_cast<std::ptrdiff_t>(N), f.stream.begin());
        model::forward_block_qkv(p, ++f.full, b, f.stream.data(), t.rotary, 1, P);
        f.blocks.push_back(heads_of(c, b, P));
    }
    const block_heads& h = f.blocks.at(layer);
    if (!finite(h.q, h.q.size()) || !finite(h.k, h.k.size()) || !finite(h.v, h.v.size()))
        refuse_nonfinite(p, ids, model::stage_request::through(layer));
    return h;
}

// Query head `head` of `layer` reading key/value head `kv` (grouped-query attention:
// its own is head / (H / KV)); q and k before the rotation when the student rotates them.
qkv head_of(const std::string& model, const std::vector<int>& ids, std::size_t layer, std::size_t head, std::size_t kv) {
    const trained_model& m = find_trained_model(model);
    const block_heads& b = forward_of(m, ids, layer);
    const std::size_t P = ids.size(), dh = m.params.config.d_head(), H = m.params.config.n_head, KV = m.params.config.kv_heads();
    qkv h{matrix({P, dh}), matrix({P, dh}), matrix({P, dh})};
    for (std::size_t i = 0; i < P; ++i)
        for (std::size_t d = 0; d < dh; ++d) {
            h.q(i, d) = b.q[(i * H + head) * dh + d];
            h.k(i, d) = b.k[(i * KV + kv) * dh + d];
            h.v(i, d) = b.v[(i * KV + kv) * dh + d];
        }
    return h;
}

// The likeliest next token after each position of ids (the first of a tie: out[i] follows
// ids[0..i]): the whole forward and its logits, no block's stages kept (the same bits as
// trace_stages' stage_request::outputs); nullopt when a number is not finite.
std::optional<std::vector<int>> greedy_picks(const model::model_params<double>& p, const std::vector<int>& ids) {
    const auto& c = p.config;
    model::check_tokens(c, std::vector<std::vector<int>>{ids});
    const std::size_t P = ids.size(), N = P * c.n_embd, V = c.vocab_size;
    auto& t = buffers_for(p, P, false);
    const std::vector<std::int32_t> flat(ids.begin(), ids.end()), targets(P, -1);
    model::forward_embed(p, t, flat.data());
    bool ok = finite(t.embed, N);
    for (std::size_t l = 0; l < c.n_layer && ok; ++l) {
        model::forward_block(p, l, t.blocks[0], t.embed.data(), t.rotary, 1, P);
        ok = finite(t.blocks[0].resid_post, N);
        std::copy(t.blocks[0].resid_post.begin(), t.blocks[0].resid_post.begin() + static_cast<std::ptrdiff_t>(N), t.embed.begin());
    }
    thread_local std::vector<double> logits, probs;  // [P, V]
    logits.resize(P * V), probs.resize(P * V);
    if (ok) model::forward_head(p, t, t.embed.data(), logits.data(), probs.data(), targets.data());
    if (!ok || !finite(logits, P * V) || !finite(probs, P * V)) return std::nullopt;
    std::vector<int> out(P);
    for (std::size_t i = 0; i < P; ++i) {
        const double* row = logits.data() + i * V;
        out[i] = static_cast<int>(std::max_element(row, row + V) - row);  // the first of a tie
    }
    return out;
}

int greedy_next(const model::model_params<double>& p, const std::vector<int>& ids) {
    const auto picks = greedy_picks(p, ids);
    if (!picks) refuse_nonfinite(p, ids, model::stage_request::outputs());
    return picks->back();
}

// ids continued greedily towards n tokens in fewer forwards: one forward on ids and a guess
// of the rest gives the next token after every position, exact up to the first guessed token
// that differs from its pick (the forward is causal: a position's logits read no later token,
// and its bits do not depend on how many follow), so every token kept is greedy_next's; the
// ones after it are guessed again from that forward's picks. Stops, for the caller to go on a
// token at a time, when a forward keeps one token only or is not finite.
void greedy_guessed(const model::model_params<double>& p, std::vector<int>& ids, std::size_t n, std::vector<int> guess) {
    while (ids.size() < n) {
        std::vector<int> seq = ids;  // [n - 1]: the kept tokens, then the guess
        seq.insert(seq.end(), guess.begin(), guess.begin() + static_cast<std::ptrdiff_t>(n - 1 - ids.size()));
        const auto picks = greedy_picks(p, seq);
        if (!picks) return;
        const std::size_t before = ids.size();
        for (std::size_t pos = before - 1; pos + 1 < n; ++pos) {
            ids.push_back((*picks)[pos]);
            if (pos + 1 < seq.size() && seq[pos + 1] != (*picks)[pos]) break;  // later picks read a wrong guess
        }
        if (ids.size() - before < 2) return;
        guess.assign(picks->begin() + static_cast<std::ptrdiff_t>(ids.size() - 1), picks->end());  // what it wrote after them
    }
}

std::size_t own_kv(const model::architecture& c, std::size_t head) { return head / (c.n_head / c.kv_heads()); }

qkv head_of(const std::string& model, const std::vector<int>& ids, std::size_t layer, std::size_t head) {
    return head_of(model, ids, layer, head, own_kv(find_trained_model(model).params.config, head));
}

// "query head 6 read key/value head 2 instead of 3: …" (counted from 1, as on screen).
std::string fmt_kv(std::size_t head, std::size_t wrong, std::size_t right, std::size_t H, std::size_t KV) {
    const std::size_t per = H / KV;
    return "query head " + std::to_string(head + 1) + " read key/value head " + std::to_string(wrong + 1) + " instead of " +
           std::to_string(right + 1) + ": the " + std::to_string(H) + " query heads share the " + std::to_string(KV) +
           " key/value heads in consecutive groups of " + std::to_string(per) + " (heads 1–" + std::to_string(per) +
           " read key/value head 1, …), not dealt round-robin";
}

// What a rotary head's numbers are: q and k before the rotation, k and v shared.
std::string fmt_rotary(const model::architecture& c, std::size_t head) {
    std::string base = std::to_string(static_cast<long long>(c.rope_theta));
    return ". Q below is that query head's, K and V are those of key/value head " + std::to_string(own_kv(c, head) + 1) +
           ", which it shares with the other heads of its group; Q and K are before the rotation: turn each row by its "
           "position (counted from 0), pair (d0, d1), (d2, d3), … with base " + base + ", then attend (causal).";
}

// "2₅": the token with its position below it, as lessons 20–22 label a head's rows.
// A model with its own pieces (a GGUF) labels them: "Once₁".
std::string at_label(const trained_model& m, int token, std::size_t pos) { return token_label(m, token) + position_subscript(pos); }

// ids continued to `length`: greedy appends the likeliest next token (the sort model
// writes its sorted answer), repeat repeats the drawn block, after the kept tokens (BOS).
std::vector<int> computed_continuation(const model_source& m, std::vector<int> ids) {
    const std::size_t drawn = ids.size() - m.keep;
    if (m.then == "greedy" && ids.size() + 1 < m.tokens.size()) {  // guessed: the drawn tokens sorted (what the sort model writes)
        std::vector<int> guess(ids.begin() + static_cast<std::ptrdiff_t>(m.keep), ids.end());
        std::sort(guess.begin(), guess.end());
        guess.resize(m.tokens.size(), guess.empty() ? 0 : guess.back());
        greedy_guessed(find_trained_model(m.model).params, ids, m.tokens.size(), guess);
    }
    while (ids.size() < m.tokens.size() && m.then != "none") {
        if (m.then == "repeat") {
            ids.push_back(ids[ids.size() - drawn]);
            continue;
        }
        ids.push_back(greedy_next(find_trained_model(m.model).params, ids));
    }
    return ids;
}

// The other built-in checkpoints of the run: NAME and NAME-STEP for the NAME before '-'.
std::vector<std::string> siblings(const std::string& model) {
    const std::string base = model.substr(0, model.find('-'));
    std::vector<std::string> out;
    for (const auto& n : trained_model_names())
        if (n != model && (n == base || n.rfind(base + "-", 0) == 0)) out.push_back(n);
    std::sort(out.begin(), out.end());
    return out;
}

// "the sort model after 2,000 training steps" (attn.steps of the file's metadata).
std::string model_words(const std::string& model) {
    const auto& md = find_trained_model(model).metadata;
    const auto it = md.find("attn.steps");
    std::string n = it == md.end() ? "" : it->second;
    for (int i = static_cast<int>(n.size()) - 3; i > 0; i -= 3) n.insert(static_cast<std::size_t>(i), ",");
    return "the " + model.substr(0, model.find('-')) + " model" + (n.empty() ? "" : " after " + n + " training steps");
}

}  // namespace

// Grouped-query attention's slip: query head h paired with key/value head h mod KV (the
// groups dealt round-robin) instead of h / (H / KV), when that is another head.
static void other_key_heads(const model_source& m, const std::vector<int>& ids, head_numbers& out) {
    const auto& c = find_trained_model(m.model).params.config;
    const std::size_t right = own_kv(c, m.head), wrong = m.head % c.kv_heads();
    if (c.kv_heads() == c.n_head || wrong == right) return;
    const qkv h = head_of(m.model, ids, m.layer, m.head, wrong);
    out.others.push_back({"kv_head_wrong_group",
                          fmt_kv(m.head, wrong, right, c.n_head, c.kv_heads()), h.q, h.k, h.v, false});
}

static head_numbers computed_head_numbers(const model_source& m, const std::vector<int>& ids) {
    qkv h = head_of(m.model, ids, m.layer, m.head);
    head_numbers out{h.q, h.k, h.v, causal_mask(ids.size(), ids.size()), {}, {}, {}, {}};
    for (std::size_t i = 0; i < ids.size(); ++i) {
        out.labels.push_back(at_label(find_trained_model(m.model), ids[i], i));
        out.positions.push_back(std::to_string(i));
    }
    const auto& c = find_trained_model(m.model).params.config;
    if (student_rotates(c)) {
        out.rope_base = c.rope_theta;
        out.others.push_back({"rotation_skipped", "q and k used as handed out: a rotary head turns each row by its position "
                                                  "before the scores", out.q, out.k, out.v, true});
    }
    const std::string asked = head_label(m.layer, m.head, false);
    other_key_heads(m, ids, out);
    if (m.layer + 1 < model_layers(m.model) && m.head + 1 < model_heads(m.model)) {
        h = head_of(m.model, ids, m.layer + 1, m.head + 1);
        out.others.push_back({"head_counted_from_0",
                              head_label(m.layer + 1, m.head + 1, false) + " read instead of " + asked +
                                  ": the lessons count layers and heads from 1, the checkpoint and `attn model` from 0",
                              h.q, h.k, h.v, false});
    }
    for (const auto& other : siblings(m.model)) {
        h = head_of(other, ids, m.layer, m.head);
        out.others.push_back({"other_checkpoint", "the head of " + model_words(other) + " instead of " + model_words(m.model),
                              h.q, h.k, h.v, false});
    }
    return out;
}

// Grading a class draws the same few inputs again and again (six digits from {0, 1, 2}
// are 729 sequences), and each costs several model forwards: keep each result, keyed by
// everything it depends on, shared by the grading threads. A pure function of its key,
// so the cache never changes an answer. Bounded in bytes whatever the class: once full it
// keeps what it holds (the first inputs of a small space are the ones drawn again) and
// computes the rest; a caller whose inputs are seldom drawn twice does not store them.
template <class Key, class Value>
class head_cache {
public:
    explicit head_cache(std::size_t budget) : budget_(budget) {}
    template <class Compute, class Size>
    Value get(const Key& key, bool store, Compute compute, Size bytes) {
        if (store) {
            const std::lock_guard<std::mutex> hold(lock_);
            const auto it = map_.find(key);
            if (it != map_.end()) return it->second;
        }
        Value v = compute();
        if (!store) return v;
        const std::size_t b = bytes(v) + sizeof(Key) + 64;
        const std::lock_guard<std::mutex> hold(lock_);
        if (used_ + b <= budget_ && map_.emplace(key, v).second) used_ += b;
        return v;
    }

private:
    std::size_t budget_, used_ = 0;
    std::map<Key, Value> map_;
    std::mutex lock_;
};

// The bytes a head's numbers hold (the cache's budget counts them).
static std::size_t head_bytes(const head_numbers& h) {
    std::size_t n = (h.q.size() + h.k.size() + h.v.size()) * sizeof(double) + h.attend.size();
    for (const auto& o : h.others) n += (o.q.size() + o.k.size() + o.v.size()) * sizeof(double) + o.explanation.size();
    for (const auto& l : h.labels) n += l.size() + 32;
    return n + 32 * h.positions.size();
}

head_numbers model_head_numbers(const model_source& m, const std::vector<int>& ids, bool keep) {
    using key = std::tuple<std::string, std::size_t, std::size_t, std::vector<int>>;
    static head_cache<key, head_numbers> cache(48u << 20);  // 48 MiB: lesson 20 and 22's 4 × 729 inputs of the sort models
    return cache.get(key{m.model, m.layer, m.head, ids}, keep, [&] { return computed_head_numbers(m, ids); }, head_bytes);
}

// Tokens from..end of t in one word, `bits` each, when each is below 2^bits and they fit.
static std::optional<std::uint64_t> packed(const std::vector<int>& t, std::size_t from, std::size_t bits) {
    if (bits == 0 || (t.size() - from) * bits > 64) return std::nullopt;
    std::uint64_t w = 0;
    for (std::size_t i = from; i < t.size(); ++i) {
        if (t[i] < 0 || static_cast<std::uint64_t>(t[i]) >> bits) return std::nullopt;
        w |= static_cast<std::uint64_t>(t[i]) << ((i - from) * bits);
    }
    return w;
}

// A greedy continuation kept packed: the drawn tokens and the ones the model writes after
// them each in one 64-bit word (8 digits of {0, …, 5} and the 7 the sort model writes take
// 24 and 21 bits), about 50 bytes an input, so a class of 100,000 finds at grading every
// continuation its variant check computed; 2^18 inputs at most (~13 MiB). Inputs that do
// not pack: nullopt (the caller's cache).
static std::optional<std::vector<int>> packed_continuation(const model_source& m, const std::vector<int>& ids) {
    std::size_t bits = 0;
    while ((std::size_t{1} << bits) < model_vocab(m.model)) ++bits;
    const auto key = packed(ids, 0, bits);
    if (!key || (m.tokens.size() - ids.size()) * bits > 64) return std::nullopt;
    static std::mutex lock;
    static std::map<std::pair<std::string, std::size_t>, std::unordered_map<std::uint64_t, std::uint64_t>> by_run;
    static std::size_t entries = 0;
    const std::pair<std::string, std::size_t> run{m.model, m.tokens.size()};
    {
        const std::lock_guard<std::mutex> hold(lock);
        if (const auto r = by_run.find(run); r != by_run.end())
            if (const auto it = r->second.find(*key); it != r->second.end()) {
                std::vector<int> out = ids;
                for (std::size_t i = ids.size(); i < m.tokens.size(); ++i)
                    out.push_back(static_cast<int>((it->second >> ((i - ids.size()) * bits)) & ((std::uint64_t{1} << bits) - 1)));
                return out;
            }
    }
    std::vector<int> out = computed_continuation(m, ids);
    const auto value = packed(out, ids.size(), bits);
    if (!value || out.size() != m.tokens.size()) return out;
    const std::lock_guard<std::mutex> hold(lock);
    if (entries < (std::size_t{1} << 18) && by_run[run].emplace(*key, *value).second) ++entries;
    return out;
}

std::vector<int> draw_model_input(const model_source& m, prng& rng, double lo, double hi) {
    std::vector<int> ids(m.tokens.begin(), m.tokens.begin() + static_cast<std::ptrdiff_t>(m.keep));  // [keep]
    ids.resize(m.keep + (m.drawn ? m.drawn : m.tokens.size() - m.keep));
    // A block that repeats holds no token twice (the reader checks the range has room):
    // a token seen twice in the block would give the copy two earlier keys to follow.
    const bool distinct = m.then == "repeat";
    for (std::size_t i = m.keep; i < ids.size(); ++i)
        do {
            ids[i] = static_cast<int>(rng.uniform_int(static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi)));
        } while (distinct && std::find(ids.begin() + static_cast<std::ptrdiff_t>(m.keep), ids.begin() + static_cast<std::ptrdiff_t>(i),
                                       ids[i]) != ids.begin() + static_cast<std::ptrdiff_t>(i));
    if (m.then != "greedy") return computed_continuation(m, ids);  // no forward to save
    if (auto packed = packed_continuation(m, ids)) return *packed;
    using key = std::tuple<std::string, std::string, std::size_t, std::vector<int>>;
    static head_cache<key, std::vector<int>> cache(4u << 20);
    return cache.get(key{m.model, m.then, m.tokens.size(), ids}, true, [&] { return computed_continuation(m, ids); },
                     [](const std::vector<int>& v) { return 2 * v.size() * sizeof(int) + 64; });
}

std::string model_numbers_words(const model_source& m, const std::vector<int>& ids) {
    const std::size_t end = m.keep + m.drawn;  // where the drawn tokens end
    const bool split = m.drawn && end < ids.size();
    std::string seq;
    for (std::size_t i = 0; i < ids.size(); ++i) seq += (i ? (split && i == end ? " | " : " ") : "") + std::to_string(ids[i]);
    const std::string yours = m.keep ? "the lesson's first " + (m.keep == 1 ? "token" : std::to_string(m.keep) + " tokens") +
                                           ", your " + std::to_string(m.drawn) + " tokens"
                                     : "your " + std::to_string(m.drawn) + " digits";
    const auto& c = find_trained_model(m.model).params.config;
    const std::string what =
        !student_rotates(c) ? ". Q, K and V below are that head's own (biases included); the mask is causal."
                            : fmt_rotary(c, m.head);
    return head_label(m.layer, m.head) + " of " + model_words(m.model) + ", on the sequence " + seq +
           (split ? " (" + yours + (m.then == "repeat" ? ", then the same again)" : ", then what the model writes)") : "") + what;
}

std::size_t model_layers(const std::string& model) { return find_trained_model(model).params.config.n_layer; }
std::size_t model_heads(const std::string& model) { return find_trained_model(model).params.config.n_head; }
std::size_t model_positions(const std::string& model) { return find_trained_model(model).params.config.n_positions; }
std::size_t model_vocab(const std::string& model) { return find_trained_model(model).params.config.vocab_size; }

}  // namespace attn::lessons
