// lessons/model_head_inputs.cpp — see model_head_inputs.hpp: the float64 forward of
// the built-in checkpoint (trained_models.hpp), its hook_q/k/v cut to one head.
#include "lessons/model_head_inputs.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "core/error.hpp"
#include "core/mask.hpp"
#include "core/prng.hpp"
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

// One forward of a built-in model on ids, kept per thread for the next call on the same
// model and ids: the heads an exercise and its catalogue read (its own, the one counted
// from 0, the wrong key/value group) and a same_input_as partner's head all come from it.
// The forward stops after the last layer an exercise reads (its own, the next one for
// the head counted from 0): no later layer, no logits (the same bits up to there).
struct head_forward {
    std::string model;
    std::vector<int> ids;                  // [P]
    std::size_t through = 0;               // the last block computed
    std::shared_ptr<const model::forward_acts<double>> acts;
};

// The forward of ids through block `through` at least (every block up to the next one
// after `layer`, so the head counted from 0 is there too).
const model::forward_acts<double>& forward_of(const std::string& model, const std::vector<int>& ids, std::size_t layer) {
    thread_local head_forward last;
    const auto& p = find_trained_model(model).params;
    const std::size_t through = std::min(layer + 1, p.config.n_layer - 1);
    if (!last.acts || last.model != model || last.ids != ids || last.through < through) {
        last.acts = std::make_shared<const model::forward_acts<double>>(
            model::trace_stages(p, std::vector<std::vector<int>>{ids}, model::stage_request::through(through)));
        last.model = model;
        last.ids = ids;
        last.through = through;
    }
    return *last.acts;
}

// Query head `head` of `layer` reading key/value head `kv` (grouped-query attention:
// its own is head / (H / KV)); q and k before the rotation when the student rotates them.
qkv head_of(const std::string& model, const std::vector<int>& ids, std::size_t layer, std::size_t head, std::size_t kv) {
    const trained_model& m = find_trained_model(model);
    const auto& a = forward_of(model, ids, layer);
    const std::size_t P = ids.size(), dh = m.params.config.d_head();
    const bool rotated = m.params.config.positions == model::position_kind::rotary && !student_rotates(m.params.config);
    qkv h{matrix({P, dh}), matrix({P, dh}), matrix({P, dh})};
    const auto& b = a.blocks.at(layer);  // q, rot_q: [1, P, H, d_head]; k, rot_k, v: [1, P, KV, d_head]
    for (std::size_t i = 0; i < P; ++i)
        for (std::size_t d = 0; d < dh; ++d) {
            h.q(i, d) = rotated ? b.rot_q(0, i, head, d) : b.q(0, i, head, d);
            h.k(i, d) = rotated ? b.rot_k(0, i, kv, d) : b.k(0, i, kv, d);
            h.v(i, d) = b.v(0, i, kv, d);
        }
    return h;
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
    while (ids.size() < m.tokens.size() && m.then != "none") {
        if (m.then == "repeat") {
            ids.push_back(ids[ids.size() - drawn]);
            continue;
        }
        // The logits alone: no block's stages kept (the same bits as forward_one's).
        const auto a = model::trace_stages(find_trained_model(m.model).params, std::vector<std::vector<int>>{ids},
                                           model::stage_request::outputs());
        const std::size_t last = ids.size() - 1;
        std::size_t best = 0;
        for (std::size_t v = 1; v < a.logits.shape(2); ++v)
            if (a.logits(0, last, v) > a.logits(0, last, best)) best = v;
        ids.push_back(static_cast<int>(best));
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
