// lessons/loader_blocks.cpp — [blocks.X]: multi-head attention, encoder and decoder
// blocks, step-by-step decoding and two stacked attention layers, computed by the
// core from matrices the lesson names. Each block's pieces are registered as runs
// and matrices under "X." so that every show kind can display them:
//   multi_head     runs X.h1 … X.hH; matrices X.q X.k X.v X.concat X.output,
//                  X.q.h1 X.k.h1 X.v.h1 (a head's slice) and X.result.h1 (its share of output)
//   encoder_block  X.attn.* (as multi_head), X.add_norm1.residual/.stream, X.ffn.hidden,
//                  X.ffn.output, X.add_norm2.residual/.stream, X.output
//   decoder_block  X.self.* and X.cross.* (as multi_head), X.add_norm1..3.*, X.ffn.*, X.output
//   decoding       X.step1.output …, X.outputs, X.cross_k, X.cross_v, X.self_k_cache, X.self_v_cache
//   stacked        runs X.layer1, X.layer2; X.combined_weights, X.combined_value, X.collapsed_output
// Each kind is a function and a row of the block_kind registry (loader_internal.hpp);
// block_reader holds the checked accessors they share.
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

#include "core/alibi.hpp"
#include "core/mask.hpp"
#include "core/shape_error.hpp"
#include "io/toml_read.hpp"
#include "lessons/lesson_parts.hpp"
#include "lessons/loader_internal.hpp"

namespace attn::lessons::detail {

namespace {

const std::vector<std::string> mha_keys = {"w_q", "w_k", "w_v", "w_o"};
const std::vector<std::string> ffn_keys = {"w1", "b1", "w2", "b2", "activation"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

}  // namespace

void loader::register_mha(const std::string& prefix, const multi_head_steps& m, const std::vector<std::string>& qt,
                          const std::vector<std::string>& kt, const std::string& title, bool cross) {
    out.matrices[prefix + ".q"] = m.q;
    out.matrices[prefix + ".k"] = m.k;
    out.matrices[prefix + ".v"] = m.v;
    out.matrices[prefix + ".concat"] = m.concat;
    out.matrices[prefix + ".output"] = m.output;
    for (std::size_t h = 0; h < m.heads; ++h) {
        const std::string hh = ".h" + std::to_string(h + 1);
        attention_run r;
        r.name = prefix + hh;
        r.kind = cross ? "cross" : "self";
        r.steps = m.head[h];
        r.labels.title = title + ", head " + std::to_string(h + 1);
        r.labels.query_tokens = qt;
        r.labels.key_tokens = kt;
        if (cross) {
            r.labels.query_side = "decoder queries";
            r.labels.key_side = "encoder keys";
            r.labels.q_name = "Q_dec";
            r.labels.k_name = "K_enc";
            r.labels.v_name = "V_enc";
        }
        out.runs[r.name] = r;
        out.run_order.push_back(r.name);
        out.matrices[prefix + ".q" + hh] = xt::view(m.q_heads, h, xt::all(), xt::all());
        out.matrices[prefix + ".k" + hh] = xt::view(m.k_heads, h, xt::all(), xt::all());
        out.matrices[prefix + ".v" + hh] = xt::view(m.v_heads, h, xt::all(), xt::all());
        out.matrices[prefix + ".result" + hh] = xt::view(m.head_results, h, xt::all(), xt::all());
        out.matrices[prefix + ".weights" + hh] = m.head[h].weights;
    }
}

void loader::register_sublayer(const std::string& prefix, const sublayer_steps& s) {
    out.matrices[prefix + ".residual"] = s.residual;
    out.matrices[prefix + ".stream"] = s.stream;
    out.matrices[prefix + ".norm"] = s.norm.output;
}

bool block_reader::failed() const { return ld.rd.problems->size() != before; }

const matrix* block_reader::m(const std::string& key) { return ld.matrix_ref(b, key, true); }

std::size_t block_reader::heads() {
    auto h = ld.rd.number(b, "heads", false).value_or(1.0);
    if (h < 1 || h != static_cast<double>(static_cast<std::size_t>(h))) {
        ld.rd.fail(b.get("heads"), "'heads' must be a positive whole number");
        return 1;
    }
    return static_cast<std::size_t>(h);
}

vector block_reader::bias(const std::string& key) {
    if (!b.contains(key)) return vector{};
    const matrix* x = m(key);
    if (!x) return vector{};
    if (x->shape(0) != 1) ld.rd.fail(b.get(key), "'" + key + "' must be one row (a bias vector)");
    return xt::flatten(*x);
}

ffn_weights block_reader::ffn() {
    ffn_weights f;
    const matrix* w1 = m("w1");
    const matrix* w2 = m("w2");
    if (w1) f.w1 = *w1;
    if (w2) f.w2 = *w2;
    f.b1 = bias("b1");
    f.b2 = bias("b2");
    const std::string act = ld.rd.string(b, "activation", false).value_or("relu");
    if (act == "gelu") f.act = activation::gelu_tanh;
    else if (act != "relu") ld.rd.fail(b.get("activation"), "'activation' must be relu or gelu, found '" + act + "'");
    return f;
}

multi_head_weights block_reader::mha(const std::string& p, std::size_t h) {
    multi_head_weights w;
    const matrix *q = m(p + "w_q"), *k = m(p + "w_k"), *v = m(p + "w_v"), *o = m(p + "w_o");
    if (q) w.w_q = *q;
    if (k) w.w_k = *k;
    if (v) w.w_v = *v;
    if (o) w.w_o = *o;
    w.heads = h;
    return w;
}

norm_placement block_reader::placement() {
    const std::string p = ld.rd.string(b, "placement", false).value_or("post");
    if (p != "pre" && p != "post") ld.rd.fail(b.get("placement"), "'placement' must be pre or post, found '" + p + "'");
    return p == "pre" ? norm_placement::pre : norm_placement::post;
}

layer_norm_params block_reader::norm() {
    layer_norm_params n;
    if (auto e = ld.rd.number(b, "eps", false)) n.eps = *e;
    return n;
}

std::vector<std::string> block_reader::tokens(const std::string& key, std::size_t n) {
    return ld.token_list(b, key, n, name);
}

namespace {

bool multi_head_block(block_reader& r, block_result& res) {
    const bool self = r.b.contains("x");
    const matrix* xq = self ? r.m("x") : r.m("x_q");
    const matrix* xkv = self ? xq : r.m("x_kv");
    const auto w = r.mha("", r.heads());
    const bool causal = r.ld.rd.boolean(r.b, "causal", false).value_or(false);
    const bool alibi = r.ld.rd.boolean(r.b, "alibi", false).value_or(false);
    if (!xq || !xkv || r.failed()) return false;
    std::vector<attention_options> per_head(w.heads);
    if (alibi) per_head = alibi_options(xq->shape(0), xkv->shape(0), alibi_slopes(w.heads));
    if (causal)
        for (auto& o : per_head) o.mask = causal_mask(xq->shape(0), xkv->shape(0));
    res.mha = multi_head_attention(*xq, *xkv, w, per_head);
    res.query_tokens = r.tokens("query_tokens", xq->shape(0));
    res.key_tokens = r.tokens("key_tokens", xkv->shape(0));
    if (r.failed()) return false;
    r.ld.register_mha(r.name, *res.mha, res.query_tokens, res.key_tokens, res.title, !self);
    return true;
}

bool encoder_block_kind(block_reader& r, block_result& res) {
    const matrix* x = r.m("x");
    encoder_block_weights w{r.mha("", r.heads()), r.ffn(), r.norm(), r.norm(), r.placement()};
    if (!x || r.failed()) return false;
    res.encoder = encoder_block(*x, w);
    res.query_tokens = res.key_tokens = r.tokens("query_tokens", x->shape(0));
    if (r.failed()) return false;
    const auto& e = *res.encoder;
    const std::string& name = r.name;
    auto& out = r.ld.out;
    r.ld.register_mha(name + ".attn", e.attention, res.query_tokens, res.key_tokens, res.title + " self-attention",
                      false);
    r.ld.register_sublayer(name + ".add_norm1", e.add_norm1);
    r.ld.register_sublayer(name + ".add_norm2", e.add_norm2);
    out.matrices[name + ".ffn.hidden"] = e.ffn.hidden;
    out.matrices[name + ".ffn.output"] = e.ffn.output;
    out.matrices[name + ".output"] = e.output;
    return true;
}

// The decoder's inputs, shared by decoder_block and decoding; false after reporting.
bool decoder_inputs(block_reader& r, block_result& res, const matrix*& x, const matrix*& enc,
                    decoder_block_weights& w) {
    x = r.m("x");
    enc = r.m("encoder_output");
    const std::size_t h = r.heads();
    w = decoder_block_weights{r.mha("self_", h), r.mha("cross_", h), r.ffn(), r.norm(), r.norm(), r.norm(),
                              r.placement()};
    if (!x || !enc || r.failed()) return false;
    res.query_tokens = r.tokens("query_tokens", x->shape(0));
    res.key_tokens = r.tokens("key_tokens", enc->shape(0));
    return !r.failed();
}

bool decoder_block_kind(block_reader& r, block_result& res) {
    const matrix *x = nullptr, *enc = nullptr;
    decoder_block_weights w;
    if (!decoder_inputs(r, res, x, enc, w)) return false;
    res.decoder = decoder_block(*x, *enc, w);
    const auto& d = *res.decoder;
    const std::string& name = r.name;
    auto& out = r.ld.out;
    r.ld.register_mha(name + ".self", d.self_attention, res.query_tokens, res.query_tokens,
                      res.title + " masked self-attention", false);
    r.ld.register_mha(name + ".cross", d.cross_attention, res.query_tokens, res.key_tokens,
                      res.title + " cross-attention", true);
    r.ld.register_sublayer(name + ".add_norm1", d.add_norm1);
    r.ld.register_sublayer(name + ".add_norm2", d.add_norm2);
    r.ld.register_sublayer(name + ".add_norm3", d.add_norm3);
    out.matrices[name + ".ffn.hidden"] = d.ffn.hidden;
    out.matrices[name + ".ffn.output"] = d.ffn.output;
    out.matrices[name + ".output"] = d.output;
    return true;
}

bool decoding_kind(block_reader& r, block_result& res) {
    const matrix *x = nullptr, *enc = nullptr;
    decoder_block_weights w;
    if (!decoder_inputs(r, res, x, enc, w)) return false;
    decoder_session session(*enc, w);
    for (std::size_t t = 0; t < x->shape(0); ++t) {
        const matrix row = xt::view(*x, xt::range(t, t + 1), xt::all());  // [1, d]
        session.step(row);
    }
    res.decoding = session.steps();
    res.cross_kv_flops = session.cross_kv_flops();
    const std::string& name = r.name;
    auto& out = r.ld.out;
    for (std::size_t t = 0; t < res.decoding.size(); ++t)
        out.matrices[name + ".step" + std::to_string(t + 1) + ".output"] = res.decoding[t].output;
    out.matrices[name + ".outputs"] = session.outputs();
    out.matrices[name + ".cross_k"] = session.cross_k();
    out.matrices[name + ".cross_v"] = session.cross_v();
    out.matrices[name + ".self_k_cache"] = session.self_k_cache();
    out.matrices[name + ".self_v_cache"] = session.self_v_cache();
    return true;
}

bool stacked_kind(block_reader& r, block_result& res) {
    const matrix* x = r.m("x");
    const matrix *q1 = r.m("w_q1"), *k1 = r.m("w_k1"), *v1 = r.m("w_v1"), *q2 = r.m("w_q2"), *k2 = r.m("w_k2"),
                 *v2 = r.m("w_v2");
    if (!x || !q1 || !k1 || !v1 || !q2 || !k2 || !v2 || r.failed()) return false;
    res.stacked = stacked_attention(*x, single_head_weights{*q1, *k1, *v1}, single_head_weights{*q2, *k2, *v2});
    res.query_tokens = res.key_tokens = r.tokens("query_tokens", x->shape(0));
    if (r.failed()) return false;
    const auto& s = *res.stacked;
    auto& out = r.ld.out;
    for (int layer = 1; layer <= 2; ++layer) {
        attention_run run;
        run.name = r.name + ".layer" + std::to_string(layer);
        run.kind = "self";
        run.steps = layer == 1 ? s.layer1 : s.layer2;
        run.labels.title = res.title + ", layer " + std::to_string(layer);
        run.labels.query_tokens = run.labels.key_tokens = res.query_tokens;
        out.runs[run.name] = run;
        out.run_order.push_back(run.name);
    }
    out.matrices[r.name + ".combined_weights"] = s.combined_weights;
    out.matrices[r.name + ".combined_value"] = s.combined_value;
    out.matrices[r.name + ".collapsed_output"] = s.collapsed_output;
    out.matrices[r.name + ".output"] = s.layer2.output;
    return true;
}

}  // namespace

std::vector<block_kind> core_block_kinds() {
    static const std::vector<std::string> common = {"kind", "title", "query_tokens", "key_tokens"};
    static const std::vector<std::string> decoder = {"x", "encoder_output", "heads", "placement", "eps",
                                                     "self_w_q", "self_w_k", "self_w_v", "self_w_o",
                                                     "cross_w_q", "cross_w_k", "cross_w_v", "cross_w_o"};
    return {
        {"multi_head", with(with(common, {"x", "x_q", "x_kv", "heads", "causal", "alibi"}), mha_keys),
         "multi-head attention of x (or x_q over x_kv) with W_Q, W_K, W_V, W_O and H heads", multi_head_block},
        {"encoder_block", with(with(with(common, {"x", "heads", "placement", "eps"}), mha_keys), ffn_keys),
         "self-attention → Add & Norm → FFN → Add & Norm (placement pre or post)", encoder_block_kind},
        {"decoder_block", with(with(common, decoder), ffn_keys),
         "masked self-attention → Add & Norm → cross-attention → Add & Norm → FFN → Add & Norm", decoder_block_kind},
        {"decoding", with(with(common, decoder), ffn_keys),
         "the decoder block fed one target row at a time, with its caches", decoding_kind},
        {"stacked", with(common, {"x", "w_q1", "w_k1", "w_v1", "w_q2", "w_k2", "w_v2"}),
         "two attention layers with no nonlinearity between them", stacked_kind},
    };
}

const std::vector<block_kind>& block_kinds() {
    static const std::vector<block_kind> kinds = [] {
        std::vector<block_kind> all;
        for (auto family : {core_block_kinds}) {
            auto f = family();
            all.insert(all.end(), f.begin(), f.end());
        }
        return all;
    }();
    return kinds;
}

bool loader::read_block(const std::string& name, const toml::table& b) {
    const std::size_t before = rd.problems->size();
    const std::string kind = rd.string(b, "kind", true).value_or("");
    const block_kind* spec = nullptr;
    std::vector<std::string> names;
    for (const auto& k : block_kinds()) {
        names.push_back(k.name);
        if (k.name == kind) spec = &k;
    }
    if (!spec) {
        if (!kind.empty()) rd.fail(b.get("kind"), "unknown block kind '" + kind + "'" + hint_suffix(kind, names));
        return false;
    }
    rd.known_keys(b, "[blocks." + name + "] (kind " + kind + ")", spec->keys);
    block_reader r{*this, name, b, before};
    block_result res;
    res.kind = kind;
    res.title = rd.string(b, "title", false).value_or(name);
    try {
        if (!spec->compute(r, res)) return false;
    } catch (const shape_error& e) {
        rd.fail(&b, "block '" + name + "': " + e.what());
        return false;
    }
    if (!out.parts) out.parts = std::make_shared<lesson_parts>();
    out.parts->blocks[name] = std::move(res);
    return true;
}

}  // namespace attn::lessons::detail
